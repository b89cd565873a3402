//! The simulator workers: up to [`MAX_WORKERS`] Web Workers, each running
//! the page's own wasm module (`web/worker.js` instantiates the module the
//! page compiled and calls `start_worker`). A run deals the algorithms out
//! to the ready workers; their parts merge into one report in the core
//! ([`Report::merge`]). The rules this module leaves out (the current
//! ones) go to one more worker, started the first time a run names one,
//! which runs the full simulator fetched then (`web/boot.js`'s
//! `lbsimFull`: docs/web.md#the-rules-production-uses-now); a run of the
//! classic rules never waits for it. A newer run supersedes an older one;
//! a failed worker is replaced.
//!
//! The pool runs scenarios and knows what each run is for ([`Purpose`]),
//! not what to do with its report: the page's run (`run`) and the sweep
//! use the pool, so it tells them through the [`Listeners`] the wiring
//! registers.

use std::cell::Cell;

use lbsim_core::{AlgorithmId, Report, Scenario};
use lbsim_protocol::{FromWorker, ToWorker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, HtmlProgressElement, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::controls::thousands;
use crate::dom::{after, by_id, now_ms, on, set_body_data, set_text, window};
use crate::state::{set_state, with, Pending, Purpose, Slot};
use crate::view::{fail, show_notice};

/// Worker restarts allowed before the page gives up and says so.
const MAX_RESTARTS: u32 = 5;
/// Workers sharing a run, at most.
const MAX_WORKERS: usize = 4;
/// The worker script, copied unhashed into `dist/` (index.html).
const WORKER_SCRIPT: &str = "./worker.js";
/// The core in this page's wasm against the native core the estimate is
/// priced on (docs/performance.md: about 1.5).
const WASM_SLOWDOWN: f64 = 1.5;

/// What the pool tells the layers above it, which use it and so cannot be
/// named by it: the page's run and the sweep. The wiring sets them once
/// ([`listen`]).
#[derive(Clone, Copy)]
pub struct Listeners {
    /// Every part of run `run_id` came: the report they merge into, and
    /// what the run is for.
    pub done: fn(Purpose, u32, Report),
    /// A sweep's run was lost (a failed worker, a refused run): why. The
    /// main view is untouched.
    pub sweep_lost: fn(&str),
}

thread_local! {
    /// What the wiring registered.
    static LISTENERS: Cell<Option<Listeners>> = const { Cell::new(None) };
}

/// Registers what the pool tells the page (the wiring does, before the
/// workers start).
pub fn listen(listeners: Listeners) {
    LISTENERS.with(|l| l.set(Some(listeners)));
}

fn listeners() -> Option<Listeners> {
    LISTENERS.with(Cell::get)
}

fn sweep_lost(why: &str) {
    if let Some(l) = listeners() {
        (l.sweep_lost)(why);
    }
}

/// How many workers share a run: algorithms are independent (common random
/// numbers), so each worker runs some of them over the same workload and
/// the reports merge into exactly the report of one run.
fn pool_size() -> usize {
    let cores = window().navigator().hardware_concurrency();
    (cores as usize).clamp(1, MAX_WORKERS)
}

/// What `web/boot.js` left on `window`: the glue's URL and the compiled
/// module every worker instantiates, and the first worker it started
/// (with the events it sent before the page listened).
fn boot(name: &str) -> Option<JsValue> {
    let value = js_sys::Reflect::get(&window(), &name.into()).ok()?;
    (!value.is_undefined()).then_some(value)
}

/// The worker web/boot.js started before the page's wasm ran, and the
/// events it sent meanwhile.
fn early_worker() -> Option<(Worker, js_sys::Array)> {
    let early = boot("lbsimFirstWorker")?;
    let _ = js_sys::Reflect::set(&window(), &"lbsimFirstWorker".into(), &JsValue::UNDEFINED);
    let _ = js_sys::Reflect::set(&early, &"taken".into(), &JsValue::TRUE);
    let worker = js_sys::Reflect::get(&early, &"worker".into()).ok()?.dyn_into::<Worker>().ok()?;
    let events = js_sys::Reflect::get(&early, &"events".into()).ok()?.dyn_into::<js_sys::Array>().ok()?;
    Some((worker, events))
}

/// A new worker running this page's module (`lbsimModule`) or the full
/// simulator's (`lbsimFull`): `web/worker.js` waits for the module (or its
/// address) and the glue's URL, then starts the simulator.
fn spawn(name: &str) -> Option<Worker> {
    let module = boot(name)?;
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    // The same address as the first worker's (web/boot.js), so the script
    // comes from the cache, and the glue loads while the worker starts.
    let glue = js_sys::Reflect::get(&module, &"glue".into()).ok()?.as_string()?;
    let script = format!("{WORKER_SCRIPT}?glue={}", String::from(js_sys::encode_uri_component(&glue)));
    let worker = Worker::new_with_options(&script, &options).ok()?;
    worker.post_message(&module).ok()?;
    Some(worker)
}

// Out of line: three callers (the pool's start, a restart, the full
// simulator's start), one copy in the module.
#[inline(never)]
fn new_worker(index: usize) -> Option<Worker> {
    let early_one = if index == 0 { early_worker() } else { None };
    let (worker, early) = match early_one {
        Some((worker, events)) => (worker, events),
        None => {
            let full = with(|app| app.full == Some(index));
            (spawn(if full { "lbsimFull" } else { "lbsimModule" })?, js_sys::Array::new())
        }
    };
    // Events name their worker, so a late event from a worker already
    // replaced (a panic posts an error and then traps) is ignored.
    let (this, this_too) = (worker.clone(), worker.clone());
    let on_message = move |e: Event| {
        if let Some(e) = e.dyn_ref::<MessageEvent>() {
            let start = now_ms();
            let bytes = js_sys::Uint8Array::new(&e.data()).to_vec();
            match lbsim_protocol::wire::decode::<FromWorker>(&bytes) {
                Ok(message) => {
                    if matches!(message, FromWorker::Done { .. }) {
                        set_body_data("receive-ms", &format!("{:.1}", now_ms() - start));
                    }
                    on_worker(index, &this, message)
                }
                Err(err) => {
                    worker_failed(index, &this, &format!("unreadable message from the simulator: {err}"))
                }
            }
        }
    };
    let on_error = move |e: Event| {
        e.prevent_default();
        let message = e
            .dyn_ref::<web_sys::ErrorEvent>()
            .map(|e| e.message())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "the worker failed to load or crashed".to_string());
        worker_failed(index, &this_too, &message);
    };
    // What the early worker said before the page listened, in order, after
    // the page has stored it (so a Ready finds its slot).
    let replay: Vec<Event> = early.iter().filter_map(|e| e.dyn_into::<Event>().ok()).collect();
    if !replay.is_empty() {
        let (on_message, on_error) = (on_message.clone(), on_error.clone());
        after(0, move || {
            for e in replay {
                if e.type_() == "error" {
                    on_error(e);
                } else {
                    on_message(e);
                }
            }
        });
    }
    on(&worker, "message", on_message);
    on(&worker, "error", on_error);
    Some(worker)
}

/// Starts every worker at once: they share the module the page compiled,
/// so none downloads or compiles anything, and the first run can be dealt
/// out to all of them.
pub fn start_workers() {
    for i in 0..pool_size() {
        match new_worker(i) {
            Some(worker) => with(|app| app.workers.push(Slot { worker, ready: false })),
            None if i == 0 => {
                fail("The simulator could not start: this browser does not run module workers.");
                return;
            }
            None => return,
        }
    }
}

/// A worker is gone: say so, start a new one in its place, and give up
/// the run the page waited for if it had a part of it (it would only fail
/// again).
fn worker_failed(index: usize, failed: &Worker, message: &str) {
    let Some((restart, running)) = with(|app| {
        let slot = app.workers.get(index).filter(|slot| slot.worker == *failed)?;
        slot.worker.terminate();
        app.restarts += 1;
        let had_part = app.pending.as_ref().is_some_and(|p| p.workers.contains(&index));
        let running = if had_part { app.pending.take().map(|p| p.purpose) } else { None };
        Some((app.restarts <= MAX_RESTARTS, running))
    }) else {
        return;
    };
    if !restart {
        fail(&format!("The simulator keeps failing ({message}). Reload the page to try again."));
        return;
    }
    show_notice(
        "The simulator stopped and was restarted",
        &[format!("{message}. The plots show the last good result.")],
    );
    if let Some(worker) = new_worker(index) {
        with(|app| {
            if let Some(slot) = app.workers.get_mut(index) {
                *slot = Slot { worker, ready: false };
            }
        });
    }
    match running {
        Some(Purpose::Main) => {
            set_state("error");
            set_text("status-text", "The last run failed; change an input to run again.");
        }
        Some(Purpose::Sweep) => sweep_lost("the simulator failed"),
        None => {}
    }
}

/// Sends a message to worker `index`, ready or not: `web/worker.js` holds
/// what comes while the module instantiates and hands it over in order,
/// so a first run starts the moment the simulator listens, without waiting
/// for this thread (busy building the page) to see its `Ready`.
fn post(index: usize, message: ToWorker) {
    with(|app| {
        if let Some(slot) = app.workers.get(index) {
            let bytes = js_sys::Uint8Array::from(&lbsim_protocol::wire::encode(&message)[..]);
            let _ = slot.worker.post_message(&bytes);
        }
    });
}

/// Whether the page's own run is waiting to start or going.
pub fn main_run_going() -> bool {
    with(|app| app.run_timer.is_some() || app.pending.as_ref().is_some_and(|p| p.purpose == Purpose::Main))
}

fn running() -> Option<u32> {
    with(|app| app.pending.as_ref().map(|p| p.run_id))
}

fn on_worker(index: usize, from: &Worker, message: FromWorker) {
    match message {
        FromWorker::Ready => {
            with(|app| {
                if let Some(slot) = app.workers.get_mut(index) {
                    slot.ready = true;
                }
            });
            if index == 0 {
                set_body_data("worker-ready-ms", &format!("{:.1}", now_ms()));
            }
        }
        FromWorker::Progress { run_id, done, total } => {
            let Some((done, total)) = with(|app| {
                let p = app.pending.as_mut().filter(|p| p.purpose == Purpose::Main)?;
                let part = p.part_of(index, run_id)?;
                p.progress[part] = (done, total);
                Some(p.progress.iter().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)))
            }) else {
                return;
            };
            if let Some(p) = by_id::<HtmlProgressElement>("progress") {
                p.set_value(done as f64 / total.max(1) as f64);
            }
            set_text(
                "status-text",
                &format!(
                    "Simulating: {:.0}% of {} request runs",
                    done as f64 * 100.0 / total.max(1) as f64,
                    thousands(total)
                ),
            );
        }
        FromWorker::Done { run_id, report } => done(index, run_id, *report),
        // The page stops waiting when it asks to cancel; the worker's
        // answer only confirms it.
        FromWorker::Cancelled { .. } => {}
        FromWorker::Error { run_id, message, fatal } => {
            if fatal {
                worker_failed(index, from, &message);
            } else if run_id.is_none() || run_id == running() {
                match with(|app| app.pending.take().map(|p| p.purpose)) {
                    Some(Purpose::Sweep) => sweep_lost(&format!("the run was refused: {message}")),
                    _ => {
                        set_text("status-text", &format!("The run was refused: {message}"));
                        set_state("error");
                    }
                }
            }
        }
    }
}

/// A worker finished its part of `run_id`; with the last part, the merged
/// report goes to what the run is for.
fn done(index: usize, run_id: u32, report: Report) {
    let Some((purpose, parts)) = with(|app| {
        let p = app.pending.as_mut()?;
        let part = p.part_of(index, run_id)?;
        p.parts[part] = Some(report);
        if p.parts.iter().all(Option::is_some) {
            app.pending.take().map(|p| (p.purpose, p.parts.into_iter().flatten().collect::<Vec<_>>()))
        } else {
            None
        }
    }) else {
        return;
    };
    let Some(report) = Report::merge(parts) else {
        fail("the simulator's parts of one run disagree on the workload");
        return;
    };
    if let Some(l) = listeners() {
        (l.done)(purpose, run_id, report);
    }
}

/// The core's estimate of a run ([`lbsim_core::cost`]) on this page: its
/// rules spread over the workers, at wasm's speed.
pub fn expected_seconds(scenario: &Scenario) -> f64 {
    lbsim_core::cost::run(scenario).seconds() * WASM_SLOWDOWN
        / pool_size().min(scenario.algorithms.len().max(1)) as f64
}

/// The worker running the full simulator, started (and its module
/// fetched) the first time a run needs it.
fn full_worker() -> Option<usize> {
    let index = with(|app| *app.full.get_or_insert(app.workers.len()));
    if index == with(|app| app.workers.len()) {
        let Some(worker) = new_worker(index) else {
            with(|app| app.full = None);
            return None;
        };
        with(|app| app.workers.push(Slot { worker, ready: false }));
    }
    Some(index)
}

/// Deals a scenario's algorithms out to the ready workers, alternating, so
/// each gets a similar mix of cheap and costly rules, and the rules this
/// module leaves out to the full simulator's worker; returns the run id.
/// The run supersedes the one the page waited for.
pub fn dispatch(scenario: Scenario, purpose: Purpose) -> u32 {
    // Without the full simulator (it could not start), a current rule goes
    // with the others and is refused by name.
    let full = scenario.algorithms.iter().any(|a| !a.runs_here()).then(full_worker).flatten();
    let elsewhere = |a: &AlgorithmId| full.is_some() && !a.runs_here();
    let (run_id, previous, ready, own, workers) = with(|app| {
        app.run_id += 1;
        // The page's own workers: the full simulator's is the last one.
        let own = app.full.unwrap_or(app.workers.len());
        let ready: Vec<usize> = (0..own).filter(|&i| app.workers[i].ready).collect();
        // The page's first run goes to every worker, ready or not: they
        // all start together, and a part waiting in a worker that is
        // still instantiating costs less than one worker running it all.
        let first = purpose == Purpose::Main && app.report.is_none();
        let ready = if first { Vec::new() } else { ready };
        (app.run_id, app.pending.as_ref().map(|p| p.run_id), ready, own, app.workers.len())
    });
    // Before any worker is ready, every worker gets a part; afterwards
    // only the ready ones.
    let mut chosen: Vec<usize> = if ready.is_empty() { (0..own).collect() } else { ready };
    let here = scenario.algorithms.iter().filter(|a| !elsewhere(a)).count();
    chosen.truncate(here.max(usize::from(full.is_none())));
    let own = chosen.len();
    if own == 0 && full.is_none() {
        // No worker could start; the page said so already.
        return run_id;
    }
    // The page's workers' parts, then the full simulator's.
    chosen.extend(full);
    let parts = chosen.len();
    let mut groups = vec![Vec::new(); parts];
    let mut dealt = 0;
    for &a in &scenario.algorithms {
        let part = if elsewhere(&a) { own } else { dealt % own.max(1) };
        dealt += usize::from(!elsewhere(&a));
        groups[part].push(a);
    }
    with(|app| {
        app.pending = Some(Pending {
            run_id,
            purpose,
            workers: chosen.clone(),
            parts: vec![None; parts],
            progress: vec![(0, 0); parts],
        })
    });
    for (&worker, algorithms) in chosen.iter().zip(groups) {
        let part = Scenario { algorithms, ..scenario.clone() };
        post(worker, ToWorker::Run { run_id, scenario: Box::new(part) });
    }
    // A worker left out that is still busy with the superseded run stops.
    if let Some(previous) = previous {
        withdraw(previous, (0..workers).filter(|i| !chosen.contains(i)));
    }
    run_id
}

/// Withdraws run `run_id`: each of `running` is told to stop it (a worker
/// not ready yet drops it when it starts: its messages come in order).
pub fn withdraw(run_id: u32, running: impl Iterator<Item = usize>) {
    for i in running {
        post(i, ToWorker::Cancel { run_id });
    }
}
