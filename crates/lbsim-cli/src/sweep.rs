//! `lbsim sweep`: one numeric scenario field across a range, every value
//! run on all cores, one row per value and algorithm.

use clap::{Args, ValueEnum};
use lbsim_core::access_log::Traffic;
use lbsim_core::sweep::{numeric_fields, Sweep};
use lbsim_core::{cost, url, Prepared, Scenario, ScenarioError};
use rayon::prelude::*;
use serde::Serialize;

use crate::flags::Sources;
use crate::log;
use lbsim_core::report::Headline;

use crate::outcome::{bad, complain, print, Failure};
use crate::progress;
use crate::run::{json_line, threads, within_memory, MEMORY_BUDGET};

/// Most values one sweep runs.
const MAX_VALUES: usize = 1000;

/// Output formats of `lbsim sweep`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum SweepFormat {
    /// One row per value and algorithm, header first.
    #[default]
    Csv,
    /// `{"param": NAME, "rows": [...]}`, rows with the CSV's fields.
    Json,
}

fn param_help() -> String {
    format!(
        "The field and its range, FROM and TO included: NAME=FROM..TO:STEP, at most {MAX_VALUES} values; \
         without it, the sweep= of the --url link; NAME is one of {}",
        numeric_fields().join(", ")
    )
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    #[arg(long, value_name = "NAME=FROM..TO:STEP", help = param_help())]
    pub param: Option<String>,
    #[command(flatten)]
    pub sources: Sources,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: SweepFormat,
}

/// A sweep row: the value, then the algorithm's summary.
#[derive(Serialize)]
struct Row {
    /// The number as the range wrote it: `2` for an integer field, `0.05` for a real one.
    value: serde_json::Value,
    #[serde(flatten)]
    summary: Headline,
}

#[derive(Serialize)]
struct SweepReport {
    param: &'static str,
    rows: Vec<Row>,
}

/// One value's rows: its rules one after another (the same numbers as a
/// parallel run: every rule draws from its own stream).
fn one_value(scenario: &Scenario, traffic: Option<&Traffic>) -> Result<Vec<Headline>, ScenarioError> {
    let prepared = match traffic {
        Some(traffic) => Prepared::with_traffic(scenario, traffic)?,
        None => Prepared::new(scenario)?,
    };
    let results = prepared.scenario().algorithms.iter().map(|&a| prepared.run_one(a)).collect();
    Ok(prepared.report(results).results.iter().map(Headline::from).collect())
}

pub fn sweep(args: &SweepArgs) -> Result<(), Failure> {
    // The flag, else the link's sweep (the page's sweep view shares it).
    let range = match &args.param {
        Some(param) => Sweep::parse(param, "param", MAX_VALUES)?,
        None => args.sources.url.as_deref().and_then(|link| url::decode(link).sweep).ok_or_else(|| {
            bad("param", "", "NAME=FROM..TO:STEP, or a link (--url) with sweep=NAME=FROM..TO:STEP")
        })?,
    };
    let mut base = args.sources.unchecked()?;
    // A log's requests are every value's workload (its servers the fleet
    // unless given), read once; the values sweep the fleet or its time
    // scale over exactly them.
    let fleet_swept = matches!(range.key, "servers" | "names");
    let traffic = log::read(&mut base, args.sources.fleet_given() || fleet_swept)?;
    if let Some(traffic) = &traffic {
        base.requests = traffic.requests.len() as u64;
    }
    let scenarios = range.scenarios(&base)?;
    for note in args.sources.without_effect(&base).into_iter().chain(range.without_effect(&base)) {
        complain(&note);
    }
    let progress = progress::bar(scenarios.len() as u64, "values", format!("sweep {}", range.key), true);
    // Values run in parallel, each value's rules one after another on its
    // thread (rules run in parallel inside a value would let a waiting
    // thread start another value's workload). Each report shrinks to its
    // rows as soon as it is made, so memory holds the rows and, per
    // thread, one value's workload and one rule in flight: as many threads
    // as the largest value's share and rule fit in the budget.
    let peaks: Vec<u64> = scenarios.iter().map(|s| cost::memory(s).peak(1)).collect();
    let (widest, largest) = peaks.iter().copied().enumerate().max_by_key(|&(_, p)| p).unwrap_or((0, 0));
    let threads = (MEMORY_BUDGET / largest.max(1)).clamp(1, threads());
    let widest = scenarios.get(widest).unwrap_or(&base);
    let summaries: Vec<Vec<Headline>> =
        within_memory(widest, threads, largest.saturating_mul(threads), || {
            scenarios
                .par_iter()
                .map(|scenario| {
                    let rows = one_value(scenario, traffic.as_ref());
                    progress.inc(1);
                    rows
                })
                .collect::<Result<_, _>>()
        })??;
    progress.finish_and_clear();
    let text = match args.format {
        SweepFormat::Json => {
            let mut rows = Vec::new();
            for (text, summaries) in range.values.iter().zip(summaries) {
                let value: serde_json::Value = serde_json::from_str(text).unwrap_or(serde_json::Value::Null);
                rows.extend(summaries.into_iter().map(|summary| Row { value: value.clone(), summary }));
            }
            json_line(&SweepReport { param: range.key, rows })?
        }
        SweepFormat::Csv => range.csv(&summaries),
    };
    print(&text)
}
