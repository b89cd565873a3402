//! The streaming reader: bytes in any chunking, split into lines, each
//! line read by its kind's reader.

use alloc::string::String;

use super::entry::Gathered;
use super::{LogError, LogKind, LogProgress, Traffic, WorkFrom};

/// Longest line read: a longer one is skipped and counted, so memory
/// stays bounded whatever the input.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// How to read a log: the scenario's `log-kind`, `log-format` and
/// `work-from` fields (`time-scale` acts when the log is run:
/// [`crate::Prepared::with_traffic`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LogSettings {
    /// Which program wrote it; `None`: detected from the first lines.
    pub kind: Option<LogKind>,
    /// NGINX's `log_format` string; `None`: lbsim's timing format.
    pub format: Option<String>,
    /// Which logged duration is the work.
    pub work_from: WorkFrom,
}

impl Default for LogSettings {
    fn default() -> Self {
        LogSettings { kind: None, format: None, work_from: WorkFrom::Upstream }
    }
}

impl LogSettings {
    /// The settings a scenario's fields give.
    pub fn of(scenario: &crate::Scenario) -> LogSettings {
        LogSettings {
            kind: scenario.log_kind,
            format: scenario.log_format.clone(),
            work_from: scenario.work_from,
        }
    }
}

/// Reads a log fed in chunks.
#[derive(Debug)]
pub struct LogReader {
    settings: LogSettings,
    progress: LogProgress,
    gathered: Gathered,
}

impl LogReader {
    /// A reader with nothing read yet.
    pub fn new(settings: LogSettings) -> LogReader {
        let progress = LogProgress { kind: settings.kind, ..LogProgress::default() };
        LogReader { settings, progress, gathered: Gathered::default() }
    }

    /// Feeds the next bytes (any chunking; lines may span chunks; a line
    /// longer than [`MAX_LINE_BYTES`] is skipped and counted).
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), LogError> {
        self.progress.bytes += chunk.len() as u64;
        Ok(())
    }

    /// How far it has got.
    pub fn progress(&self) -> LogProgress {
        self.progress.clone()
    }

    /// The traffic read, once every byte has been pushed.
    pub fn finish(self) -> Result<Traffic, LogError> {
        let kind = self.progress.kind.ok_or(LogError::Empty)?;
        let _ = &self.settings;
        Ok(self.gathered.finish(kind))
    }
}
