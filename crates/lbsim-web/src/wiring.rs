//! What each input does: the scenario form, presets, the plot switches,
//! the table's sort buttons, copy and download buttons, in-page links,
//! resizes, theme changes, pasted links and Back.

use lbsim_core::presets::{preset, Preset};
use lbsim_core::scenario::{field_spec, FieldKind};
use lbsim_core::url::changed_keys;
use lbsim_core::{Report, Scenario, ScenarioError};
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, HtmlDetailsElement, HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::controls::{self, MAX_INTERACTIVE_REQUESTS};
use crate::dom::{self, after, by_id, cancel, document, on, on_id, set_text, window};
use crate::events;
use crate::lazy;
use crate::links::{
    apply_theme, current_fragment, embed_src, follow_preset, fragment, push_url, scenario_from_link,
    schedule_url, share_url, write_url,
};
use crate::plots::cdf::{CdfView, Class};
use crate::pool::{self, Listeners};
use crate::run::{self, cancel_run, confirm_run, keep_last, request_run};
use crate::state::{with, Purpose};
use crate::sweep;
use crate::table::{self, Sort};
use crate::view::{add_notice, redraw, save_png, show_notice, Redraw};

/// Replaces the whole scenario (a link, a preset) and runs it.
pub fn apply(scenario: Scenario) {
    with(|app| app.scenario = scenario);
    request_run();
    show_applied();
}

/// The controls, the link and the picker follow the scenario the page
/// holds (once it is set whole, before or after its run is asked for).
pub fn show_applied() {
    let scenario = with(|app| app.scenario.clone());
    controls::clear_errors();
    controls::sync(&scenario);
    schedule_url();
    show_edited();
}

/// The picker and the lesson follow the scenario: once the reader has
/// changed what the preset set (the core's [`changed_keys`]), the picker
/// says "edited" and the lesson steps aside to one line naming the
/// changes, beside the way back.
pub fn show_edited() {
    let (p, scenario) = with(|app| (app.preset, app.scenario.clone()));
    let changed = p.map_or_else(Vec::new, |p| changed_keys(&scenario, &p.scenario()));
    if let Some(select) = by_id::<HtmlSelectElement>("preset") {
        select.set_value(p.map_or("", |p| p.id));
    }
    let names: Vec<&str> = changed.iter().map(|k| field_spec(k).map_or(*k, |f| f.label)).collect();
    set_text("lesson-changed", &format!("You changed {}; the lesson was for the preset.", names.join(", ")));
    let edited = !changed.is_empty();
    dom::set_hidden("edited", !edited);
    dom::set_hidden("lesson-text", edited);
    dom::set_hidden("lesson-edited", !edited);
    // The tab and the history name the preset; a link preview, made
    // without running the page, keeps index.html's title.
    document().set_title(&match p {
        Some(p) if edited => format!("lbsim: {}, edited — {}", p.id, p.title),
        Some(p) => format!("lbsim: {} — {}", p.id, p.title),
        None => "lbsim: custom scenario".to_string(),
    });
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
    follow_preset(p);
    if let Some(panel) = by_id::<HtmlDetailsElement>("remap-panel") {
        if p.is_some_and(|p| p.remapping) {
            panel.set_open(true);
        }
    }
}

/// The page's preset becomes `p` and its lesson shows; the remapping
/// panel a remapping preset opened closes when another comes.
fn switch_preset(p: Option<&'static Preset>) {
    let was = with(|app| std::mem::replace(&mut app.preset, p));
    if was.is_some_and(|w| w.remapping) && p.is_none_or(|p| !p.remapping) {
        if let Some(panel) = by_id::<HtmlDetailsElement>("remap-panel") {
            panel.set_open(false);
        }
    }
    show_lesson(p);
}

/// A preset picked (or picked again: back to the preset, reset): its
/// scenario and lesson, in a new history entry; "custom" keeps the
/// scenario and drops the preset (and its lesson) from the link.
fn choose_preset(id: &str) {
    let p = preset(id);
    switch_preset(p);
    match p {
        Some(p) => {
            let mut s = p.scenario();
            s.requests = s.requests.min(MAX_INTERACTIVE_REQUESTS);
            // The groups the last scenario opened fold again.
            controls::fold_groups();
            apply(s);
        }
        None => {
            show_edited();
            redraw(Redraw::ALL);
        }
    }
    push_url();
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
    } else if key == "requests" {
        // The page's range, as its hint shows it ("1e9" too is over it).
        let allowed = field_spec(key).map(controls::range_text).unwrap_or_default();
        if text.trim().parse::<f64>().is_ok_and(|n| n > MAX_INTERACTIVE_REQUESTS as f64) {
            Err(ScenarioError { field: key.into(), value: text.into(), allowed })
        } else {
            next.set(key, text).map_err(|e| ScenarioError { allowed, ..e })
        }
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
            show_edited();
        }
        Err(e) => {
            let field = if field_spec(&e.field).is_some() { e.field.clone() } else { key.to_string() };
            // A number box reads text that is no number ("abc") as empty.
            let numeric =
                field_spec(&field).is_some_and(|f| matches!(f.kind, FieldKind::Integer | FieldKind::Real));
            let message = if numeric && e.value.trim().is_empty() {
                format!("{field}: not a number; allowed: {}", e.allowed)
            } else {
                e.to_string()
            };
            controls::set_error(&field, &message);
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

/// Each committed edit is a history entry (Back undoes it): Enter or
/// leaving a typed field, a menu, a box, a slider's first move; while a
/// slider is dragged its later moves replace that entry, and letting go
/// writes where it stopped.
fn wire_form() {
    let Some(form) = by_id::<Element>("controls") else { return };
    on(&form, "input", |e: Event| {
        let Some((key, text, typing)) = control_of(&e) else { return };
        if key.is_empty() {
            return;
        }
        on_control(&key, &text, !typing);
        if !typing {
            let slider = dom::target::<HtmlInputElement>(&e).is_some_and(|i| i.type_() == "range");
            if !(with(|app| std::mem::replace(&mut app.dragging, slider)) && slider) {
                push_url();
            }
        }
    });
    on(&form, "change", |e: Event| {
        let Some((key, text, typing)) = control_of(&e) else { return };
        if typing && !key.is_empty() {
            on_control(&key, &text, true);
            push_url();
        } else if with(|app| std::mem::take(&mut app.dragging)) {
            write_url(false);
        }
    });
    on(&form, "submit", |e: Event| e.prevent_default());
    on_id("new-seed", "click", |_| {
        let seed = (js_sys::Math::random() * 4_294_967_296.0).floor() as u64;
        if let Some(input) = by_id::<HtmlInputElement>("c-seed") {
            input.set_value(&seed.to_string());
        }
        on_control("seed", &seed.to_string(), true);
        push_url();
    });
    on_id("preset", "input", |e: Event| {
        if let Some(select) = dom::target::<HtmlSelectElement>(&e) {
            choose_preset(&select.value());
        }
    });
    on_id("back-to-preset", "click", |_| choose_preset(with(|app| app.preset).map_or("", |p| p.id)));
    on_id("reset", "click", |_| choose_preset("mixed"));
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
                    match dom::target::<Element>(&e).and_then(|t| t.get_attribute("data-png")).as_deref() {
                        // The panels module drew the sweep and holds its legend.
                        Some("sweep") => lazy::sweep_png(),
                        Some(id) => save_png(id),
                        None => {}
                    }
                });
            }
        }
    }
    if let Some(panel) = by_id::<Element>("remap-panel") {
        on(&panel, "toggle", |_| lazy::remapping(false));
    }
    if let Some(panel) = by_id::<Element>("config-panel") {
        on(&panel, "toggle", |_| lazy::config());
    }
    if let Some(panel) = by_id::<Element>("replay-panel") {
        on(&panel, "toggle", |_| lazy::replay());
        // The replay (its own module's view) says its keys here; the
        // links keep them.
        on(&panel, "lbsim-keys", |e| {
            let keys =
                dom::target::<Element>(&e).and_then(|p| p.get_attribute("data-keys")).unwrap_or_default();
            // The view's own keys, well formed (not a link's, so not decoded as one).
            let pairs = keys.split('&').filter_map(|kv| kv.split_once('='));
            let keys = pairs.map(|(k, v)| (k.to_string(), v.to_string())).collect();
            with(|app| app.replay = Some(lbsim_core::replay::Keys(keys)));
            schedule_url();
        });
        // The link's view keys the replay could not read, said at the top
        // (the keys it wrote back leave them out).
        on(&panel, "lbsim-key-errors", |e| {
            let said = dom::target::<Element>(&e).and_then(|p| p.get_attribute("data-key-errors"));
            let lines: Vec<String> = said.unwrap_or_default().lines().map(str::to_string).collect();
            add_notice(
                "Parts of this link's replay view were not used; they fall back to the defaults:",
                &lines,
            );
        });
    }
}

fn wire_sharing() {
    on_id("copy-link", "click", |_| {
        dom::copy(&share_url());
        set_text("share-status", "Link copied.");
    });
    on_id("copy-embed", "click", |_| lazy::embed_code(&embed_src()));
    // The second module writes the files: their writers are not in the
    // first visit's module.
    on_id("download-csv", "click", |_| lazy::results("csv"));
    on_id("download-json", "click", |_| lazy::results("json"));
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

/// In-page links (`href="#id"`: the skip link, the links to the controls,
/// the views and the terms) focus their target, opening it if it folds:
/// the fragment holds the scenario, so they must not navigate.
fn wire_jumps() {
    on(&document(), "click", |e: Event| {
        let Some(link) = dom::target::<Element>(&e).and_then(|t| t.closest("a[href^='#']").ok().flatten())
        else {
            return;
        };
        let id = link.get_attribute("href").unwrap_or_default();
        let Some(to) = by_id::<HtmlElement>(&id[1..]) else { return };
        e.prevent_default();
        dom::focus_part(&to);
        // Its top, not its middle (focus alone centres a tall form).
        to.scroll_into_view();
    });
}

/// A link that came to the address bar (pasted, Back, Forward): its
/// scenario, as when the page opens on it. One change may come as both
/// popstate and hashchange: the second finds the page showing it.
fn follow_link() {
    let link = fragment();
    if link.trim_start_matches('#') == current_fragment() {
        return;
    }
    // As when the page opens: a fragment that is no link (empty, or a
    // part of the page) is the defaults, which are the mixed preset's.
    let link = Some(link).filter(|l| l.contains('=')).unwrap_or_default();
    let d = scenario_from_link(&link);
    let (s, range) = (d.scenario, d.sweep);
    let p = d.preset.or_else(|| (s == Scenario::default()).then(|| preset("mixed")).flatten());
    with(|app| (app.replay, app.theme) = (d.replay, d.theme));
    open_replay();
    sweep::from_link(range);
    let same = s == with(|app| app.scenario.clone()) && p == with(|app| app.preset);
    if apply_theme() && same {
        redraw(Redraw::ALL);
    }
    if same {
        // Only the sweep or the theme is new: the sweep runs now, over
        // the same scenario.
        sweep::start_if_asked();
    } else {
        // A pasted link is its own scenario, with the preset it names.
        switch_preset(p);
        apply(s);
    }
}

fn wire_window() {
    on(&window(), "resize", |_| redraw_soon());
    on(&window(), "popstate", |_| follow_link());
    on(&window(), "hashchange", |_| follow_link());
    // The remapping panel's key holds the theme, so it redraws too;
    // printed, the plots are drawn for paper (`state::dark`), and again
    // for the screen after.
    for query in ["(prefers-color-scheme: dark)", "print"] {
        if let Ok(Some(mq)) = window().match_media(query) {
            on(&mq, "change", |_| redraw(Redraw::ALL));
        }
    }
}

/// A run's merged report goes to what the run was for.
fn run_done(purpose: Purpose, run_id: u32, report: Report) {
    match purpose {
        Purpose::Main => run::drawn(run_id, report),
        Purpose::Sweep => sweep::value_done(run_id, &report),
    }
}

/// Opens the replay's panel when the link's keys ask for it
/// (`view=replay`).
pub fn open_replay() {
    if with(|app| app.replay.as_ref().is_some_and(|k| k.open())) {
        if let Some(panel) = by_id::<HtmlDetailsElement>("replay-panel") {
            panel.set_open(true);
        }
    }
}

/// Connects every input of the page, and what the pool tells it, to
/// what they do.
pub fn wire() {
    pool::listen(Listeners { done: run_done, sweep_lost: sweep::stop });
    sweep::wire();
    events::wire(
        |text| {
            on_control("events", text, true);
            push_url();
        },
        || with(|app| app.scenario.clone()),
    );
    wire_form();
    wire_results();
    wire_sharing();
    wire_jumps();
    wire_window();
    crate::traffic::wire();
}
