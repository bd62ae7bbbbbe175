//! The workspace's modules import each other in one direction: no crate has a cycle among
//! its modules (ARCHITECTURE.md, "Module cycles").
//!
//! A node is a crate's top-level module (`src/wire.rs`, `src/trace/`); a directory module's
//! direct children are nodes of their own (`sim::site`, `expect::model`), so `sim::site` and
//! `sim::poly` may not lean on each other either. An edge is a path written in the module's
//! code (`crate::a::b`, `use crate::{a, b::c}`, and `super::x` inside a directory module);
//! tests (`#[cfg(test)]` and everything after it in a file) do not count: a test may reach
//! anywhere. The reading is textual, so it sees what a reader of the file sees.
//!
//! Lives in the CLI's tests because it reads files; the engine's tests also run in wasm32.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module name -> the modules its code names.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// One source file: its module path relative to the crate root (`["sim", "site"]`) and text.
struct Source {
    module: Vec<String>,
    text: String,
}

fn read_crate(src: &Path) -> Vec<Source> {
    let mut out = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("below src");
            let mut module: Vec<String> = rel.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            out.push(Source { module, text });
        }
    }
    out
}

/// The code a reader of the module sees: comments and tests left out.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The paths named after each `crate::` (and, inside a directory module, `super::`), as
/// segment lists; a use-group (`crate::{a, b::{c, d}}`) gives one path per leaf.
fn named_paths(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while let Some(i) = code[at..].find(prefix) {
        let start = at + i;
        at = start + prefix.len();
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        use_tree(bytes, &mut at, Vec::new(), &mut out);
    }
    out
}

fn ident(bytes: &[u8], at: &mut usize) -> Option<String> {
    while *at < bytes.len() && bytes[*at].is_ascii_whitespace() {
        *at += 1;
    }
    let start = *at;
    while *at < bytes.len() && (bytes[*at].is_ascii_alphanumeric() || bytes[*at] == b'_') {
        *at += 1;
    }
    (*at > start).then(|| String::from_utf8_lossy(&bytes[start..*at]).into_owned())
}

fn eat(bytes: &[u8], at: &mut usize, token: &[u8]) -> bool {
    let mut i = *at;
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    if bytes[i..].starts_with(token) {
        *at = i + token.len();
        true
    } else {
        false
    }
}

/// Reads a use-tree at `at` (after a `::`): `a::b`, `{a, b::{c}}`, `a::*`, `a as b`.
fn use_tree(bytes: &[u8], at: &mut usize, mut path: Vec<String>, out: &mut Vec<Vec<String>>) {
    loop {
        if eat(bytes, at, b"{") {
            loop {
                if eat(bytes, at, b"}") {
                    return;
                }
                use_tree(bytes, at, path.clone(), out);
                if !eat(bytes, at, b",") {
                    eat(bytes, at, b"}");
                    return;
                }
            }
        }
        match ident(bytes, at) {
            Some(name) => path.push(name),
            None => break,
        }
        if !eat(bytes, at, b"::") {
            break;
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// The module graph of one crate's sources.
fn graph(sources: &[Source]) -> Graph {
    let node_of = |module: &[String]| -> Option<String> {
        let known = |n: &str| sources.iter().any(|s| s.module.join("::") == n);
        let first = module.first()?;
        if first == "lib" || first == "main" {
            return None;
        }
        if let Some(second) = module.get(1) {
            let child = format!("{first}::{second}");
            if known(&child) {
                return Some(child);
            }
        }
        known(first).then(|| first.clone())
    };
    let mut g = Graph::new();
    for source in sources {
        let Some(node) = node_of(&source.module) else { continue };
        let code = code_of(&source.text);
        let mut paths = named_paths(&code, "crate::");
        if source.module.len() >= 2 {
            let parent = &source.module[..source.module.len() - 1];
            for p in named_paths(&code, "super::") {
                paths.push(parent.iter().cloned().chain(p).collect());
            }
        }
        let edges = g.entry(node.clone()).or_default();
        for p in paths {
            if let Some(target) = node_of(&p) {
                if target != node && !node.starts_with(&format!("{target}::")) && !target.starts_with(&format!("{node}::")) {
                    edges.insert(target);
                }
            }
        }
    }
    g
}

/// Every set of two or more modules that reach each other (Tarjan's strongly connected
/// components, iterative: a graph's depth is not bounded by the stack).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    let names: Vec<&String> = g.keys().collect();
    let id = |n: &String| names.iter().position(|m| *m == n);
    let adj: Vec<Vec<usize>> = names.iter().map(|n| g[*n].iter().filter_map(id).collect()).collect();
    let (mut index, mut low, mut on) = (vec![usize::MAX; names.len()], vec![0; names.len()], vec![false; names.len()]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..names.len() {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(top) = work.last_mut() {
            let v = top.0;
            if let Some(&w) = adj[v].get(top.1) {
                top.1 += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    component.push(names[w].clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    out.push(component);
                }
            }
        }
    }
    out
}

fn sources(files: &[(&str, &str)]) -> Vec<Source> {
    files.iter().map(|(module, text)| Source { module: module.split("::").map(str::to_string).collect(), text: text.to_string() }).collect()
}

#[test]
fn a_cycle_between_two_modules_is_found() {
    let two = sources(&[("a", "use crate::b::Thing;"), ("b", "fn f() -> crate::a::Other { todo!() }")]);
    assert_eq!(cycles(&graph(&two)), vec![vec!["a".to_string(), "b".to_string()]]);
    let one_way = sources(&[("a", "use crate::b::Thing;"), ("b", "")]);
    assert!(cycles(&graph(&one_way)).is_empty());
}

#[test]
fn use_groups_super_paths_comments_and_tests_are_read_as_a_reader_would() {
    let files = sources(&[
        ("a", "use crate::{x::{One, Two}, sim::site::Key};"),
        ("x", "// crate::a::Nothing in a comment\n#[cfg(test)]\nmod tests { use crate::a::Test; }"),
        ("sim", "mod site; mod poly;"),
        ("sim::site", "use super::poly::Poly;"),
        ("sim::poly", "use super::site::Key;"),
    ]);
    let g = graph(&files);
    assert_eq!(g["a"], BTreeSet::from(["x".to_string(), "sim::site".to_string()]));
    assert!(g["x"].is_empty(), "comments and tests name no module: {:?}", g["x"]);
    assert_eq!(cycles(&g), vec![vec!["sim::poly".to_string(), "sim::site".to_string()]]);
}

/// The cycles that exist today (ARCHITECTURE.md, "Module cycles"): none. The list may only
/// shrink: a new cycle fails the test, and so does a listed one that is gone.
const KNOWN_CYCLES: &[&str] = &[];

#[test]
fn no_crate_gains_a_module_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    for krate in ["crates/engine/src", "crates/cli/src", "crates/playground/src", "web/src"] {
        for cycle in cycles(&graph(&read_crate(&root.join(krate)))) {
            found.push(format!("{krate}: {}", cycle.join(" <-> ")));
        }
    }
    let new: Vec<&String> = found.iter().filter(|c| !KNOWN_CYCLES.contains(&c.as_str())).collect();
    let gone: Vec<&&str> = KNOWN_CYCLES.iter().filter(|k| !found.iter().any(|c| c == *k)).collect();
    assert!(new.is_empty(), "modules that now import each other (break the cycle; ARCHITECTURE.md, Module cycles): {new:#?}");
    assert!(gone.is_empty(), "cycles that no longer exist: take them off KNOWN_CYCLES and ARCHITECTURE.md: {gone:#?}");
}
