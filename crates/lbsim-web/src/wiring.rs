//! What each input does: the scenario form, presets, the plot switches,
//! the table's sort buttons, copy and download buttons, resizes, theme
//! changes and pasted links.

use lbsim_core::presets::{preset, Preset};
use lbsim_core::scenario::field_spec;
use lbsim_core::{Report, Scenario, ScenarioError};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, HtmlDetailsElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::controls::{self, thousands, MAX_INTERACTIVE_REQUESTS};
use crate::dom::{self, after, by_id, cancel, document, on, on_id, set_text, window};
use crate::events;
use crate::links::{embed_code, fragment, scenario_from_link, schedule_url, share_url};
use crate::plots::cdf::{CdfView, Class};
use crate::pool::{self, Listeners};
use crate::run::{self, cancel_run, confirm_run, keep_last, request_run};
use crate::state::{look, with, Purpose};
use crate::sweep;
use crate::table::{self, Sort};
use crate::view::{draw_remapping, redraw, save_png, show_notice, Redraw};

/// Replaces the whole scenario (a link, a preset) and runs it.
pub fn apply(scenario: Scenario) {
    with(|app| app.scenario = scenario.clone());
    controls::clear_errors();
    controls::sync(&scenario);
    request_run();
    schedule_url();
}

/// Shows the preset's lesson (or hides it) and turns the latency plot to
/// the view that carries it.
pub fn show_lesson(p: Option<&'static Preset>) {
    match p {
        Some(p) => {
            set_text("lesson-title", p.title);
            set_text("lesson-text", p.lesson);
            dom::set_hidden("lesson", false);
            let view = CdfView { class: Class::from(p.view.class), tail: p.view.tail };
            with(|app| app.view = view);
            if let Ok(Some(radio)) =
                document().query_selector(&format!("input[name=cdf-class][value={}]", view.class.value()))
            {
                if let Some(radio) = radio.dyn_ref::<HtmlInputElement>() {
                    radio.set_checked(true);
                }
            }
            if let Some(tail) = by_id::<HtmlInputElement>("cdf-tail") {
                tail.set_checked(view.tail);
            }
        }
        None => dom::set_hidden("lesson", true),
    }
    if let Some(panel) = by_id::<HtmlDetailsElement>("remap-panel") {
        if p.is_some_and(|p| p.remapping) {
            panel.set_open(true);
        }
    }
}

/// A preset picked: its scenario and lesson; "custom" keeps the scenario
/// and drops the preset (and its lesson) from the link.
fn choose_preset(id: &str) {
    let p = preset(id);
    with(|app| app.preset = p);
    show_lesson(p);
    match p {
        Some(p) => {
            let mut s = p.scenario();
            s.requests = s.requests.min(MAX_INTERACTIVE_REQUESTS);
            apply(s);
        }
        None => {
            schedule_url();
            redraw(Redraw::ALL);
        }
    }
}

/// One control changed: check it against the table. Committed (`commit`)
/// and valid, the whole scenario runs; still being typed and valid,
/// nothing happens yet; invalid, the control says why, is marked
/// `aria-invalid`, and the results on screen say they belong to the last
/// good value.
fn on_control(key: &str, text: &str, commit: bool) {
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
        next.fit_lists();
    }
    // Events naming a server that is gone are dropped, and said so.
    let mut dropped = 0;
    if (key == "servers" || key == "names") && checked.is_ok() {
        let names: Vec<String> = (0..next.servers as usize).map(|i| next.server_name(i)).collect();
        (next.events, dropped) = next.events.keep_servers(&names);
    }
    match checked.and_then(|()| next.validate()) {
        Ok(()) if !commit => controls::clear_error(key),
        Ok(()) => {
            let servers_changed = with(|app| app.scenario.servers != next.servers);
            // The preset stays (in the link, with its lesson) while the
            // reader edits: the edits appear as keys over it.
            with(|app| app.scenario = next.clone());
            // Another control left invalid goes back to its last valid
            // value: the run that follows is for what the controls show.
            controls::revert_invalid(&next);
            controls::clear_errors();
            if servers_changed || key == "names" || key == "events" {
                for k in ["speeds", "weights", "names", "events"] {
                    controls::sync_one(&next, k);
                }
            }
            if dropped > 0 {
                show_notice(
                    "Events dropped",
                    &[format!("{dropped} event(s) named a server no longer in the pool and were removed.")],
                );
            }
            controls::mark_inactive(&next);
            request_run();
            schedule_url();
        }
        Err(e) => {
            let field = if field_spec(&e.field).is_some() { e.field.clone() } else { key.to_string() };
            controls::set_error(&field, &e.to_string());
            let last_good = with(|app| app.scenario.get(&field)).unwrap_or_default();
            controls::show_stale(&field, &last_good);
        }
    }
}

/// Whether an input holds typed text (a number box, a list), which applies
/// only when the reader commits it (Enter, or leaving the field): a
/// half-typed value never runs. Sliders, menus and boxes apply at once.
fn typed(input: &HtmlInputElement) -> bool {
    matches!(input.type_().as_str(), "number" | "text")
}

/// The control an event came from: its URL key, its text, and whether the
/// reader is still typing in it.
fn control_of(e: &Event) -> Option<(String, String, bool)> {
    let target = e.target()?;
    if let Some(i) = target.dyn_ref::<HtmlInputElement>() {
        Some((i.name(), i.value(), typed(i)))
    } else {
        target.dyn_ref::<HtmlSelectElement>().map(|s| (s.name(), s.value(), false))
    }
}

fn wire_form() {
    let Some(form) = by_id::<Element>("controls") else { return };
    on(&form, "input", |e: Event| {
        let Some((key, text, typing)) = control_of(&e) else { return };
        match key.as_str() {
            "preset" => choose_preset(&text),
            "" => {}
            _ => on_control(&key, &text, !typing),
        }
    });
    on(&form, "change", |e: Event| {
        let Some((key, text, typing)) = control_of(&e) else { return };
        if typing && !key.is_empty() {
            on_control(&key, &text, true);
        }
    });
    on(&form, "submit", |e: Event| e.prevent_default());
    on_id("new-seed", "click", |_| {
        let seed = (js_sys::Math::random() * 4_294_967_296.0).floor() as u64;
        if let Some(input) = by_id::<HtmlInputElement>("c-seed") {
            input.set_value(&seed.to_string());
        }
        on_control("seed", &seed.to_string(), true);
    });
}

fn wire_results() {
    on_id("cancel", "click", |_| cancel_run());
    on_id("confirm-run", "click", |_| confirm_run());
    on_id("confirm-keep", "click", |_| keep_last());
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
        redraw(Redraw::LATENCY);
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
    if let Ok(buttons) = document().query_selector_all("button[data-png]") {
        for i in 0..buttons.length() {
            if let Some(b) = buttons.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                on(&b, "click", |e: Event| {
                    if let Some(id) = dom::target::<Element>(&e).and_then(|t| t.get_attribute("data-png")) {
                        save_png(&id);
                    }
                });
            }
        }
    }
    if let Some(panel) = by_id::<Element>("remap-panel") {
        on(&panel, "toggle", |_| draw_remapping(&with(|app| app.scenario.clone()), &look(), false));
    }
    on_id("remap-change", "input", |_| draw_remapping(&with(|app| app.scenario.clone()), &look(), false));
}

fn wire_sharing() {
    on_id("copy-link", "click", |_| {
        dom::copy(&share_url());
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
            dom::download_text(&report.csv(), "text/csv", "lbsim-results.csv");
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
}

/// Redraws everything once resizing has paused.
fn redraw_soon() {
    if let Some(t) = with(|app| app.redraw_timer.take()) {
        cancel(t);
    }
    let t = after(120, || {
        with(|app| app.redraw_timer = None);
        redraw(Redraw::ALL);
        sweep::draw();
    });
    with(|app| app.redraw_timer = Some(t));
}

fn wire_window() {
    on(&window(), "resize", |_| redraw_soon());
    on(&window(), "hashchange", |_| {
        let (s, p, range) = scenario_from_link(&fragment());
        sweep::from_link(range);
        let same = s == with(|app| app.scenario.clone()) && p == with(|app| app.preset);
        if same {
            // Only the sweep is new: it runs now, over the same scenario.
            sweep::start_if_asked();
        } else {
            // A pasted link is its own scenario, with the preset it names.
            with(|app| app.preset = p);
            show_lesson(p);
            if let Some(select) = by_id::<HtmlSelectElement>("preset") {
                select.set_value(p.map_or("", |p| p.id));
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

/// A run's merged report goes to what the run was for.
fn run_done(purpose: Purpose, run_id: u32, report: Report) {
    match purpose {
        Purpose::Main => run::drawn(run_id, report),
        Purpose::Sweep => sweep::value_done(run_id, &report),
    }
}

/// Connects every input of the page, and what the pool tells it, to
/// what they do.
pub fn wire() {
    pool::listen(Listeners { done: run_done, sweep_lost: sweep::stop });
    sweep::wire();
    events::wire(|text| on_control("events", text, true), || with(|app| app.scenario.clone()));
    wire_form();
    wire_results();
    wire_sharing();
    wire_window();
}
