//! The fleet over time (docs/model.md#the-fleet-over-time): servers that slow down, fail,
//! crash, recover, join and leave; errors and retries; health as NGINX,
//! HAProxy and Envoy check it; warm-up and slow start.
//!
//! A scenario that uses none of it never comes here: the static engine
//! runs it, byte for byte as before. One that does runs this event loop,
//! which keeps the static engine's servers, queues and summaries and adds
//! what changes over time. At one instant it takes fleet events, then
//! completions and errors, then health probes and timers, then retries,
//! then arrivals (docs/model.md#order-and-weights-in-the-loop); ties within a kind by index.
//!
//! The events are known before the run ([`timeline`]), so, as in the
//! static engine, a request's start and service are fixed when it is
//! dispatched: the condition at its start says whether it does its work,
//! at which speed, or answers a 500. A crash is the one thing that undoes
//! work already fixed: it fails what the server holds at that instant.

mod attempt;
mod availability;
pub mod cache;
mod connections;
pub mod health;
mod state;
pub mod timeline;

use core::cmp::Reverse;

use self::connections::place;
use crate::balancer::Pick;
use crate::events::EventKind;
use crate::num::bits;
use crate::server::AlgorithmRun;
use crate::workload::Workload;

pub(crate) use self::state::State;
pub use self::state::{Attempt, Cause, Logs, Outcome, Probe, Verdict, WeightUpdate};

impl State {
    /// Runs up to `budget` more arrivals; true when the run is over.
    pub(crate) fn advance(&mut self, run: &mut AlgorithmRun, workload: &Workload, budget: u64) -> bool {
        let n = workload.requests.len();
        let end = n.min(run.next.saturating_add(budget as usize));
        loop {
            self.steps += 1;
            let arrival = workload.requests.get(run.next).map_or(f64::INFINITY, |r| r.arrival_ms);
            let event = self.events.get(self.next_event).map_or(f64::INFINITY, |e| e.0);
            let ending = self.ends.peek().map_or(f64::INFINITY, |Reverse((t, _))| f64::from_bits(*t));
            let retry = self.retry_queue.front().map_or(f64::INFINITY, |r| r.0);
            let others = arrival.min(retry);
            if event.is_finite() && event <= ending.min(others) {
                self.fleet_event(run);
            } else if ending.is_finite() && ending <= others {
                self.end_attempt(run, workload);
            } else if others.is_finite() && self.next_health() <= others {
                self.health_step(others.min(event).min(ending));
            } else if retry.is_finite() && retry <= arrival {
                if let Some((t, failed)) = self.retry_queue.pop_front() {
                    deliver_messages(run, t);
                    self.retry(run, workload, t, failed);
                }
            } else if arrival.is_finite() {
                if run.next >= end {
                    return false;
                }
                // The quiet stretch skips what only the general way tells the bus.
                if run.bus.is_none()
                    && (self.unsettled || arrival >= self.recheck_ms)
                    && self.is_quiet(arrival)
                {
                    self.quiet_stretch(run, workload, end, event);
                    continue;
                }
                let index = run.next;
                run.next += 1;
                deliver_messages(run, arrival);
                self.send(run, workload, index as u32, arrival, None);
            } else {
                debug_assert_eq!(self.in_order, n, "every request answered once");
                return true;
            }
        }
    }

    /// Whether nothing but arrivals and their ends can happen at `now` until
    /// the next fleet event: every server a plain, available member for every
    /// copy, with no failure on record, no error, retry, timer or slow-start
    /// ramp pending. Checked again only after something changed.
    fn is_quiet(&mut self, now: f64) -> bool {
        self.unsettled = false;
        self.recheck_ms = f64::INFINITY;
        let mut plain = true;
        for s in 0..self.members.len() {
            let c = self.timeline.at(s, now);
            plain &= c.member && c.slow.is_none() && !c.failing && !c.crashed;
            if let Some(warm) = self.timeline.warm_at(&c).filter(|&warm| now < warm) {
                // Warming up: quiet, if at all, once it is warm.
                plain = false;
                self.recheck_ms = self.recheck_ms.min(warm);
            }
        }
        plain
            && self.retry_queue.is_empty()
            && self.timers.is_empty()
            && self.next_tick.is_infinite()
            && self.health.iter().all(|h| {
                h.unavailable == 0
                    && !h.reshape
                    && h.weights.is_none()
                    && h.pending_errors.iter().all(|&e| e == 0)
                    && (0..self.members.len()).all(|s| h.passive.is_clean(s) && h.outlier.is_clean(s))
            })
    }

    /// Arrivals while the fleet is quiet, until `until` (the next fleet
    /// event) or the budget's `end`: the static engine's work plus the
    /// fleet's per-server series. A request whose end would reach `until`
    /// goes the general way, where the events are looked at.
    fn quiet_stretch(&mut self, run: &mut AlgorithmRun, workload: &Workload, end: usize, until: f64) {
        while run.next < end {
            let request = &workload.requests[run.next];
            let now = request.arrival_ms;
            if now >= until {
                break;
            }
            // Ends first, then probes (all pass: every server is plain).
            while self.ends.peek().is_some_and(|Reverse((t, _))| f64::from_bits(*t) <= now) {
                self.steps += 1;
                self.end_attempt(run, workload);
            }
            while self.probe_ms <= now {
                self.steps += 1;
                self.health_step(now);
            }
            self.steps += 1;
            if self.unsettled {
                // An end changed something after all: back to the general way.
                self.unsettled = true;
                return;
            }
            let index = run.next as u32;
            run.next += 1;
            let pick = Pick { now_ms: now, user: request.user };
            let rng = &mut run.rng;
            let Some((s, c)) = place(
                &mut self.connections,
                request.user,
                usize::from(request.copy),
                now,
                &mut run.copies,
                |rule| Some(rule.pick(&pick, rng)),
            ) else {
                // (A static pick always finds a server; were there none,
                // a 502 at once, as in `send`.)
                self.answer(run, workload, index, now, false, 0.0);
                continue;
            };
            let server = &mut run.servers[s];
            let start = server.start_at(now);
            if start >= until {
                self.dispatch(run, workload, index, c, s, now, None, None);
                continue;
            }
            // Until `until` every server is plain, so the cache is asked.
            let (work, hit) = match &mut self.caches {
                Some(caches) => caches.work(s, request.user, request.work_ms, Self::bucket(run, now)),
                None => (request.work_ms, false),
            };
            let service = work / self.timeline.configured_speed(s);
            let done = start + service;
            if done >= until {
                self.dispatch(run, workload, index, c, s, now, None, Some((work, hit)));
                continue;
            }
            let server = &mut run.servers[s];
            server.occupy(now, start, service);
            server.requests += 1;
            self.requests_series[s][Self::bucket(run, now)] += 1;
            self.sent += 1;
            if self.keep_log {
                self.wait_of[index as usize] = start - now;
                self.record(index, s, c, now, start, done, Outcome::Ok, None, hit);
            } else {
                self.answer(run, workload, index, done, true, start - now);
                if self.observes {
                    self.light_end(index, s, c, done);
                }
            }
        }
    }

    fn fleet_event(&mut self, run: &mut AlgorithmRun) {
        let (t, s, kind) = self.events[self.next_event];
        self.next_event += 1;
        self.unsettled = true;
        // A crashed server's cache is lost and a joining one starts cold;
        // connections close on a crash or a leave (docs/model.md#caches-and-connections).
        if matches!(kind, EventKind::Crash | EventKind::Join) {
            if let Some(caches) = &mut self.caches {
                caches.empty(s);
            }
        }
        if matches!(kind, EventKind::Crash | EventKind::Leave) {
            if let Some(connections) = &mut self.connections {
                connections.close_to(s, t, &mut run.copies);
            }
        }
        match kind {
            EventKind::Crash => self.crash(run, s, t),
            EventKind::Join | EventKind::Leave => {
                self.members[s] = kind == EventKind::Join;
                for c in 0..self.health.len() {
                    self.refresh(c, s, t, false);
                    self.health[c].reshape = true;
                }
            }
            // Slow, fail and recover act through the timeline, at the start
            // of each request.
            EventKind::Slow(_) | EventKind::Fail | EventKind::Recover => {}
        }
    }

    /// Everything the server holds fails now with a connection error.
    fn crash(&mut self, run: &mut AlgorithmRun, s: usize, t: f64) {
        let server = &mut run.servers[s];
        for id in core::mem::take(&mut self.in_flight[s]) {
            let a = &mut self.attempts[id as usize];
            if a.settled {
                continue;
            }
            server.busy_ms -= a.done_ms - a.start_ms.max(t);
            // A queued request never started: it waited until the crash.
            self.wait_of[a.request as usize] -= a.start_ms - a.start_ms.min(t);
            a.start_ms = a.start_ms.min(t);
            a.done_ms = t;
            a.outcome = Outcome::Connection;
            a.aborted = true;
            self.ends.push(Reverse((bits(t), id)));
        }
        let slots = server.slots.len();
        server.slots.clear();
        server.slots.extend((0..slots).map(|_| Reverse(bits(t))));
        server.queue.drop_all(t);
    }
}

/// The bus's messages due by `now`, delivered before a request is sent
/// then (after the instant's fleet events, ends and health probes).
fn deliver_messages(run: &mut AlgorithmRun, now: f64) {
    if let Some(bus) = &mut run.bus {
        bus.deliver(now, &mut run.copies, &mut run.servers);
    }
}
