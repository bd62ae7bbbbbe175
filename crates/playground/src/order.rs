//! One sort for the page's own lists. Every `sort_by` / `sort_by_key` call with a closure of
//! its own is its own copy of the standard library's stable sort in the wasm bundle (about
//! 4 KB each, twiggy); the lists the page sorts (the aggregated blast view's levels, the
//! gallery, model variants, measured ticks, method suggestions) go through `sort_by` here,
//! whose sorting is one non-generic function over indices, so the bundle carries it once.
//! The engine keeps its own sorts: they are on its hot paths and shared with the native CLI.

use std::cmp::Ordering;

/// The indices `0..n` in the stable order `cmp` puts them in.
fn order(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| cmp(a, b));
    idx
}

/// Sorts `items` by `cmp`, stably: what `items.sort_by(cmp)` does.
pub fn sort_by<T>(items: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    let order = order(items.len(), &|a, b| cmp(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    // `order` is a permutation of the slots, so each is taken exactly once.
    items.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// Sorts `items` by `key`, stably: what `items.sort_by_key(key)` does.
pub fn sort_by_key<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs (key, position) from a fixed linear congruential sequence: many equal keys, so a
    /// sort that is not stable shows in the positions.
    fn pairs(n: usize, keys: u64) -> Vec<(u64, usize)> {
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        (0..n)
            .map(|i| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                ((x >> 33) % keys, i)
            })
            .collect()
    }

    #[test]
    fn sorts_as_the_standard_stable_sort() {
        for (n, keys) in [(0, 1), (1, 1), (2, 1), (17, 3), (300, 7), (2_000, 50)] {
            let mut ours = pairs(n, keys);
            let mut std = ours.clone();
            sort_by(&mut ours, |a, b| b.0.cmp(&a.0));
            std.sort_by_key(|p| std::cmp::Reverse(p.0));
            assert_eq!(ours, std, "n = {n}");
            let mut by_key = pairs(n, keys);
            sort_by_key(&mut by_key, |p| p.0);
            std.sort_by_key(|p| p.0);
            assert_eq!(by_key, std, "n = {n}");
        }
    }

    #[test]
    fn keeps_every_item_once() {
        let mut words: Vec<String> = ["pear", "fig", "apple", "fig", "kiwi"].map(String::from).to_vec();
        sort_by(&mut words, |a, b| a.len().cmp(&b.len()));
        assert_eq!(words, ["fig", "fig", "pear", "kiwi", "apple"]);
    }
}
