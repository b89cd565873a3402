//! Prequal (Wydrowski, Kleinberg, Rumble and Archer, "Load is not what you
//! should balance: Introducing Prequal", NSDI 2024, arXiv 2312.10172): a
//! copy keeps a pool of probe replies, each a server's requests in flight
//! (RIF) and latency estimate as of when the probe reached it, and picks by
//! the hot-cold lexicographic rule: a probe is hot when its RIF is at or
//! above the `q-rif` quantile of the RIFs recent probes brought; among the
//! cold probes the lowest latency wins; when every probe is hot, the
//! lowest RIF. An empty pool (or none allowed) gives a server drawn
//! uniformly.
//!
//! Probes travel on the bus (docs/model.md#what-a-rule-may-know): after
//! each pick the copy probes `probe-rate` servers drawn uniformly without
//! replacement (a fractional rate carries over to the next pick); a reply
//! arrives a `probe-rtt-ms` after it was sent, and answering it costs the
//! server `probe-cost-ms` of busy time. The pool holds at most `pool-size`
//! probes, one per server (a newer reply replaces the older; a full pool
//! drops its oldest); a probe older than `max-age-ms` (from when it
//! reached the server) is dropped; each pick removes `remove-rate` probes,
//! the worst by the same rule reversed (the hot probe with the highest
//! RIF, else the cold one with the highest latency); a probe serves at
//! most `b_reuse = 1 + delta / ((1 - m/n) r_probe - r_remove)` picks
//! (m the pool size, n the servers, delta `reuse-delta`), rounded up, and
//! without bound when the denominator is not positive (probes cannot keep
//! a fresh pool then, and ageing and removal bound a probe's life).
//! A copy that has neither picked nor been woken for `idle-probe-ms` is
//! woken by the bus and probes as a pick would, so an idle copy's pool
//! stays fresh (the paper probes idle clients too; the interval is lbsim's).
//! Parameters and their sources: docs/model.md#prequal.
//!
//! Ties: among cold probes equal in latency the lower RIF, then the lower
//! server index; among hot probes equal in RIF the lower latency, then the
//! lower server index. A server that has finished nothing yet reports no
//! latency, taken as 0 ms, so it is tried.
//!
//! Weights are not used (Prequal has none): slow start's effective weights
//! change nothing.

use alloc::vec::Vec;

use super::message::{Message, Probing, Subscription};
use super::rule::{uniform_among, Balancer, Eligible, Pick, Pool, PrequalSettings};
use crate::rng::{below, Rng};

/// Probe RIFs kept for the hot threshold's quantile. The paper takes the
/// quantile over "recent" RIFs without a count; 64 is lbsim's choice
/// (docs/model.md#prequal).
pub const RIF_HISTORY: usize = 64;

/// One probe reply in the pool.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Probe {
    server: u32,
    reached_ms: f64,
    rif: u32,
    latency_ms: f64,
    uses: u32,
}

/// One copy's probe pool, the RIFs recent probes brought, and what is due.
pub struct Prequal {
    settings: PrequalSettings,
    servers: usize,
    pool: Vec<Probe>,
    /// The last [`RIF_HISTORY`] probe RIFs (a ring) and a count of each
    /// value among them, so the quantile is a walk up the counts.
    history: Vec<u32>,
    history_next: usize,
    rif_counts: Vec<u32>,
    /// Fractional probes and removals carried to the next pick.
    probe_credit: f64,
    remove_credit: f64,
    /// Picks a probe may serve (`u32::MAX`: without bound).
    reuse_budget: u32,
    /// Scratch for drawing probe targets without replacement.
    drawn: Vec<usize>,
    /// When this copy last picked or was woken, ms.
    active_ms: f64,
}

impl Prequal {
    /// An empty pool over `pool`'s servers with its Prequal settings.
    pub fn new(pool: &Pool) -> Prequal {
        let settings = pool.prequal;
        let servers = pool.len();
        Prequal {
            settings,
            servers,
            pool: Vec::with_capacity(settings.pool_size as usize + 1),
            history: Vec::with_capacity(RIF_HISTORY),
            history_next: 0,
            rif_counts: Vec::new(),
            probe_credit: 0.0,
            remove_credit: 0.0,
            reuse_budget: reuse_budget(&settings, servers),
            drawn: Vec::new(),
            active_ms: 0.0,
        }
    }

    /// The RIF at the `q-rif` quantile of the recent probes' (nearest
    /// rank: the smallest value at or below which at least that share
    /// lies); `None` before any probe came back.
    fn hot_threshold(&self) -> Option<u32> {
        let k = self.history.len();
        if k == 0 {
            return None;
        }
        let rank = (libm::ceil(self.settings.q_rif * k as f64) as usize).clamp(1, k);
        let mut seen = 0usize;
        for (rif, &count) in self.rif_counts.iter().enumerate() {
            seen += count as usize;
            if seen >= rank {
                return Some(rif as u32);
            }
        }
        None
    }

    fn remember_rif(&mut self, rif: u32) {
        if self.history.len() < RIF_HISTORY {
            self.history.push(rif);
        } else {
            let old = core::mem::replace(&mut self.history[self.history_next], rif);
            self.rif_counts[old as usize] -= 1;
        }
        self.history_next = (self.history_next + 1) % RIF_HISTORY;
        let rif = rif as usize;
        if rif >= self.rif_counts.len() {
            self.rif_counts.resize(rif + 1, 0);
        }
        self.rif_counts[rif] += 1;
    }

    /// The index in the pool of the best probe `allows` admits, by the
    /// hot-cold lexicographic rule.
    fn best(&self, hot: Option<u32>, allows: impl Fn(usize) -> bool) -> Option<usize> {
        let is_hot = |p: &Probe| hot.is_some_and(|t| p.rif >= t);
        let mut best_cold: Option<usize> = None;
        let mut best_hot: Option<usize> = None;
        for (i, p) in self.pool.iter().enumerate() {
            if !allows(p.server as usize) {
                continue;
            }
            if is_hot(p) {
                let better = best_hot.is_none_or(|b| {
                    let q = &self.pool[b];
                    (p.rif, p.latency_ms, p.server) < (q.rif, q.latency_ms, q.server)
                });
                if better {
                    best_hot = Some(i);
                }
            } else {
                let better = best_cold.is_none_or(|b| {
                    let q = &self.pool[b];
                    (p.latency_ms, p.rif, p.server) < (q.latency_ms, q.rif, q.server)
                });
                if better {
                    best_cold = Some(i);
                }
            }
        }
        best_cold.or(best_hot)
    }

    /// The index of the worst probe: the hot-cold rule reversed.
    fn worst(&self, hot: Option<u32>) -> Option<usize> {
        let is_hot = |p: &Probe| hot.is_some_and(|t| p.rif >= t);
        let key = |p: &Probe| {
            if is_hot(p) {
                (1, f64::from(p.rif), p.latency_ms)
            } else {
                (0, p.latency_ms, f64::from(p.rif))
            }
        };
        let mut worst: Option<usize> = None;
        for (i, p) in self.pool.iter().enumerate() {
            let worse = worst.is_none_or(|w| {
                let (a, b) = (key(p), key(&self.pool[w]));
                a.partial_cmp(&b).is_some_and(|o| o == core::cmp::Ordering::Greater)
            });
            if worse {
                worst = Some(i);
            }
        }
        worst
    }

    /// The pick: probes aged out dropped, the best allowed probe used
    /// once (dropped when its budget is spent), else a uniform draw among
    /// the allowed; then this pick's removals.
    fn choose(&mut self, now_ms: f64, rng: &mut Rng, eligible: Option<&Eligible>) -> Option<usize> {
        let max_age = self.settings.max_age_ms;
        self.pool.retain(|p| now_ms - p.reached_ms <= max_age);
        let hot = self.hot_threshold();
        let allows = |s: usize| eligible.is_none_or(|e| e.allows(s));
        let server = match self.best(hot, allows) {
            Some(i) => {
                let probe = &mut self.pool[i];
                probe.uses += 1;
                let server = probe.server as usize;
                if probe.uses >= self.reuse_budget {
                    self.pool.swap_remove(i);
                }
                Some(server)
            }
            None => match eligible {
                None => Some(below(rng, self.servers as u64) as usize),
                Some(e) => uniform_among(self.servers, rng, |s| e.allows(s)),
            },
        };
        self.remove_credit += self.settings.remove_rate;
        while self.remove_credit >= 1.0 {
            self.remove_credit -= 1.0;
            if let Some(w) = self.worst(hot) {
                self.pool.swap_remove(w);
            }
        }
        server
    }

    /// A probe reply joins the pool: it replaces an older one from the
    /// same server; a full pool drops its oldest to take it.
    fn pool_reply(&mut self, probe: Probe) {
        if let Some(same) = self.pool.iter_mut().find(|p| p.server == probe.server) {
            if probe.reached_ms >= same.reached_ms {
                *same = probe;
            }
            return;
        }
        if self.pool.len() >= self.settings.pool_size as usize {
            let oldest = (0..self.pool.len())
                .min_by(|&a, &b| self.pool[a].reached_ms.total_cmp(&self.pool[b].reached_ms));
            if let Some(oldest) = oldest {
                self.pool.swap_remove(oldest);
            }
        }
        if self.settings.pool_size > 0 {
            self.pool.push(probe);
        }
    }
}

/// `b_reuse = 1 + delta / ((1 - m/n) r_probe - r_remove)`, rounded up, at
/// least 1; `u32::MAX` (without bound) when the denominator is not positive.
fn reuse_budget(settings: &PrequalSettings, servers: usize) -> u32 {
    let fill = f64::from(settings.pool_size) / servers.max(1) as f64;
    let denominator = (1.0 - fill) * settings.probe_rate - settings.remove_rate;
    if denominator <= 0.0 {
        return u32::MAX;
    }
    let budget = 1.0 + settings.reuse_delta / denominator;
    if budget >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        (libm::ceil(budget) as u32).max(1)
    }
}

impl Balancer for Prequal {
    fn pick(&mut self, request: &Pick, rng: &mut Rng) -> usize {
        self.choose(request.now_ms, rng, None).unwrap_or(0)
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        self.choose(request.now_ms, rng, Some(eligible))
    }

    fn observes_completions(&self) -> bool {
        false
    }

    fn subscribes(&self) -> Subscription {
        let probing = Probing { rtt_ms: self.settings.probe_rtt_ms, cost_ms: self.settings.probe_cost_ms };
        let wakes = self.settings.idle_probe_ms > 0.0;
        Subscription { probes: Some(probing), wakes, ..Subscription::NOTHING }
    }

    fn receive(&mut self, _now_ms: f64, message: &Message) {
        if let Message::ProbeReply { server, reached_ms, in_flight, latency_ms } = *message {
            self.remember_rif(in_flight);
            let latency_ms = latency_ms.unwrap_or(0.0);
            self.pool_reply(Probe { server: server as u32, reached_ms, rif: in_flight, latency_ms, uses: 0 });
        }
    }

    /// Idle since it last picked or was woken: woken `idle-probe-ms` later.
    fn wake_at(&self) -> Option<f64> {
        let idle = self.settings.idle_probe_ms;
        (idle > 0.0).then_some(self.active_ms + idle)
    }

    /// Woken idle, a copy probes as a pick would.
    fn woken(&mut self, now_ms: f64, rng: &mut Rng, to: &mut Vec<usize>) {
        self.send_probes(now_ms, rng, to);
    }

    fn send_probes(&mut self, now_ms: f64, rng: &mut Rng, to: &mut Vec<usize>) {
        self.active_ms = now_ms;
        self.probe_credit += self.settings.probe_rate;
        let whole = libm::floor(self.probe_credit);
        let wanted = (whole as usize).min(self.servers);
        self.probe_credit -= whole;
        if wanted == 0 {
            return;
        }
        let n = self.servers;
        if wanted * 4 <= n {
            // Few of many: draw again on a repeat.
            let start = to.len();
            while to.len() - start < wanted {
                let s = below(rng, n as u64) as usize;
                if !to[start..].contains(&s) {
                    to.push(s);
                }
            }
        } else {
            // Many of few: the first `wanted` of a partial shuffle.
            self.drawn.clear();
            self.drawn.extend(0..n);
            for i in 0..wanted {
                let j = i + below(rng, (n - i) as u64) as usize;
                self.drawn.swap(i, j);
            }
            to.extend_from_slice(&self.drawn[..wanted]);
        }
    }
}

#[cfg(test)]
mod tests;
