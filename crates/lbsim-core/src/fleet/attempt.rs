//! One attempt's path: sent through a copy's rule to a server, dispatched
//! (its start, speed, cache and outcome fixed), ended, retried or answered,
//! and summarised in arrival order.

use core::cmp::Reverse;

use super::connections::place;
use super::state::{Attempt, Outcome, State, LIGHT};
use crate::balancer::{Eligible, Pick};
use crate::bus::Served;
use crate::num::bits;
use crate::server::AlgorithmRun;
use crate::workload::Workload;

impl State {
    /// Sends request `index` (again, after `previous`) through its copy.
    pub(super) fn send(
        &mut self,
        run: &mut AlgorithmRun,
        workload: &Workload,
        index: u32,
        now: f64,
        previous: Option<u32>,
    ) {
        let request = &workload.requests[index as usize];
        let c = usize::from(request.copy);
        let r = c.min(run.copies.len() - 1);
        let mut tried = [0u32; 11];
        let mut count = 0;
        let mut at = previous;
        while let Some(a) = at {
            let attempt = &self.attempts[a as usize];
            if count < tried.len() {
                tried[count] = attempt.server;
                count += 1;
            }
            at = attempt.previous;
        }
        let h = &mut self.health[c];
        if let Some(weights) = h.weights.take() {
            self.unsettled = true;
            run.copies[r].reweight(&weights);
        }
        if h.reshape {
            self.unsettled = true;
            h.reshape = false;
            run.copies[r].reshape(&self.members, &h.available);
        }
        let eligible =
            Eligible { available: &h.available, tried: &tried[..count], every_available: h.unavailable == 0 };
        let pick = Pick { now_ms: now, user: request.user };
        let rng = &mut run.rng;
        let placed = place(&mut self.connections, request.user, c, now, &mut run.copies, |rule| {
            rule.pick_eligible(&pick, rng, &eligible)
        });
        let Some((s, c)) = placed else {
            // No live upstream: a 502 at once.
            let wait = self.wait_of[index as usize];
            self.answer(run, workload, index, now, false, wait);
            return;
        };
        if let Some(bus) = &mut run.bus {
            let r = c.min(run.copies.len() - 1);
            bus.picked(now, c, &mut *run.copies[r], &mut run.rng);
            if self.keep_log {
                self.log_weights(now, r, &*run.copies[r]);
            }
        }
        if previous.is_some() {
            self.retries += 1;
        }
        self.dispatch(run, workload, index, c, s, now, previous, None);
    }

    /// Sends attempt `previous`'s successor (or the first attempt) of
    /// request `index` from copy `c` to server `s`, which the rule picked;
    /// `work`: what it does and whether it hit, when its cache was asked.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn dispatch(
        &mut self,
        run: &mut AlgorithmRun,
        workload: &Workload,
        index: u32,
        c: usize,
        s: usize,
        now: f64,
        previous: Option<u32>,
        work: Option<(f64, bool)>,
    ) {
        let request = &workload.requests[index as usize];
        self.health[c].passive.picked(s, now);
        if self.health[c].passive.excludes(s, now) {
            // The trial after a fail timeout: excluded until it answers.
            self.refresh(c, s, now, false);
        }
        let bucket = Self::bucket(run, now);
        self.requests_series[s][bucket] += 1;
        self.sent += 1;
        let server = &mut run.servers[s];
        server.requests += 1;
        let id = self.attempts.len() as u32;
        let condition = self.timeline.at(s, now);
        let mut at_risk = false;
        let mut hit = false;
        let (start, done, outcome) = if condition.crashed {
            (now, now + self.connect_ms, Outcome::Connection)
        } else {
            let start = server.start_at(now);
            let at_start = self.timeline.at(s, start);
            let (service, outcome) = if at_start.failing {
                // A 500 does no work and leaves the cache alone.
                (self.error_ms, Outcome::Http500)
            } else {
                let (work, cached) = match (work, &mut self.caches) {
                    (Some(asked), _) => asked,
                    (None, Some(caches)) => caches.work(s, request.user, request.work_ms, bucket),
                    (None, None) => (request.work_ms, false),
                };
                hit = cached;
                (work / self.timeline.speed(s, start, &at_start), Outcome::Ok)
            };
            let done = start + service;
            if let Some(bus) = &mut run.bus {
                let in_flight = if bus.wants_in_flight() { server.unfinished_at(now) } else { 0 };
                let ok = outcome == Outcome::Ok;
                bus.served(Served {
                    copy: c,
                    server: s,
                    arrival_ms: now,
                    start_ms: start,
                    done_ms: done,
                    ok,
                    in_flight,
                });
            }
            server.occupy(now, start, service);
            // Only a crash undoes a fixed outcome; the crashes are known.
            at_risk = self.crashes[s].iter().any(|&c| c > now && c <= done);
            (start, done, outcome)
        };
        self.wait_of[index as usize] += start - now;
        // Most attempts end as fixed at dispatch and nothing waits for their
        // end: answered now, with no record and no event. An end is an
        // event when it is an error (retries, health), when the rule reads
        // completions, when health watches successes on a server that has
        // had trouble, or when a crash may undo it.
        let event = outcome != Outcome::Ok
            || at_risk
            || self.keep_log
            || (self.observes && previous.is_some())
            || (self.health_watches && !self.success_is_moot(c, s, now, done));
        if !event {
            let wait = self.wait_of[index as usize];
            self.answer(run, workload, index, done, true, wait);
            if self.observes {
                self.light_end(index, s, c, done);
            }
            return;
        }
        if at_risk {
            self.in_flight[s].push(id);
        }
        if outcome != Outcome::Ok {
            self.health[c].pending_errors[s] += 1;
        }
        self.record(index, s, c, now, start, done, outcome, previous, hit);
        // Forget settled attempts now and then, so the list stays the size
        // of what the server holds.
        let list = &mut self.in_flight[s];
        if list.len() >= 64 && list.len().is_power_of_two() {
            let attempts = &self.attempts;
            list.retain(|&a| !attempts[a as usize].settled);
        }
    }

    /// Schedules the end of a first attempt whose outcome is fixed and
    /// answered, for the rule that reads completions only: no record, just
    /// the request and its server.
    pub(super) fn light_end(&mut self, index: u32, s: usize, c: usize, done: f64) {
        self.light_server[index as usize] = s as u32;
        if let Some(copy) = self.light_copy.get_mut(index as usize) {
            *copy = c as u16;
        }
        self.ends.push(Reverse((bits(done), LIGHT | index)));
    }

    /// Keeps an attempt whose end is an event, and schedules the end.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record(
        &mut self,
        index: u32,
        s: usize,
        c: usize,
        now: f64,
        start: f64,
        done: f64,
        outcome: Outcome,
        previous: Option<u32>,
        hit: bool,
    ) {
        let id = self.attempts.len() as u32;
        self.attempts.push(Attempt {
            request: index,
            server: s as u32,
            previous,
            copy: c as u16,
            sent_ms: now,
            start_ms: start,
            done_ms: done,
            outcome,
            aborted: false,
            hit,
            settled: false,
        });
        self.ends.push(Reverse((bits(done), id)));
    }

    /// Whether a success of copy `c` on `s` at `done` would change no health
    /// state: nothing on record now, no error of it on the way, and no
    /// trouble of `s` starting before then, so no error can land first.
    pub(super) fn success_is_moot(&self, c: usize, s: usize, now: f64, done: f64) -> bool {
        let h = &self.health[c];
        h.passive.is_clean(s)
            && h.outlier.is_clean(s)
            && h.pending_errors[s] == 0
            && !self.troubles[s].iter().any(|&t| t > now && t <= done)
    }

    pub(super) fn end_attempt(&mut self, run: &mut AlgorithmRun, workload: &Workload) {
        let Some(Reverse((at, id))) = self.ends.pop() else { return };
        let t = f64::from_bits(at);
        if id & LIGHT != 0 {
            let index = (id & !LIGHT) as usize;
            let request = &workload.requests[index];
            let c = self.light_copy.get(index).map_or(usize::from(request.copy), |&c| usize::from(c));
            let r = c.min(run.copies.len() - 1);
            self.ended(&mut *run.copies[r], self.light_server[index] as usize, t, t - request.arrival_ms);
            return;
        }
        let a = &mut self.attempts[id as usize];
        // A crash re-timed this attempt; its first end is stale.
        if a.settled || bits(a.done_ms) != at {
            return;
        }
        a.settled = true;
        let a = *a;
        let (s, c) = (a.server as usize, usize::from(a.copy));
        let r = c.min(run.copies.len() - 1);
        self.ended(&mut *run.copies[r], s, t, t - a.sent_ms);
        let h = &mut self.health[c];
        if a.outcome == Outcome::Ok {
            // A success changes health state only where a failure is on
            // record; most find none.
            if !(h.passive.is_clean(s) && h.outlier.is_clean(s)) {
                h.passive.succeeded(s);
                h.outlier.succeeded(s);
                self.unsettled = true;
                self.refresh(c, s, t, false);
            }
            let wait = self.wait_of[a.request as usize];
            self.answer(run, workload, a.request, t, true, wait);
            return;
        }
        self.unsettled = true;
        if !a.aborted {
            h.pending_errors[s] -= 1;
        }
        self.server_errors[s] += 1;
        // What counts as failed follows NGINX's proxy_next_upstream:
        // connection errors always, a 500 only with count-5xx.
        let failed = a.outcome == Outcome::Connection || self.count_5xx;
        if failed {
            h.passive.failed(s, t);
            run.copies[r].failed(s);
        }
        // At layer 4 only connection errors are seen (docs/model.md#caches-and-connections).
        if self.connections.is_none() || a.outcome == Outcome::Connection {
            let members = self.members.iter().filter(|&&m| m).count();
            self.health[c].outlier.errored(s, t, members);
        }
        self.refresh(c, s, t, false);
        let mut tries = 1;
        let mut at = a.previous;
        while let Some(p) = at {
            tries += 1;
            at = self.attempts[p as usize].previous;
        }
        if failed && tries <= self.retries_allowed {
            self.retry_queue.push_back((t, id));
        } else {
            let wait = self.wait_of[a.request as usize];
            self.answer(run, workload, a.request, t, false, wait);
        }
    }

    /// A request the rule sent ended: a completion at layer 7; at layer 4
    /// its connection stays open, so only its latency is news.
    pub(super) fn ended(&self, rule: &mut dyn crate::balancer::Balancer, s: usize, t: f64, latency: f64) {
        if self.connections.is_some() {
            rule.observed(s, t, latency);
        } else {
            rule.completed(s, t, latency);
        }
    }

    pub(super) fn retry(&mut self, run: &mut AlgorithmRun, workload: &Workload, t: f64, failed: u32) {
        self.unsettled = true;
        let request = self.attempts[failed as usize].request;
        self.send(run, workload, request, t, Some(failed));
    }

    /// The client gets its final answer for request `index` at `t`.
    /// `wait` is its total wait for slots over its attempts. Answers reach
    /// the summaries in arrival order, as the static engine's do (so sums
    /// round alike): one that comes early waits in `answers`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn answer(
        &mut self,
        run: &mut AlgorithmRun,
        workload: &Workload,
        index: u32,
        t: f64,
        ok: bool,
        wait: f64,
    ) {
        let i = index as usize;
        let latency = t - workload.requests[i].arrival_ms;
        if self.keep_log {
            self.log_answer(index, t, ok);
        }
        if !ok {
            self.errors += 1;
            self.error_series[Self::bucket(run, t)] += 1;
        }
        run.makespan_ms = crate::num::later(run.makespan_ms, t);
        if i != self.in_order {
            self.answers[i] = (latency, ok);
            self.wait_of[i] = wait;
            self.early += 1;
            return;
        }
        self.summarize_answer(run, workload, i, latency, ok, wait);
        self.in_order += 1;
        while self.early > 0 {
            let (latency, ok) = self.answers[self.in_order];
            if latency.is_nan() {
                break;
            }
            let wait = self.wait_of[self.in_order];
            self.summarize_answer(run, workload, self.in_order, latency, ok, wait);
            self.in_order += 1;
            self.early -= 1;
        }
    }

    /// Copy `copy`'s weights after a pick at `now`, logged when they
    /// differ from the last it logged (a replay shows the update).
    #[cold]
    #[inline(never)]
    fn log_weights(&mut self, now: f64, copy: usize, rule: &dyn crate::balancer::Balancer) {
        let Some(weights) = rule.weights() else { return };
        let copy = copy as u32;
        let last = self.weight_updates.iter().rev().find(|u| u.copy == copy);
        if last.is_some_and(|u| u.weights[..] == *weights) {
            return;
        }
        self.weight_updates.push(super::WeightUpdate { at_ms: now, copy, weights: weights.to_vec() });
    }

    /// Out of line: only a replay keeps the log, and the page's module
    /// would otherwise carry the push at every place an answer is given.
    #[cold]
    #[inline(never)]
    fn log_answer(&mut self, index: u32, t: f64, ok: bool) {
        self.answered.push((index, t, ok));
    }

    #[inline(always)]
    pub(super) fn summarize_answer(
        &mut self,
        run: &mut AlgorithmRun,
        workload: &Workload,
        i: usize,
        latency: f64,
        ok: bool,
        wait: f64,
    ) {
        run.latencies[usize::from(workload.requests[i].slow)].push(latency);
        if ok {
            self.ok_latencies.push(bits(latency));
        }
        run.wait_sum += wait;
        if wait > 0.0 {
            run.waits.push(bits(wait));
        }
    }
}
