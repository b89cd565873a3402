//! `lbsim trace`: the first picks of a rule on an idle pool. Each pick is
//! dispatched and completes at once, so the pool stays idle and the
//! sequence shows the rule itself (smooth WRR with weights 5,1,1 gives
//! a a b a c a a, as NGINX documents). Pick i is for user i+1, 1 ms apart.

use clap::Args;
use lbsim_core::balancer::{self, Pick};
use lbsim_core::workload::algorithm_rng;
use lbsim_core::{AlgorithmId, Scenario};
use serde::Serialize;

use crate::flags::field_help;
use crate::remap::TableOrJson;
use crate::run::json_line;
use crate::{bad, print, Failure};

/// Most picks a trace prints.
const MAX_PICKS: u64 = 100_000;

fn algorithm_help() -> String {
    let ids: Vec<&str> = AlgorithmId::ALL.iter().map(|a| a.id()).collect();
    format!("The rule: {}", ids.join(", "))
}

#[derive(Args, Debug)]
pub struct TraceArgs {
    #[arg(long, value_name = "A", help = algorithm_help())]
    pub algorithm: String,
    /// Number of picks: 1 to 100000 [default: 10]
    #[arg(long, value_name = "K")]
    pub picks: Option<String>,
    #[arg(long, value_name = "N", help = field_help("servers") + " (or the length of --weights or --names)")]
    pub servers: Option<String>,
    #[arg(long, value_name = "LIST", help = field_help("weights"))]
    pub weights: Option<String>,
    #[arg(long, value_name = "LIST", help = field_help("names"))]
    pub names: Option<String>,
    #[arg(long, value_name = "N", help = field_help("seed"))]
    pub seed: Option<String>,
    #[arg(long, value_name = "ID", help = field_help("hash"))]
    pub hash: Option<String>,
    #[arg(long, value_name = "N", help = field_help("vnodes"))]
    pub vnodes: Option<String>,
    #[arg(long, value_name = "N", help = field_help("balance-factor"))]
    pub balance_factor: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: TableOrJson,
}

#[derive(Serialize)]
struct Trace {
    picks: Vec<String>,
}

/// The pool flags, checked by the scenario's own table of ranges.
fn pool(args: &TraceArgs) -> Result<Scenario, Failure> {
    let mut scenario = Scenario::default();
    let list_len = |text: &Option<String>| text.as_ref().map(|t| t.split(',').count());
    if let Some(n) = list_len(&args.weights).or(list_len(&args.names)) {
        scenario.set("servers", &n.to_string())?;
    }
    let given = [
        ("servers", &args.servers),
        ("weights", &args.weights),
        ("names", &args.names),
        ("seed", &args.seed),
        ("hash", &args.hash),
        ("vnodes", &args.vnodes),
        ("balance-factor", &args.balance_factor),
    ];
    for (key, text) in given {
        if let Some(text) = text {
            scenario.set(key, text)?;
        }
    }
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
    let scenario = pool(args)?;
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
