//! The page's second module (`lbsim-tools`), fetched the first time a
//! reader opens a panel that needs it: the remapping experiment and the
//! Config panel. A first visit does not carry their code (SPEC section
//! 11's budget). `web/boot.js` loads the module once
//! (`window.lbsimTools()`, a promise of its exports); this asks for it
//! only when such a panel is open, and calls into it with the page's share
//! link, from which that module reads the scenario as any link is read.

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

/// Calls the second module's `export` with `args`, loading it first if
/// need be; a module that cannot load says so where the notices go.
fn call(export: &'static str, args: Array) {
    let loader = Reflect::get(&window(), &JsValue::from_str("lbsimTools")).ok();
    let Some(promise) = loader
        .and_then(|l| l.dyn_into::<Function>().ok())
        .and_then(|l| l.call0(&JsValue::NULL).ok())
        .and_then(|p| p.dyn_into::<Promise>().ok())
    else {
        return;
    };
    let done = Closure::once(move |tools: JsValue| {
        if let Some(f) =
            Reflect::get(&tools, &JsValue::from_str(export)).ok().and_then(|f| f.dyn_into::<Function>().ok())
        {
            let _ = f.apply(&JsValue::NULL, &args);
        }
    });
    let failed = Closure::once(|error: JsValue| {
        let why =
            error.as_string().or_else(|| error.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())));
        dom::set_text(
            "notice",
            &format!("The remapping and Config panels could not load: {}", why.unwrap_or_default()),
        );
        dom::set_hidden("notice", false);
    });
    let _ = promise.then2(&done, &failed);
    // One of the two runs, once; both live until then.
    done.forget();
    failed.forget();
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
