//! `lbsim run` and `lbsim url`: one scenario, printed as the article's
//! results table, as the whole report in JSON, or as CSV; or its share link
//! or embed address.

use clap::{Args, ValueEnum};
use indicatif::ProgressBar;
use lbsim_core::cost;
use lbsim_core::scenario::WorkKind;
use lbsim_core::{url, Prepared, Report, Scenario, ScenarioError};
use rayon::prelude::*;
use serde::Serialize;

use crate::flags::Sources;
use crate::outcome::{complain, print, Failure};
use crate::progress;

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
    /// Print the address an iframe embeds instead: `?embed=1&plots=` the preset's lesson plot and the
    /// table (the page's own default), then the fragment
    #[arg(long)]
    pub embed: bool,
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

/// The results table: the article's columns, then the realized figures.
/// A run with errors gains an errors column (and a retries column when it
/// retried); one with caches a hit rate column.
fn table(report: &Report, lesson: Option<&str>) -> String {
    let (errors, retries, caches) = (report.has_errors(), report.has_retries(), report.has_caches());
    let mut out = format!(
        "{:<18} {:>13} {:>13} {:>10} {:>8} {:>9}",
        "algorithm", "quick p99 ms", "p99 ms", "peak queue", "busiest", "imbalance"
    );
    if errors {
        out += &format!(" {:>15}", "errors");
    }
    if retries {
        out += &format!(" {:>8}", "retries");
    }
    if caches {
        out += &format!(" {:>8}", "hit rate");
    }
    out.push('\n');
    for r in &report.results {
        let quick = r.latency_ms.quick.map_or_else(|| "-".to_string(), |q| format!("{:.1}", q.p99));
        out += &format!(
            "{:<18} {:>13} {:>13.1} {:>10} {:>7.1}% {:>9.2}",
            r.algorithm.id(),
            quick,
            r.latency_ms.all.p99,
            r.peak_queue,
            r.busiest_share * 100.0,
            r.imbalance
        );
        if errors {
            let cell = format!("{} ({:.1}%)", r.errors.unwrap_or(0), r.error_share.unwrap_or(0.0) * 100.0);
            out += &format!(" {cell:>15}");
        }
        if retries {
            out += &format!(" {:>8}", r.retries.unwrap_or(0));
        }
        if caches {
            out += &format!(" {:>7.1}%", r.hit_rate.unwrap_or(0.0) * 100.0);
        }
        out.push('\n');
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
    for note in args.sources.without_effect(&scenario) {
        complain(&note);
    }
    let rules = scenario.algorithms.len() as u64;
    let progress = progress::bar(rules, "rules", "run".to_string(), cost::run(&scenario).is_long());
    let report = simulate(&scenario, &progress)?;
    progress.finish_and_clear();
    let end = report.end_ms();
    for e in scenario.events.after(end) {
        complain(&format!(
            "event {e} is after the run's last answer ({:.1} s): it changes nothing in this run",
            end / 1000.0
        ));
    }
    let text = match args.format {
        RunFormat::Table => table(&report, preset.map(|p| p.lesson)),
        RunFormat::Json => json_line(&report)?,
        RunFormat::Csv => report.csv(),
    };
    print(&text)
}

pub fn url(args: &UrlArgs) -> Result<(), Failure> {
    // The base is printed as given: no control character may ride along.
    if args.base.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(crate::outcome::bad("base", &args.base, "a URL without spaces or control characters"));
    }
    let scenario = args.sources.scenario()?;
    // A link's preset replaces the flag's, as it does for the scenario.
    let linked = args.sources.url.as_deref().and_then(|link| url::decode(link).preset);
    let preset = linked.or(args.sources.preset()?);
    let link = if args.embed {
        url::embed_url(&args.base, &scenario, preset, None)
    } else {
        url::share_url_over(&args.base, &scenario, preset)
    };
    print(&(link + "\n"))
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
