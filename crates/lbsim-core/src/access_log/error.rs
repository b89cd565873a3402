//! How far a reader has got, the lines it skipped, and why a log cannot
//! be read at all.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::scenario::LogKind;

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
