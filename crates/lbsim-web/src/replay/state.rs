//! The replay view's state and the arithmetic it plays by, apart from the
//! page: the player (what is shown, where the playhead is, whether it
//! plays), how far a step and a frame move it, each attempt's slot, and
//! what the counters and the status line say. At rest the playhead is on
//! a whole ms (or the replay's end), the precision the clock shows and a
//! link names (the core's `View::t_ms`). The rest
//! of the view reads and changes it through [`with_player`].

use std::cell::RefCell;
use std::fmt::Write as _;

use lbsim_core::fleet::timeline::Timeline;
use lbsim_core::presets::Preset;
use lbsim_core::replay::{Counters, Replay, View};
use lbsim_core::{url, AlgorithmId, Scenario, ScenarioError};

use crate::controls::thousands;

/// The speeds offered, in simulated seconds per second (a link may ask
/// for any speed from 0.1 to 10; it is added to the list).
pub const SPEEDS: [f64; 7] = [0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0];

/// Wall-clock ms a dot takes to glide from the balancer to its server, and
/// to go back answered: the counters do not wait for it (they count the log).
const GLIDE_MS: f64 = 300.0;

/// Steps across a replay's span: a step moves the playhead by this share
/// of it (at least a ms), so that the clock and the dots visibly move.
pub const STEPS: f64 = 100.0;

/// One rule's side: its replay and, per attempt, the slot it took.
pub struct Side {
    pub replay: Replay,
    pub slot: Vec<u32>,
    /// The counters last written, to touch the page only when they change.
    pub shown: String,
}

pub struct Player {
    /// What the sides were computed for (scenario, pair, window).
    computed: String,
    pub scenario: Scenario,
    /// The scenario's events as the run serves under them: each server's
    /// state at the playhead.
    pub timeline: Timeline,
    pub preset: Option<&'static Preset>,
    pub names: Vec<String>,
    pub pair: [AlgorithmId; 2],
    pub window: u64,
    pub sides: Vec<Side>,
    /// Every moment something happens on either side, sorted: the fine
    /// steps.
    moments: Vec<f64>,
    pub end_ms: f64,
    pub t_ms: f64,
    pub speed: f64,
    pub playing: bool,
    last_frame: Option<f64>,
    /// The replay asked of the worker last (older answers are dropped).
    asked: u32,
    /// The link's playhead, applied when the first replay arrives.
    start_ms: Option<f64>,
    reduced_motion: bool,
    /// What of the link's replay keys was not used, said with the first
    /// replay's status.
    pub problems: String,
    /// Each canvas's CSS size, read when the view is laid out: reading it
    /// while drawing would lay the page out again every frame.
    pub sizes: [(f64, f64); 2],
}

/// A question for the replay's worker: the replays of `pair` ("rule,rule")
/// over the first `window` requests of `scenario` (a link's fragment),
/// answering `id`.
pub struct Ask {
    pub id: u32,
    pub scenario: String,
    pub pair: String,
    pub window: u64,
}

thread_local! {
    static PLAYER: RefCell<Option<Player>> = const { RefCell::new(None) };
}

/// `f` over the view's player, if it has one yet.
pub fn with_player<R>(f: impl FnOnce(&mut Player) -> R) -> Option<R> {
    PLAYER.with(|p| p.borrow_mut().as_mut().map(f))
}

/// Makes `player` the view's.
pub fn start(player: Player) {
    PLAYER.with(|p| *p.borrow_mut() = Some(player));
}

impl Player {
    /// A player for a link's first replay: its `view` keys (those in
    /// `errors` unused) and `pair`, paused until the replays arrive.
    pub fn new(
        scenario: Scenario,
        preset: Option<&'static Preset>,
        pair: [AlgorithmId; 2],
        view: &View,
        errors: &[ScenarioError],
        reduced_motion: bool,
    ) -> Player {
        let problems = if errors.is_empty() {
            String::new()
        } else {
            let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
            format!("Parts of the link's replay were not used: {}.", lines.join("; "))
        };
        Player {
            computed: String::new(),
            timeline: Timeline::new(&scenario),
            names: scenario.pool().names,
            window: view.window_of(&scenario),
            scenario,
            preset,
            pair,
            sides: Vec::new(),
            moments: Vec::new(),
            end_ms: 0.0,
            t_ms: 0.0,
            speed: view.speed,
            playing: false,
            last_frame: None,
            asked: 0,
            start_ms: Some(view.t_ms()),
            reduced_motion,
            problems,
            sizes: [(0.0, 0.0); 2],
        }
    }

    /// What a later link shows: its scenario, pair, window and speed; the
    /// playhead stays.
    pub fn set(
        &mut self,
        scenario: Scenario,
        preset: Option<&'static Preset>,
        pair: [AlgorithmId; 2],
        view: &View,
    ) {
        self.timeline = Timeline::new(&scenario);
        self.names = scenario.pool().names;
        self.window = view.window_of(&scenario);
        self.scenario = scenario;
        self.preset = preset;
        self.pair = pair;
        self.speed = view.speed;
    }

    fn wanted(&self) -> String {
        format!("{}|{},{}|{}", url::encode(&self.scenario), self.pair[0].id(), self.pair[1].id(), self.window)
    }

    /// Whether the sides were asked for what is shown now (the scenario,
    /// the pair, the window).
    pub fn is_current(&self) -> bool {
        self.computed == self.wanted()
    }

    /// The question for what is shown now, from which on older answers are
    /// dropped; it pauses.
    pub fn ask(&mut self) -> Ask {
        self.asked += 1;
        self.computed = self.wanted();
        self.pause();
        Ask {
            id: self.asked,
            scenario: url::encode(&self.scenario),
            pair: format!("{},{}", self.pair[0].id(), self.pair[1].id()),
            window: self.window,
        }
    }

    /// Whether an answer is to the latest question.
    pub fn answers(&self, id: u32) -> bool {
        self.asked == id
    }

    /// Takes the replays in: each attempt's slot, the moments, the end,
    /// and the link's playhead (within the end) on the first.
    pub fn load(&mut self, replays: Vec<Replay>) {
        self.moments = moments(&replays);
        self.sides = replays
            .into_iter()
            .map(|replay| Side { slot: slots(&replay), replay, shown: String::new() })
            .collect();
        self.end_ms = self.sides.iter().map(|s| s.replay.end_ms()).fold(0.0, f64::max);
        let t = self.start_ms.take().unwrap_or(self.t_ms);
        self.t_ms = t.clamp(0.0, self.end_ms);
    }

    pub fn pause(&mut self) {
        self.playing = false;
        self.last_frame = None;
    }

    /// Play or pause (at the end, play starts again from the beginning);
    /// whether it plays now.
    pub fn toggle(&mut self) -> bool {
        if self.playing {
            self.pause();
            // The playhead rests on a whole ms, so the link names it exactly.
            self.t_ms = self.t_ms.round().min(self.end_ms);
        } else if !self.sides.is_empty() {
            if self.t_ms >= self.end_ms {
                self.t_ms = 0.0;
            }
            self.playing = true;
        }
        self.playing
    }

    /// Pauses a step on (or back): a hundredth of the replay's span, at
    /// least a ms, on a whole ms, within the replay.
    pub fn step(&mut self, forward: bool) {
        self.pause();
        let by = (self.end_ms / STEPS).round().max(1.0);
        let t = if forward { self.t_ms + by } else { self.t_ms - by };
        self.t_ms = t.round().clamp(0.0, self.end_ms);
    }

    /// Pauses on the first whole ms by which the next thing on either side
    /// has happened (or, back, the last before the playhead's ms), else
    /// at the end (the beginning): the finest step the clock shows.
    pub fn step_fine(&mut self, forward: bool) {
        self.pause();
        let t = self.t_ms;
        let next = if forward {
            let i = self.moments.partition_point(|&m| m <= t);
            self.moments.get(i).map(|m| m.ceil().min(self.end_ms))
        } else {
            let i = self.moments.partition_point(|&m| m.ceil() < t);
            i.checked_sub(1).and_then(|i| self.moments.get(i)).map(|m| m.ceil())
        };
        self.t_ms = next.unwrap_or(if forward { self.end_ms } else { 0.0 });
    }

    /// One frame of playing at wall-clock `now_ms`: the clock moves by the
    /// wall time since the last frame times the speed, and stops at the
    /// end; whether it plays on.
    pub fn advance(&mut self, now_ms: f64) -> bool {
        if !self.playing {
            return false;
        }
        if let Some(last) = self.last_frame {
            self.t_ms += (now_ms - last).max(0.0) * self.speed;
        }
        self.last_frame = Some(now_ms);
        if self.t_ms >= self.end_ms {
            self.t_ms = self.end_ms;
            self.pause();
            return false;
        }
        true
    }

    /// The playhead at the scrubber's value (ms, as its range is the
    /// replay's span), on a whole ms.
    pub fn scrub(&mut self, value_ms: f64) {
        self.t_ms = value_ms.round().clamp(0.0, self.end_ms);
    }

    /// The playhead as a link and the command name it, in seconds to the
    /// ms: rounded up, so that the end (between two ms) reopens as the end.
    fn named_s(&self) -> f64 {
        self.t_ms.ceil() / 1000.0
    }

    /// Simulated ms a dot glides: none when paused or with reduced motion.
    pub fn glide_ms(&self) -> f64 {
        if self.reduced_motion || !self.playing {
            0.0
        } else {
            GLIDE_MS * self.speed
        }
    }

    /// The view's keys for the page's links (`&view=replay&pair=...`).
    pub fn keys(&self) -> String {
        View { pair: Some(self.pair), t_s: self.named_s(), speed: self.speed, window: Some(self.window) }
            .encode()
    }

    /// The command that prints the same counters at the playhead, its link
    /// over the page at `base`.
    pub fn command(&self, base: &str) -> String {
        format!(
            "lbsim replay --url '{}' --pair {},{} --window {} --at {}",
            url::share_url_over(base, &self.scenario, self.preset),
            self.pair[0].id(),
            self.pair[1].id(),
            self.window,
            self.named_s()
        )
    }

    /// The status line at a pause: where the playhead is and each rule's
    /// counters there.
    pub fn said_at_pause(&self) -> String {
        let mut text = format!("Paused at {} of {}.", seconds(self.t_ms), seconds(self.end_ms));
        for side in &self.sides {
            let c = side.replay.at(self.t_ms);
            let _ = write!(
                text,
                " {}: {} arrived, {} answered, {} errors, {} retries, p99 so far {}.",
                side.replay.algorithm.id(),
                thousands(u64::from(c.arrived)),
                thousands(u64::from(c.finished)),
                thousands(u64::from(c.errors)),
                thousands(u64::from(c.retries)),
                p99(&c)
            );
            text.push_str(&heard(&self.names, &c));
        }
        text
    }
}

/// What a rule heard and learned by a pause, said: its probes and each
/// server's last reply, the first copy's weights.
fn heard(names: &[String], c: &Counters) -> String {
    let mut text = String::new();
    if c.probes > 0 {
        let replies: Vec<String> = names
            .iter()
            .zip(&c.replies)
            .filter_map(|(n, r)| {
                let r = r.as_ref()?;
                let latency =
                    r.latency_ms.map_or_else(|| "no latency yet".to_string(), |l| format!("{l:.1} ms"));
                Some(format!("{n} {} in flight, {latency}", r.in_flight))
            })
            .collect();
        let _ = write!(
            text,
            " {} probes sent; last replies: {}.",
            thousands(u64::from(c.probes)),
            replies.join("; ")
        );
    }
    if let Some(weights) = &c.weights {
        let said: Vec<String> = names
            .iter()
            .zip(weights)
            .map(|(n, w)| format!("{n} {}", lbsim_core::replay::weight_text(*w)))
            .collect();
        let _ = write!(text, " Weights in force: {}.", said.join(", "));
    }
    text
}

/// Every moment something happens in the replays (a request arrives or is
/// answered, an attempt is sent, starts or ends, a copy's weights change),
/// sorted, once each.
pub fn moments(replays: &[Replay]) -> Vec<f64> {
    let mut moments = Vec::new();
    for replay in replays {
        for r in &replay.requests {
            moments.extend([r.arrival_ms, r.answered_ms]);
        }
        for a in &replay.attempts {
            moments.extend([a.sent_ms, a.start_ms, a.done_ms]);
        }
        moments.extend(replay.weights.iter().map(|u| u.at_ms));
    }
    // Times are finite and not negative, so their bits sort as they do
    // (the core's one sort, which this module shares: no second one in it).
    let mut keys: Vec<(u64, u32)> =
        moments.iter().filter(|t| t.is_finite()).map(|t| (t.to_bits(), 0)).collect();
    lbsim_core::sort::by_key(&mut keys);
    keys.dedup();
    keys.into_iter().map(|(bits, _)| f64::from_bits(bits)).collect()
}

/// Per attempt, the slot of its server it took: the lowest free one when it
/// started (a server's slots serve in parallel, its queue in order), so a
/// dot keeps its place while it is served.
pub fn slots(replay: &Replay) -> Vec<u32> {
    let mut order: Vec<(u64, u32)> =
        replay.attempts.iter().enumerate().map(|(i, a)| (a.start_ms.to_bits(), i as u32)).collect();
    lbsim_core::sort::by_key(&mut order);
    let mut free_at: Vec<Vec<f64>> = vec![Vec::new(); replay.servers as usize];
    let mut slot = vec![0; replay.attempts.len()];
    for (_, i) in order {
        let i = i as usize;
        let a = &replay.attempts[i];
        let Some(free) = free_at.get_mut(a.server as usize) else { continue };
        let k = free.iter().position(|&f| f <= a.start_ms).unwrap_or(free.len());
        if k == free.len() {
            free.push(0.0);
        }
        free[k] = a.done_ms;
        slot[i] = k as u32;
    }
    slot
}

/// The speeds the speed control offers: [`SPEEDS`], with `speed` in its
/// place when a link asked for another.
pub fn speeds_offered(speed: f64) -> Vec<f64> {
    let mut speeds: Vec<f64> = SPEEDS.to_vec();
    if !speeds.contains(&speed) {
        speeds.insert(speeds.partition_point(|&s| s < speed), speed);
    }
    speeds
}

/// The counters beside a side, as text.
pub fn counters_line(c: &Counters) -> String {
    format!(
        "arrived {} · answered {} · errors {} · retries {} · p99 so far {}",
        thousands(u64::from(c.arrived)),
        thousands(u64::from(c.finished)),
        thousands(u64::from(c.errors)),
        thousands(u64::from(c.retries)),
        p99(c)
    )
}

fn p99(c: &Counters) -> String {
    c.p99_ms.map_or_else(|| "none yet".to_string(), |v| format!("{v:.1} ms"))
}

/// Simulated ms as the clock shows them.
pub fn seconds(ms: f64) -> String {
    format!("{:.3} s", ms / 1000.0)
}
