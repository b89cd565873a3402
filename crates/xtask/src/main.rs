//! `cargo xtask`: the project's own automation, one command per job.
//!
//! - `cargo xtask test`: the whole gate, in order, as CI runs it.
//! - `cargo xtask serve` / `cargo xtask build`: the playground page.
//! - `cargo xtask bench`: the benchmarks whose figures the README quotes.
//! - `cargo xtask fuzz [CASES]`: the fuzz harness's long run.
//!
//! Each command installs what it needs the first time (the wasm target,
//! Trunk, the wasm-bindgen CLI, Chromium, npm packages), saying so.

mod bench;
mod fuzz;
mod gate;
mod tools;
mod web;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => gate::test(),
        Some("serve") => web::serve(),
        Some("build") => web::build().map(|_| ()),
        Some("bench") => bench::bench(&args[1..]),
        Some("fuzz") => fuzz::fuzz(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask <test|serve|build|bench|fuzz>");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
