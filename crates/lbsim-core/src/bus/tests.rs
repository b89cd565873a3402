//! The bus's tests: each message kind delivered when and where the
//! bus's contract (the module's doc) says.

use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::RefCell;

use rand::SeedableRng;

use super::estimate::RECENT;
use super::*;
use crate::balancer::{Eligible, Joining, Pick, Probing, Reporting};

/// Servers whose figures a test sets.
struct Fixed {
    in_flight: u32,
    free: bool,
    spent_ms: f64,
}

impl Servers for Fixed {
    fn in_flight_at(&self, _server: usize, _t: f64) -> u32 {
        self.in_flight
    }
    fn free_at(&self, _server: usize, _t: f64) -> bool {
        self.free
    }
    fn spend(&mut self, _server: usize, _t: f64, ms: f64) {
        self.spent_ms += ms;
    }
    fn slots(&self) -> u32 {
        1
    }
}

type Log = Rc<RefCell<Vec<(f64, Message)>>>;

/// A rule that hears `subscription`, writes down what it hears in its
/// log and probes server 2 after each pick.
struct Listener {
    subscription: Subscription,
    log: Log,
}

impl Balancer for Listener {
    fn pick(&mut self, _request: &Pick, _rng: &mut Rng) -> usize {
        0
    }
    fn pick_eligible(&mut self, _request: &Pick, _rng: &mut Rng, _eligible: &Eligible) -> Option<usize> {
        Some(0)
    }
    fn subscribes(&self) -> Subscription {
        self.subscription
    }
    fn receive(&mut self, now_ms: f64, message: &Message) {
        self.log.borrow_mut().push((now_ms, *message));
    }
    fn send_probes(&mut self, _now_ms: f64, _rng: &mut Rng, to: &mut Vec<usize>) {
        to.push(2);
    }
    fn idle_queue(&self) -> usize {
        self.log.borrow().iter().filter(|(_, m)| matches!(m, Message::Idle { .. })).count()
    }
}

fn copies(subscription: Subscription, n: usize) -> (Vec<Box<dyn Balancer>>, Vec<Log>) {
    let logs: Vec<Log> = (0..n).map(|_| Log::default()).collect();
    let rules = logs
        .iter()
        .map(|log| Box::new(Listener { subscription, log: log.clone() }) as Box<dyn Balancer>)
        .collect();
    (rules, logs)
}

fn count(logs: &[Log]) -> Vec<usize> {
    logs.iter().map(|log| log.borrow().len()).collect()
}

fn last(log: &Log) -> (f64, Message) {
    *log.borrow().last().expect("heard something")
}

fn idle_servers(log: &Log) -> Vec<usize> {
    log.borrow()
        .iter()
        .filter_map(|(_, m)| match m {
            Message::Idle { server } => Some(*server),
            _ => None,
        })
        .collect()
}

#[test]
fn a_rule_that_subscribes_to_nothing_has_no_bus() {
    assert!(Bus::new(Subscription::NOTHING, 4, 1_000.0, Rng::seed_from_u64(1)).is_none());
}

/// A probe sent at 10 with a round trip of 4 reaches the server at 12,
/// and its reply, with the server's figures at 12, comes at 14; the
/// probe's cost is the server's time.
#[test]
fn a_probe_reply_carries_the_server_as_the_probe_found_it_a_round_trip_later() {
    let subscription =
        Subscription { probes: Some(Probing { rtt_ms: 4.0, cost_ms: 0.25 }), ..Subscription::NOTHING };
    let mut bus = Bus::new(subscription, 3, 1_000.0, Rng::seed_from_u64(1)).expect("subscribed");
    let (mut rules, logs) = copies(subscription, 2);
    let mut rng = Rng::seed_from_u64(2);
    bus.picked(10.0, 1, rules[1].as_mut(), &mut rng);
    let mut servers = Fixed { in_flight: 0, free: true, spent_ms: 0.0 };
    bus.deliver(11.9, &mut rules, &mut servers);
    servers.in_flight = 7;
    bus.deliver(12.0, &mut rules, &mut servers);
    servers.in_flight = 9;
    assert_eq!(servers.spent_ms, 0.25, "the probe reached the server at 12 and cost it 0.25 ms");
    bus.deliver(13.9, &mut rules, &mut servers);
    assert_eq!(count(&logs), [0, 0], "no reply before 14");
    bus.deliver(14.0, &mut rules, &mut servers);
    assert_eq!(count(&logs), [0, 1], "the reply goes to the copy that probed");
    assert_eq!(
        last(&logs[1]),
        (14.0, Message::ProbeReply { server: 2, reached_ms: 12.0, in_flight: 7, latency_ms: None })
    );
}

/// One slot, a report period of 200 ms: requests busy 0 to 50 and 100
/// to 150 make the period's utilization 100 / 200 and its rate 2 in
/// 0.2 s; a completion in the next period brings those figures to the
/// copy whose request it was.
#[test]
fn a_per_call_load_report_carries_the_last_closed_period() {
    let subscription = Subscription {
        load_reports: Some(Reporting { period_ms: 200.0, out_of_band: false }),
        ..Subscription::NOTHING
    };
    let mut bus = Bus::new(subscription, 1, 1_000.0, Rng::seed_from_u64(1)).expect("subscribed");
    let (mut rules, logs) = copies(subscription, 2);
    let served = |copy, arrival_ms, done_ms, ok| Served {
        copy,
        server: 0,
        arrival_ms,
        start_ms: arrival_ms,
        done_ms,
        ok,
        in_flight: 0,
    };
    bus.served(served(0, 0.0, 50.0, true));
    bus.served(served(0, 100.0, 150.0, false));
    bus.served(served(1, 210.0, 230.0, true));
    let mut servers = Fixed { in_flight: 0, free: false, spent_ms: 0.0 };
    bus.deliver(229.0, &mut rules, &mut servers);
    assert_eq!(count(&logs), [2, 0]);
    bus.deliver(230.0, &mut rules, &mut servers);
    assert_eq!(
        last(&logs[1]),
        (230.0, Message::LoadReport { server: 0, qps: 10.0, eps: 5.0, utilization: 0.5 })
    );
}

/// Out of band: at each period's end every copy hears every server.
#[test]
fn out_of_band_reports_reach_every_copy_every_period() {
    let subscription = Subscription {
        load_reports: Some(Reporting { period_ms: 100.0, out_of_band: true }),
        ..Subscription::NOTHING
    };
    let mut bus = Bus::new(subscription, 2, 250.0, Rng::seed_from_u64(1)).expect("subscribed");
    let (mut rules, logs) = copies(subscription, 3);
    let mut servers = Fixed { in_flight: 0, free: false, spent_ms: 0.0 };
    bus.deliver(1e9, &mut rules, &mut servers);
    assert_eq!(count(&logs), [4, 4, 4], "periods end at 100 and 200 (250 is the last arrival)");
}

/// Every server announces itself at 0 to one copy; a server that
/// finishes with a free slot and is in no queue announces again, one
/// in a queue does not, and one assigned a request leaves its queue.
/// With `sampled` = 3 of 3 copies the shortest queue takes it.
#[test]
fn an_idle_server_joins_one_copy_and_the_shortest_of_those_sampled() {
    let subscription = Subscription { idle: Some(Joining { sampled: 3 }), ..Subscription::NOTHING };
    let mut bus = Bus::new(subscription, 3, 1_000.0, Rng::seed_from_u64(1)).expect("subscribed");
    let (mut rules, logs) = copies(subscription, 3);
    let mut servers = Fixed { in_flight: 0, free: true, spent_ms: 0.0 };
    bus.deliver(0.0, &mut rules, &mut servers);
    let mut counts = count(&logs);
    counts.sort_unstable();
    assert_eq!(counts, [1, 1, 1], "three servers over three copies, the shortest each time");
    let holder = (0..3).find(|&c| idle_servers(&logs[c]).contains(&1)).expect("s1 joined one");
    bus.served(Served {
        copy: holder,
        server: 1,
        arrival_ms: 1.0,
        start_ms: 1.0,
        done_ms: 5.0,
        ok: true,
        in_flight: 0,
    });
    bus.served(Served {
        copy: holder,
        server: 1,
        arrival_ms: 1.0,
        start_ms: 1.0,
        done_ms: 5.5,
        ok: true,
        in_flight: 0,
    });
    bus.deliver(5.5, &mut rules, &mut servers);
    assert_eq!(count(&logs).iter().sum::<usize>(), 4, "s1 finished idle and joined again, once");
    bus.served(Served {
        copy: 0,
        server: 1,
        arrival_ms: 6.0,
        start_ms: 6.0,
        done_ms: 8.0,
        ok: true,
        in_flight: 0,
    });
    servers.free = false;
    bus.deliver(8.0, &mut rules, &mut servers);
    assert_eq!(count(&logs).iter().sum::<usize>(), 4, "no free slot at 8: no announcement");
}

/// The latency estimate a probe reply carries: of the recent finished
/// requests, the nearer half by in-flight count on arrival, and the median
/// latency of those (the lower middle of an even count). Kept: (RIF 0,
/// 10 ms), (1, 20), (5, 90), (6, 70), (7, 80), (2, 30); asked at RIF 6,
/// the nearest three are 6, 5 and 7 (70, 90, 80 ms): median 80 ms; at
/// RIF 1: 1, 0 and 2 (20, 10, 30): 20 ms.
#[test]
fn a_servers_latency_estimate_is_the_median_of_the_nearest_half() {
    let mut recent = Recent::default();
    for (rif, latency) in [(0, 10.0), (1, 20.0), (5, 90.0), (6, 70.0), (7, 80.0), (2, 30.0)] {
        recent.finished(rif, latency);
    }
    assert_eq!(recent.latency_near(6), Some(80.0));
    assert_eq!(recent.latency_near(1), Some(20.0));
    let mut one = Recent::default();
    one.finished(3, 40.0);
    assert_eq!(one.latency_near(100), Some(40.0), "one kept: it is the estimate");
    assert_eq!(Recent::default().latency_near(0), None);
}

/// The definition read literally: every kept request keyed by (distance
/// of its in-flight count, latency), sorted, the nearer half taken, its
/// latencies sorted and the lower middle read.
fn nearest_half_median(kept: &[(u32, f64)], in_flight: u32) -> Option<f64> {
    let mut by_distance: Vec<(u32, f64)> =
        kept.iter().map(|&(rif, latency)| (rif.abs_diff(in_flight), latency)).collect();
    by_distance.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    by_distance.truncate(kept.len().div_ceil(2));
    let mut latencies: Vec<f64> = by_distance.iter().map(|&(_, latency)| latency).collect();
    latencies.sort_by(f64::total_cmp);
    latencies.get(latencies.len().saturating_sub(1) / 2).copied()
}

/// The estimate kept incrementally (sorted as requests finish, a walk
/// outward from the count asked) equals the literal definition on every
/// question, over many finished requests with few distinct counts and
/// repeated latencies, so ties on both sides of the count are met.
#[test]
fn the_latency_estimate_kept_as_requests_finish_is_the_definitions() {
    let mut rng = Rng::seed_from_u64(7);
    let mut recent = Recent::default();
    let mut kept: Vec<(u32, f64)> = Vec::new();
    for finished in 0..2_000usize {
        let rif = below(&mut rng, 9) as u32;
        let latency = (below(&mut rng, 6) * 5) as f64;
        recent.finished(rif, latency);
        if kept.len() < RECENT {
            kept.push((rif, latency));
        } else {
            kept[finished % RECENT] = (rif, latency);
        }
        for asked in 0..12 {
            assert_eq!(
                recent.latency_near(asked),
                nearest_half_median(&kept, asked),
                "after {} finished, asked at {asked}, kept {kept:?}",
                finished + 1
            );
        }
    }
}

/// Probes wait in queues of their own (due in the order sent) beside the
/// heap, and the bus still takes every event in time order: a probe
/// scheduled earlier than the last one queued (a shorter way, here a
/// probe sent at an earlier instant after a later one) is delivered first.
#[test]
fn probes_and_replies_come_in_time_order_whatever_order_they_were_sent_in() {
    let subscription =
        Subscription { probes: Some(Probing { rtt_ms: 2.0, cost_ms: 0.0 }), ..Subscription::NOTHING };
    let mut bus = Bus::new(subscription, 3, 1_000.0, Rng::seed_from_u64(1)).expect("subscribed");
    let (mut rules, logs) = copies(subscription, 1);
    let mut rng = Rng::seed_from_u64(2);
    bus.picked(10.0, 0, rules[0].as_mut(), &mut rng);
    bus.picked(5.0, 0, rules[0].as_mut(), &mut rng);
    bus.picked(12.0, 0, rules[0].as_mut(), &mut rng);
    let mut servers = Fixed { in_flight: 0, free: true, spent_ms: 0.0 };
    bus.deliver(7.0, &mut rules, &mut servers);
    assert_eq!(count(&logs), [1], "by 7 only the probe sent at 5 is back");
    bus.deliver(100.0, &mut rules, &mut servers);
    let heard: Vec<(f64, f64)> = logs[0]
        .borrow()
        .iter()
        .map(|(t, m)| match m {
            Message::ProbeReply { reached_ms, .. } => (*t, *reached_ms),
            _ => (f64::NAN, f64::NAN),
        })
        .collect();
    assert_eq!(heard, [(7.0, 6.0), (12.0, 11.0), (14.0, 13.0)]);
}

/// Prequal probes "at `probe-rate` a query and after an idle time"
/// (docs/model.md#prequal; the interval is lbsim's choice, `idle-probe-ms`):
/// a copy that picked at 0, with 3 probes a pick and an idle interval of
/// 100 ms, is woken idle at 100, 200 and 300 and probes 3 servers each
/// time, as a pick would; a pick at 350 moves its next wake-up to 450, so
/// nothing is sent at 400. Each probe costs its server 0.25 ms, so the
/// servers' time spent counts the probes that reached them.
#[test]
fn an_idle_prequal_copy_probes_every_idle_interval_until_it_picks_again() {
    use crate::balancer::prequal::Prequal;
    use crate::balancer::{checks, Pool, PrequalSettings};
    let settings = PrequalSettings {
        probe_rtt_ms: 2.0,
        probe_cost_ms: 0.25,
        idle_probe_ms: 100.0,
        ..PrequalSettings::PAPER
    };
    let pool = Pool { prequal: settings, ..checks::pool(&[1; 8]) };
    let mut rules: Vec<Box<dyn Balancer>> = alloc::vec![Box::new(Prequal::new(&pool))];
    let subscription = rules[0].subscribes();
    assert!(subscription.wakes, "an idle interval above 0 asks for wake-ups");
    let mut bus = Bus::new(subscription, 8, 1_000.0, Rng::seed_from_u64(1)).expect("subscribed");
    let mut rng = Rng::seed_from_u64(2);
    let mut servers = Fixed { in_flight: 0, free: true, spent_ms: 0.0 };
    let probes_reached = |servers: &Fixed| servers.spent_ms / 0.25;
    bus.picked(0.0, 0, rules[0].as_mut(), &mut rng);
    bus.deliver(99.0, &mut rules, &mut servers);
    assert_eq!(probes_reached(&servers), 3.0, "the pick's own 3, nothing idle before 100");
    bus.deliver(349.0, &mut rules, &mut servers);
    assert_eq!(
        probes_reached(&servers),
        12.0,
        "3 more at each of 100, 200 and 300 (reaching at 101, 201, 301)"
    );
    bus.picked(350.0, 0, rules[0].as_mut(), &mut rng);
    bus.deliver(449.0, &mut rules, &mut servers);
    assert_eq!(probes_reached(&servers), 15.0, "the pick at 350's 3; no wake-up at 400");
    bus.deliver(451.0, &mut rules, &mut servers);
    assert_eq!(probes_reached(&servers), 18.0, "idle again from 350: woken at 450");
}

/// With an idle interval of 0 a copy is never woken: probes come only
/// with picks (and no bus machinery for wake-ups is asked for).
#[test]
fn an_idle_interval_of_zero_never_wakes_a_prequal_copy() {
    use crate::balancer::prequal::Prequal;
    use crate::balancer::{checks, Pool, PrequalSettings};
    let settings = PrequalSettings { probe_cost_ms: 0.25, idle_probe_ms: 0.0, ..PrequalSettings::PAPER };
    let pool = Pool { prequal: settings, ..checks::pool(&[1; 8]) };
    let mut rules: Vec<Box<dyn Balancer>> = alloc::vec![Box::new(Prequal::new(&pool))];
    let subscription = rules[0].subscribes();
    assert!(!subscription.wakes);
    let mut bus = Bus::new(subscription, 8, 10_000.0, Rng::seed_from_u64(1)).expect("subscribed");
    let mut rng = Rng::seed_from_u64(2);
    let mut servers = Fixed { in_flight: 0, free: true, spent_ms: 0.0 };
    bus.picked(0.0, 0, rules[0].as_mut(), &mut rng);
    bus.deliver(10_000.0, &mut rules, &mut servers);
    assert_eq!(servers.spent_ms / 0.25, 3.0);
}

/// Two slots that the test's servers report.
struct TwoSlots;

impl Servers for TwoSlots {
    fn in_flight_at(&self, _server: usize, _t: f64) -> u32 {
        0
    }
    fn free_at(&self, _server: usize, _t: f64) -> bool {
        false
    }
    fn spend(&mut self, _server: usize, _t: f64, _ms: f64) {}
    fn slots(&self) -> u32 {
        2
    }
}

/// A server's utilization is its busy slot time over its slot time,
/// whether a request starts on arrival or waits: two slots, a period of
/// 100 ms, A busy 10 to 60 (on arrival) and D 50 to 80 (waiting), D's
/// start scheduled after B's at 110 though earlier (as after a crash
/// frees slots early): 50 + 30 = 80 slot ms of 200 in the first period,
/// two finished in 0.1 s. E's completion in the next period brings it.
#[test]
fn utilization_is_busy_slot_time_whenever_the_starts_are_counted() {
    let subscription = Subscription {
        load_reports: Some(Reporting { period_ms: 100.0, out_of_band: false }),
        ..Subscription::NOTHING
    };
    let mut bus = Bus::new(subscription, 1, 1_000.0, Rng::seed_from_u64(1)).expect("subscribed");
    let (mut rules, logs) = copies(subscription, 2);
    let mut servers = TwoSlots;
    let served = |copy, arrival_ms, start_ms, done_ms| Served {
        copy,
        server: 0,
        arrival_ms,
        start_ms,
        done_ms,
        ok: true,
        in_flight: 0,
    };
    // As the engines do: what is due by an arrival is delivered before it.
    for (copy, arrival, start, done) in
        [(0, 10.0, 10.0, 60.0), (0, 20.0, 110.0, 130.0), (0, 40.0, 50.0, 80.0), (1, 140.0, 140.0, 150.0)]
    {
        bus.deliver(arrival, &mut rules, &mut servers);
        bus.served(served(copy, arrival, start, done));
    }
    bus.deliver(150.0, &mut rules, &mut servers);
    assert_eq!(count(&logs), [3, 1]);
    assert_eq!(
        last(&logs[1]),
        (150.0, Message::LoadReport { server: 0, qps: 20.0, eps: 0.0, utilization: 0.4 })
    );
}

/// Out of band, a period's close counts the starts before it even when
/// no request has ended since: A waits from 10 and runs from 60, so the
/// close at 100 finds one of two slots busy for 40 of 100 ms.
#[test]
fn a_periods_close_counts_the_starts_before_it() {
    let subscription = Subscription {
        load_reports: Some(Reporting { period_ms: 100.0, out_of_band: true }),
        ..Subscription::NOTHING
    };
    let mut bus = Bus::new(subscription, 1, 1_000.0, Rng::seed_from_u64(1)).expect("subscribed");
    let (mut rules, logs) = copies(subscription, 1);
    let mut servers = TwoSlots;
    bus.deliver(10.0, &mut rules, &mut servers);
    bus.served(Served {
        copy: 0,
        server: 0,
        arrival_ms: 10.0,
        start_ms: 60.0,
        done_ms: 150.0,
        ok: true,
        in_flight: 0,
    });
    bus.deliver(100.0, &mut rules, &mut servers);
    assert_eq!(
        last(&logs[0]),
        (100.0, Message::LoadReport { server: 0, qps: 0.0, eps: 0.0, utilization: 0.2 })
    );
}

/// An end packed for the heap keeps its copy, server and outcome at the
/// `balancers` and `servers` fields' largest values, and ends order by
/// time, then by the order they were scheduled in.
#[test]
fn an_end_keeps_its_copy_and_server_up_to_the_fields_ranges() {
    let most = |key| crate::scenario::field_spec(key).map_or(0, |f| f.max as usize) - 1;
    let (copy, server) = (most("balancers"), most("servers"));
    assert_eq!(end_of(end_key(12.5, 7, copy, server, false)), (12.5, copy, server, false));
    assert_eq!(end_of(end_key(0.0, 1, 0, 0, true)), (0.0, 0, 0, true));
    assert!(end_key(1.0, 9, copy, server, true) < end_key(2.0, 1, 0, 0, true));
    assert!(end_key(2.0, 1, copy, server, true) < end_key(2.0, 2, 0, 0, true));
}

/// A quiet stretch (nothing starts or ends in it) closes in one step as
/// it would period by period: one slot of two busy throughout, a period of
/// 100 ms, the clock taken from 30 ms to each of several times at once,
/// and through every period's end in turn; the figures, the clock and the
/// open period agree exactly, on a period's end and between two.
#[test]
fn a_quiet_stretch_closes_as_period_by_period() {
    let start = || Meter {
        running: 1,
        finished: 3,
        last_ms: 30.0,
        busy_ms: 30.0,
        period_end_ms: 100.0,
        ..Meter::default()
    };
    for t in [99.0, 100.0, 150.0, 200.0, 12_345.6, 12_400.0, 86_400_000.5] {
        let mut at_once = start();
        at_once.advance(t, 100.0, 2);
        let mut stepped = start();
        let mut end = 100.0;
        while end <= t {
            stepped.advance(end, 100.0, 2);
            end += 100.0;
        }
        stepped.advance(t, 100.0, 2);
        let state = |m: &Meter| (m.closed, m.last_ms, m.busy_ms, m.period_end_ms, m.finished);
        assert_eq!(state(&at_once), state(&stepped), "at {t}");
    }
    // The first close holds the finished requests; a later one, none.
    let mut meter = start();
    meter.advance(150.0, 100.0, 2);
    assert_eq!(meter.closed, (30.0, 0.0, 0.5));
    meter.advance(12_345.6, 100.0, 2);
    assert_eq!(meter.closed, (0.0, 0.0, 0.5));
}
