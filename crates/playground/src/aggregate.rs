//! The blast view's aggregated drawing for big worlds: the class forest as collapsible rows.
//!
//! Above [`AGGREGATE_ABOVE`] classes + sites the card layout (`layout.rs`) is no longer
//! readable (a 2,000 x 2,000 world drew a 138,000-px-wide SVG) and no longer cheap to render.
//! Instead each class is one row carrying its whole subtree's counts (classes, sites, relinks
//! = the heat); a row opens to show its children and its own sites, each level showing at most
//! [`ROWS_PER_LEVEL`] rows (hottest first) and a "+N more" row for the rest; a search opens
//! the path to a class or site. Everything here is iterative (a 5,000-deep chain must not
//! recurse 5,000 frames deep on the wasm stack) and linear in the world's size.

use std::collections::{HashMap, HashSet};

use crate::order;

/// Classes + sites above which the blast view aggregates. Measured in the e2e `scale` check:
/// the card drawing of ~400 elements renders in a few ms; 2,000 x 2,000 took seconds.
pub const AGGREGATE_ABOVE: usize = 600;
/// Rows shown per opened level (children, then sites); the rest collapse into one row.
pub const ROWS_PER_LEVEL: usize = 40;
/// Search hits listed at most.
pub const MAX_HITS: usize = 12;

/// The class forest of one scenario, indexed once (names are looked up, never iterated).
#[derive(Debug, PartialEq, Default)]
pub struct Forest {
    pub names: Vec<String>,
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    roots: Vec<usize>,
    /// Site indices (into the scenario's sites) per receiver class.
    sites_of: Vec<Vec<usize>>,
    pub site_names: Vec<String>,
    /// Receiver class of each site (`None`: not a known class).
    site_class: Vec<Option<usize>>,
    /// Every class after all its descendants (for subtree sums without recursion).
    post_order: Vec<usize>,
    index: HashMap<String, usize>,
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
    /// `classes` (name, parent) and `sites` (name, receiver class). Unknown parents make a
    /// class a root; classes only reachable through a cycle become roots too.
    pub fn new(classes: &[(String, Option<String>)], sites: &[(String, String)]) -> Forest {
        let n = classes.len();
        let mut index = HashMap::with_capacity(n);
        for (i, (name, _)) in classes.iter().enumerate() {
            index.entry(name.clone()).or_insert(i);
        }
        let mut parent: Vec<Option<usize>> =
            classes.iter().enumerate().map(|(i, (_, p))| p.as_ref().and_then(|p| index.get(p).copied()).filter(|&p| p != i)).collect();
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
        let mut sites_of = vec![Vec::new(); n];
        let site_class: Vec<Option<usize>> = sites.iter().map(|(_, c)| index.get(c).copied()).collect();
        for (s, c) in site_class.iter().enumerate() {
            if let Some(c) = c {
                sites_of[*c].push(s);
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
        Forest {
            names: classes.iter().map(|(n, _)| n.clone()).collect(),
            parent,
            children,
            roots,
            sites_of,
            site_names: sites.iter().map(|(n, _)| n.clone()).collect(),
            site_class,
            post_order: pre,
            index,
        }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn class_id(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    pub fn site_class(&self, site: usize) -> Option<usize> {
        self.site_class.get(site).copied().flatten()
    }

    /// Per class, its subtree's sums; `site_relinks[s]` is site `s`'s relinks in one lane.
    pub fn totals(&self, site_relinks: &[u64]) -> Vec<Totals> {
        let mut t = vec![Totals::default(); self.len()];
        for &i in &self.post_order {
            let mut own = Totals { classes: 1, sites: self.sites_of[i].len() as u64, ..Totals::default() };
            for &s in &self.sites_of[i] {
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
        if let Some(i) = self.index.get(query.trim()) {
            hits.push(Hit::Class(*i));
        }
        if let Some(s) = self.site_names.iter().position(|n| n == query.trim()) {
            hits.push(Hit::Site(s));
        }
        let classes = self.names.iter().enumerate().filter(|(_, n)| n.to_ascii_lowercase().contains(&q)).map(|(i, _)| Hit::Class(i));
        let sites = self.site_names.iter().enumerate().filter(|(_, n)| n.to_ascii_lowercase().contains(&q)).map(|(s, _)| Hit::Site(s));
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
            order::sort_by(&mut ids, |&a, &b| totals[b].relinks.cmp(&totals[a].relinks).then(a.cmp(&b)));
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
                    let mut sites = self.sites_of[i].clone();
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
                    let has_more = !self.children[i].is_empty() || !self.sites_of[i].is_empty();
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

    fn chain(depth: usize) -> Vec<(String, Option<String>)> {
        (0..depth).map(|i| (format!("K{i}"), (i > 0).then(|| format!("K{}", i - 1)))).collect()
    }

    #[test]
    fn a_deep_chain_sums_without_recursion() {
        let classes = chain(100_000);
        let sites = vec![("a".to_string(), "K99999".to_string()), ("b".to_string(), "K0".to_string())];
        let f = Forest::new(&classes, &sites);
        let t = f.totals(&[7, 1]);
        assert_eq!(t[0], Totals { classes: 100_000, sites: 2, relinks: 8, hit_sites: 2 });
        assert_eq!(t[99_999], Totals { classes: 1, sites: 1, relinks: 7, hit_sites: 1 });
        assert_eq!(f.path_to(99_999).len(), 100_000);
    }

    #[test]
    fn cycles_become_roots_and_nothing_is_lost() {
        let classes = vec![("A".to_string(), Some("B".to_string())), ("B".to_string(), Some("A".to_string())), ("C".to_string(), Some("C".to_string()))];
        let f = Forest::new(&classes, &[]);
        let t = f.totals(&[]);
        let roots_total: u64 = f.roots.iter().map(|&r| t[r].classes).sum();
        assert_eq!(roots_total, 3, "every class is under exactly one root");
    }

    #[test]
    fn closed_roots_are_one_row_each_and_levels_are_capped() {
        let mut classes = vec![("Root".to_string(), None)];
        classes.extend((0..100).map(|i| (format!("C{i}"), Some("Root".to_string()))));
        let sites: Vec<(String, String)> = (0..100).map(|i| (format!("s{i}"), format!("C{i}"))).collect();
        let f = Forest::new(&classes, &sites);
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
    fn search_finds_classes_and_sites_exact_first() {
        let classes = vec![("Alpha".to_string(), None), ("alphabet".to_string(), None)];
        let sites = vec![("alpha".to_string(), "Alpha".to_string())];
        let f = Forest::new(&classes, &sites);
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
