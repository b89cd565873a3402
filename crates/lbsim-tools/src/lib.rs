//! The playground's second wasm module: the panels a first visit does not
//! need, fetched the first time a reader opens one (`web/boot.js`,
//! `window.lbsimTools()`), so the first visit stays within its budget
//! (SPEC section 11). Each export takes the page's share link, reads the
//! scenario from it as any link is read, and draws into the same page;
//! the drawing is `lbsim-web`'s, the numbers the core's. The same module
//! is the replay's worker (`web/replay-worker.js` calls
//! [`replay_window`]), so the replay's run is carried by neither the
//! first visit nor the simulator workers.

use lbsim_core::replay::{replays, Replay, View};
use lbsim_core::url;
use lbsim_protocol::{wire, FromReplayWorker};
use wasm_bindgen::prelude::*;

// The same allocator as the first module's (lbsim-app): less code.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Draws the remapping panel for the scenario of `link` (`force`: even if
/// it drew the same already).
#[wasm_bindgen]
pub fn remapping(link: &str, force: bool) {
    lbsim_web::panels::remapping(link, force);
}

/// Writes the Config panel for the scenario of `link`.
#[wasm_bindgen]
pub fn config(link: &str) {
    lbsim_web::panels::config(link);
}

/// Saves the canvas `id` this module draws as a PNG, its legend under it.
#[wasm_bindgen]
pub fn save_png(id: &str) {
    lbsim_web::panels::save_png(id);
}

/// Shows the replay view for `link` (the page's share link, with the
/// replay's keys).
#[wasm_bindgen]
pub fn replay(link: &str) {
    lbsim_web::replay::show(link);
}

/// The replay's worker: the replays of `pair` ("rule,rule") over the first
/// `window` requests of the scenario `link`, as the bytes of a
/// [`FromReplayWorker`] answering `id`.
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
