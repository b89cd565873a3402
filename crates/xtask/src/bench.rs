//! `cargo xtask bench`: the benchmarks whose figures docs/performance.md
//! quotes.
//!
//! - `cargo xtask bench core [RULE...]`: the core natively vs in wasm, per
//!   algorithm (every one, or those named);
//! - `cargo xtask bench cli [REQUESTS]`: the `lbsim` binary vs the article's
//!   lab in plain Python (`../shared/bench/baseline.py`), whole processes;
//! - `cargo xtask bench page`: the playground in headless Chromium (input
//!   to redrawn plots, first plot, bytes transferred);
//! - `cargo xtask bench`: all three.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::gate::{harness_paths, harness_script};
use crate::tools::{ensure_node, ensure_wasm_target, have, output, root, run, step};

/// All three benchmarks.
pub fn all() -> Result<(), String> {
    core(&[])?;
    cli(200_000)?;
    crate::web::bench_page()
}

/// Native vs wasm (Node/V8) time per algorithm on the same scenario, in one
/// run, alternating, median of `REPS`; `rules` narrows it to those named.
pub fn core(rules: &[String]) -> Result<(), String> {
    let ids: Vec<&str> =
        lbsim_ids().into_iter().filter(|id| rules.is_empty() || rules.iter().any(|r| r == id)).collect();
    if let Some(unknown) = rules.iter().find(|r| !lbsim_ids().contains(&r.as_str())) {
        return Err(format!("bench core: no rule `{unknown}`; the rules: {}", lbsim_ids().join(", ")));
    }
    ensure_wasm_target()?;
    ensure_node()?;
    let (native, wasm) = harness_paths()?;
    step("core: native vs wasm (Node), mixed preset, 1M requests, one algorithm at a time");
    let dir = root().join("target/bench");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    println!("{:18} {:>12} {:>12} {:>7}", "algorithm", "native ns/req", "wasm ns/req", "ratio");
    let requests = 1_000_000.0;
    for algorithm in ids {
        let file = dir.join(format!("{algorithm}.json"));
        std::fs::write(&file, format!(r#"{{"requests":1000000,"algorithms":["{algorithm}"]}}"#))
            .map_err(|e| e.to_string())?;
        let n: f64 =
            output(&native, &["--time", "5"], Some(&file))?.trim().parse().map_err(|_| "bad timing")?;
        let w: f64 = output("node", &[&harness_script(), &wasm, "--time", "5"], Some(&file))?
            .trim()
            .parse()
            .map_err(|_| "bad timing")?;
        println!("{algorithm:18} {:>12.1} {:>12.1} {:>7.2}", n * 1e6 / requests, w * 1e6 / requests, w / n);
    }
    Ok(())
}

fn lbsim_ids() -> Vec<&'static str> {
    lbsim_core::AlgorithmId::ALL.iter().map(|a| a.id()).collect()
}

/// Repetitions of each timed process in the CLI benchmark.
const CLI_REPS: usize = 7;

/// The three rules the Python lab implements, in the CLI's terms.
const BASELINE_RULES: &str = "round-robin,least-connections,user-hash";

/// Whole-process wall time of a command, in seconds; its output is discarded
/// but it must succeed.
fn time(program: &Path, args: &[String], env: &[(&str, &str)]) -> Result<f64, String> {
    let mut command = Command::new(program);
    command.args(args).current_dir(root()).stdout(Stdio::null()).stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let start = Instant::now();
    let out = command.output().map_err(|e| format!("could not start {}: {e}", program.display()))?;
    let seconds = start.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(format!(
            "`{} {}` failed ({}): {}",
            program.display(),
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(seconds)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// The `lbsim` binary against the article's lab in plain Python, same
/// scenario (`mixed`), same request count, same three rules: processes
/// alternate, `CLI_REPS` each, medians compared. Then the CLI's budget
/// (docs/performance.md#the-figures):
/// `mixed`, 1M requests, every rule.
pub fn cli(requests: u64) -> Result<(), String> {
    run("cargo", &["build", "--release", "-p", "lbsim-cli", "--bin", "lbsim"])?;
    let lbsim = root().join("target/release/lbsim");
    let baseline = root().join("../shared/bench/baseline.py");
    let python = Path::new("python3");
    let cli_args = |requests: u64, algorithms: Option<&str>| -> Vec<String> {
        let mut args: Vec<String> =
            ["run", "--preset", "mixed", "--requests", &requests.to_string()].map(String::from).to_vec();
        if let Some(algorithms) = algorithms {
            args.extend(["--algorithms".to_string(), algorithms.to_string()]);
        }
        args
    };
    if !baseline.exists() {
        step(&format!("cli vs Python: skipped, the baseline {} is missing", baseline.display()));
    } else if !have("python3", "--version") {
        step("cli vs Python: skipped, python3 is not installed");
    } else {
        step(&format!(
            "cli vs Python baseline: mixed, {requests} requests, {BASELINE_RULES}; whole processes, \
             alternating, median of {CLI_REPS}"
        ));
        let python_args = vec![baseline.display().to_string(), requests.to_string()];
        let lbsim_args = cli_args(requests, Some(BASELINE_RULES));
        let (mut py, mut all_cores, mut one_core) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..CLI_REPS {
            py.push(time(python, &python_args, &[])?);
            all_cores.push(time(&lbsim, &lbsim_args, &[])?);
            one_core.push(time(&lbsim, &lbsim_args, &[("RAYON_NUM_THREADS", "1")])?);
        }
        let (py, all_cores, one_core) = (median(py), median(all_cores), median(one_core));
        println!("{:34} {:>10}", "process", "median s");
        println!("{:34} {:>10.4}", "python3 baseline.py", py);
        println!("{:34} {:>10.4} {:>8.0}x faster", "lbsim run (all cores)", all_cores, py / all_cores);
        println!(
            "{:34} {:>10.4} {:>8.0}x faster",
            "lbsim run (RAYON_NUM_THREADS=1)",
            one_core,
            py / one_core
        );
    }
    step("cli budget (docs/performance.md): lbsim run --preset mixed --requests 1000000, all algorithms, median of 3");
    let budget_args = cli_args(1_000_000, None);
    let times: Result<Vec<f64>, String> = (0..3).map(|_| time(&lbsim, &budget_args, &[])).collect();
    let seconds = median(times?);
    println!("lbsim run, 1M requests, every rule: {seconds:.3} s (budget 1 s)");
    Ok(())
}
