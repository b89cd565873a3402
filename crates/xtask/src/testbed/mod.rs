//! `cargo xtask testbed`: a scenario served by the real NGINX and HAProxy,
//! its latencies measured and set beside lbsim's prediction
//! (docs/testbed.md). The conformance suite holds lbsim's picks to the
//! real programs; this holds its latencies to them.
//!
//! For each rule both lbsim and the program have, the program runs the
//! block `lbsim config` writes (`balancers.rs`) in front of servers that
//! behave as the model's (`servers.rs`: slots, one FIFO queue, work over
//! speed), and the scenario's own requests are sent open-loop at their
//! times (`load.rs`). The prediction is the core's report for the same
//! scenario with the program's builder and the servers named by their
//! addresses, so hashing places every key as the program does; the
//! article's own construction is shown beside it. `compare.rs` says where
//! they agree within the tolerance the machine's noise justifies.
//!
//! Loopback only; every wait is bounded; the programs are stopped by
//! their own pid after each rule, and the servers' threads end with the
//! run.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use lbsim_core::balancer::row::Haproxy;
use lbsim_core::config::Program;
use lbsim_core::scenario::{Expression, FIELDS, IN_CONFIG};
use lbsim_core::workload::Request;
use lbsim_core::{AlgorithmId, Prepared, Scenario};

use crate::conformance::install;
use crate::conformance::processes::{haproxy_path, nginx_path};
use crate::tools::{root, step};

mod balancers;
mod compare;
mod load;
mod servers;

use compare::{Measured, LATE_MS, TOLERANCE};

use servers::Servers;

/// The servers' ports (server `i` on `SERVERS + i`) and the balancer's.
const SERVERS: u16 = 18401;
const MOST_SERVERS: u32 = 40;
const FRONT: u16 = 18461;

/// The seeds a prediction is run over (the scenario's and the next ones):
/// the model's own spread at the run's size, within which a measured
/// figure must fall (docs/testbed.md#noise-and-tolerance).
const SEEDS: u64 = 5;

/// The most runs of one rule when its requests are sent late.
const ATTEMPTS: u32 = 3;

/// The most client threads, whatever the prediction's peak.
const MOST_CLIENTS: usize = 4000;

/// What `cargo xtask testbed` was asked.
pub struct Options {
    /// A share link (the page's URL, or its part after `#`).
    pub url: Option<String>,
    /// A preset's id (`mixed` without either).
    pub preset: Option<String>,
    /// One program (both without).
    pub program: Option<Program>,
    /// The scenario's request count, in place of its own.
    pub requests: Option<u64>,
    /// Only these rules (all the program has without).
    pub rules: Vec<AlgorithmId>,
    /// Each rule twice, and the spread between the two runs.
    pub noise: bool,
}

/// The gate's short run: the `mixed` lab, 3,000 requests, the rules the
/// article compares (round robin, least connections, and the hashing rule
/// each program has), on NGINX and HAProxy.
pub fn gate() -> Result<(), String> {
    let both = [
        (Program::Nginx, vec![AlgorithmId::RoundRobin, AlgorithmId::LeastConnections, AlgorithmId::UserHash]),
        (
            Program::Haproxy,
            vec![AlgorithmId::RoundRobin, AlgorithmId::LeastConnections, AlgorithmId::ConsistentHash],
        ),
    ];
    let mut beyond = Vec::new();
    for (program, rules) in both {
        let options = Options {
            url: None,
            preset: None,
            program: Some(program),
            requests: Some(3000),
            rules,
            noise: false,
        };
        if let Err(e) = testbed(&options) {
            beyond.push(e);
        }
    }
    if beyond.is_empty() {
        Ok(())
    } else {
        Err(beyond.join("; "))
    }
}

/// Runs the scenario `options` names on each program asked for; fails
/// when a rule's measured figures stand beyond the tolerance, or nothing
/// could be run.
pub fn testbed(options: &Options) -> Result<(), String> {
    let scenario = scenario(options)?;
    let programs = match options.program {
        Some(p) => vec![p],
        None => vec![Program::Nginx, Program::Haproxy],
    };
    let mut beyond = Vec::new();
    for program in programs {
        let rules = runnable(&scenario, program, &options.rules)?;
        if rules.is_empty() {
            return Err(format!("{}: none of the scenario's rules can be run (see above)", program.name()));
        }
        let (path, package) = match program {
            Program::Nginx => (nginx_path(), "nginx-light"),
            _ => (haproxy_path(), "haproxy"),
        };
        let variable = if program == Program::Nginx { "LBSIM_NGINX" } else { "LBSIM_HAPROXY" };
        install::ensure(&path.to_string_lossy(), package, "-v", variable)
            .map_err(|e| format!("{}: {e}", program.name()))?;
        beyond.extend(on(program, &scenario, &rules, options.noise)?);
    }
    if beyond.is_empty() {
        eprintln!("\ntestbed: every figure within tolerance");
        Ok(())
    } else {
        Err(format!("testbed: beyond tolerance: {}", beyond.join("; ")))
    }
}

/// The scenario the options name, with their request count.
fn scenario(options: &Options) -> Result<Scenario, String> {
    let mut scenario = match (&options.url, &options.preset) {
        (Some(_), Some(_)) => return Err("--url and --preset: give one".into()),
        (Some(link), None) => {
            let decoded = lbsim_core::url::decode(link);
            if let Some(problem) = decoded.problems.first() {
                return Err(format!("--url: {problem}"));
            }
            decoded.scenario
        }
        (None, preset) => {
            let id = preset.as_deref().unwrap_or("mixed");
            let names: Vec<&str> = lbsim_core::presets::PRESETS.iter().map(|p| p.id).collect();
            lbsim_core::presets::preset(id)
                .ok_or_else(|| format!("--preset {id}: no such preset; presets: {}", names.join(", ")))?
                .scenario()
        }
    };
    if let Some(n) = options.requests {
        scenario.set("requests", &n.to_string()).map_err(|e| format!("--requests: {e}"))?;
    }
    scenario.validate().map_err(|e| e.to_string())?;
    if scenario.servers > MOST_SERVERS {
        return Err(format!(
            "servers: {}: the testbed runs at most {MOST_SERVERS} servers (ports {SERVERS}..)",
            scenario.servers
        ));
    }
    if let Some(why) = servers::unplayable(&scenario) {
        return Err(why);
    }
    if scenario.uses_caches() {
        return Err("cache-keys: the testbed's servers keep no caches (set cache-keys=0)".into());
    }
    Ok(scenario)
}

/// Why `program` cannot run `rule` as lbsim predicts it, if it cannot:
/// the rule is not the program's, or the scenario asks what its config
/// cannot express (the field table's notes, as `lbsim config` writes
/// them).
fn refusal(scenario: &Scenario, program: Program, rule: AlgorithmId) -> Option<String> {
    let row = rule.in_programs();
    let (has, expression): (bool, fn(&lbsim_core::scenario::InConfig) -> Expression) = match program {
        Program::Nginx => (row.nginx.is_some(), |c| c.nginx),
        _ => (row.haproxy.is_some(), |c| c.haproxy),
    };
    if !has {
        return Some(format!("{} has no such rule", program.name()));
    }
    if program == Program::Haproxy && row.haproxy == Some(Haproxy::HashMapBased) {
        return Some(
            "HAProxy writes it as `hash-type map-based`, which lbsim does not model: nothing to predict it with"
                .into(),
        );
    }
    FIELDS.iter().zip(IN_CONFIG).find_map(|(field, in_config)| match expression(in_config) {
        Expression::Missing(note) if field.is_set(scenario) => Some(format!("{}: {note}", field.key)),
        Expression::MissingWhen(note, asked) if asked(scenario, rule) => {
            Some(format!("{}: {note}", field.key))
        }
        _ => None,
    })
}

/// The rules of the scenario (or `asked`) that `program` can run; the
/// others are listed with the reason, and one asked by name that cannot
/// run is an error.
fn runnable(
    scenario: &Scenario,
    program: Program,
    asked: &[AlgorithmId],
) -> Result<Vec<AlgorithmId>, String> {
    let wanted = if asked.is_empty() { scenario.rules() } else { asked.to_vec() };
    let mut rules = Vec::new();
    for rule in wanted {
        match refusal(scenario, program, rule) {
            None => rules.push(rule),
            Some(why) if asked.is_empty() => {
                eprintln!("  {} on {}: not run: {why}", rule.id(), program.name())
            }
            Some(why) => return Err(format!("{} on {}: {why}", rule.id(), program.name())),
        }
    }
    Ok(rules)
}

/// The scenario as the testbed serves it to `program`: its servers named
/// by their addresses (events follow the names), the program's builder,
/// one rule.
fn served(scenario: &Scenario, program: Program, rule: AlgorithmId) -> Scenario {
    let mut s = scenario.clone();
    let names: Vec<String> = (0..s.servers).map(|i| format!("127.0.0.1:{}", SERVERS + i as u16)).collect();
    for event in &mut s.events.0 {
        if let Some(i) = (0..scenario.servers as usize).find(|&i| scenario.server_name(i) == event.server) {
            event.server = names[i].clone();
        }
    }
    s.names = names;
    let builder = if program == Program::Nginx { "nginx" } else { "haproxy" };
    // Both are among the field's choices.
    let _ = s.set("builder", builder);
    s.algorithms = vec![rule];
    s
}

/// Every rule of `rules` on `program`: the servers started once, the
/// program once per rule. The figures beyond tolerance.
fn on(
    program: Program,
    scenario: &Scenario,
    rules: &[AlgorithmId],
    noise: bool,
) -> Result<Vec<String>, String> {
    let count = scenario.servers as u16;
    let ports: Vec<u16> = (0..count).map(|i| SERVERS + i).collect();
    let first = served(scenario, program, rules[0]);
    let servers = Servers::start(&first, &ports)?;
    step(&format!(
        "testbed: {} ({}), {} requests, {} servers x {} slots",
        program.name(),
        match program {
            Program::Nginx => nginx_path(),
            _ => haproxy_path(),
        }
        .display(),
        scenario.requests,
        scenario.servers,
        scenario.slots
    ));
    servers_alone(&servers)?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    let dir = target.join("testbed").join(program.id());
    let mut beyond = Vec::new();
    for &rule in rules {
        let mine = served(scenario, program, rule);
        let prepared = Prepared::new(&mine).map_err(|e| e.to_string())?;
        let predicted = prepared.run_one(rule);
        let mut article_scenario = scenario.clone();
        article_scenario.algorithms = vec![rule];
        let article = Prepared::new(&article_scenario).map_err(|e| e.to_string())?.run_one(rule);
        let seeds = (1..SEEDS)
            .map(|k| {
                let mut other = mine.clone();
                other.seed = mine.seed.wrapping_add(k) % (lbsim_core::scenario::MAX_SEED + 1);
                Prepared::new(&other).map(|p| p.run_one(rule)).map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let prediction = compare::Prediction {
            article: (article != predicted).then_some(article),
            main: predicted,
            seeds,
            by_key: rule.places_by_key(),
        };
        let predicted = &prediction.main;
        let slots = mine.slots as usize;
        let peak: usize = predicted.servers.iter().map(|s| s.peak_queue as usize + slots).sum();
        let clients = (peak + peak / 4 + 32).min(MOST_CLIENTS);
        // Each request's server, where the static engine predicts it (the
        // fleet's retries would move some): required of the rules that
        // place by key, shown for the others, whose picks timing decides.
        let placement = (!mine.uses_event_loop()).then(|| prepared.dispatch_log(rule));
        let runs = if noise { 2 } else { 1 };
        let mut measured = Vec::new();
        for _ in 0..runs {
            let mut attempt = 0;
            let run = loop {
                attempt += 1;
                let mut running = balancers::start(program, &mine, rule, FRONT, &dir)?;
                let epoch = Instant::now() + Duration::from_millis(300);
                servers.reset(epoch);
                let outcomes = load::send_all(FRONT, &prepared.workload().requests, epoch, clients);
                running.stop();
                let slow: Vec<bool> = prepared.workload().requests.iter().map(|r| r.slow).collect();
                let run = Measured::of(&outcomes, &slow, &servers.seen(), prepared.workload().classed);
                let same = placement.as_ref().map(|log| {
                    (
                        log.iter().zip(&outcomes).filter(|(d, o)| mine.names[d.server] == o.server).count(),
                        log.len(),
                    )
                });
                if run.late.p99 <= LATE_MS || attempt == ATTEMPTS {
                    break (run, same);
                }
                eprintln!(
                    "  {}: requests sent late (p99 {:.1} ms, more than {LATE_MS} ms): the machine was busy; again",
                    rule.id(),
                    run.late.p99
                );
            };
            measured.push(run);
        }
        let directive = rule_in(program, rule);
        eprintln!("\n  {} ({directive}), {clients} client connections at most", rule.id());
        let (first, same) = &measured[0];
        let verdict = compare::compare(&prediction, first, &mine.names, *same, TOLERANCE);
        eprint!("{}", verdict.table);
        if let Some((second, _)) = measured.get(1) {
            eprint!("{}", spread(first, second));
        }
        beyond.extend(verdict.beyond.into_iter().map(|b| format!("{} {}: {b}", program.id(), rule.id())));
    }
    servers.stop();
    Ok(beyond)
}

/// The rule as the program's registry row names it (`NGINX 1.22 LeastConn`).
fn rule_in(program: Program, rule: AlgorithmId) -> String {
    let row = rule.in_programs();
    let name = match program {
        Program::Nginx => row.nginx.map(|r| format!("{r:?}")),
        _ => row.haproxy.map(|r| format!("{r:?}")),
    };
    format!("{} {}", program.name(), name.unwrap_or_default())
}

/// The spread between two runs of the same rule: each latency figure's
/// difference, in ms and as a share of the first.
fn spread(a: &Measured, b: &Measured) -> String {
    let mut out = String::from("    noise (the same run twice):");
    let (x, y) = (&a.servers_time, &b.servers_time);
    let pairs = [("all", Some(&x.all), Some(&y.all)), ("quick", x.quick.as_ref(), y.quick.as_ref())];
    let mut worst_rel: f64 = 0.0;
    for (class, x, y) in pairs {
        let (Some(x), Some(y)) = (x, y) else { continue };
        for (q, u, v) in [("p50", x.p50, y.p50), ("p90", x.p90, y.p90), ("p99", x.p99, y.p99)] {
            let rel = (u - v).abs() / u.max(v).max(1e-9);
            worst_rel = worst_rel.max(rel);
            out += &format!(" {class} {q} {:+.2} ms ({:.1}%);", v - u, 100.0 * rel);
        }
    }
    let shares = a
        .servers
        .iter()
        .zip(&b.servers)
        .map(|(x, y)| {
            let (tx, ty) =
                (a.servers.iter().map(|s| s.0).sum::<u64>(), b.servers.iter().map(|s| s.0).sum::<u64>());
            (100.0 * x.0 as f64 / tx.max(1) as f64 - 100.0 * y.0 as f64 / ty.max(1) as f64).abs()
        })
        .fold(0.0, f64::max);
    out + &format!(" shares {shares:.2} points; worst {:.1}%\n", 100.0 * worst_rel)
}

/// The servers alone, before any balancer: 40 requests of 20 ms of work
/// straight to the first server, one every 30 ms (none waits), their
/// latency at the client against 20 ms.
fn servers_alone(servers: &Servers) -> Result<(), String> {
    let requests: Vec<Request> = (0..40)
        .map(|i| Request { arrival_ms: 30.0 * f64::from(i), work_ms: 20.0, user: 1, slow: false, copy: 0 })
        .collect();
    let epoch = Instant::now() + Duration::from_millis(50);
    servers.reset(epoch);
    let outcomes = load::send_all(servers.ports()[0], &requests, epoch, 4);
    if outcomes.iter().any(|o| o.status != 200) {
        return Err("testbed: the servers alone did not answer every request".into());
    }
    let over = |f: &dyn Fn(&lbsim_core::report::Percentiles) -> f64| {
        let bits: Vec<u64> = outcomes.iter().map(|o| (o.latency_ms - 20.0).max(0.0).to_bits()).collect();
        f(&lbsim_core::report::percentiles(&bits))
    };
    eprintln!(
        "  the servers alone: 20 ms of work answered at the client in 20 ms + {:.3} (p50), + {:.3} (p99), + {:.3} ms (max)",
        over(&|p| p.p50),
        over(&|p| p.p99),
        over(&|p| p.max)
    );
    Ok(())
}
