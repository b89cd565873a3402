//! The testbed's servers: loopback listeners that behave as the model's
//! servers do (docs/model.md): `slots` requests served at once, the rest
//! waiting in one FIFO queue, each request holding its slot for its work
//! (`?work=MS`, at speed 1) divided by the server's speed at its start.
//!
//! With FIFO and no preemption a request's start is known when it
//! arrives (the earliest free slot's free time, or now if later), as in
//! the core's engine, so no thread serves a slot: each connection's thread
//! books the slot at arrival and sleeps to the booked end. The answer
//! carries the server's name, the request's queue wait and its service
//! time (µs). The events the real balancers can see are played on the
//! run's clock: `slow=F` and `recover` change the speed of requests that
//! start from then on, `fail` answers every request it starts with a 500
//! after `error-ms` (docs/testbed.md#what-the-testbed-plays).
//!
//! Sleeping alone overshoots by the timer's slack (50 µs and more), so
//! every wait sleeps to a quarter millisecond before its deadline and
//! spins the rest (`wait_until`): longer spins would take the cores the
//! balancer needs. Each answer's lateness against its booked
//! end is kept, the servers' own error; a slot is free again at its booked
//! end whatever that lateness, so the queue is the model's.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use lbsim_core::events::EventKind;
use lbsim_core::Scenario;

/// How long a connection waits for its next request before the server
/// closes it (the balancers keep idle connections for less).
const IDLE: Duration = Duration::from_secs(120);

/// How long before a deadline a wait stops sleeping and spins.
const SPIN: Duration = Duration::from_micros(250);

/// Sleeps to `deadline`, spinning over its last
/// [`SPIN`]; returns how late it woke.
pub(super) fn wait_until(deadline: Instant) -> Duration {
    let now = Instant::now();
    if deadline > now + SPIN {
        std::thread::sleep(deadline - now - SPIN);
    }
    // Not yielding: on a machine busy with builds a yield gives the core
    // away for a whole time slice, milliseconds past the deadline.
    while Instant::now() < deadline {
        std::hint::spin_loop();
    }
    Instant::now() - deadline
}

/// One server's speed and health over the run, from the scenario's events.
#[derive(Clone)]
struct Plan {
    name: String,
    speed: f64,
    /// `(at_ms, what)`, in time order: a speed, or a black hole.
    changes: Vec<(f64, Phase)>,
}

#[derive(Clone, Copy)]
enum Phase {
    Speed(f64),
    Fail,
}

impl Plan {
    /// The server's phase for a request that starts at `at_ms`.
    fn phase(&self, at_ms: f64) -> Phase {
        self.changes.iter().rev().find(|(t, _)| *t <= at_ms).map_or(Phase::Speed(self.speed), |&(_, p)| p)
    }
}

/// What the servers cannot play of a scenario's events, as a reason.
pub(super) fn unplayable(scenario: &Scenario) -> Option<String> {
    let kind = scenario
        .events
        .0
        .iter()
        .find(|e| !matches!(e.kind, EventKind::Slow(_) | EventKind::Fail | EventKind::Recover))?;
    Some(format!(
        "events: `{}`: the testbed's servers play slow=F, fail and recover; a crash, join or leave \
         changes what the balancer's config lists, which a running NGINX or HAProxy does not follow",
        kind.kind
    ))
}

#[derive(Default)]
struct Server {
    /// When each slot is next free.
    free_at: Vec<Instant>,
    /// The starts of requests waiting (FIFO starts never decrease).
    waiting: VecDeque<Instant>,
    peak_queue: u32,
    requests: u64,
    /// How late each answer left against its booked end, µs.
    late_us: Vec<u64>,
}

/// What one server saw over a run.
pub(super) struct Seen {
    pub(super) requests: u64,
    pub(super) peak_queue: u32,
    pub(super) late_us: Vec<u64>,
}

struct Shared {
    plans: Vec<Plan>,
    slots: usize,
    error_ms: f64,
    epoch: Mutex<Instant>,
    servers: Vec<Mutex<Server>>,
    stop: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The running servers; their threads end when [`Servers::stop`] is
/// called (or with the process).
pub(super) struct Servers {
    shared: Arc<Shared>,
    ports: Vec<u16>,
}

impl Servers {
    /// Listens on every port of `ports` (server `i` of `scenario` on
    /// `ports[i]`) before returning.
    pub(super) fn start(scenario: &Scenario, ports: &[u16]) -> Result<Servers, String> {
        let plans = (0..ports.len())
            .map(|i| {
                let name = scenario.server_name(i);
                let changes = scenario
                    .events
                    .0
                    .iter()
                    .filter(|e| e.server == name)
                    .filter_map(|e| {
                        let phase = match e.kind {
                            EventKind::Slow(f) => Phase::Speed(f),
                            EventKind::Fail => Phase::Fail,
                            EventKind::Recover => Phase::Speed(scenario.speed(i)),
                            _ => return None,
                        };
                        Some((e.at_ms as f64, phase))
                    })
                    .collect();
                Plan { name, speed: scenario.speed(i), changes }
            })
            .collect();
        let shared = Arc::new(Shared {
            plans,
            slots: scenario.slots as usize,
            error_ms: scenario.error_ms,
            epoch: Mutex::new(Instant::now()),
            servers: ports.iter().map(|_| Mutex::new(Server::default())).collect(),
            stop: AtomicBool::new(false),
        });
        for (i, &port) in ports.iter().enumerate() {
            let listener = TcpListener::bind(("127.0.0.1", port))
                .map_err(|e| format!("testbed server 127.0.0.1:{port}: {e}"))?;
            let shared = Arc::clone(&shared);
            spawn(move || accept(&listener, i, &shared))?;
        }
        let servers = Servers { shared, ports: ports.to_vec() };
        servers.reset(Instant::now());
        Ok(servers)
    }

    /// Empties every queue and slot and counts from zero, the run's time
    /// 0 at `epoch`.
    pub(super) fn reset(&self, epoch: Instant) {
        *lock(&self.shared.epoch) = epoch;
        for server in &self.shared.servers {
            *lock(server) = Server { free_at: vec![epoch; self.shared.slots], ..Server::default() };
        }
    }

    /// What each server saw since the last reset.
    pub(super) fn seen(&self) -> Vec<Seen> {
        self.shared
            .servers
            .iter()
            .map(|s| {
                let s = lock(s);
                Seen { requests: s.requests, peak_queue: s.peak_queue, late_us: s.late_us.clone() }
            })
            .collect()
    }

    /// The servers' ports, in the scenario's order.
    pub(super) fn ports(&self) -> &[u16] {
        &self.ports
    }

    /// Stops accepting (each listener is woken by a connection of its
    /// own); open connections end at their next request.
    pub(super) fn stop(&self) {
        if !self.shared.stop.swap(true, Ordering::Relaxed) {
            for &port in &self.ports {
                let _ = TcpStream::connect_timeout(
                    &(std::net::Ipv4Addr::LOCALHOST, port).into(),
                    Duration::from_secs(1),
                );
            }
        }
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A thread with a small stack (the testbed runs hundreds).
pub(super) fn spawn(f: impl FnOnce() + Send + 'static) -> Result<(), String> {
    std::thread::Builder::new().stack_size(128 * 1024).spawn(f).map(|_| ()).map_err(|e| e.to_string())
}

/// Accepts connections until stopped, each served on its own thread.
/// Blocking: a poll's sleep would delay every new connection, and NGINX
/// opens one per request.
fn accept(listener: &TcpListener, index: usize, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(shared);
        // Out of threads, the connection is dropped: the balancer reports
        // an error, which the client counts.
        let _ = spawn(move || serve(stream, index, &shared));
    }
}

/// Serves the requests of one connection, one after the other (a
/// balancer sends the next only once this one is answered), until it
/// closes, asks to close, or idles [`IDLE`].
fn serve(stream: TcpStream, index: usize, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(IDLE));
    let _ = stream.set_nodelay(true);
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    // At most this many requests on one connection, so the loop is bounded.
    for _ in 0..1_000_000 {
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        let Some((target, keep_alive)) = read_head(&mut reader, &mut line) else { return };
        let arrived = Instant::now();
        let work_ms = work_of(&target).unwrap_or(0.0);
        let (status, start, end) = book(index, shared, arrived, work_ms);
        let late = wait_until(end);
        let wait_us = (start - arrived).as_micros();
        let service_us = (end - start).as_micros();
        let body = format!("{} {wait_us} {service_us}", shared.plans[index].name);
        let response = format!(
            "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: {}\r\n\r\n{body}",
            body.len(),
            if keep_alive { "keep-alive" } else { "close" }
        );
        // One write: pieces would wait on Nagle for the peer's delayed ACK.
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
        lock(&shared.servers[index]).late_us.push(late.as_micros() as u64);
        if !keep_alive {
            return;
        }
    }
}

/// Books a slot for a request that arrived at `arrived`: its status line,
/// start and end.
fn book(index: usize, shared: &Shared, arrived: Instant, work_ms: f64) -> (&'static str, Instant, Instant) {
    let epoch = *lock(&shared.epoch);
    let mut server = lock(&shared.servers[index]);
    server.requests += 1;
    while server.waiting.front().is_some_and(|&s| s <= arrived) {
        server.waiting.pop_front();
    }
    let Some(slot) = (0..server.free_at.len()).min_by_key(|&k| server.free_at[k]) else {
        return ("200 OK", arrived, arrived);
    };
    let start = server.free_at[slot].max(arrived);
    let at_ms = start.saturating_duration_since(epoch).as_secs_f64() * 1000.0;
    let (status, held_ms) = match shared.plans[index].phase(at_ms) {
        Phase::Speed(speed) => ("200 OK", work_ms / speed),
        Phase::Fail => ("500 Internal Server Error", shared.error_ms),
    };
    let end = start + Duration::from_secs_f64(held_ms.max(0.0) / 1000.0);
    server.free_at[slot] = end;
    if start > arrived {
        server.waiting.push_back(start);
        server.peak_queue = server.peak_queue.max(server.waiting.len() as u32);
    }
    (status, start, end)
}

/// Reads one request's head (bounded: 64 lines): its target and whether
/// the connection stays open after the answer (HTTP/1.1 unless it says
/// `close`; HTTP/1.0 only if it says `keep-alive`).
fn read_head(reader: &mut BufReader<TcpStream>, line: &mut String) -> Option<(String, bool)> {
    line.clear();
    reader.read_line(line).ok().filter(|&n| n > 0)?;
    let mut parts = line.split_whitespace();
    let (_method, target, version) = (parts.next()?, parts.next()?.to_string(), parts.next()?);
    let mut keep_alive = version == "HTTP/1.1";
    for _ in 0..64 {
        line.clear();
        reader.read_line(line).ok().filter(|&n| n > 0)?;
        let header = line.trim_end();
        if header.is_empty() {
            return Some((target, keep_alive));
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("connection") {
                keep_alive = value.trim().eq_ignore_ascii_case("keep-alive");
            }
        }
    }
    None
}

/// The `work=MS` of a request target's query.
fn work_of(target: &str) -> Option<f64> {
    let (_, query) = target.split_once('?')?;
    query.split('&').find_map(|pair| pair.strip_prefix("work=")?.parse().ok()).filter(|w: &f64| w.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_is_read_from_the_query() {
        assert_eq!(work_of("/?user=user-3&work=20.5"), Some(20.5));
        assert_eq!(work_of("/?work=400&user=user-3"), Some(400.0));
        assert_eq!(work_of("/?user=user-3"), None);
    }
}
