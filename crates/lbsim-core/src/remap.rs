//! Remapping experiments (SPEC section 5): what moves when the pool changes.
//!
//! Keys `session:{i}` (or any pattern with `{i}`) for i in 0..K are mapped
//! to nodes by a scheme before and after one node is added or removed; the
//! report counts each node's keys and how many keys changed owner.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::str::FromStr;

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use crate::balancer::consistent_hash::Ring;
use crate::balancer::{maglev, rendezvous};
use crate::hash::HashFn;
use crate::scenario::{field_spec, valid_name, ScenarioError};

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

/// Maps every key to a node index for one node list.
fn owners(remap: &Remap, nodes: &[String], keys: &[String]) -> Vec<usize> {
    let hash = remap.hash;
    match remap.scheme {
        Scheme::Modulo => {
            keys.iter().map(|k| (hash.hash(k.as_bytes()) % nodes.len() as u64) as usize).collect()
        }
        Scheme::Jump => {
            keys.iter().map(|k| jump(hash.hash(k.as_bytes()), nodes.len() as u32) as usize).collect()
        }
        Scheme::ConsistentHash => {
            let ring = Ring::build(nodes, &alloc::vec![1; nodes.len()], remap.vnodes, hash);
            keys.iter().map(|k| ring.owner(hash.hash(k.as_bytes()))).collect()
        }
        Scheme::Rendezvous => keys.iter().map(|k| rendezvous::winner(k.as_bytes(), nodes, hash)).collect(),
        Scheme::Maglev => {
            let table =
                maglev::populate(&maglev::permutations(nodes, hash, maglev::TABLE_SIZE), maglev::TABLE_SIZE);
            keys.iter().map(|k| maglev::Maglev::lookup(&table, hash.hash(k.as_bytes()))).collect()
        }
    }
}

fn ownership(nodes: &[String], owner: &[usize]) -> Ownership {
    let mut counts = alloc::vec![0u64; nodes.len()];
    for &o in owner {
        counts[o] += 1;
    }
    Ownership(nodes.iter().cloned().zip(counts).collect())
}

/// Runs a remapping experiment.
pub fn remap(remap: &Remap) -> Result<RemapReport, ScenarioError> {
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
    let keys: Vec<String> =
        (0..remap.keys).map(|i| remap.key_format.replace("{i}", &i.to_string())).collect();
    let before_owner = owners(remap, &remap.nodes, &keys);
    let after_owner = owners(remap, &after, &keys);
    let moved =
        before_owner.iter().zip(&after_owner).filter(|(&b, &a)| remap.nodes[b] != after[a]).count() as u64;
    Ok(RemapReport {
        keys: remap.keys,
        moved,
        before: ownership(&remap.nodes, &before_owner),
        after: ownership(&after, &after_owner),
    })
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
