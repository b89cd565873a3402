//! The "Your traffic" panel's hook in the first module: opening the panel,
//! or dropping a file anywhere on the page, fetches the panel's module
//! (`lbsim-traffic`, through `lazy`), and a report of a log's run that
//! module sends is drawn as the page's own runs are. The log itself never
//! reaches this module: only the report's figures do.

use std::cell::RefCell;

use js_sys::{Reflect, Uint8Array};
use lbsim_core::url;
use lbsim_protocol::{wire, FromWorker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, HtmlDetailsElement, HtmlSelectElement};

use crate::controls;
use crate::dom::{by_id, on, on_id, set_body_data, set_hidden, set_text, window};
use crate::lazy;
use crate::links::{schedule_url, write_url};
use crate::run;
use crate::state::with;

thread_local! {
    /// What the panel's module calls with a report (made once).
    static SHOWN: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

/// Draws the report of a log's run (a [`FromWorker::Done`]'s bytes) as
/// the page's result, and makes the scenario fitted to the log (`fitted`,
/// a link's fragment) the page's: the controls show it and the address bar
/// holds its link, which carries numbers only. The status says the run
/// came from the file `name`.
fn shown(bytes: Uint8Array, name: String, fitted: String) {
    let Ok(FromWorker::Done { report, .. }) = wire::decode::<FromWorker>(&bytes.to_vec()) else { return };
    // A run of the page's own that is on its way would replace the log's.
    run::cancel_run();
    let scenario = url::decode_strict(&fitted).unwrap_or_else(|_| report.scenario.clone());
    with(|app| {
        app.preset = None;
        app.scenario = scenario.clone();
    });
    controls::sync(&scenario);
    schedule_url();
    write_url(false);
    set_hidden("lesson", true);
    if let Some(picker) = by_id::<HtmlSelectElement>("preset") {
        picker.set_value("");
    }
    run::drawn(0, *report);
    set_body_data("source", "file");
    set_text("status-text", &format!("This run came from a file, {name}, read in this browser only."));
}

fn shown_function() -> JsValue {
    SHOWN.with(|s| {
        s.borrow_mut()
            .get_or_insert_with(|| Closure::<dyn Fn(Uint8Array, String, String)>::new(shown).into_js_value())
            .clone()
    })
}

/// The first file a drag carries, if any.
fn dragged_file(e: &Event) -> Option<JsValue> {
    let files =
        Reflect::get(e, &"dataTransfer".into()).ok().and_then(|d| Reflect::get(&d, &"files".into()).ok())?;
    let file = Reflect::get(&files, &0.into()).ok()?;
    (!file.is_undefined()).then_some(file)
}

/// Whether a drag carries files (their names are not known until the drop).
fn drags_files(e: &Event) -> bool {
    Reflect::get(e, &"dataTransfer".into())
        .ok()
        .and_then(|d| Reflect::get(&d, &"types".into()).ok())
        .is_some_and(|t| js_sys::Array::from(&t).includes(&"Files".into(), 0))
}

/// Listens for the panel's opening and for files dropped on the page.
pub fn wire() {
    on_id("traffic-panel", "toggle", |_| {
        if by_id::<HtmlDetailsElement>("traffic-panel").is_some_and(|d| d.open()) {
            lazy::traffic(&JsValue::NULL, &shown_function());
        }
    });
    // Without this the browser would open a dropped file in place of the page.
    on(&window(), "dragover", |e: Event| {
        if drags_files(&e) {
            e.prevent_default();
        }
    });
    on(&window(), "drop", |e: Event| {
        let Some(file) = dragged_file(&e) else { return };
        e.prevent_default();
        if let Some(panel) = by_id::<HtmlDetailsElement>("traffic-panel") {
            panel.set_open(true);
            let _ = panel.dyn_ref::<web_sys::HtmlElement>().map(|p| p.scroll_into_view());
        }
        lazy::traffic(&file, &shown_function());
    });
}
