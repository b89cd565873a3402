//! The open-loop load: the scenario's own requests (arrival time, work,
//! user) sent through the balancer at their times, whether or not earlier
//! ones were answered. A pool of client threads, each with one keep-alive
//! connection to the balancer, takes the requests in arrival order: a
//! thread that is free takes the next one and sends it at its time, so a
//! request is sent late only when every thread is busy, and how late is
//! recorded. Each latency is measured at the client, from the send to the
//! end of the answer.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lbsim_core::workload::Request;

use super::servers::{spawn, wait_until};

/// The longest any one answer may take (a slow node's queue can hold a
/// quick request for many seconds).
const ANSWER_WITHIN: Duration = Duration::from_secs(120);

/// What became of one request.
#[derive(Clone, Debug, Default)]
pub(super) struct Outcome {
    /// The server that answered (its name), empty when none did.
    pub(super) server: String,
    /// Send to the end of the answer, ms.
    pub(super) latency_ms: f64,
    /// How late it was sent against its arrival time, ms.
    pub(super) late_ms: f64,
    /// The HTTP status (0 when no answer came).
    pub(super) status: u16,
    /// The queue wait plus service the server timed, ms: the latency
    /// without the balancer's own and the client's.
    pub(super) at_server_ms: f64,
}

/// Sends `requests` to the balancer on `front`, request `i` at `epoch` +
/// its arrival time, from `threads` client threads; each request's
/// outcome, in arrival order. Bounded: every answer within
/// [`ANSWER_WITHIN`].
pub(super) fn send_all(front: u16, requests: &[Request], epoch: Instant, threads: usize) -> Vec<Outcome> {
    let requests: Arc<Vec<(f64, String)>> = Arc::new(
        requests
            .iter()
            .map(|r| (r.arrival_ms, format!("/?user=user-{}&work={:.6}", r.user, r.work_ms)))
            .collect(),
    );
    let next = Arc::new(AtomicUsize::new(0));
    let outcomes = Arc::new(Mutex::new(vec![Outcome::default(); requests.len()]));
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let mut started = 0;
    for _ in 0..threads.max(1) {
        let (requests, next, outcomes, done) =
            (Arc::clone(&requests), Arc::clone(&next), Arc::clone(&outcomes), done_tx.clone());
        let client = move || {
            let mut connection: Option<Connection> = None;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((arrival_ms, path)) = requests.get(i) else { break };
                let at = epoch + Duration::from_secs_f64(arrival_ms / 1000.0);
                wait_until(at);
                let sent = Instant::now();
                let answer = exchange(&mut connection, front, path);
                let latency_ms = sent.elapsed().as_secs_f64() * 1000.0;
                let (status, server, at_server_ms) = answer.unwrap_or((0, String::new(), 0.0));
                let late_ms = (sent - at).as_secs_f64() * 1000.0;
                if let Ok(mut outcomes) = outcomes.lock() {
                    outcomes[i] = Outcome { server, latency_ms, late_ms, status, at_server_ms };
                }
            }
            let _ = done.send(());
        };
        if spawn(client).is_ok() {
            started += 1;
        }
    }
    drop(done_tx);
    for _ in 0..started {
        if done_rx.recv().is_err() {
            break;
        }
    }
    let outcomes = outcomes.lock().map(|o| o.clone()).unwrap_or_default();
    outcomes
}

/// A keep-alive connection to the balancer.
struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Connection {
    fn open(front: u16) -> Option<Connection> {
        let addr = SocketAddr::from(([127, 0, 0, 1], front));
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
        stream.set_nodelay(true).ok()?;
        stream.set_read_timeout(Some(ANSWER_WITHIN)).ok()?;
        let writer = stream.try_clone().ok()?;
        Some(Connection { reader: BufReader::new(stream), writer })
    }
}

/// One GET over the kept connection (opened, or opened again once when a
/// kept one turns out closed before answering): the status, the
/// answering server's name and the time it timed (ms).
fn exchange(connection: &mut Option<Connection>, front: u16, path: &str) -> Option<(u16, String, f64)> {
    let request = format!("GET {path} HTTP/1.1\r\nHost: testbed\r\n\r\n");
    for _attempt in 0..2 {
        let reused = connection.is_some();
        if connection.is_none() {
            *connection = Connection::open(front);
        }
        let conn = connection.as_mut()?;
        let answer = conn.writer.write_all(request.as_bytes()).ok().and_then(|()| read_answer(conn));
        match answer {
            Some((status, server, at_server_ms, keep)) => {
                if !keep {
                    *connection = None;
                }
                return Some((status, server, at_server_ms));
            }
            None => {
                *connection = None;
                // A kept connection the balancer had closed: once more on
                // a new one. A new one that fails is a failed request.
                if !reused {
                    return None;
                }
            }
        }
    }
    None
}

/// Reads one answer (head bounded to 64 lines, body to 4 KiB): its
/// status, the server its body names and the wait plus service it gives
/// (`NAME WAIT_US SERVICE_US`, ms), whether the connection stays open.
fn read_answer(conn: &mut Connection) -> Option<(u16, String, f64, bool)> {
    let mut line = String::new();
    conn.reader.read_line(&mut line).ok().filter(|&n| n > 0)?;
    let status: u16 = line.split_whitespace().nth(1)?.parse().ok()?;
    let (mut length, mut keep) = (0usize, line.starts_with("HTTP/1.1"));
    for _ in 0..64 {
        line.clear();
        conn.reader.read_line(&mut line).ok().filter(|&n| n > 0)?;
        let header = line.trim_end();
        if header.is_empty() {
            let mut body = vec![0u8; length.min(4096)];
            conn.reader.read_exact(&mut body).ok()?;
            let body = String::from_utf8_lossy(&body);
            let mut words = body.split_whitespace();
            let server = words.next().unwrap_or_default().to_string();
            let us: f64 = words.take(2).filter_map(|w| w.parse::<f64>().ok()).sum();
            return Some((status, server, us / 1000.0, keep && length <= 4096));
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok()?;
            } else if name.eq_ignore_ascii_case("connection") {
                keep = !value.trim().eq_ignore_ascii_case("close");
            }
        }
    }
    None
}
