//! `cargo xtask`: the project's own automation, one command per job.
//!
//! - `cargo xtask test [--skip PART]`: the whole gate, in order, as CI
//!   runs it; a part that cannot run fails it unless skipped by name.
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
//! - `cargo xtask conformance [--skip BALANCER]`: the real NGINX and
//!   HAProxy (installed when missing) against `lbsim trace`, request by
//!   request; the gate runs it after the tests.
//! - `cargo xtask testbed [--url LINK | --preset P] [--for PROGRAM]
//!   [--requests N]`: a scenario served by the real NGINX and HAProxy in
//!   front of servers that behave as the model's, its latencies measured
//!   against lbsim's prediction (docs/testbed.md); the gate runs a short
//!   one.
//! - `cargo xtask layers`: no import circle between files, every module
//!   in a layer, and no module naming a higher layer than its own (the
//!   layers are listed in `layers.rs`); the gate runs it after clippy.
//!
//! Each command installs what it needs the first time (the wasm target,
//! Trunk, the wasm-bindgen CLI, Chromium, npm packages), saying so. Each
//! answers `--help` with its usage and options, and refuses an unknown
//! flag instead of running (clap, as the CLI does).
//!
//! What it may import: `lbsim-core` (for the rules' ids the benches
//! name), clap and the tools' crates; nothing imports it.

mod bench;
mod conformance;
mod docs;
mod fuzz;
mod gate;
mod layers;
mod testbed;
mod tools;
mod web;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::gate::Part;

/// The project's own automation: the gate, the page, the benchmarks, the
/// fuzz run, the docs' examples, the layers and the conformance suite.
///
/// Each command installs what it needs the first time, saying so.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", max_term_width = 100)]
struct Xtask {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// The whole gate, in order, as CI runs it: fmt, clippy, layers,
    /// tests, docs-check, conformance (NGINX and HAProxy), the testbed's
    /// short run, the core without std, native against wasm, the browser
    /// tests.
    ///
    /// A part that cannot run fails the gate unless it is skipped by name;
    /// the last line counts the parts that passed, failed and were skipped.
    Test {
        /// Leave these parts out (repeat, or separate with commas); refused
        /// when CI=true.
        #[arg(long, value_enum, value_delimiter = ',', value_name = "PART")]
        skip: Vec<Part>,
    },
    /// The playground on http://127.0.0.1:8080 (`trunk serve`), rebuilt and
    /// reloaded on every edit.
    Serve,
    /// A deployable dist/: plain static files with relative URLs.
    Build,
    /// The benchmarks whose figures docs/performance.md quotes (all three
    /// without a name).
    Bench {
        #[command(subcommand)]
        which: Option<Bench>,
    },
    /// The fuzz harness's long run: each property with many cases,
    /// optimized.
    Fuzz {
        /// Cases per core property (the binary's properties get a
        /// twentieth, the reports' a hundredth).
        #[arg(value_name = "CASES", default_value_t = fuzz::DEFAULT_CASES)]
        cases: u64,
    },
    /// The docs' `console` examples against the built `lbsim`, and their
    /// links.
    DocsCheck {
        /// Rewrite the shown outputs with what lbsim prints.
        #[arg(long)]
        bless: bool,
    },
    /// No import circle between files, every module in a layer, and no
    /// module naming a higher layer than its own.
    Layers,
    /// The real NGINX and HAProxy (installed when missing) against `lbsim
    /// trace`, request by request, and every rule's config through
    /// `nginx -t` and `haproxy -c`.
    ///
    /// A balancer that cannot be had fails the run unless it is skipped by
    /// name. LBSIM_NGINX and LBSIM_HAPROXY name other programs to run.
    Conformance {
        /// Leave a balancer out (repeat, or separate with commas); refused
        /// when CI=true.
        #[arg(long, value_enum, value_delimiter = ',', value_name = "BALANCER")]
        skip: Vec<Balancer>,
    },
    /// gRPC's own parser (the `grpcio` Python package, installed into
    /// target/grpcio when missing) over every rule's `lbsim config --for
    /// grpc`; a duration written as a number and a misspelt policy must be
    /// refused first.
    GrpcConfig,
    /// A scenario served by the real NGINX and HAProxy (installed when
    /// missing), each rule's latencies measured against lbsim's prediction.
    ///
    /// The servers behave as the model's (slots, one FIFO queue, work over
    /// speed); the scenario's requests are sent at their times. Fails when
    /// a figure stands beyond the tolerance (docs/testbed.md). Refuses,
    /// with the reason, what the program cannot express.
    Testbed {
        /// A share link (the page's URL) to run.
        #[arg(long, value_name = "LINK", conflicts_with = "preset")]
        url: Option<String>,
        /// A preset to run (`mixed` without --url or --preset).
        #[arg(long, value_name = "PRESET")]
        preset: Option<String>,
        /// One program (both without).
        #[arg(long = "for", value_enum, value_name = "PROGRAM")]
        program: Option<Balancer>,
        /// The number of requests, in place of the scenario's.
        #[arg(long, value_name = "N")]
        requests: Option<u64>,
        /// Only these rules (repeat, or separate with commas); all the
        /// program has without.
        #[arg(long = "rule", value_delimiter = ',', value_name = "RULE")]
        rules: Vec<String>,
        /// Each rule twice, printing the spread between the two runs.
        #[arg(long)]
        noise: bool,
    },
    /// The browser tests alone, after building the page.
    Browser {
        /// Test files to run (all of tests/ without any).
        #[arg(value_name = "FILE")]
        files: Vec<String>,
    },
}

#[derive(Subcommand)]
enum Bench {
    /// The core natively against wasm in Node, per rule, 1M requests.
    Core {
        /// Only these rules (ids as `lbsim list rules` prints them); every
        /// rule when none is named.
        #[arg(value_name = "RULE")]
        rules: Vec<String>,
    },
    /// The `lbsim` binary against the article's Python lab, then the
    /// 1M-request budget.
    Cli {
        /// Requests for the comparison with Python.
        #[arg(value_name = "REQUESTS", default_value_t = 200_000)]
        requests: u64,
    },
    /// The page in headless Chromium: 1M run, re-run, first plot, bytes,
    /// memory.
    Page,
}

/// A balancer of the conformance suite.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Balancer {
    Nginx,
    Haproxy,
}

fn main() -> ExitCode {
    let Xtask { task } = Xtask::parse();
    let result = match task {
        Task::Test { skip } => gate::test(&skip),
        Task::Serve => web::serve(),
        Task::Build => web::build().map(|_| ()),
        Task::Bench { which: None } => bench::all(),
        Task::Bench { which: Some(Bench::Core { rules }) } => bench::core(&rules),
        Task::Bench { which: Some(Bench::Cli { requests }) } => bench::cli(requests),
        Task::Bench { which: Some(Bench::Page) } => web::bench_page(),
        Task::Fuzz { cases } => fuzz::fuzz(cases),
        Task::Layers => layers::check(),
        Task::GrpcConfig => conformance::grpc_configs(),
        Task::Conformance { skip } => conformance::conformance(conformance::Balancers {
            nginx: !skip.contains(&Balancer::Nginx),
            haproxy: !skip.contains(&Balancer::Haproxy),
        }),
        Task::Testbed { url, preset, program, requests, rules, noise } => rules
            .iter()
            .map(|r| r.parse().map_err(|()| format!("--rule {r}: no such rule")))
            .collect::<Result<Vec<_>, _>>()
            .and_then(|rules| {
                testbed::testbed(&testbed::Options {
                    url,
                    preset,
                    program: program.map(|p| match p {
                        Balancer::Nginx => lbsim_core::config::Program::Nginx,
                        Balancer::Haproxy => lbsim_core::config::Program::Haproxy,
                    }),
                    requests,
                    rules,
                    noise,
                })
            }),
        Task::Browser { files } => web::browser(&files),
        Task::DocsCheck { bless } => docs::check(bless),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
