//! The page's own run: an input asks for it (debounced while another run
//! is going), a run the core expects to be long waits for the reader's
//! yes, the cancel button stops it, and its report is drawn when the pool
//! has merged it, unless a newer input is already waiting.

use std::rc::Rc;

use lbsim_core::{Report, Scenario};
use web_sys::{HtmlElement, HtmlProgressElement};

use crate::controls::thousands;
use crate::dom::{self, after, by_id, cancel, now_ms, set_body_data, set_text};
use crate::links::post_height;
use crate::pool::{dispatch, expected_seconds, main_run_going, withdraw};
use crate::state::{set_state, with, Purpose};
use crate::sweep;
use crate::view::{hide_confirm, show_confirm, show_report, Redraw};

/// Delay between an input and the run it asks for while another run is
/// going; a newer input within it replaces the run, and a newer run
/// supersedes a running one anyway.
const RUN_DEBOUNCE_MS: i32 = 8;
/// Runs expected to take longer than this (seconds) wait for the reader.
const ASK_SECONDS: f64 = 3.0;

/// The page's run `run_id` is merged: draw it, unless a newer input is
/// already waiting (then it would be stale).
pub fn drawn(run_id: u32, report: Report) {
    // A newer input is waiting for its run: this result would be stale the
    // moment it is drawn, so it is not drawn (the newer run's will be).
    if with(|app| app.run_timer.is_some()) {
        return;
    }
    let report = Rc::new(report);
    with(|app| {
        app.restarts = 0;
        app.report = Some(report.clone());
    });
    let start = now_ms();
    let first = with(|app| std::mem::replace(&mut app.first_plot, false));
    // An embed may not show the latency plot (`plots=`): hidden, it is
    // not the first plot a reader sees.
    let latency_shown = by_id::<HtmlElement>("cdf").is_some_and(|c| c.offset_parent().is_some());
    if first && latency_shown {
        // The first report draws the plot on the first screen (the latency
        // distribution, which carries the lesson) in this task and the
        // rest in the next: the reader sees it without waiting for the
        // others' first drawing, which is cold (V8's baseline code).
        show_report(&report, Redraw::LATENCY);
        set_body_data("first-plot-ms", &format!("{:.1}", now_ms()));
        after(0, move || {
            // A newer input came meanwhile: its report draws everything.
            let current = with(|app| app.report.as_ref().is_some_and(|r| Rc::ptr_eq(r, &report)));
            if current && !main_run_going() {
                show_report(&report, Redraw { latency: false, ..Redraw::ALL });
                finish(run_id, &report, start);
            }
        });
        return;
    }
    show_report(&report, Redraw::ALL);
    if first {
        set_body_data("first-plot-ms", &format!("{:.1}", now_ms()));
    }
    finish(run_id, &report, start);
}

/// What follows a drawn report: the embed's height, the figures tests and
/// the page benchmark read, the ready state, a sweep the link asked for.
fn finish(run_id: u32, report: &Report, start: f64) {
    post_height();
    let now = now_ms();
    set_body_data("draw-ms", &format!("{:.1}", now - start));
    set_body_data("run-id", &run_id.to_string());
    set_body_data("ready-ms", &format!("{now:.1}"));
    // What the plots now show, as a link's fragment: tests hold every
    // ready state to the inputs at that moment.
    set_body_data("drawn", &lbsim_core::url::encode(&report.scenario));
    set_body_data("latency-ms", &format!("{:.1}", now - with(|app| app.asked_ms)));
    // Focus alone does not scroll when the browser's own jump to the
    // fragment focused it already.
    if let Some(part) = with(|app| app.jump_to.take()).and_then(|id| by_id::<HtmlElement>(&id)) {
        part.scroll_into_view();
        dom::focus_part(&part);
    }
    set_text("status-text", "");
    set_state("ready");
    sweep::start_if_asked();
}

/// Asks for a run of the current scenario after the debounce.
pub fn request_run() {
    // A run the core expects to take more than a few seconds here waits
    // for the reader to say so.
    let scenario = with(|app| app.scenario.clone());
    let seconds = expected_seconds(&scenario);
    if seconds > ASK_SECONDS && with(|app| app.confirmed.as_ref() != Some(&scenario)) {
        ask(&scenario, seconds);
        return;
    }
    hide_confirm();
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

/// Sends the run asked for now, not at the end of this task: the page's
/// first run, posted before the page builds its controls, so that the
/// workers simulate while this thread builds.
pub fn send_now() {
    if let Some(t) = with(|app| app.run_timer.take()) {
        cancel(t);
        send_run();
    }
}

/// Shows the estimate and waits: "Run it" runs this very scenario, "Keep
/// the last result" leaves the plots as they are.
fn ask(scenario: &Scenario, seconds: f64) {
    let pending = with(|app| app.run_timer.take());
    if let Some(t) = pending {
        cancel(t);
    }
    show_confirm(&format!(
        "This run is expected to take about {} s here ({} requests, {} servers, {} users, {} rules).",
        seconds.round().max(1.0),
        thousands(scenario.requests),
        scenario.servers,
        thousands(u64::from(scenario.users)),
        scenario.algorithms.len()
    ));
    set_state("waiting");
}

/// The reader said yes: the scenario on screen runs, however long.
pub fn confirm_run() {
    with(|app| app.confirmed = Some(app.scenario.clone()));
    request_run();
}

/// The reader said no: the last result stays.
pub fn keep_last() {
    hide_confirm();
    set_text("status-text", "Not run: the plots show the last result.");
    set_state("ready");
}

/// Runs the current scenario for the main view (a newer input's run
/// supersedes any run going, a sweep's included).
fn send_run() {
    with(|app| app.run_timer = None);
    sweep::stop("the scenario changed");
    if let Some(p) = by_id::<HtmlProgressElement>("progress") {
        p.set_value(0.0);
    }
    set_text("status-text", "Simulating...");
    set_state("running");
    dispatch(with(|app| app.scenario.clone()), Purpose::Main);
}

/// Stops the run on its way (or the one about to start): the page stops
/// waiting at once and keeps the previous result; workers drop the run,
/// and one that is not ready yet never starts it.
pub fn cancel_run() {
    let (timer, run_id, purpose) = with(|app| {
        let pending = app.pending.take();
        (app.run_timer.take(), pending.as_ref().map(|p| p.run_id), pending.map(|p| p.purpose))
    });
    if purpose == Some(Purpose::Sweep) {
        sweep::stop("cancelled");
    }
    if let Some(t) = timer {
        cancel(t);
    }
    if let Some(run_id) = run_id {
        withdraw(run_id, 0..with(|app| app.workers.len()));
    }
    if timer.is_some() || run_id.is_some() {
        set_text("status-text", "Cancelled: the plots show the previous result.");
        set_state("ready");
    }
}
