//! `lbsim trace`: the first picks of a rule on an idle pool. Each pick is
//! dispatched and completes at once, so the pool stays idle and the
//! sequence shows the rule itself (smooth WRR with weights 5,1,1 gives
//! a a b a c a a, as NGINX documents). Pick i is for user i+1, 1 ms apart.

use clap::Args;
use lbsim_core::balancer::{self, Pick};
use lbsim_core::workload::algorithm_rng;
use lbsim_core::{AlgorithmId, Scenario};
use serde::Serialize;

use crate::flags::{field_help, PickFields, ScenarioFlags};
use crate::outcome::{bad, print, Failure};
use crate::remap::TableOrJson;
use crate::run::json_line;

/// Most picks a trace prints.
const MAX_PICKS: u64 = 100_000;

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
    /// Number of picks: 1 to 100000 [default: 10]
    #[arg(long, value_name = "K")]
    pub picks: Option<String>,
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
    let allowed = format!("1 to {MAX_PICKS} (number of picks)");
    let picks: u64 = match &args.picks {
        None => 10,
        Some(text) => text.trim().parse().map_err(|_| bad("picks", text, allowed.clone()))?,
    };
    if !(1..=MAX_PICKS).contains(&picks) {
        return Err(bad("picks", &picks.to_string(), allowed));
    }
    let scenario = pool(&args.pool)?;
    // The pool as the engine builds it from a scenario.
    let pool = scenario.pool();
    let mut rule = balancer::build(algorithm, &pool);
    let mut rng = algorithm_rng(scenario.seed, algorithm.id());
    let mut trace = Trace { picks: Vec::new() };
    for i in 0..picks {
        let now_ms = i as f64;
        let user = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let server = rule.pick(&Pick { now_ms, user }, &mut rng);
        rule.dispatched(server);
        rule.completed(server, now_ms, 0.0);
        trace.picks.push(pool.names[server].clone());
    }
    let text = match args.format {
        TableOrJson::Json => json_line(&trace)?,
        TableOrJson::Table => {
            let mut out = format!("{:>6} {:<12} {}\n", "pick", "user", "server");
            for (i, server) in trace.picks.iter().enumerate() {
                out += &format!("{:>6} {:<12} {}\n", i + 1, format!("user-{}", i + 1), server);
            }
            out + &format!("\nsequence: {}\n", trace.picks.join(" "))
        }
    };
    print(&text)
}
