//! `lbsim replay`: a run's first requests, attempt by attempt, for two
//! rules side by side: the counters at given moments, or the attempt log,
//! or what the rules heard and learned (probes and weight updates).

use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use lbsim_core::replay::{self, check_pair, default_pair, Counters, Replay, View};
use lbsim_core::{url, Scenario};

use crate::flags::Sources;
use crate::outcome::{bad, complain, print, Failure};

/// Output formats of `lbsim replay`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ReplayFormat {
    /// The counters at each moment, one row per rule.
    #[default]
    Table,
    /// The attempt log: one row per attempt, header first.
    Csv,
    /// What the rules heard and learned: one row per probe (sent, reached,
    /// answered, the reply's requests in flight and latency) and per
    /// weight update (the weights, ;-separated), header first.
    Messages,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub sources: Sources,
    /// Two of the scenario's rules side by side, comma-separated (a one-rule
    /// scenario's rule and round robin too); without it, the --url
    /// link's pair=, else the first two the preset's lesson compares, else
    /// the scenario's first two (one rule beside round robin)
    #[arg(long, value_name = "A,B")]
    pub pair: Option<String>,
    /// Requests replayed, the run's first (1 to 20000); without it, the
    /// link's window=, else 5000 or, with events, enough to reach 10 s
    /// past the last one
    #[arg(long, value_name = "N")]
    pub window: Option<String>,
    /// Moments to count at, in seconds of simulated time to the ms,
    /// comma-separated; without it, the link's t= (when set) and the end of
    /// the replay
    #[arg(long, value_name = "T,...")]
    pub at: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: ReplayFormat,
}

pub fn replay(args: &ReplayArgs) -> Result<(), Failure> {
    let scenario = args.sources.scenario()?;
    let decoded = args.sources.url.as_deref().map(url::decode);
    let preset = decoded.as_ref().and_then(|d| d.preset).or(args.sources.preset()?);
    // The link's view keys first, the flags over them, each checked as the
    // link's are.
    let (mut view, errors) = decoded.and_then(|d| d.replay).unwrap_or_default().view();
    if let Some(e) = errors.into_iter().next() {
        return Err(e.into());
    }
    for (key, value) in [("pair", &args.pair), ("window", &args.window)] {
        if let Some(value) = value {
            view.set(key, value)?;
        }
    }
    let moments = moments(args.at.as_deref(), &view)?;
    if let Some(named) = view.pair {
        check_pair(&scenario, named)?;
    }
    let pair = view.pair.unwrap_or_else(|| default_pair(&scenario, preset));
    let window = view.window_of(&scenario);
    if scenario.requests > window {
        complain(&format!("the replay is the run of the first {window} of {} requests", scenario.requests));
    }
    let replays = replay::replays(&scenario, &pair, window)?;
    let text = match args.format {
        ReplayFormat::Table => table(&scenario, &replays, &moments),
        ReplayFormat::Csv => log(&scenario.pool().names, &replays),
        ReplayFormat::Messages => messages(&scenario.pool().names, &replays),
    };
    print(&text)
}

/// The moments the flag names (seconds, at or above 0, counted to the ms
/// as the link's `t=`), else the link's playhead when it has one, in ms;
/// `None` stands for the replay's end.
fn moments(at: Option<&str>, view: &View) -> Result<Vec<Option<f64>>, Failure> {
    let Some(at) = at else {
        let playhead = (view.t_ms() > 0.0).then_some(Some(view.t_ms()));
        return Ok(playhead.into_iter().chain([None]).collect());
    };
    at.split(',')
        .map(|t| {
            // The link's own check of `t=` and its ms, so both count at
            // the same moment.
            let mut one = View::default();
            one.set("t", t.trim()).map_err(|e| bad("at", at, &e.allowed))?;
            Ok(Some(one.t_ms()))
        })
        .collect()
}

/// Per moment: the scenario's events by then, and per rule the counters
/// and per server what is in flight (waiting in brackets).
fn table(scenario: &Scenario, replays: &[Replay], moments: &[Option<f64>]) -> String {
    let names = scenario.pool().names;
    let requests = replays.first().map_or(0, |r| r.requests.len());
    let end = replays.iter().map(Replay::end_ms).fold(0.0, f64::max);
    let mut out = format!("replay of the first {requests} requests, answered by {:.3} s\n", end / 1000.0);
    for moment in moments {
        let t_ms = moment.unwrap_or(end);
        let _ =
            writeln!(out, "\nat {:.3} s{}", t_ms / 1000.0, if moment.is_none() { " (the end)" } else { "" });
        let happened: Vec<String> =
            scenario.events.0.iter().filter(|e| e.at_ms as f64 <= t_ms).map(ToString::to_string).collect();
        if !happened.is_empty() {
            let _ = writeln!(out, "events by then: {}", happened.join(", "));
        }
        let _ = writeln!(
            out,
            "{:<18} {:>8} {:>8} {:>6} {:>7} {:>10}  in flight per server (waiting)",
            "algorithm", "arrived", "answered", "errors", "retries", "p99 ms"
        );
        for r in replays {
            let c: Counters = r.at(t_ms);
            let p99 = c.p99_ms.map_or_else(|| "-".to_string(), |p| format!("{p:.1}"));
            let copies = scenario.balancers.max(1);
            let servers: Vec<String> = names
                .iter()
                .zip(c.in_flight.iter().zip(&c.queued))
                .zip(&c.out)
                .map(|((n, (busy, waiting)), &out)| {
                    let mut cell = format!("{n} {busy}");
                    if *waiting > 0 {
                        cell.push_str(&format!(" ({waiting})"));
                    }
                    // Taken out by health verdicts, by every copy or some.
                    match out {
                        0 => {}
                        n if n == copies => cell.push_str(" out"),
                        n => cell.push_str(&format!(" out {n}/{copies}")),
                    }
                    cell
                })
                .collect();
            let _ = writeln!(
                out,
                "{:<18} {:>8} {:>8} {:>6} {:>7} {:>10}  {}",
                r.algorithm.id(),
                c.arrived,
                c.finished,
                c.errors,
                c.retries,
                p99,
                servers.join(", ")
            );
            out.push_str(&heard(&names, &c));
        }
    }
    out
}

/// Under a rule's row, what it heard and learned by then: its probes and
/// the last reply from each server, the first copy's weights.
fn heard(names: &[String], c: &Counters) -> String {
    let mut out = String::new();
    if c.probes > 0 {
        let replies: Vec<String> = names
            .iter()
            .zip(&c.replies)
            .filter_map(|(n, r)| {
                let r = r.as_ref()?;
                let latency = r.latency_ms.map_or_else(|| "no latency".to_string(), |l| format!("{l:.1} ms"));
                Some(format!("{n} {} in flight {latency}", r.in_flight))
            })
            .collect();
        let _ = writeln!(out, "{:<18} probes sent {}; last replies: {}", "", c.probes, replies.join(", "));
    }
    if let Some(weights) = &c.weights {
        let said: Vec<String> =
            names.iter().zip(weights).map(|(n, w)| format!("{n} {}", weight(*w))).collect();
        let _ = writeln!(out, "{:<18} weights in force (copy 1): {}", "", said.join(", "));
    }
    out
}

/// A weight as the replay view writes it: three significant figures.
fn weight(w: f64) -> String {
    lbsim_core::replay::weight_text(w)
}

/// What each rule heard and learned, probes first, each kind in the order
/// of the run.
fn messages(names: &[String], replays: &[Replay]) -> String {
    let mut out = String::from(
        "algorithm,kind,copy,server,at_ms,sent_ms,reached_ms,replied_ms,in_flight,latency_ms,weights\n",
    );
    let name = |s: u32| names.get(s as usize).map_or("?", String::as_str);
    for r in replays {
        for p in &r.probes {
            let latency = p.latency_ms.map_or_else(String::new, |l| l.to_string());
            let _ = writeln!(
                out,
                "{},probe,{},{},{},{},{},{},{},{},",
                r.algorithm.id(),
                p.copy,
                name(p.server),
                p.sent_ms,
                p.sent_ms,
                p.reached_ms,
                p.replied_ms,
                p.in_flight,
                latency
            );
        }
        for w in &r.weights {
            let weights: Vec<String> = w.weights.iter().map(f64::to_string).collect();
            let _ = writeln!(
                out,
                "{},weights,{},,{},,,,,,{}",
                r.algorithm.id(),
                w.copy,
                w.at_ms,
                weights.join(";")
            );
        }
    }
    out
}

/// The attempt log of each rule, in the order attempts were sent.
fn log(names: &[String], replays: &[Replay]) -> String {
    let mut out =
        String::from("algorithm,request,server,arrival_ms,sent_ms,start_ms,done_ms,outcome,retry,hit\n");
    for r in replays {
        for a in &r.attempts {
            let arrival = r.requests.get(a.request as usize).map_or(f64::NAN, |q| q.arrival_ms);
            let outcome = match a.outcome {
                lbsim_core::fleet::Outcome::Ok => "ok",
                lbsim_core::fleet::Outcome::Http500 => "500",
                lbsim_core::fleet::Outcome::Connection => "connection",
            };
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{}",
                r.algorithm.id(),
                a.request,
                names.get(a.server as usize).map_or("?", String::as_str),
                arrival,
                a.sent_ms,
                a.start_ms,
                a.done_ms,
                outcome,
                a.retry,
                a.hit
            );
        }
    }
    out
}
