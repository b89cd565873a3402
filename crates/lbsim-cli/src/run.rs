//! `lbsim run` and `lbsim url`: one scenario, printed as the article's
//! results table, as the whole report in JSON, or as CSV; or its share link.

use clap::{Args, ValueEnum};
use indicatif::ProgressBar;
use lbsim_core::cost;
use lbsim_core::report::AlgorithmResult;
use lbsim_core::scenario::WorkKind;
use lbsim_core::{url, Prepared, Report, Scenario, ScenarioError};
use rayon::prelude::*;
use serde::Serialize;

use crate::flags::Sources;
use crate::{print, progress, Failure};

/// Output formats of `lbsim run`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum RunFormat {
    /// The article's results table, then the realized figures.
    #[default]
    Table,
    /// The whole report.
    Json,
    /// One row per algorithm, header first.
    Csv,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub sources: Sources,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: RunFormat,
}

/// The base of share links unless `--base` is given: where `cargo xtask serve` serves the page.
pub const DEFAULT_BASE: &str = "http://127.0.0.1:8080/";

#[derive(Args, Debug)]
pub struct UrlArgs {
    #[command(flatten)]
    pub sources: Sources,
    /// The page's address; the link is this plus `#` and the scenario's fragment
    #[arg(long, value_name = "URL", default_value = DEFAULT_BASE)]
    pub base: String,
}

/// Runs a scenario as `engine::run` does, with its algorithms spread over
/// the cores: one workload, drawn once and shared. Common random numbers
/// make the report identical to a sequential run.
pub fn simulate(scenario: &Scenario, progress: &ProgressBar) -> Result<Report, ScenarioError> {
    let prepared = Prepared::new(scenario)?;
    let results = prepared
        .scenario()
        .algorithms
        .par_iter()
        .map(|&a| {
            let result = prepared.run_one(a);
            progress.inc(1);
            result
        })
        .collect();
    Ok(prepared.report(results))
}

/// One algorithm's headline numbers: a CSV row, a sweep row.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub algorithm: &'static str,
    /// p99 of quick requests; bimodal work only.
    pub quick_p99_ms: Option<f64>,
    /// p99 of slow requests; bimodal work only.
    pub slow_p99_ms: Option<f64>,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
    pub wait_mean_ms: f64,
    pub wait_p99_ms: f64,
    pub peak_queue: u32,
    pub busiest_share: f64,
    pub imbalance: f64,
}

impl From<&AlgorithmResult> for Summary {
    fn from(r: &AlgorithmResult) -> Self {
        let all = r.latency_ms.all;
        Summary {
            algorithm: r.algorithm.id(),
            quick_p99_ms: r.latency_ms.quick.map(|q| q.p99),
            slow_p99_ms: r.latency_ms.slow.map(|s| s.p99),
            p50_ms: all.p50,
            p90_ms: all.p90,
            p99_ms: all.p99,
            p999_ms: all.p999,
            max_ms: all.max,
            mean_ms: all.mean,
            wait_mean_ms: r.wait_ms.mean,
            wait_p99_ms: r.wait_ms.p99,
            peak_queue: r.peak_queue,
            busiest_share: r.busiest_share,
            imbalance: r.imbalance,
        }
    }
}

/// The CSV header of [`Summary`] rows.
pub const SUMMARY_HEADER: &str = "algorithm,quick_p99_ms,slow_p99_ms,p50_ms,p90_ms,p99_ms,p999_ms,max_ms,\
mean_ms,wait_mean_ms,wait_p99_ms,peak_queue,busiest_share,imbalance";

impl Summary {
    /// The CSV fields, in header order; a missing class is an empty field.
    pub fn csv(&self) -> String {
        let opt = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.algorithm,
            opt(self.quick_p99_ms),
            opt(self.slow_p99_ms),
            self.p50_ms,
            self.p90_ms,
            self.p99_ms,
            self.p999_ms,
            self.max_ms,
            self.mean_ms,
            self.wait_mean_ms,
            self.wait_p99_ms,
            self.peak_queue,
            self.busiest_share,
            self.imbalance
        )
    }
}

/// The results table: the article's columns, then the realized figures.
fn table(report: &Report, lesson: Option<&str>) -> String {
    let mut out = format!(
        "{:<18} {:>13} {:>13} {:>10} {:>8} {:>9}\n",
        "algorithm", "quick p99 ms", "p99 ms", "peak queue", "busiest", "imbalance"
    );
    for r in &report.results {
        let quick = r.latency_ms.quick.map_or_else(|| "-".to_string(), |q| format!("{:.1}", q.p99));
        out += &format!(
            "{:<18} {:>13} {:>13.1} {:>10} {:>7.1}% {:>9.2}\n",
            r.algorithm.id(),
            quick,
            r.latency_ms.all.p99,
            r.peak_queue,
            r.busiest_share * 100.0,
            r.imbalance
        );
    }
    let z = &report.realized;
    // Only bimodal work has slow requests.
    let slow = match report.scenario.work {
        WorkKind::Bimodal => format!(", slow share {:.1}%", z.slow_share * 100.0),
        _ => String::new(),
    };
    out += &format!(
        "\nrealized: {} requests, load {:.3}{slow}, rate {:.1} req/s, top user {:.1}%, top 10 users {:.1}%\n",
        z.requests,
        z.load,
        z.rate_per_s,
        z.top_user_share * 100.0,
        z.top10_share * 100.0
    );
    if let Some(lesson) = lesson {
        out += &format!("\n{lesson}\n");
    }
    out
}

/// CSV of a report: header, then one row per algorithm.
fn csv(report: &Report) -> String {
    let mut out = format!("{SUMMARY_HEADER}\n");
    for r in &report.results {
        out += &Summary::from(r).csv();
        out.push('\n');
    }
    out
}

/// A value as one line of JSON.
pub fn json_line(value: &impl Serialize) -> Result<String, Failure> {
    serde_json::to_string(value)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| Failure::Output(e.into()))
}

pub fn run(args: &RunArgs) -> Result<(), Failure> {
    let preset = args.sources.preset()?;
    let scenario = args.sources.scenario()?;
    let rules = scenario.algorithms.len() as u64;
    let progress = progress::bar(rules, "rules", "run".to_string(), cost::run(&scenario).is_long());
    let report = simulate(&scenario, &progress)?;
    progress.finish_and_clear();
    let text = match args.format {
        RunFormat::Table => table(&report, preset.map(|p| p.lesson)),
        RunFormat::Json => json_line(&report)?,
        RunFormat::Csv => csv(&report),
    };
    print(&text)
}

pub fn url(args: &UrlArgs) -> Result<(), Failure> {
    // The base is printed as given: no control character may ride along.
    if args.base.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(crate::bad("base", &args.base, "a URL without spaces or control characters"));
    }
    let scenario = args.sources.scenario()?;
    print(&(url::share_url(&args.base, &scenario) + "\n"))
}

#[cfg(test)]
mod tests {
    use lbsim_core::presets::PRESETS;
    use lbsim_core::{engine, AlgorithmId};

    use super::*;

    /// The parallel run must be byte-identical to the core's sequential one.
    #[test]
    fn parallel_run_matches_the_sequential_engine() {
        let mut scenarios: Vec<Scenario> = PRESETS.iter().map(|p| p.scenario()).collect();
        scenarios.push(Scenario {
            algorithms: vec![AlgorithmId::Maglev, AlgorithmId::RoundRobin, AlgorithmId::Maglev],
            ..Scenario::default()
        });
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().expect("a thread pool");
        for mut scenario in scenarios {
            scenario.requests = scenario.requests.min(3000);
            let sequential =
                serde_json::to_string(&engine::run(&scenario).expect("a valid scenario")).expect("json");
            let parallel = serde_json::to_string(
                &pool.install(|| simulate(&scenario, &ProgressBar::hidden())).expect("a valid scenario"),
            )
            .expect("json");
            assert_eq!(parallel, sequential);
        }
    }
}
