//! Names to dense ids for the biggest name set a scenario has (up to 10^6 site names), built
//! once at validation. A `HashMap<&str, u32>` there kept a control byte and a 24-byte bucket per
//! slot in two arrays (52 MB at 10^6), so each insert missed the cache twice, one insert after
//! another: a third of `Simulation::new`'s CPU at 10^6 sites. Here a slot is 8 bytes (the
//! hash's high half beside the id, so a probe reads no name unless the tags match), linear
//! probing at most half full, and the build hashes the names a few ahead of the insert and
//! prefetches their slots, so the misses overlap. The names stay where they are, read by id.

use std::hash::Hasher;

use crate::fxhash::FxHasher;
use crate::prefetch::prefetch;

/// How many names ahead the build hashes and prefetches (16 and 8 measured the same).
const AHEAD: usize = 16;

pub(crate) struct NameTable {
    /// `tag << 32 | (id + 1)`, 0 for an empty slot.
    slots: Vec<u64>,
    mask: usize,
}

fn hash(name: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(name.as_bytes());
    h.finish()
}

impl NameTable {
    /// The table of `n` names, `name(id)` for id in `0..n`; `Err(i)` for the first `i` whose
    /// name an earlier one already has.
    pub(crate) fn build<'a>(n: usize, name: impl Fn(u32) -> &'a str) -> Result<NameTable, usize> {
        let cap = (n * 2).next_power_of_two().max(16);
        let mut table = NameTable { slots: vec![0; cap], mask: cap - 1 };
        let mut ahead = [0u64; AHEAD];
        for (i, h) in ahead.iter_mut().enumerate().take(n) {
            *h = hash(name(i as u32));
            table.prefetch(*h);
        }
        for i in 0..n {
            let h = ahead[i % AHEAD];
            if i + AHEAD < n {
                let next = hash(name((i + AHEAD) as u32));
                ahead[i % AHEAD] = next;
                table.prefetch(next);
            }
            match table.find(h, name(i as u32), &name) {
                Ok(_) => return Err(i),
                Err(slot) => table.slots[slot] = (h >> 32) << 32 | (i as u64 + 1),
            }
        }
        Ok(table)
    }

    /// The id of `key`, reading names back through `name`.
    pub(crate) fn get<'a>(&self, key: &str, name: impl Fn(u32) -> &'a str) -> Option<u32> {
        self.find(hash(key), key, &name).ok()
    }

    fn prefetch(&self, h: u64) {
        prefetch(self.slots.as_ptr().wrapping_add(h as usize & self.mask));
    }

    /// `Ok(id)` of `key` (hash `h`), or `Err(slot)`: the empty slot where it would go (there
    /// always is one: the table is at most half full).
    fn find<'a>(&self, h: u64, key: &str, name: &impl Fn(u32) -> &'a str) -> Result<u32, usize> {
        let tag = h >> 32;
        let mut i = h as usize & self.mask;
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                return Err(i);
            }
            let id = slot as u32 - 1;
            if slot >> 32 == tag && name(id) == key {
                return Ok(id);
            }
            i = (i + 1) & self.mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::NameTable;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("s{i}")).collect()
    }

    #[test]
    fn every_name_finds_its_id_and_an_unknown_name_none() {
        for n in [0, 1, 15, 16, 17, 1000] {
            let v = names(n);
            let t = NameTable::build(n, |i| v[i as usize].as_str()).unwrap_or_else(|i| panic!("duplicate at {i}"));
            for (i, name) in v.iter().enumerate() {
                assert_eq!(t.get(name, |i| v[i as usize].as_str()), Some(i as u32));
            }
            assert_eq!(t.get("nope", |i| v[i as usize].as_str()), None);
        }
    }

    #[test]
    fn the_first_repeated_name_is_reported_by_its_position() {
        let mut v = names(100);
        v[70] = "s3".into();
        v[90] = "s5".into();
        assert_eq!(NameTable::build(v.len(), |i| v[i as usize].as_str()).err(), Some(70));
    }
}
