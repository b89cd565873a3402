//! The streaming reader: bytes in any chunking, split into lines, the kind
//! detected from the first line when not given, each line read by its
//! kind's reader and gathered.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::alb;
use super::csv::{self, Columns};
use super::entry::{short, Gathered};
use super::error::{LogError, LogProgress, Skip, SKIPS_SHOWN};
use super::haproxy::{self, Mode};
use super::nginx::NginxFormat;
use super::traffic::Traffic;
use crate::scenario::{LogKind, Scenario, WorkFrom};

/// Longest line read: a longer one is skipped and counted, so memory
/// stays bounded whatever the input.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Bytes looked at for a NUL, the mark of a binary file.
const SNIFF_BYTES: u64 = 8 * 1024;

/// After this many lines, a log whose lines mostly fail stops at once.
const EARLY_VERDICT_LINES: u64 = 1_000;

/// How to read a log: the scenario's `log-kind`, `log-format` and
/// `work-from` fields (`time-scale` acts when the log is run:
/// [`crate::Prepared::with_traffic`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogSettings {
    /// Which program wrote it; `None`: detected from the first line.
    pub kind: Option<LogKind>,
    /// NGINX's `log_format` string; `None`: lbsim's timing format.
    pub format: Option<String>,
    /// Which logged duration is the work.
    pub work_from: WorkFrom,
}

impl LogSettings {
    /// The settings a scenario's fields give.
    pub fn of(scenario: &Scenario) -> LogSettings {
        LogSettings {
            kind: scenario.log_kind,
            format: scenario.log_format.clone(),
            work_from: scenario.work_from,
        }
    }
}

/// A kind's line reader, once the kind is known.
#[derive(Clone, Debug)]
enum Lines {
    Nginx(NginxFormat),
    Haproxy(Mode),
    Alb,
    /// CSV: the columns once the header is read.
    Csv(Option<Columns>),
}

/// Reads a log fed in chunks.
#[derive(Debug)]
pub struct LogReader {
    settings: LogSettings,
    progress: LogProgress,
    gathered: Gathered,
    lines: Option<Lines>,
    /// The line so far, when a chunk ends inside it.
    partial: Vec<u8>,
    /// Inside a line longer than [`MAX_LINE_BYTES`]: its bytes are dropped.
    overlong: bool,
    notes: Vec<String>,
    /// The first error, kept so every later push returns it.
    failed: Option<LogError>,
}

impl LogReader {
    /// A reader with nothing read yet.
    pub fn new(settings: LogSettings) -> LogReader {
        let progress = LogProgress { kind: settings.kind, ..LogProgress::default() };
        LogReader {
            settings,
            progress,
            gathered: Gathered::default(),
            lines: None,
            partial: Vec::new(),
            overlong: false,
            notes: Vec::new(),
            failed: None,
        }
    }

    /// Feeds the next bytes (any chunking; lines may span chunks; a line
    /// longer than [`MAX_LINE_BYTES`] is skipped and counted).
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), LogError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let result = self.push_lines(chunk);
        if let Err(error) = &result {
            self.failed = Some(error.clone());
        }
        result
    }

    fn push_lines(&mut self, chunk: &[u8]) -> Result<(), LogError> {
        let start = self.progress.bytes;
        self.progress.bytes += chunk.len() as u64;
        if start < SNIFF_BYTES {
            let sniffed = &chunk[..chunk.len().min((SNIFF_BYTES - start) as usize)];
            if let Some(i) = sniffed.iter().position(|&b| b == 0) {
                return Err(LogError::Binary { offset: start + i as u64 });
            }
        }
        let mut rest = chunk;
        while !rest.is_empty() {
            let end = rest.iter().position(|&b| b == b'\n');
            let piece = &rest[..end.unwrap_or(rest.len())];
            if !self.overlong {
                if self.partial.len() + piece.len() > MAX_LINE_BYTES {
                    self.overlong = true;
                    self.partial.clear();
                } else {
                    self.partial.extend_from_slice(piece);
                }
            }
            match end {
                Some(i) => {
                    self.end_line()?;
                    rest = &rest[i + 1..];
                }
                None => break,
            }
        }
        Ok(())
    }

    /// The line in `partial` is whole.
    fn end_line(&mut self) -> Result<(), LogError> {
        self.progress.lines += 1;
        if core::mem::take(&mut self.overlong) {
            self.skip(format!("longer than {} KiB", MAX_LINE_BYTES / 1024));
        } else {
            let bytes = core::mem::take(&mut self.partial);
            let line = bytes.strip_suffix(b"\r").unwrap_or(&bytes);
            match core::str::from_utf8(line) {
                Ok(text) => self.read_line(text)?,
                Err(e) if self.progress.bytes <= SNIFF_BYTES => {
                    return Err(LogError::Binary {
                        offset: self.progress.bytes - line.len() as u64 + e.valid_up_to() as u64,
                    });
                }
                Err(_) => self.skip("not UTF-8 text".to_string()),
            }
            self.partial = bytes;
            self.partial.clear();
        }
        let (lines, skipped) = (self.progress.lines, self.progress.skipped);
        if lines == EARLY_VERDICT_LINES && skipped * 10 > lines * 9 {
            return Err(self.most_fail());
        }
        Ok(())
    }

    fn skip(&mut self, reason: String) {
        self.progress.skipped += 1;
        if self.progress.first_skips.len() < SKIPS_SHOWN {
            self.progress.first_skips.push(Skip { line: self.progress.lines, reason });
        }
    }

    fn most_fail(&self) -> LogError {
        LogError::MostLinesFail {
            kind: self.progress.kind.unwrap_or(LogKind::Nginx),
            lines: self.progress.lines,
            skipped: self.progress.skipped,
            first_skips: self.progress.first_skips.clone(),
        }
    }

    fn read_line(&mut self, line: &str) -> Result<(), LogError> {
        if line.trim().is_empty() {
            // Blank lines are neither requests nor faults.
            self.progress.lines -= 1;
            return Ok(());
        }
        if self.lines.is_none() {
            let kind = match self.settings.kind {
                Some(kind) => kind,
                None => detect(line, self.settings.format.as_deref())?,
            };
            self.progress.kind = Some(kind);
            self.lines = Some(match kind {
                LogKind::Nginx => {
                    let format = match &self.settings.format {
                        Some(text) => NginxFormat::compile(text)?,
                        None => NginxFormat::lbsim(),
                    };
                    if format.whole_seconds() {
                        self.notes
                            .push("the format has no $msec: arrivals are to the whole second".to_string());
                    }
                    Lines::Nginx(format)
                }
                LogKind::HaproxyHttp => Lines::Haproxy(Mode::Http),
                LogKind::HaproxyTcp => Lines::Haproxy(Mode::Tcp),
                LogKind::Alb => Lines::Alb,
                LogKind::Csv => Lines::Csv(None),
            });
        }
        let entry = match &mut self.lines {
            Some(Lines::Csv(columns @ None)) => {
                if !csv::is_header(line) {
                    return Err(LogError::Undetected {
                        saw: short(line).to_string(),
                        candidates: alloc::vec![LogKind::Csv],
                    });
                }
                *columns = Some(Columns::of(line).map_err(|reason| LogError::BadFormat { reason })?);
                return Ok(());
            }
            Some(Lines::Csv(Some(columns))) => columns.entry(line),
            Some(Lines::Nginx(format)) => format.entry(line),
            Some(Lines::Haproxy(mode)) => haproxy::entry(line, *mode),
            Some(Lines::Alb) => alb::entry(line),
            None => return Ok(()),
        };
        match entry.and_then(|e| self.gathered.take(&e, self.settings.work_from)) {
            Ok(()) => self.progress.kept = self.gathered.kept(),
            Err(reason) => self.skip(reason),
        }
        Ok(())
    }

    /// How far it has got.
    pub fn progress(&self) -> LogProgress {
        self.progress.clone()
    }

    /// The memory the requests read so far hold, in bytes.
    pub fn held_bytes(&self) -> u64 {
        self.gathered.bytes()
    }

    /// The traffic read, once every byte has been pushed.
    pub fn finish(mut self) -> Result<Traffic, LogError> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        if !self.partial.is_empty() || self.overlong {
            self.end_line()?;
        }
        let Some(kind) = self.progress.kind.filter(|_| self.progress.lines > 0) else {
            return Err(LogError::Empty);
        };
        let (lines, skipped) = (self.progress.lines, self.progress.skipped);
        if skipped * 2 > lines {
            return Err(self.most_fail());
        }
        if self.gathered.kept() == 0 {
            return Err(LogError::NoRequests { lines, first_skips: self.progress.first_skips });
        }
        if skipped > 0 {
            self.notes.push(format!("{skipped} of {lines} lines skipped"));
        }
        Ok(self.gathered.finish(kind, self.notes))
    }
}

/// The kind a first line is, when not given.
fn detect(line: &str, format: Option<&str>) -> Result<LogKind, LogError> {
    if format.is_some() {
        return Ok(LogKind::Nginx);
    }
    let mut candidates = Vec::new();
    if csv::is_header(line) {
        candidates.push(LogKind::Csv);
    }
    if alb::looks_like(line) {
        candidates.push(LogKind::Alb);
    }
    match haproxy::mode_of(line) {
        Some(Mode::Http) => candidates.push(LogKind::HaproxyHttp),
        Some(Mode::Tcp) => candidates.push(LogKind::HaproxyTcp),
        None => {}
    }
    if NginxFormat::lbsim().entry(line).is_ok() {
        candidates.push(LogKind::Nginx);
    }
    match candidates.as_slice() {
        [kind] => Ok(*kind),
        [] if NginxFormat::is_combined(line) => Err(LogError::NoTiming {
            missing: "$request_time (this is NGINX's combined format, which logs no durations)".to_string(),
            fix: format!(
                "add {} and `access_log /var/log/nginx/access.log lbsim;` to NGINX's http block",
                super::nginx::LbsimFormat::directive()
            ),
        }),
        _ => Err(LogError::Undetected { saw: short(line).to_string(), candidates }),
    }
}
