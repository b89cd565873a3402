//! The modules fetched the first time a reader opens a panel that needs
//! them: `lbsim-panels` (the remapping experiment, the Config panel, the
//! embed code, the results' downloads and the finished sweep's plot and
//! files) and
//! `lbsim-replay` (the replay). A first visit does not carry their code
//! (its budget: docs/performance.md#the-figures). `web/boot.js` loads each once
//! (`window.lbsimLazy(name)`, a promise of its exports); this asks for
//! one only when a panel that needs it is open, and calls into it with the
//! page's share link, from which that module reads the scenario as any
//! link is read. A module that cannot be fetched (offline, on a revisit
//! the service worker kept the page for: docs/embedding.md#offline) is said
//! in its panel, and asked for again when the panel next draws.

use std::cell::RefCell;

use js_sys::{Array, Function, Promise, Reflect};
use lbsim_core::report::Headline;
use lbsim_core::url;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlDetailsElement;

use crate::dom::{self, by_id, page_base, set_text, window};
use crate::state::with;

/// Whether the panel `id` is open.
fn open(id: &str) -> bool {
    by_id::<HtmlDetailsElement>(id).is_some_and(|d| d.open())
}

/// The share link of the page's scenario, over its preset.
fn link() -> String {
    with(|app| url::share_url_over(&page_base(), &app.scenario, app.preset))
}

/// The module of the remapping and Config panels.
const PANELS: &str = "lbsim-panels";
/// The replay's module: its view and its run.
const REPLAY: &str = "lbsim-replay";

thread_local! {
    /// The modules loaded so far, and their exports.
    static LOADED: RefCell<Vec<(&'static str, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// Says where the notices go that the second module failed.
fn failed(what: &str, error: &JsValue) {
    let why = error
        .as_string()
        .or_else(|| error.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_default();
    dom::show_notice(&format!("The remapping, Config and replay panels {what}"), &[why]);
}

/// Calls `export` of the loaded module `module` with `args`.
fn call_loaded(module: &JsValue, export: &str, args: &Array) {
    let f = Reflect::get(module, &JsValue::from_str(export)).ok().and_then(|f| f.dyn_into::<Function>().ok());
    if let Some(f) = f {
        if let Err(e) = f.apply(&JsValue::NULL, args) {
            failed("hit a bug", &e);
        }
    }
}

/// What a panel (or the embed code's status) says when its module could
/// not be fetched (asked again online, it is fetched).
const UNREACHABLE: &str = "This needs the network: its module could not be fetched.";

/// Calls `export` of `module` with `args`, loading the module first if
/// need be (once: later calls go straight to it); `root`, the element the
/// module draws the panel in, says so if it cannot be fetched.
fn call(root: &'static str, module: &'static str, export: &'static str, args: Array) {
    if let Some(loaded) =
        LOADED.with(|l| l.borrow().iter().find(|(m, _)| *m == module).map(|(_, e)| e.clone()))
    {
        return call_loaded(&loaded, export, &args);
    }
    let loader = Reflect::get(&window(), &JsValue::from_str("lbsimLazy")).ok();
    let Some(promise) = loader
        .and_then(|l| l.dyn_into::<Function>().ok())
        .and_then(|l| l.call1(&JsValue::NULL, &JsValue::from_str(module)).ok())
        .and_then(|p| p.dyn_into::<Promise>().ok())
    else {
        return;
    };
    let done = Closure::once(move |exports: JsValue| {
        LOADED.with(|l| l.borrow_mut().push((module, exports.clone())));
        // Only the word that it could not be fetched goes: a second call
        // made while the module loaded finds the panel already built.
        if by_id::<web_sys::Element>(root).and_then(|r| r.text_content()).as_deref() == Some(UNREACHABLE) {
            set_text(root, "");
        }
        call_loaded(&exports, export, &args);
    });
    let error = Closure::once(move |_: JsValue| set_text(root, UNREACHABLE));
    let _ = promise.then2(&done, &error);
    // One of the two runs, once, while the module loads (once a page).
    done.forget();
    error.forget();
}

/// Draws the remapping panel, if it is open (`force`: even the same
/// scenario again).
pub fn remapping(force: bool) {
    if open("remap-panel") {
        call(
            "remap-root",
            PANELS,
            "remapping",
            Array::of2(&JsValue::from_str(&link()), &JsValue::from_bool(force)),
        );
    }
}

/// Writes the Config panel, if it is open.
pub fn config() {
    if open("config-panel") {
        call("config", PANELS, "config", Array::of1(&JsValue::from_str(&link())));
    }
}

/// Shows the replay, if its panel is open, for the page's link with the
/// replay's keys.
pub fn replay() {
    if open("replay-panel") {
        let link = with(|app| {
            let views = url::Views { replay: app.replay.as_ref(), ..url::Views::default() };
            url::share_link(&page_base(), &app.scenario, app.preset, &views)
        });
        call("replay", REPLAY, "replay", Array::of1(&JsValue::from_str(&link)));
    }
}

/// Writes and copies the embed code for the embed address `src`: the
/// panels module measures the embed's height at the post's width first.
pub fn embed_code(src: &str) {
    dom::set_text("share-status", "Measuring the embed...");
    call("share-status", PANELS, "embed_code", Array::of1(&JsValue::from_str(src)));
}

/// Downloads the results on screen as `format` (`csv` or `json`, the
/// files `lbsim run --format` writes): the panels module writes them from
/// the report, handed over in the workers' wire format (`lbsim-protocol`),
/// so the first visit carries neither writer.
pub fn results(format: &'static str) {
    let Some(report) = with(|app| app.report.clone()) else { return };
    let bytes = js_sys::Uint8Array::from(&lbsim_protocol::wire::encode(&*report)[..]);
    call("share-status", PANELS, "results", Array::of2(&bytes, &JsValue::from_str(format)));
}

/// How the panels module draws a finished sweep: the figure (its id), on
/// a log axis, the preset whose lesson's rules stand out, and whether the
/// sweep has just finished (the body's `data-sweep` then says "ready"
/// once it is drawn).
pub struct SweepDrawing {
    pub figure: &'static str,
    pub log: bool,
    pub preset: Option<&'static str>,
    pub finished: bool,
}

/// A sweep's rows in the workers' wire format, for the panels module.
fn rows(rows: &Vec<Vec<Headline>>) -> JsValue {
    js_sys::Uint8Array::from(&lbsim_protocol::wire::encode(rows)[..]).into()
}

/// Draws the finished sweep `spec` (its range, as the link writes it) of
/// `rows` (each value's headlines) in the panels module.
pub fn sweep(spec: &str, sweep_rows: &Vec<Vec<Headline>>, drawing: SweepDrawing) {
    let args = Array::of5(
        &JsValue::from_str(spec),
        &rows(sweep_rows),
        &JsValue::from_str(drawing.figure),
        &JsValue::from_bool(drawing.log),
        &drawing.preset.map_or(JsValue::NULL, JsValue::from_str),
    );
    args.push(&JsValue::from_bool(drawing.finished));
    call("sweep-status", PANELS, "sweep", args);
}

/// Downloads the finished sweep as `lbsim sweep --format csv` writes it.
pub fn sweep_csv(spec: &str, sweep_rows: &Vec<Vec<Headline>>) {
    call("sweep-status", PANELS, "sweep_csv", Array::of2(&JsValue::from_str(spec), &rows(sweep_rows)));
}

/// Saves the sweep's plot as a PNG with its legend (which the panels
/// module drew).
pub fn sweep_png() {
    call("sweep-status", PANELS, "sweep_png", Array::new());
}

/// The "Your traffic" panel's module.
const TRAFFIC: &str = "lbsim-traffic";

/// Shows the "Your traffic" panel for the page's link, reading `file` if
/// one was dropped (else null); `shown` is what draws the log's report.
pub fn traffic(file: &JsValue, shown: &JsValue) {
    let args = Array::of4(&JsValue::from_str("traffic-root"), &JsValue::from_str(&link()), file, shown);
    call("traffic-root", TRAFFIC, "traffic", args);
}
