//! `cargo xtask`: the project's own automation, one command per job.
//!
//! - `cargo xtask test`: the whole gate, in order, as CI runs it.
//! - `cargo xtask serve` / `cargo xtask build`: the playground page.
//! - `cargo xtask bench`: the benchmarks whose figures docs/performance.md
//!   quotes.
//! - `cargo xtask fuzz [CASES]`: the fuzz harness's long run.
//! - `cargo xtask docs-check [--bless]`: the docs' `console` examples run
//!   against the built `lbsim` and must print what they show, and their
//!   links must lead somewhere (`--bless` rewrites the shown outputs); the
//!   gate runs it after the tests.
//! - `cargo xtask browser [FILE...]`: the browser tests alone (all, or the
//!   files named), after building the page.
//! - `cargo xtask conformance`: the real NGINX (installed when missing)
//!   against `lbsim trace`, request by request; the gate runs it after the
//!   tests.
//! - `cargo xtask layers`: no import circle between files, every module
//!   in a layer, and no module naming a higher layer than its own (the
//!   layers are listed in `layers.rs`); the gate runs it after clippy.
//!
//! Each command installs what it needs the first time (the wasm target,
//! Trunk, the wasm-bindgen CLI, Chromium, npm packages), saying so.
//!
//! What it may import: `lbsim-core` (for the rules' ids the benches
//! name) and the tools' crates; nothing imports it.

mod bench;
mod conformance;
mod docs;
mod fuzz;
mod gate;
mod layers;
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
        Some("layers") => layers::check(),
        Some("conformance") => conformance::conformance(),
        Some("browser") => web::browser(&args[1..]),
        Some("docs-check") => docs::docs_check(&args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask <test|serve|build|bench|fuzz|docs-check|layers|conformance|browser>"
            );
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
