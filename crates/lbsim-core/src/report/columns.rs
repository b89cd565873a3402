//! The results table's columns, one list for every front end: the page's
//! sortable table shows them all, the CLI's terminal table a few of them
//! in its own layout, and both show a column only where a report has it
//! (quick requests for bimodal work, errors and retries for a fleet that
//! fails, hit rates for caches, connections for a rule that keeps each
//! copy to a part of the servers).

use alloc::format;
use alloc::string::String;

use super::{AlgorithmResult, Report};

/// One column of the results table: key, heading, value, digits shown, and whether a report
/// shows it (the fleet's and the caches' columns only when some run has
/// them).
pub struct Column {
    /// The column's key (`data-key` on the page).
    pub key: &'static str,
    /// Its heading.
    pub heading: &'static str,
    /// Its figure for one rule's result; `None` where the run has none.
    pub value: fn(&AlgorithmResult) -> Option<f64>,
    /// How the figure is written in a cell.
    pub format: fn(f64) -> String,
    /// When a report shows it; always, when `None`.
    pub shown: Option<fn(&Report) -> bool>,
}

impl Column {
    /// Whether `report` shows the column.
    pub fn shown(&self, report: &Report) -> bool {
        self.shown.is_none_or(|f| f(report))
    }
}

/// Milliseconds: whole from 100 up, else one decimal.
pub fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// A ratio, two decimals.
pub fn ratio(v: f64) -> String {
    format!("{v:.2}")
}

/// A share as a percentage, one decimal.
pub fn percent(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

/// A count.
pub fn count(v: f64) -> String {
    format!("{v:.0}")
}

/// Every column of the results table, in its order.
pub const COLUMNS: &[Column] = &[
    Column {
        key: "quick-p99",
        heading: "quick p99 (ms)",
        value: |r| r.latency_ms.quick.map(|p| p.p99),
        format: ms,
        // Only bimodal work has quick requests; elsewhere the column has no meaning.
        shown: Some(|report| report.results.iter().any(|r| r.latency_ms.quick.is_some())),
    },
    Column {
        key: "p50",
        heading: "p50 (ms)",
        value: |r| Some(r.latency_ms.all.p50),
        format: ms,
        shown: None,
    },
    Column {
        key: "p99",
        heading: "p99 (ms)",
        value: |r| Some(r.latency_ms.all.p99),
        format: ms,
        shown: None,
    },
    Column {
        key: "p999",
        heading: "p99.9 (ms)",
        value: |r| Some(r.latency_ms.all.p999),
        format: ms,
        shown: None,
    },
    Column {
        key: "max",
        heading: "max (ms)",
        value: |r| Some(r.latency_ms.all.max),
        format: ms,
        shown: None,
    },
    Column {
        key: "mean",
        heading: "mean (ms)",
        value: |r| Some(r.latency_ms.all.mean),
        format: ms,
        shown: None,
    },
    Column {
        key: "wait-p99",
        heading: "wait p99 (ms)",
        value: |r| Some(r.wait_ms.p99),
        format: ms,
        shown: None,
    },
    Column {
        key: "peak-queue",
        heading: "peak queue",
        value: |r| Some(f64::from(r.peak_queue)),
        format: count,
        shown: None,
    },
    Column {
        key: "busiest-share",
        heading: "largest share",
        value: |r| Some(r.busiest_share),
        format: percent,
        shown: None,
    },
    Column {
        key: "imbalance",
        heading: "imbalance",
        value: |r| Some(r.imbalance),
        format: ratio,
        shown: None,
    },
    Column {
        key: "errors",
        heading: "errors",
        value: |r| r.errors.map(|e| e as f64),
        format: count,
        shown: Some(Report::has_errors),
    },
    Column {
        key: "error-share",
        heading: "error share",
        value: |r| r.error_share,
        format: percent,
        shown: Some(Report::has_errors),
    },
    Column {
        key: "retries",
        heading: "retries",
        value: |r| r.retries.map(|e| e as f64),
        format: count,
        shown: Some(Report::has_retries),
    },
    Column {
        key: "hit-rate",
        heading: "hit rate",
        value: |r| r.hit_rate.flatten(),
        format: percent,
        shown: Some(Report::has_caches),
    },
    Column {
        key: "connections",
        heading: "connections",
        value: |r| r.connections.map(|c| c.total as f64),
        format: count,
        shown: Some(Report::has_connections),
    },
];

/// The column with this key; only ever called with keys of [`COLUMNS`].
pub fn column(key: &str) -> &'static Column {
    COLUMNS.iter().find(|c| c.key == key).expect("key is in COLUMNS")
}
