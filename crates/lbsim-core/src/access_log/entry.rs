//! One parsed line, as every format's reader gives it, and the gathering
//! of lines into [`Traffic`]: keys and servers numbered as first seen,
//! arrivals sorted and shifted to start at 0, errors and retries counted.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;

use super::traffic::Traffic;
use crate::scenario::{name_problem, LogKind, WorkFrom, FIELDS};
use crate::workload::Request;

/// What one line says, on the log's own clock.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Entry<'a> {
    /// When the request arrived, in ms (epoch ms for the programs' logs,
    /// CSV's own clock).
    pub arrival_ms: f64,
    /// The server's own time for it, in ms, when logged.
    pub upstream_ms: Option<f64>,
    /// The balancer's whole time for it, in ms, when logged.
    pub total_ms: Option<f64>,
    /// The key the hashing rules see.
    pub key: Option<&'a str>,
    /// The server that answered.
    pub server: Option<&'a str>,
    /// Quick (false) or slow (true), when classed.
    pub slow: Option<bool>,
    /// Failed or never dispatched: counted, not replayed.
    pub failed: bool,
    /// Retries the logging balancer made for it.
    pub retries: u32,
}

/// A duration as logs write it: seconds (`0.123`) or ms, `-` or `-1` for
/// a phase never reached (`None`); a negative one is refused.
pub(super) fn duration(text: &str, unit_ms: f64) -> Result<Option<f64>, String> {
    let text = text.trim().trim_start_matches('+');
    if text == "-" || text == "-1" || text.is_empty() {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(Some(v * unit_ms)),
        Ok(_) => Err(format!("negative duration {text}")),
        Err(_) => Err(format!("duration \"{}\" is not a number", short(text))),
    }
}

/// At most 40 characters of a piece of a line, for a message.
pub(super) fn short(text: &str) -> &str {
    match text.char_indices().nth(40) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// Lines gathered so far.
#[derive(Debug, Default)]
pub(super) struct Gathered {
    requests: Vec<Request>,
    served_by: Vec<u16>,
    keys: Vec<String>,
    key_ids: HashMap<String, u32, FxBuildHasher>,
    servers: Vec<String>,
    server_ids: HashMap<String, u16, FxBuildHasher>,
    classed: bool,
    errors: u64,
    retries: u64,
    keyless: u64,
    out_of_order: u64,
    /// The largest step back in time between consecutive lines, ms.
    largest_step_back_ms: f64,
    work_fallback: bool,
}

/// A clock stepping back more than this between lines is a jump (an NTP
/// correction, logs of two hosts concatenated), said in a note.
const CLOCK_JUMP_MS: f64 = 60_000.0;

impl Gathered {
    /// Takes one line's entry: a request, or an error counted.
    pub fn take(&mut self, entry: &Entry<'_>, work_from: WorkFrom) -> Result<(), String> {
        self.retries += u64::from(entry.retries);
        if entry.failed {
            self.errors += 1;
            return Ok(());
        }
        let work_ms = match (work_from, entry.upstream_ms, entry.total_ms) {
            (WorkFrom::Upstream, Some(w), _) | (WorkFrom::Total, _, Some(w)) => w,
            (WorkFrom::Upstream, None, Some(w)) => {
                self.work_fallback = true;
                w
            }
            _ => return Err("no duration to take work from (- or -1)".to_string()),
        };
        if !entry.arrival_ms.is_finite() || entry.arrival_ms < 0.0 {
            return Err(format!("arrival {} is not a time", entry.arrival_ms));
        }
        if let Some(last) = self.requests.last() {
            if entry.arrival_ms < last.arrival_ms {
                self.out_of_order += 1;
                self.largest_step_back_ms = self.largest_step_back_ms.max(last.arrival_ms - entry.arrival_ms);
            }
        }
        let user = match entry.key {
            Some(key) => self.key_id(key),
            None => {
                self.keyless += 1;
                self.key_id("-")
            }
        };
        let server = entry.server.map_or(u16::MAX, |s| self.server_id(s));
        self.classed |= entry.slow.is_some();
        self.requests.push(Request {
            arrival_ms: entry.arrival_ms,
            work_ms,
            user,
            slow: entry.slow.unwrap_or(false),
            copy: 0,
        });
        self.served_by.push(server);
        Ok(())
    }

    fn key_id(&mut self, key: &str) -> u32 {
        if let Some(&id) = self.key_ids.get(key) {
            return id;
        }
        self.keys.push(key.to_string());
        let id = self.keys.len() as u32;
        self.key_ids.insert(key.to_string(), id);
        id
    }

    fn server_id(&mut self, server: &str) -> u16 {
        if let Some(&id) = self.server_ids.get(server) {
            return id;
        }
        if self.servers.len() >= usize::from(u16::MAX - 1) {
            return u16::MAX;
        }
        self.servers.push(server.to_string());
        let id = (self.servers.len() - 1) as u16;
        self.server_ids.insert(server.to_string(), id);
        id
    }

    /// Requests kept so far.
    pub fn kept(&self) -> u64 {
        self.requests.len() as u64
    }

    /// The bytes the gathered requests hold, for a memory estimate.
    pub fn bytes(&self) -> u64 {
        (self.requests.capacity() * core::mem::size_of::<Request>() + self.served_by.capacity() * 2) as u64
            + self.keys.iter().map(|k| k.len() as u64 * 2 + 64).sum::<u64>()
    }

    /// The traffic the gathered lines make.
    pub fn finish(self, kind: LogKind, notes: Vec<String>) -> Traffic {
        let Gathered { mut requests, mut served_by, mut keys, mut servers, classed, .. } = self;
        let mut notes = notes;
        if self.out_of_order > 0 {
            notes.push(format!(
                "{} lines arrived before the line above them: requests are taken in arrival order",
                self.out_of_order
            ));
            let mut order: Vec<u32> = (0..requests.len() as u32).collect();
            // Stable: lines logged at the same instant keep their order.
            order.sort_by(|&a, &b| {
                requests[a as usize].arrival_ms.total_cmp(&requests[b as usize].arrival_ms)
            });
            requests = order.iter().map(|&i| requests[i as usize]).collect();
            served_by = order.iter().map(|&i| served_by[i as usize]).collect();
        }
        if self.largest_step_back_ms > CLOCK_JUMP_MS {
            notes.push(format!(
                "the clock stepped back {:.0} s between two lines (a clock jump, or logs joined): check the span",
                self.largest_step_back_ms / 1000.0
            ));
        }
        // The programs' clocks are wall clocks; a CSV's is its own.
        if kind != LogKind::Csv {
            if let Some(first) = requests.first().map(|r| r.arrival_ms) {
                for r in &mut requests {
                    r.arrival_ms -= first;
                }
            }
        }
        if self.work_fallback {
            notes.push("some lines have no server time: their work is the balancer's whole time".to_string());
        }
        if self.keyless > 0 {
            notes.push(format!("{} requests carry no key: they share the key \"-\"", self.keyless));
        }
        if !classed {
            notes.push("no classes in the log: latency is shown for all requests only".to_string());
        }
        lbsim_user_ids(&mut requests, &mut keys);
        let names_ok = servers.iter().all(|s| name_problem(s).is_none());
        let most = FIELDS.iter().find(|f| f.key == "servers").map_or(1024.0, |f| f.max) as usize;
        if !names_ok {
            notes.push(format!(
                "server names the scenario cannot take ({}): renamed s1..s{}",
                short(servers.iter().find(|s| name_problem(s).is_some()).map_or("", String::as_str)),
                servers.len()
            ));
            servers = (1..=servers.len()).map(|i| format!("s{i}")).collect();
        }
        if servers.len() > most {
            notes.push(format!(
                "{} servers seen, more than a scenario takes ({most}): the fleet is the scenario's",
                servers.len()
            ));
        }
        Traffic {
            requests,
            keys,
            served_by,
            servers,
            classed,
            errors: self.errors,
            retries: self.retries,
            notes,
            kind,
        }
    }
}

/// lbsim's own export writes user k's key as `user-k`: such keys are read
/// back as user k, so a workload written and read back draws the same
/// users in the same order (the realized section ranks ties by user).
fn lbsim_user_ids(requests: &mut [Request], keys: &mut Vec<String>) {
    // A scenario draws at most the `users` field's maximum.
    let most_users = FIELDS.iter().find(|f| f.key == "users").map_or(0.0, |f| f.max);
    let number = |key: &str| -> Option<u32> {
        let digits = key.strip_prefix("user-")?;
        if digits.starts_with('0') || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u32>().ok().filter(|&n| f64::from(n) <= most_users)
    };
    let Some(ids) = keys.iter().map(|k| number(k)).collect::<Option<Vec<u32>>>() else {
        return;
    };
    for r in requests.iter_mut() {
        r.user = ids[r.user as usize - 1];
    }
    let most = ids.iter().copied().max().unwrap_or(0);
    *keys = (1..=most).map(|k| format!("user-{k}")).collect();
}
