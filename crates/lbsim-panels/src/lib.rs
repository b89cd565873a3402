//! The playground's second wasm module: the panels a first visit does not
//! need, fetched the first time a reader opens one (`web/boot.js`,
//! `window.lbsimLazy()`), so the first visit stays within its budget
//! (docs/performance.md#the-figures). Each panel's export takes the page's
//! share link, reads the scenario from it as any link is read, and draws
//! into the same page; the drawing is `lbsim-web`'s, the numbers the
//! core's. The results' CSV and JSON downloads are here too, written from
//! the report on screen, and the finished sweep's plot, PNG and CSV. The replay is a module of its own (`lbsim-replay`).

use wasm_bindgen::prelude::*;

// The same allocator as the first module's (lbsim-page): less code.
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

/// Writes the embed code for the embed address `src`, at the post width
/// chosen beside its button, measuring the embed's height first.
#[wasm_bindgen]
pub fn embed_code(src: &str) {
    lbsim_web::embed_code::embed_code(src);
}

/// Downloads the report `report` (the workers' wire format) as `format`,
/// `csv` or `json`.
#[wasm_bindgen]
pub fn results(report: &[u8], format: &str) {
    lbsim_web::panels::results(report, format);
}

/// Draws the finished sweep `spec` (its range) of `rows` (each value's
/// headlines, the workers' wire format) with the figure `figure`.
#[wasm_bindgen]
pub fn sweep(spec: &str, rows: &[u8], figure: &str, log: bool, preset: Option<String>, finished: bool) {
    lbsim_web::panels::sweep(spec, rows, figure, log, preset, finished);
}

/// Downloads the finished sweep as `lbsim sweep --format csv` writes it.
#[wasm_bindgen]
pub fn sweep_csv(spec: &str, rows: &[u8]) {
    lbsim_web::panels::sweep_csv(spec, rows);
}

/// Saves the sweep's plot as a PNG with its legend.
#[wasm_bindgen]
pub fn sweep_png() {
    lbsim_web::panels::sweep_png();
}
