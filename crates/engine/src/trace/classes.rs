//! The class tree a capture records beside its log (`NAME.classes`), where the log does not say
//! it: HotSpot's LogCompilation names a compile's classes without their supertypes, and Node 20
//! writes no prototype chain unless `--log-maps-details` (12 MB for a 60-line program). The
//! capture writes it from the running program: `probes/traces/java/agent/ClassTree.java` (a Java
//! agent, every class of the application class loader and its supertypes, at exit) and
//! `probes/traces/node/class-tree.js` (the program's classes, from their prototype chains).
//!
//! One class a line, words separated by spaces, `#` lines are comments:
//!
//! ```text
//! class NAME [extends PARENT] [implements I,J] [abstract|interface] [finalizer] [methods m()V,n(I)I]
//! ```
//!
//! NAME as the log spells classes (Java's `Class.getName`: `ChaBreak$Shape`, `java.lang.Object`;
//! JavaScript: the constructor's name); `implements` the directly implemented interfaces;
//! `methods` the concrete methods the class declares (Java: name and descriptor; JavaScript:
//! names). Pure: the caller reads the file and hands the text over.

use std::fmt;

use serde::Serialize;

/// At most this many classes are read from one file (a javac run loads ~4,000).
pub const MAX_CLASSES: usize = 200_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClassKind {
    Concrete,
    Abstract,
    Interface,
}

/// One class of the recorded tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClassFacts {
    pub name: String,
    pub parent: Option<String>,
    pub interfaces: Vec<String>,
    pub kind: ClassKind,
    /// Declares a finalizer (Java's `finalize()V`).
    pub finalizer: bool,
    /// Concrete methods the class declares.
    pub methods: Vec<String>,
}

impl ClassFacts {
    /// Declares a concrete method called `name` (a descriptor, where given, is ignored: the
    /// compile log names a dependency's method without one).
    pub fn declares(&self, name: &str) -> bool {
        self.methods.iter().any(|m| m.split('(').next() == Some(name))
    }
}

/// Why a class tree was refused, with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClassesError {
    pub line: usize,
    pub why: String,
}

impl fmt::Display for ClassesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "class tree line {}: {}", self.line, self.why)
    }
}

impl std::error::Error for ClassesError {}

fn list(words: &str) -> Vec<String> {
    words.split(',').filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// Read a class tree (the module header has the format). A class named twice keeps its first
/// line.
pub fn parse_classes(text: &str) -> Result<Vec<ClassFacts>, ClassesError> {
    let mut out: Vec<ClassFacts> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |why: String| ClassesError { line: i + 1, why };
        let mut words = line.split(' ').filter(|w| !w.is_empty());
        if words.next() != Some("class") {
            return Err(err("expected `class NAME ...`".to_string()));
        }
        let name = words.next().ok_or_else(|| err("a class without a name".to_string()))?.to_string();
        let mut c = ClassFacts { name, parent: None, interfaces: Vec::new(), kind: ClassKind::Concrete, finalizer: false, methods: Vec::new() };
        while let Some(w) = words.next() {
            let mut value = |key: &str| words.next().map(str::to_string).ok_or_else(|| err(format!("`{key}` without its value")));
            match w {
                "extends" => c.parent = Some(value(w)?),
                "implements" => c.interfaces = list(&value(w)?),
                "methods" => c.methods = list(&value(w)?),
                "abstract" => c.kind = ClassKind::Abstract,
                "interface" => c.kind = ClassKind::Interface,
                "finalizer" => c.finalizer = true,
                other => return Err(err(format!("unknown word `{other}`"))),
            }
        }
        if seen.insert(c.name.clone()) {
            if out.len() == MAX_CLASSES {
                return Err(err(format!("more than {MAX_CLASSES} classes")));
            }
            out.push(c);
        }
    }
    Ok(out)
}

/// The recorded tree, looked up by name.
pub(super) struct Tree<'a> {
    by_name: std::collections::BTreeMap<&'a str, &'a ClassFacts>,
}

impl<'a> Tree<'a> {
    pub(super) fn new(classes: &'a [ClassFacts]) -> Tree<'a> {
        Tree { by_name: classes.iter().map(|c| (c.name.as_str(), c)).collect() }
    }

    pub(super) fn get(&self, name: &str) -> Option<&'a ClassFacts> {
        self.by_name.get(name).copied()
    }

    /// The direct supertypes (parent, then interfaces) of `name`.
    pub(super) fn direct_supers(&self, name: &str) -> Vec<&'a str> {
        let Some(c) = self.get(name) else { return Vec::new() };
        c.parent.iter().chain(&c.interfaces).map(String::as_str).collect()
    }

    /// Every proper supertype of `name` (classes and interfaces, each once, nearest first);
    /// names the tree does not hold end their branch. Each class is visited once, so a cycle in
    /// a malformed file ends.
    pub(super) fn supers(&self, name: &str) -> Vec<&'a str> {
        let mut out: Vec<&'a str> = Vec::new();
        let mut todo = self.direct_supers(name);
        let mut i = 0;
        while i < todo.len() {
            let s = todo[i];
            i += 1;
            if s == name || out.contains(&s) {
                continue;
            }
            out.push(s);
            todo.extend(self.direct_supers(s));
        }
        out
    }

    /// Is `sub` the class `sup` or one of its subtypes?
    pub(super) fn is_subtype(&self, sub: &str, sup: &str) -> bool {
        sub == sup || self.supers(sub).contains(&sup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_reads_its_words_and_walks_every_supertype() {
        let text =
            "# recorded\nclass A abstract methods f()V\nclass I interface\nclass B extends A implements I methods f()V,g(I)I\nclass C extends B finalizer\n";
        let classes = parse_classes(text).unwrap();
        assert_eq!(classes.len(), 4);
        assert_eq!(classes[2].interfaces, ["I"]);
        assert!(classes[2].declares("g") && !classes[2].declares("h"));
        assert!(classes[3].finalizer);
        let tree = Tree::new(&classes);
        assert_eq!(tree.supers("C"), ["B", "A", "I"]);
        assert!(tree.is_subtype("C", "I") && !tree.is_subtype("A", "B"));
    }

    #[test]
    fn a_bad_line_is_refused_with_its_number_and_a_cycle_ends() {
        assert_eq!(parse_classes("class A\nclas B\n").unwrap_err().line, 2);
        assert_eq!(parse_classes("class A extends\n").unwrap_err().why, "`extends` without its value");
        assert!(parse_classes("class A shiny\n").unwrap_err().why.contains("shiny"));
        let classes = parse_classes("class A extends B\nclass B extends A\n").unwrap();
        assert_eq!(Tree::new(&classes).supers("A"), ["B"]);
    }
}
