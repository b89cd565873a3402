//! # lbsim-web
//!
//! The playground page: builds the controls from the core's table of
//! ranges, keeps the scenario in the URL fragment, sends runs to the
//! simulator workers (`lbsim-worker`, through `lbsim-protocol`), and draws
//! what comes back: plots with plotters on canvases and the results table.
//! A view: every decision about the model (merging parts, when theory
//! applies, the remapping change, fitting lists) is the core's.
//!
//! The modules form layers, from leaf helpers and drawing pieces that know
//! nothing of the page, through what the page knows (`state`) and the views
//! and workers, to `wiring` and this file; they are listed once, in
//! `crates/xtask/src/layers.rs` (CONTRIBUTING.md, "Layers"). A lower module
//! that must notify a higher one calls a callback the wiring registered
//! (the pool's `pool::Listeners`, the events editor's commit).
//!
//! What it is not: it never simulates on the main thread (the workers do),
//! it never depends on the worker crate (`lbsim-page` links both into one
//! module), and it never inserts text from a link or a report as HTML.

mod backend;
mod controls;
mod dom;
pub mod embed_code;
mod events;
mod lazy;
mod links;
mod palette;
pub mod panels;
mod plots;
mod pool;
pub mod replay;
mod run;
mod state;
mod sweep;
mod table;
mod traffic;
mod view;
mod wiring;

use lbsim_core::presets::{preset, Preset, PRESETS};
use lbsim_core::Scenario;
use web_sys::HtmlSelectElement;

use crate::controls::MAX_INTERACTIVE_REQUESTS;
use crate::dom::{by_id, now_ms, set_body_data};
use crate::links::{apply_query, fragment, scenario_from_link};
use crate::state::with;
use crate::view::fail;
use crate::wiring::{open_replay, show_applied, show_lesson, wire};

/// The glossary's list of rules, from the core's registry: what each does
/// and whose implementation it follows, readable by keyboard and touch
/// (not only in `title` tooltips).
fn glossary() {
    let Some(list) = by_id::<web_sys::Element>("glossary-rules") else { return };
    for a in lbsim_core::AlgorithmId::ALL {
        let _ = list.append_child(&dom::text_element("dt", "", a.id()));
        let _ = list.append_child(&dom::text_element("dd", "", a.description()));
    }
}

/// Starts the page: reads the scenario of the link (or the preset), sends
/// its run to the workers at once, then builds the controls and the table
/// and wires the inputs while the workers simulate.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        fail(&format!("The page hit a bug: {info}"));
    }));
    set_body_data("start-ms", &format!("{:.1}", now_ms()));
    // A link names its preset (`preset=`); without a link the page opens
    // on the mixed preset, the defaults with their lesson.
    // A fragment without `=` names a part of the page (an embed links to
    // `#glossary`), not a scenario.
    let link = fragment();
    let part = Some(link.trim_start_matches('#')).filter(|id| !id.is_empty() && !id.contains('='));
    let part = part.filter(|id| by_id::<web_sys::Element>(id).is_some());
    let (scenario, chosen, sweep) = if part.is_some() || link.trim_start_matches('#').is_empty() {
        let p = preset("mixed");
        let s = p.map(Preset::scenario).unwrap_or_default();
        (Scenario { requests: s.requests.min(MAX_INTERACTIVE_REQUESTS), ..s }, p, None)
    } else {
        let d = scenario_from_link(&link);
        let p = d.preset.or_else(|| (d.scenario == Scenario::default()).then(|| preset("mixed")).flatten());
        with(|app| (app.replay, app.theme) = (d.replay, d.theme));
        (d.scenario, p, d.sweep)
    };
    links::apply_theme();
    with(|app| {
        app.preset = chosen;
        app.scenario = scenario;
        app.jump_to = part.map(str::to_string);
    });
    // The run first: the workers simulate while this thread builds the
    // page (on a phone the building takes about as long as the run).
    pool::start_workers();
    run::request_run();
    run::send_now();
    controls::build();
    table::build_head();
    glossary();
    if let Some(select) = by_id::<HtmlSelectElement>("preset") {
        for p in PRESETS {
            dom::add_option(&select, p.id, p.title);
        }
    }
    wire();
    open_replay();
    sweep::from_link(sweep);
    apply_query(chosen);
    show_lesson(chosen);
    show_applied();
    set_body_data("built-ms", &format!("{:.1}", now_ms()));
}
