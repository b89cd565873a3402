//! The events grammar (docs/model.md#events): `TIME:SERVER:KIND`,
//! comma-separated, the same string in links, flags and JSON.
//!
//! TIME is up to the first `:` and KIND (with its `=value`) after the last,
//! so a `host:port` server name reads as one. The canonical form sorts the
//! events by time, stably, and writes whole seconds as `20s`, anything else
//! as `1500ms`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Most events a scenario may hold.
pub const MAX_EVENTS: usize = 64;

/// Latest event time: a day of simulated time.
pub const MAX_EVENT_MS: u64 = 86_400_000;

/// Slowest and fastest `slow=F` factor (the range of `speeds`).
pub const SLOW_RANGE: (f64, f64) = (0.01, 100.0);

/// What happens to a server from an event's time on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EventKind {
    /// It runs at speed F (in place of its configured speed) for requests
    /// that start from then on.
    Slow(f64),
    /// The black hole: every request it starts is answered with a 500.
    Fail,
    /// Its running and queued requests fail; new ones are refused.
    Crash,
    /// Back to its configured speed and healthy (empty after a crash).
    Recover,
    /// It enters the pool.
    Join,
    /// It leaves the pool, finishing what it holds.
    Leave,
}

impl EventKind {
    /// Every kind, in the order the page's editor lists them (`slow` at
    /// half speed, the editor's first factor).
    pub const ALL: [EventKind; 6] = [
        EventKind::Slow(0.5),
        EventKind::Fail,
        EventKind::Crash,
        EventKind::Recover,
        EventKind::Join,
        EventKind::Leave,
    ];

    /// The kind's name in the events grammar (`slow` without its factor).
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Slow(_) => "slow",
            EventKind::Fail => "fail",
            EventKind::Crash => "crash",
            EventKind::Recover => "recover",
            EventKind::Join => "join",
            EventKind::Leave => "leave",
        }
    }

    /// What the kind does, in a line (`lbsim list events`).
    pub fn meaning(self) -> &'static str {
        match self {
            EventKind::Slow(_) => {
                "slow=F: runs at speed F (0.01 to 100) for requests that start from then on"
            }
            EventKind::Fail => {
                "the black hole: every request it starts gets a 500 after error-ms (default 1)"
            }
            EventKind::Crash => {
                "what it holds fails at once with a connection error; new requests fail after connect-ms \
                 (default 1)"
            }
            EventKind::Recover => {
                "back to its speed and healthy; after a crash, empty (and cold, see warm-up)"
            }
            EventKind::Join => {
                "enters the pool (a server whose first membership event is a join starts outside)"
            }
            EventKind::Leave => "leaves the pool, finishing what it holds",
        }
    }

    fn parse(text: &str) -> Option<EventKind> {
        let Some(factor) = text.strip_prefix("slow=") else {
            // The kinds without a value, by name (`slow` alone is not one).
            return EventKind::ALL.into_iter().find(|k| k.name() == text && !matches!(k, EventKind::Slow(_)));
        };
        let factor: f64 = factor.parse().ok()?;
        let (lo, hi) = SLOW_RANGE;
        (factor.is_finite() && (lo..=hi).contains(&factor)).then_some(EventKind::Slow(factor))
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventKind::Slow(factor) => write!(f, "slow={factor}"),
            other => f.write_str(other.name()),
        }
    }
}

/// One event.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Simulated time in whole ms.
    pub at_ms: u64,
    /// The server's name.
    pub server: String,
    /// What happens.
    pub kind: EventKind,
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at_ms % 1000 == 0 {
            write!(f, "{}s:{}:{}", self.at_ms / 1000, self.server, self.kind)
        } else {
            write!(f, "{}ms:{}:{}", self.at_ms, self.server, self.kind)
        }
    }
}

/// A scenario's events, in canonical (time, then given) order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Events(pub Vec<Event>);

/// What an events string may hold, for errors and help.
pub const ALLOWED: &str = "comma-separated TIME:SERVER:KIND, at most 64; TIME in ms or s (20s, 1500ms, \
                           up to 86400s); KIND one of slow=F (F 0.01 to 100), fail, crash, recover, join, leave";

/// Reads `20s`, `1.5s` (up to three decimals) or `1500ms` as whole ms.
fn parse_time(text: &str) -> Option<u64> {
    let ms = if let Some(ms) = text.strip_suffix("ms") {
        if ms.is_empty() || !ms.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        ms.parse::<u64>().ok()?
    } else {
        let s = text.strip_suffix('s')?;
        let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
        let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !digits(whole) || !digits(frac) || frac.len() > 3 || s.ends_with('.') {
            return None;
        }
        let frac_ms = format!("{frac:0<3}").parse::<u64>().ok()?;
        whole.parse::<u64>().ok()?.checked_mul(1000)?.checked_add(frac_ms)?
    };
    (ms <= MAX_EVENT_MS).then_some(ms)
}

impl Events {
    /// Parses an events string (empty: no events), checking the grammar and
    /// the limits; which servers exist is checked against the scenario
    /// ([`Events::check_against`]). `Err` carries the offending item.
    pub fn parse(text: &str) -> Result<Events, String> {
        if text.trim().is_empty() {
            return Ok(Events::default());
        }
        let items: Vec<&str> = text.split(',').collect();
        if items.len() > MAX_EVENTS {
            return Err(format!("{} events", items.len()));
        }
        let mut events = Vec::with_capacity(items.len());
        for item in items {
            let bad = || item.to_string();
            let (time, rest) = item.split_once(':').ok_or_else(bad)?;
            let (server, kind) = rest.rsplit_once(':').ok_or_else(bad)?;
            let at_ms = parse_time(time.trim()).ok_or_else(bad)?;
            let kind = EventKind::parse(kind.trim()).ok_or_else(bad)?;
            if server.is_empty() {
                return Err(bad());
            }
            events.push(Event { at_ms, server: server.to_string(), kind });
        }
        // Stable: events at one instant keep the order they were given in.
        // By insertion (64 at most), so the page carries no stable sort.
        for i in 1..events.len() {
            let mut j = i;
            while j > 0 && events[j - 1].at_ms > events[j].at_ms {
                events.swap(j - 1, j);
                j -= 1;
            }
        }
        Ok(Events(events))
    }

    /// Whether there are no events.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Checks the events against the pool's `names`: every server exists,
    /// a `join` is of a server outside the pool (a server whose first
    /// membership event is a join starts outside it), a `leave` of a
    /// member, a `recover` follows a `slow`, `fail` or `crash`. `Err`
    /// carries the offending event and why.
    pub fn check_against(&self, names: &[String]) -> Result<(), (String, String)> {
        let mut member: Vec<bool> = names.iter().map(|n| !self.starts_outside(n)).collect();
        let mut troubled = alloc::vec![false; names.len()];
        for e in &self.0 {
            let Some(s) = names.iter().position(|n| *n == e.server) else {
                return Err((e.to_string(), format!("a server of the pool ({})", pool_words(names))));
            };
            let refuse = |why: &str| Err((e.to_string(), why.to_string()));
            match e.kind {
                EventKind::Join if member[s] => return refuse("a join of a server outside the pool"),
                EventKind::Leave if !member[s] => return refuse("a leave of a server in the pool"),
                EventKind::Recover if !troubled[s] => {
                    return refuse("a recover after a slow, fail or crash of that server")
                }
                EventKind::Join => member[s] = true,
                EventKind::Leave => member[s] = false,
                EventKind::Recover => troubled[s] = false,
                EventKind::Slow(_) | EventKind::Fail | EventKind::Crash => troubled[s] = true,
            }
        }
        Ok(())
    }

    /// Whether `server` starts outside the pool (its first membership event
    /// is a join).
    pub fn starts_outside(&self, server: &str) -> bool {
        self.0
            .iter()
            .find(|e| e.server == server && matches!(e.kind, EventKind::Join | EventKind::Leave))
            .is_some_and(|e| e.kind == EventKind::Join)
    }

    /// The events after `end_ms`, the end of a run
    /// ([`crate::report::Report::end_ms`]: every rule's last answer): they
    /// change nothing in it. The run's length stays as the requests make
    /// it; the front ends mark these and say so.
    pub fn after(&self, end_ms: f64) -> impl Iterator<Item = &Event> {
        self.0.iter().filter(move |e| e.at_ms as f64 > end_ms)
    }

    /// The events that name a server of `names`, and how many were dropped
    /// (the page drops events of servers that no longer exist).
    pub fn keep_servers(&self, names: &[String]) -> (Events, usize) {
        let kept: Vec<Event> = self.0.iter().filter(|e| names.contains(&e.server)).cloned().collect();
        let dropped = self.0.len() - kept.len();
        (Events(kept), dropped)
    }
}

impl fmt::Display for Events {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

/// Events travel as their canonical string in JSON, as in links and flags.
impl Serialize for Events {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Events {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Events::parse(&text).map_err(|item| serde::de::Error::custom(format!("events: '{item}': {ALLOWED}")))
    }
}

/// A pool in a message: every name up to ten, else the first ten and how
/// many there are (a 1,024-server pool is not a message's worth).
fn pool_words(names: &[String]) -> String {
    const SHOWN: usize = 10;
    if names.len() <= SHOWN {
        return names.join(", ");
    }
    format!("{}, ... {} servers in all", names[..SHOWN].join(", "), names.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `lbsim list events` says what the parser takes: every kind reads
    /// back by its name, and slow's factor range is the one checked.
    #[test]
    fn every_kind_reads_by_its_name_and_slow_names_its_range() {
        for kind in EventKind::ALL {
            let text = kind.to_string();
            assert_eq!(EventKind::parse(&text), Some(kind), "{text}");
            assert!(text.starts_with(kind.name()));
        }
        let (lo, hi) = SLOW_RANGE;
        assert!(EventKind::Slow(1.0).meaning().contains(&format!("({lo} to {hi})")));
    }

    fn names(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("s{i}")).collect()
    }

    /// An unknown server in a large pool names ten of the pool and its
    /// size, not all 1,024 names.
    #[test]
    fn an_unknown_server_lists_at_most_ten_of_the_pool() {
        let events = Events::parse("1s:nope:crash").expect("parses");
        let (item, why) = events.check_against(&names(1024)).expect_err("nope is no server");
        assert_eq!(item, "1s:nope:crash");
        assert_eq!(
            why,
            "a server of the pool (s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, ... 1024 servers in all)"
        );
        let (_, why) = events.check_against(&names(3)).expect_err("nope is no server");
        assert_eq!(why, "a server of the pool (s1, s2, s3)");
    }

    #[test]
    fn canonical_form_sorts_by_time_and_writes_seconds_when_whole() {
        let e = Events::parse("40s:s3:recover,1500ms:s1:slow=0.2,20.000s:s3:fail,2.5s:h:80:join").unwrap();
        assert_eq!(e.to_string(), "1500ms:s1:slow=0.2,2500ms:h:80:join,20s:s3:fail,40s:s3:recover");
        assert_eq!(e.0[1].server, "h:80", "host:port names read whole");
    }

    #[test]
    fn bad_items_are_named() {
        for bad in
            ["20:s1:fail", "20s:s1:explode", "x:s1:fail", "20s::fail", "1.2345s:s1:fail", "20s:s1:slow=0"]
        {
            assert_eq!(Events::parse(&format!("1s:s2:fail,{bad}")), Err(bad.to_string()), "{bad}");
        }
        let many: Vec<String> = (0..65).map(|i| format!("{i}s:s1:fail")).collect();
        assert_eq!(Events::parse(&many.join(",")), Err("65 events".to_string()));
        assert!(Events::parse("86401s:s1:fail").is_err());
    }

    #[test]
    fn membership_and_recovery_are_checked_in_time_order() {
        let check = |text: &str| Events::parse(text).unwrap().check_against(&names(4)).map_err(|e| e.0);
        assert_eq!(check("20s:s4:join,30s:s4:leave,40s:s4:join"), Ok(()));
        assert_eq!(check("20s:s4:join,30s:s4:join"), Err("30s:s4:join".to_string()));
        assert_eq!(check("20s:s1:join"), Ok(()), "s1 starts outside: its first membership event is a join");
        assert_eq!(check("20s:s1:leave,30s:s1:leave"), Err("30s:s1:leave".to_string()));
        assert_eq!(check("20s:s1:recover"), Err("20s:s1:recover".to_string()));
        assert_eq!(check("20s:s9:fail"), Err("20s:s9:fail".to_string()));
        assert_eq!(check("20s:s2:crash,40s:s2:recover"), Ok(()));
    }
}
