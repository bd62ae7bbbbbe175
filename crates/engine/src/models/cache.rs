//! A bounded cache of keys with a choice of eviction, shared by the cache models.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Eviction {
    /// Evict the least recently added; a hit does not promote (JDK-8247532 as shipped).
    Fifo,
    /// Evict the least recently used.
    Lru,
    /// Never evict.
    Unbounded,
}

#[derive(Clone, Debug)]
pub struct BoundedCache<K> {
    capacity: usize,
    eviction: Eviction,
    /// Oldest (FIFO) or least recently used (LRU) first.
    entries: Vec<K>,
}

impl<K: PartialEq + Clone> BoundedCache<K> {
    pub fn new(capacity: usize, eviction: Eviction) -> Self {
        BoundedCache { capacity, eviction, entries: Vec::new() }
    }

    /// Look `k` up; a hit under LRU makes it the most recently used.
    pub fn hit(&mut self, k: &K) -> bool {
        let Some(pos) = self.entries.iter().position(|e| e == k) else { return false };
        if self.eviction == Eviction::Lru {
            let e = self.entries.remove(pos);
            self.entries.push(e);
        }
        true
    }

    /// Insert `k` (after a miss); returns what was evicted. Capacity 0 stores nothing.
    pub fn insert(&mut self, k: K) -> Option<K> {
        if self.eviction != Eviction::Unbounded && self.capacity == 0 {
            return Some(k);
        }
        self.entries.push(k);
        if self.eviction != Eviction::Unbounded && self.entries.len() > self.capacity {
            return Some(self.entries.remove(0));
        }
        None
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> &[K] {
        &self.entries
    }
}
