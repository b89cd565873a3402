//! # lbsim-app
//!
//! The playground's one wasm module, with two entry points: the page
//! (`web/boot.js` calls [`start_page`]) and the simulator worker
//! (`web/worker.js` calls [`start_worker`] in each Web Worker, on the
//! module the page compiled). Nothing starts on instantiation, so the same
//! module serves both.
//!
//! What it is not: it holds no logic of its own; the page is `lbsim-web`,
//! the worker `lbsim-worker`, their messages `lbsim-protocol`. It is the
//! one crate that imports both the page and the worker.

use wasm_bindgen::prelude::*;

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
