//! # lbsim
//!
//! The `lbsim` command line: the same simulator as the playground page, for
//! tables, JSON, CSV, sweeps and remapping experiments in a terminal or a
//! script. It reads the page's share links, so a link and a command give the
//! same numbers.
//!
//! - `lbsim run`: one scenario, every chosen algorithm, as a table, JSON or CSV;
//! - `lbsim remap`: what moves when a node joins or leaves a hashed pool;
//! - `lbsim trace`: a rule's picks on an idle pool, or with requests held;
//! - `lbsim replay`: a run's first requests for two rules side by side,
//!   the counters at given moments, or every attempt;
//! - `lbsim url`: the share link of a scenario, or with `--embed` the
//!   address an iframe embeds;
//! - `lbsim sweep`: one parameter across a range, on all cores;
//! - `lbsim config`: the scenario as NGINX, HAProxy or Envoy configuration;
//! - `lbsim workload`: a scenario's requests as CSV, which `run --log`
//!   reads back;
//! - `lbsim fit`: a scenario fitted to an access log, with its link;
//! - `lbsim list`: the rules, presets, lessons, fields, event kinds or
//!   sweep figures the core registers.
//!
//! What it is not: a simulator. Queueing, balancers, ranges and the link
//! codec all live in `lbsim-core`; this crate parses arguments, runs the
//! core (in parallel where that helps) and prints. The CLI is strict where
//! the page is lenient: any bad value, unknown key or inconsistent input is
//! an error that names the field, the value and the allowed range, and
//! exits with status 2.
//!
//! What it may import: `lbsim-core` and the terminal's crates (clap,
//! rayon, indicatif, serde_json), never the page or the worker. Its
//! modules form layers (output and progress, then the flags, then the
//! commands, then this file), listed once in `crates/xtask/src/layers.rs`.

mod config;
mod fit;
mod flags;
mod list;
mod log;
mod outcome;
mod progress;
mod remap;
mod replay;
mod run;
mod sweep;
mod trace;
mod workload;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use lbsim_core::scenario::Escaped;

use crate::outcome::{exit_status, Failure};

/// Which server gets your request? Load-balancing rules side by side, from
/// one request stream.
///
/// Exit status: 0 on success, 2 for bad input (a usage error, a value out of
/// range, an unreadable, malformed or oversized scenario file or link), 1
/// when the output cannot be written (full or failing).
#[derive(Parser)]
#[command(name = "lbsim", version, about, long_about, max_term_width = 110)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Every subcommand takes values that start with `-` (`--names -a,b`,
/// `--key-format -{i}`, `--seed -1`), so a value reaches the check that
/// names its field instead of being taken for a flag.
#[derive(Subcommand)]
enum Command {
    /// Run a scenario and print each algorithm's latency and balance.
    ///
    /// Sources apply in this order, each overriding only the fields it
    /// names: --preset, then --scenario, then --url, then the scenario
    /// flags.
    ///
    /// The largest run (1,024 servers, 1,000,000 users, 10,000,000
    /// requests, every rule) took 56 s of CPU and 660 MB; the default one
    /// a fraction of a second. Rules run side by side only while their
    /// memory fits 1 GiB, so the peak does not grow with the cores (the
    /// largest run with events: 802 MB resident at 2 and at 16 threads); a machine
    /// that cannot give a run's peak refuses it with exit status 2. On a
    /// terminal, long runs show a progress bar on stderr.
    #[command(allow_hyphen_values = true)]
    Run(run::RunArgs),
    /// Remap keys when a node joins or leaves: ownership before and after,
    /// and how many keys moved.
    ///
    /// Keys are counted on all cores and never stored: memory stays under
    /// 15 MB at any size. Rendezvous scores every node for every key, so
    /// its cost grows with keys x nodes; the other schemes with keys alone.
    /// At the limits (1,024 nodes, 10,000,000 keys, every scheme) a run
    /// took 188 s of CPU, 2.6 minutes on two shared cores and 10 MB, 97%
    /// of it rendezvous; without rendezvous, 10,000,000 keys over 1,024
    /// nodes take 7 s of CPU.
    /// On a terminal, long runs show a progress bar on stderr.
    #[command(allow_hyphen_values = true)]
    Remap(remap::RemapArgs),
    /// A rule's picks: the first on an idle pool (each request completes at
    /// once, user i+1 for pick i), or with --steps for given arrivals and
    /// finishes (requests held in flight).
    #[command(allow_hyphen_values = true)]
    Trace(trace::TraceArgs),
    /// Replay a run's first requests for two rules side by side: the
    /// counters at given moments (arrived, answered, errors, retries, p99
    /// so far, in flight and waiting per server), or with --format csv
    /// every attempt (server, sent, start, done, outcome, retry, cache hit).
    ///
    /// The replay is the run of the first --window requests (at most
    /// 20,000; the attempt log stops at 20,000 attempts, at a whole
    /// request); a run no longer than the window is replayed whole, and its
    /// counters at the end are its report's figures. A link's replay keys
    /// (view=replay, pair=, t=, window=) apply, the flags over them.
    #[command(allow_hyphen_values = true)]
    Replay(replay::ReplayArgs),
    /// Print the share link of a scenario, or with --embed the address an
    /// iframe embeds.
    #[command(allow_hyphen_values = true)]
    Url(run::UrlArgs),
    /// Run a scenario across a range of one parameter, on all cores.
    #[command(allow_hyphen_values = true)]
    Sweep(sweep::SweepArgs),
    /// Print the scenario as NGINX, HAProxy or Envoy configuration, or as
    /// gRPC's service config: the block that realises one rule over its
    /// servers, weights, health checks, retries and slow start (what the
    /// balancer cannot express as a comment), or with --full a whole config
    /// (NGINX and HAProxy's pass `nginx -t` and `haproxy -c`, gRPC's its own
    /// parser; Envoy's is not run here).
    #[command(allow_hyphen_values = true)]
    Config(config::ConfigArgs),
    /// Print a scenario's requests as CSV (`arrival_ms,work_ms,key[,class]`),
    /// which `lbsim run --log FILE` reads back: the same scenario run on
    /// them gives the same results and realized figures.
    #[command(allow_hyphen_values = true)]
    Workload(workload::WorkloadArgs),
    /// Fit a scenario to an access log: each field the log shows (rate,
    /// work, users and Zipf s, servers and speeds) with how well it fits,
    /// and the fitted scenario's share link, which carries the fitted
    /// numbers only, never a line of the log.
    #[command(allow_hyphen_values = true)]
    Fit(fit::FitArgs),
    /// List what the core registers: the rules, the presets (or with their
    /// lessons), the scenario's fields, the fleet's event kinds or the
    /// sweep's figures.
    List(list::ListArgs),
}

/// clap's own message on one line: the error and its hints, without the
/// usage block, with what it echoes of the input escaped.
fn one_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let parts: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty())
        .collect();
    let line = parts.join("; ");
    let line = line.strip_prefix("error: ").unwrap_or(&line);
    format!("{}; see --help", Escaped(line))
}

/// When clap refuses the arguments, one holding a control character (an
/// escape sequence, a newline), named with the character escaped: clap's
/// messages drop escape sequences from what they echo, so `x\e[31my` would
/// read as `xy` and a mangled flag as the real one. (Values clap accepts
/// reach lbsim's own checks, whose messages name the field and escape the
/// value.)
fn control_character() -> Option<Failure> {
    std::env::args_os().enumerate().skip(1).find_map(|(i, arg)| {
        let text = arg.to_string_lossy();
        text.chars().any(char::is_control).then(|| {
            Failure::Input(format!(
                "argument {i} '{}' holds a control character; none is allowed; see --help",
                text.escape_debug()
            ))
        })
    })
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version: print as clap does; they are output too.
            let printed = e.print().and_then(|()| io::stdout().flush());
            return exit_status(printed.map_err(Failure::Output));
        }
        Err(e) => {
            let failure = control_character().unwrap_or_else(|| Failure::Input(one_line(&e)));
            return exit_status(Err(failure));
        }
    };
    exit_status(match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Remap(args) => remap::remap(&args),
        Command::Trace(args) => trace::trace(&args),
        Command::Replay(args) => replay::replay(&args),
        Command::Url(args) => run::url(&args),
        Command::Sweep(args) => sweep::sweep(&args),
        Command::Config(args) => config::config(&args),
        Command::List(args) => list::list(&args),
        Command::Workload(args) => workload::workload(&args),
        Command::Fit(args) => fit::fit(&args),
    })
}
