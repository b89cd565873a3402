//! The suite's backends: one listener a port on loopback, each answering
//! its own `127.0.0.1:PORT`. A request that carries `hold=ID` is held
//! open until the suite releases that id, so which server a balancer
//! chooses while requests are in flight is decided by the sequence, not
//! by timing; the suite learns where a held request went as soon as it
//! arrives there. Every wait is bounded.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long anything waits for the other side: a held request for its
/// release, the suite for an arrival.
const PATIENCE: Duration = Duration::from_secs(10);

#[derive(Default)]
struct State {
    /// Held requests that arrived, by id: the port they arrived at.
    arrived: BTreeMap<u64, u16>,
    released: BTreeSet<u64>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The running backends (their threads end with the suite's process).
pub struct Backends {
    shared: Arc<Shared>,
}

impl Backends {
    /// Listens on every port of `ports` before returning, so a balancer
    /// started next finds its servers up.
    pub fn start(ports: &[u16]) -> Result<Backends, String> {
        let shared = Arc::new(Shared::default());
        for &port in ports {
            let listener = TcpListener::bind(("127.0.0.1", port))
                .map_err(|e| format!("backend 127.0.0.1:{port}: {e}"))?;
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    let shared = Arc::clone(&shared);
                    std::thread::spawn(move || answer(stream, port, &shared));
                }
            });
        }
        Ok(Backends { shared })
    }

    /// The port held request `id` arrived at, once it has (at most
    /// [`PATIENCE`]).
    pub fn arrival(&self, id: u64) -> Result<u16, String> {
        let started = Instant::now();
        let mut state = self.shared.lock();
        loop {
            if let Some(&port) = state.arrived.get(&id) {
                return Ok(port);
            }
            let left = PATIENCE
                .checked_sub(started.elapsed())
                .ok_or(format!("held request {id} reached no backend within {} s", PATIENCE.as_secs()))?;
            state = self.shared.changed.wait_timeout(state, left).map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }

    /// Lets held request `id` be answered.
    pub fn release(&self, id: u64) {
        self.shared.lock().released.insert(id);
        self.shared.changed.notify_all();
    }
}

/// Reads a request's head (bounded), holds it if it asks, answers the
/// backend's own address and closes.
fn answer(mut stream: TcpStream, port: u16, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(PATIENCE));
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    if let Some(id) = hold_id(&head) {
        let started = Instant::now();
        let mut state = shared.lock();
        state.arrived.insert(id, port);
        shared.changed.notify_all();
        while !state.released.contains(&id) {
            let Some(left) = PATIENCE.checked_sub(started.elapsed()) else { return };
            state = shared.changed.wait_timeout(state, left).map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }
    let body = format!("127.0.0.1:{port}");
    // One write: pieces would wait on Nagle for the peer's delayed ACK.
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.set_nodelay(true);
    let _ = stream.write_all(response.as_bytes());
}

/// The `hold=ID` of a request line's query, if any.
fn hold_id(head: &str) -> Option<u64> {
    let target = head.lines().next()?.split(' ').nth(1)?;
    let (_, query) = target.split_once('?')?;
    query.split('&').find_map(|pair| pair.strip_prefix("hold=")?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hold_id_is_read_from_the_query() {
        assert_eq!(hold_id("GET /?user=user-3&hold=17 HTTP/1.0\r\n"), Some(17));
        assert_eq!(hold_id("GET /?hold=2&user=user-3 HTTP/1.1\r\n"), Some(2));
        assert_eq!(hold_id("GET /?user=user-3 HTTP/1.0\r\n"), None);
    }
}
