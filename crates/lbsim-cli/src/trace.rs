//! `lbsim trace`: the first picks of a rule on an idle pool, or its picks
//! for given arrivals and finishes (`--steps`, held requests). On an idle
//! pool each pick is dispatched and completes at once, so the sequence
//! shows the rule itself (smooth WRR with weights 5,1,1 gives a a b a c a
//! a, as NGINX documents); pick i is for user i+1. With the scenario's
//! events, a request whose attempt fails is retried elsewhere: its pick
//! reads `s2>s3` (s2 failed, s3 answered), or ends `>502` when no attempt
//! answered (`502` alone: no server to try). A rule that probes
//! (Prequal) shows the servers each pick probed. The core's `trace` module
//! decides; this prints.

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
    let trace = Trace {
        picks: arrivals.iter().map(pick).collect(),
        probes: probing.then(|| arrivals.iter().map(probes).collect()),
    };
    let text = match args.format {
        TableOrJson::Json => json_line(&trace)?,
        TableOrJson::Table => {
            let mut out = match &trace.probes {
                None => format!("{:>6} {:<12} {}\n", "pick", "user", "server"),
                Some(_) => format!("{:>6} {:<12} {:<8} {}\n", "pick", "user", "server", "probes"),
            };
            for (i, (server, user)) in trace.picks.iter().zip(users).enumerate() {
                let user = format!("user-{user}");
                out += &match &trace.probes {
                    None => format!("{:>6} {:<12} {}\n", i + 1, user, server),
                    Some(probes) => format!("{:>6} {:<12} {:<8} {}\n", i + 1, user, server, probes[i]),
                };
            }
            out + &format!("\nsequence: {}\n", trace.picks.join(" "))
        }
    };
    print(&text)
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
