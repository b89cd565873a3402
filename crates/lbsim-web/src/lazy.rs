//! The page's second module (`lbsim-tools`), fetched the first time a
//! reader opens a panel that needs it: the remapping experiment, the
//! Config panel and the replay. A first visit does not carry their code (SPEC section
//! 11's budget). `web/boot.js` loads the module once
//! (`window.lbsimTools()`, a promise of its exports); this asks for it
//! only when such a panel is open, and calls into it with the page's share
//! link, from which that module reads the scenario as any link is read.

use std::cell::RefCell;

use js_sys::{Array, Function, Promise, Reflect};
use lbsim_core::url;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlDetailsElement;

use crate::dom::{self, by_id, page_base, window};
use crate::state::with;

/// Whether the panel `id` is open.
fn open(id: &str) -> bool {
    by_id::<HtmlDetailsElement>(id).is_some_and(|d| d.open())
}

/// The share link of the page's scenario, over its preset.
fn link() -> String {
    with(|app| url::share_url_over(&page_base(), &app.scenario, app.preset))
}

thread_local! {
    /// The second module's exports, once loaded.
    static TOOLS: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

/// Says where the notices go that the second module failed.
fn failed(what: &str, error: &JsValue) {
    let why = error
        .as_string()
        .or_else(|| error.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_default();
    dom::show_notice(&format!("The remapping, Config and replay panels {what}"), &[why]);
}

/// Calls `export` of the loaded module `tools` with `args`.
fn call_loaded(tools: &JsValue, export: &str, args: &Array) {
    let f = Reflect::get(tools, &JsValue::from_str(export)).ok().and_then(|f| f.dyn_into::<Function>().ok());
    if let Some(f) = f {
        if let Err(e) = f.apply(&JsValue::NULL, args) {
            failed("hit a bug", &e);
        }
    }
}

/// Calls the second module's `export` with `args`, loading it first if
/// need be (once: later calls go straight to it).
fn call(export: &'static str, args: Array) {
    if let Some(tools) = TOOLS.with(|t| t.borrow().clone()) {
        return call_loaded(&tools, export, &args);
    }
    let loader = Reflect::get(&window(), &JsValue::from_str("lbsimTools")).ok();
    let Some(promise) = loader
        .and_then(|l| l.dyn_into::<Function>().ok())
        .and_then(|l| l.call0(&JsValue::NULL).ok())
        .and_then(|p| p.dyn_into::<Promise>().ok())
    else {
        return;
    };
    let done = Closure::once(move |tools: JsValue| {
        TOOLS.with(|t| *t.borrow_mut() = Some(tools.clone()));
        call_loaded(&tools, export, &args);
    });
    let error = Closure::once(|e: JsValue| failed("could not load", &e));
    let _ = promise.then2(&done, &error);
    // One of the two runs, once, while the module loads (once a page).
    done.forget();
    error.forget();
}

/// Draws the remapping panel, if it is open (`force`: even the same
/// scenario again).
pub fn remapping(force: bool) {
    if open("remap-panel") {
        call("remapping", Array::of2(&JsValue::from_str(&link()), &JsValue::from_bool(force)));
    }
}

/// Writes the Config panel, if it is open.
pub fn config() {
    if open("config-panel") {
        call("config", Array::of1(&JsValue::from_str(&link())));
    }
}

/// Saves a canvas the second module draws (`remap`) as a PNG.
pub fn save_png(id: &str) {
    call("save_png", Array::of1(&JsValue::from_str(id)));
}

/// Shows the replay, if its panel is open, for the page's link with the
/// replay's keys.
pub fn replay() {
    if open("replay-panel") {
        let link = with(|app| {
            let views = url::Views { sweep: None, replay: app.replay.as_ref() };
            url::share_link(&page_base(), &app.scenario, app.preset, &views)
        });
        call("replay", Array::of1(&JsValue::from_str(&link)));
    }
}
