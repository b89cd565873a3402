//! `lbsim run` and `lbsim url`: one scenario, printed as the article's
//! results table, as the whole report in JSON, or as CSV; or its share link
//! or embed address.

use clap::{Args, ValueEnum};
use indicatif::ProgressBar;
use lbsim_core::access_log::Traffic;
use lbsim_core::cost;
use lbsim_core::report::columns::column;
use lbsim_core::workload::Request;
use lbsim_core::{url, Prepared, Report, Scenario, ScenarioError};
use rayon::prelude::*;
use serde::Serialize;

use crate::flags::Sources;
use crate::log;
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

/// Bytes a run (or a sweep) may hold at once: rules run side by side only
/// while their memory ([`cost::memory`]) fits, so the peak is known before
/// the run starts and does not grow with the machine's cores.
pub const MEMORY_BUDGET: u64 = 1 << 30;

/// Address space a worker thread's allocator may hold beyond what it
/// uses: glibc gives each thread an arena of its own, whose heaps are
/// reserved 64 MiB at a time, so a thread's buffers can take up to one
/// heap more address space than bytes (seen as an abort 9 MB above an
/// estimate without it, under `ulimit -v`, two threads in a sweep).
const ARENA_ROOM: u64 = 64 << 20;

/// Runs `work` on `threads` threads, once a reservation of `peak` bytes
/// (the run's known peak) and each thread's arena room has been made and
/// let go: a machine that cannot give that much refuses the run with exit
/// status 2 and the size, instead of aborting midway (stable Rust has no
/// allocation-error hook).
pub fn within_memory<T: Send>(
    scenario: &Scenario,
    threads: u64,
    peak: u64,
    work: impl FnOnce() -> T + Send,
) -> Result<T, Failure> {
    let peak = peak.saturating_add(threads.saturating_mul(ARENA_ROOM));
    let megabytes = peak.div_ceil(1_000_000);
    let refused = || {
        Failure::Input(format!(
            "requests: {} need about {megabytes} MB at once ({} at a time), more than this machine gives; \
             allowed: fewer requests (or servers, users, cache keys), or more memory",
            scenario.requests,
            if threads == 1 { "one rule".to_string() } else { format!("{threads} rules or values") }
        ))
    };
    // The threads first, each having allocated once: their stacks and the
    // allocator's arenas they open (tens of MB of address space each) are
    // then taken before the reservation is made, not during the run.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads as usize)
        .build()
        // A machine that cannot give the threads their stacks cannot give
        // the run either: the same refusal, with the size.
        .map_err(|_| refused())?;
    pool.broadcast(|_| drop(std::hint::black_box(vec![0u8; 64])));
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(usize::try_from(peak).map_err(|_| refused())?).map_err(|_| refused())?;
    drop(probe);
    Ok(pool.install(work))
}

/// The threads rayon would use (`RAYON_NUM_THREADS`, else the cores),
/// read without starting its global pool.
pub fn threads() -> u64 {
    let set = std::env::var("RAYON_NUM_THREADS").ok().and_then(|t| t.parse::<u64>().ok()).filter(|&t| t > 0);
    set.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u64))
}

/// Arrivals a rule takes between two moves of the progress bar.
const PROGRESS_SLICE: u64 = 1 << 16;

/// Runs a scenario as `engine::run` does, with its algorithms spread over
/// the cores: one workload, drawn once and shared. Common random numbers
/// make the report identical to a sequential run. A log's requests are
/// the workload when given. The progress bar counts
/// requests through rules, so one long rule moves it too.
pub fn simulate(
    scenario: &Scenario,
    traffic: Option<&Traffic>,
    progress: &ProgressBar,
) -> Result<Report, ScenarioError> {
    let prepared = match traffic {
        Some(traffic) => Prepared::with_traffic(scenario, traffic)?,
        None => Prepared::new(scenario)?,
    };
    let results = prepared
        .scenario()
        .algorithms
        .par_iter()
        .map(|&a| prepared.run_one_in_slices(a, PROGRESS_SLICE, &mut |took| progress.inc(took)))
        .collect();
    Ok(prepared.report(results))
}

/// The results table: the article's columns, then the realized figures
/// and, when a rule placed requests by key, the core's note on it.
/// Quick requests' p99 shows only where there are quick requests (bimodal
/// work); a run with errors gains an errors column (and a retries column
/// when it retried); one with caches a hit rate column; one whose rule
/// keeps each copy to a part of the servers (aperture) a connections
/// column, all copies' against a full mesh's, and a line per such rule
/// with each copy's. An empty figure is "-".
fn table(report: &Report, lesson: Option<&str>) -> String {
    let shown = |key| column(key).shown(report);
    let (quick, errors, retries, caches, connections) =
        (shown("quick-p99"), shown("errors"), shown("retries"), shown("hit-rate"), shown("connections"));
    let mut out = format!("{:<18}", "algorithm");
    if quick {
        out += &format!(" {:>13}", "quick p99 ms");
    }
    out += &format!(" {:>13} {:>10} {:>13} {:>9}", "p99 ms", "peak queue", "largest share", "imbalance");
    if errors {
        out += &format!(" {:>15}", "errors");
    }
    if retries {
        out += &format!(" {:>8}", "retries");
    }
    if caches {
        out += &format!(" {:>8}", "hit rate");
    }
    if connections {
        out += &format!(" {:>15}", "connections");
    }
    out.push('\n');
    for r in &report.results {
        out += &format!("{:<18}", r.algorithm.id());
        if quick {
            let cell = r.latency_ms.quick.map_or_else(|| "-".to_string(), |q| format!("{:.1}", q.p99));
            out += &format!(" {cell:>13}");
        }
        out += &format!(
            " {:>13.1} {:>10} {:>12.1}% {:>9.2}",
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
            let cell = r.hit_rate.flatten().map_or_else(|| "-".to_string(), |h| format!("{:.1}%", h * 100.0));
            out += &format!(" {cell:>8}");
        }
        if connections {
            let cell =
                r.connections.map_or_else(|| "-".to_string(), |c| format!("{} of {}", c.total, c.full_mesh));
            out += &format!(" {cell:>15}");
        }
        out.push('\n');
    }
    for r in &report.results {
        if let Some(c) = r.connections {
            out += &format!("\n{} connections: {}\n", r.algorithm.id(), c.describe());
        }
    }
    let z = &report.realized;
    // Only classed requests (bimodal work, a log's class column) have a
    // slow share.
    let slow =
        if report.classed() { format!(", slow share {:.1}%", z.slow_share * 100.0) } else { String::new() };
    out += &format!(
        "\nrealized: {} requests, load {:.3}{slow}, rate {:.1} req/s, top user {:.1}%, top 10 users {:.1}%\n",
        z.requests,
        z.load,
        z.rate_per_s,
        z.top_user_share * 100.0,
        z.top10_share * 100.0
    );
    if let Some(note) = report.placement_note() {
        out += &format!("\n{note}\n");
    }
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
    let mut scenario = args.sources.scenario()?;
    let traffic = log::read(&mut scenario, args.sources.fleet_given())?;
    if let Some(traffic) = &traffic {
        scenario.requests = traffic.requests.len() as u64;
        scenario.validate()?;
    }
    for note in args.sources.without_effect(&scenario) {
        complain(&note);
    }
    let rules = scenario.rules().len() as u64;
    let picks = scenario.requests * rules;
    let progress = progress::bar(picks, "requests", "run".to_string(), cost::run(&scenario).is_long());
    let memory = cost::memory(&scenario);
    let at_once = memory.rules_within(MEMORY_BUDGET, rules.min(threads()));
    // The log's requests are held through the run: their bytes count too.
    let held = traffic.as_ref().map_or(0, |t| (t.requests.len() * std::mem::size_of::<Request>()) as u64 * 2);
    let peak = memory.peak(at_once).saturating_add(held);
    let report =
        within_memory(&scenario, at_once, peak, || simulate(&scenario, traffic.as_ref(), &progress))??;
    progress.finish_and_clear();
    let end = report.end_ms();
    for e in scenario.events.after(end) {
        complain(&format!(
            "event {e} is after the run's last answer ({:.1} s): it changes nothing in this run",
            end / 1000.0
        ));
    }
    let text = match args.format {
        RunFormat::Table => {
            let source = traffic.as_ref().map(|t| log::source_line(&scenario, t)).unwrap_or_default();
            source + &table(&report, preset.map(|p| p.lesson))
        }
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
    let decoded = args.sources.url.as_deref().map(url::decode);
    let linked = decoded.as_ref().and_then(|d| d.preset);
    let preset = linked.or(args.sources.preset()?);
    // The views a given link opens (the sweep, the replay) stay in it.
    let views = decoded.as_ref().map(url::Decoded::views).unwrap_or_default();
    let link = if args.embed {
        url::embed_url(&args.base, &scenario, preset, &views)
    } else {
        url::share_link(&args.base, &scenario, preset, &views)
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
                &pool
                    .install(|| simulate(&scenario, None, &ProgressBar::hidden()))
                    .expect("a valid scenario"),
            )
            .expect("json");
            assert_eq!(parallel, sequential);
        }
    }
}
