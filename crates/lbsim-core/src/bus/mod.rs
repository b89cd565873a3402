//! The message bus between servers and balancer copies
//! (docs/model.md#what-a-rule-may-know): the one place both engines, the
//! static loop and the fleet's, turn what happens on the servers into the
//! timed [`Message`]s a rule subscribed to, and deliver them in time order.
//!
//! A run whose rule subscribes to nothing has no bus, so the classic rules
//! run exactly as before. With one, the engine tells the bus of every
//! dispatch ([`Bus::served`]) and of every pick ([`Bus::picked`], which
//! collects the rule's probes), and asks it to deliver everything due
//! before each arrival ([`Bus::deliver`]). What the bus needs of the
//! servers (requests in flight, a free slot, time spent on a probe) it
//! asks through [`Servers`], so it knows nothing of either loop.
//!
//! At one instant the bus takes, in this order: request starts, request
//! ends (with per-call load reports and idle announcements), the end of a
//! report period (out-of-band reports), probes reaching servers, probe
//! replies; ties within a kind in the order they were scheduled. Every
//! draw (the copies an idle server samples) comes from the bus's own
//! stream, so the run is deterministic.
//!
//! A start is no event: a server's meter counts its starts when it next
//! reads its figures (at an end or a period's close), in time order, the
//! same sums as when each start was its own event. A rule that hears load
//! reports alone has its ends in a heap of plain integers (time, order,
//! copy, server, outcome), since nothing rides on them but the report.

use alloc::boxed::Box;
#[cfg(feature = "current-rules")]
use alloc::collections::{BinaryHeap, VecDeque};
#[cfg(feature = "current-rules")]
use alloc::vec::Vec;
#[cfg(feature = "current-rules")]
use core::cmp::{Ordering, Reverse};

#[cfg(feature = "current-rules")]
use crate::balancer::{below, Message};
use crate::balancer::{Balancer, Rng, Subscription};
#[cfg(feature = "current-rules")]
use crate::num::bits;

#[cfg(feature = "current-rules")]
mod estimate;
#[cfg(feature = "current-rules")]
mod meter;
#[cfg(feature = "current-rules")]
use estimate::Recent;
#[cfg(feature = "current-rules")]
use meter::Meter;

/// What the bus asks of the servers, at an instant all arrivals before
/// which have been dispatched.
// Without `current-rules` only the stand-in bus reads these.
#[cfg_attr(not(feature = "current-rules"), allow(dead_code))]
pub(crate) trait Servers {
    /// Requests `server` holds at `t` (running and queued).
    fn in_flight_at(&self, server: usize, t: f64) -> u32;
    /// Whether `server` has a slot free at `t`.
    fn free_at(&self, server: usize, t: f64) -> bool;
    /// `server` spends `ms` of its time at `t` outside any slot (answering
    /// a probe): its earliest slot frees that much later.
    fn spend(&mut self, server: usize, t: f64, ms: f64);
    /// Slots a server has.
    fn slots(&self) -> u32;
}

#[cfg(feature = "current-rules")]
/// What happens at an instant, in the order the bus takes kinds at one.
#[derive(Clone, Copy, Debug)]
enum What {
    End {
        server: u32,
        copy: u32,
        ok: bool,
        arrived_in_flight: u32,
        latency_ms: f64,
    },
    Announce {
        server: u32,
    },
    Period,
    Reach {
        server: u32,
        copy: u32,
    },
    /// A reply waiting in [`Bus::replies`] (kept apart so events stay small
    /// to move in the heap).
    Reply {
        copy: u32,
        reply: u32,
    },
    /// A copy's wake-up, if [`Bus::wakes`] still holds it due then.
    Wake {
        copy: u32,
    },
}

#[cfg(feature = "current-rules")]
impl What {
    fn rank(&self) -> u8 {
        match self {
            What::End { .. } | What::Announce { .. } => 1,
            What::Period => 2,
            What::Reach { .. } => 3,
            What::Reply { .. } => 4,
            What::Wake { .. } => 5,
        }
    }
}

#[cfg(feature = "current-rules")]
#[derive(Clone, Copy, Debug)]
struct Event {
    at: u64,
    rank: u8,
    seq: u64,
    what: What,
}

#[cfg(feature = "current-rules")]
impl Event {
    fn key(&self) -> (u64, u8, u64) {
        (self.at, self.rank, self.seq)
    }
}

#[cfg(feature = "current-rules")]
impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
#[cfg(feature = "current-rules")]
impl Eq for Event {}
#[cfg(feature = "current-rules")]
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
#[cfg(feature = "current-rules")]
impl Ord for Event {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

#[cfg(feature = "current-rules")]
/// One run's messages on their way.
pub(crate) struct Bus {
    subscription: Subscription,
    events: BinaryHeap<Reverse<Event>>,
    /// With load reports alone: the ends, as [`end_key`]s, apart from
    /// `events` (which then holds only the periods' closes).
    ends: Option<BinaryHeap<Reverse<u128>>>,
    /// Probes on their way and their replies: sent in time order a fixed
    /// half round trip ahead, each kind is due in the order it was
    /// scheduled, so a queue keeps it instead of the heap (an event
    /// scheduled before the last of its queue goes to the heap).
    reaches: VecDeque<Event>,
    answers: VecDeque<Event>,
    seq: u64,
    meters: Vec<Meter>,
    /// Each server's recent requests, for probe replies (empty without probes).
    recents: Vec<Recent>,
    rng: Rng,
    probes: Vec<usize>,
    /// Probe replies on their way, and the free places among them.
    replies: Vec<Message>,
    free_replies: Vec<u32>,
    /// No period ends after this (the last arrival), so a run's bus runs dry.
    horizon_ms: f64,
    /// Slots a server has, as the servers said at the last delivery (0
    /// before any).
    slots: u32,
    /// Probes as they reached their servers, up to a cap, when a replay
    /// keeps them.
    seen: Option<(Vec<crate::balancer::ProbeTrip>, usize)>,
    /// Each copy's wake-up (grown as copies ask; empty without wake-ups).
    wakes: Vec<Wake>,
}

#[cfg(feature = "current-rules")]
/// A copy's wake-up: when it is due, and the time of its one event in the
/// heap. A pick that moves it later costs no heap work: the earlier event,
/// when it comes, finds it moved and goes back in at the new time.
#[derive(Clone, Copy, Debug)]
struct Wake {
    due: f64,
    queued: Option<u64>,
}

/// Without the `current-rules` feature no rule subscribes to anything, so
/// there is never a bus: this stand-in lets both loops keep their calls,
/// which fold away, and keeps the bus's code out of the page's first module.
#[cfg(not(feature = "current-rules"))]
pub(crate) struct Bus;

#[cfg(not(feature = "current-rules"))]
impl Bus {
    pub(crate) fn new(_: Subscription, _: usize, _: f64, _: Rng) -> Option<Box<Bus>> {
        None
    }
    pub(crate) fn wants_in_flight(&self) -> bool {
        false
    }
    pub(crate) fn served(&mut self, _: Served) {}
    pub(crate) fn picked(&mut self, _: f64, _: usize, _: &mut dyn Balancer, _: &mut Rng) {}
    pub(crate) fn deliver(&mut self, _: f64, _: &mut [Box<dyn Balancer>], _: &mut dyn Servers) {}
    #[cfg(feature = "replay")]
    pub(crate) fn keep_probes(&mut self, _: usize) {}
    #[cfg(feature = "replay")]
    pub(crate) fn take_probes(&mut self) -> alloc::vec::Vec<crate::balancer::ProbeTrip> {
        alloc::vec::Vec::new()
    }
}

/// One dispatch, as the bus hears of it.
// Without `current-rules` only the stand-in bus reads these.
#[cfg_attr(not(feature = "current-rules"), allow(dead_code))]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Served {
    pub(crate) copy: usize,
    pub(crate) server: usize,
    pub(crate) arrival_ms: f64,
    pub(crate) start_ms: f64,
    pub(crate) done_ms: f64,
    pub(crate) ok: bool,
    /// Requests the server held when this one arrived (read only for
    /// probe replies' latency estimate).
    pub(crate) in_flight: u32,
}

#[cfg(feature = "current-rules")]
impl Bus {
    /// A bus for a rule that subscribes to `subscription`, over `servers`
    /// servers; `None` when it subscribes to nothing.
    pub(crate) fn new(
        subscription: Subscription,
        servers: usize,
        horizon_ms: f64,
        rng: Rng,
    ) -> Option<Box<Bus>> {
        if !subscription.any() {
            return None;
        }
        let period = subscription.load_reports.map_or(f64::INFINITY, |r| r.period_ms);
        let meter = Meter { period_end_ms: period, ..Meter::default() };
        let reports_alone = subscription.probes.is_none() && subscription.idle.is_none();
        let mut bus = Bus {
            subscription,
            events: BinaryHeap::new(),
            ends: reports_alone.then(BinaryHeap::new),
            reaches: VecDeque::new(),
            answers: VecDeque::new(),
            seq: 0,
            meters: alloc::vec![meter; servers],
            recents: if subscription.probes.is_some() {
                alloc::vec![Recent::default(); servers]
            } else {
                Vec::new()
            },
            rng,
            probes: Vec::new(),
            replies: Vec::new(),
            free_replies: Vec::new(),
            horizon_ms,
            slots: 0,
            seen: None,
            wakes: Vec::new(),
        };
        if subscription.idle.is_some() {
            // Every server starts idle, and says so at once.
            for server in 0..servers {
                bus.push(0.0, What::Announce { server: server as u32 });
            }
        }
        if subscription.load_reports.is_some_and(|r| r.out_of_band) && period <= horizon_ms {
            bus.push(period, What::Period);
        }
        Some(Box::new(bus))
    }

    fn push(&mut self, t: f64, what: What) {
        self.seq += 1;
        let event = Event { at: bits(t), rank: what.rank(), seq: self.seq, what };
        let queue = match what {
            What::Reach { .. } => &mut self.reaches,
            What::Reply { .. } => &mut self.answers,
            _ => {
                self.events.push(Reverse(event));
                return;
            }
        };
        if queue.back().is_none_or(|last| last.at <= event.at) {
            queue.push_back(event);
        } else {
            self.events.push(Reverse(event));
        }
    }

    /// The next event due at or before `until`, taken off its queue: the
    /// earliest of the heap's and the probe queues' by (time, kind, order).
    fn next_due(&mut self, until: u64) -> Option<Event> {
        // An empty queue's key is later than any event's (no time's bits
        // are all ones), so three plain compares choose, with no options
        // to unwrap on the way: it runs once a message.
        const EMPTY: (u64, u8, u64) = (u64::MAX, u8::MAX, u64::MAX);
        let heap = self.events.peek().map_or(EMPTY, |Reverse(e)| e.key());
        let reach = self.reaches.front().map_or(EMPTY, Event::key);
        let answer = self.answers.front().map_or(EMPTY, Event::key);
        if heap <= reach && heap <= answer {
            if heap.0 > until {
                return None;
            }
            self.events.pop().map(|Reverse(e)| e)
        } else if reach <= answer {
            if reach.0 > until {
                return None;
            }
            self.reaches.pop_front()
        } else {
            if answer.0 > until {
                return None;
            }
            self.answers.pop_front()
        }
    }

    /// Keeps the first `cap` probes as they reach their servers (a replay
    /// shows them).
    #[cfg(feature = "replay")]
    pub(crate) fn keep_probes(&mut self, cap: usize) {
        self.seen = Some((Vec::new(), cap));
    }

    /// The probes kept, in the order they reached their servers.
    #[cfg(feature = "replay")]
    pub(crate) fn take_probes(&mut self) -> Vec<crate::balancer::ProbeTrip> {
        self.seen.take().map(|(probes, _)| probes).unwrap_or_default()
    }

    /// Whether the bus needs a request's in-flight count on arrival.
    pub(crate) fn wants_in_flight(&self) -> bool {
        self.subscription.probes.is_some()
    }

    /// A request was dispatched: it starts and ends as fixed.
    #[inline]
    pub(crate) fn served(&mut self, served: Served) {
        let meter = &mut self.meters[served.server];
        // Assigned a request, a server leaves the idle queue it was in.
        meter.idle_in = None;
        if let Some(reporting) = self.subscription.load_reports {
            if served.start_ms <= served.arrival_ms && self.slots > 0 {
                // Started on arrival: after all of its server's due by then
                // (delivered before the pick), so counted at once.
                meter.count_starts(served.start_ms, reporting.period_ms, self.slots);
                meter.advance(served.start_ms, reporting.period_ms, self.slots);
                meter.running += 1;
            } else {
                meter.started(served.start_ms);
            }
        }
        if let Some(ends) = &mut self.ends {
            self.seq += 1;
            ends.push(Reverse(end_key(served.done_ms, self.seq, served.copy, served.server, served.ok)));
            return;
        }
        let latency_ms = served.done_ms - served.arrival_ms;
        self.push(
            served.done_ms,
            What::End {
                server: served.server as u32,
                copy: served.copy as u32,
                ok: served.ok,
                arrived_in_flight: served.in_flight,
                latency_ms,
            },
        );
    }

    /// Copy `copy`'s rule picked at `now`: the probes it sends go out.
    #[inline]
    pub(crate) fn picked(&mut self, now: f64, copy: usize, rule: &mut dyn Balancer, rng: &mut Rng) {
        let Some(probing) = self.subscription.probes else { return };
        let mut probes = core::mem::take(&mut self.probes);
        rule.send_probes(now, rng, &mut probes);
        for server in probes.drain(..) {
            self.push(now + probing.rtt_ms / 2.0, What::Reach { server: server as u32, copy: copy as u32 });
        }
        self.probes = probes;
        if self.subscription.wakes {
            self.wake(copy, rule.wake_at());
        }
    }

    /// Copy `copy` asks to be woken at `at` (`None`: not at all); none
    /// after the last arrival, when no copy picks again.
    fn wake(&mut self, copy: usize, at: Option<f64>) {
        if self.wakes.len() <= copy {
            self.wakes.resize(copy + 1, Wake { due: f64::INFINITY, queued: None });
        }
        let due = at.filter(|&at| at <= self.horizon_ms).unwrap_or(f64::INFINITY);
        let wake = &mut self.wakes[copy];
        wake.due = due;
        if due.is_finite() && wake.queued.is_none_or(|queued| bits(due) < queued) {
            wake.queued = Some(bits(due));
            self.push(due, What::Wake { copy: copy as u32 });
        }
    }

    /// Delivers every message due at or before `until`, in time order.
    pub(crate) fn deliver(
        &mut self,
        until: f64,
        copies: &mut [Box<dyn Balancer>],
        servers: &mut dyn Servers,
    ) {
        let until = bits(until);
        if let Some(ends) = &self.ends {
            // Most arrivals find nothing due.
            let end = ends.peek().map_or(u64::MAX, |&Reverse(key)| (key >> 64) as u64);
            let close = self.events.peek().map_or(u64::MAX, |Reverse(e)| e.at);
            if end.min(close) > until {
                return;
            }
        }
        let slots = servers.slots();
        self.slots = slots;
        let period = self.subscription.load_reports.map_or(f64::INFINITY, |r| r.period_ms);
        if self.ends.is_some() {
            self.deliver_reports(until, copies, slots, period);
            return;
        }
        while let Some(event) = self.next_due(until) {
            let t = f64::from_bits(event.at);
            let copy_of = |c: u32| (c as usize).min(copies.len() - 1);
            match event.what {
                What::End { server, copy, ok, arrived_in_flight, latency_ms } => {
                    let s = server as usize;
                    let meter = &mut self.meters[s];
                    if self.subscription.load_reports.is_some() {
                        meter.ended(t, ok, period, slots);
                    }
                    if let Some(recent) = self.recents.get_mut(s) {
                        recent.finished(arrived_in_flight, latency_ms);
                    }
                    if self.subscription.load_reports.is_some_and(|r| !r.out_of_band) {
                        copies[copy_of(copy)].receive(t, &meter.report(s));
                    }
                    self.announce(s, t, copies, &*servers);
                }
                What::Announce { server } => self.announce(server as usize, t, copies, &*servers),
                What::Period => self.close_period(t, copies, slots, period),
                What::Reach { server, copy } => {
                    let s = server as usize;
                    let Some(probing) = self.subscription.probes else { continue };
                    let in_flight = servers.in_flight_at(s, t);
                    let latency_ms = self.recents[s].estimate(in_flight);
                    if probing.cost_ms > 0.0 {
                        servers.spend(s, t, probing.cost_ms);
                    }
                    if let Some((seen, _)) = self.seen.as_mut().filter(|(seen, cap)| seen.len() < *cap) {
                        let half = probing.rtt_ms / 2.0;
                        seen.push(crate::balancer::ProbeTrip {
                            copy,
                            server,
                            sent_ms: t - half,
                            reached_ms: t,
                            replied_ms: t + half,
                            in_flight,
                            latency_ms,
                        });
                    }
                    let message = Message::ProbeReply { server: s, reached_ms: t, in_flight, latency_ms };
                    let reply = match self.free_replies.pop() {
                        Some(free) => {
                            self.replies[free as usize] = message;
                            free
                        }
                        None => {
                            self.replies.push(message);
                            (self.replies.len() - 1) as u32
                        }
                    };
                    self.push(t + probing.rtt_ms / 2.0, What::Reply { copy, reply });
                }
                What::Reply { copy, reply } => {
                    self.free_replies.push(reply);
                    copies[copy_of(copy)].receive(t, &self.replies[reply as usize]);
                }
                What::Wake { copy } => {
                    let c = copy as usize;
                    if self.wakes[c].queued != Some(event.at) {
                        // A wake-up moved earlier since: its own event holds it.
                        continue;
                    }
                    self.wakes[c].queued = None;
                    let due = self.wakes[c].due;
                    if due > t {
                        self.wake(c, Some(due));
                        continue;
                    }
                    let rule = copies[copy_of(copy)].as_mut();
                    let mut probes = core::mem::take(&mut self.probes);
                    rule.woken(t, &mut self.rng, &mut probes);
                    if let Some(probing) = self.subscription.probes {
                        for server in probes.drain(..) {
                            self.push(t + probing.rtt_ms / 2.0, What::Reach { server: server as u32, copy });
                        }
                    }
                    probes.clear();
                    self.probes = probes;
                    // Only later: a rule that asks for now again is not
                    // woken twice at one instant.
                    self.wake(c, rule.wake_at().filter(|&at| at > t));
                }
            }
        }
    }

    /// Delivers, for a rule that hears load reports alone, the ends and
    /// periods' closes due at or before `until`: an end before a close at
    /// the same instant, as in [`Bus::deliver`].
    fn deliver_reports(&mut self, until: u64, copies: &mut [Box<dyn Balancer>], slots: u32, period: f64) {
        let per_call = self.subscription.load_reports.is_some_and(|r| !r.out_of_band);
        loop {
            let close = self.events.peek().map(|Reverse(e)| e.at);
            let end = self.ends.as_ref().and_then(|ends| ends.peek()).map(|&Reverse(key)| key);
            match end {
                Some(key) if ((key >> 64) as u64) <= until.min(close.unwrap_or(u64::MAX)) => {
                    self.ends.as_mut().map(BinaryHeap::pop);
                    let (t, copy, server, ok) = end_of(key);
                    let meter = &mut self.meters[server];
                    meter.ended(t, ok, period, slots);
                    if per_call {
                        copies[copy.min(copies.len() - 1)].receive(t, &meter.report(server));
                    }
                }
                _ => match close {
                    Some(at) if at <= until => {
                        self.events.pop();
                        self.close_period(f64::from_bits(at), copies, slots, period);
                    }
                    _ => return,
                },
            }
        }
    }

    /// A report period closes at `t`: every server sends its figures to
    /// every copy, and the next close is due a period later.
    fn close_period(&mut self, t: f64, copies: &mut [Box<dyn Balancer>], slots: u32, period: f64) {
        for s in 0..self.meters.len() {
            self.meters[s].close_until(t, period, slots);
            let report = self.meters[s].report(s);
            for copy in copies.iter_mut() {
                copy.receive(t, &report);
            }
        }
        if t + period <= self.horizon_ms {
            self.push(t + period, What::Period);
        }
    }

    /// `server` at `t`: if it has a free slot and is in no idle queue, it
    /// joins one copy's, the shortest of those it samples.
    fn announce(&mut self, server: usize, t: f64, copies: &mut [Box<dyn Balancer>], servers: &dyn Servers) {
        let Some(joining) = self.subscription.idle else { return };
        if self.meters[server].idle_in.is_some() || !servers.free_at(server, t) {
            return;
        }
        let n = copies.len() as u64;
        let mut best = below(&mut self.rng, n) as usize;
        for _ in 1..joining.sampled.max(1) {
            let c = below(&mut self.rng, n) as usize;
            if copies[c].idle_queue() < copies[best].idle_queue() {
                best = c;
            }
        }
        self.meters[server].idle_in = Some(best as u32);
        copies[best].receive(t, &Message::Idle { server });
    }
}

/// An end as one integer, so the heap compares without branching (as the
/// engine's completions, `server::completion`): its time's bits, then the
/// order it was scheduled in (its low 32 bits: ends at one instant are
/// over 2^32 schedulings apart only in runs far past the `requests`
/// field's range), the copy, the server (both at most 1,024 by the
/// fields' ranges: 15 and 16 bits) and the outcome.
#[cfg(feature = "current-rules")]
fn end_key(done_ms: f64, seq: u64, copy: usize, server: usize, ok: bool) -> u128 {
    (u128::from(bits(done_ms)) << 64)
        | (u128::from(seq as u32) << 32)
        | ((copy.min(0x7fff) as u128) << 17)
        | ((server as u128 & 0xffff) << 1)
        | u128::from(ok)
}

/// An [`end_key`]'s time, copy, server and outcome.
#[cfg(feature = "current-rules")]
fn end_of(key: u128) -> (f64, usize, usize, bool) {
    let low = key as u32;
    (f64::from_bits((key >> 64) as u64), (low >> 17) as usize, ((low >> 1) & 0xffff) as usize, low & 1 == 1)
}

#[cfg(feature = "current-rules")]
#[cfg(test)]
mod tests;
