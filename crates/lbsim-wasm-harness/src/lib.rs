//! The core as a raw wasm module for Node, with no wasm-bindgen: the same
//! scenario JSON in, the same report JSON out, natively (`main.rs`) and in
//! wasm (`run.mjs`), so `cargo xtask test` can compare the bytes and
//! `cargo xtask bench` can time both.
//!
//! Protocol: Node asks for an input buffer with `io_reserve(len)`, writes
//! the scenario JSON there, calls `run()` (0 = report, 1 = error message)
//! and reads the output at `io_ptr()` / `io_len()`.

use std::cell::RefCell;

use lbsim_core::{Report, Scenario, Simulation};

/// Runs a scenario given as JSON to its report.
fn report(scenario_json: &str) -> Result<Report, String> {
    let scenario: Scenario =
        serde_json::from_str(scenario_json).map_err(|e| format!("scenario JSON: {e}"))?;
    Ok(Simulation::new(&scenario).map_err(|e| e.to_string())?.report())
}

/// Runs a scenario given as JSON and returns the report as compact JSON.
pub fn report_json(scenario_json: &str) -> Result<String, String> {
    serde_json::to_string(&report(scenario_json)?).map_err(|e| e.to_string())
}

/// Runs a scenario and returns only the elapsed-time-independent summary
/// needed by the speed benchmark: the number of requests simulated.
pub fn run_quietly(scenario_json: &str) -> Result<u64, String> {
    Ok(report(scenario_json)?.realized.requests)
}

thread_local! {
    static IO: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of `len` bytes for the input; returns its address.
#[no_mangle]
pub extern "C" fn io_reserve(len: usize) -> *mut u8 {
    IO.with(|io| {
        let mut io = io.borrow_mut();
        io.clear();
        io.resize(len, 0);
        io.as_mut_ptr()
    })
}

/// Address of the output.
#[no_mangle]
pub extern "C" fn io_ptr() -> *const u8 {
    IO.with(|io| io.borrow().as_ptr())
}

/// Length of the output.
#[no_mangle]
pub extern "C" fn io_len() -> usize {
    IO.with(|io| io.borrow().len())
}

fn with_input(f: impl FnOnce(&str) -> Result<String, String>) -> i32 {
    IO.with(|io| {
        let input = std::mem::take(&mut *io.borrow_mut());
        let (code, out) = match std::str::from_utf8(&input).map_err(|e| e.to_string()).and_then(f) {
            Ok(out) => (0, out),
            Err(message) => (1, message),
        };
        *io.borrow_mut() = out.into_bytes();
        code
    })
}

/// Runs the scenario JSON in the buffer; the report JSON replaces it.
#[no_mangle]
pub extern "C" fn run() -> i32 {
    with_input(report_json)
}

/// Runs the scenario JSON in the buffer without serializing the report (for
/// timing the simulation itself); the request count replaces it.
#[no_mangle]
pub extern "C" fn run_for_timing() -> i32 {
    with_input(|json| run_quietly(json).map(|n| n.to_string()))
}
