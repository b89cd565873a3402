//! Every message the page and a worker exchange reads back as it was
//! written: reports of every preset (static, fleet, caches, layer 4), held
//! to what `lbsim run --format json` prints for the same scenario (the
//! binary, run apart from this process and the wire codec), and no byte
//! string makes the reader panic.

use lbsim_core::presets::PRESETS;
use lbsim_core::{run, Scenario};
use lbsim_protocol::wire::{decode, encode};
use lbsim_protocol::{FromWorker, ToWorker};
use proptest::prelude::*;

/// A preset, shortened so that every preset runs in a test.
fn short(scenario: &Scenario) -> Scenario {
    let mut s = scenario.clone();
    s.requests = s.requests.min(4_000);
    s
}

/// What `lbsim run --scenario - --format json` prints for `scenario`: the
/// workspace's CLI, built if it is not (as `cargo xtask docs-check` builds
/// it) and run as a separate process.
fn cli_json(scenario: &Scenario) -> String {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut child = Command::new(cargo)
        .args(["run", "-q", "-p", "lbsim-cli", "--", "run", "--scenario", "-", "--format", "json"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("cargo runs the CLI");
    let input = serde_json::to_string(scenario).expect("a scenario serializes");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("the CLI reads the scenario");
    let output = child.wait_with_output().expect("the CLI ends");
    assert!(output.status.success(), "lbsim run failed for {input}");
    String::from_utf8(output.stdout).expect("UTF-8 JSON")
}

#[test]
fn every_presets_report_reads_back_as_the_cli_prints_it() {
    for preset in PRESETS {
        let scenario = short(&preset.scenario());
        let report = run(&scenario).expect(preset.id);
        let message = FromWorker::Done { run_id: 7, report: Box::new(report) };
        let back: FromWorker = decode(&encode(&message)).expect(preset.id);
        let FromWorker::Done { run_id, report: back } = back else { panic!("{}: not Done", preset.id) };
        assert_eq!(run_id, 7);
        // The JSON is what a user sees; it must not move by a bit.
        let printed = cli_json(&scenario);
        assert_eq!(serde_json::to_string(&*back).unwrap(), printed.trim_end(), "{}", preset.id);
    }
}

#[test]
fn runs_carry_their_scenario_exactly() {
    for preset in PRESETS {
        let message = ToWorker::Run { run_id: 3, scenario: Box::new(preset.scenario()) };
        assert_eq!(decode::<ToWorker>(&encode(&message)).unwrap(), message, "{}", preset.id);
    }
    let cancel = ToWorker::Cancel { run_id: u32::MAX };
    assert_eq!(decode::<ToWorker>(&encode(&cancel)).unwrap(), cancel);
}

#[test]
fn the_small_messages_read_back() {
    for message in [
        FromWorker::Ready,
        FromWorker::Progress { run_id: 1, done: 5, total: u64::MAX },
        FromWorker::Cancelled { run_id: 2 },
        FromWorker::Error { run_id: None, message: "bad \u{1b} ünïcode".into(), fatal: true },
        FromWorker::Error { run_id: Some(9), message: String::new(), fatal: false },
    ] {
        assert_eq!(decode::<FromWorker>(&encode(&message)).unwrap(), message);
    }
}

#[test]
fn a_cut_or_padded_message_is_an_error() {
    let report = run(&short(&PRESETS[0].scenario())).unwrap();
    let bytes = encode(&FromWorker::Done { run_id: 1, report: Box::new(report) });
    for cut in [0, 1, 5, bytes.len() / 2, bytes.len() - 1] {
        assert!(decode::<FromWorker>(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut padded = bytes.clone();
    padded.push(0);
    assert!(decode::<FromWorker>(&padded).is_err());
}

proptest! {
    #[test]
    fn no_bytes_make_the_reader_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = decode::<FromWorker>(&bytes);
        let _ = decode::<ToWorker>(&bytes);
    }

    /// A real report with bytes overwritten anywhere (lengths, tags,
    /// presence bytes, text): an error or some message, never a panic.
    #[test]
    fn a_damaged_report_never_panics(edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)) {
        thread_local! {
            static BYTES: Vec<u8> = encode(&FromWorker::Done {
                run_id: 1,
                report: Box::new(run(&short(&lbsim_core::presets::preset("mixed").unwrap().scenario())).unwrap()),
            });
        }
        let mut bytes = BYTES.with(Clone::clone);
        for (at, value) in edits {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        let _ = decode::<FromWorker>(&bytes);
    }
}

/// A replay travels whole: every attempt reads back as `lbsim replay
/// --format csv` (the binary, run apart) prints it, each time to the bit
/// (the CSV writes the shortest text that reads back as the same f64).
#[test]
fn a_replay_reads_back_as_the_cli_logs_it() {
    use lbsim_core::fleet::Outcome;
    use lbsim_core::presets::preset;
    use lbsim_core::replay::replays;
    use lbsim_core::AlgorithmId;
    use lbsim_protocol::FromReplayWorker;
    let scenario = preset("crash").expect("a preset").scenario();
    let pair = [AlgorithmId::RoundRobin, AlgorithmId::LeastConnections];
    let message =
        FromReplayWorker::Done { id: 4, replays: replays(&scenario, &pair, 2_000).expect("replays") };
    let back: FromReplayWorker = decode(&encode(&message)).expect("reads back");
    assert_eq!(back, message);
    let FromReplayWorker::Done { replays, .. } = back else { unreachable!() };
    let names = scenario.pool().names;
    let mut lines =
        vec!["algorithm,request,server,arrival_ms,sent_ms,start_ms,done_ms,outcome,retry,hit".to_string()];
    for r in &replays {
        for a in &r.attempts {
            let outcome = match a.outcome {
                Outcome::Ok => "ok",
                Outcome::Http500 => "500",
                Outcome::Connection => "connection",
            };
            let arrival = r.requests[a.request as usize].arrival_ms;
            lines.push(format!(
                "{},{},{},{arrival},{},{},{},{outcome},{},{}",
                r.algorithm.id(),
                a.request,
                names[a.server as usize],
                a.sent_ms,
                a.start_ms,
                a.done_ms,
                a.retry,
                a.hit
            ));
        }
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["run", "-q", "-p", "lbsim-cli", "--", "replay", "--preset", "crash", "--window", "2000"])
        .args(["--pair", "round-robin,least-connections", "--format", "csv"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("cargo runs the CLI");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let printed = String::from_utf8(output.stdout).expect("UTF-8");
    let printed: Vec<&str> = printed.lines().collect();
    assert_eq!(printed.len(), lines.len(), "one line per attempt");
    for (ours, theirs) in lines.iter().zip(&printed) {
        assert_eq!(ours, theirs);
    }
    let error = FromReplayWorker::Error { id: 1, message: "window: 0".into() };
    assert_eq!(decode::<FromReplayWorker>(&encode(&error)).unwrap(), error);
}

/// A sweep's rows travel from the page to the panels module, which writes
/// the sweep's CSV from them: read back, they give what `lbsim sweep
/// --format csv` (the binary, run apart) prints for the same scenario and
/// range, with a fleet's columns (crash) and a cache's (cache-locality).
#[test]
fn sweep_rows_read_back_as_the_cli_writes_them() {
    use lbsim_core::report::Headline;
    use lbsim_core::sweep::Sweep;
    use std::io::Write;
    use std::process::{Command, Stdio};
    for id in ["mixed", "crash", "cache-locality"] {
        let scenario = short(&lbsim_core::presets::preset(id).expect("a preset").scenario());
        let spec = "load=0.5..0.7:0.2";
        let sweep = Sweep::parse(spec, "param", 10).expect("a range");
        let rows: Vec<Vec<Headline>> = sweep
            .scenarios(&scenario)
            .expect("the values' scenarios")
            .iter()
            .map(|s| run(s).expect(id).results.iter().map(Headline::from).collect())
            .collect();
        let back: Vec<Vec<Headline>> = decode(&encode(&rows)).expect(id);
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut child = Command::new(cargo)
            .args(["run", "-q", "-p", "lbsim-cli", "--", "sweep", "--scenario", "-", "--param", spec])
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cargo runs the CLI");
        let input = serde_json::to_string(&scenario).expect("a scenario serializes");
        child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("the CLI reads the scenario");
        let output = child.wait_with_output().expect("the CLI ends");
        assert!(output.status.success(), "lbsim sweep failed for {id}");
        let printed = String::from_utf8(output.stdout).expect("UTF-8 CSV");
        assert_eq!(sweep.csv(&back), printed, "{id}");
    }
}
