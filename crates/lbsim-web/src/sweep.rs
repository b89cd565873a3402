//! The sweep view: one parameter across a range (the hockey stick of p99
//! against load), every algorithm's curve, run value by value in the
//! workers with progress. The range is the core's [`Sweep`] (the same
//! text `lbsim sweep --param` takes, and the link's `sweep=` key), so the
//! page's numbers and CSV are the CLI's for the same link. The finished
//! sweep's plot, its PNG and its CSV are drawn and written by the panels
//! module (`lazy`, `panels`), handed the rows: the first visit carries
//! none of them.

use lbsim_core::report::Headline;
use lbsim_core::scenario::field_spec;
use lbsim_core::sweep::{Figure, Sweep, OFFERED};
use lbsim_core::url::MAX_LINK_SWEEP_VALUES;
use lbsim_core::Report;
use web_sys::{Element, HtmlDetailsElement, HtmlInputElement, HtmlProgressElement, HtmlSelectElement};

use crate::dom::{add_option, by_id, on_id, set_body_data, set_text};
use crate::lazy;
use crate::links::{schedule_url, share_url_without_sweep};
use crate::pool::{dispatch, expected_seconds, main_run_going};
use crate::state::{with, Purpose, SweepRun};

/// The range the view starts from for a parameter it offers (the core's
/// [`OFFERED`]); load's for any other.
fn default_range(key: &str) -> (&'static str, &'static str, &'static str) {
    OFFERED.iter().find(|o| o.key == key).unwrap_or(&OFFERED[0]).range
}

/// Fills the parameter and figure menus from the core's lists.
fn fill_menus() {
    let fill = |id: &str, options: &mut dyn Iterator<Item = (&'static str, &'static str)>| {
        let Some(select) = by_id::<Element>(id) else { return };
        for (value, label) in options {
            add_option(&select, value, label);
        }
    };
    fill("sweep-param", &mut OFFERED.iter().map(|o| (o.key, field_spec(o.key).map_or(o.key, |f| f.label))));
    fill("sweep-figure", &mut Figure::ALL.iter().map(|f| (f.id(), f.label())));
}

fn input(id: &str) -> String {
    by_id::<HtmlInputElement>(id).map(|i| i.value().trim().to_string()).unwrap_or_default()
}

fn set_input(id: &str, value: &str) {
    if let Some(i) = by_id::<HtmlInputElement>(id) {
        i.set_value(value);
    }
}

fn select(id: &str) -> String {
    by_id::<HtmlSelectElement>(id).map(|s| s.value()).unwrap_or_default()
}

/// The range the form describes, as `NAME=FROM..TO:STEP`.
fn form_spec() -> String {
    format!(
        "{}={}..{}:{}",
        select("sweep-param"),
        input("sweep-from"),
        input("sweep-to"),
        input("sweep-step")
    )
}

/// Puts a range into the form (from a link).
fn fill_form(sweep: &Sweep) {
    if let (Some(s), Some(f)) = (by_id::<HtmlSelectElement>("sweep-figure"), sweep.figure) {
        s.set_value(f.id());
    }
    if let Some(s) = by_id::<HtmlSelectElement>("sweep-param") {
        s.set_value(sweep.key);
    }
    if let Some((_, range)) = sweep.spec.split_once('=') {
        if let Some((from_to, step)) = range.split_once(':') {
            if let Some((from, to)) = from_to.split_once("..") {
                set_input("sweep-from", from);
                set_input("sweep-to", to);
                set_input("sweep-step", step);
            }
        }
    }
}

fn status(text: &str) {
    set_text("sweep-status", text);
}

/// A link's sweep: the form shows it, the panel opens, and it runs once
/// the page's own first run is drawn.
pub fn from_link(sweep: Option<Sweep>) {
    let Some(sweep) = sweep else { return };
    fill_form(&sweep);
    if let Some(panel) = by_id::<HtmlDetailsElement>("sweep-panel") {
        panel.set_open(true);
    }
    with(|app| {
        app.sweep.spec = Some(sweep);
        app.sweep.asked = true;
    });
}

/// Starts the sweep the link asked for, once.
pub fn start_if_asked() {
    if with(|app| std::mem::take(&mut app.sweep.asked)) {
        start();
    }
}

/// Reads the form and runs the sweep over the current scenario; while the
/// page's own run is going, the sweep waits for it.
fn start() {
    if main_run_going() {
        with(|app| app.sweep.asked = true);
        status("The sweep starts once the current run is drawn.");
        return;
    }
    let mut sweep = match Sweep::parse(&form_spec(), "sweep", MAX_LINK_SWEEP_VALUES) {
        Ok(s) => s,
        Err(e) => return status(&e.to_string()),
    };
    sweep.figure = with(|app| app.sweep.spec.as_ref().and_then(|s| s.figure));
    let base = with(|app| app.scenario.clone());
    // Here a sweep whose values would all run the same is not started:
    // the reader sees why at once instead of flat lines.
    if let Some(note) = sweep.without_effect(&base) {
        return status(&note);
    }
    let scenarios = match sweep.scenarios(&base) {
        Ok(s) => s,
        Err(e) => return status(&e.to_string()),
    };
    let seconds: f64 = scenarios.iter().map(expected_seconds).sum();
    let cli = format!("lbsim sweep --url '{}' --param {}", share_url_without_sweep(), sweep.spec);
    set_text("sweep-cli", &cli);
    with(|app| {
        app.sweep.spec = Some(sweep.clone());
        app.sweep.running = Some(SweepRun { sweep, scenarios, rows: Vec::new(), run_id: 0, seconds });
    });
    schedule_url();
    set_body_data("sweep", "running");
    next_value();
}

/// Sends the next value of the running sweep, or finishes it.
fn next_value() {
    let Some((scenario, i, n, key, seconds)) = with(|app| {
        let r = app.sweep.running.as_ref()?;
        let i = r.rows.len();
        Some((r.scenarios.get(i).cloned(), i, r.scenarios.len(), r.sweep.key, r.seconds))
    }) else {
        return;
    };
    if let Some(p) = by_id::<HtmlProgressElement>("sweep-progress") {
        p.set_value(i as f64 / n.max(1) as f64);
    }
    match scenario {
        Some(scenario) => {
            status(&format!(
                "Sweeping {key}: value {} of {n} (about {:.0} s in all)",
                i + 1,
                seconds.max(1.0)
            ));
            let run_id = dispatch(scenario, Purpose::Sweep);
            with(|app| {
                if let Some(r) = app.sweep.running.as_mut() {
                    r.run_id = run_id;
                }
            });
        }
        None => finish(),
    }
}

/// One value's report came back.
pub fn value_done(run_id: u32, report: &Report) {
    let ours = with(|app| match app.sweep.running.as_mut() {
        Some(r) if r.run_id == run_id => {
            r.rows.push(report.results.iter().map(Headline::from).collect());
            true
        }
        _ => false,
    });
    if ours {
        next_value();
    }
}

fn finish() {
    let Some(r) = with(|app| app.sweep.running.take()) else { return };
    with(|app| app.sweep.result = Some((r.sweep, r.rows)));
    if let Some(p) = by_id::<HtmlProgressElement>("sweep-progress") {
        p.set_value(1.0);
    }
    status("");
    show(true);
}

/// Stops a running sweep (a newer input superseded it, its run was lost or
/// cancelled); says why, and marks the body `data-sweep="stopped"`. A
/// finished sweep on screen is marked as belonging to the previous
/// scenario.
pub fn stop(why: &str) {
    if with(|app| app.sweep.running.take().is_some()) {
        status(&format!("Sweep stopped: {why}. Run it again for the new scenario."));
        set_body_data("sweep", "stopped");
    } else if with(|app| app.sweep.result.is_some()) {
        status("The sweep shown is for the previous scenario: run it again for this one.");
    }
}

/// The figure the reader chose, or the scenario's default.
fn figure() -> Figure {
    with(|app| {
        let chosen = app.sweep.spec.as_ref().and_then(|s| s.figure);
        chosen.unwrap_or_else(|| Figure::default_for(&app.scenario))
    })
}

/// The reader picked a figure: it is drawn and kept in the link.
fn choose_figure() {
    let Ok(figure) = Figure::parse(&select("sweep-figure")) else { return };
    with(|app| {
        if let Some(spec) = app.sweep.spec.as_mut() {
            spec.figure = Some(figure);
        }
    });
    schedule_url();
    draw();
}

/// Draws the last finished sweep with the chosen figure; nothing (no empty
/// frame, no command, no downloads) until a sweep has run.
pub fn draw() {
    show(false);
}

/// Draws the last finished sweep (the panels module draws the plot and
/// its legend); `finished`: the sweep has just finished, and the body's
/// `data-sweep` says "ready" once it is drawn.
fn show(finished: bool) {
    let Some((sweep, rows)) = with(|app| app.sweep.result.clone()) else { return };
    if by_id::<Element>("sweep").is_none() {
        if finished {
            set_body_data("sweep", "ready");
        }
        return;
    }
    if let Some(result) = by_id::<web_sys::HtmlElement>("sweep-result") {
        result.set_hidden(false);
    }
    let figure = figure();
    if let Some(s) = by_id::<HtmlSelectElement>("sweep-figure") {
        s.set_value(figure.id());
    }
    let log = by_id::<HtmlInputElement>("sweep-log").is_some_and(|c| c.checked());
    let preset = with(|app| app.preset.map(|p| p.id));
    lazy::sweep(&sweep.spec, &rows, lazy::SweepDrawing { figure: figure.id(), log, preset, finished });
}

/// Connects the sweep panel's inputs.
pub fn wire() {
    fill_menus();
    on_id("sweep-param", "input", |_| {
        let (from, to, step) = default_range(&select("sweep-param"));
        set_input("sweep-from", from);
        set_input("sweep-to", to);
        set_input("sweep-step", step);
    });
    on_id("sweep-run", "click", |_| start());
    on_id("sweep-figure", "input", |_| choose_figure());
    on_id("sweep-log", "input", |_| draw());
    // A closed panel's canvas has no size; it is drawn when it opens.
    on_id("sweep-panel", "toggle", |_| draw());
    on_id("sweep-csv", "click", |_| {
        if let Some((sweep, rows)) = with(|app| app.sweep.result.clone()) {
            lazy::sweep_csv(&sweep.spec, &rows);
        }
    });
    let (from, to, step) = default_range("load");
    set_input("sweep-from", from);
    set_input("sweep-to", to);
    set_input("sweep-step", step);
}
