//! Least connections: the server with the fewest unfinished requests
//! (running + queued) per weight, as this balancer copy sees them, compared
//! by cross-multiplication as NGINX `least_conn` does.
//!
//! Ties rotate. With equal weights, like HAProxy's leastconn tree, a server
//! whose count changes is queued behind the servers already at its new
//! count, so among equals the one that has waited longest goes first; with
//! all counts equal this is plain rotation. With unequal weights, as NGINX,
//! the tied servers take turns by smooth weighted round robin among
//! themselves (each adds its weight to its current weight, the highest
//! wins, the first in pool order on a tie, and gives back the tied total),
//! so an idle pool follows the weights.
//!
//! The structure is indexed, not a scan: equal weights use one FIFO list
//! per count level (counts move by one, so every operation is O(1), whatever
//! the pool size); unequal weights use an ordered set keyed by
//! (count / weight, arrival order at that key), O(log N) plus the tied
//! servers' turn.
//!
//! As built by NGINX (`builder=nginx`), the tied servers take the smooth
//! turn with equal weights too (`ngx_http_upstream_get_least_conn_peer`
//! breaks every tie that way). As built by HAProxy (`builder=haproxy`),
//! the rule is 2.6's leastconn tree (`lb_fwlc.c`, in `fwlc.rs`): a
//! server's key is 0 when idle, else `(unfinished + 1) x 4096 / (16 x
//! weight)` in integers; the lowest key wins and, among equal keys, the
//! server that reached its key first.
//!
//! In a fleet run the pick is the same rule over the allowed servers only:
//! equal weights walk the level lists from the lowest level, each in FIFO
//! order, to the first allowed server; unequal weights walk the ordered
//! set to the lowest key an allowed server holds and break ties among the
//! allowed at that key by the same smooth turn. Slow start's effective
//! weights replace the weights and keep the counts (HAProxy's `slowstart`
//! scales the weight leastconn divides by); the structure is rebuilt from
//! the counts when the weights change, in the order servers reached them.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use super::builder::Builder;
use super::fwlc::Fwlc;
use super::fwrr::Fwrr;
use super::rule::{effective_weights, Balancer, Eligible, PerWeight, Pick, Pool};
use crate::rng::Rng;

/// FIFO lists of servers, one per unfinished count, with the lowest
/// non-empty level tracked.
///
/// Each level is a circular list through a sentinel node of its own (node
/// `n + level`, after the `n` servers' nodes), so every node always has
/// both neighbours: unlinking and appending take no branch, where lists
/// with open ends take one per end (a level's lists change on every
/// dispatch and completion, and those branches were the rule's most
/// mispredicted).
#[derive(Clone, Debug)]
pub struct LevelLists {
    level: Vec<u32>,
    /// Each node's neighbours, side by side: a relink touches both, and one
    /// bounds check covers them (two lists took a third more instructions).
    links: Vec<Link>,
    /// Servers (the first sentinel's node).
    n: usize,
    min: usize,
}

impl LevelLists {
    fn with_levels(n: usize, levels: usize) -> LevelLists {
        let mut lists = LevelLists {
            level: alloc::vec![0; n],
            links: alloc::vec![Link { prev: 0, next: 0 }; n],
            n,
            min: 0,
        };
        for _ in 0..levels.max(1) {
            lists.add_level();
        }
        lists
    }

    /// `n` servers, all at count 0, in index order.
    pub fn new(n: usize) -> LevelLists {
        let mut lists = LevelLists::with_levels(n, 1);
        for s in 0..n {
            lists.append(s, 0);
        }
        lists
    }

    /// `n` servers at the given counts, each appended to its level in the
    /// order `arrivals` lists them (FIFO: the first listed goes first).
    pub fn with_counts(n: usize, arrivals: &[(usize, u32)]) -> LevelLists {
        let levels = arrivals.iter().map(|&(_, c)| c as usize + 1).max().unwrap_or(1);
        let mut lists = LevelLists::with_levels(n, levels);
        for &(s, count) in arrivals {
            lists.append(s, count as usize);
        }
        while lists.min + 1 < levels && lists.is_empty(lists.min) {
            lists.min += 1;
        }
        lists
    }

    fn levels(&self) -> usize {
        self.links.len() - self.n
    }

    /// A new, empty level on top: its sentinel links to itself.
    fn add_level(&mut self) {
        let sentinel = self.links.len() as u32;
        self.links.push(Link { prev: sentinel, next: sentinel });
    }

    fn is_empty(&self, level: usize) -> bool {
        let sentinel = self.n + level;
        self.links[sentinel].next as usize == sentinel
    }

    /// The server at the head of the lowest level.
    pub fn first(&self) -> usize {
        self.links[self.n + self.min].next as usize
    }

    /// Every server, lowest level first, each level in FIFO order.
    pub fn in_order(&self) -> impl Iterator<Item = usize> + '_ {
        (self.min..self.levels()).flat_map(move |level| {
            let sentinel = self.n + level;
            let linked = move |s: u32| (s as usize != sentinel).then_some(s as usize);
            core::iter::successors(linked(self.links[sentinel].next), move |&s| linked(self.links[s].next))
        })
    }

    /// Unfinished count of `server`.
    pub fn count(&self, server: usize) -> u32 {
        self.level[server]
    }

    /// One more unfinished request on `server`. Counts move by one, so
    /// the lowest level changes only when `server` was alone at it, and
    /// then it is the level `server` just joined (the general walk to the
    /// lowest non-empty level cost a fifth of the rule's instructions).
    pub fn increment(&mut self, server: usize) {
        let from = self.level[server] as usize;
        let to = from + 1;
        self.unlink(server);
        if to == self.levels() {
            self.add_level();
        }
        self.append(server, to);
        if from == self.min && self.is_empty(from) {
            self.min = to;
        }
    }

    /// One fewer unfinished request on `server`: the level it joins is
    /// the lowest if it is below the lowest.
    pub fn decrement(&mut self, server: usize) {
        if let Some(to) = (self.level[server] as usize).checked_sub(1) {
            self.unlink(server);
            self.append(server, to);
            self.min = self.min.min(to);
        }
    }

    fn unlink(&mut self, s: usize) {
        let Link { prev, next } = self.links[s];
        self.links[prev as usize].next = next;
        self.links[next as usize].prev = prev;
    }

    /// `s` joins the tail of `level`, just before its sentinel.
    fn append(&mut self, s: usize, level: usize) {
        self.level[s] = level as u32;
        let sentinel = self.n + level;
        let tail = self.links[sentinel].prev;
        self.links[tail as usize].next = s as u32;
        self.links[s] = Link { prev: tail, next: sentinel as u32 };
        self.links[sentinel].prev = s as u32;
    }
}

/// A node's neighbours in its level's circular list.
#[derive(Clone, Copy, Debug)]
struct Link {
    prev: u32,
    next: u32,
}

/// Servers ordered by (count / weight, when they reached it).
#[derive(Clone, Debug)]
pub struct WeightedOrder {
    set: BTreeSet<(PerWeight, u64, u32)>,
    keys: Vec<(PerWeight, u64)>,
    clock: u64,
}

impl WeightedOrder {
    /// All servers at count 0, in index order.
    pub fn new(weights: &[u32]) -> WeightedOrder {
        let keys: Vec<(PerWeight, u64)> = weights
            .iter()
            .enumerate()
            .map(|(i, &weight)| (PerWeight { count: 0, weight }, i as u64))
            .collect();
        // Inserted one by one: collecting into a set sorts with a stable
        // sort, which the page would carry for this alone.
        let mut set = BTreeSet::new();
        for (i, &(k, seq)) in keys.iter().enumerate() {
            set.insert((k, seq, i as u32));
        }
        WeightedOrder { set, clock: keys.len() as u64, keys }
    }

    /// Servers at `(server, count)` in the order `arrivals` lists them
    /// (the first listed reached its key first).
    pub fn with_counts(weights: &[u32], arrivals: &[(usize, u32)]) -> WeightedOrder {
        let mut keys = alloc::vec![(PerWeight { count: 0, weight: 1 }, 0); weights.len()];
        let mut set = BTreeSet::new();
        for (seq, &(s, count)) in arrivals.iter().enumerate() {
            let key = PerWeight { count, weight: weights[s] };
            keys[s] = (key, seq as u64);
            set.insert((key, seq as u64, s as u32));
        }
        WeightedOrder { set, clock: arrivals.len() as u64, keys }
    }

    /// Every server with its count, in the order it reached its count.
    fn arrivals(&self) -> Vec<(usize, u32)> {
        // (seq, server) as the rings' (u64, u32) points, so one sort serves.
        let mut by_seq: Vec<(u64, u32)> =
            self.keys.iter().enumerate().map(|(s, &(_, seq))| (seq, s as u32)).collect();
        crate::sort::by_key(&mut by_seq);
        by_seq.into_iter().map(|(_, s)| (s as usize, self.keys[s as usize].0.count)).collect()
    }

    /// The server with the lowest count per weight, longest-waiting first.
    pub fn first(&self) -> usize {
        self.set.first().map_or(0, |&(_, _, s)| s as usize)
    }

    /// The servers tied at the lowest count per weight.
    pub fn tied(&self) -> impl Iterator<Item = usize> + '_ {
        let lowest = self.set.first().map(|&(key, _, _)| key);
        self.set.iter().take_while(move |&&(key, _, _)| Some(key) == lowest).map(|&(_, _, s)| s as usize)
    }

    /// Unfinished count of `server`.
    pub fn count(&self, server: usize) -> u32 {
        self.keys[server].0.count
    }

    /// Moves `server` to count `count`, behind its new equals.
    pub fn set_count(&mut self, server: usize, count: u32) {
        let (key, seq) = self.keys[server];
        self.set.remove(&(key, seq, server as u32));
        let key = PerWeight { count, weight: key.weight };
        self.keys[server] = (key, self.clock);
        self.set.insert((key, self.clock, server as u32));
        self.clock += 1;
    }
}

/// Unequal weights: the order, and NGINX's current weights for breaking ties.
struct Weighted {
    order: WeightedOrder,
    weights: Vec<i64>,
    current: Vec<i64>,
    /// Scratch list of the tied servers, kept to save an allocation a pick.
    tied: Vec<usize>,
}

impl Weighted {
    fn new(order: WeightedOrder, weights: &[u32]) -> Weighted {
        Weighted {
            order,
            weights: weights.iter().map(|&w| i64::from(w)).collect(),
            current: alloc::vec![0; weights.len()],
            tied: Vec::new(),
        }
    }

    fn pick(&mut self) -> usize {
        self.tied.clear();
        self.tied.extend(self.order.tied());
        if self.tied.len() < 2 {
            return self.order.first();
        }
        self.turn()
    }

    /// The lowest key an allowed server holds; the allowed servers there
    /// take their turn.
    fn pick_among(&mut self, eligible: &Eligible) -> Option<usize> {
        self.tied.clear();
        let mut lowest = None;
        for &(key, _, s) in &self.order.set {
            if !eligible.allows(s as usize) {
                continue;
            }
            if lowest.is_some_and(|low| low != key) {
                break;
            }
            lowest = Some(key);
            self.tied.push(s as usize);
        }
        match self.tied.len() {
            0 => None,
            1 => Some(self.tied[0]),
            _ => Some(self.turn()),
        }
    }

    /// NGINX's smooth turn among the (two or more) servers in `tied`.
    fn turn(&mut self) -> usize {
        let mut total = 0;
        for &s in &self.tied {
            self.current[s] += self.weights[s];
            total += self.weights[s];
        }
        // NGINX walks its peers in pool order and keeps the first of the
        // highest: the highest, the lowest index on a tie (no sort, whose
        // code would cost the page's bundle kilobytes).
        let best = self.tied.iter().copied().max_by_key(|&s| (self.current[s], core::cmp::Reverse(s)));
        let best = best.expect("turn is called with two or more servers");
        self.current[best] -= total;
        best
    }
}

enum Order {
    Equal(LevelLists),
    Weighted(Weighted),
    Haproxy(Fwlc),
}

/// Least connections.
pub struct LeastConnections {
    order: Order,
    /// The weights the order divides by (the pool's, or slow start's).
    weights: Vec<u32>,
    builder: Builder,
}

impl LeastConnections {
    /// Least connections over `pool`.
    pub fn new(pool: &Pool) -> LeastConnections {
        let n = pool.len();
        let order = match pool.builder {
            Builder::Haproxy => {
                let idle: Vec<(usize, u32)> = (0..n).map(|s| (s, 0)).collect();
                Order::Haproxy(Fwlc::new(Fwrr::eweights(&pool.weights, 1), &idle))
            }
            // NGINX breaks ties by the smooth turn even with equal weights.
            builder if builder != Builder::Nginx && pool.equal_weights() => Order::Equal(LevelLists::new(n)),
            _ => Order::Weighted(Weighted::new(WeightedOrder::new(&pool.weights), &pool.weights)),
        };
        LeastConnections { order, weights: pool.weights.clone(), builder: pool.builder }
    }

    /// Unfinished count of `server`.
    pub fn count(&self, server: usize) -> u32 {
        match &self.order {
            Order::Equal(lists) => lists.count(server),
            Order::Weighted(weighted) => weighted.order.count(server),
            Order::Haproxy(fwlc) => fwlc.count(server),
        }
    }
}

impl Balancer for LeastConnections {
    fn pick(&mut self, _request: &Pick, _rng: &mut Rng) -> usize {
        match &mut self.order {
            Order::Equal(lists) => lists.first(),
            Order::Weighted(weighted) => weighted.pick(),
            Order::Haproxy(fwlc) => fwlc.first(),
        }
    }

    fn dispatched(&mut self, server: usize) {
        match &mut self.order {
            Order::Equal(lists) => lists.increment(server),
            Order::Weighted(Weighted { order, .. }) => order.set_count(server, order.count(server) + 1),
            Order::Haproxy(fwlc) => fwlc.set_count(server, fwlc.count(server) + 1),
        }
    }

    fn completed(&mut self, server: usize, _now_ms: f64, _latency_ms: f64) {
        match &mut self.order {
            Order::Equal(lists) => lists.decrement(server),
            Order::Weighted(Weighted { order, .. }) => {
                order.set_count(server, order.count(server).saturating_sub(1))
            }
            Order::Haproxy(fwlc) => fwlc.set_count(server, fwlc.count(server).saturating_sub(1)),
        }
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        match &mut self.order {
            Order::Equal(lists) => lists.in_order().find(|&s| eligible.allows(s)),
            Order::Weighted(weighted) => weighted.pick_among(eligible),
            Order::Haproxy(fwlc) => fwlc.first_allowed(eligible),
        }
    }

    fn reweight(&mut self, weights: &[u32]) {
        let weights = effective_weights(weights);
        if weights == self.weights {
            return;
        }
        let n = weights.len();
        let (arrivals, current) = match &self.order {
            Order::Equal(lists) => {
                (lists.in_order().map(|s| (s, lists.count(s))).collect(), alloc::vec![0; n])
            }
            Order::Weighted(weighted) => (weighted.order.arrivals(), weighted.current.clone()),
            Order::Haproxy(fwlc) => (fwlc.arrivals(), alloc::vec![0; n]),
        };
        let equal = weights.windows(2).all(|w| w[0] == w[1]);
        self.order = match self.builder {
            // Slow start's weights are in 256ths.
            Builder::Haproxy => Order::Haproxy(Fwlc::new(Fwrr::eweights(&weights, 256), &arrivals)),
            builder if builder != Builder::Nginx && equal => {
                Order::Equal(LevelLists::with_counts(n, &arrivals))
            }
            _ => Order::Weighted(Weighted {
                current,
                ..Weighted::new(WeightedOrder::with_counts(&weights, &arrivals), &weights)
            }),
        };
        self.weights = weights;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balancer::checks;
    use proptest::prelude::*;

    proptest! {
        /// The O(1) lists and the ordered set are two indexes of one rule:
        /// with equal weights they must agree pick for pick, and the pick
        /// must have the minimum count.
        #[test]
        fn level_lists_agree_with_the_ordered_set(n in 1usize..12, ops in proptest::collection::vec((any::<bool>(), 0usize..12), 0..400)) {
            let mut lists = LevelLists::new(n);
            let mut set = WeightedOrder::new(&alloc::vec![3; n]);
            for (up, s) in ops {
                let s = s % n;
                if up {
                    lists.increment(s);
                    set.set_count(s, set.count(s) + 1);
                } else if lists.count(s) > 0 {
                    lists.decrement(s);
                    set.set_count(s, set.count(s) - 1);
                }
                prop_assert_eq!(lists.first(), set.first());
                let min = (0..n).map(|i| lists.count(i)).min().unwrap();
                prop_assert_eq!(lists.count(lists.first()), min);
            }
        }
    }

    #[test]
    fn ties_rotate_and_weights_scale_counts() {
        let mut lc = LeastConnections::new(&Pool::named(&["a", "b", "c"]));
        let mut rng = <crate::rng::Rng as rand::SeedableRng>::seed_from_u64(0);
        let req = Pick { now_ms: 0.0, user: 1 };
        let mut picks = alloc::vec::Vec::new();
        for _ in 0..6 {
            let s = lc.pick(&req, &mut rng);
            lc.dispatched(s);
            picks.push(s);
        }
        assert_eq!(picks, [0, 1, 2, 0, 1, 2]);

        // Weights 2,1: a takes two requests for every one of b's.
        let mut pool = Pool::named(&["a", "b"]);
        pool.weights = alloc::vec![2, 1];
        let mut lc = LeastConnections::new(&pool);
        let picks: alloc::vec::Vec<usize> = (0..6)
            .map(|_| {
                let s = lc.pick(&req, &mut rng);
                lc.dispatched(s);
                s
            })
            .collect();
        assert_eq!(picks.iter().filter(|&&s| s == 0).count(), 4);

        // An idle pool (each request done before the next): every server
        // ties at 0 and NGINX's weighted round robin among the tied gives
        // the smooth WRR sequence of the weights 5, 1, 1: a a b a c a a.
        let mut pool = Pool::named(&["a", "b", "c"]);
        pool.weights = alloc::vec![5, 1, 1];
        let mut lc = LeastConnections::new(&pool);
        let picks: alloc::vec::Vec<usize> = (0..7)
            .map(|_| {
                let s = lc.pick(&req, &mut rng);
                lc.dispatched(s);
                lc.completed(s, 0.0, 0.0);
                s
            })
            .collect();
        assert_eq!(picks, [0, 0, 1, 0, 2, 0, 0]);
    }

    fn loaded(weights: &[u32], counts: &[u32]) -> LeastConnections {
        let mut lc = LeastConnections::new(&checks::pool(weights));
        for (s, &c) in counts.iter().enumerate() {
            (0..c).for_each(|_| lc.dispatched(s));
        }
        lc
    }

    fn eligible_pick(lc: &mut LeastConnections, available: &[bool], tried: &[u32]) -> Option<usize> {
        let mut rng = <crate::rng::Rng as rand::SeedableRng>::seed_from_u64(0);
        let eligible = Eligible { available, tried, every_available: available.iter().all(|&a| a) };
        lc.pick_eligible(&Pick { now_ms: 0.0, user: 1 }, &mut rng, &eligible)
    }

    /// s1 is idle but down, s2 holds 3, s3 holds 2, s4 holds 2 and was
    /// tried: s3, the least loaded allowed. Weighted 1, 1, 2, 1 the same
    /// counts make s3 (2 / 2) the least per weight over s2 (3 / 1).
    #[test]
    fn picks_the_least_loaded_allowed_server() {
        let available = [false, true, true, true];
        let mut lc = loaded(&[1, 1, 1, 1], &[0, 3, 2, 2]);
        assert_eq!(eligible_pick(&mut lc, &available, &[3]), Some(2));
        assert_eq!(eligible_pick(&mut lc, &available, &[]), Some(2), "s3 reached 2 before s4");
        assert_eq!(eligible_pick(&mut lc, &available, &[2, 3]), Some(1));
        let mut lc = loaded(&[1, 1, 2, 1], &[0, 3, 2, 2]);
        assert_eq!(eligible_pick(&mut lc, &available, &[3]), Some(2));
        assert_eq!(eligible_pick(&mut lc, &available, &[2]), Some(3), "2 / 1 beats 3 / 1");
    }

    /// Ties among the allowed take NGINX's smooth turn among the allowed
    /// only: weights 5, 1, 1, idle, with s2 down, give the sequence of 5, 1
    /// over s1 and s3: a a a c a a.
    #[test]
    fn weighted_ties_among_the_allowed_take_turns() {
        let mut lc = loaded(&[5, 1, 1], &[0, 0, 0]);
        let picks: Vec<usize> =
            (0..6).map(|_| eligible_pick(&mut lc, &[true, false, true], &[]).unwrap()).collect();
        assert_eq!(picks, [0, 0, 0, 2, 0, 0]);
    }

    /// Slow start changes weights, not counts: after reweight the busy
    /// server is still busy, whichever structure the weights call for.
    #[test]
    fn reweight_keeps_counts() {
        let mut lc = loaded(&[1, 1, 1], &[4, 1, 1]);
        let everyone = [true; 3];
        // s1 at full weight (256) with 4 is 4 / 256 against 1 / 25.
        lc.reweight(&[256, 25, 25]);
        assert!(matches!(lc.order, Order::Weighted(_)));
        assert_eq!((lc.count(0), lc.count(1), lc.count(2)), (4, 1, 1));
        assert_eq!(eligible_pick(&mut lc, &everyone, &[]), Some(0));
        // Ramped: 4 / 256 against 1 / 256; the busy one is not chosen.
        lc.reweight(&[256, 256, 256]);
        assert!(matches!(lc.order, Order::Equal(_)));
        assert_eq!((lc.count(0), lc.count(1), lc.count(2)), (4, 1, 1));
        assert_eq!(eligible_pick(&mut lc, &everyone, &[]), Some(1), "s2 reached 1 before s3");
        lc.completed(0, 0.0, 0.0);
        lc.completed(0, 0.0, 0.0);
        lc.completed(0, 0.0, 0.0);
        assert_eq!(eligible_pick(&mut lc, &everyone, &[]), Some(1), "s1 at 1 now, behind s2 and s3");
        lc.completed(0, 0.0, 0.0);
        assert_eq!(eligible_pick(&mut lc, &everyone, &[]), Some(0));
    }

    proptest! {
        /// A rebuild from counts gives the structure the counts call for:
        /// after any reweight the pick has the least count per weight.
        #[test]
        fn a_reweighted_order_has_the_least_count_per_weight(
            ops in proptest::collection::vec((0u8..3, 0usize..6, 1u32..300), 0..300),
        ) {
            let mut lc = LeastConnections::new(&checks::pool(&[1; 6]));
            let mut weights = alloc::vec![1u32; 6];
            for (op, s, w) in ops {
                match op {
                    0 => lc.dispatched(s),
                    1 => lc.completed(s, 0.0, 0.0),
                    _ => {
                        weights = if w % 2 == 0 { alloc::vec![w; 6] } else { (0..6).map(|i| w + i).collect() };
                        lc.reweight(&weights);
                    }
                }
                let rng = &mut <crate::rng::Rng as rand::SeedableRng>::seed_from_u64(0);
                let best = lc.pick(&Pick { now_ms: 0.0, user: 1 }, rng);
                for other in 0..6 {
                    prop_assert!(!crate::balancer::fewer_per_weight(
                        lc.count(other), weights[other], lc.count(best), weights[best]
                    ));
                }
            }
        }
    }
}
