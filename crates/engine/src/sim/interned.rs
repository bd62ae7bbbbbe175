//! Flat tables for what there is one of per site: a million site names cost their bytes plus
//! four bytes each (not a heap allocation and a 24-byte `String` each), and the sites of each
//! class (or the loops calling each site) are one array sliced by offsets (not a `Vec` each).

/// Names by dense id, `0..len()`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Names {
    text: String,
    /// Where each name ends in `text` (names start where the previous one ends).
    ends: Vec<u32>,
}

impl Names {
    pub fn with_capacity(names: usize, bytes: usize) -> Names {
        Names { text: String::with_capacity(bytes), ends: Vec::with_capacity(names) }
    }

    /// Append a name; its id is the count before. Scenario text is capped far below 4 GB.
    pub fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.ends.push(u32::try_from(self.text.len()).expect("names fit in 4 GB"));
    }

    pub fn get(&self, id: usize) -> &str {
        let start = if id == 0 { 0 } else { self.ends[id - 1] as usize };
        &self.text[start..self.ends[id] as usize]
    }
}

/// Items grouped by a key `0..keys`: group `k` is a slice of one array (compressed rows).
#[derive(Clone, Debug, Default)]
pub(crate) struct Groups<T = u32> {
    /// Group `k` is `items[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T> Groups<T> {
    /// The items with key `k` (none for a key past the end: a class loaded after the start).
    pub fn get(&self, k: usize) -> &[T] {
        match (self.starts.get(k), self.starts.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }
}

impl<T: Copy + Default> Groups<T> {
    /// Rows for the keys `0..keys`: `count` calls `add(k)` once per item of row `k`, then
    /// `fill` calls `put(k, item)` once per item, each row keeping the order of its puts. The
    /// offsets are the only table beside the items (each row's start is its fill cursor, then
    /// moved one place along): at a million keys, no second or third million-entry table.
    pub fn build(keys: usize, count: impl FnOnce(&mut dyn FnMut(usize)), fill: impl FnOnce(&mut dyn FnMut(usize, T))) -> Groups<T> {
        // `starts[k + 1]` counts row k, then (prefix sums) is where row k ends.
        let mut starts = vec![0u32; keys + 1];
        count(&mut |k| starts[k + 1] += 1);
        for k in 1..=keys {
            starts[k] += starts[k - 1];
        }
        let mut items = vec![T::default(); starts[keys] as usize];
        // Row k's cursor is `starts[k]`: it starts where row k starts and ends where it ends,
        // which is where row k + 1 starts.
        fill(&mut |k, item| {
            items[starts[k] as usize] = item;
            starts[k] += 1;
        });
        starts.copy_within(0..keys, 1);
        starts[0] = 0;
        Groups { starts, items }
    }
}

impl Groups {
    /// Group the ids `0..keys_of.len()` by their key, each group in id order.
    #[cfg(test)]
    pub fn by_key(keys: usize, keys_of: impl Iterator<Item = usize> + Clone) -> Groups {
        Groups::by_pairs(keys, keys_of.enumerate().map(|(id, k)| (k, id)))
    }

    /// Ids grouped by key from `(key, id)` pairs (an id may have several keys), each group in
    /// the pairs' order.
    pub fn by_pairs(keys: usize, pairs: impl Iterator<Item = (usize, usize)> + Clone) -> Groups {
        let counted = pairs.clone();
        Groups::build(keys, |add| counted.for_each(|(k, _)| add(k)), |put| pairs.for_each(|(k, id)| put(k, id as u32)))
    }
}

#[cfg(test)]
mod tests {
    use super::{Groups, Names};

    #[test]
    fn groups_hold_each_id_under_its_key_in_id_order() {
        let g = Groups::by_key(3, [2, 0, 2, 2].into_iter());
        assert_eq!((g.get(0), g.get(1), g.get(2), g.get(3)), (&[1u32][..], &[][..], &[0u32, 2, 3][..], &[][..]));
    }

    #[test]
    fn names_come_back_by_id_including_empty_ones() {
        let mut n = Names::with_capacity(3, 8);
        for name in ["a0", "", "site_b"] {
            n.push(name);
        }
        assert_eq!((n.get(0), n.get(1), n.get(2)), ("a0", "", "site_b"));
    }
}
