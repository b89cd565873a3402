//! The replay view's logic that needs no browser, against what lies
//! outside it: the attempt log of real runs (the crash preset's, as the
//! replay's worker sends it and `lbsim replay --format csv` prints it), the
//! core's counters, the link's keys and the CLI's `--at`.

use lbsim_core::presets::preset;
use lbsim_core::replay::{default_pair, replays, View, SPEEDS as LINK_SPEEDS};
use lbsim_core::{url, AlgorithmId};

use super::state::{counters_line, speeds_offered, Player, SPEEDS};
use crate::controls::thousands;

/// The crash preset's player with its lesson's pair over the first
/// `window` requests, their replays arrived as the worker sends them.
fn crash(window: u64, t_s: f64) -> Player {
    crash_with(window, t_s, false)
}

/// The same, with reduced motion asked for or not.
fn crash_with(window: u64, t_s: f64, reduced_motion: bool) -> Player {
    let p = preset("crash").expect("a preset");
    let s = p.scenario();
    let pair = default_pair(&s, Some(p));
    let view = View { window: Some(window), t_s, ..View::default() };
    let mut player = Player::new(s.clone(), Some(p), pair, &view, &[], reduced_motion);
    let ask = player.ask();
    assert!(player.answers(ask.id) && player.is_current());
    player.load(replays(&s, &pair, window).expect("the replays"));
    player
}

/// Every time of the attempt log (the columns of `lbsim replay --format
/// csv`: each request's arrival, each attempt's sending, start and end)
/// and each answer.
fn log_times(player: &Player) -> Vec<f64> {
    let mut times = Vec::new();
    for side in &player.sides {
        let r = &side.replay;
        times.extend(r.requests.iter().flat_map(|q| [q.arrival_ms, q.answered_ms]));
        times.extend(r.attempts.iter().flat_map(|a| [a.sent_ms, a.start_ms, a.done_ms]));
    }
    times
}

/// A fine step (Shift and an arrow) pauses on the first whole ms by which
/// the log's next time after the playhead (found here by a plain scan of
/// the log) has happened, and back on the one before; the counters
/// (`Replay::at`, the core's) at the ms before a step's are those where it
/// started, so stepping misses no ms the clock can show; past the last
/// step, the end, before the first, the beginning.
#[test]
fn a_fine_step_lands_on_the_ms_of_the_next_moment_of_the_log() {
    let mut p = crash(1_500, 0.0);
    let times = log_times(&p);
    let (mut steps, mut last) = (0, 0.0);
    while p.t_ms < p.end_ms {
        let next = times.iter().copied().filter(|&t| t > p.t_ms).fold(f64::INFINITY, f64::min);
        p.step_fine(true);
        assert_eq!(p.t_ms, next.ceil().min(p.end_ms), "step {steps}");
        assert!(p.t_ms == p.t_ms.round() || p.t_ms == p.end_ms, "a whole ms: {}", p.t_ms);
        if steps % 7 == 0 && p.t_ms - 1.0 >= last {
            for side in &p.sides {
                assert_eq!(
                    side.replay.at(p.t_ms - 1.0),
                    side.replay.at(last),
                    "between {last} and {}",
                    p.t_ms
                );
            }
        }
        last = p.t_ms;
        steps += 1;
    }
    assert!(steps > 500, "{steps} steps for 1,500 requests");
    p.step_fine(true);
    assert_eq!(p.t_ms, p.end_ms, "the end stays the end");
    p.t_ms = p.t_ms.floor();
    for _ in 0..3 {
        let before = times.iter().copied().filter(|&t| t.ceil() < p.t_ms).fold(0.0, f64::max).ceil();
        p.step_fine(false);
        assert_eq!(p.t_ms, before);
    }
    p.t_ms = 0.0;
    p.step_fine(false);
    assert_eq!(p.t_ms, 0.0, "the beginning stays the beginning");
}

/// A step (the buttons, an arrow) moves the playhead by a hundredth of
/// the replay's span, on a whole ms, so that the clock visibly moves: a
/// hundred steps or so cross the replay, each more than a ms, and as many
/// back return to the beginning.
#[test]
fn a_step_moves_a_hundredth_of_the_replay() {
    let mut p = crash(8_000, 0.0);
    let by = (p.end_ms / 100.0).round();
    assert!(by > 100.0, "crash's 8,000 requests span {} ms", p.end_ms);
    let mut steps = 0;
    while p.t_ms < p.end_ms {
        let before = p.t_ms;
        p.step(true);
        steps += 1;
        assert!(p.t_ms == (before + by).min(p.end_ms) || p.t_ms == p.end_ms, "{before} -> {}", p.t_ms);
        assert!(p.t_ms == p.t_ms.round() || p.t_ms == p.end_ms, "a whole ms: {}", p.t_ms);
    }
    assert!((100..=101).contains(&steps), "{steps} steps");
    p.step(false);
    assert_eq!(p.t_ms, (p.end_ms - by).round(), "back from the end onto a whole ms");
    for _ in 0..101 {
        p.step(false);
    }
    assert_eq!(p.t_ms, 0.0);
    let mut short = crash(3, 0.0);
    short.step(true);
    assert_eq!(short.t_ms, 1.0f64.min(short.end_ms), "at least a ms: {}", short.end_ms);
}

/// The scrubber ranges over the replay: its value is the playhead, on a
/// whole ms within 0 and the end. The command's `--at`, read as `lbsim
/// replay` reads it (the link's own check of `t=` and its ms), and the
/// link's `t=`, read as the page reopens it, are that instant exactly,
/// written with the clock's precision (three decimals of a second, the
/// playhead's `t=1.001` is 1001 ms, not 1000.999... ms); the end, between
/// two ms, reopens as the end.
#[test]
fn the_scrubber_is_the_time_the_clis_at_and_the_link_name() {
    let mut p = crash(1_500, 0.0);
    p.scrub(-5.0);
    assert_eq!(p.t_ms, 0.0);
    for value in [1_001.0, 1_234.0, 2_000.5, 3_141.592_653_589_793, p.end_ms / 3.0, 1e12] {
        p.scrub(value);
        let want = value.round().min(p.end_ms);
        assert_eq!(p.t_ms, want);
        let command = p.command("http://127.0.0.1:8080/");
        let at = command.rsplit("--at ").next().expect("an --at");
        assert!(at.split('.').nth(1).is_none_or(|ms| ms.len() <= 3), "{command}");
        let mut cli = View::default();
        cli.set("t", at).expect("the CLI's check takes it");
        let keys = p.keys();
        let t = keys.split("&t=").nth(1).and_then(|k| k.split('&').next()).expect("a t=");
        assert_eq!(t, at, "the link and the command name one moment");
        let link = url::decode(&format!("#{}{}", url::encode_over(&p.scenario, p.preset), keys));
        let (view, errors) = link.replay.expect("the view's keys").view();
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(view.pair, Some(p.pair));
        assert_eq!((view.window, view.speed), (Some(p.window), p.speed));
        let mut reopened = crash(1_500, view.t_s);
        reopened.load(p.sides.iter().map(|s| s.replay.clone()).collect());
        assert_eq!(reopened.t_ms, want, "{keys}");
        assert_eq!(cli.t_ms().min(p.end_ms), want, "{command}");
    }
    assert_eq!(p.t_ms, p.end_ms, "the scrubber reaches the end");
}

/// Playing moves the playhead by the wall time between frames times the
/// speed (simulated seconds per second, as the link's `speed=`), from
/// the second frame on; it stops on the end; play at the end starts
/// over; a pause rests on a whole ms. Dots glide 300 ms of wall time
/// while playing, not when paused or with reduced motion.
#[test]
fn playing_moves_the_clock_by_the_speed() {
    let mut p = crash(1_500, 1.0);
    assert_eq!(p.t_ms, 1_000.0, "the link's playhead");
    p.speed = 2.0;
    assert_eq!(p.glide_ms(), 0.0, "paused: no glide");
    assert!(p.toggle());
    assert_eq!(p.glide_ms(), 600.0);
    assert!(p.advance(10_000.0));
    assert_eq!(p.t_ms, 1_000.0, "the first frame sets the clock");
    assert!(p.advance(10_016.25));
    assert_eq!(p.t_ms, 1_032.5);
    assert!(p.advance(10_016.0), "a frame stamped earlier does not go back");
    assert_eq!(p.t_ms, 1_032.5);
    assert!(!p.toggle());
    assert_eq!(p.t_ms, 1_033.0, "a pause rests on a whole ms");
    assert!(!p.advance(20_000.0), "paused: no frame moves it");
    assert!(p.toggle());
    assert!(p.advance(0.0) && !p.advance(1e9));
    assert_eq!((p.t_ms, p.playing), (p.end_ms, false), "it stops on the end");
    assert!(p.toggle());
    assert_eq!(p.t_ms, 0.0, "play at the end starts over");
    let mut still = crash_with(1_500, 1.0, true);
    assert!(still.toggle());
    assert_eq!(still.glide_ms(), 0.0, "reduced motion: no glide");
}

/// A server's slots serve in parallel: the attempts in service on one
/// server at once hold different slots, each within the scenario's.
#[test]
fn attempts_in_service_together_hold_different_slots() {
    let p = crash(8_000, 0.0);
    for side in &p.sides {
        let attempts = &side.replay.attempts;
        assert!(side.slot.iter().all(|&k| k < p.scenario.slots), "{:?}", side.replay.algorithm);
        for (a, &k) in attempts.iter().zip(&side.slot) {
            let clash = attempts.iter().zip(&side.slot).any(|(b, &l)| {
                b.server == a.server && l == k && b != a && b.start_ms <= a.start_ms && a.start_ms < b.done_ms
            });
            assert!(!clash, "{:?}: slot {k} of server {} at {}", side.replay.algorithm, a.server, a.start_ms);
        }
    }
}

/// Only the answer to the latest question is taken, and a new pair or
/// window is a new question.
#[test]
fn only_the_latest_answer_is_taken() {
    let mut p = crash(500, 0.0);
    let first = p.ask();
    let second = p.ask();
    assert!(!p.answers(first.id) && p.answers(second.id));
    assert_eq!((second.pair.as_str(), second.window), ("round-robin,least-connections", 500));
    let view = View { pair: Some([AlgorithmId::Maglev, AlgorithmId::Random]), ..View::default() };
    p.set(p.scenario.clone(), p.preset, [AlgorithmId::Maglev, AlgorithmId::Random], &view);
    assert!(!p.is_current());
    assert!(p.ask().pair == "maglev,random" && p.is_current());
}

/// The speeds offered span the link's range, and a link's own speed is
/// offered in its place.
#[test]
fn a_links_speed_is_offered_in_order() {
    assert_eq!((SPEEDS[0], SPEEDS[SPEEDS.len() - 1]), LINK_SPEEDS);
    assert_eq!(speeds_offered(1.0), SPEEDS);
    assert_eq!(speeds_offered(3.0), [0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0]);
}

/// The counters and the status line say the core's counters at the
/// playhead, for each rule.
#[test]
fn the_text_says_the_counters_at_the_playhead() {
    let p = crash(8_000, 21.0);
    let said = p.said_at_pause();
    assert!(said.starts_with("Paused at 21.000 s of "), "{said}");
    for side in &p.sides {
        let c = side.replay.at(21_000.0);
        assert!(c.errors > 0, "the crash at 20 s shows");
        let arrived = thousands(u64::from(c.arrived));
        assert!(said.contains(&format!("{}: {arrived} arrived", side.replay.algorithm.id())), "{said}");
        let line = counters_line(&c);
        assert!(line.starts_with(&format!("arrived {arrived} · answered ")), "{line}");
        assert!(line.contains(&format!(" · errors {} · ", c.errors)), "{line}");
    }
}
