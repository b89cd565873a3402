//! HAProxy's `option httplog` and `option tcplog` lines (HAProxy's
//! configuration manual, "Log formats"), with or without the syslog
//! header in front:
//!
//! ```text
//! 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 "GET / HTTP/1.1"
//! 10.0.1.2:33313 [06/Feb/2009:12:12:51.443] fnt bck/srv1 0/0/5007 212 -- 0/0/0/0/3 0/0
//! ```
//!
//! The accept date is the arrival. HTTP: the server's time is `Tr`, the
//! whole `Ta`; `Tr` of -1 (no answer) or a 5xx is an error. TCP: the time
//! connected is `Tt - Tw - Tc`, the whole `Tt`; `Tc` of -1 is an error.
//! The last of the connection counts (`+3`) is the retries.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::clock;
use super::entry::{duration, short, Entry};

/// Which of the two lines.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Mode {
    Http,
    Tcp,
}

/// The line's mode by its timers' count, if it reads as HAProxy's.
pub(super) fn mode_of(line: &str) -> Option<Mode> {
    let (_, _, rest) = split(line).ok()?;
    match rest.get(2)?.split('/').count() {
        5 => Some(Mode::Http),
        3 => Some(Mode::Tcp),
        _ => None,
    }
}

/// The client's address, the accept date, and the fields after it.
fn split(line: &str) -> Result<(&str, f64, Vec<&str>), String> {
    // The accept date is the first `[..]` holding a date; the client's
    // `ip:port` is the word before it.
    let mut from = 0;
    loop {
        let open =
            line[from..].find('[').map(|i| from + i).ok_or("no accept date [dd/Mon/yyyy:hh:mm:ss.mmm]")?;
        let close = line[open..].find(']').map(|i| open + i).ok_or("no ] after the accept date")?;
        if let Some(date) = clock::common_log(&line[open + 1..close]) {
            let client = line[..open].trim_end().rsplit(' ').next().unwrap_or("");
            let fields = line[close + 1..].split_whitespace().collect();
            return Ok((client, date, fields));
        }
        from = close + 1;
    }
}

/// A timer in ms (`-1`: never reached).
fn timer(text: &str, name: &str) -> Result<Option<f64>, String> {
    duration(text, 1.0).map_err(|e| format!("{name}: {e}"))
}

/// One line's entry.
pub(super) fn entry(line: &str, mode: Mode) -> Result<Entry<'_>, String> {
    let (client, arrival_ms, fields) = split(line)?;
    let at =
        |i: usize, what: &str| fields.get(i).copied().ok_or_else(|| format!("the line ends before {what}"));
    let (_, server) = at(1, "backend/server")?.split_once('/').ok_or("no backend/server")?;
    let timers: Vec<&str> = at(2, "the timers")?.split('/').collect();
    let key = client.rsplit_once(':').map_or(client, |(ip, _)| ip);
    let mut entry = Entry { arrival_ms, key: Some(key).filter(|k| !k.is_empty()), ..Entry::default() };
    entry.failed |= server == "<NOSRV>";
    entry.server = Some(server).filter(|_| !entry.failed);
    let conns_at = match (mode, timers.len()) {
        (Mode::Http, 5) => {
            let tr = timer(timers[3], "Tr")?;
            let status: u16 = at(3, "the status")?
                .parse()
                .map_err(|_| format!("status \"{}\" is not a number", short(fields[3])))?;
            entry.failed |= tr.is_none() || status >= 500;
            entry.upstream_ms = tr;
            entry.total_ms = timer(timers[4], "Ta")?;
            8
        }
        (Mode::Tcp, 3) => {
            let (tw, tc, tt) = (timer(timers[0], "Tw")?, timer(timers[1], "Tc")?, timer(timers[2], "Tt")?);
            entry.failed |= tc.is_none() || tt.is_none();
            entry.total_ms = tt;
            entry.upstream_ms = tt.map(|t| (t - tw.unwrap_or(0.0) - tc.unwrap_or(0.0)).max(0.0));
            5
        }
        (_, n) => {
            let want = if mode == Mode::Http {
                "5 timers TR/Tw/Tc/Tr/Ta (httplog)"
            } else {
                "3 timers Tw/Tc/Tt (tcplog)"
            };
            return Err(format!("{n} timers where {want} stand"));
        }
    };
    let conns = at(conns_at, "the connection counts")?;
    let retries = conns.rsplit('/').next().unwrap_or("0").trim_start_matches('+');
    entry.retries = retries.parse().map_err(|_| format!("retries \"{}\" is not a number", short(retries)))?;
    Ok(entry)
}
