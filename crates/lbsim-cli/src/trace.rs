//! `lbsim trace`: the first picks of a rule on an idle pool, or its picks
//! for given arrivals and finishes (`--steps`, held requests). On an idle
//! pool each pick is dispatched and completes at once, so the sequence
//! shows the rule itself (smooth WRR with weights 5,1,1 gives a a b a c a
//! a, as NGINX documents); pick i is for user i+1. With the scenario's
//! events, a request whose attempt fails is retried elsewhere: its pick
//! reads `s2>s3` (s2 failed, s3 answered), or ends `>502` when no attempt
//! answered (`502` alone: no server to try). A rule that probes
//! (Prequal) shows the servers each pick probed; a rule that learns
//! weights (grpc-wrr, envoy-cswrr) the load reports heard before each
//! pick and the weights it picks by where a pick brought new ones. The
//! core's `trace` module decides; this prints.

use clap::Args;
use lbsim_core::trace::{self, Step, MAX_STEPS};
use lbsim_core::{AlgorithmId, Scenario};
use serde::Serialize;

use crate::flags::{field_help, PickFields, ScenarioFlags};
use crate::outcome::{bad, print, Failure};
use crate::remap::TableOrJson;
use crate::run::json_line;

fn algorithm_help() -> String {
    let ids: Vec<&str> = AlgorithmId::ALL.iter().map(|a| a.id()).collect();
    format!("The rule: {}", ids.join(", "))
}

fn servers_help() -> String {
    field_help("servers") + " (or the length of --weights or --names)"
}

#[derive(Args, Debug)]
#[command(mut_arg("servers", |arg| arg.help(servers_help())))]
pub struct TraceArgs {
    #[arg(long, value_name = "A", help = algorithm_help())]
    pub algorithm: String,
    /// Number of picks on an idle pool: 1 to 100000 [default: 10]
    #[arg(long, value_name = "K", conflicts_with = "steps")]
    pub picks: Option<String>,
    /// Arrivals and finishes in order, comma-separated: arrive:user-N (a
    /// request of user N, picked for and held), finish:K (the K-th
    /// arrival finishes) and at:T (the clock moves on to T ms; each step
    /// is otherwise 1 ms after the one before), at most 100000; one pick
    /// per arrival
    #[arg(long, value_name = "STEPS")]
    pub steps: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: TableOrJson,
    /// The pool and the placement of its rings and tables, as a scenario
    /// sets them.
    #[command(flatten)]
    pub pool: ScenarioFlags<PickFields>,
}

#[derive(Serialize)]
struct Trace {
    picks: Vec<String>,
    /// Per pick, the servers it probed (a rule that probes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    probes: Option<Vec<String>>,
    /// Per pick, the load reports heard since the pick before (a rule
    /// that learns weights only).
    #[serde(skip_serializing_if = "Option::is_none")]
    reports: Option<Vec<Vec<Report>>>,
    /// Per pick, the weights it brought in force, one a server in the
    /// pool's order, or null (a rule that learns weights only).
    #[serde(skip_serializing_if = "Option::is_none")]
    weights: Option<Vec<Option<Vec<f64>>>>,
}

#[derive(Serialize)]
struct Report {
    at_ms: f64,
    server: String,
    qps: f64,
    eps: f64,
    utilization: f64,
}

/// A figure in a table cell: at most three decimals, no trailing zeros.
fn figure(x: f64) -> String {
    let text = format!("{:.3}", x);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The pool the flags describe, checked by the scenario's own table of
/// ranges: the defaults, then as many servers as `--weights` or `--names`
/// list, then the flags.
fn pool(flags: &ScenarioFlags<PickFields>) -> Result<Scenario, Failure> {
    let mut scenario = Scenario::default();
    let list_len = |key: &str| flags.given(key).map(|text| text.split(',').count());
    if let Some(n) = list_len("weights").or_else(|| list_len("names")) {
        scenario.set("servers", &n.to_string())?;
    }
    flags.apply(&mut scenario)?;
    scenario.validate()?;
    Ok(scenario)
}

pub fn trace(args: &TraceArgs) -> Result<(), Failure> {
    let algorithm: AlgorithmId = args.algorithm.trim().parse().map_err(|()| {
        let ids: Vec<&str> = AlgorithmId::ALL.iter().map(|a| a.id()).collect();
        bad("algorithm", &args.algorithm, ids.join(", "))
    })?;
    let steps: Vec<Step> = match (&args.steps, &args.picks) {
        (Some(text), _) => trace::parse_steps(text)?,
        (None, picks) => trace::idle(idle_picks(picks.as_deref())?),
    };
    let scenario = pool(&args.pool)?;
    let arrivals = trace::picks(&scenario, algorithm, &steps);
    let users = steps.iter().filter_map(|s| match s {
        Step::Arrive { user } => Some(*user),
        Step::Finish { .. } | Step::At { .. } => None,
    });
    let names = scenario.pool().names;
    let pick = |a: &trace::Arrival| {
        let mut tried: Vec<&str> = a.tried.iter().map(|&s| names[s].as_str()).collect();
        if !a.answered {
            tried.push("502");
        }
        tried.join(">")
    };
    let probes =
        |a: &trace::Arrival| a.probes.iter().map(|&s| names[s].as_str()).collect::<Vec<_>>().join(",");
    let probing = algorithm.runs_here() && arrivals.iter().any(|a| !a.probes.is_empty());
    let learning =
        algorithm.runs_here() && arrivals.iter().any(|a| !a.reports.is_empty() || a.weights.is_some());
    let reports = |a: &trace::Arrival| -> Vec<Report> {
        a.reports
            .iter()
            .map(|r| Report {
                at_ms: r.at_ms,
                server: names[r.server].clone(),
                qps: r.qps,
                eps: r.eps,
                utilization: r.utilization,
            })
            .collect()
    };
    let trace = Trace {
        picks: arrivals.iter().map(pick).collect(),
        probes: probing.then(|| arrivals.iter().map(probes).collect()),
        reports: learning.then(|| arrivals.iter().map(reports).collect()),
        weights: learning.then(|| arrivals.iter().map(|a| a.weights.clone()).collect()),
    };
    let text = match args.format {
        TableOrJson::Json => json_line(&trace)?,
        TableOrJson::Table => table(&trace, users, &names),
    };
    print(&text)
}

/// The trace as a table: a row a pick, with its probes, or with the
/// weights it brought in force (`s1=20 s2=40`, `-` where none came) and
/// the reports heard before it (`s2 10 qps 0 eps 0.25 util`, `;` between).
fn table(trace: &Trace, users: impl Iterator<Item = u32>, names: &[String]) -> String {
    let weights = |w: &Option<Vec<f64>>| match w {
        None => "-".to_string(),
        Some(w) => {
            names.iter().zip(w).map(|(n, w)| format!("{n}={}", figure(*w))).collect::<Vec<_>>().join(" ")
        }
    };
    let reports = |r: &[Report]| {
        if r.is_empty() {
            return "-".to_string();
        }
        let said: Vec<String> = r
            .iter()
            .map(|r| {
                format!(
                    "{} {} qps {} eps {} util",
                    r.server,
                    figure(r.qps),
                    figure(r.eps),
                    figure(r.utilization)
                )
            })
            .collect();
        said.join("; ")
    };
    let weights_column: Option<Vec<String>> =
        trace.weights.as_ref().map(|all| all.iter().map(weights).collect());
    let wide = weights_column.as_ref().map_or(0, |c| c.iter().map(String::len).max().unwrap_or(0).max(7));
    let mut out = match (&trace.probes, &weights_column) {
        (Some(_), _) => format!("{:>6} {:<12} {:<8} {}\n", "pick", "user", "server", "probes"),
        (None, Some(_)) => {
            format!("{:>6} {:<12} {:<8} {:<wide$} {}\n", "pick", "user", "server", "weights", "reports")
        }
        (None, None) => format!("{:>6} {:<12} {}\n", "pick", "user", "server"),
    };
    for (i, (server, user)) in trace.picks.iter().zip(users).enumerate() {
        let user = format!("user-{user}");
        out += &match (&trace.probes, &weights_column, &trace.reports) {
            (Some(probes), _, _) => format!("{:>6} {:<12} {:<8} {}\n", i + 1, user, server, probes[i]),
            (None, Some(w), Some(r)) => {
                format!("{:>6} {:<12} {:<8} {:<wide$} {}\n", i + 1, user, server, w[i], reports(&r[i]))
            }
            _ => format!("{:>6} {:<12} {}\n", i + 1, user, server),
        };
    }
    out + &format!("\nsequence: {}\n", trace.picks.join(" "))
}

/// The number of idle picks: `--picks`, 10 unless given.
fn idle_picks(text: Option<&str>) -> Result<usize, Failure> {
    let allowed = format!("1 to {MAX_STEPS} (number of picks)");
    let picks: usize = match text {
        None => 10,
        Some(text) => text.trim().parse().map_err(|_| bad("picks", text, allowed.clone()))?,
    };
    if !(1..=MAX_STEPS).contains(&picks) {
        return Err(bad("picks", &picks.to_string(), allowed));
    }
    Ok(picks)
}
