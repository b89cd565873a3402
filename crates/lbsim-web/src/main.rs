//! # lbsim-web
//!
//! The playground page: builds the controls from the core's table of
//! ranges, keeps the scenario in the URL fragment, sends runs to the Web
//! Worker (`lbsim-worker`), and draws what comes back: plots with plotters
//! on canvases and the results table.
//!
//! What it is not: it never simulates on the main thread (the worker
//! does), and it never inserts text from a link or a report as HTML.

mod backend;
mod controls;
mod dom;
mod palette;
mod plots;
mod table;

use std::cell::RefCell;
use std::rc::Rc;

use lbsim_core::presets::{preset, Preset, PRESETS};
use lbsim_core::remap::{remap, Change, Remap, RemapReport, Scheme};
use lbsim_core::report::AlgorithmResult;
use lbsim_core::scenario::WorkKind;
use lbsim_core::theory::MMc;
use lbsim_core::{url, AlgorithmId, Report, Scenario, ScenarioError};
use lbsim_worker::{FromWorker, ToWorker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    Element, Event, HtmlCanvasElement, HtmlDetailsElement, HtmlElement, HtmlInputElement,
    HtmlProgressElement, HtmlSelectElement, HtmlTextAreaElement, MessageEvent, Worker, WorkerOptions,
    WorkerType,
};

use crate::controls::{thousands, MAX_INTERACTIVE_REQUESTS};
use crate::dom::{after, by_id, cancel, document, now_ms, on, on_id, set_body_data, set_text, window};
use crate::plots::{CdfView, Class, Look};
use crate::table::Sort;

/// Delay between an input and the run it asks for while another run is
/// going; a newer input within it replaces the run, and a newer run
/// supersedes a running one anyway.
const RUN_DEBOUNCE_MS: i32 = 8;
/// Delay before the address bar follows the controls.
const URL_DEBOUNCE_MS: i32 = 250;
/// Worker restarts allowed before the page gives up and says so.
const MAX_RESTARTS: u32 = 5;
/// Workers sharing a run, at most.
const MAX_WORKERS: usize = 4;

/// Which canvases to redraw.
#[derive(Clone, Copy)]
struct Redraw {
    latency: bool,
    loads: bool,
    queues: bool,
    remapping: bool,
}

impl Redraw {
    const ALL: Redraw = Redraw { latency: true, loads: true, queues: true, remapping: true };
}

/// Everything the page knows.
struct App {
    /// The current (last valid) scenario.
    scenario: Scenario,
    /// The pool of workers.
    workers: Vec<Slot>,
    restarts: u32,
    /// Last run id handed out, and the run whose result the page waits for.
    run_id: u32,
    pending: Option<Pending>,
    /// When the input that asked for the running run happened.
    asked_ms: f64,
    report: Option<Rc<Report>>,
    view: CdfView,
    sort: Option<Sort>,
    run_timer: Option<i32>,
    url_timer: Option<i32>,
    redraw_timer: Option<i32>,
    preset: Option<&'static Preset>,
    embed: bool,
    embed_controls: Vec<String>,
    remap_key: String,
    first_plot: bool,
}

thread_local! {
    static APP: RefCell<App> = RefCell::new(App {
        scenario: Scenario::default(),
        workers: Vec::new(),
        restarts: 0,
        run_id: 0,
        pending: None,
        asked_ms: 0.0,
        report: None,
        view: CdfView { class: Class::All, tail: false },
        sort: None,
        run_timer: None,
        url_timer: None,
        redraw_timer: None,
        preset: None,
        embed: false,
        embed_controls: Vec::new(),
        remap_key: String::new(),
        first_plot: true,
    });
}

fn with<R>(f: impl FnOnce(&mut App) -> R) -> R {
    APP.with(|app| f(&mut app.borrow_mut()))
}

fn set_state(state: &str) {
    set_body_data("state", state);
}

fn dark() -> bool {
    window().match_media("(prefers-color-scheme: dark)").ok().flatten().is_some_and(|m| m.matches())
}

fn look() -> Look {
    Look { scale: window().device_pixel_ratio().max(1.0), theme: palette::Theme::new(dark()) }
}

// ---- the workers ---------------------------------------------------------

/// One worker of the pool and what it is waiting to be sent.
struct Slot {
    worker: Worker,
    ready: bool,
    queued: Option<ToWorker>,
}

/// The run the page waits for: one part per worker, merged when all came.
struct Pending {
    run_id: u32,
    /// The workers running a part, by part.
    workers: Vec<usize>,
    parts: Vec<Option<Report>>,
    progress: Vec<(u64, u64)>,
}

impl Pending {
    fn part_of(&mut self, worker: usize, run_id: u32) -> Option<usize> {
        if self.run_id != run_id {
            return None;
        }
        self.workers.iter().position(|&w| w == worker)
    }
}

/// How many workers share a run: algorithms are independent (common random
/// numbers), so each worker runs some of them over the same workload and
/// the reports merge into exactly the report of one run.
fn pool_size() -> usize {
    let cores = window().navigator().hardware_concurrency();
    (cores as usize).clamp(1, MAX_WORKERS)
}

/// The worker web/boot.js started before the page's wasm, and the events
/// it sent meanwhile.
fn early_worker() -> Option<(Worker, js_sys::Array)> {
    let early = js_sys::Reflect::get(&window(), &"lbsimFirstWorker".into()).ok()?;
    if early.is_undefined() {
        return None;
    }
    let _ = js_sys::Reflect::set(&window(), &"lbsimFirstWorker".into(), &JsValue::UNDEFINED);
    let _ = js_sys::Reflect::set(&early, &"taken".into(), &JsValue::TRUE);
    let worker = js_sys::Reflect::get(&early, &"worker".into()).ok()?.dyn_into::<Worker>().ok()?;
    let events = js_sys::Reflect::get(&early, &"events".into()).ok()?.dyn_into::<js_sys::Array>().ok()?;
    Some((worker, events))
}

fn new_worker(index: usize) -> Option<Worker> {
    let early_one = if index == 0 { early_worker() } else { None };
    let (worker, early) = match early_one {
        Some((worker, events)) => (worker, events),
        None => {
            let options = WorkerOptions::new();
            options.set_type(WorkerType::Module);
            (Worker::new_with_options("./lbsim-worker_loader.js", &options).ok()?, js_sys::Array::new())
        }
    };
    // Events name their worker, so a late event from a worker already
    // replaced (a panic posts an error and then traps) is ignored.
    let (this, this_too) = (worker.clone(), worker.clone());
    let on_message = move |e: Event| {
        if let Some(e) = e.dyn_ref::<MessageEvent>() {
            let start = now_ms();
            match serde_wasm_bindgen::from_value::<FromWorker>(e.data()) {
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

/// Starts the first worker; the others start once it is ready, so they
/// load the worker's files from the cache instead of all at once.
fn start_workers() {
    match new_worker(0) {
        Some(worker) => with(|app| app.workers = vec![Slot { worker, ready: false, queued: None }]),
        None => fail("The simulator could not start: this browser does not run module workers."),
    }
}

fn start_other_workers() {
    let have = with(|app| app.workers.len());
    for i in have..pool_size() {
        if let Some(worker) = new_worker(i) {
            with(|app| app.workers.push(Slot { worker, ready: false, queued: None }));
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
        let running = had_part && app.pending.take().is_some();
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
                *slot = Slot { worker, ready: false, queued: None };
            }
        });
    }
    if running {
        set_state("error");
        set_text("status-text", "The last run failed; change an input to run again.");
    }
}

fn post(index: usize, message: &ToWorker) {
    let value = match serde_wasm_bindgen::to_value(message) {
        Ok(v) => v,
        Err(e) => {
            fail(&format!("could not send the scenario to the simulator: {e}"));
            return;
        }
    };
    with(|app| {
        if let Some(slot) = app.workers.get_mut(index) {
            if slot.ready {
                let _ = slot.worker.post_message(&value);
            } else {
                slot.queued = Some(message.clone());
            }
        }
    });
}

fn running() -> Option<u32> {
    with(|app| app.pending.as_ref().map(|p| p.run_id))
}

fn on_worker(index: usize, from: &Worker, message: FromWorker) {
    match message {
        FromWorker::Ready => {
            let queued = with(|app| {
                let slot = app.workers.get_mut(index)?;
                slot.ready = true;
                slot.queued.take()
            });
            if let Some(m) = queued {
                post(index, &m);
            }
            if index == 0 {
                set_body_data("worker-ready-ms", &format!("{:.1}", now_ms()));
                start_other_workers();
            }
        }
        FromWorker::Progress { run_id, done, total } => {
            let Some((done, total)) = with(|app| {
                let p = app.pending.as_mut()?;
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
        FromWorker::Done { run_id, report } => {
            // A superseded run's result is never drawn.
            let Some(parts) = with(|app| {
                let p = app.pending.as_mut()?;
                let part = p.part_of(index, run_id)?;
                p.parts[part] = Some(*report);
                if p.parts.iter().all(Option::is_some) {
                    app.pending.take().map(|p| p.parts.into_iter().flatten().collect::<Vec<_>>())
                } else {
                    None
                }
            }) else {
                return;
            };
            let Some(report) = merge(parts) else { return };
            let report = Rc::new(report);
            with(|app| {
                app.restarts = 0;
                app.report = Some(report.clone());
            });
            let start = now_ms();
            show_report(&report, Redraw::ALL);
            let now = now_ms();
            set_body_data("draw-ms", &format!("{:.1}", now - start));
            set_body_data("run-id", &run_id.to_string());
            set_body_data("latency-ms", &format!("{:.1}", now - with(|app| app.asked_ms)));
            if with(|app| std::mem::replace(&mut app.first_plot, false)) {
                set_body_data("first-plot-ms", &format!("{now:.1}"));
            }
            set_text("status-text", "");
            set_state("ready");
        }
        FromWorker::Cancelled { run_id } => {
            if running() == Some(run_id) {
                with(|app| app.pending = None);
                set_text("status-text", "Cancelled: the plots show the previous result.");
                set_state("ready");
            }
        }
        FromWorker::Error { run_id, message, fatal } => {
            if fatal {
                worker_failed(index, from, &message);
            } else if run_id.is_none() || run_id == running() {
                with(|app| app.pending = None);
                set_text("status-text", &format!("The run was refused: {message}"));
                set_state("error");
            }
        }
    }
}

/// One report from the parts: the same workload, so the same realized
/// figures; the results in canonical order; the scenario with every
/// algorithm.
fn merge(parts: Vec<Report>) -> Option<Report> {
    let mut parts = parts.into_iter();
    let mut report = parts.next()?;
    for part in parts {
        report.results.extend(part.results);
    }
    let mut ordered = Vec::with_capacity(report.results.len());
    for a in AlgorithmId::ALL {
        if let Some(i) = report.results.iter().position(|r| r.algorithm == *a) {
            ordered.push(report.results.swap_remove(i));
        }
    }
    report.scenario.algorithms = ordered.iter().map(|r| r.algorithm).collect();
    report.results = ordered;
    Some(report)
}

/// Asks for a run of the current scenario after the debounce.
fn request_run() {
    let asked = now_ms();
    let (previous, idle) = with(|app| {
        app.asked_ms = asked;
        let previous = app.run_timer.take();
        let idle = previous.is_none() && app.pending.is_none();
        (previous, idle)
    });
    if let Some(t) = previous {
        cancel(t);
    }
    // Idle, the run starts at the end of this task (inputs of one task
    // coalesce); while a run is going or pending, inputs are debounced.
    let timer = after(if idle { 0 } else { RUN_DEBOUNCE_MS }, send_run);
    with(|app| app.run_timer = Some(timer));
    // What is on screen no longer matches the inputs.
    if let Some(p) = by_id::<HtmlProgressElement>("progress") {
        p.set_value(0.0);
    }
    set_state("running");
}

/// Deals the algorithms out to the ready workers, alternating, so each
/// gets a similar mix of cheap and costly rules.
fn send_run() {
    let (run_id, previous, scenario, ready, workers) = with(|app| {
        app.run_timer = None;
        app.run_id += 1;
        let ready: Vec<usize> = (0..app.workers.len()).filter(|&i| app.workers[i].ready).collect();
        (app.run_id, app.pending.as_ref().map(|p| p.run_id), app.scenario.clone(), ready, app.workers.len())
    });
    let mut chosen = if ready.is_empty() { vec![0] } else { ready };
    chosen.truncate(scenario.algorithms.len().max(1));
    let parts = chosen.len();
    let mut groups = vec![Vec::new(); parts];
    for (i, a) in scenario.algorithms.iter().enumerate() {
        groups[i % parts].push(*a);
    }
    with(|app| {
        app.pending = Some(Pending {
            run_id,
            workers: chosen.clone(),
            parts: vec![None; parts],
            progress: vec![(0, 0); parts],
        })
    });
    if let Some(p) = by_id::<HtmlProgressElement>("progress") {
        p.set_value(0.0);
    }
    set_text("status-text", "Simulating...");
    set_state("running");
    for (&worker, algorithms) in chosen.iter().zip(groups) {
        let part = Scenario { algorithms, ..scenario.clone() };
        post(worker, &ToWorker::Run { run_id, scenario: Box::new(part) });
    }
    // A worker left out that is still busy with the superseded run stops.
    if let Some(previous) = previous {
        for i in (0..workers).filter(|i| !chosen.contains(i)) {
            post(i, &ToWorker::Cancel { run_id: previous });
        }
    }
}

fn cancel_run() {
    if let Some(t) = with(|app| app.run_timer.take()) {
        cancel(t);
        set_text("status-text", "Cancelled: the plots show the previous result.");
        set_state("ready");
    }
    if let Some(run_id) = running() {
        for i in 0..with(|app| app.workers.len()) {
            post(i, &ToWorker::Cancel { run_id });
        }
    }
}

// ---- drawing -----------------------------------------------------------

fn canvas(id: &str) -> Option<HtmlCanvasElement> {
    by_id(id)
}

/// The Erlang C model when the scenario is one exponential pool.
fn theory(s: &Scenario) -> Option<MMc> {
    if s.servers != 1 || s.work != WorkKind::Exponential {
        return None;
    }
    let m = MMc { c: s.slots, lambda: s.rate_per_s() / 1000.0, mu: s.speed(0) / s.mean_ms };
    (m.lambda < f64::from(m.c) * m.mu).then_some(m)
}

fn show_report(report: &Report, what: Redraw) {
    let look = look();
    let results: Vec<&AlgorithmResult> = report.results.iter().collect();
    let view = with(|app| app.view);
    let bimodal = report.scenario.work == WorkKind::Bimodal;
    for class in ["quick", "slow"] {
        if let Some(input) = document()
            .query_selector(&format!("input[name=cdf-class][value={class}]"))
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
        {
            input.set_disabled(!bimodal);
        }
    }
    let view = if bimodal { view } else { CdfView { class: Class::All, ..view } };
    let mut problems = Vec::new();
    if what.latency {
        if let Some(c) = canvas("cdf") {
            if let Err(e) = plots::latency(&c, &results, view, theory(&report.scenario), &look) {
                problems.push(e);
            }
        }
    }
    if what.loads {
        if let Some(c) = canvas("loads") {
            let cols = plots::columns(f64::from(c.client_width().max(300)), results.len());
            let rows = results.len().div_ceil(cols).max(1);
            let _ = c.style().set_property("height", &format!("{}px", 40 + rows * 150));
            if let Err(e) = plots::loads(&c, &results, report.realized.load, cols, &look) {
                problems.push(e);
            }
        }
    }
    if what.queues {
        if let Some(c) = canvas("queues") {
            if let Err(e) = plots::queues(&c, &results, &look) {
                problems.push(e);
            }
        }
    }
    if what.loads {
        table::fill(report, with(|app| app.sort));
        realized(report);
    }
    if what.remapping {
        draw_remapping(&report.scenario, &look, false);
    }
    if !problems.is_empty() {
        show_notice("A plot could not be drawn", &problems);
    }
}

fn realized(report: &Report) {
    let r = &report.realized;
    let mut text = format!(
        "This run: {} requests at {:.1}/s, offered load {:.3}, top user {:.1}% of requests, top ten {:.1}%",
        thousands(r.requests),
        r.rate_per_s,
        r.load,
        r.top_user_share * 100.0,
        r.top10_share * 100.0
    );
    if report.scenario.work == WorkKind::Bimodal {
        text += &format!(", slow share {:.2}%", r.slow_share * 100.0);
    }
    text.push('.');
    set_text("realized", &text);
}

/// The remapping experiment for the scenario's servers: add one server, or
/// remove the last, under every scheme.
fn draw_remapping(s: &Scenario, look: &Look, force: bool) {
    let Some(panel) = by_id::<HtmlDetailsElement>("remap-panel") else { return };
    if !panel.open() {
        return;
    }
    let add = by_id::<HtmlSelectElement>("remap-change").is_none_or(|s| s.value() != "remove");
    let nodes: Vec<String> = (0..s.servers as usize).map(|i| s.server_name(i)).collect();
    let key = format!("{}|{add}|{}|{}", nodes.join(","), s.vnodes, look.scale);
    if !force && with(|app| app.remap_key == key) {
        return;
    }
    let change = if add || nodes.len() < 2 {
        let mut i = nodes.len() + 1;
        while nodes.contains(&format!("s{i}")) {
            i += 1;
        }
        Change::Add(format!("s{i}"))
    } else {
        Change::Remove(nodes[nodes.len() - 1].clone())
    };
    let (words, ideal) = match &change {
        Change::Add(n) => (format!("{n} joins {} servers", nodes.len()), 1.0 / (nodes.len() + 1) as f64),
        Change::Remove(n) => (format!("{n} leaves {} servers", nodes.len()), 1.0 / nodes.len() as f64),
    };
    let reports: Vec<(&'static str, RemapReport)> = Scheme::ALL
        .iter()
        .filter_map(|&scheme| {
            let r = Remap {
                scheme,
                nodes: nodes.clone(),
                change: change.clone(),
                vnodes: s.vnodes,
                ..Remap::default()
            };
            remap(&r).ok().map(|rep| (scheme.id(), rep))
        })
        .collect();
    if let Some(c) = canvas("remap") {
        if let Err(e) = plots::remapping(&c, &reports, ideal, &words, look) {
            show_notice("The remapping plot could not be drawn", &[e]);
        }
    }
    remap_table(&reports);
    with(|app| app.remap_key = key);
}

fn remap_table(reports: &[(&'static str, RemapReport)]) {
    let Some(tbody) = document().query_selector("#remap-table tbody").ok().flatten() else { return };
    tbody.set_text_content(None);
    for (id, r) in reports {
        let tr = dom::element("tr", "");
        let _ = tr.set_attribute("data-scheme", id);
        let _ = tr.append_child(&dom::text_element("th", "", id));
        let _ = tr.append_child(&dom::text_element("td", "", &format!("{} of {}", r.moved, r.keys)));
        let share = r.moved as f64 * 100.0 / r.keys.max(1) as f64;
        let _ = tr.append_child(&dom::text_element("td", "", &format!("{share:.1}%")));
        let _ = tbody.append_child(&tr);
    }
}

fn redraw(what: Redraw) {
    if let Some(report) = with(|app| app.report.clone()) {
        show_report(&report, what);
    } else if what.remapping {
        draw_remapping(&with(|app| app.scenario.clone()), &look(), true);
    }
}

fn redraw_soon() {
    if let Some(t) = with(|app| app.redraw_timer.take()) {
        cancel(t);
    }
    let t = after(120, || {
        with(|app| app.redraw_timer = None);
        redraw(Redraw::ALL);
    });
    with(|app| app.redraw_timer = Some(t));
}

// ---- notices -----------------------------------------------------------

/// Shows a notice with a heading and lines, all as text.
fn show_notice(heading: &str, lines: &[String]) {
    let Some(notice) = by_id::<HtmlElement>("notice") else { return };
    notice.set_text_content(None);
    let _ = notice.append_child(&dom::text_element("strong", "", heading));
    let list = dom::element("ul", "");
    for line in lines {
        let _ = list.append_child(&dom::text_element("li", "", line));
    }
    let _ = notice.append_child(&list);
    let close = dom::text_element("button", "close", "dismiss");
    let _ = close.set_attribute("type", "button");
    on(&close, "click", |_| dom::set_hidden("notice", true));
    let _ = notice.append_child(&close);
    notice.set_hidden(false);
}

fn fail(message: &str) {
    show_notice("Something went wrong", &[message.to_string()]);
    set_state("error");
}

// ---- the scenario and the URL --------------------------------------------

/// Reads a link's fragment; problems become a notice naming each key.
fn scenario_from_link(link: &str) -> Scenario {
    let decoded = url::decode(link);
    let mut scenario = decoded.scenario;
    let mut lines: Vec<String> = decoded.problems.iter().map(ScenarioError::to_string).collect();
    if scenario.requests > MAX_INTERACTIVE_REQUESTS {
        lines.push(format!(
            "requests: {} is more than this page runs; capped at {} (the CLI runs it in full)",
            thousands(scenario.requests),
            thousands(MAX_INTERACTIVE_REQUESTS)
        ));
        scenario.requests = MAX_INTERACTIVE_REQUESTS;
    }
    if !lines.is_empty() {
        show_notice("Parts of this link were not used; they fall back to the defaults:", &lines);
    }
    scenario
}

fn fragment() -> String {
    window().location().hash().unwrap_or_default()
}

fn query(name: &str) -> Option<String> {
    let search = window().location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search).ok()?.get(name)
}

/// The page's own address without query and fragment.
fn page_base() -> String {
    let l = window().location();
    format!("{}{}", l.origin().unwrap_or_default(), l.pathname().unwrap_or_default())
}

/// The address bar follows the scenario, debounced.
fn schedule_url() {
    if let Some(t) = with(|app| app.url_timer.take()) {
        cancel(t);
    }
    let t = after(URL_DEBOUNCE_MS, write_url);
    with(|app| app.url_timer = Some(t));
    update_links();
}

fn write_url() {
    let (scenario, preset) = with(|app| {
        app.url_timer = None;
        (app.scenario.clone(), app.preset)
    });
    let l = window().location();
    let search = l.search().unwrap_or_default();
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok();
    if let Some(p) = &params {
        match preset {
            Some(p_) => p.set("preset", p_.id),
            None => p.delete("preset"),
        }
    }
    let query: String = params.map(|p| String::from(p.to_string())).unwrap_or_default();
    let query = if query.is_empty() { String::new() } else { format!("?{query}") };
    let target = format!("{}{query}#{}", l.pathname().unwrap_or_default(), url::encode(&scenario));
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&target));
    }
}

/// The share link, the embed link and the embed code follow the scenario.
fn update_links() {
    let scenario = with(|app| app.scenario.clone());
    let share = url::share_url(&page_base(), &scenario);
    if let Some(input) = by_id::<HtmlInputElement>("share-url") {
        input.set_value(&share);
    }
    if let Some(a) = by_id::<Element>("open-full") {
        let pathname = window().location().pathname().unwrap_or_default();
        let _ = a.set_attribute("href", &format!("{pathname}#{}", url::encode(&scenario)));
    }
}

fn embed_code() -> String {
    let (scenario, listed) = with(|app| (app.scenario.clone(), app.embed_controls.clone()));
    let controls = if listed.is_empty() { "slow-share,zipf,seed".to_string() } else { listed.join(",") };
    let src = format!("{}?embed=1&controls={controls}#{}", page_base(), url::encode(&scenario));
    format!(
        "<iframe src=\"{}\" title=\"lbsim: load-balancing playground\" loading=\"lazy\" width=\"100%\" \
         height=\"900\" style=\"border:0\"></iframe>",
        src.replace('&', "&amp;").replace('"', "&quot;")
    )
}

/// Replaces the whole scenario (a link, a preset) and runs it.
fn apply(scenario: Scenario) {
    with(|app| app.scenario = scenario.clone());
    controls::clear_errors();
    controls::sync(&scenario);
    request_run();
    schedule_url();
}

fn show_lesson(p: Option<&'static Preset>) {
    match p {
        Some(p) => {
            set_text("lesson-title", p.title);
            set_text("lesson-text", p.lesson);
            dom::set_hidden("lesson", false);
        }
        None => dom::set_hidden("lesson", true),
    }
    if let Some(panel) = by_id::<HtmlDetailsElement>("remap-panel") {
        if p.is_some_and(|p| p.remapping) {
            panel.set_open(true);
        }
    }
}

fn choose_preset(id: &str) {
    let p = preset(id);
    with(|app| app.preset = p);
    show_lesson(p);
    if let Some(p) = p {
        let mut s = p.scenario();
        s.requests = s.requests.min(MAX_INTERACTIVE_REQUESTS);
        apply(s);
    }
}

/// One control changed: check it against the table, and run if the whole
/// scenario is still valid; otherwise say why next to the control and keep
/// the last good result on screen.
fn on_control(key: &str, text: &str) {
    controls::show_value(key, text);
    let mut next = with(|app| app.scenario.clone());
    let checked = if key == "algorithms" {
        let picked = controls::ticked_algorithms();
        if picked.is_empty() {
            Err(ScenarioError {
                field: "algorithms".into(),
                value: String::new(),
                allowed: "at least one algorithm".into(),
            })
        } else {
            next.algorithms = picked;
            Ok(())
        }
    } else if key == "requests" && text.trim().parse::<u64>().is_ok_and(|n| n > MAX_INTERACTIVE_REQUESTS) {
        Err(ScenarioError {
            field: key.into(),
            value: text.into(),
            allowed: format!(
                "1 to {} on this page (interactive runs); the CLI runs up to 10,000,000",
                thousands(MAX_INTERACTIVE_REQUESTS)
            ),
        })
    } else {
        next.set(key, text)
    };
    if key == "servers" && checked.is_ok() {
        fit_lists(&mut next);
    }
    match checked.and_then(|()| next.validate()) {
        Ok(()) => {
            let servers_changed = with(|app| app.scenario.servers != next.servers);
            with(|app| {
                app.scenario = next.clone();
                app.preset = None;
            });
            if let Some(select) = by_id::<HtmlSelectElement>("preset") {
                if with(|app| app.preset.is_none()) {
                    select.set_value("");
                }
            }
            controls::clear_errors();
            if servers_changed {
                for k in ["speeds", "weights", "names"] {
                    controls::sync_one(&next, k);
                }
            }
            controls::mark_inactive(&next);
            request_run();
            schedule_url();
        }
        Err(e) => {
            let field = if controls::LAYOUT.iter().any(|(k, _, _)| *k == e.field) || e.field == "algorithms" {
                e.field.clone()
            } else {
                key.to_string()
            };
            controls::set_error(&field, &e.to_string());
        }
    }
}

/// Keeps the per-server lists one per server when the server count changes.
fn fit_lists(s: &mut Scenario) {
    let n = s.servers as usize;
    if !s.speeds.is_empty() {
        s.speeds.resize(n, 1.0);
    }
    if !s.weights.is_empty() {
        s.weights.resize(n, 1);
    }
    if !s.names.is_empty() {
        let mut i = s.names.len();
        while s.names.len() < n {
            i += 1;
            let name = format!("s{i}");
            if !s.names.contains(&name) {
                s.names.push(name);
            }
        }
        s.names.truncate(n);
    }
}

// ---- wiring --------------------------------------------------------------

fn wire() {
    if let Some(form) = by_id::<Element>("controls") {
        on(&form, "input", |e: Event| {
            let Some(target) = e.target() else { return };
            let (key, text) = if let Some(i) = target.dyn_ref::<HtmlInputElement>() {
                (i.name(), i.value())
            } else if let Some(s) = target.dyn_ref::<HtmlSelectElement>() {
                (s.name(), s.value())
            } else {
                return;
            };
            match key.as_str() {
                "preset" => choose_preset(&text),
                "" => {}
                _ => on_control(&key, &text),
            }
        });
        on(&form, "submit", |e: Event| e.prevent_default());
    }
    on_id("new-seed", "click", |_| {
        let seed = (js_sys::Math::random() * 4_294_967_296.0).floor() as u64;
        if let Some(input) = by_id::<HtmlInputElement>("c-seed") {
            input.set_value(&seed.to_string());
        }
        on_control("seed", &seed.to_string());
    });
    on_id("cancel", "click", |_| cancel_run());
    on_id("cdf-tools", "input", |_| {
        let class = document()
            .query_selector("input[name=cdf-class]:checked")
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
            .map(|i| i.value())
            .unwrap_or_default();
        let tail = by_id::<HtmlInputElement>("cdf-tail").is_some_and(|i| i.checked());
        with(|app| app.view = CdfView { class: Class::parse(&class), tail });
        redraw(Redraw { latency: true, loads: false, queues: false, remapping: false });
    });
    if let Some(table) = by_id::<Element>("results") {
        on(&table, "click", |e: Event| {
            let Some(button) =
                dom::target::<Element>(&e).and_then(|t| t.closest("button.sort").ok().flatten())
            else {
                return;
            };
            let Some(index) = button.get_attribute("data-column").and_then(|c| c.parse::<usize>().ok())
            else {
                return;
            };
            with(|app| {
                app.sort = Some(match app.sort {
                    Some(s) if s.index == index => Sort { index, ascending: !s.ascending },
                    _ => Sort { index, ascending: true },
                })
            });
            if let Some(report) = with(|app| app.report.clone()) {
                table::fill(&report, with(|app| app.sort));
            }
        });
    }
    on_id("copy-link", "click", |_| {
        let share = url::share_url(&page_base(), &with(|app| app.scenario.clone()));
        dom::copy(&share);
        set_text("share-status", "Link copied.");
    });
    on_id("copy-embed", "click", |_| {
        let code = embed_code();
        if let Some(t) = by_id::<HtmlTextAreaElement>("embed-code") {
            t.set_value(&code);
            t.set_hidden(false);
        }
        dom::copy(&code);
        set_text("share-status", "Embed code copied.");
    });
    on_id("download-csv", "click", |_| {
        if let Some(report) = with(|app| app.report.clone()) {
            dom::download_text(&table::csv(&report), "text/csv", "lbsim-results.csv");
        }
    });
    on_id("download-json", "click", |_| {
        if let Some(report) = with(|app| app.report.clone()) {
            let serializer = serde_wasm_bindgen::Serializer::json_compatible();
            if let Ok(value) = serde::Serialize::serialize(&*report, &serializer) {
                if let Ok(text) =
                    js_sys::JSON::stringify_with_replacer_and_space(&value, &JsValue::NULL, &JsValue::from(1))
                {
                    dom::download_text(&String::from(text), "application/json", "lbsim-results.json");
                }
            }
        }
    });
    if let Ok(buttons) = document().query_selector_all("button[data-png]") {
        for i in 0..buttons.length() {
            if let Some(b) = buttons.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                on(&b, "click", |e: Event| {
                    let Some(id) = dom::target::<Element>(&e).and_then(|t| t.get_attribute("data-png"))
                    else {
                        return;
                    };
                    if let Some(c) = canvas(&id) {
                        if let Ok(data) = c.to_data_url() {
                            dom::download(&data, &format!("lbsim-{id}.png"));
                        }
                    }
                });
            }
        }
    }
    if let Some(panel) = by_id::<Element>("remap-panel") {
        on(&panel, "toggle", |_| draw_remapping(&with(|app| app.scenario.clone()), &look(), false));
    }
    on_id("remap-change", "input", |_| draw_remapping(&with(|app| app.scenario.clone()), &look(), false));
    on(&window(), "resize", |_| redraw_soon());
    on(&window(), "hashchange", |_| {
        let s = scenario_from_link(&fragment());
        if s != with(|app| app.scenario.clone()) {
            // A pasted link is its own scenario: the preset and its lesson go.
            with(|app| app.preset = None);
            show_lesson(None);
            if let Some(select) = by_id::<HtmlSelectElement>("preset") {
                select.set_value("");
            }
            apply(s);
        }
    });
    if let Ok(Some(mq)) = window().match_media("(prefers-color-scheme: dark)") {
        on(&mq, "change", |_| {
            with(|app| app.remap_key.clear());
            redraw(Redraw::ALL);
        });
    }
}

/// `?embed=1`: the compact view; its height goes to the parent page.
fn embed() {
    let listed: Vec<String> = query("controls")
        .unwrap_or_else(|| "slow-share,zipf,seed".to_string())
        .split(',')
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect();
    with(|app| {
        app.embed = true;
        app.embed_controls = listed.clone();
    });
    if let Some(body) = document().body() {
        let _ = body.class_list().add_1("embed");
    }
    controls::show_only(&listed);
    dom::set_hidden("open-full", false);
    let parent = window().parent().ok().flatten();
    let last = Rc::new(RefCell::new(0));
    let report = move || {
        let Some(parent) = &parent else { return };
        let height = document().document_element().map_or(0, |e| e.scroll_height());
        if height == *last.borrow() {
            return;
        }
        *last.borrow_mut() = height;
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &"lbsim:resize".into());
        let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
        let _ = parent.post_message(&message, "*");
    };
    let report = Rc::new(report);
    let observer_report = report.clone();
    let callback = Closure::<dyn FnMut()>::new(move || observer_report());
    if let (Ok(observer), Some(body)) =
        (web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()), document().body())
    {
        observer.observe(&body);
    }
    callback.forget();
    report();
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        fail(&format!("The page hit a bug: {info}"));
    }));
    set_body_data("start-ms", &format!("{:.1}", now_ms()));
    controls::build();
    table::build_head();
    if let Some(select) = by_id::<HtmlSelectElement>("preset") {
        for p in PRESETS {
            let option = dom::text_element("option", "", p.title);
            let _ = option.set_attribute("value", p.id);
            let _ = select.append_child(&option);
        }
    }
    wire();
    if query("embed").as_deref() == Some("1") {
        embed();
    }
    start_workers();
    let link = fragment();
    let chosen = query("preset").and_then(|id| preset(&id));
    let scenario = if link.trim_start_matches('#').is_empty() {
        let s = chosen.map(Preset::scenario).unwrap_or_default();
        Scenario { requests: s.requests.min(MAX_INTERACTIVE_REQUESTS), ..s }
    } else {
        scenario_from_link(&link)
    };
    let chosen = chosen.or_else(|| (scenario == Scenario::default()).then(|| preset("mixed")).flatten());
    with(|app| app.preset = chosen);
    if let Some(select) = by_id::<HtmlSelectElement>("preset") {
        select.set_value(chosen.map_or("", |p| p.id));
    }
    show_lesson(chosen);
    apply(scenario);
}
