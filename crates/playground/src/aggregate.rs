//! The blast view's aggregated drawing for big worlds: the class forest as collapsible rows.
//!
//! Above [`AGGREGATE_ABOVE`] classes + sites the card layout (`layout.rs`) is no longer
//! readable (a 2,000 x 2,000 world drew a 138,000-px-wide SVG) and no longer cheap to render.
//! Instead each class is one row carrying its whole subtree's counts (classes, sites, relinks
//! = the heat); a row opens to show its children and its own sites, each level showing at most
//! [`ROWS_PER_LEVEL`] rows (hottest first) and a "+N more" row for the rest; a search opens
//! the path to a class or site. Everything here is iterative (a 5,000-deep chain must not
//! recurse 5,000 frames deep on the wasm stack) and linear in the world's size.

use std::collections::HashSet;
use std::rc::Rc;

use blast_engine::scenario::Scenario;
use rustc_hash::FxHashMap as FxMap;

use crate::order;

/// Classes + sites above which the blast view aggregates. Measured in the e2e `scale` check:
/// the card drawing of ~400 elements renders in a few ms; 2,000 x 2,000 took seconds.
pub const AGGREGATE_ABOVE: usize = 600;
/// Rows shown per opened level (children, then sites); the rest collapse into one row.
pub const ROWS_PER_LEVEL: usize = 40;
/// Search hits listed at most.
pub const MAX_HITS: usize = 12;

/// The class forest of one scenario, indexed once. The names stay in the scenario and the
/// class list (shared, not copied: at 10^5 sites copying them and a SipHash map of the class
/// names, looked up once per site, were most of the aggregated view's first render, 29-44 ms
/// of CPU).
#[derive(Debug, PartialEq, Default)]
pub struct Forest {
    /// (name, parent) of each class.
    classes: Rc<Vec<(String, Option<String>)>>,
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    roots: Vec<usize>,
    /// The scenario: its sites (name, receiver class) in order.
    scenario: Rc<Scenario>,
    /// Site indices grouped by receiver class: class `c`'s are
    /// `by_class[class_start[c]..class_start[c + 1]]`, in scenario order.
    by_class: Vec<usize>,
    class_start: Vec<usize>,
    /// Receiver class of each site (`None`: not a known class).
    site_class: Vec<Option<usize>>,
    /// Every class after all its descendants (for subtree sums without recursion).
    post_order: Vec<usize>,
}

/// A subtree's sums for one lane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub classes: u64,
    pub sites: u64,
    pub relinks: u64,
    /// Sites in the subtree with at least one relink.
    pub hit_sites: u64,
}

/// One row of the aggregated drawing.
#[derive(Clone, Debug, PartialEq)]
pub enum Row {
    Class {
        id: usize,
        depth: usize,
        open: bool,
        has_more: bool,
    },
    Site {
        site: usize,
        depth: usize,
    },
    /// `hidden` rows of the opened class `parent` (or of the roots) not shown.
    More {
        depth: usize,
        hidden: usize,
    },
}

/// A search result.
#[derive(Clone, Debug, PartialEq)]
pub enum Hit {
    Class(usize),
    Site(usize),
}

impl Forest {
    /// `classes` (name, parent) and the scenario's sites (name, receiver class). Unknown
    /// parents make a class a root; classes only reachable through a cycle become roots too.
    pub fn new(classes: Rc<Vec<(String, Option<String>)>>, scenario: Rc<Scenario>) -> Forest {
        let n = classes.len();
        // Looked up once per class and per site while indexing (the fixed-seed hasher: names
        // are short, SipHash's rounds were the cost), then dropped.
        // In reverse, so a repeated name keeps its first class.
        let index: FxMap<&str, usize> = classes.iter().enumerate().rev().map(|(i, (name, _))| (name.as_str(), i)).collect();
        let mut parent: Vec<Option<usize>> =
            classes.iter().enumerate().map(|(i, (_, p))| p.as_deref().and_then(|p| index.get(p).copied()).filter(|&p| p != i)).collect();
        // Break cycles: walk each class's parent chain once, marking as we go (linear overall).
        let mut state = vec![0u8; n]; // 0 unseen, 1 on the current walk, 2 done
        for start in 0..n {
            let mut walk = Vec::new();
            let mut at = Some(start);
            while let Some(i) = at {
                match state[i] {
                    2 => break,
                    1 => {
                        // `i` closes a cycle: cut its link to make it a root.
                        parent[i] = None;
                        break;
                    }
                    _ => {
                        state[i] = 1;
                        walk.push(i);
                        at = parent[i];
                    }
                }
            }
            for i in walk {
                state[i] = 2;
            }
        }
        let mut children = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for (i, p) in parent.iter().enumerate() {
            match p {
                Some(p) => children[*p].push(i),
                None => roots.push(i),
            }
        }
        let site_class: Vec<Option<usize>> = scenario.sites.iter().map(|s| index.get(s.class.as_str()).copied()).collect();
        drop(index);
        // Counting sort of the sites by class: one flat list, no vector per class.
        let mut class_start = vec![0usize; n + 1];
        for c in site_class.iter().flatten() {
            class_start[c + 1] += 1;
        }
        for c in 0..n {
            class_start[c + 1] += class_start[c];
        }
        let mut next = class_start.clone();
        let mut by_class = vec![0usize; class_start[n]];
        for (s, c) in site_class.iter().enumerate() {
            if let Some(c) = c {
                by_class[next[*c]] = s;
                next[*c] += 1;
            }
        }
        // Post-order without recursion: pre-order with an explicit stack, reversed.
        let mut pre = Vec::with_capacity(n);
        let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            pre.push(i);
            stack.extend(children[i].iter().rev().copied());
        }
        pre.reverse();
        Forest { classes, parent, children, roots, scenario, by_class, class_start, site_class, post_order: pre }
    }

    pub fn len(&self) -> usize {
        self.classes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// Class `c`'s name.
    pub fn name(&self, c: usize) -> &str {
        &self.classes[c].0
    }

    /// How many sites the scenario has.
    pub fn site_count(&self) -> usize {
        self.scenario.sites.len()
    }

    /// Site `s`'s name.
    pub fn site_name(&self, s: usize) -> &str {
        self.scenario.sites[s].name.as_str()
    }

    /// Every site's name, in scenario order.
    pub fn site_names(&self) -> impl Iterator<Item = &str> {
        self.scenario.sites.iter().map(|s| s.name.as_str())
    }

    /// The site named `name` (a scan: for one site, not per site).
    pub fn site_id(&self, name: &str) -> Option<usize> {
        self.site_names().position(|n| n == name)
    }

    pub fn site_class(&self, site: usize) -> Option<usize> {
        self.site_class.get(site).copied().flatten()
    }

    /// Class `c`'s own sites, in scenario order.
    fn sites_of(&self, c: usize) -> &[usize] {
        &self.by_class[self.class_start[c]..self.class_start[c + 1]]
    }

    /// Per class, its subtree's sums; `site_relinks[s]` is site `s`'s relinks in one lane.
    pub fn totals(&self, site_relinks: &[u64]) -> Vec<Totals> {
        let mut t = vec![Totals::default(); self.len()];
        for &i in &self.post_order {
            let mut own = Totals { classes: 1, sites: self.sites_of(i).len() as u64, ..Totals::default() };
            for &s in self.sites_of(i) {
                let r = site_relinks.get(s).copied().unwrap_or(0);
                own.relinks += r;
                own.hit_sites += u64::from(r > 0);
            }
            for &c in &self.children[i] {
                own.classes += t[c].classes;
                own.sites += t[c].sites;
                own.relinks += t[c].relinks;
                own.hit_sites += t[c].hit_sites;
            }
            t[i] = own;
        }
        t
    }

    /// The classes from a root down to `id` (inclusive).
    pub fn path_to(&self, id: usize) -> Vec<usize> {
        let mut path = vec![id];
        let mut at = self.parent[id];
        while let Some(p) = at {
            if path.len() > self.len() {
                break;
            }
            path.push(p);
            at = self.parent[p];
        }
        path.reverse();
        path
    }

    /// Classes and sites whose name contains `query` (ASCII case-insensitive: names are
    /// identifiers), exact matches first.
    pub fn search(&self, query: &str) -> Vec<Hit> {
        let q = query.trim().to_ascii_lowercase();
        if q.is_empty() {
            return Vec::new();
        }
        let mut hits = Vec::new();
        if let Some(i) = self.classes.iter().position(|(n, _)| n == query.trim()) {
            hits.push(Hit::Class(i));
        }
        if let Some(s) = self.site_id(query.trim()) {
            hits.push(Hit::Site(s));
        }
        let classes = self.classes.iter().enumerate().filter(|(_, (n, _))| n.to_ascii_lowercase().contains(&q)).map(|(i, _)| Hit::Class(i));
        let sites = self.site_names().enumerate().filter(|(_, n)| n.to_ascii_lowercase().contains(&q)).map(|(s, _)| Hit::Site(s));
        for h in classes.chain(sites) {
            if hits.len() >= MAX_HITS {
                break;
            }
            if !hits.contains(&h) {
                hits.push(h);
            }
        }
        hits
    }

    /// The rows to draw: roots, and below each opened class its children then its own sites,
    /// hottest first, at most `ROWS_PER_LEVEL` per level. `show` lists classes and sites that
    /// must be visible even beyond that limit (the search hit, the selected site).
    pub fn rows(&self, totals: &[Totals], site_relinks: &[u64], open: &HashSet<usize>, show: &ShowAlso) -> Vec<Row> {
        let mut rows = Vec::new();
        // Explicit stack of (class, depth) frames, or the "+N more" rows queued after them.
        enum Job {
            Class(usize, usize),
            Sites(usize, usize),
            More(usize, usize),
        }
        let mut stack: Vec<Job> = Vec::new();
        let push_level = |stack: &mut Vec<Job>, ids: &[usize], depth: usize| {
            let mut ids: Vec<usize> = ids.to_vec();
            // (A class without totals counts as cold: a caller's lane may lag a new world.)
            let heat = |i: usize| totals.get(i).map_or(0, |t| t.relinks);
            order::sort_by(&mut ids, |&a, &b| heat(b).cmp(&heat(a)).then(a.cmp(&b)));
            let (mut shown, rest): (Vec<usize>, Vec<usize>) =
                (ids.iter().take(ROWS_PER_LEVEL).copied().collect(), ids.iter().skip(ROWS_PER_LEVEL).copied().collect());
            let extra: Vec<usize> = rest.iter().copied().filter(|i| show.classes.contains(i)).collect();
            shown.extend(&extra);
            let hidden = rest.len() - extra.len();
            if hidden > 0 {
                stack.push(Job::More(depth, hidden));
            }
            for &i in shown.iter().rev() {
                stack.push(Job::Class(i, depth));
            }
        };
        push_level(&mut stack, &self.roots, 0);
        while let Some(job) = stack.pop() {
            match job {
                Job::More(depth, hidden) => rows.push(Row::More { depth, hidden }),
                Job::Sites(i, depth) => {
                    let mut sites = self.sites_of(i).to_vec();
                    order::sort_by(&mut sites, |&a, &b| site_relinks.get(b).cmp(&site_relinks.get(a)).then(a.cmp(&b)));
                    let mut hidden = 0;
                    for (k, &s) in sites.iter().enumerate() {
                        if k < ROWS_PER_LEVEL || show.sites.contains(&s) {
                            rows.push(Row::Site { site: s, depth });
                        } else {
                            hidden += 1;
                        }
                    }
                    if hidden > 0 {
                        rows.push(Row::More { depth, hidden });
                    }
                }
                Job::Class(i, depth) => {
                    let is_open = open.contains(&i);
                    let has_more = !self.children[i].is_empty() || !self.sites_of(i).is_empty();
                    rows.push(Row::Class { id: i, depth, open: is_open, has_more });
                    if is_open {
                        // Sites come after the children: push them first (the stack pops last-in first).
                        stack.push(Job::Sites(i, depth + 1));
                        push_level(&mut stack, &self.children[i], depth + 1);
                    }
                }
            }
        }
        rows
    }
}

/// Classes and sites a level shows even past its row limit.
#[derive(Debug, Default, PartialEq)]
pub struct ShowAlso {
    pub classes: HashSet<usize>,
    pub sites: HashSet<usize>,
}

/// Whether a world of this size is drawn aggregated.
pub fn aggregates(classes: usize, sites: usize) -> bool {
    classes + sites > AGGREGATE_ABOVE
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::scenario::SiteDecl;

    /// A scenario of sites (name, receiver class), each calling `m`.
    fn sites(sites: &[(&str, &str)]) -> Rc<Scenario> {
        let sites = sites.iter().map(|(name, class)| SiteDecl { name: (*name).into(), class: (*class).into(), method: "m".into(), poly: None }).collect();
        Rc::new(Scenario { sites, ..Scenario::default() })
    }

    fn chain(depth: usize) -> Vec<(String, Option<String>)> {
        (0..depth).map(|i| (format!("K{i}"), (i > 0).then(|| format!("K{}", i - 1)))).collect()
    }

    #[test]
    fn a_deep_chain_sums_without_recursion() {
        let classes = chain(100_000);
        let f = Forest::new(Rc::new(classes), sites(&[("a", "K99999"), ("b", "K0")]));
        let t = f.totals(&[7, 1]);
        assert_eq!(t[0], Totals { classes: 100_000, sites: 2, relinks: 8, hit_sites: 2 });
        assert_eq!(t[99_999], Totals { classes: 1, sites: 1, relinks: 7, hit_sites: 1 });
        assert_eq!(f.path_to(99_999).len(), 100_000);
    }

    #[test]
    fn cycles_become_roots_and_nothing_is_lost() {
        let classes = vec![("A".to_string(), Some("B".to_string())), ("B".to_string(), Some("A".to_string())), ("C".to_string(), Some("C".to_string()))];
        let f = Forest::new(Rc::new(classes), Rc::default());
        let t = f.totals(&[]);
        let roots_total: u64 = f.roots.iter().map(|&r| t[r].classes).sum();
        assert_eq!(roots_total, 3, "every class is under exactly one root");
    }

    #[test]
    fn closed_roots_are_one_row_each_and_levels_are_capped() {
        let mut classes = vec![("Root".to_string(), None)];
        classes.extend((0..100).map(|i| (format!("C{i}"), Some("Root".to_string()))));
        let named: Vec<(String, String)> = (0..100).map(|i| (format!("s{i}"), format!("C{i}"))).collect();
        let f = Forest::new(Rc::new(classes), sites(&named.iter().map(|(s, c)| (s.as_str(), c.as_str())).collect::<Vec<_>>()));
        let relinks: Vec<u64> = (0..100).map(|i| if i == 77 { 1000 } else { 0 }).collect();
        let t = f.totals(&relinks);
        let closed = f.rows(&t, &relinks, &HashSet::new(), &ShowAlso::default());
        assert_eq!(closed, vec![Row::Class { id: 0, depth: 0, open: false, has_more: true }]);
        let rows = f.rows(&t, &relinks, &HashSet::from([0]), &ShowAlso::default());
        assert_eq!(rows.len(), 1 + ROWS_PER_LEVEL + 1);
        // The hottest child comes first, the rest collapse into one "+N more" row.
        assert_eq!(rows[1], Row::Class { id: 78, depth: 1, open: false, has_more: true });
        assert_eq!(rows.last(), Some(&Row::More { depth: 1, hidden: 100 - ROWS_PER_LEVEL }));
        // A search hit beyond the limit is shown anyway.
        let show = ShowAlso { classes: HashSet::from([100]), sites: HashSet::new() };
        let rows = f.rows(&t, &relinks, &HashSet::from([0]), &show);
        assert!(rows.contains(&Row::Class { id: 100, depth: 1, open: false, has_more: true }));
        assert_eq!(rows.last(), Some(&Row::More { depth: 1, hidden: 100 - ROWS_PER_LEVEL - 1 }));
    }

    #[test]
    fn sites_hang_on_their_receiver_class_in_scenario_order() {
        let classes = vec![("A".to_string(), None), ("B".to_string(), Some("A".to_string())), ("A".to_string(), None)];
        let f = Forest::new(Rc::new(classes), sites(&[("s0", "B"), ("s1", "A"), ("s2", "Nope"), ("s3", "B")]));
        assert_eq!((f.sites_of(0), f.sites_of(1), f.sites_of(2)), (&[1][..], &[0, 3][..], &[][..]), "a repeated class name is its first class");
        assert_eq!((0..4).map(|s| f.site_class(s)).collect::<Vec<_>>(), [Some(1), Some(0), None, Some(1)]);
        assert_eq!((f.site_name(3), f.site_id("s2"), f.site_count(), f.name(1)), ("s3", Some(2), 4, "B"));
        assert_eq!(f.totals(&[1, 2, 4, 8])[0], Totals { classes: 2, sites: 3, relinks: 11, hit_sites: 3 }, "a site of an unknown class counts nowhere");
    }

    #[test]
    fn rows_without_totals_are_drawn_cold_not_a_panic() {
        let f = Forest::new(Rc::new(chain(3)), sites(&[("a", "K2")]));
        let rows = f.rows(&[], &[], &HashSet::from([0, 1]), &ShowAlso::default());
        assert_eq!(rows.len(), 3, "the chain down to its last class: {rows:?}");
    }

    #[test]
    fn search_finds_classes_and_sites_exact_first() {
        let classes = vec![("Alpha".to_string(), None), ("alphabet".to_string(), None)];
        let f = Forest::new(Rc::new(classes), sites(&[("alpha", "Alpha")]));
        assert_eq!(f.search("alpha"), vec![Hit::Site(0), Hit::Class(0), Hit::Class(1)]);
        assert_eq!(f.search("  "), vec![]);
        assert_eq!(f.search("zzz"), vec![]);
    }

    #[test]
    fn the_threshold_separates_presets_from_big_worlds() {
        assert!(!aggregates(6, 8));
        assert!(aggregates(2_000, 2_000));
    }
}
