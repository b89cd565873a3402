//! `lbsim remap`: the remapping experiment
//! (docs/model.md#remapping-what-moves-when-the-pool-changes), for one
//! scheme (ownership per node before and after) or for every scheme (one
//! line each, which is what the scale-out lesson compares).

use clap::{Args, ValueEnum};
use indicatif::ProgressBar;
use lbsim_core::cost::{self, Work};
use lbsim_core::presets::PRESETS;
use lbsim_core::remap::{self, Change, Plan, Remap, RemapReport, Scheme};
use lbsim_core::Scenario;
use rayon::prelude::*;
use serde::Serialize;

use crate::flags::{PlacementFields, ScenarioFlags};
use crate::outcome::{bad, print, Failure};
use crate::progress;
use crate::run::json_line;

/// Output formats of `lbsim remap` and `lbsim trace`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum TableOrJson {
    /// Aligned columns for people.
    #[default]
    Table,
    /// One line of JSON for programs.
    Json,
}

fn scheme_help() -> String {
    let ids: Vec<&str> = Scheme::ALL.iter().map(|s| s.id()).collect();
    format!("How keys map to nodes: {}, or all (one line each) [default: all]", ids.join(", "))
}

// The ranges and defaults in the help come from the core, which checks them.

fn keys_help() -> String {
    let allowed = core_allows("keys", Remap { keys: 0, ..Remap::default() });
    format!("{allowed} [default: {}]", Remap::default().keys)
}

fn key_format_help() -> String {
    format!("Key pattern; {{i}} is the key's index, 0 to K-1 [default: {}]", Remap::default().key_format)
}

fn nodes_help() -> String {
    format!(
        "Nodes before the change, comma-separated distinct names [default: {}]",
        Remap::default().nodes.join(",")
    )
}

#[derive(Args, Debug)]
pub struct RemapArgs {
    /// Start from a remapping preset: scale-out (s1..s4, add s5)
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    #[arg(long, value_name = "S", help = scheme_help())]
    pub scheme: Option<String>,
    #[arg(long, value_name = "LIST", help = nodes_help())]
    pub nodes: Option<String>,
    /// The node that joins (at the end of the list) [default: s<N+1> when --remove is not given]
    #[arg(long, value_name = "NAME", conflicts_with = "remove")]
    pub add: Option<String>,
    /// The node that leaves, one of --nodes
    #[arg(long, value_name = "NAME")]
    pub remove: Option<String>,
    #[arg(long, value_name = "K", help = keys_help())]
    pub keys: Option<String>,
    #[arg(long, value_name = "PATTERN", help = key_format_help())]
    pub key_format: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: TableOrJson,
    /// The placement of the rings and tables, as a scenario sets it.
    #[command(flatten)]
    pub placement: ScenarioFlags<PlacementFields>,
}

/// What the core allows for a field of an experiment, learnt by showing it
/// a value it must reject: the ranges stay in the core.
fn core_allows(field: &str, probe: Remap) -> String {
    match remap::remap(&probe) {
        Err(e) if e.field == field => e.allowed,
        _ => "a whole number".to_string(),
    }
}

fn whole(field: &str, text: &str, probe: Remap) -> Result<u64, Failure> {
    text.trim().parse().map_err(|_| bad(field, text, core_allows(field, probe)))
}

/// The experiment the flags describe, and which schemes to run.
fn experiment(args: &RemapArgs) -> Result<(Remap, Vec<Scheme>), Failure> {
    let mut remap = Remap::default();
    if let Some(id) = &args.preset {
        let presets: Vec<&str> = PRESETS.iter().filter(|p| p.remapping).map(|p| p.id).collect();
        if !presets.contains(&id.as_str()) {
            return Err(bad(
                "preset",
                id,
                format!("{} (the other presets are for `lbsim run`)", presets.join(", ")),
            ));
        }
        // scale-out: the article's four servers and a fifth, which is the default experiment.
    }
    let schemes = match args.scheme.as_deref().map(str::trim) {
        None | Some("all") => Scheme::ALL.to_vec(),
        Some(text) => match text.parse::<Scheme>() {
            Ok(scheme) => vec![scheme],
            Err(()) => {
                let ids: Vec<&str> = Scheme::ALL.iter().map(|s| s.id()).collect();
                return Err(bad("scheme", text, format!("{}, all", ids.join(", "))));
            }
        },
    };
    if let Some(text) = &args.nodes {
        let nodes: Vec<String> = text.split(',').map(|n| n.trim().to_string()).collect();
        let mut distinct = nodes.clone();
        distinct.sort();
        distinct.dedup();
        if nodes.iter().any(String::is_empty) || distinct.len() != nodes.len() {
            return Err(bad("nodes", text, "comma-separated distinct, non-empty node names"));
        }
        remap.nodes = nodes;
    }
    remap.change = match (&args.add, &args.remove) {
        (Some(node), _) => Change::Add(node.trim().to_string()),
        (None, Some(node)) => Change::Remove(node.trim().to_string()),
        (None, None) => Change::Add(format!("s{}", remap.nodes.len() + 1)),
    };
    if let Some(text) = &args.keys {
        remap.keys = whole("keys", text, Remap { keys: 0, ..Remap::default() })?;
    }
    if let Some(text) = &args.key_format {
        remap.key_format = text.clone();
    }
    let mut placement = Scenario::default();
    args.placement.apply(&mut placement)?;
    Ok((remap.placed_as(&placement), schemes))
}

/// One scheme's experiment, as JSON prints it: the core's remapping
/// object (`keys`, `moved`, `before`, `after`) with the scheme and hash
/// named.
#[derive(Serialize)]
struct SchemeReport {
    scheme: &'static str,
    hash: &'static str,
    #[serde(flatten)]
    report: RemapReport,
}

/// Keys that must move at the least: those the new node takes, or those
/// the leaving node had.
fn must_move(change: &Change, report: &RemapReport) -> u64 {
    let (node, owned) = match change {
        Change::Add(node) => (node, &report.after),
        Change::Remove(node) => (node, &report.before),
    };
    owned.0.iter().find(|(n, _)| n == node).map_or(0, |(_, k)| *k)
}

fn percent(part: u64, whole: u64) -> f64 {
    part as f64 * 100.0 / whole.max(1) as f64
}

fn change_words(change: &Change) -> String {
    match change {
        Change::Add(node) => format!("add {node}"),
        Change::Remove(node) => format!("remove {node}"),
    }
}

/// Ownership per node before and after, then what moved.
fn one_table(remap: &Remap, report: &RemapReport) -> String {
    let mut out = format!(
        "{}, hash {}, {} keys, {}\n\n{:<12} {:>10} {:>10}\n",
        remap.scheme.id(),
        remap.hash_words(),
        report.keys,
        change_words(&remap.change),
        "node",
        "before",
        "after"
    );
    let mut nodes: Vec<&String> = report.before.0.iter().map(|(n, _)| n).collect();
    nodes.extend(
        report.after.0.iter().map(|(n, _)| n).filter(|n| !report.before.0.iter().any(|(b, _)| b == *n)),
    );
    let owned = |list: &[(String, u64)], node: &String| {
        list.iter().find(|(n, _)| n == node).map_or_else(|| "-".to_string(), |(_, k)| k.to_string())
    };
    for node in nodes {
        out += &format!(
            "{:<12} {:>10} {:>10}\n",
            node,
            owned(&report.before.0, node),
            owned(&report.after.0, node)
        );
    }
    let least = must_move(&remap.change, report);
    out += &format!(
        "\nmoved: {} of {} keys ({:.1}%); at least {} ({:.1}%) must move\n",
        report.moved,
        report.keys,
        percent(report.moved, report.keys),
        least,
        percent(least, report.keys)
    );
    if let Some(note) = remap.caveat() {
        out += &format!("{note}\n");
    }
    out
}

/// One line per scheme: keys moved against the least that must move.
fn schemes_table(remap: &Remap, reports: &[(Scheme, RemapReport)]) -> String {
    let keys = reports.first().map_or(remap.keys, |(_, r)| r.keys);
    let mut out = format!(
        "{} nodes, {}, {} keys, hash {}{}\n\n{:<16} {:>10} {:>8} {:>12}\n",
        remap.nodes.len(),
        change_words(&remap.change),
        keys,
        remap.hash.id(),
        if remap.builder.is_default() {
            String::new()
        } else {
            format!(
                " (consistent-hash: {})",
                Remap { scheme: Scheme::ConsistentHash, ..remap.clone() }.hash_words()
            )
        },
        "scheme",
        "moved",
        "moved %",
        "must move %"
    );
    for (scheme, report) in reports {
        out += &format!(
            "{:<16} {:>10} {:>7.1}% {:>11.1}%\n",
            scheme.id(),
            report.moved,
            percent(report.moved, report.keys),
            percent(must_move(&remap.change, report), report.keys)
        );
    }
    let jump = reports.iter().any(|(s, _)| *s == Scheme::Jump);
    if let Some(note) = (Remap { scheme: Scheme::Jump, ..remap.clone() }).caveat().filter(|_| jump) {
        out += &format!("\n{note}\n");
    }
    out
}

/// Keys one core counts at a time; the progress bar moves per slice.
const SLICE: u64 = 1 << 14;

/// One scheme's experiment with its keys counted in slices on all cores:
/// nothing is kept per key, so memory does not grow with the keys.
fn counted(experiment: &Remap, progress: &ProgressBar) -> Result<RemapReport, Failure> {
    let plan = Plan::new(experiment)?;
    let tally = (0..experiment.keys.div_ceil(SLICE))
        .into_par_iter()
        .map(|slice| {
            let tally = plan.tally(slice * SLICE..((slice + 1) * SLICE).min(experiment.keys));
            progress.inc(tally.keys());
            tally
        })
        .reduce(|| plan.empty(), |a, b| a.merge(&b));
    Ok(plan.report(tally))
}

pub fn remap(args: &RemapArgs) -> Result<(), Failure> {
    let (base, schemes) = experiment(args)?;
    let experiments: Vec<Remap> = schemes.iter().map(|&scheme| Remap { scheme, ..base.clone() }).collect();
    let work = experiments.iter().fold(Work::default(), |w, e| w + cost::remap(e));
    let total = base.keys * schemes.len() as u64;
    let progress = progress::bar(total, "keys", "remap".to_string(), work.is_long());
    let mut reports = Vec::new();
    for experiment in &experiments {
        progress.set_prefix(format!("remap {}", experiment.scheme.id()));
        reports.push((experiment.scheme, counted(experiment, &progress)?));
    }
    progress.finish_and_clear();
    let text = match (args.format, reports.as_slice()) {
        (TableOrJson::Table, [(scheme, report)]) => one_table(&Remap { scheme: *scheme, ..base }, report),
        (TableOrJson::Table, _) => schemes_table(&base, &reports),
        (TableOrJson::Json, [(scheme, report)]) => json_line(&SchemeReport {
            scheme: scheme.id(),
            hash: Remap { scheme: *scheme, ..base.clone() }.hash_words(),
            report: report.clone(),
        })?,
        (TableOrJson::Json, _) => {
            let schemes: Vec<SchemeReport> = reports
                .into_iter()
                .map(|(scheme, report)| SchemeReport {
                    scheme: scheme.id(),
                    hash: Remap { scheme, ..base.clone() }.hash_words(),
                    report,
                })
                .collect();
            json_line(&serde_json::json!({ "schemes": schemes }))?
        }
    };
    print(&text)
}
