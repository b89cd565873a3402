//! Per-server caches of user data (docs/model.md#caches-and-connections): where hashing pays.
//!
//! Each server keeps the data of its `cache-keys` most recently served
//! users. A request whose user is cached there is a hit and does
//! `hit-cost` of its work; a miss does all of it and caches the user,
//! pushing out the least recently used one. A crash empties the cache and
//! a joining server starts with an empty one. A hit is decided when the
//! request is dispatched, so the queueing follows from the work it does.
//!
//! The LRU is a hash map from user to node plus a doubly linked list
//! threaded through a vector of nodes by index: O(1) per request, no
//! allocation per entry (a full cache reuses the evicted node), and
//! memory in proportion to the users actually cached, however large
//! `cache-keys` is. The map is hashbrown's (the standard library's
//! table, in `no_std`) with rustc-hash's Fx hasher: keys are small
//! integers, nothing iterates the map, so its order never shows.

use alloc::vec::Vec;

use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;

/// No node.
const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    key: u32,
    /// Towards the most recently used end.
    newer: u32,
    /// Towards the least recently used end.
    older: u32,
}

/// A least-recently-used set of keys with a fixed capacity.
#[derive(Clone, Debug)]
pub struct Lru {
    capacity: usize,
    node_of: HashMap<u32, u32, FxBuildHasher>,
    nodes: Vec<Node>,
    newest: u32,
    oldest: u32,
}

impl Lru {
    /// An empty cache of `capacity` keys (0: nothing is ever cached).
    pub fn new(capacity: usize) -> Lru {
        Lru { capacity, node_of: HashMap::default(), nodes: Vec::new(), newest: NIL, oldest: NIL }
    }

    /// Keys cached now.
    pub fn len(&self) -> usize {
        self.node_of.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.node_of.is_empty()
    }

    /// Whether `key` is cached, without touching it.
    pub fn contains(&self, key: u32) -> bool {
        self.node_of.contains_key(&key)
    }

    /// A request for `key`: true on a hit (the key becomes the most
    /// recently used); on a miss the key is cached, the least recently used
    /// one leaving when the cache is full.
    pub fn touch(&mut self, key: u32) -> bool {
        if let Some(&i) = self.node_of.get(&key) {
            if i != self.newest {
                self.unlink(i);
                self.push_newest(i);
            }
            return true;
        }
        if self.capacity == 0 {
            return false;
        }
        let i = if self.nodes.len() < self.capacity {
            self.nodes.push(Node { key, newer: NIL, older: NIL });
            (self.nodes.len() - 1) as u32
        } else {
            // Full: the oldest node leaves and takes the new key.
            let i = self.oldest;
            self.unlink(i);
            self.node_of.remove(&self.nodes[i as usize].key);
            self.nodes[i as usize].key = key;
            i
        };
        self.node_of.insert(key, i);
        self.push_newest(i);
        false
    }

    /// Forgets every key (a crash).
    pub fn clear(&mut self) {
        self.node_of.clear();
        self.nodes.clear();
        self.newest = NIL;
        self.oldest = NIL;
    }

    /// The keys from the most to the least recently used (for tests).
    pub fn keys(&self) -> Vec<u32> {
        let mut keys = Vec::with_capacity(self.len());
        let mut at = self.newest;
        while at != NIL {
            keys.push(self.nodes[at as usize].key);
            at = self.nodes[at as usize].older;
        }
        keys
    }

    fn unlink(&mut self, i: u32) {
        let Node { newer, older, .. } = self.nodes[i as usize];
        match newer {
            NIL => self.newest = older,
            n => self.nodes[n as usize].older = older,
        }
        match older {
            NIL => self.oldest = newer,
            o => self.nodes[o as usize].newer = newer,
        }
    }

    fn push_newest(&mut self, i: u32) {
        let old_newest = self.newest;
        self.nodes[i as usize].newer = NIL;
        self.nodes[i as usize].older = old_newest;
        match old_newest {
            NIL => self.oldest = i,
            n => self.nodes[n as usize].newer = i,
        }
        self.newest = i;
    }
}

/// Hits and lookups.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    hits: u64,
    lookups: u64,
}

impl Tally {
    fn add(&mut self, hit: bool) {
        self.hits += u64::from(hit);
        self.lookups += 1;
    }

    /// Hits over lookups; `None` without a lookup (no 0 over nothing).
    fn rate(&self) -> Option<f64> {
        (self.lookups > 0).then(|| self.hits as f64 / self.lookups as f64)
    }
}

/// Every server's cache in one run, and the hits they gave.
pub(crate) struct Caches {
    lrus: Vec<Lru>,
    hit_cost: f64,
    servers: Vec<Tally>,
    series: Vec<Tally>,
}

/// What caches add to the report.
pub(crate) struct CacheFigures {
    /// `None` without a lookup (every request failed or was refused).
    pub hit_rate: Option<f64>,
    /// Per time bucket: the hit rate of lookups in it, `None` without any.
    pub hit_series: Vec<Option<f64>>,
    pub servers: Vec<Option<f64>>,
}

impl Caches {
    /// Empty caches of `keys` users on `n` servers, a hit doing `hit_cost`
    /// of the work, tallied over `buckets` time buckets.
    pub(crate) fn new(n: usize, keys: u32, hit_cost: f64, buckets: usize) -> Caches {
        Caches {
            lrus: alloc::vec![Lru::new(keys as usize); n],
            hit_cost,
            servers: alloc::vec![Tally::default(); n],
            series: alloc::vec![Tally::default(); buckets],
        }
    }

    /// The work a request of `user` with `work_ms` does on server `s`,
    /// dispatched in time bucket `bucket`, and whether it was a hit; it
    /// caches the user there.
    #[inline]
    pub(crate) fn work(&mut self, s: usize, user: u32, work_ms: f64, bucket: usize) -> (f64, bool) {
        let hit = self.lrus[s].touch(user);
        self.servers[s].add(hit);
        self.series[bucket].add(hit);
        (if hit { work_ms * self.hit_cost } else { work_ms }, hit)
    }

    /// Server `s` loses its cache (a crash, or a join: it starts cold).
    pub(crate) fn empty(&mut self, s: usize) {
        self.lrus[s].clear();
    }

    pub(crate) fn finish(self) -> CacheFigures {
        let total = self
            .servers
            .iter()
            .fold(Tally::default(), |a, t| Tally { hits: a.hits + t.hits, lookups: a.lookups + t.lookups });
        CacheFigures {
            hit_rate: total.rate(),
            hit_series: self.series.iter().map(Tally::rate).collect(),
            servers: self.servers.iter().map(Tally::rate).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_key_leaves_first() {
        let mut lru = Lru::new(2);
        assert!(!lru.touch(1));
        assert!(!lru.touch(2));
        assert!(lru.touch(1));
        // 2 is now the oldest: 3 pushes it out.
        assert!(!lru.touch(3));
        assert_eq!(lru.keys(), [3, 1]);
        assert!(!lru.touch(2));
        assert_eq!(lru.keys(), [2, 3]);
    }

    #[test]
    fn a_cache_of_nothing_never_hits() {
        let mut lru = Lru::new(0);
        assert!(!lru.touch(7));
        assert!(!lru.touch(7));
        assert!(lru.is_empty());
    }
}
