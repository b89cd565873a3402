//! Access logs as the workload (docs/model.md#your-own-traffic): the
//! readers of the logs NGINX, HAProxy and AWS's ALB write, and of a plain
//! CSV, fed any chunking of the bytes ([`LogReader::push`]) and turned
//! into [`Traffic`]: requests in arrival order with their work, the keys
//! the hashing rules see and the servers the log names.
//!
//! What it is not: it opens no file and decompresses nothing (the front
//! ends do), and it fits no scenario to a log (the estimators do).

mod alb;
mod csv;
mod entry;
mod haproxy;
mod nginx;
mod reader;
mod summary;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

pub use self::nginx::{LbsimFormat, DEFAULT_FORMAT};
pub use self::reader::{LogReader, LogSettings, MAX_LINE_BYTES};
pub use self::summary::TrafficSummary;
pub use crate::scenario::{LogKind, WorkFrom};
use crate::workload::Request;

/// How far a reader has got, for a progress line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogProgress {
    /// Lines read (a last line without its newline counts once finished).
    pub lines: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Requests kept.
    pub kept: u64,
    /// Lines skipped (blank lines are not counted).
    pub skipped: u64,
    /// The first few skipped lines: their number and why.
    pub first_skips: Vec<Skip>,
    /// The kind given or detected so far.
    pub kind: Option<LogKind>,
}

/// Skipped lines kept with their reasons: enough to see a pattern.
pub const SKIPS_SHOWN: usize = 5;

/// A line that was skipped, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Skip {
    /// 1-based line number.
    pub line: u64,
    /// Why, in words.
    pub reason: String,
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

/// Why a log cannot be read at all.
#[derive(Clone, Debug, PartialEq)]
pub enum LogError {
    /// Nothing in it: no bytes, or only blank lines.
    Empty,
    /// Bytes no text log holds (a NUL or invalid UTF-8 early on).
    Binary {
        /// Where the first such byte is.
        offset: u64,
    },
    /// The kind was not given and the first lines fit none, or several.
    Undetected {
        /// What the first line looks like.
        saw: String,
        /// The kinds it could be (empty: none).
        candidates: Vec<LogKind>,
    },
    /// The format has no timing lbsim can take an arrival or work from.
    NoTiming {
        /// The field or variable that is missing.
        missing: String,
        /// What to add, such as the `log_format` line.
        fix: String,
    },
    /// A `log_format` string lbsim cannot parse by.
    BadFormat {
        /// Why.
        reason: String,
    },
    /// Most lines failed: the log is not of the expected kind.
    MostLinesFail {
        /// The kind expected.
        kind: LogKind,
        /// Lines read.
        lines: u64,
        /// Lines skipped.
        skipped: u64,
        /// The first skipped lines with their reasons.
        first_skips: Vec<Skip>,
    },
    /// No line gave a request.
    NoRequests {
        /// Lines read.
        lines: u64,
        /// The first skipped lines with their reasons.
        first_skips: Vec<Skip>,
    },
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let skips = |f: &mut fmt::Formatter<'_>, first: &[Skip]| -> fmt::Result {
            for skip in first {
                write!(f, "\n  {skip}")?;
            }
            Ok(())
        };
        match self {
            LogError::Empty => write!(f, "log: the log is empty (no lines to read)"),
            LogError::Binary { offset } => write!(
                f,
                "log: byte {offset} is not text (a NUL or invalid UTF-8): this looks like a binary file, not \
                 an access log (gzip is read when its magic bytes lead the file)"
            ),
            LogError::Undetected { saw, candidates } if candidates.is_empty() => write!(
                f,
                "log-kind: the first line fits none of nginx, haproxy, haproxy-tcp, alb, csv; it reads \
                 \"{saw}\" (give --log-kind, and --log-format for NGINX)"
            ),
            LogError::Undetected { saw, candidates } => {
                let ids: Vec<&str> = candidates.iter().map(|k| k.id()).collect();
                write!(
                    f,
                    "log-kind: the first line could be {}; it reads \"{saw}\" (give --log-kind)",
                    ids.join(" or ")
                )
            }
            LogError::NoTiming { missing, fix } => {
                write!(f, "log-format: the log has no timing: {missing} is missing; {fix}")
            }
            LogError::BadFormat { reason } => write!(f, "log-format: {reason}"),
            LogError::MostLinesFail { kind, lines, skipped, first_skips } => {
                write!(
                    f,
                    "log: {skipped} of {lines} lines do not parse as {} (is this the log's kind and format?)",
                    kind.id()
                )?;
                skips(f, first_skips)
            }
            LogError::NoRequests { lines, first_skips } => {
                write!(f, "log: none of its {lines} lines gave a request")?;
                skips(f, first_skips)
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LogError {}

/// What a log holds, as the simulator takes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Traffic {
    /// In arrival order, arrivals from 0 ms (timestamps shifted so the
    /// first is 0; CSV taken as written), work in ms at speed 1, `user` a
    /// 1-based index into `keys`, `slow` from a class column when present,
    /// `copy` 0 (assigned per scenario when run).
    pub requests: Vec<Request>,
    /// The hashing key of user k is `keys[k - 1]` (`203.0.113.7`, or
    /// `user-7` from lbsim's own export, which is read back as user 7).
    pub keys: Vec<String>,
    /// Per request, the index into `servers` of the server the log says
    /// answered (`u16::MAX` when unknown).
    pub served_by: Vec<u16>,
    /// Servers seen, named as the scenario's name grammar allows (all
    /// renamed `s1`.. with a note when one is not).
    pub servers: Vec<String>,
    /// Whether requests carry quick/slow classes.
    pub classed: bool,
    /// Requests that failed (a 5xx, a connection error), counted and not
    /// replayed as work.
    pub errors: u64,
    /// Retries the logging balancer made, counted and not replayed.
    pub retries: u64,
    /// What the reader decided that a reader of the results should know.
    pub notes: Vec<String>,
    /// The kind the log was read as.
    pub kind: LogKind,
}

impl Traffic {
    /// What was read, before any run: span, rate over time, work
    /// percentiles, top keys' shares, servers seen.
    pub fn summary(&self) -> TrafficSummary {
        TrafficSummary::of(self)
    }

    /// Makes the log's servers the scenario's fleet (their count and
    /// names, speeds and weights cleared), for a front end whose user has
    /// not set the servers; a log that names no server leaves it alone.
    pub fn fleet_into(&self, scenario: &mut crate::Scenario) {
        if self.servers.is_empty() {
            return;
        }
        scenario.servers = self.servers.len() as u32;
        scenario.names = self.servers.clone();
        scenario.speeds.clear();
        scenario.weights.clear();
    }

    /// The hashing key of a request's user.
    pub fn key(&self, user: u32) -> &str {
        self.keys.get(user.wrapping_sub(1) as usize).map_or("", String::as_str)
    }
}
