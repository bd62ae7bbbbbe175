//! The caps of a scenario's JSON counted as it is read, before anything is built: the walk
//! reads the JSON value by value, keeping nothing but its counts and the place it is at (serde
//! reads a string through a buffer), and refuses the first list element past a cap with the
//! words the DSL parser uses for the same cap (`at most 100,000 classes; this is number
//! 100,001`), placed at the element (an object or a list at its opening bracket, a string at
//! its end) and named by its path (`classes[100000]`). Its reader can be a file read a piece at
//! a time, so a refusal past a cap costs the walk, not the text; `decode_scenario` walks the
//! text first too, so the refusal of the whole text is the same. Anything else the walk meets
//! (a syntax error, a value of the wrong type) decides nothing: the decode reports it.

use std::cell::Cell;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::dsl::cap_refusal;
use crate::expect::{MAX_EXPECTATIONS, MAX_LISTED_SITES, MAX_LISTED_TOTAL};
use crate::validate::{MAX_CALLS, MAX_CLASSES, MAX_EVENTS, MAX_METHODS, MAX_POLY_RECEIVERS, MAX_RECEIVERS, MAX_SITES};

/// Walk the scenario `d` holds, counting: an error at the first element past a cap (its
/// message: [`is_cap`]), or at anything else that stops the walk (a syntax error).
pub fn walk<'de, D: Deserializer<'de>>(d: D) -> Result<(), D::Error> {
    let counts = Counts::default();
    Walk { node: Node::Top, counts: &counts, refusal: None }.deserialize(d)
}

/// Whether an error of [`walk`] is a cap's refusal (and not a syntax error or the like): every
/// cap's message starts with [`REFUSAL`], and no message of serde or serde_json does.
pub fn is_cap(e: &impl std::fmt::Display) -> bool {
    e.to_string().starts_with(REFUSAL)
}

/// What starts a cap's refusal, and only that: serde's own messages never start this way.
const REFUSAL: &str = "at most ";

/// The counts over the whole scenario.
#[derive(Default)]
struct Counts {
    classes: Cell<usize>,
    sites: Cell<usize>,
    expectations: Cell<usize>,
    listed: Cell<usize>,
    receivers: Cell<usize>,
    events: Cell<usize>,
    calls: Cell<usize>,
}

/// Where a value is in the scenario: what its lists hold, and which are capped.
#[derive(Clone, Copy)]
enum Node {
    Top,
    Class,
    Category,
    Site,
    Stmt,
    Expectation,
    Claim,
    List(List),
    Other,
}

#[derive(Clone, Copy)]
enum List {
    Classes,
    Categories,
    Sites,
    Stmts,
    Expectations,
    ClassMethods,
    CategoryMethods,
    Others,
    Mix,
    Listed,
}

impl Node {
    /// The node of the value of `key` in an object here.
    fn field(self, key: &str) -> Node {
        Node::List(match (self, key) {
            (Node::Top, "classes") => List::Classes,
            (Node::Top, "categories") => List::Categories,
            (Node::Top, "sites") => List::Sites,
            (Node::Top, "setup" | "before_op" | "op") | (Node::Stmt, "body") => List::Stmts,
            (Node::Top, "expectations") => List::Expectations,
            (Node::Class, "methods") => List::ClassMethods,
            (Node::Category, "methods") => List::CategoryMethods,
            (Node::Site, "others") => List::Others,
            (Node::Site, "mix") => List::Mix,
            (Node::Expectation, "sites") => return Node::Claim,
            (Node::Claim, "sites") => List::Listed,
            _ => return Node::Other,
        })
    }
}

impl List {
    fn item(self) -> Node {
        match self {
            List::Classes => Node::Class,
            List::Categories => Node::Category,
            List::Sites => Node::Site,
            List::Stmts => Node::Stmt,
            List::Expectations => Node::Expectation,
            _ => Node::Other,
        }
    }

    /// The refusal of element `k` of this list, when it is past a cap; counted here.
    fn count(self, k: usize, n: &Counts) -> Option<String> {
        let counted = |c: &Cell<usize>, max: usize, what: &str| {
            c.set(c.get() + 1);
            (c.get() > max).then(|| cap_refusal(max, what, c.get()))
        };
        match self {
            List::Classes => counted(&n.classes, MAX_CLASSES, "classes"),
            List::Sites => counted(&n.sites, MAX_SITES, "sites"),
            List::Expectations => counted(&n.expectations, MAX_EXPECTATIONS, "expectations"),
            List::ClassMethods => (k >= MAX_METHODS).then(|| cap_refusal(MAX_METHODS, "methods per class", k + 1)),
            List::CategoryMethods => (k >= MAX_METHODS).then(|| cap_refusal(MAX_METHODS, "methods per category", k + 1)),
            List::Mix => (k >= MAX_RECEIVERS).then(|| cap_refusal(MAX_RECEIVERS, "mix weights per site (one per receiver class)", k + 1)),
            List::Listed => {
                if k >= MAX_LISTED_SITES {
                    return Some(cap_refusal(MAX_LISTED_SITES, "sites in one expectation's list", k + 1));
                }
                counted(&n.listed, MAX_LISTED_TOTAL, "sites listed by all expectations")
            }
            List::Others => {
                // The site's first receiver (its `class`) is number 1: `others[k]` is k + 2.
                if k + 1 >= MAX_RECEIVERS {
                    return Some(cap_refusal(MAX_RECEIVERS, "receiver classes per site", k + 2));
                }
                // The site's first receiver counts with its second, as the DSL counts them.
                n.receivers.set(n.receivers.get() + 1 + usize::from(k == 0));
                (n.receivers.get() > MAX_POLY_RECEIVERS)
                    .then(|| format!("{REFUSAL}{} receiver classes over all polymorphic sites", crate::digits::thousands(MAX_POLY_RECEIVERS as u64)))
            }
            List::Categories | List::Stmts => None,
        }
    }
}

/// One value at `node`; `refusal` is the cap it passes, refused as soon as it is met.
struct Walk<'a> {
    node: Node,
    counts: &'a Counts,
    refusal: Option<String>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Walk<'_> {
    fn refused<E: de::Error>(&self) -> Result<(), E> {
        self.refusal.as_ref().map_or(Ok(()), |r| Err(E::custom(r)))
    }
}

/// A scalar: its cap checked, nothing kept.
macro_rules! scalars {
    ($($visit:ident: $t:ty),*) => {$(
        fn $visit<E: de::Error>(self, _: $t) -> Result<(), E> {
            self.refused()
        }
    )*};
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a scenario")
    }

    scalars!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.refused()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.refused()?;
        let Node::List(list) = self.node else {
            while seq.next_element_seed(Walk { node: Node::Other, counts: self.counts, refusal: None })?.is_some() {}
            return Ok(());
        };
        let mut k = 0;
        // The element is counted as it begins: a list of exactly the cap is not refused.
        while seq.next_element_seed(Counted { list, k, counts: self.counts })?.is_some() {
            k += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.refused()?;
        while let Some(key) = map.next_key::<std::borrow::Cow<str>>()? {
            if matches!(self.node, Node::Stmt) && key == "stmt" {
                map.next_value_seed(Kind(self.counts))?;
            } else {
                map.next_value_seed(Walk { node: self.node.field(&key), counts: self.counts, refusal: None })?;
            }
        }
        Ok(())
    }
}

/// Element `k` of `list`, counted when it begins.
struct Counted<'a> {
    list: List,
    k: usize,
    counts: &'a Counts,
}

impl<'de> DeserializeSeed<'de> for Counted<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let refusal = self.list.count(self.k, self.counts);
        d.deserialize_any(Walk { node: self.list.item(), counts: self.counts, refusal })
    }
}

/// A statement's `stmt`: calls and events are counted (over the whole scenario).
struct Kind<'a>(&'a Counts);

impl<'de> DeserializeSeed<'de> for Kind<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Kind<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a statement kind")
    }

    fn visit_str<E: de::Error>(self, kind: &str) -> Result<(), E> {
        let (count, max, what) = match kind {
            "call" => (&self.0.calls, MAX_CALLS, "`call` statements"),
            "event" => (&self.0.events, MAX_EVENTS, "event statements"),
            _ => return Ok(()),
        };
        count.set(count.get() + 1);
        if count.get() > max {
            return Err(E::custom(cap_refusal(max, what, count.get())));
        }
        Ok(())
    }
}
