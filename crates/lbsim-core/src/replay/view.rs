//! What a replay view shows and how a link keeps it: the window of
//! requests, the two rules side by side, the playhead and the speed, read
//! from and written to a link's view keys; and the pair a link that names
//! none is shown (the page and `lbsim replay` alike). The first module
//! reads no view keys (it keeps them as given, [`Keys`]); the view's
//! module and the CLI read them here.

use alloc::string::String;
use alloc::vec::Vec;

use crate::balancer::AlgorithmId;
use crate::presets::Preset;
use crate::scenario::{Scenario, ScenarioError};

/// The most requests a window holds (the `window` link key's upper bound).
pub const MAX_WINDOW: u64 = 20_000;

/// The window when a link names none and the scenario has no events.
pub const DEFAULT_WINDOW: u64 = 5_000;

/// Seconds of arrivals a window holds after the scenario's last event, so
/// that what the event does is in view.
const AFTER_LAST_EVENT_S: f64 = 10.0;

/// The window when a link names none: [`DEFAULT_WINDOW`] requests, or with
/// events enough to reach `AFTER_LAST_EVENT_S` past the last one at the
/// scenario's arrival rate (a crash at 20 s is in the window), at most
/// [`MAX_WINDOW`].
pub fn window_for(scenario: &Scenario) -> u64 {
    let last_s = scenario.events.0.iter().map(|e| e.at_ms).max().map(|ms| ms as f64 / 1000.0);
    let wanted = last_s.map_or(0.0, |s| libm::ceil(scenario.rate_per_s() * (s + AFTER_LAST_EVENT_S)));
    let wanted = if wanted.is_finite() { wanted.min(MAX_WINDOW as f64) as u64 } else { MAX_WINDOW };
    wanted.clamp(DEFAULT_WINDOW, MAX_WINDOW)
}

/// The replay view's link keys: the page's view keys, which a run accepts
/// once they parse and otherwise ignores.
pub const VIEW_KEYS: [&str; 5] = ["view", "pair", "t", "speed", "window"];

/// The replay view as a link keeps it:
/// `view=replay&pair=round-robin,least-connections&t=12.5&speed=1&window=5000`.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// The two rules side by side; none: [`default_pair`].
    pub pair: Option<[AlgorithmId; 2]>,
    /// The playhead, in seconds of simulated time; it counts to the ms
    /// ([`View::t_ms`]), the precision the view's clock shows.
    pub t_s: f64,
    /// Simulated seconds a second of playing shows (0.1 to 10).
    pub speed: f64,
    /// Requests replayed (1 to [`MAX_WINDOW`]); none: [`window_for`] the
    /// scenario.
    pub window: Option<u64>,
}

impl Default for View {
    fn default() -> Self {
        View { pair: None, t_s: 0.0, speed: 1.0, window: None }
    }
}

/// The slowest and fastest playing speeds.
pub const SPEEDS: (f64, f64) = (0.1, 10.0);

/// The latest playhead a link may ask for, in seconds.
const MAX_T_S: f64 = 1.0e7;

impl View {
    /// Sets one of [`VIEW_KEYS`] from a link's text; an error names the
    /// key, the value and what is allowed.
    pub fn set(&mut self, key: &str, text: &str) -> Result<(), ScenarioError> {
        let bad = |allowed: String| ScenarioError { field: key.into(), value: text.into(), allowed };
        // Numbers and lists are read without the spaces around them, as
        // every field's are.
        let value = text.trim();
        let real = |lo: f64, hi: f64| {
            value
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && (lo..=hi).contains(x))
                // `-0` is 0 (adding +0 turns -0 into +0).
                .map(|x| x + 0.0)
                .ok_or_else(|| bad(alloc::format!("a number from {lo} to {hi}")))
        };
        match key {
            "view" if value == "replay" => {}
            "view" => return Err(bad("replay".into())),
            "pair" => {
                let ids: Vec<&str> = value.split(',').map(str::trim).collect();
                let rules: Vec<AlgorithmId> = ids.iter().filter_map(|id| id.parse().ok()).collect();
                match rules[..] {
                    [a, b] if ids.len() == 2 && a != b => self.pair = Some([a, b]),
                    _ => {
                        let known: Vec<&str> = AlgorithmId::ALL.iter().map(|a| a.id()).collect();
                        return Err(bad(alloc::format!(
                            "two different rules, comma-separated, of {}",
                            known.join(", ")
                        )));
                    }
                }
            }
            "t" => self.t_s = real(0.0, MAX_T_S)?,
            "speed" => self.speed = real(SPEEDS.0, SPEEDS.1)?,
            "window" => {
                self.window = Some(
                    value
                        .parse::<u64>()
                        .ok()
                        .filter(|w| (1..=MAX_WINDOW).contains(w))
                        .ok_or_else(|| bad(alloc::format!("a whole number from 1 to {MAX_WINDOW}")))?,
                );
            }
            _ => return Err(bad(alloc::format!("one of {}", VIEW_KEYS.join(", ")))),
        }
        Ok(())
    }

    /// The playhead in whole ms, as the view and `lbsim replay --at` count
    /// at it and a link writes it: `t=1.001` is 1001 ms (not the
    /// 1000.999... ms that 1.001 s is in binary).
    pub fn t_ms(&self) -> f64 {
        libm::round(self.t_s * 1000.0)
    }

    /// The window it replays of `scenario`.
    pub fn window_of(&self, scenario: &Scenario) -> u64 {
        self.window.unwrap_or_else(|| window_for(scenario))
    }

    /// The view's keys for a link, `&view=replay` first, then those that
    /// differ from the defaults; the playhead to the ms.
    pub fn encode(&self) -> String {
        let d = View::default();
        let mut out = String::from("&view=replay");
        if let Some([a, b]) = self.pair {
            out.push_str(&alloc::format!("&pair={},{}", a.id(), b.id()));
        }
        if self.t_ms() != d.t_ms() {
            out.push_str(&alloc::format!("&t={}", self.t_ms() / 1000.0));
        }
        if self.speed != d.speed {
            out.push_str(&alloc::format!("&speed={}", self.speed));
        }
        if let Some(window) = self.window {
            out.push_str(&alloc::format!("&window={window}"));
        }
        out
    }
}

/// The replay view's keys as a link gave them, in order: the page keeps
/// them so in the links it writes, and its first visit carries no reader
/// of them; [`Keys::view`] reads them (a key given twice is a notice, as
/// any key's, and the later value applies).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Keys(pub Vec<(String, String)>);

impl Keys {
    /// Whether they open the replay view (`view=replay`).
    pub fn open(&self) -> bool {
        self.0.iter().any(|(k, v)| k == "view" && v == "replay")
    }

    /// The keys for a link, as given.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        for (k, v) in &self.0 {
            out.extend(["&", k, "=", v]);
        }
        out
    }

    /// The view they set, and one error per bad value (which keeps that
    /// key's default).
    pub fn view(&self) -> (View, Vec<ScenarioError>) {
        let mut view = View::default();
        let errors = self.0.iter().filter_map(|(k, v)| view.set(k, v).err()).collect();
        (view, errors)
    }
}

/// Checks that a named pair is two of the scenario's rules: a replay
/// shows what the scenario runs. Only a one-rule scenario's default pair
/// ([`default_pair`]) brings a rule of its own, round robin (or least
/// connections beside round robin), named or not.
pub fn check_pair(scenario: &Scenario, pair: [AlgorithmId; 2]) -> Result<(), ScenarioError> {
    let rules = scenario.rules();
    let partner = rules.len() == 1
        && default_pair(scenario, None).contains(&pair[0])
        && default_pair(scenario, None).contains(&pair[1]);
    if partner || pair.iter().all(|r| rules.contains(r)) {
        return Ok(());
    }
    let ids: Vec<&str> = rules.iter().map(|r| r.id()).collect();
    Err(ScenarioError {
        field: "pair".into(),
        value: alloc::format!("{},{}", pair[0].id(), pair[1].id()),
        allowed: alloc::format!("two of the scenario's rules: {}", ids.join(", ")),
    })
}

/// The two rules a replay shows when the link names none: the first two the
/// preset's lesson compares, else the scenario's first two. Two sides
/// always compare two rules, so a scenario of one rule is shown beside
/// round robin, and one of round robin alone beside least connections;
/// the page's view and `lbsim replay` both take this pair as it is.
pub fn default_pair(scenario: &Scenario, preset: Option<&Preset>) -> [AlgorithmId; 2] {
    let rules = scenario.rules();
    let focus: Vec<AlgorithmId> = preset
        .map(|p| p.view.focus.iter().copied().filter(|a| rules.contains(a)).collect())
        .unwrap_or_default();
    let from = if focus.len() >= 2 { &focus } else { &rules };
    let first = from.first().copied().unwrap_or(AlgorithmId::RoundRobin);
    let beside = match first {
        AlgorithmId::RoundRobin => AlgorithmId::LeastConnections,
        _ => AlgorithmId::RoundRobin,
    };
    [first, from.get(1).copied().filter(|&second| second != first).unwrap_or(beside)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::preset;

    #[test]
    fn view_keys_round_trip_and_name_their_range() {
        let mut v = View::default();
        for (k, x) in [
            ("view", "replay"),
            ("pair", "round-robin,least-connections"),
            ("t", "12.5"),
            ("speed", "0.25"),
            ("window", "2000"),
        ] {
            v.set(k, x).expect("a good value");
        }
        assert_eq!(
            v.encode(),
            "&view=replay&pair=round-robin,least-connections&t=12.5&speed=0.25&window=2000"
        );
        assert_eq!(View::default().encode(), "&view=replay");
        // The playhead to the ms, read and written: a paused moment's
        // digits are the clock's, and the ms it names is whole.
        for (t_s, ms, key) in [(1.001, 1001.0, "&t=1.001"), (23.017_921_919_220_84, 23_018.0, "&t=23.018")] {
            let v = View { t_s, ..View::default() };
            assert_eq!(v.t_ms(), ms);
            assert_eq!(v.encode(), alloc::format!("&view=replay{key}"));
        }
        for (k, x, allowed) in [
            ("speed", "11", "a number from 0.1 to 10"),
            ("window", "20001", "a whole number from 1 to 20000"),
            ("t", "-1", "a number from 0 to 10000000"),
            ("view", "movie", "replay"),
        ] {
            let e = View::default().set(k, x).expect_err("out of range");
            assert_eq!((e.field.as_str(), e.value.as_str(), e.allowed.as_str()), (k, x, allowed));
        }
        for pair in ["round-robin", "round-robin,round-robin", "round-robin,nope", "a,b,c"] {
            assert!(View::default().set("pair", pair).is_err(), "{pair}");
        }
    }

    #[test]
    fn the_default_pair_is_the_lessons() {
        let mixed = preset("mixed").expect("a preset");
        assert_eq!(
            default_pair(&mixed.scenario(), Some(mixed)),
            [AlgorithmId::RoundRobin, AlgorithmId::LeastConnections]
        );
        // One rule: beside round robin, and round robin beside least
        // connections, so that the two sides compare two rules.
        let one = |a| Scenario { algorithms: alloc::vec![a], ..Scenario::default() };
        assert_eq!(
            default_pair(&one(AlgorithmId::Maglev), None),
            [AlgorithmId::Maglev, AlgorithmId::RoundRobin]
        );
        assert_eq!(
            default_pair(&one(AlgorithmId::RoundRobin), None),
            [AlgorithmId::RoundRobin, AlgorithmId::LeastConnections]
        );
        // A preset whose scenario was cut to one rule of its lesson.
        assert_eq!(
            default_pair(&one(AlgorithmId::LeastConnections), Some(mixed)),
            [AlgorithmId::LeastConnections, AlgorithmId::RoundRobin]
        );
    }
}
