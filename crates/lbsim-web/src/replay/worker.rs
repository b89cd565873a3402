//! The replay's worker (`web/replay-worker.js`, on the replay's module):
//! asked for a window's replays when what is shown changed, answering
//! with them whole (`lbsim-protocol`'s [`FromReplayWorker`]) or with why
//! there are none; an answer to an older question is dropped.

use std::cell::RefCell;

use js_sys::{Array, Uint8Array};
use lbsim_protocol::{wire, FromReplayWorker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, MessageEvent, Worker, WorkerOptions, WorkerType};

use super::frame::{draw, keep_in_sight, layout, say_where, set_state, status};
use super::state::{with_player, Player};
use crate::controls::thousands;
use crate::dom::{by_id, document};

thread_local! {
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
}

/// The version the modules fetched on first use go by (`?v=`,
/// web/finish.mjs): the replay's worker script and styles are fetched
/// with it.
pub fn version() -> String {
    document()
        .query_selector("script[data-lbsim-lazy]")
        .ok()
        .flatten()
        .and_then(|s| s.get_attribute("data-lbsim-lazy"))
        .unwrap_or_default()
}

/// Asks the worker for the window when what it was computed for changed,
/// else redraws.
pub fn compute_if_changed() {
    let Some(current) = with_player(|p| p.is_current()) else { return };
    if current {
        draw();
        return;
    }
    let Some(worker) = WORKER.with(|w| w.borrow().clone()).or_else(start_worker) else {
        status("The replay needs a Web Worker, which this browser did not start.");
        return;
    };
    let Some(ask) = with_player(Player::ask) else { return };
    set_state("running");
    status(&format!("Replaying the first {} requests…", thousands(ask.window)));
    let message = Array::of4(
        &JsValue::from(ask.id),
        &JsValue::from_str(&ask.scenario),
        &JsValue::from_str(&ask.pair),
        &JsValue::from(ask.window as u32),
    );
    let _ = worker.post_message(&message);
}

/// Starts the replay's worker, on the same module as this view's.
fn start_worker() -> Option<Worker> {
    let version = version();
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(&format!("./replay-worker.js{version}"), &options).ok()?;
    let answer = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| arrived(&e.data()));
    worker.set_onmessage(Some(answer.as_ref().unchecked_ref()));
    answer.forget();
    let failed = Closure::<dyn FnMut(Event)>::new(|_: Event| {
        set_state("error");
        status("The replay's worker stopped; reload the page to try again.");
    });
    worker.set_onerror(Some(failed.as_ref().unchecked_ref()));
    failed.forget();
    WORKER.with(|w| *w.borrow_mut() = Some(worker.clone()));
    Some(worker)
}

/// The worker's answer: the window's replays, or why there are none.
fn arrived(data: &JsValue) {
    let Some(bytes) = data.dyn_ref::<Uint8Array>() else {
        set_state("error");
        status(&format!("The replay could not run: {}", data.as_string().unwrap_or_default()));
        return;
    };
    match wire::decode::<FromReplayWorker>(&bytes.to_vec()) {
        Ok(FromReplayWorker::Done { id, replays }) => {
            if with_player(|p| !p.answers(id)).unwrap_or(true) {
                return;
            }
            let attempts = replays.first().map_or(0, |r| r.attempts.len());
            with_player(|p| p.load(replays));
            if let Some(view) = by_id::<Element>("replay-view") {
                let _ = view.set_attribute("data-attempts", &attempts.to_string());
            }
            layout();
            keep_in_sight();
            set_state("ready");
            draw();
            say_where();
            if let Some(problems) = with_player(|p| std::mem::take(&mut p.problems)).filter(|p| !p.is_empty())
            {
                let said =
                    by_id::<Element>("replay-status").and_then(|e| e.text_content()).unwrap_or_default();
                status(&format!("{problems} {said}"));
            }
        }
        Ok(FromReplayWorker::Error { id, message }) => {
            if with_player(|p| p.answers(id)) == Some(true) {
                set_state("error");
                status(&format!("The replay could not run: {message}"));
            }
        }
        Err(e) => {
            set_state("error");
            status(&format!("The replay's answer could not be read: {e}"));
        }
    }
}
