//! The full simulator's module: the "Your traffic" panel's, fetched the
//! first time the panel opens or a file is dropped on the page, and the
//! worker of the rules the page's first module leaves out (the current
//! ones), fetched the first time a run names one. Three entry points:
//! the panel in the page ([`traffic`], called by the page's `lazy`
//! loader), the log's reading and run in a Web Worker
//! (`web/traffic-worker.js` drives [`read::LogRead`] and
//! [`read::HeldLog`] on the same files), and the page's simulator worker
//! ([`start_worker`], which `web/worker.js` calls as it calls the first
//! module's). A module of its own because it carries the access-log
//! readers and the whole simulator: a first visit carries none of it.
//!
//! What it is not: it draws no result plot (the page draws the report the
//! worker sends, through the function it gave), and it never stores or
//! sends the log: the file stays in the worker's memory until the page
//! goes.

mod panel;
pub mod read;

use js_sys::Function;
use wasm_bindgen::prelude::*;

// The same allocator as the page's modules: less code.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Shows the panel in the element `root` for the page's scenario `link`,
/// reads `file` if one was dropped (else `null`), and hands each report of
/// the log's run to `shown` (the report's bytes, the file's name, the
/// fitted scenario's link fragment).
#[wasm_bindgen]
pub fn traffic(root: &str, link: &str, file: JsValue, shown: Function) {
    panel::show(root, link, file, shown);
}

/// Starts a simulator worker with every rule: the page's pool sends it
/// the current rules of a run (docs/web.md#the-rules-production-uses-now).
#[wasm_bindgen]
pub fn start_worker() {
    lbsim_worker::start();
}
