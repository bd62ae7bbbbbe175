//! Which methods a class answers, for validation: a site must call a method its receiver class
//! (or an ancestor) declares, loads, gets by a `write` or names in a category. Anything else
//! would be a `MissingMethodException` on every call, which is almost always a typo
//! (`site logIt = Logger.lgo`), so it is refused with the class's methods named.
//!
//! A method added at run time counts: `write A.dyn0` anywhere in the program makes `A.dyn0`
//! (and the same method on A's subclasses) callable, before or after the write runs.

use crate::fxhash::{FxMap, FxSet};
use crate::model::{Event, Scenario};

/// Steps up parent chains the check may take in all. A hierarchy 10^5 deep with thousands of
/// methods declared at its root could otherwise make this check cost 10^9 steps; past the
/// budget the remaining sites are not checked (the run resolves them as it always did).
const WALK_BUDGET: usize = 4_000_000;

/// Methods by class, declared and added, and each class's parent.
pub(crate) struct Answers<'a> {
    parent: FxMap<&'a str, &'a str>,
    /// `(class, method)`: the class answers the method itself, or (filled in by the walks of
    /// [`Answers::answers`]) through an ancestor.
    has: FxSet<(&'a str, &'a str)>,
    /// Methods each class declares or gets, in the order met (for the error message).
    own: FxMap<&'a str, Vec<&'a str>>,
    budget: usize,
}

impl<'a> Answers<'a> {
    pub(crate) fn of(s: &'a Scenario) -> Answers<'a> {
        let mut a = Answers { parent: FxMap::default(), has: FxSet::default(), own: FxMap::default(), budget: WALK_BUDGET };
        for c in &s.classes {
            a.declare(&c.name, c.parent.as_deref(), c.methods.iter().map(String::as_str));
        }
        s.visit_events(|ev| match ev {
            Event::Load { class, parent, methods } => a.declare(class, parent.as_deref(), methods.iter().map(String::as_str)),
            Event::Write { class, method } => a.add(class, method),
            _ => {}
        });
        for cat in &s.categories {
            for m in &cat.methods {
                a.add(&m.class, &m.method);
            }
        }
        a
    }

    fn declare(&mut self, class: &'a str, parent: Option<&'a str>, methods: impl Iterator<Item = &'a str>) {
        if let Some(p) = parent {
            self.parent.insert(class, p);
        }
        for m in methods {
            self.add(class, m);
        }
    }

    fn add(&mut self, class: &'a str, method: &'a str) {
        if self.has.insert((class, method)) {
            self.own.entry(class).or_default().push(method);
        }
    }

    /// Whether `class` answers `method`, itself or through an ancestor. Every class passed on
    /// the way is remembered as answering it, so sites along a deep chain walk it once.
    pub(crate) fn answers(&mut self, class: &'a str, method: &'a str) -> bool {
        let mut passed = Vec::new();
        let mut c = class;
        loop {
            if self.has.contains(&(c, method)) {
                for p in passed {
                    self.has.insert((p, method));
                }
                return true;
            }
            if self.budget == 0 {
                return true;
            }
            self.budget -= 1;
            passed.push(c);
            match self.parent.get(c) {
                // Validation refused cycles before this runs.
                Some(&p) => c = p,
                None => return false,
            }
        }
    }

    /// What `class` answers, for the message: its own methods and its ancestors', the first
    /// `shown` of them.
    pub(crate) fn listed(&self, class: &'a str, shown: usize) -> (Vec<&'a str>, usize) {
        let mut all = Vec::new();
        let mut c = Some(class);
        let mut steps = 0;
        while let Some(k) = c.filter(|_| steps < 1_000) {
            all.extend(self.own.get(k).into_iter().flatten().copied());
            c = self.parent.get(k).copied();
            steps += 1;
        }
        let total = all.len();
        all.truncate(shown);
        (all, total)
    }
}

#[cfg(test)]
mod tests {
    use crate::dsl;

    fn error(text: &str) -> String {
        dsl::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn a_site_calling_a_method_nobody_declares_is_refused_with_the_class_methods_named() {
        let e = error("class Logger { log flush }\nsite logIt = Logger.lgo\nop { loop 10 { call logIt } }");
        assert!(e.starts_with("2:21: "), "{e}");
        assert!(e.contains("`Logger.lgo`") && e.contains("log, flush"), "{e}");
    }

    #[test]
    fn inherited_written_loaded_and_category_methods_may_be_called() {
        let ok = [
            "class P { m }\nclass C extends P\nsite s = C.m\nop { loop 10 { call s } }",
            "class A\nsite s = A.dyn0\nop { loop 10 { every 5 { write A.dyn0 } call s } }",
            "class P\nclass C extends P\nsite s = C.dyn0\nsetup { write P.dyn0 }\nop { loop 10 { call s } }",
            "class A\nsite s = L.m\nsetup { load class L extends A { m } }\nop { loop 10 { call s } }",
            "class A\ncategory Cat { A.extra }\nsite s = A.extra\nop { use Cat { loop 10 { call s } } }",
        ];
        for text in ok {
            assert!(dsl::parse(text).is_ok(), "{text}: {:?}", dsl::parse(text).err());
        }
    }

    #[test]
    fn a_write_on_a_subclass_does_not_give_its_parent_the_method() {
        let e = error("class P\nclass C extends P\nsite s = P.m\nsetup { write C.m }\nop { loop 10 { call s } }");
        assert!(e.starts_with("3:12: ") && e.contains("`P.m`"), "{e}");
    }

    #[test]
    fn each_receiver_of_a_polymorphic_site_must_answer_its_method() {
        let e = error("class A { area }\nclass B { side }\nsite s = A.area, B.area\nop { loop 10 { call s } }");
        assert!(e.starts_with("3:18: ") && e.contains("`B.area`") && e.contains("side"), "{e}");
    }
}
