//! Where the blast view draws things: a tidy tree layout of the class forest.
//!
//! Each class is a card (a header plus one row per call site on that receiver); children sit
//! in the row below, centred under their parent. Root trees are packed left to right and wrap
//! into a new band when the next one would pass `max_width`, so wide worlds stay readable.
//! Pure geometry: no DOM, so overlap and bounds are unit-tested.

use std::collections::HashMap;

pub const CLASS_H: f64 = 26.0;
pub const SITE_H: f64 = 22.0;
pub const SITE_GAP: f64 = 4.0;
pub const PAD: f64 = 6.0;
pub const H_GAP: f64 = 18.0;
pub const V_GAP: f64 = 30.0;
pub const MARGIN: f64 = 8.0;
/// Width of one character of the SVG's 12 px monospace labels.
pub const CHAR_W: f64 = 7.3;
const MIN_CARD_W: f64 = 120.0;
/// Room on a site row for its relink count.
const COUNT_W: f64 = 44.0;

#[derive(Clone, Debug, PartialEq)]
pub struct ClassBox {
    pub name: String,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SiteBox {
    pub name: String,
    pub class: String,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// From the bottom centre of the parent card to the top centre of the child card.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub child: String,
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Graph {
    pub width: f64,
    pub height: f64,
    pub classes: Vec<ClassBox>,
    pub sites: Vec<SiteBox>,
    pub edges: Vec<Edge>,
}

struct Node<'a> {
    name: &'a str,
    children: Vec<usize>,
    sites: Vec<&'a str>,
    card_w: f64,
    card_h: f64,
    subtree_w: f64,
}

/// Lay out `classes` (name, parent) with `sites` (name, receiver class).
/// Unknown parents make a class a root; a cycle cannot loop (each class is placed once).
pub fn layout(classes: &[(String, Option<String>)], sites: &[(String, String)], max_width: f64) -> Graph {
    let index: HashMap<&str, usize> = classes.iter().enumerate().map(|(i, (n, _))| (n.as_str(), i)).collect();
    let mut nodes: Vec<Node> =
        classes.iter().map(|(name, _)| Node { name, children: Vec::new(), sites: Vec::new(), card_w: 0.0, card_h: 0.0, subtree_w: 0.0 }).collect();
    for (name, class) in sites {
        if let Some(&i) = index.get(class.as_str()) {
            nodes[i].sites.push(name);
        }
    }
    let mut roots = Vec::new();
    for (i, (_, parent)) in classes.iter().enumerate() {
        match parent.as_deref().and_then(|p| index.get(p)) {
            Some(&p) if p != i => nodes[p].children.push(i),
            _ => roots.push(i),
        }
    }
    for n in nodes.iter_mut() {
        let widest_site = n.sites.iter().map(|s| s.len()).max().unwrap_or(0) as f64 * CHAR_W + COUNT_W + 2.0 * PAD;
        let header = n.name.len() as f64 * CHAR_W + 2.0 * PAD + 8.0;
        n.card_w = MIN_CARD_W.max(widest_site + 2.0 * PAD).max(header);
        n.card_h = CLASS_H + n.sites.len() as f64 * (SITE_H + SITE_GAP) + if n.sites.is_empty() { 0.0 } else { PAD };
    }
    let mut placed = vec![false; nodes.len()];
    for &r in &roots {
        measure(&mut nodes, r, &mut placed);
    }
    // Classes only reachable through a cycle were never placed: treat them as roots.
    for i in 0..nodes.len() {
        if !placed[i] {
            roots.push(i);
            measure(&mut nodes, i, &mut placed);
        }
    }

    let mut g = Graph::default();
    let mut row_heights: Vec<f64> = Vec::new();
    let mut depth_of = vec![0usize; nodes.len()];
    for &r in &roots {
        depths(&nodes, r, 0, &mut depth_of);
    }
    // Pack root trees into bands.
    let mut bands: Vec<Vec<usize>> = vec![Vec::new()];
    let mut band_w = 0.0;
    for &r in &roots {
        let w = nodes[r].subtree_w;
        if band_w > 0.0 && band_w + H_GAP + w > max_width - 2.0 * MARGIN {
            bands.push(Vec::new());
            band_w = 0.0;
        }
        band_w += if band_w > 0.0 { H_GAP + w } else { w };
        if let Some(b) = bands.last_mut() {
            b.push(r);
        }
    }
    let mut top = MARGIN;
    let mut positions: Vec<(f64, f64)> = vec![(0.0, 0.0); nodes.len()];
    for band in &bands {
        row_heights.clear();
        for &r in band {
            row_spans(&nodes, r, &depth_of, depth_of[r], &mut row_heights);
        }
        let mut row_tops = Vec::with_capacity(row_heights.len());
        let mut y = top;
        for h in &row_heights {
            row_tops.push(y);
            y += h + V_GAP;
        }
        let mut x = MARGIN;
        for &r in band {
            place(&nodes, r, x, &row_tops, &depth_of, depth_of[r], &mut positions);
            x += nodes[r].subtree_w + H_GAP;
            g.width = g.width.max(x - H_GAP + MARGIN);
        }
        // `y` already includes one gap below the band's last row: the next band starts there.
        top = y;
    }
    g.height = (top - V_GAP + MARGIN).max(2.0 * MARGIN);

    for (i, n) in nodes.iter().enumerate() {
        let (x, y) = positions[i];
        g.classes.push(ClassBox { name: n.name.to_string(), x, y, w: n.card_w, h: n.card_h });
        for (k, s) in n.sites.iter().enumerate() {
            g.sites.push(SiteBox {
                name: s.to_string(),
                class: n.name.to_string(),
                x: x + PAD,
                y: y + CLASS_H + k as f64 * (SITE_H + SITE_GAP),
                w: n.card_w - 2.0 * PAD,
                h: SITE_H,
            });
        }
        for &c in &n.children {
            let (cx, cy) = positions[c];
            g.edges.push(Edge { child: nodes[c].name.to_string(), x1: x + n.card_w / 2.0, y1: y + n.card_h, x2: cx + nodes[c].card_w / 2.0, y2: cy });
        }
    }
    g
}

fn measure(nodes: &mut [Node], i: usize, placed: &mut [bool]) {
    placed[i] = true;
    let children: Vec<usize> = nodes[i].children.iter().copied().filter(|&c| !placed[c]).collect();
    nodes[i].children = children.clone();
    let mut sum = 0.0;
    for &c in &children {
        measure(nodes, c, placed);
        sum += nodes[c].subtree_w;
    }
    if !children.is_empty() {
        sum += H_GAP * (children.len() - 1) as f64;
    }
    nodes[i].subtree_w = nodes[i].card_w.max(sum);
}

fn depths(nodes: &[Node], i: usize, d: usize, out: &mut [usize]) {
    out[i] = d;
    for &c in &nodes[i].children {
        depths(nodes, c, d + 1, out);
    }
}

/// Row heights of one band, indexed by depth relative to the band's roots (all depth 0).
fn row_spans(nodes: &[Node], i: usize, depth_of: &[usize], root_depth: usize, rows: &mut Vec<f64>) {
    let d = depth_of[i] - root_depth;
    if rows.len() <= d {
        rows.resize(d + 1, 0.0);
    }
    rows[d] = rows[d].max(nodes[i].card_h);
    for &c in &nodes[i].children {
        row_spans(nodes, c, depth_of, root_depth, rows);
    }
}

fn place(nodes: &[Node], i: usize, left: f64, row_tops: &[f64], depth_of: &[usize], root_depth: usize, out: &mut [(f64, f64)]) {
    let n = &nodes[i];
    let children_w: f64 = n.children.iter().map(|&c| nodes[c].subtree_w).sum::<f64>() + H_GAP * n.children.len().saturating_sub(1) as f64;
    let mut x = left + (n.subtree_w - children_w) / 2.0;
    for &c in &n.children {
        place(nodes, c, x, row_tops, depth_of, root_depth, out);
        x += nodes[c].subtree_w + H_GAP;
    }
    let y = row_tops[depth_of[i] - root_depth];
    out[i] = (left + (n.subtree_w - n.card_w) / 2.0, y);
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::presets;

    type World = (Vec<(String, Option<String>)>, Vec<(String, String)>);

    fn world(id: &str) -> World {
        let s = presets::find(id).unwrap().scenario();
        (s.classes.iter().map(|c| (c.name.clone(), c.parent.clone())).collect(), s.sites.iter().map(|x| (x.name.to_string(), x.class.to_string())).collect())
    }

    fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
        a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
    }

    fn assert_sane(g: &Graph) {
        for (i, a) in g.classes.iter().enumerate() {
            assert!(a.x >= 0.0 && a.y >= 0.0 && a.x + a.w <= g.width + 0.01 && a.y + a.h <= g.height + 0.01, "{a:?} outside {}x{}", g.width, g.height);
            for b in &g.classes[i + 1..] {
                assert!(!overlap((a.x, a.y, a.w, a.h), (b.x, b.y, b.w, b.h)), "{a:?} overlaps {b:?}");
            }
        }
        for s in &g.sites {
            let c = g.classes.iter().find(|c| c.name == s.class).unwrap();
            assert!(s.x >= c.x && s.x + s.w <= c.x + c.w && s.y >= c.y && s.y + s.h <= c.y + c.h, "{s:?} outside its card {c:?}");
        }
    }

    #[test]
    fn groovy_world_lays_out_without_overlaps() {
        let (classes, sites) = world("parentChild_parentMetaClassChurn");
        let g = layout(&classes, &sites, 2000.0);
        assert_eq!(g.classes.len(), classes.len());
        assert_eq!(g.sites.len(), sites.len());
        assert_eq!(g.edges.len(), 1);
        assert_sane(&g);
        let parent = g.classes.iter().find(|c| c.name == "HierParent").unwrap();
        let child = g.classes.iter().find(|c| c.name == "HierChild").unwrap();
        assert!(child.y > parent.y + parent.h, "children sit below their parent");
    }

    #[test]
    fn narrow_widths_wrap_into_bands() {
        let (classes, sites) = world("hotLoop_baseline");
        let wide = layout(&classes, &sites, 5000.0);
        let narrow = layout(&classes, &sites, 420.0);
        assert_sane(&narrow);
        assert!(narrow.width < wide.width);
        assert!(narrow.height > wide.height);
    }

    #[test]
    fn cycles_and_unknown_parents_do_not_hang_or_vanish() {
        let classes = vec![
            ("A".to_string(), Some("B".to_string())),
            ("B".to_string(), Some("A".to_string())),
            ("C".to_string(), Some("Missing".to_string())),
            ("D".to_string(), Some("D".to_string())),
        ];
        let g = layout(&classes, &[("s".into(), "A".into())], 800.0);
        assert_eq!(g.classes.len(), 4);
        assert_sane(&g);
    }

    #[test]
    fn an_empty_world_is_empty() {
        let g = layout(&[], &[], 800.0);
        assert!(g.classes.is_empty() && g.width <= 2.0 * MARGIN + 0.01);
    }
}
