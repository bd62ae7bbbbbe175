//! Which methods a class answers, for validation: a site must call a method its receiver class
//! (or an ancestor) declares, loads, gets by a `write` or names in a category. Anything else
//! would be a `MissingMethodException` on every call, which is almost always a typo
//! (`site logIt = Logger.lgo`), so it is refused with the class's methods named.
//!
//! A method added at run time counts: `write A.dyn0` anywhere in the program makes `A.dyn0`
//! (and the same method on A's subclasses) callable, before or after the write runs.

use crate::fxhash::{FxMap, FxSet};
use crate::scenario::{Event, Scenario, SiteDecl};

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

    /// What `class` answers, for the message: its own methods, then its ancestors'.
    fn listed(&self, class: &'a str) -> Vec<&'a str> {
        let mut all = Vec::new();
        let mut c = Some(class);
        // Bounded like the walks: a message names a few of them anyway.
        for _ in 0..1_000 {
            let Some(k) = c else { break };
            all.extend(self.own.get(k).into_iter().flatten().copied());
            c = self.parent.get(k).copied();
        }
        all
    }

    /// Every receiver class of site `i` answers its method; the first that does not is
    /// refused at its place, with the methods it has (and the nearest of them, when one is
    /// within a typo of it).
    pub(crate) fn check_site(&mut self, site: &'a SiteDecl, i: usize) -> Result<(), Unanswered> {
        let method: &'a str = &site.method;
        for (j, class) in site.receivers().enumerate() {
            if self.answers(class, method) {
                continue;
            }
            let all = self.listed(class);
            let has = match all.len() {
                0 => format!("`{class}` has no methods"),
                n if n > SHOWN => format!("`{class}` has {} and {} more", all[..SHOWN].join(", "), n - SHOWN),
                _ => format!("`{class}` has {}", all.join(", ")),
            };
            let near = nearest(method, &all).map_or(String::new(), |m| format!("; did you mean `{m}`?"));
            let at = if j == 0 { format!("sites[{i}].method") } else { format!("sites[{i}].others[{}]", j - 1) };
            return Err(Unanswered {
                path: at,
                message: format!("site `{}` calls `{class}.{method}`, which `{class}` neither declares nor inherits ({has}{near}); declare it, or add it with `write {class}.{method}`", site.name),
            });
        }
        Ok(())
    }
}

/// A site's receiver that does not answer its method: where (a model path) and why.
#[derive(Debug)]
pub(crate) struct Unanswered {
    pub path: String,
    pub message: String,
}

/// Methods a refusal names.
const SHOWN: usize = 10;

/// The method of `all` nearest to `wrong` by edit distance, when it is at most 2 (and less than
/// half the name): a likely typo. Names are at most 64 bytes, so each distance is cheap.
fn nearest<'a>(wrong: &str, all: &[&'a str]) -> Option<&'a str> {
    let limit = 2.min(wrong.len().saturating_sub(1) / 2).max(1);
    all.iter().map(|m| (edit_distance(wrong, m), *m)).filter(|&(d, _)| d <= limit).min_by_key(|&(d, _)| d).map(|(_, m)| m)
}

/// Edit distance over bytes (names are ASCII), a swap of two neighbours counting as one edit
/// (`lgo` is one from `log`): the optimal string alignment distance.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    rows[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let swap = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j - 1] + swap).min(rows[i - 1][j] + 1).min(rows[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
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
        assert!(e.contains("`Logger.lgo`") && e.contains("log, flush; did you mean `log`?"), "{e}");
    }

    #[test]
    fn a_name_far_from_every_method_gets_no_suggestion() {
        let e = error("class A { m n }\nsite s = A.zz\nop { loop 10 { call s } }");
        assert!(e.ends_with("(`A` has m, n); declare it, or add it with `write A.zz`"), "{e}");
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
