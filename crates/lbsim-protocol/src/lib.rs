//! # lbsim-protocol
//!
//! The messages between the playground page (`lbsim-web`) and its
//! simulator workers (`lbsim-worker`): the page sends [`ToWorker`] and
//! receives [`FromWorker`], both carried by `postMessage` as the bytes of
//! [`wire`] (no JSON and no serde reader in the bundle). Its own small
//! crate so that the page and the worker share it without depending on
//! each other.
//!
//! What it is not: it sends nothing itself and knows nothing of browsers.
//! It may import `lbsim-core` only.

extern crate alloc;

pub mod wire;

use lbsim_core::replay::Replay;
use lbsim_core::{Report, Scenario};

/// Requests simulated per call into the core between clock checks. Small,
/// because a fresh worker starts on V8's baseline code and a new call is
/// where the optimized code takes over.
pub const SLICE_REQUESTS: u64 = 5_000;

/// Wall time in ms the worker computes before yielding to its event loop,
/// so that a `Cancel` or a newer `Run` can arrive.
pub const SLICE_MS: f64 = 12.0;

/// Page to worker.
#[derive(Clone, Debug, PartialEq)]
pub enum ToWorker {
    /// Runs a scenario; supersedes any run in progress.
    Run {
        /// Increases with every run the page asks for.
        run_id: u32,
        /// What to run.
        scenario: Box<Scenario>,
    },
    /// Stops the run `run_id` if it is still in progress.
    Cancel {
        /// The run to stop.
        run_id: u32,
    },
}

/// Worker to page.
#[derive(Clone, Debug, PartialEq)]
pub enum FromWorker {
    /// The worker's wasm has started; messages sent before this are lost.
    Ready,
    /// Requests done so far (requests x algorithms) of `total`.
    Progress {
        /// The run this belongs to.
        run_id: u32,
        /// Requests simulated so far, summed over algorithms.
        done: u64,
        /// Requests to simulate, summed over algorithms.
        total: u64,
    },
    /// The run finished.
    Done {
        /// The run this belongs to.
        run_id: u32,
        /// Its report.
        report: Box<Report>,
    },
    /// The run was cancelled before it finished.
    Cancelled {
        /// The run that stopped.
        run_id: u32,
    },
    /// The scenario was rejected, or the worker panicked (`fatal`: the page
    /// must restart the worker).
    Error {
        /// The run this belongs to, when known.
        run_id: Option<u32>,
        /// What went wrong, for people.
        message: String,
        /// Whether the worker is unusable from now on.
        fatal: bool,
    },
}

/// The replay's worker to the page (the replay view, `lbsim-replay`): the
/// replays of a window, each time in full (f64, so the counters the page
/// takes from them are the core's to the bit), or why there are none. The
/// page asks with `[id, scenario link, "rule,rule", window]`.
#[derive(Clone, Debug, PartialEq)]
pub enum FromReplayWorker {
    /// The window's replays, in the order asked.
    Done {
        /// The request this answers (the page keeps only the latest).
        id: u32,
        /// One per rule asked.
        replays: Vec<Replay>,
    },
    /// The scenario or the window was rejected.
    Error {
        /// The request this answers.
        id: u32,
        /// What went wrong, naming the field.
        message: String,
    },
}
