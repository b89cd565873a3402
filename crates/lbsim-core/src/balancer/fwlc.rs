//! HAProxy 2.6's least connections (`lb_fwlc.c`), least connections'
//! construction as built by HAProxy (`builder=haproxy`).
//!
//! Servers wait in one tree keyed by `fwlc_queue_srv`'s key: 0 when idle,
//! else `(unfinished + 1) x SRV_EWGHT_MAX / eweight` in integers, with
//! effective weights 16 x the weights (`fwrr.rs`'s conversion). A pick
//! takes the lowest key; among equal keys, the server that reached its key
//! first, as ebtree duplicates keep their insertion order. A count that
//! changes requeues the server at its new key, behind its new equals.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use super::fwrr::EWGHT_MAX;
use super::rule::{Eligible, PerWeight};

/// HAProxy 2.6's leastconn tree: servers by (key, when they reached it).
#[derive(Clone, Debug)]
pub struct Fwlc {
    set: BTreeSet<(PerWeight, u64, u32)>,
    /// Each server's key and when it reached it.
    keys: Vec<(PerWeight, u64)>,
    counts: Vec<u32>,
    /// Effective weights (16 x the weight, `fwrr.rs`'s conversion).
    eweights: Vec<u64>,
    clock: u64,
}

impl Fwlc {
    /// Every server at `counts`, queued in the order `arrivals` lists them,
    /// with effective weights `eweights`.
    pub fn new(eweights: Vec<u64>, arrivals: &[(usize, u32)]) -> Fwlc {
        let n = eweights.len();
        let mut fwlc = Fwlc {
            set: BTreeSet::new(),
            keys: alloc::vec![(PerWeight::key(0), 0); n],
            counts: alloc::vec![0; n],
            eweights,
            clock: 0,
        };
        for &(s, count) in arrivals {
            fwlc.counts[s] = count;
            fwlc.queue(s);
        }
        fwlc
    }

    /// `fwlc_queue_srv`: `inflight ? (inflight + 1) * SRV_EWGHT_MAX / eweight : 0`.
    fn key(&self, server: usize) -> PerWeight {
        let key = match u64::from(self.counts[server]) {
            0 => 0,
            inflight => (inflight + 1) * EWGHT_MAX / self.eweights[server].max(1),
        };
        PerWeight::key(u32::try_from(key).unwrap_or(u32::MAX))
    }

    fn queue(&mut self, server: usize) {
        let key = self.key(server);
        self.keys[server] = (key, self.clock);
        self.set.insert((key, self.clock, server as u32));
        self.clock += 1;
    }

    /// Unfinished count of `server`.
    pub fn count(&self, server: usize) -> u32 {
        self.counts[server]
    }

    /// `fwlc_srv_reposition`. HAProxy leaves a server whose key is
    /// unchanged where it is, but a count that moves by one always moves
    /// the key (weights are at most 256), so every change requeues.
    pub fn set_count(&mut self, server: usize, count: u32) {
        self.counts[server] = count;
        let (key, seq) = self.keys[server];
        self.set.remove(&(key, seq, server as u32));
        self.queue(server);
    }

    /// The first server of the tree: the lowest key, the earliest at it.
    pub fn first(&self) -> usize {
        self.set.first().map_or(0, |&(_, _, s)| s as usize)
    }

    /// The first server of the tree that `eligible` allows.
    pub fn first_allowed(&self, eligible: &Eligible) -> Option<usize> {
        self.set.iter().map(|&(_, _, s)| s as usize).find(|&s| eligible.allows(s))
    }

    /// Every server with its count, in tree order.
    pub fn arrivals(&self) -> Vec<(usize, u32)> {
        self.set.iter().map(|&(_, _, s)| (s as usize, self.counts[s as usize])).collect()
    }
}
