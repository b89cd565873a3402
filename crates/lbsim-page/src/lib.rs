//! # lbsim-page
//!
//! The playground's first wasm module (the one a first visit loads; the
//! panels below the fold are `lbsim-panels`), with two entry points: the page
//! (`web/boot.js` calls [`start_page`]) and the simulator worker
//! (`web/worker.js` calls [`start_worker`] in each Web Worker, on the
//! module the page compiled). Nothing starts on instantiation, so the same
//! module serves both.
//!
//! What it is not: it holds no logic of its own; the page is `lbsim-web`,
//! the worker `lbsim-worker`, their messages `lbsim-protocol`. It is the
//! one crate that imports both the page and the worker.

use wasm_bindgen::prelude::*;

// Talc in place of dlmalloc: less code in the module readers download.
// The module runs in one thread per instance (the page, each worker).
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Starts the page: controls, URL state, workers, plots.
#[wasm_bindgen]
pub fn start_page() {
    lbsim_web::start();
}

/// Starts a simulator worker: it posts `Ready`, then runs what it is sent.
#[wasm_bindgen]
pub fn start_worker() {
    lbsim_worker::start();
}
