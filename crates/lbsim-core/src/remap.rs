//! Remapping experiments: what moves when the pool changes
//! (docs/model.md#remapping-what-moves-when-the-pool-changes).
//!
//! Keys `session:{i}` (or any pattern with `{i}`) for i in 0..K are mapped
//! to nodes by a scheme before and after one node is added or removed; the
//! report counts each node's keys and how many keys changed owner.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::ops::Range;
use core::str::FromStr;

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use crate::balancer::builder::Builder;
use crate::balancer::consistent_hash::Ring;
use crate::balancer::{maglev, rendezvous, AlgorithmId};
use crate::hash::{HashFn, KeyBuf};
use crate::scenario::{field_spec, valid_name, Scenario, ScenarioError};

/// How keys map to nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// `hash(key) mod N`.
    Modulo,
    /// Ring of virtual nodes (ketama).
    ConsistentHash,
    /// Jump consistent hash (Lamping & Veach) over the node list.
    Jump,
    /// Highest random weight.
    Rendezvous,
    /// Maglev lookup table.
    Maglev,
}

impl Scheme {
    /// Every scheme.
    pub const ALL: [Scheme; 5] =
        [Scheme::Modulo, Scheme::ConsistentHash, Scheme::Jump, Scheme::Rendezvous, Scheme::Maglev];

    /// The kebab-case id.
    pub fn id(self) -> &'static str {
        match self {
            Scheme::Modulo => "modulo",
            Scheme::ConsistentHash => "consistent-hash",
            Scheme::Jump => "jump",
            Scheme::Rendezvous => "rendezvous",
            Scheme::Maglev => "maglev",
        }
    }

    /// The rule built on the scheme, whose colour the front ends draw it
    /// in; jump hash has none.
    pub fn rule(self) -> Option<AlgorithmId> {
        match self {
            Scheme::Modulo => Some(AlgorithmId::UserHash),
            Scheme::ConsistentHash => Some(AlgorithmId::ConsistentHash),
            Scheme::Jump => None,
            Scheme::Rendezvous => Some(AlgorithmId::Rendezvous),
            Scheme::Maglev => Some(AlgorithmId::Maglev),
        }
    }
}

impl FromStr for Scheme {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Scheme::ALL.into_iter().find(|k| k.id() == s).ok_or(())
    }
}

/// Longest key pattern, in bytes (keys are hashed whole however long
/// they expand).
const MAX_KEY_FORMAT: usize = 64;

/// Jump consistent hash (Lamping & Veach 2014): the bucket in `0..buckets`
/// of a 64-bit key.
pub fn jump(mut key: u64, buckets: u32) -> u32 {
    let (mut b, mut j): (i64, i64) = (-1, 0);
    while j < i64::from(buckets) {
        b = j;
        key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b.max(0) as u32
}

/// The pool change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// A node joins (at the end of the list).
    Add(String),
    /// A node leaves.
    Remove(String),
}

impl Change {
    /// The change the playground's remapping panel shows for a pool of
    /// `nodes`: with `add`, the next free `sN` joins; otherwise the last
    /// node leaves (a pool of one can only grow).
    pub fn for_pool(nodes: &[String], add: bool) -> Change {
        match nodes.last() {
            Some(last) if !add && nodes.len() >= 2 => Change::Remove(last.clone()),
            _ => {
                let mut i = nodes.len() + 1;
                while nodes.contains(&format!("s{i}")) {
                    i += 1;
                }
                Change::Add(format!("s{i}"))
            }
        }
    }

    /// The share of keys an ideal scheme moves for this change of a pool of
    /// `nodes` nodes: the newcomer's fair share, or the leaver's.
    pub fn ideal_share(&self, nodes: usize) -> f64 {
        match self {
            Change::Add(_) => 1.0 / (nodes + 1) as f64,
            Change::Remove(_) => 1.0 / nodes.max(1) as f64,
        }
    }

    /// In words: "s5 joins 4 servers", "s4 leaves 4 servers".
    pub fn words(&self, nodes: usize) -> String {
        match self {
            Change::Add(n) => format!("{n} joins {nodes} servers"),
            Change::Remove(n) => format!("{n} leaves {nodes} servers"),
        }
    }
}

/// The same change under every scheme, for a side-by-side comparison; a
/// scheme that refuses the experiment is left out.
pub fn compare(base: &Remap) -> Vec<(Scheme, RemapReport)> {
    Scheme::ALL
        .iter()
        .filter_map(|&scheme| remap(&Remap { scheme, ..base.clone() }).ok().map(|r| (scheme, r)))
        .collect()
}

/// One remapping experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Remap {
    /// The scheme.
    pub scheme: Scheme,
    /// Nodes before the change, in order.
    pub nodes: Vec<String>,
    /// The change.
    pub change: Change,
    /// Number of keys.
    pub keys: u64,
    /// Key pattern; `{i}` is replaced by the key's index.
    pub key_format: String,
    /// Ring points per node (consistent-hash).
    pub vnodes: u32,
    /// Hash function.
    pub hash: HashFn,
    /// Whose ring (consistent-hash): `lbsim`, or `nginx`, `haproxy` or
    /// `ketama` with their own points (and hash) (docs/model.md#hashing-and-whose-construction).
    #[serde(default, skip_serializing_if = "Builder::is_default", alias = "ring")]
    pub builder: Builder,
}

impl Remap {
    /// The experiment with the placement of `scenario`'s rings and tables
    /// (its hash, points per weight unit and ring construction), as its
    /// consistent-hash, Maglev and rendezvous rules build them: what the
    /// CLI's `remap` and the page's remapping panel both show.
    pub fn placed_as(self, scenario: &Scenario) -> Remap {
        Remap {
            hash: scenario.hash.unwrap_or(HashFn::DEFAULT),
            vnodes: scenario.vnodes,
            builder: scenario.builder,
            ..self
        }
    }

    /// The hash the experiment's keys go through, as printed beside it: a
    /// placed ring's own for consistent-hash (`crc32 (nginx ring)`), the
    /// `hash` setting otherwise.
    pub fn hash_words(&self) -> &'static str {
        match (self.scheme, self.builder) {
            (Scheme::ConsistentHash, Builder::Nginx) => "crc32 (nginx ring)",
            (Scheme::ConsistentHash, Builder::Ketama) => "md5 (ketama ring)",
            (Scheme::ConsistentHash, Builder::Haproxy) => match self.hash {
                HashFn::Sdbm => "sdbm (haproxy ring)",
                HashFn::Djb2 => "djb2 (haproxy ring)",
                HashFn::Wt6 => "wt6 (haproxy ring)",
                HashFn::Crc32 => "crc32 (haproxy ring)",
                _ => "sdbm+avalanche (haproxy ring)",
            },
            _ => self.hash.id(),
        }
    }

    /// What makes this experiment's count not like for like with the other
    /// schemes', said where the figure is shown: jump hash numbers its
    /// buckets, so it can only drop the last one; removing any other node
    /// renumbers every bucket after it and moves far more than 1/N of the
    /// keys, which jump hash cannot avoid (Lamping & Veach: "it can only
    /// ... remove buckets at the end").
    pub fn caveat(&self) -> Option<String> {
        match (&self.scheme, &self.change) {
            (Scheme::Jump, Change::Remove(node)) if self.nodes.last() != Some(node) => Some(format!(
                "note: jump hash can only remove the last node ({}); removing {node} renumbers the \
                 nodes after it, so this count is not like for like with the other schemes",
                self.nodes.last().map_or("", String::as_str)
            )),
            _ => None,
        }
    }
}

impl Default for Remap {
    fn default() -> Self {
        Remap {
            scheme: Scheme::ConsistentHash,
            nodes: ["s1", "s2", "s3", "s4"].map(String::from).to_vec(),
            change: Change::Add("s5".to_string()),
            keys: 1000,
            key_format: "session:{i}".to_string(),
            vnodes: 160,
            hash: HashFn::DEFAULT,
            builder: Builder::Lbsim,
        }
    }
}

/// Keys owned per node, serialized as a JSON object in node order.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(from = "alloc::collections::BTreeMap<String, u64>")]
pub struct Ownership(pub Vec<(String, u64)>);

impl From<alloc::collections::BTreeMap<String, u64>> for Ownership {
    fn from(map: alloc::collections::BTreeMap<String, u64>) -> Self {
        Ownership(map.into_iter().collect())
    }
}

impl Serialize for Ownership {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (node, keys) in &self.0 {
            map.serialize_entry(node, keys)?;
        }
        map.end()
    }
}

/// What moved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemapReport {
    /// Number of keys.
    pub keys: u64,
    /// Keys whose owner changed.
    pub moved: u64,
    /// Keys per node before.
    pub before: Ownership,
    /// Keys per node after.
    pub after: Ownership,
}

fn error(field: &str, value: &str, allowed: &str) -> ScenarioError {
    ScenarioError { field: field.to_string(), value: value.to_string(), allowed: allowed.to_string() }
}

/// How one node list maps a key hash to a node: the tables built once.
enum Lookup {
    Modulo(u64),
    Jump(u32),
    Ring(Ring),
    Maglev(Vec<u32>),
    /// Rendezvous hashes the key with every name instead (see [`Plan::owners`]).
    Rendezvous,
}

impl Lookup {
    fn new(remap: &Remap, nodes: &[String]) -> Lookup {
        let hash = remap.hash;
        match remap.scheme {
            Scheme::Modulo => Lookup::Modulo(nodes.len() as u64),
            Scheme::Jump => Lookup::Jump(nodes.len() as u32),
            Scheme::ConsistentHash => Lookup::Ring(Ring::placed(
                remap.builder,
                nodes,
                &alloc::vec![1; nodes.len()],
                remap.vnodes,
                hash,
            )),
            Scheme::Maglev => Lookup::Maglev(maglev::populate(
                &maglev::permutations(nodes, hash, maglev::TABLE_SIZE),
                maglev::TABLE_SIZE,
            )),
            Scheme::Rendezvous => Lookup::Rendezvous,
        }
    }

    fn owner(&self, h: u64) -> usize {
        match self {
            Lookup::Modulo(n) => (h % n) as usize,
            Lookup::Jump(n) => jump(h, *n) as usize,
            Lookup::Ring(ring) => ring.owner(h),
            Lookup::Maglev(table) => maglev::Maglev::lookup(table, h),
            Lookup::Rendezvous => 0,
        }
    }
}

/// Keys counted so far: per node before and after, and how many moved.
/// Tallies of disjoint key ranges add up to the tally of their union, so
/// the keys can be counted in slices, on any number of cores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    keys: u64,
    before: Vec<u64>,
    after: Vec<u64>,
    moved: u64,
}

impl Tally {
    /// Adds the counts of another range of the same experiment.
    pub fn merge(mut self, other: &Tally) -> Tally {
        self.keys += other.keys;
        self.moved += other.moved;
        for (mine, theirs) in self.before.iter_mut().zip(&other.before) {
            *mine += theirs;
        }
        for (mine, theirs) in self.after.iter_mut().zip(&other.after) {
            *mine += theirs;
        }
        self
    }

    /// Keys counted.
    pub fn keys(&self) -> u64 {
        self.keys
    }
}

/// A checked experiment, ready to count keys: the pool after the change,
/// the key pattern split at `{i}`, each pool's tables built once. No key
/// is ever stored: key `i` is written, hashed and counted, then dropped.
pub struct Plan<'a> {
    remap: &'a Remap,
    after: Vec<String>,
    /// The key pattern's text between its `{i}`s.
    pieces: Vec<&'a str>,
    before_lookup: Lookup,
    after_lookup: Lookup,
    /// The index after the change of each node before it (`None` for the
    /// one that leaves).
    stays_as: Vec<Option<usize>>,
}

impl<'a> Plan<'a> {
    /// Checks the experiment and builds both pools' tables.
    pub fn new(remap: &'a Remap) -> Result<Plan<'a>, ScenarioError> {
        let after = check(remap)?;
        let stays_as = remap.nodes.iter().map(|n| after.iter().position(|a| a == n)).collect();
        Ok(Plan {
            pieces: remap.key_format.split("{i}").collect(),
            before_lookup: Lookup::new(remap, &remap.nodes),
            after_lookup: Lookup::new(remap, &after),
            after,
            stays_as,
            remap,
        })
    }

    /// Key `i`: the pattern with every `{i}` replaced by `i`.
    fn key(&self, i: u64) -> KeyBuf {
        let mut key = KeyBuf::text(self.pieces.first().copied().unwrap_or_default());
        for piece in self.pieces.iter().skip(1) {
            key.push_u64(i);
            key.push_str(piece);
        }
        key
    }

    /// The owner of a key before and after the change.
    fn owners(&self, key: &[u8]) -> (usize, usize) {
        let (remap, hash) = (self.remap, self.remap.hash);
        if remap.scheme == Scheme::ConsistentHash {
            let h = remap.builder.key_hash(key, hash);
            return (self.before_lookup.owner(h), self.after_lookup.owner(h));
        }
        if remap.scheme != Scheme::Rendezvous {
            let h = hash.hash(key);
            return (self.before_lookup.owner(h), self.after_lookup.owner(h));
        }
        // Highest random weight needs every node's score once: a joining
        // node wins only by beating the old winner's score (it is listed
        // last, so a tie stays), and a leaving node that did not win
        // changes nothing.
        let (before, score) = rendezvous::best(key, &remap.nodes, hash);
        let after = match (&remap.change, self.stays_as[before]) {
            (Change::Add(node), Some(same)) => {
                if rendezvous::score(key, node, hash) > score {
                    self.after.len() - 1
                } else {
                    same
                }
            }
            (Change::Remove(_), Some(same)) => same,
            (_, None) => rendezvous::winner(key, &self.after, hash),
        };
        (before, after)
    }

    /// Whether key `i` changes owner.
    pub fn moves(&self, i: u64) -> bool {
        let (before, after) = self.owners(self.key(i).as_bytes());
        self.stays_as[before] != Some(after)
    }

    /// Counts the keys with indices in `keys`.
    pub fn tally(&self, keys: Range<u64>) -> Tally {
        let mut tally = self.empty();
        for i in keys {
            let (before, after) = self.owners(self.key(i).as_bytes());
            tally.keys += 1;
            tally.before[before] += 1;
            tally.after[after] += 1;
            tally.moved += u64::from(self.stays_as[before] != Some(after));
        }
        tally
    }

    /// A tally of no keys, to add others to.
    pub fn empty(&self) -> Tally {
        Tally {
            keys: 0,
            before: alloc::vec![0; self.remap.nodes.len()],
            after: alloc::vec![0; self.after.len()],
            moved: 0,
        }
    }

    /// The report of the counted keys.
    pub fn report(&self, tally: Tally) -> RemapReport {
        RemapReport {
            keys: tally.keys,
            moved: tally.moved,
            before: Ownership(self.remap.nodes.iter().cloned().zip(tally.before).collect()),
            after: Ownership(self.after.iter().cloned().zip(tally.after).collect()),
        }
    }
}

/// Runs a remapping experiment, every key on this thread. Front ends with
/// threads count slices of the keys with [`Plan::tally`] and add them up.
pub fn remap(remap: &Remap) -> Result<RemapReport, ScenarioError> {
    let plan = Plan::new(remap)?;
    Ok(plan.report(plan.tally(0..remap.keys)))
}

/// Checks an experiment against the scenario table's limits; the nodes
/// after the change.
fn check(remap: &Remap) -> Result<Vec<String>, ScenarioError> {
    // The limits are the scenario table's: nodes as servers, keys as
    // requests, vnodes as vnodes, names as server names.
    let within = |key: &str, value: u64| {
        let f = field_spec(key).expect("key is in FIELDS");
        value as f64 >= f.min && value as f64 <= f.max
    };
    let range = |key: &str| field_spec(key).map(|f| f.allowed()).unwrap_or_default();
    if !within("servers", remap.nodes.len() as u64) {
        return Err(error("nodes", &remap.nodes.join(","), &range("servers")));
    }
    let change = match &remap.change {
        Change::Add(node) => ("add", node),
        Change::Remove(node) => ("remove", node),
    };
    let names = remap.nodes.iter().map(|n| ("nodes", n)).chain([change]);
    if let Some((field, bad)) = names.into_iter().find(|(_, n)| !valid_name(n)) {
        return Err(error(field, bad, &range("names")));
    }
    if !remap.key_format.contains("{i}") || remap.key_format.len() > MAX_KEY_FORMAT {
        return Err(error("key-format", &remap.key_format, "a pattern of at most 64 bytes containing {i}"));
    }
    if !within("requests", remap.keys) {
        return Err(error("keys", &remap.keys.to_string(), &range("requests")));
    }
    if !within("vnodes", u64::from(remap.vnodes)) {
        return Err(error("vnodes", &remap.vnodes.to_string(), &range("vnodes")));
    }
    let mut after = remap.nodes.clone();
    match &remap.change {
        Change::Add(node) if remap.nodes.contains(node) => {
            return Err(error("add", node, "a node not already in --nodes"));
        }
        Change::Add(node) => after.push(node.clone()),
        Change::Remove(node) => {
            let Some(i) = remap.nodes.iter().position(|n| n == node) else {
                return Err(error("remove", node, "one of the nodes in --nodes"));
            };
            if remap.nodes.len() == 1 {
                return Err(error("remove", node, "a node of a pool of at least 2"));
            }
            after.remove(i);
        }
    }
    Ok(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ranges_come_from_the_scenario_table() {
        let long = "n".repeat(60);
        let bad = Remap { nodes: alloc::vec!["a".into(), long.clone()], ..Remap::default() };
        let err = remap(&bad).expect_err("a 60-character name");
        assert_eq!((err.field.as_str(), err.value.as_str()), ("nodes", long.as_str()));
        let bad = Remap { vnodes: 0, ..Remap::default() };
        assert!(remap(&bad).expect_err("no ring points").allowed.contains("1 to 1000"));
        let bad = Remap { change: Change::Add("a b".into()), ..Remap::default() };
        assert_eq!(remap(&bad).expect_err("a space").field, "add");
        let bad = Remap { key_format: "k".repeat(70) + "{i}", ..Remap::default() };
        assert_eq!(remap(&bad).expect_err("too long a pattern").field, "key-format");
    }

    /// The shortcut (a joining node only has to beat the old winner; a
    /// leaving loser changes nothing) gives what two full lookups give.
    #[test]
    fn rendezvous_owners_equal_two_full_lookups() {
        let nodes: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        for change in [Change::Add("e".into()), Change::Remove("b".into()), Change::Remove("d".into())] {
            let experiment =
                Remap { scheme: Scheme::Rendezvous, nodes: nodes.clone(), change, ..Remap::default() };
            let plan = Plan::new(&experiment).expect("a valid experiment");
            for i in 0..3000 {
                let key = plan.key(i);
                let full = (
                    rendezvous::winner(key.as_bytes(), &nodes, experiment.hash),
                    rendezvous::winner(key.as_bytes(), &plan.after, experiment.hash),
                );
                assert_eq!(plan.owners(key.as_bytes()), full, "key {i}, {:?}", experiment.change);
            }
        }
    }

    #[test]
    fn tallies_of_slices_add_up_to_the_whole() {
        for scheme in Scheme::ALL {
            let experiment = Remap { scheme, keys: 5000, ..Remap::default() };
            let plan = Plan::new(&experiment).expect("a valid experiment");
            let slices = [0..1000, 1000..1001, 1001..4096, 4096..5000];
            let added = slices.into_iter().fold(plan.empty(), |t, s| t.merge(&plan.tally(s)));
            assert_eq!(added, plan.tally(0..5000), "{}", scheme.id());
        }
    }

    #[test]
    fn keys_replace_every_placeholder() {
        let experiment = Remap { key_format: "{i}-x{i}{i}".into(), ..Remap::default() };
        let plan = Plan::new(&experiment).expect("a valid experiment");
        assert_eq!(plan.key(42).as_bytes(), b"42-x4242");
    }

    #[test]
    fn jump_public_vectors() {
        assert_eq!(jump(1, 1), 0);
        assert_eq!(jump(42, 57), 43);
        assert_eq!(jump(0xDEAD_10CC, 666), 361);
        assert_eq!(jump(256, 1024), 520);
        let ten: Vec<u32> = (0..10).map(|k| jump(k, 10)).collect();
        assert_eq!(ten, [0, 6, 6, 8, 1, 4, 9, 0, 4, 7]);
    }
}
