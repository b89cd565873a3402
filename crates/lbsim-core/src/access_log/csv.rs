//! CSV: `arrival_ms,work_ms[,key][,class]` under a header naming them,
//! what a script writes and what `lbsim workload --format csv` exports.
//! Arrivals are taken as written; a class is `slow` or `quick` (`1`, `0`).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::entry::{duration, short, Entry};

/// The columns, by the header.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Columns {
    arrival: usize,
    work: usize,
    key: Option<usize>,
    class: Option<usize>,
    count: usize,
}

/// Whether a line is the header.
pub(super) fn is_header(line: &str) -> bool {
    line.split(',').next().is_some_and(|c| c.trim() == "arrival_ms")
}

impl Columns {
    /// The columns a header names.
    pub fn of(header: &str) -> Result<Columns, String> {
        let names: Vec<&str> = header.split(',').map(str::trim).collect();
        let at = |name: &str| names.iter().position(|&n| n == name);
        let (Some(arrival), Some(work)) = (at("arrival_ms"), at("work_ms")) else {
            return Err(format!(
                "the header \"{}\" does not name arrival_ms and work_ms (arrival_ms,work_ms[,key][,class])",
                short(header)
            ));
        };
        Ok(Columns { arrival, work, key: at("key"), class: at("class"), count: names.len() })
    }

    /// One line's entry.
    pub fn entry<'a>(&self, line: &'a str) -> Result<Entry<'a>, String> {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != self.count {
            return Err(format!("{} columns where the header has {}", cells.len(), self.count));
        }
        let arrival = cells[self.arrival];
        let arrival_ms = match arrival.parse::<f64>() {
            Ok(a) if a.is_finite() && a >= 0.0 => a,
            _ => return Err(format!("arrival_ms \"{}\" is not a time of 0 or more", short(arrival))),
        };
        let work = duration(cells[self.work], 1.0).map_err(|e| format!("work_ms: {e}"))?;
        let slow = match self.class.map(|i| cells[i]) {
            None => None,
            Some("slow" | "1" | "true") => Some(true),
            Some("quick" | "0" | "false") => Some(false),
            Some(other) => return Err(format!("class \"{}\" is not slow or quick", short(other))),
        };
        Ok(Entry {
            arrival_ms,
            upstream_ms: work,
            total_ms: work,
            key: self.key.map(|i| cells[i]).filter(|k| !k.is_empty()),
            slow,
            ..Entry::default()
        })
    }
}

/// The header lbsim writes: with a class column when the workload is
/// classed, so a workload read back is classed as it was.
pub fn header(classed: bool) -> &'static str {
    if classed {
        "arrival_ms,work_ms,key,class"
    } else {
        "arrival_ms,work_ms,key"
    }
}

/// Writes a request as lbsim's CSV line: each f64 in its shortest form
/// that reads back to the same bits, user k's key as `user-k`.
pub fn write_line(out: &mut String, request: &crate::workload::Request, classed: bool) {
    use core::fmt::Write as _;
    let _ = write!(out, "{},{},user-{}", request.arrival_ms, request.work_ms, request.user);
    if classed {
        out.push_str(if request.slow { ",slow" } else { ",quick" });
    }
    out.push('\n');
}
