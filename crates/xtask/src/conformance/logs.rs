//! The real balancers' own access logs, read back by lbsim's readers
//! (`lbsim_core::access_log`): NGINX writes lbsim's timing `log_format`
//! to a file, HAProxy its `option httplog` line to a UDP socket on
//! loopback (HAProxy 2.6 logs to syslog targets, standard output or
//! rings, never to a file of its own). Each log must hold every request
//! the suite sent, each at the server that answered it as the suite saw,
//! keyed by the suite's own address, at times that stay within the run.

use std::collections::BTreeMap;
use std::net::UdpSocket;
use std::path::Path;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use lbsim_core::access_log::{LbsimFormat, LogKind, LogReader, LogSettings, Traffic};

use super::http::address;

/// Where HAProxy sends its log lines.
pub(super) const HAPROXY_LOG_PORT: u16 = 18399;

/// NGINX's `http` block lines: lbsim's timing format, to `logs/access.log`.
pub(super) fn nginx_directives(prefix: &Path) -> String {
    format!("{}\n  access_log {}/logs/access.log lbsim;\n", LbsimFormat::directive(), prefix.display())
}

/// HAProxy's `global` line: raw lines (no syslog header) to the socket.
pub(super) fn haproxy_global() -> String {
    format!("    log {} format raw local0\n", address(HAPROXY_LOG_PORT))
}

/// HAProxy's `defaults` lines: the default HTTP log format.
pub(super) const HAPROXY_DEFAULTS: &str = "    log global\n    option httplog\n";

/// The socket HAProxy logs to, read on a thread of its own; bound before
/// HAProxy starts so no line is lost.
pub(super) struct Syslog {
    lines: Receiver<Vec<u8>>,
}

impl Syslog {
    pub(super) fn listen() -> Result<Syslog, String> {
        let socket = UdpSocket::bind(("127.0.0.1", HAPROXY_LOG_PORT))
            .map_err(|e| format!("HAProxy's log socket {}: {e}", address(HAPROXY_LOG_PORT)))?;
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut datagram = vec![0u8; 65_536];
            while let Ok(n) = socket.recv(&mut datagram) {
                if send.send(datagram[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Ok(Syslog { lines })
    }

    /// The request lines received, once `expected` have come or the log
    /// has been quiet for a second.
    pub(super) fn take(&self, expected: usize) -> Vec<u8> {
        let mut log = Vec::new();
        let mut count = 0;
        let deadline = Instant::now() + Duration::from_secs(10);
        while count < expected && Instant::now() < deadline {
            match self.lines.recv_timeout(Duration::from_secs(1)) {
                // The start's readiness probe connects and closes without a
                // request, which HAProxy logs as `<BADREQ>` to no server: not
                // one of the suite's requests.
                Ok(line) if line.windows(8).any(|w| w == b"<BADREQ>") => {}
                Ok(line) => {
                    log.extend_from_slice(line.strip_suffix(b"\n").unwrap_or(&line));
                    log.push(b'\n');
                    count += 1;
                }
                Err(_) => break,
            }
        }
        log
    }
}

/// The server that answered a request as the suite saw it (the last of
/// its `>`-separated attempts), `None` for a 502.
fn answered_by(seen: &str) -> Option<&str> {
    let last = seen.rsplit('>').next().unwrap_or(seen);
    (last != "502").then_some(last)
}

/// Reads a log as `kind` and holds it to what the suite saw: `seen`, one
/// entry per request sent, in any order; `span` the time the requests took.
/// `server` turns a logged server's name into the address it stands for.
pub(super) fn check(
    balancer: &str,
    kind: LogKind,
    log: &[u8],
    seen: &[String],
    span: Duration,
    server: impl Fn(&str) -> Option<String>,
) -> Result<usize, String> {
    let mut reader = LogReader::new(LogSettings { kind: Some(kind), ..LogSettings::default() });
    reader.push(log).map_err(|e| format!("{balancer}'s access log: {e}"))?;
    let progress = reader.progress();
    let traffic: Traffic = reader.finish().map_err(|e| format!("{balancer}'s access log: {e}"))?;
    let found = traffic.requests.len() + traffic.errors as usize;
    if found != seen.len() || progress.skipped > 0 {
        return Err(format!(
            "{balancer}'s access log: {found} requests read ({} skipped: {:?}) for {} sent",
            progress.skipped,
            progress.first_skips,
            seen.len()
        ));
    }
    let mut want: BTreeMap<String, usize> = BTreeMap::new();
    for s in seen.iter().filter_map(|s| answered_by(s)) {
        *want.entry(s.to_string()).or_default() += 1;
    }
    let mut got: BTreeMap<String, usize> = BTreeMap::new();
    for &i in &traffic.served_by {
        let name = traffic.servers.get(usize::from(i)).map_or("(unknown)", String::as_str);
        let address = server(name).ok_or_else(|| format!("{balancer}'s access log names server {name}"))?;
        *got.entry(address).or_default() += 1;
    }
    if got != want {
        return Err(format!("{balancer}'s access log: requests per server {got:?}, the suite saw {want:?}"));
    }
    // Every request came from the suite's own address.
    if let Some(key) = traffic.keys.iter().find(|k| *k != "127.0.0.1") {
        return Err(format!("{balancer}'s access log: key {key}, the suite sends from 127.0.0.1 only"));
    }
    // Times as logged: arrivals in order from 0 within the run, work no
    // longer than the run (each program's clock to the millisecond).
    let span_ms = span.as_secs_f64() * 1000.0 + 1.0;
    let mut last = 0.0;
    for (n, r) in traffic.requests.iter().enumerate() {
        if r.arrival_ms < last || r.arrival_ms > span_ms || !(0.0..=span_ms).contains(&r.work_ms) {
            return Err(format!(
                "{balancer}'s access log: request {} arrives at {} ms with work {} ms, outside the run's {span_ms} ms",
                n + 1,
                r.arrival_ms,
                r.work_ms
            ));
        }
        last = r.arrival_ms;
    }
    Ok(found)
}
