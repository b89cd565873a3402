//! Maglev hashing (Eisenbud et al., NSDI 2016): a lookup table of M =
//! 65,537 entries (a prime) filled by the paper's population algorithm.
//! Backend `i` has the permutation `(offset + j * skip) mod M` with
//! `offset = h1(name) mod M` and `skip = h2(name) mod (M - 1) + 1`; backends
//! take turns claiming their next preferred free entry until the table is
//! full. `h1` is the pool's hash of the name and `h2` its hash of
//! `"{name}#skip"`. A key goes to `table[hash(key) mod M]`. Weights fill
//! the table in proportion as Envoy's `MaglevTable` does: in round `r` a
//! backend takes a turn only while `r x weight >= target`, its target
//! growing by the largest weight at each turn, so the heaviest takes one
//! every round; with equal weights every backend takes one per round, the
//! paper's algorithm exactly.
//!
//! With `builder=envoy` the table is Envoy's (`MaglevTable` in
//! `maglev_lb.cc`): a host's offset and skip are `xxHash64(address) mod M`
//! and `xxHash64(address, seed 1) mod (M - 1) + 1`, the hosts take their
//! turns sorted by address, and a key's hash is `xxHash64(key)`. The table
//! size is the `maglev-size` field (a prime; Envoy's default 65,537).
//!
//! In a fleet run the table is rebuilt over the available members when
//! availability or membership changes, as Envoy rebuilds its table on a
//! host-set change (the permutations depend on the names only, so this is
//! the table of the available servers alone). A key whose entry the pick
//! may not take (a retry: its server was tried) probes the entries
//! `(h + k) mod M`, k = 1, 2, ..., to the first server it may take. Slow
//! start does not apply.

use alloc::vec::Vec;

use super::builder::Builder;
use super::rule::{Balancer, Eligible, PerUser, Pick, Pool, UserKeys};
use crate::hash::{HashFn, KeyBuf};
use crate::rng::Rng;

/// The table size of the paper's production setting, and Envoy's default.
pub const TABLE_SIZE: u64 = 65_537;

/// The largest table size Envoy takes (`table_size` in its `MaglevLbConfig`).
pub const MAX_TABLE_SIZE: u64 = 5_000_011;

/// Whether `m` is prime: the population visits every entry only then.
pub fn is_prime(m: u64) -> bool {
    m >= 2 && (2..).take_while(|d| d * d <= m).all(|d| m % d != 0)
}

/// Each backend's (offset, skip) for a table of size `m`.
pub fn permutations<S: AsRef<str>>(names: &[S], hash: HashFn, m: u64) -> Vec<(u64, u64)> {
    names
        .iter()
        .map(|name| {
            let mut skip_key = KeyBuf::text(name.as_ref());
            skip_key.push_str("#skip");
            let offset = hash.hash(name.as_ref().as_bytes()) % m;
            let skip = hash.hash(skip_key.as_bytes()) % (m - 1) + 1;
            (offset, skip)
        })
        .collect()
}

/// Envoy's permutations: `xxHash64(address)` with seeds 0 and 1.
pub fn envoy_permutations<S: AsRef<str>>(names: &[S], m: u64) -> Vec<(u64, u64)> {
    names
        .iter()
        .map(|name| {
            let name = name.as_ref().as_bytes();
            let (h1, h2) = (xxhash_rust::xxh64::xxh64(name, 0), xxhash_rust::xxh64::xxh64(name, 1));
            (h1 % m, h2 % (m - 1) + 1)
        })
        .collect()
}

/// A table entry no backend claimed (a table over no backend).
pub const EMPTY: u32 = u32::MAX;

/// The paper's population (Pseudocode 1): the table of backend indices.
pub fn populate(permutations: &[(u64, u64)], m: u64) -> Vec<u32> {
    populate_weighted(permutations, &alloc::vec![1; permutations.len()], m)
}

/// The population with Envoy's weights (`constructImplementationInternals`
/// in `maglev_lb.cc`), in integers so the turns are exact.
pub fn populate_weighted(permutations: &[(u64, u64)], weights: &[u32], m: u64) -> Vec<u32> {
    let mut entry = alloc::vec![EMPTY; m as usize];
    if permutations.is_empty() {
        return entry;
    }
    let max = u64::from(weights.iter().copied().max().unwrap_or(1));
    let mut target = alloc::vec![0u64; permutations.len()];
    let mut next = alloc::vec![0u64; permutations.len()];
    let mut filled = 0;
    for round in 1u64.. {
        for (i, &(offset, skip)) in permutations.iter().enumerate() {
            if round * u64::from(weights[i]) < target[i] {
                continue;
            }
            target[i] += max;
            let mut c = (offset + next[i] * skip) % m;
            while entry[c as usize] != EMPTY {
                next[i] += 1;
                c = (offset + next[i] * skip) % m;
            }
            entry[c as usize] = i as u32;
            next[i] += 1;
            filled += 1;
            if filled == m {
                return entry;
            }
        }
    }
    entry
}

/// Maglev lookup.
pub struct Maglev {
    table: Vec<u32>,
    hash: HashFn,
    /// The order the servers take their turns in: the pool's, or by
    /// address (Envoy's).
    order: Vec<usize>,
    /// Every server's permutation and weight, to rebuild the table from.
    permutations: Vec<(u64, u64)>,
    weights: Vec<u32>,
    /// The servers the table is built over.
    built_over: Vec<bool>,
    /// Each user's server in this table.
    owners: PerUser<u32>,
    /// The key hashed for each user.
    keys: UserKeys,
}

impl Maglev {
    /// The table of `pool`.
    pub fn new(pool: &Pool) -> Maglev {
        let m = u64::from(pool.maglev_size);
        let envoy = pool.builder == Builder::Envoy;
        let (hash, permutations) = if envoy {
            (HashFn::Xxh64, envoy_permutations(&pool.names, m))
        } else {
            let hash = pool.hash_or(HashFn::DEFAULT);
            (hash, permutations(&pool.names, hash, m))
        };
        let mut order: Vec<usize> = (0..pool.len()).collect();
        if envoy {
            // Envoy orders hosts by name. Names are distinct (validation
            // refuses repeats), so any sort gives this order; an insertion
            // sort, once per table, keeps the standard library's stable sort
            // (about 7 KB of code) out of the page's first module.
            for i in 1..order.len() {
                let mut j = i;
                while j > 0 && pool.names[order[j - 1]] > pool.names[order[j]] {
                    order.swap(j - 1, j);
                    j -= 1;
                }
            }
        }
        let mut maglev = Maglev {
            table: Vec::new(),
            hash,
            order,
            permutations,
            weights: pool.weights.clone(),
            built_over: Vec::new(),
            owners: PerUser::new(u32::MAX),
            keys: pool.keys.clone(),
        };
        maglev.build(&alloc::vec![true; pool.len()], m);
        maglev
    }

    /// The table over the `available` servers, in their turn order.
    fn build(&mut self, available: &[bool], m: u64) {
        let kept: Vec<usize> = self.order.iter().copied().filter(|&s| available[s]).collect();
        let perms: Vec<(u64, u64)> = kept.iter().map(|&s| self.permutations[s]).collect();
        let weights: Vec<u32> = kept.iter().map(|&s| self.weights[s]).collect();
        self.table = populate_weighted(&perms, &weights, m)
            .into_iter()
            .map(|i| if i == EMPTY { EMPTY } else { kept[i as usize] as u32 })
            .collect();
        self.built_over = available.to_vec();
        self.owners.forget();
    }

    /// The first entry from `home` on whose server the pick may take.
    fn probe(&self, home: usize, eligible: &Eligible) -> Option<usize> {
        let m = self.table.len();
        (home..m).chain(0..home).map(|i| self.table[i] as usize).find(|&s| eligible.allows(s))
    }

    /// The backend of hash `h`.
    pub fn lookup(table: &[u32], h: u64) -> usize {
        table[(h % table.len() as u64) as usize] as usize
    }
}

impl Balancer for Maglev {
    fn pick(&mut self, request: &Pick, _rng: &mut Rng) -> usize {
        if let Some(owner) = self.owners.get(request.user) {
            return owner as usize;
        }
        let owner = Maglev::lookup(&self.table, self.hash.hash(self.keys.key(request).as_bytes()));
        self.owners.keep(request.user, owner as u32) as usize
    }

    fn observes_completions(&self) -> bool {
        false
    }

    fn shared_by_copies(&self) -> bool {
        true
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        if !eligible.any() {
            return None;
        }
        let home = (self.hash.hash(self.keys.key(request).as_bytes()) % self.table.len() as u64) as usize;
        if let Some(s) = self.probe(home, eligible) {
            return Some(s);
        }
        // An allowed server the table lacks (availability the rule was not
        // told of): rebuild over what the pick says is available.
        self.reshape(&[], eligible.available);
        self.probe(home, eligible)
    }

    fn reshape(&mut self, _members: &[bool], available: &[bool]) {
        if available == self.built_over.as_slice() {
            return;
        }
        self.build(available, self.table.len() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balancer::checks;

    #[test]
    fn paper_table_1() {
        // Maglev paper, Table 1: M = 7; B0 (offset 3, skip 4), B1 (0, 2), B2 (3, 1).
        let before = populate(&[(3, 4), (0, 2), (3, 1)], 7);
        assert_eq!(before, [1, 0, 1, 0, 2, 2, 0]);
        // B1 removed: the remaining backends keep their permutations.
        let after: Vec<u32> =
            populate(&[(3, 4), (3, 1)], 7).into_iter().map(|i| [0, 2][i as usize]).collect();
        assert_eq!(after, [0, 0, 0, 0, 2, 2, 2]);
    }

    /// Envoy's own expected tables (`test/common/upstream/maglev_lb_test.cc`,
    /// tests `Basic`, `BasicWithHostName` and `Weighted`): Envoy takes a
    /// host's offset and skip from `xxHash64` of its address (or hostname)
    /// with seeds 0 and 1, and `chooseHost` reads `table[hash % size]` for
    /// the raw key hash `i`. Our population over those permutations must
    /// give Envoy's tables entry for entry (our own permutations hash the
    /// name and `"{name}#skip"` instead: see the module doc).
    #[test]
    fn the_population_gives_envoys_expected_tables() {
        let envoy = |keys: &[&str], m: u64| -> Vec<(u64, u64)> {
            keys.iter()
                .map(|k| {
                    let (h1, h2) = (
                        xxhash_rust::xxh64::xxh64(k.as_bytes(), 0),
                        xxhash_rust::xxh64::xxh64(k.as_bytes(), 1),
                    );
                    (h1 % m, h2 % (m - 1) + 1)
                })
                .collect()
        };
        let addresses =
            ["127.0.0.1:90", "127.0.0.1:91", "127.0.0.1:92", "127.0.0.1:93", "127.0.0.1:94", "127.0.0.1:95"];
        assert_eq!(populate(&envoy(&addresses, 7), 7), [2, 4, 0, 1, 5, 0, 3], "Basic");
        let hostnames = ["90", "91", "92", "93", "94", "95"];
        assert_eq!(populate(&envoy(&hostnames, 7), 7), [2, 5, 0, 3, 4, 1, 0], "BasicWithHostName");
        let weighted = populate_weighted(&envoy(&addresses[..2], 17), &[1, 2], 17);
        assert_eq!(weighted, [1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1], "Weighted");
        // chooseHost(i) for i in 0..3 x size reads table[i mod size].
        let table = populate(&envoy(&addresses, 7), 7);
        let picks: Vec<usize> = (0..21).map(|i| Maglev::lookup(&table, i)).collect();
        assert!(picks.iter().enumerate().all(|(i, &p)| p == table[i % 7] as usize), "{picks:?}");
    }

    /// Envoy populates over its hosts sorted by name, so the table owes
    /// nothing to the order the hosts are listed in: listed backwards, the
    /// six addresses of Envoy's "Basic" case still give its table.
    #[test]
    fn envoys_table_takes_the_hosts_in_name_order() {
        let addresses =
            ["127.0.0.1:90", "127.0.0.1:91", "127.0.0.1:92", "127.0.0.1:93", "127.0.0.1:94", "127.0.0.1:95"];
        let backwards: Vec<&str> = addresses.iter().rev().copied().collect();
        let pool = Pool { builder: Builder::Envoy, maglev_size: 7, ..Pool::named(&backwards) };
        let table: Vec<&str> = Maglev::new(&pool).table.iter().map(|&i| backwards[i as usize]).collect();
        let want: Vec<&str> = [2, 4, 0, 1, 5, 0, 3].iter().map(|&i| addresses[i]).collect();
        assert_eq!(table, want);
    }

    /// Envoy's weighted turns re-derived by hand on the paper's Table 1
    /// permutations, weights 3, 1, 1 (the largest 3): B0 takes a turn every
    /// round, B1 and B2 when `round x 1 >= target` (rounds 1 and 3).
    #[test]
    fn weights_fill_the_table_in_proportion_as_envoy_does() {
        let perms = [(3, 4), (0, 2), (3, 1)];
        // Round 1: B0 takes 3, B1 takes 0, B2 takes 3 (taken) then 4.
        // Round 2: only B0 (2 x 1 < 3 for B1 and B2): 0, 4 taken, then 1.
        // Round 3: B0 takes 5; B1 takes 2; B2: 5 taken, then 6: full.
        assert_eq!(populate_weighted(&perms, &[3, 1, 1], 7), [1, 0, 1, 0, 2, 0, 2]);
        assert_eq!(
            populate_weighted(&perms, &[1, 1, 1], 7),
            populate(&perms, 7),
            "equal weights: the paper's"
        );
        let names: Vec<alloc::string::String> = (1..=4).map(|i| alloc::format!("s{i}")).collect();
        let table =
            populate_weighted(&permutations(&names, HashFn::Xxh64, TABLE_SIZE), &[3, 1, 2, 2], TABLE_SIZE);
        let mut counts = [0u64; 4];
        for &b in &table {
            counts[b as usize] += 1;
        }
        for (c, w) in counts.iter().zip([3, 1, 2, 2]) {
            let want = TABLE_SIZE * w / 8;
            assert!(c.abs_diff(want) <= 4, "{counts:?}");
        }
    }

    #[test]
    fn the_default_table_is_this_size_everywhere() {
        let scenario = crate::scenario::Scenario::default();
        assert_eq!(u64::from(scenario.maglev_size), TABLE_SIZE);
        assert_eq!(u64::from(Pool::named(&["a"]).maglev_size), TABLE_SIZE);
    }

    #[test]
    fn shares_are_near_equal() {
        // The paper's point: each backend gets nearly M / N entries.
        let names: Vec<alloc::string::String> = (1..=5).map(|i| alloc::format!("s{i}")).collect();
        let table = populate(&permutations(&names, HashFn::Xxh64, TABLE_SIZE), TABLE_SIZE);
        for b in 0..5 {
            let owned = table.iter().filter(|&&e| e == b).count() as f64;
            assert!((owned / TABLE_SIZE as f64 - 0.2).abs() < 0.01, "backend {b} owns {owned}");
        }
    }

    /// Rebuilt over the available servers, the table is Maglev's table of
    /// those servers alone, index-mapped (weights as populate_weighted),
    /// and every key goes where that table sends it.
    #[test]
    fn reshape_is_maglev_over_the_available_servers() {
        let weights = [3, 1, 2, 2, 1];
        let pool = checks::pool(&weights);
        let mut maglev = Maglev::new(&pool);
        let members = [true, true, true, true, false];
        let available = [true, false, true, true, false];
        maglev.reshape(&members, &available);
        let kept = [0usize, 2, 3];
        let sub =
            Pool { weights: kept.iter().map(|&i| weights[i]).collect(), ..Pool::named(&["s1", "s3", "s4"]) };
        let mut over_sub = Maglev::new(&sub);
        let mapped: Vec<u32> = over_sub.table.iter().map(|&i| kept[i as usize] as u32).collect();
        assert!(maglev.table == mapped, "the same table");
        let mut rng = <Rng as rand::SeedableRng>::seed_from_u64(0);
        let eligible = Eligible { available: &available, tried: &[], every_available: false };
        for user in 1..=2_000 {
            let request = Pick { now_ms: 0.0, user };
            let want = kept[over_sub.pick(&request, &mut rng)];
            assert_eq!(maglev.pick_eligible(&request, &mut rng, &eligible), Some(want));
        }
        // Everyone back: the table of the whole pool again.
        maglev.reshape(&[true; 5], &[true; 5]);
        assert!(maglev.table == Maglev::new(&pool).table);
    }

    /// A retry probes the next entries, `(h + k) mod M`, to the first
    /// server not tried.
    #[test]
    fn a_retry_probes_the_next_entries() {
        let pool = checks::pool(&[1, 1, 1, 1]);
        let mut maglev = Maglev::new(&pool);
        let mut rng = <Rng as rand::SeedableRng>::seed_from_u64(0);
        let available = [true; 4];
        for user in 1..=500 {
            let request = Pick { now_ms: 0.0, user };
            let h = maglev.hash.hash(request.key().as_bytes());
            let home = maglev.pick(&request, &mut rng);
            let tried = [home as u32];
            let eligible = Eligible { available: &available, tried: &tried, every_available: true };
            let i = (h % TABLE_SIZE) as usize;
            let k = (1..).find(|k| maglev.table[(i + k) % TABLE_SIZE as usize] as usize != home).unwrap();
            let want = maglev.table[(i + k) % TABLE_SIZE as usize] as usize;
            assert_eq!(maglev.pick_eligible(&request, &mut rng, &eligible), Some(want));
        }
    }
}
