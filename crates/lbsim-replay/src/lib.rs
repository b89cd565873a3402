//! The replay's module, fetched when the replay first opens, with two
//! entry points as the first module has: the view in the page
//! (`web/boot.js`'s loader, [`replay`]: `lbsim-web`'s replay view) and its
//! run in a Web Worker (`web/replay-worker.js` calls [`replay_window`] on
//! the same files). A module of its own because the run a replay shows is
//! the whole engine with its attempt log: neither the first visit nor a
//! reader who opens only the Config or remapping panel carries it.
//!
//! What it is not: the view's drawing is `lbsim-web`'s; the run keeps no
//! state, and the view decodes what it returns (`lbsim-protocol`'s
//! [`FromReplayWorker`]).

use lbsim_core::replay::{replays, Replay, View};
use lbsim_core::url;
use lbsim_protocol::{wire, FromReplayWorker};
use wasm_bindgen::prelude::*;

// The same allocator as the page's modules: less code.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Shows the replay view for `link` (the page's share link, with the
/// replay's keys).
#[wasm_bindgen]
pub fn replay(link: &str) {
    lbsim_web::replay::show(link);
}

/// The replays of `pair` ("rule,rule") over the first `window` requests of
/// the scenario `link`, as the bytes of a [`FromReplayWorker`] answering
/// `id`.
#[wasm_bindgen]
pub fn replay_window(id: u32, link: &str, pair: &str, window: u32) -> Vec<u8> {
    let answer = match run(link, pair, window) {
        Ok(replays) => FromReplayWorker::Done { id, replays },
        Err(message) => FromReplayWorker::Error { id, message },
    };
    wire::encode(&answer)
}

fn run(link: &str, pair: &str, window: u32) -> Result<Vec<Replay>, String> {
    let scenario = url::decode_strict(link).map_err(|e| e.to_string())?;
    let mut view = View::default();
    view.set("pair", pair).map_err(|e| e.to_string())?;
    view.set("window", &window.to_string()).map_err(|e| e.to_string())?;
    let rules = view.pair.ok_or("pair: none given")?;
    replays(&scenario, &rules, view.window_of(&scenario)).map_err(|e| e.to_string())
}
