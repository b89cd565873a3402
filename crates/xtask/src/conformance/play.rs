//! A case's requests played against a balancer's front: one at a time,
//! held open and finished out of order, or at set times; and the steps
//! `lbsim trace --steps` reads for the same play.

use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use super::backends::Backends;
use super::cases::Case;
use super::http::{address, attempts, get, read_answer, send};

/// The backend that answers each of `n` requests to `front`, request i
/// carrying `?user=user-{i+1}`.
pub(super) fn sequence(front: u16, n: usize) -> Result<Vec<String>, String> {
    (1..=n).map(|user| get(front, &format!("/?user=user-{user}"))).collect()
}

/// A held case's steps, as `lbsim trace --steps` reads them: `case.picks`
/// arrivals (user i for the i-th), at most twice the servers plus one in
/// flight, each finish a pseudo-random one of those in flight (xorshift,
/// seeded by the case's index, so the sequence is the same every run).
pub(super) fn held_steps(index: u64, case: &Case) -> String {
    let mut state = 0x9E37_79B9_7F4A_7C15 ^ (index + 1);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let most = 2 * case.weights.len() + 1;
    let (mut steps, mut in_flight, mut arrived) = (Vec::new(), Vec::new(), 0);
    while arrived < case.picks || !in_flight.is_empty() {
        let arrive =
            arrived < case.picks && (in_flight.is_empty() || (in_flight.len() < most && next() % 3 != 0));
        if arrive {
            arrived += 1;
            in_flight.push(arrived);
            steps.push(format!("arrive:user-{arrived}"));
        } else {
            let k = in_flight.swap_remove((next() % in_flight.len() as u64) as usize);
            steps.push(format!("finish:{k}"));
        }
    }
    steps.join(",")
}

/// Plays `steps` against `front`: each arrival is a request held open at
/// its backend (`hold=K` for the K-th), recorded as soon as it gets there;
/// each finish releases one and reads its answer to the end, after which
/// the balancer has closed the request. The backend of each arrival.
pub(super) fn held_sequence(backends: &Backends, front: u16, steps: &str) -> Result<Vec<String>, String> {
    // A new id space per case, so a request released earlier never matches.
    static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let base = NEXT_ID.fetch_add(1_000_000, std::sync::atomic::Ordering::Relaxed);
    let mut open: Vec<Option<TcpStream>> = Vec::new();
    let mut seen = Vec::new();
    for step in steps.split(',') {
        if let Some(user) = step.strip_prefix("arrive:") {
            let id = base + open.len() as u64 + 1;
            let addr = SocketAddr::from(([127, 0, 0, 1], front));
            let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2))
                .map_err(|e| format!("{addr}: {e}"))?;
            stream.set_read_timeout(Some(Duration::from_secs(5))).map_err(|e| e.to_string())?;
            send(&mut stream, &format!("/?user={user}&hold={id}"))?;
            seen.push(address(backends.arrival(id)?));
            open.push(Some(stream));
        } else if let Some(k) = step.strip_prefix("finish:").and_then(|k| k.parse::<usize>().ok()) {
            let mut stream =
                open.get_mut(k - 1).and_then(Option::take).ok_or(format!("step {step}: not open"))?;
            backends.release(base + k as u64);
            let body = read_answer(&mut stream, front)?;
            if body != seen[k - 1] {
                return Err(format!("request {k} reached {} but was answered by {body}", seen[k - 1]));
            }
            // The balancer closes its side once it has let the request go;
            // a moment more for its bookkeeping on loopback.
            std::thread::sleep(Duration::from_millis(15));
        }
    }
    Ok(seen)
}

/// A timed case's steps: request k at `at:T`, five a second, each at
/// least 120 ms from a whole second (so NGINX's second and lbsim's agree
/// whatever the few milliseconds a request takes), answered at once.
pub(super) fn timed_steps(case: &Case) -> String {
    (1..=case.picks)
        .map(|k| {
            let t = 1000 * ((k - 1) / 5) + 120 + 170 * ((k - 1) % 5);
            format!("at:{t},arrive:user-{k},finish:{k}")
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Plays timed `steps` against `front` from the start of a wall-clock
/// second (NGINX's `ngx_time()` counts them): each request is sent at its
/// time and read to its end. For each, the attempts NGINX made
/// (`$upstream_addr`), `>`-separated, ending `>502` if none answered.
pub(super) fn timed_sequence(front: u16, steps: &str) -> Result<Vec<String>, String> {
    let into_second = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| e.to_string())?
        .subsec_nanos();
    std::thread::sleep(Duration::from_nanos(u64::from(1_000_000_000 - into_second)));
    let start = Instant::now();
    let mut seen = Vec::new();
    let mut at_ms = 0;
    for step in steps.split(',') {
        if let Some(t) = step.strip_prefix("at:").and_then(|t| t.parse::<u64>().ok()) {
            at_ms = t;
            let at = start + Duration::from_millis(t);
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
        } else if let Some(user) = step.strip_prefix("arrive:") {
            seen.push(attempts(front, &format!("/?user={user}"))?);
            // Answered well inside its second, or NGINX's clock and the
            // prediction's may differ: a busy machine, not a disagreement.
            let late = start.elapsed().as_millis() as u64 - at_ms;
            if late > 100 {
                return Err(format!(
                    "{user} was answered {late} ms after its time, too near a whole second to compare: \
                     the machine is too busy; run again"
                ));
            }
        }
    }
    Ok(seen)
}
