//! Reading the access log a scenario names (`--log FILE`, `-` for standard
//! input): plain or gzip (told by its magic bytes, decompressed as a
//! stream with flate2's `MultiGzDecoder`), fed to the core's reader in
//! chunks. The core decides what a line means (docs/model.md#your-own-traffic);
//! this opens, decompresses and bounds the memory.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

use flate2::bufread::MultiGzDecoder;
use lbsim_core::access_log::{LogError, LogReader, LogSettings, Traffic};
use lbsim_core::scenario::thousands;
use lbsim_core::Scenario;

use crate::outcome::{bad, complain, Failure};

/// Bytes read at a time.
const CHUNK: usize = 1 << 20;

/// Bytes of a short log line (lbsim's own CSV writes about 30; the
/// programs' lines are 100 and more), so a file's size estimates the
/// requests it holds before it is read.
const TYPICAL_LINE: u64 = 24;

/// Bytes a request read from a log holds: the request, its server, and a
/// share of the keys.
const BYTES_PER_REQUEST: u64 = 40;

/// Bytes the requests of a log may hold; with the run's own peak this
/// stays within the run's budget.
pub const TRACE_BUDGET: u64 = 1 << 29;

/// The gzip magic bytes.
const GZIP: [u8; 2] = [0x1f, 0x8b];

/// The traffic of the scenario's log, if it names one: read, with its
/// kind written back into the scenario (so the report names it) and the
/// servers seen made the fleet unless `fleet_given`.
pub fn read(scenario: &mut Scenario, fleet_given: bool) -> Result<Option<Traffic>, Failure> {
    let Some(name) = scenario.log.clone() else {
        return Ok(None);
    };
    let unreadable = |e: io::Error| bad("log", &name, format!("a readable access log ({e})"));
    let (source, size): (Box<dyn Read>, Option<u64>) = if name == "-" {
        (Box::new(io::stdin().lock()), None)
    } else {
        let file = File::open(&name).map_err(unreadable)?;
        let size = file.metadata().map_err(unreadable)?.len();
        (Box::new(file), Some(size))
    };
    let mut input = BufReader::with_capacity(CHUNK, source);
    let gzip = input.fill_buf().map_err(unreadable)?.starts_with(&GZIP);
    // A plain file's size bounds its requests before a byte is kept.
    if let Some(size) = size.filter(|_| !gzip) {
        let estimate = size / TYPICAL_LINE * BYTES_PER_REQUEST;
        if estimate > TRACE_BUDGET {
            return Err(too_large(&name, estimate));
        }
    }
    let mut reader = LogReader::new(LogSettings::of(scenario));
    let mut input: Box<dyn Read> = if gzip { Box::new(MultiGzDecoder::new(input)) } else { Box::new(input) };
    let mut buffer = vec![0u8; CHUNK];
    loop {
        let n = match input.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if gzip => {
                return Err(bad(
                    "log",
                    &name,
                    format!(
                        "a whole gzip stream; it breaks off after {} lines ({e})",
                        reader.progress().lines
                    ),
                ))
            }
            Err(e) => return Err(unreadable(e)),
        };
        reader.push(&buffer[..n]).map_err(|e| unread(&e, &name))?;
        // Standard input and gzip are bounded as they are read.
        if reader.held_bytes() > TRACE_BUDGET {
            return Err(too_large(&name, reader.held_bytes()));
        }
    }
    let progress = reader.progress();
    let traffic = reader.finish().map_err(|e| unread(&e, &name))?;
    for first in &progress.first_skips {
        complain(&format!("note: {name}: skipped {first}"));
    }
    for note in &traffic.notes {
        complain(&format!("note: {name}: {note}"));
    }
    scenario.log_kind = Some(traffic.kind);
    if !fleet_given {
        traffic.fleet_into(scenario);
    }
    Ok(Some(traffic))
}

/// The core's reason a log cannot be read, the file named on its first line.
fn unread(error: &LogError, name: &str) -> Failure {
    let text = error.to_string();
    let (first, rest) = text.split_once('\n').map_or((text.as_str(), ""), |(a, b)| (a, b));
    let rest = if rest.is_empty() { String::new() } else { format!("\n{rest}") };
    Failure::Input(format!("{first} [{name}]{rest}"))
}

fn too_large(name: &str, bytes: u64) -> Failure {
    bad(
        "log",
        name,
        format!(
            "a log whose requests fit {} MB; this one needs about {} MB (split it, or take a time window)",
            TRACE_BUDGET / 1_000_000,
            thousands(bytes.div_ceil(1_000_000))
        ),
    )
}

/// The line a table starts with: where the requests came from.
pub fn source_line(scenario: &Scenario, traffic: &Traffic) -> String {
    let kind = traffic.kind.id();
    let mut line = format!(
        "log {}, {kind}, {} requests",
        scenario.log.as_deref().unwrap_or("-"),
        thousands(traffic.requests.len() as u64)
    );
    if traffic.errors > 0 || traffic.retries > 0 {
        line += &format!(
            " ({} errors and {} retries counted, not replayed)",
            thousands(traffic.errors),
            thousands(traffic.retries)
        );
    }
    if scenario.time_scale != 1.0 {
        line += &format!(", at {}x its rate", scenario.time_scale);
    }
    line.push('\n');
    line
}
