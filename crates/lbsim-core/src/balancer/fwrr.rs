//! HAProxy 2.6's weighted round robin (`lb_fwrr.c`), round robin's
//! construction as built by HAProxy (`builder=haproxy`).
//!
//! Servers wait in three trees: `init` (not yet placed this window,
//! heaviest first), `curr` (placed, by next position) and `next` (for the
//! window after). A pick takes the first server of `curr` whose position
//! has come (`npos <= curr_pos`), else the first of `init`, else, once,
//! swaps `init` and `next` and tries again; the server's next position
//! moves on by `next_weight / eweight` (the remainder carried in `rweight`)
//! and it is queued again. Effective weights are 16 x the weights
//! (`BE_WEIGHT_SCALE`). Equal keys keep their insertion order, as ebtree
//! duplicates do.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use super::rule::PerWeight;

/// `SRV_EWGHT_MAX`: the largest effective weight (256 x 16).
pub const EWGHT_MAX: u64 = 4096;
/// `SRV_UWGHT_RANGE`: the position's unit in a `curr` key.
const UWGHT_RANGE: u64 = 256;
/// `BE_WEIGHT_SCALE`.
const WEIGHT_SCALE: u64 = 16;

const CURR: usize = 0;

/// The trees and positions of one group of servers.
#[derive(Clone, Debug)]
pub struct Fwrr {
    /// `curr`, then the two weight trees that take turns as `init` and `next`.
    trees: [BTreeSet<(PerWeight, u64, u32)>; 3],
    init: usize,
    next: usize,
    /// Where each server is queued: (tree, key, insertion order).
    place: Vec<Option<(usize, PerWeight, u64)>>,
    npos: Vec<u64>,
    rweight: Vec<u64>,
    eweight: Vec<u64>,
    curr_pos: u64,
    curr_weight: u64,
    next_weight: u64,
    clock: u64,
}

impl Fwrr {
    /// The group of servers with effective weights `eweights` (0: not in
    /// the group), in server order, as `fwrr_init_server_groups` builds it.
    pub fn new(eweights: Vec<u64>) -> Fwrr {
        let n = eweights.len();
        let total: u64 = eweights.iter().sum();
        let mut fwrr = Fwrr {
            trees: [BTreeSet::new(), BTreeSet::new(), BTreeSet::new()],
            init: 1,
            next: 2,
            place: alloc::vec![None; n],
            npos: alloc::vec![0; n],
            rweight: alloc::vec![0; n],
            eweight: eweights,
            curr_pos: total,
            curr_weight: total,
            next_weight: total,
            clock: 0,
        };
        for s in 0..n {
            if fwrr.eweight[s] > 0 {
                fwrr.queue_by_weight(fwrr.init, s);
            }
        }
        fwrr
    }

    /// The effective weights of `weights` in units of `unit` (1 for a
    /// pool's, 256 for slow start's), rounded up and at most HAProxy's
    /// largest (weight 256); 0 stays 0.
    pub fn eweights(weights: &[u32], unit: u64) -> Vec<u64> {
        weights.iter().map(|&w| (u64::from(w) * WEIGHT_SCALE).div_ceil(unit).min(EWGHT_MAX)).collect()
    }

    fn insert(&mut self, tree: usize, server: usize, key: u64) {
        let key = PerWeight::key(u32::try_from(key).unwrap_or(u32::MAX));
        self.place[server] = Some((tree, key, self.clock));
        self.trees[tree].insert((key, self.clock, server as u32));
        self.clock += 1;
    }

    fn dequeue(&mut self, server: usize) {
        if let Some((tree, key, seq)) = self.place[server].take() {
            self.trees[tree].remove(&(key, seq, server as u32));
        }
    }

    /// `fwrr_queue_by_weight`: heavier servers first.
    fn queue_by_weight(&mut self, tree: usize, server: usize) {
        self.insert(tree, server, EWGHT_MAX - self.eweight[server].min(EWGHT_MAX));
    }

    fn first(&self, tree: usize) -> Option<usize> {
        self.trees[tree].first().map(|&(_, _, s)| s as usize)
    }

    /// `fwrr_get_server_from_group`.
    fn server_from_group(&mut self) -> Option<usize> {
        let placed = self.first(CURR);
        if let Some(s) = placed.filter(|&s| self.npos[s] <= self.curr_pos) {
            return Some(s);
        }
        if let Some(s) = self.first(self.init) {
            // `fwrr_get_srv_init`.
            self.npos[s] = 0;
            self.rweight[s] = 0;
            return Some(s);
        }
        placed
    }

    /// `fwrr_update_position`.
    fn update_position(&mut self, s: usize) {
        let eweight = self.eweight[s];
        if self.npos[s] == 0 {
            self.npos[s] = self.curr_pos;
        }
        self.npos[s] += self.next_weight / eweight;
        self.rweight[s] += self.next_weight % eweight;
        if self.rweight[s] >= eweight {
            self.rweight[s] -= eweight;
            self.npos[s] += 1;
        }
    }

    /// `fwrr_queue_srv`: into `curr` by position, or, past the window,
    /// into `next`.
    fn queue(&mut self, s: usize) {
        let (cw, nw) = (self.curr_weight, self.next_weight);
        if self.npos[s] >= 2 * cw || self.npos[s] >= cw + nw {
            self.npos[s] -= cw;
            self.queue_by_weight(self.next, s);
        } else {
            let key =
                UWGHT_RANGE * self.npos[s] + (EWGHT_MAX + self.rweight[s] - self.eweight[s]) / WEIGHT_SCALE;
            self.insert(CURR, s, key);
        }
    }

    /// `fwrr_get_next_server` for servers without `maxconn`: the next
    /// server, `None` when the group is empty.
    pub fn pick(&mut self) -> Option<usize> {
        if self.curr_weight == 0 {
            self.curr_pos = self.next_weight;
            self.curr_weight = self.next_weight;
        }
        let mut switched = false;
        let server = loop {
            if let Some(s) = self.server_from_group() {
                break s;
            }
            if switched {
                return None;
            }
            switched = true;
            // `fwrr_switch_trees`.
            core::mem::swap(&mut self.init, &mut self.next);
            self.curr_weight = self.next_weight;
            self.curr_pos = self.curr_weight;
        };
        self.update_position(server);
        self.dequeue(server);
        self.curr_pos += 1;
        self.queue(server);
        Some(server)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sequence(weights: &[u32], picks: usize) -> Vec<usize> {
        let mut fwrr = Fwrr::new(Fwrr::eweights(weights, 1));
        (0..picks).filter_map(|_| fwrr.pick()).collect()
    }

    #[test]
    fn every_window_gives_each_server_its_weight() {
        // Over whole windows (the total weight in picks) each server is
        // picked exactly its weight's times, as a weighted round robin must.
        for weights in [&[5u32, 1, 1][..], &[3, 2, 1, 1, 4], &[7, 3, 2], &[1, 1, 1, 1]] {
            let total: u32 = weights.iter().sum();
            let picks = sequence(weights, 3 * total as usize);
            for (s, &w) in weights.iter().enumerate() {
                assert_eq!(
                    picks.iter().filter(|&&p| p == s).count(),
                    3 * w as usize,
                    "{weights:?}: {picks:?}"
                );
            }
        }
    }

    #[test]
    fn equal_weights_rotate_in_server_order() {
        assert_eq!(sequence(&[1, 1, 1], 6), [0, 1, 2, 0, 1, 2]);
    }

    #[test]
    fn weights_past_haproxys_largest_count_as_its_largest() {
        // HAProxy refuses a weight over 256; lbsim's pools allow more.
        assert_eq!(sequence(&[1000, 256], 4), sequence(&[256, 256], 4));
    }

    #[test]
    fn a_server_out_of_the_group_is_never_picked() {
        let mut fwrr = Fwrr::new(alloc::vec![16, 0, 32]);
        assert!((0..12).filter_map(|_| fwrr.pick()).all(|s| s != 1));
        assert_eq!(Fwrr::new(alloc::vec![0, 0]).pick(), None);
    }
}
