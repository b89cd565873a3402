//! `lbsim sweep`: one numeric scenario field across a range, every value
//! run on all cores, one row per value and algorithm.

use std::io::IsTerminal;

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use lbsim_core::scenario::{field_spec, FieldKind, FIELDS};
use lbsim_core::Scenario;
use rayon::prelude::*;
use serde::Serialize;

use crate::flags::Sources;
use crate::run::{json_line, simulate, Summary, SUMMARY_HEADER};
use crate::{bad, print, Failure};

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
    let numeric: Vec<&str> = FIELDS
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Integer | FieldKind::Real))
        .map(|f| f.key)
        .collect();
    format!(
        "The field and its range, FROM and TO included: NAME=FROM..TO:STEP, at most {MAX_VALUES} values; \
         NAME is one of {}",
        numeric.join(", ")
    )
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    #[arg(long, value_name = "NAME=FROM..TO:STEP", help = param_help())]
    pub param: String,
    #[command(flatten)]
    pub sources: Sources,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: SweepFormat,
}

/// A parsed `NAME=FROM..TO:STEP`: the field and the values' text forms.
#[derive(Debug, PartialEq)]
struct Range {
    key: &'static str,
    values: Vec<String>,
}

/// Digits after the decimal point of a number as written (`0.05` has 2,
/// `5e-3` has 3), at most 15.
fn decimals(text: &str) -> usize {
    let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let fraction = mantissa.split_once('.').map_or(0, |(_, d)| d.len()) as i64;
    (fraction - exponent.parse::<i64>().unwrap_or(0)).clamp(0, 15) as usize
}

fn parse_range(spec: &str) -> Result<Range, Failure> {
    let shape = "NAME=FROM..TO:STEP, for example slow-share=0..0.5:0.05";
    let (name, range) = spec.split_once('=').ok_or_else(|| bad("param", spec, shape))?;
    let numeric: Vec<&str> = FIELDS
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Integer | FieldKind::Real))
        .map(|f| f.key)
        .collect();
    let name = name.trim();
    let field = field_spec(name)
        .filter(|f| matches!(f.kind, FieldKind::Integer | FieldKind::Real))
        .ok_or_else(|| bad("param", name, format!("a numeric field: {}", numeric.join(", "))))?;
    let (from_to, step) = range.split_once(':').ok_or_else(|| bad("param", spec, shape))?;
    let (from, to) = from_to.split_once("..").ok_or_else(|| bad("param", spec, shape))?;
    let (from, to, step) = (from.trim(), to.trim(), step.trim());
    // Each end goes through the table's own range check.
    let mut probe = Scenario::default();
    probe.set(field.key, from)?;
    probe.set(field.key, to)?;
    let number = |text: &str| text.parse::<f64>().ok().filter(|x| x.is_finite());
    let (Some(a), Some(b)) = (number(from), number(to)) else {
        return Err(bad("param", spec, shape));
    };
    let whole_step = "a step above 0, a whole number for an integer field";
    let step_value = number(step)
        .filter(|s| *s > 0.0 && (field.kind == FieldKind::Real || s.fract() == 0.0))
        .ok_or_else(|| bad("param", step, whole_step))?;
    if b < a {
        return Err(bad("param", spec, "FROM at most TO"));
    }
    // A small tolerance so that 0..1:0.1 reaches 1 despite binary fractions.
    let count = ((b - a) / step_value * (1.0 + 1e-9) + 1e-9).floor() + 1.0;
    if count > MAX_VALUES as f64 {
        return Err(bad("param", spec, format!("at most {MAX_VALUES} values (this range has {count})")));
    }
    let places = decimals(from).max(decimals(step));
    let values = (0..count as usize)
        .map(|i| format!("{:.*}", places, a + i as f64 * step_value))
        .map(|text| if field.kind == FieldKind::Integer { text } else { trim_zeros(&text) })
        .collect();
    Ok(Range { key: field.key, values })
}

/// `0.50` as `0.5`, `2.00` as `2`.
fn trim_zeros(text: &str) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text.to_string()
    }
}

/// A sweep row: the value, then the algorithm's summary.
#[derive(Serialize)]
struct Row {
    /// The number as the range wrote it: `2` for an integer field, `0.05` for a real one.
    value: serde_json::Value,
    #[serde(flatten)]
    summary: Summary,
}

#[derive(Serialize)]
struct SweepReport {
    param: &'static str,
    rows: Vec<Row>,
}

pub fn sweep(args: &SweepArgs) -> Result<(), Failure> {
    let range = parse_range(&args.param)?;
    let base = args.sources.scenario()?;
    let mut scenarios = Vec::with_capacity(range.values.len());
    for text in &range.values {
        let mut scenario = base.clone();
        scenario.set(range.key, text)?;
        scenario.validate()?;
        scenarios.push(scenario);
    }
    let progress = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(scenarios.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:40}] {pos}/{len} values, {eta} left")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(format!("sweep {}", range.key));
        bar
    } else {
        ProgressBar::hidden()
    };
    // Values and, within each, algorithms run in parallel; rayon shares the
    // cores among them. Each report shrinks to its rows as soon as it is
    // made, so memory holds the rows and the reports still running (a few
    // per core), however many values the sweep has.
    let summaries: Vec<Vec<Summary>> = scenarios
        .par_iter()
        .map(|scenario| {
            let rows = simulate(scenario).map(|report| report.results.iter().map(Summary::from).collect());
            progress.inc(1);
            rows
        })
        .collect::<Result<_, _>>()?;
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
        SweepFormat::Csv => {
            let mut out = format!("{},{SUMMARY_HEADER}\n", range.key);
            for (text, summaries) in range.values.iter().zip(&summaries) {
                for summary in summaries {
                    out += &format!("{text},{}\n", summary.csv());
                }
            }
            out
        }
    };
    print(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_include_both_ends_without_binary_noise() {
        let r = parse_range("slow-share=0..0.3:0.1").expect("a range");
        assert_eq!(r.values, ["0", "0.1", "0.2", "0.3"]);
        let r = parse_range("servers=2..8:3").expect("a range");
        assert_eq!(r.values, ["2", "5", "8"]);
        let r = parse_range("load=0.5..0.6:0.05").expect("a range");
        assert_eq!(r.values, ["0.5", "0.55", "0.6"]);
        let r = parse_range("zipf=1..1.002:1e-3").expect("a range");
        assert_eq!(r.values, ["1", "1.001", "1.002"]);
    }
}
