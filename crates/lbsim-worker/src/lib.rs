//! # lbsim-worker
//!
//! The playground's simulator worker: receives [`ToWorker`] messages, runs
//! the core in slices of about [`SLICE_MS`] and yields to its event loop
//! between slices through a `MessageChannel` (no timer clamping), so a
//! newer `Run` or a `Cancel` is seen within one slice. Only the latest run
//! is kept; a superseded run is dropped without a result.
//!
//! What it is not: it draws nothing (plotters needs the page's DOM to
//! measure text), knows nothing of queueing beyond calling the core, and
//! never depends on the page: both are linked into one module by
//! `lbsim-page`, whose `start_worker` calls [`start`]. It may import
//! `lbsim-core`, `lbsim-protocol` and the browser bindings.

use std::cell::RefCell;

use lbsim_core::Simulation;
use lbsim_protocol::{wire, FromWorker, ToWorker, SLICE_MS, SLICE_REQUESTS};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};

/// The run in progress.
struct Job {
    run_id: u32,
    simulation: Simulation,
}

#[derive(Default)]
struct Worker {
    job: Option<Job>,
    /// Whether a slice is already queued on the channel.
    scheduled: bool,
}

thread_local! {
    static WORKER: RefCell<Worker> = RefCell::new(Worker::default());
    // Not `expect`, which would print the JsValue error with wasm-bindgen's
    // debug printer (bytes in the bundle for a message nobody can act on).
    static CHANNEL: MessageChannel = MessageChannel::new().unwrap_or_else(|_| panic!("no MessageChannel in this worker"));
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(message: &FromWorker) {
    let bytes = js_sys::Uint8Array::from(&wire::encode(message)[..]);
    // Transferred, not copied: a report is tens of KB.
    let _ = scope().post_message_with_transfer(&bytes, &js_sys::Array::of1(&bytes.buffer()));
}

fn now_ms() -> f64 {
    scope().performance().map_or(0.0, |p| p.now())
}

fn schedule() {
    let already = WORKER.with(|w| std::mem::replace(&mut w.borrow_mut().scheduled, true));
    if !already {
        CHANNEL.with(|c| {
            let _ = c.port2().post_message(&JsValue::NULL);
        });
    }
}

fn on_message(event: MessageEvent) {
    let message: ToWorker = match wire::decode(&js_sys::Uint8Array::new(&event.data()).to_vec()) {
        Ok(m) => m,
        Err(e) => {
            post(&FromWorker::Error { run_id: None, message: format!("bad message: {e}"), fatal: false });
            return;
        }
    };
    match message {
        ToWorker::Run { run_id, scenario } => match Simulation::new(&scenario) {
            Ok(simulation) => {
                WORKER.with(|w| w.borrow_mut().job = Some(Job { run_id, simulation }));
                schedule();
            }
            Err(e) => {
                WORKER.with(|w| w.borrow_mut().job = None);
                post(&FromWorker::Error { run_id: Some(run_id), message: e.to_string(), fatal: false });
            }
        },
        ToWorker::Cancel { run_id } => {
            let cancelled = WORKER.with(|w| {
                let mut w = w.borrow_mut();
                let current = w.job.as_ref().is_some_and(|j| j.run_id == run_id);
                if current {
                    w.job = None;
                }
                current
            });
            if cancelled {
                post(&FromWorker::Cancelled { run_id });
            }
        }
    }
}

/// One slice of the current run.
fn slice() {
    let Some(mut job) = WORKER.with(|w| {
        let mut w = w.borrow_mut();
        w.scheduled = false;
        w.job.take()
    }) else {
        return;
    };
    let start = now_ms();
    let mut finished = false;
    while !finished && now_ms() - start < SLICE_MS {
        finished = job.simulation.advance(SLICE_REQUESTS);
    }
    if finished {
        let report = job.simulation.report();
        post(&FromWorker::Done { run_id: job.run_id, report: Box::new(report) });
        return;
    }
    let (done, total) = job.simulation.progress();
    post(&FromWorker::Progress { run_id: job.run_id, done, total });
    // Back in the slot, where a newer `Run` or a `Cancel` arriving before
    // the next slice replaces or drops it.
    WORKER.with(|w| w.borrow_mut().job = Some(job));
    schedule();
}

/// Starts the worker in this Web Worker's scope: listens, then posts
/// `Ready`.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        post(&FromWorker::Error {
            run_id: None,
            message: format!("the simulator panicked: {info}"),
            fatal: true,
        });
    }));
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(on_message);
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_slice = Closure::<dyn FnMut(MessageEvent)>::new(|_: MessageEvent| slice());
    CHANNEL.with(|c| c.port1().set_onmessage(Some(on_slice.as_ref().unchecked_ref())));
    on_slice.forget();
    post(&FromWorker::Ready);
}
