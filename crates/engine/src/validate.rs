//! Checks that make a scenario safe to simulate: names resolve, the hierarchy is acyclic, and
//! every number is bounded so no input can hang or exhaust the page.
//!
//! Errors name the place by a path into the model (`classes[2].parent`); the DSL front end maps
//! paths back to `line:col`.

use crate::fxhash::{FxMap as HashMap, FxSet as HashSet};
use std::cell::Cell;
use std::fmt;

use crate::answers::Answers;
use crate::name_table::NameTable;
use crate::scenario::{ClassDecl, Event, Scenario, SiteDecl, Stmt};

pub const MAX_CLASSES: usize = 100_000;
pub const MAX_SITES: usize = 1_000_000;
pub const MAX_LOOP_COUNT: u64 = 1_000_000_000_000;
pub const MAX_REPEAT: u64 = 1_000_000;
pub const MAX_OPS: u32 = 10_000;
pub const MAX_NESTING: usize = 32;
/// Methods one class (or one category) declares: far more than a real class has, and it keeps
/// a class's tables small enough that the text cap is reached first.
pub const MAX_METHODS: usize = 10_000;
/// Event statements in all blocks together (each fires many times; a scenario needs few).
pub const MAX_EVENTS: usize = 100_000;
/// `call` statements in all blocks together (16 bytes each: 160 MB at the cap). Ten per site:
/// the adversarial generator "many categories" at the caps (`crates/engine/tests/generators`)
/// calls all 10^6 sites inside each of its ten categories, and the engine bench runs it.
pub const MAX_CALLS: usize = 10 * MAX_SITES;

/// Where an error is: a text position (1-based) or a path into the JSON model.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum Location {
    Text { line: usize, col: usize },
    Path(String),
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ScenarioError {
    /// `None` for an error about the running simulation rather than a place in the scenario
    /// (a hand-fired event that names a class not loaded yet).
    pub location: Option<Location>,
    pub message: String,
}

impl ScenarioError {
    pub fn at_text(line: usize, col: usize, message: impl Into<String>) -> Self {
        ScenarioError { location: Some(Location::Text { line, col }), message: message.into() }
    }
    pub fn at_path(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { location: Some(Location::Path(path.into())), message: message.into() }
    }
    pub fn unlocated(message: impl Into<String>) -> Self {
        ScenarioError { location: None, message: message.into() }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Text { line, col } => write!(f, "{line}:{col}"),
            Location::Path(p) => write!(f, "{p}"),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(at) => write!(f, "{at}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::at_path(path, msg))
}

/// Longer words are cut in error messages: a pasted megabyte-long word must not be copied whole.
pub(crate) const EXCERPT_CHARS: usize = 80;

/// A word of the text as an error quotes it: between backquotes, cut after [`EXCERPT_CHARS`]
/// characters with its full length said.
pub(crate) fn excerpt(word: &str) -> String {
    match word.char_indices().nth(EXCERPT_CHARS) {
        None => format!("`{word}`"),
        Some((cut, _)) => format!("`{}...` ({} characters)", &word[..cut], word.chars().count()),
    }
}

/// Where a value is, as a model path built only when an error needs it: a large scenario has a
/// path for every statement, and formatting each one was most of validation's cost.
type Path<'a> = &'a dyn Fn() -> String;

/// A name the DSL can print and read back: a letter or `_`, then letters, digits, `_` and `$`,
/// at most 64 bytes.
pub(crate) fn is_ident(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && name.len() <= 64
}

fn check_ident(path: Path, what: &str, name: &str) -> Result<(), ScenarioError> {
    if is_ident(name) {
        Ok(())
    } else {
        err(path(), format!("{what} {} is not a valid name (letters, digits, _ and $; at most 64 bytes)", excerpt(name)))
    }
}

/// Site names to their dense ids (declaration order), built once by validation and handed to
/// the simulation, which resolves every call with it. A program usually calls its sites in the
/// order it declares them, so a lookup first tries the site after the last one found: at a
/// million sites that sequential compare replaces a cache-missing probe of a million-entry map.
pub struct SiteIndex<'a> {
    sites: &'a [SiteDecl],
    ids: NameTable,
    next: Cell<u32>,
}

impl<'a> SiteIndex<'a> {
    pub fn get(&self, name: &str) -> Option<u32> {
        let next = self.next.get();
        let id = match self.sites.get(next as usize) {
            Some(s) if s.name == name => next,
            _ => self.ids.get(name, |id| self.sites[id as usize].name.as_str())?,
        };
        self.next.set(id + 1);
        Some(id)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

/// The largest body cost a method may declare (one second of virtual time per call).
pub const MAX_BODY_NS: u64 = 1_000_000_000;

/// Body costs name a declared method once each, and stay bounded.
fn check_body_costs(c: &ClassDecl, path: &dyn Fn() -> String) -> Result<(), ScenarioError> {
    // Through sets: a class may declare 10^4 methods with a cost each.
    let declared: HashSet<&str> = if c.costs.is_empty() { HashSet::default() } else { c.methods.iter().map(String::as_str).collect() };
    let mut costed: HashSet<&str> = HashSet::default();
    for (j, cost) in c.costs.iter().enumerate() {
        let at = || format!("{}.costs[{j}]", path());
        if !declared.contains(cost.method.as_str()) {
            return err(at(), format!("a cost for {}, which the class does not declare", excerpt(&format!("{}.{}", c.name, cost.method))));
        }
        if !costed.insert(&cost.method) {
            return err(at(), format!("`{}.{}` has two costs", c.name, cost.method));
        }
        if cost.ns > MAX_BODY_NS {
            return err(at(), format!("`{}.{}` costs {} ns; at most {MAX_BODY_NS} ns (one second) per call", c.name, cost.method, cost.ns));
        }
    }
    Ok(())
}

/// Receiver classes of one polymorphic site (more than the inline cache holds is the point of
/// a megamorphic site; this only bounds the model's tables).
pub const MAX_RECEIVERS: usize = 64;
/// The sum of one site's mix weights: the length of its receiver cycle, which a site run steps
/// through call by call at most four times (`sim::site`).
pub const MAX_MIX_PERIOD: u64 = 1_000;
/// The cycles of all polymorphic sites together (each is a table of that many entries).
pub const MAX_MIX_TOTAL: u64 = 1_000_000;
/// Receiver classes of all polymorphic sites together (a name each, held by the model).
pub const MAX_POLY_RECEIVERS: usize = 250_000;

/// A polymorphic site's receivers and mix; returns its cycle length (0 for a monomorphic site).
fn check_receivers(site: &SiteDecl, i: usize, known: &HashSet<&str>) -> Result<u64, ScenarioError> {
    if !site.is_polymorphic() {
        if !site.mix().is_empty() {
            return err(format!("sites[{i}].mix"), format!("site `{}` has one receiver class; a mix needs two or more", site.name));
        }
        return Ok(0);
    }
    let n = 1 + site.others().len();
    if n > MAX_RECEIVERS {
        return err(format!("sites[{i}].others"), format!("site `{}` has {n} receiver classes; at most {MAX_RECEIVERS}", site.name));
    }
    for (j, class) in site.others().iter().enumerate() {
        let path = format!("sites[{i}].others[{j}]");
        if !known.contains(class.as_str()) {
            return err(path, format!("site `{}` calls on unknown class {}", site.name, excerpt(class)));
        }
        if site.receivers().take(j + 1).any(|c| c == class) {
            return err(path, format!("site `{}` names receiver class `{class}` twice", site.name));
        }
    }
    if !site.mix().is_empty() && site.mix().len() != n {
        return err(format!("sites[{i}].mix"), format!("site `{}` has {n} receiver classes but its mix has {} weights", site.name, site.mix().len()));
    }
    if let Some(j) = site.mix().iter().position(|&w| w == 0) {
        return err(format!("sites[{i}].mix[{j}]"), format!("a mix weight is at least 1 (receiver {} of site `{}` has 0)", j + 1, site.name));
    }
    let period: u64 = site.weights().iter().map(|&w| u64::from(w)).sum();
    if period > MAX_MIX_PERIOD {
        return err(format!("sites[{i}].mix"), format!("site `{}`'s mix weights add up to {period}; at most {MAX_MIX_PERIOD}", site.name));
    }
    Ok(period)
}

/// Validate a scenario. On success the simulator may index every name it meets.
pub fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    validate_indexed(s).map(drop)
}

/// [`validate`], keeping the site index it built (see [`SiteIndex`]).
pub(crate) fn validate_indexed(s: &Scenario) -> Result<SiteIndex<'_>, ScenarioError> {
    if s.classes.len() > MAX_CLASSES {
        return err(format!("classes[{MAX_CLASSES}]"), format!("{} classes; at most {MAX_CLASSES} are supported", s.classes.len()));
    }
    if s.sites.len() > MAX_SITES {
        return err(format!("sites[{MAX_SITES}]"), format!("{} sites; at most {MAX_SITES} are supported", s.sites.len()));
    }
    if s.measure.ops == 0 || s.measure.ops > MAX_OPS || s.measure.warmup_ops > MAX_OPS {
        return err("measure", format!("measured ops must be at least 1 and at most {MAX_OPS}, warm-up ops at most {MAX_OPS}"));
    }
    // First, and without recursion: every walk below recurses once per level.
    check_shape(s)?;
    // Declared classes by name: their position.
    let mut classes: HashMap<&str, usize> = HashMap::default();
    for (i, c) in s.classes.iter().enumerate() {
        let path = || format!("classes[{i}]");
        check_ident(&path, "class", &c.name)?;
        if classes.insert(&c.name, i).is_some() {
            return err(path(), format!("class `{}` is declared twice", c.name));
        }
        check_methods(&c.name, &c.methods, &path)?;
        check_body_costs(c, &path)?;
    }
    for (i, c) in s.classes.iter().enumerate() {
        if let Some(p) = &c.parent {
            if !classes.contains_key(p.as_str()) {
                return err(format!("classes[{i}].parent"), format!("class `{}` extends unknown class {}", c.name, excerpt(p)));
            }
        }
    }
    check_acyclic(s)?;
    // Classes loaded by the program count as known everywhere (sites may target them).
    let mut known: HashSet<&str> = classes.keys().copied().collect();
    for (b, block) in s.blocks() {
        collect_loads(block, &|| b.name().to_string(), &mut known)?;
    }

    let mut categories = HashSet::default();
    for (i, cat) in s.categories.iter().enumerate() {
        let path = || format!("categories[{i}]");
        check_ident(&path, "category", &cat.name)?;
        if !categories.insert(cat.name.as_str()) {
            return err(path(), format!("category `{}` is declared twice", cat.name));
        }
        for (j, m) in cat.methods.iter().enumerate() {
            let mp = || format!("{}.methods[{j}]", path());
            if !known.contains(m.class.as_str()) {
                return err(mp(), format!("category `{}` names unknown class {}", cat.name, excerpt(&m.class)));
            }
            check_ident(&mp, "method", &m.method)?;
        }
    }
    // `Err(i)`: site i is the first to repeat a name, reported in its turn below.
    let ids = NameTable::build(s.sites.len(), |i| s.sites[i as usize].name.as_str());
    let declared_twice = |i: usize| ScenarioError::at_path(format!("sites[{i}]"), format!("site `{}` is declared twice", s.sites[i].name));
    // Sites usually come grouped by class or in class order: the last site's class and the one
    // declared after it are checked by name before the set (see `SiteIndex`).
    let mut last_class = 0;
    let mut mix_total = 0u64;
    let mut answers = None;
    for (i, site) in s.sites.iter().enumerate() {
        let path = || format!("sites[{i}]");
        check_ident(&path, "site", &site.name)?;
        if ids.as_ref().err() == Some(&i) {
            return Err(declared_twice(i));
        }
        let near = [last_class, last_class + 1].into_iter().find(|&c| s.classes.get(c).is_some_and(|k| k.name == site.class));
        let declared = near.or_else(|| classes.get(site.class.as_str()).copied());
        if let Some(c) = declared {
            last_class = c;
        } else if !known.contains(site.class.as_str()) {
            return err(format!("{}.class", path()), format!("site `{}` calls on unknown class {}", site.name, excerpt(&site.class)));
        }
        check_ident(&|| format!("{}.method", path()), "method", &site.method)?;
        mix_total += check_receivers(site, i, &known)?;
        // The usual site calls a method its class declares: no map needed.
        if !declared.is_some_and(|c| s.classes[c].methods.iter().any(|m| **m == *site.method)) || site.is_polymorphic() {
            answers.get_or_insert_with(|| Answers::of(s)).check_site(site, i).map_err(|u| ScenarioError::at_path(u.path, u.message))?;
        }
    }
    let receivers: usize = s.sites.iter().filter(|x| x.is_polymorphic()).map(|x| 1 + x.others().len()).sum();
    if receivers > MAX_POLY_RECEIVERS {
        return err("sites", format!("the polymorphic sites name {receivers} receiver classes in all; at most {MAX_POLY_RECEIVERS}"));
    }
    if mix_total > MAX_MIX_TOTAL {
        return err("sites", format!("the polymorphic sites' mixes add up to {mix_total} calls per cycle; at most {MAX_MIX_TOTAL} over all sites"));
    }
    // The cap keeps ids in u32.
    let sites = SiteIndex { sites: &s.sites, ids: ids.map_err(declared_twice)?, next: Cell::new(0) };
    let names = Names { classes: &known, sites: &sites, categories: &categories };
    for (b, block) in s.blocks() {
        check_block(block, &|| b.name().to_string(), Where::Top, &names)?;
    }
    if !contains_loop(&s.op) {
        return err("op", "the op has no `loop`: nothing would be measured");
    }
    crate::expect::validate(s, &crate::expect::Declared { classes: &known, sites: &sites, categories: &categories })?;
    sites.next.set(0);
    Ok(sites)
}

/// Classes of a cycle an error names; it says how many there are in all.
const CYCLE_SHOWN: usize = 10;

/// Each class is followed up its parent chain once: a chain that reaches a class already
/// cleared stops there, so a deep hierarchy costs its size, not its size times its depth.
fn check_acyclic(s: &Scenario) -> Result<(), ScenarioError> {
    let index: HashMap<&str, usize> = s.classes.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
    // 0 = not seen, 1 = on the chain being followed, 2 = known to reach a root.
    let mut state = vec![0u8; s.classes.len()];
    for i in 0..s.classes.len() {
        let mut chain: Vec<usize> = Vec::new();
        let mut cur = Some(i);
        while let Some(c) = cur.filter(|&c| state[c] != 2) {
            if state[c] == 1 {
                // The cycle itself (the chain may lead into it), named by its first classes: a
                // cycle of 10^5 classes in one line would be a megabyte.
                let start = chain.iter().position(|&x| x == c).expect("c is on the chain");
                let cycle = &chain[start..];
                let names: Vec<&str> = cycle.iter().take(CYCLE_SHOWN).map(|&x| s.classes[x].name.as_str()).collect();
                let more = if cycle.len() > CYCLE_SHOWN { " -> ...".to_string() } else { String::new() };
                return err(
                    format!("classes[{}].parent", cycle[0]),
                    format!("cyclic hierarchy of {} classes: {}{more} -> {}", cycle.len(), names.join(" -> "), s.classes[c].name),
                );
            }
            state[c] = 1;
            chain.push(c);
            cur = s.classes[c].parent.as_deref().and_then(|p| index.get(p).copied());
        }
        for c in chain {
            state[c] = 2;
        }
    }
    Ok(())
}

/// A class's methods: valid names, each declared once, at most [`MAX_METHODS`].
fn check_methods(class: &str, methods: &[String], path: Path) -> Result<(), ScenarioError> {
    if methods.len() > MAX_METHODS {
        return err(format!("{}.methods[{MAX_METHODS}]", path()), format!("class `{class}` declares {} methods; at most {MAX_METHODS}", methods.len()));
    }
    // A handful of methods (the usual class) compare pairwise; more go through a set.
    let mut seen: HashSet<&str> = HashSet::default();
    for (j, m) in methods.iter().enumerate() {
        let at = || format!("{}.methods[{j}]", path());
        check_ident(&at, "method", m)?;
        let twice = if methods.len() <= 16 { methods[..j].contains(m) } else { !seen.insert(m) };
        if twice {
            return err(at(), format!("class `{class}` declares method `{m}` twice"));
        }
    }
    Ok(())
}

/// Nesting at most [`MAX_NESTING`] deep, and at most [`MAX_EVENTS`] event and [`MAX_CALLS`] call
/// statements, checked with an explicit stack: a scenario built by hand (or read from JSON) may
/// nest deeper than any recursion should follow.
fn check_shape(s: &Scenario) -> Result<(), ScenarioError> {
    let (mut events, mut calls) = (0usize, 0usize);
    for (b, block) in s.blocks() {
        // The blocks open, each with the index of its next statement.
        let mut open: Vec<(&[Stmt], usize)> = vec![(block, 0)];
        while let Some(&(stmts, next)) = open.last() {
            let Some(st) = stmts.get(next) else {
                open.pop();
                continue;
            };
            if let Some(top) = open.last_mut() {
                top.1 += 1;
            }
            let path = || {
                let steps: Vec<String> = open.iter().map(|(_, i)| format!("[{}]", i - 1)).collect();
                format!("{}{}", b.name(), steps.join(".body"))
            };
            match st {
                Stmt::Event(_) => events += 1,
                Stmt::Call { .. } => calls += 1,
                _ => {}
            }
            if events > MAX_EVENTS {
                return err(path(), format!("at most {MAX_EVENTS} event statements in a scenario"));
            }
            if calls > MAX_CALLS {
                return err(path(), format!("at most {MAX_CALLS} `call` statements in a scenario"));
            }
            if let Some(body) = st.body() {
                if open.len() > MAX_NESTING {
                    return err(path(), format!("blocks nest at most {MAX_NESTING} deep; this one would be level {}", open.len()));
                }
                open.push((body, 0));
            }
        }
    }
    Ok(())
}

fn collect_loads<'a>(block: &'a [Stmt], path: Path, known: &mut HashSet<&'a str>) -> Result<(), ScenarioError> {
    for (i, st) in block.iter().enumerate() {
        let p = || format!("{}[{i}]", path());
        if let Stmt::Event(ev) = st {
            let Event::Load { class, parent, methods } = &**ev else { continue };
            check_ident(&|| format!("{}.class", p()), "class", class)?;
            // The name clash first: `load class A extends A` where A exists is about the name.
            if known.contains(class.as_str()) {
                return err(format!("{}.class", p()), format!("a class named `{class}` already exists; a loaded class needs a new name"));
            }
            if let Some(par) = parent {
                if par == class {
                    return err(format!("{}.parent", p()), format!("loaded class `{class}` cannot extend itself"));
                }
                if !known.contains(par.as_str()) {
                    return err(format!("{}.parent", p()), format!("loaded class `{class}` extends unknown class {}", excerpt(par)));
                }
            }
            known.insert(class);
            check_methods(class, methods, &|| format!("{}.load", p()))?;
        } else if let Some(body) = st.body() {
            collect_loads(body, &|| format!("{}.body", p()), known)?
        }
    }
    Ok(())
}

struct Names<'a> {
    classes: &'a HashSet<&'a str>,
    sites: &'a SiteIndex<'a>,
    categories: &'a HashSet<&'a str>,
}

#[derive(Clone, Copy, PartialEq)]
enum Where {
    Top,
    InLoop,
    InEvery,
}

/// Recurses once per level of nesting: [`check_shape`] bounded it first.
fn check_block(block: &[Stmt], path: Path, at: Where, n: &Names) -> Result<(), ScenarioError> {
    for (i, st) in block.iter().enumerate() {
        let p = || format!("{}[{i}]", path());
        let field = |name: &str| format!("{}.{name}", p());
        match st {
            Stmt::Call { site } => {
                if at != Where::InLoop {
                    return err(p(), "`call` belongs directly inside a `loop`");
                }
                if !n.sites.contains(site.as_str()) {
                    return err(field("site"), format!("unknown site {}", excerpt(site)));
                }
            }
            Stmt::Loop(l) => {
                let (count, body) = (&l.count, &l.body);
                if at != Where::Top {
                    return err(p(), "`loop` cannot be nested in a loop; use `repeat` outside it");
                }
                if *count == 0 || *count > MAX_LOOP_COUNT {
                    return err(field("count"), format!("a loop runs at least once and at most {MAX_LOOP_COUNT} times (found {count})"));
                }
                check_block(body, &|| field("body"), Where::InLoop, n)?;
            }
            Stmt::Every(e) => {
                let (period, offset, body) = (&e.period, &e.offset, &e.body);
                if at != Where::InLoop {
                    return err(p(), "`every` belongs directly inside a `loop`");
                }
                if *period == 0 || *period > MAX_LOOP_COUNT {
                    return err(field("period"), format!("the period must be at least 1 and at most {MAX_LOOP_COUNT} iterations (found {period})"));
                }
                if offset >= period {
                    return err(field("offset"), "offset must be smaller than the period");
                }
                check_block(body, &|| field("body"), Where::InEvery, n)?;
            }
            Stmt::Repeat(r) => {
                let (count, body) = (&r.count, &r.body);
                if at != Where::Top {
                    return err(p(), "`repeat` cannot appear inside a loop");
                }
                if *count == 0 || *count > MAX_REPEAT {
                    return err(field("count"), format!("a repeat runs at least once and at most {MAX_REPEAT} times (found {count})"));
                }
                check_block(body, &|| field("body"), Where::Top, n)?;
            }
            Stmt::Use(u) => {
                let (category, body) = (&u.category, &u.body);
                if at != Where::Top {
                    return err(p(), "`use` cannot appear inside a loop; put the loop inside the `use` block");
                }
                if !n.categories.contains(category.as_str()) {
                    return err(field("category"), format!("unknown category {}", excerpt(category)));
                }
                check_block(body, &|| field("body"), Where::Top, n)?;
            }
            Stmt::Event(ev) => check_event(ev, &p, n)?,
        }
    }
    Ok(())
}

fn check_event(ev: &Event, p: Path, n: &Names) -> Result<(), ScenarioError> {
    let class = match ev {
        Event::Write { class, method } => {
            check_ident(&|| format!("{}.method", p()), "method", method)?;
            class
        }
        Event::Replace { class, .. } | Event::Remove { class } | Event::PerInstance { class } => class,
        Event::Load { .. } | Event::InvalidateAll | Event::Unattributed => return Ok(()),
    };
    if n.classes.contains(class.as_str()) {
        Ok(())
    } else {
        err(format!("{}.class", p()), format!("unknown class {}", excerpt(class)))
    }
}

fn contains_loop(block: &[Stmt]) -> bool {
    block.iter().any(|s| match s {
        Stmt::Loop(_) => true,
        Stmt::Repeat(r) => contains_loop(&r.body),
        Stmt::Use(u) => contains_loop(&u.body),
        _ => false,
    })
}
