//! Access logs as the workload (docs/model.md#your-own-traffic): the
//! readers of the logs NGINX, HAProxy and AWS's ALB write, and of a plain
//! CSV, fed any chunking of the bytes ([`LogReader::push`]) and turned
//! into [`Traffic`]: requests in arrival order with their work, the keys
//! the hashing rules see and the servers the log names.
//!
//! What it is not: it opens no file and decompresses nothing (the front
//! ends do), and it fits no scenario to a log (the estimators do).

mod alb;
mod clock;
pub mod csv;
mod entry;
mod error;
mod haproxy;
mod nginx;
mod reader;
mod summary;
mod traffic;

pub use self::error::{LogError, LogProgress, Skip, SKIPS_SHOWN};
pub use self::nginx::{LbsimFormat, DEFAULT_FORMAT};
pub use self::reader::{LogReader, LogSettings, MAX_LINE_BYTES};
pub use self::summary::TrafficSummary;
pub use self::traffic::Traffic;
pub use crate::scenario::{LogKind, WorkFrom};

#[cfg(test)]
mod tests;
