//! `lbsim sweep`: one row per value and algorithm, each the same numbers a
//! single `lbsim run` at that value gives.

use crate::{json, stdout};

#[test]
fn csv_has_a_row_per_value_and_algorithm_equal_to_single_runs() {
    let common = ["--requests", "2000", "--algorithms", "round-robin,least-connections"];
    let mut args = vec!["sweep", "--param", "slow-share=0..0.2:0.1"];
    args.extend(common);
    let out = stdout(&args);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("slow-share,algorithm,"), "{out}");
    assert_eq!(lines.len(), 1 + 3 * 2, "{out}");
    for (i, value) in ["0", "0.1", "0.2"].iter().enumerate() {
        let mut single = vec!["run", "--format", "csv", "--slow-share", value];
        single.extend(common);
        let run = stdout(&single);
        for (j, row) in run.lines().skip(1).enumerate() {
            assert_eq!(lines[1 + 2 * i + j], format!("{value},{row}"));
        }
    }
}

#[test]
fn json_rows_carry_the_value_and_the_summary() {
    let out = json(&["sweep", "--param", "servers=2..4:1", "--requests", "1000", "--algorithms", "random"]);
    assert_eq!(out["param"], "servers");
    let rows = out["rows"].as_array().expect("rows");
    let values: Vec<u64> = rows.iter().map(|r| r["value"].as_u64().expect("a whole value")).collect();
    assert_eq!(values, [2, 3, 4]);
    assert!(rows.iter().all(|r| r["algorithm"] == "random" && r["p99_ms"].is_number()));
}

#[test]
fn sweep_takes_presets_and_integer_steps() {
    let out = stdout(&[
        "sweep",
        "--param",
        "seed=1..3:1",
        "--preset",
        "control",
        "--requests",
        "500",
        "--algorithms",
        "random",
    ]);
    assert_eq!(out.lines().count(), 4, "{out}");
    let quick_column: Vec<&str> = out.lines().skip(1).map(|l| l.split(',').nth(2).unwrap_or("?")).collect();
    assert_eq!(quick_column, ["", "", ""], "constant work has no quick class");
}

/// One value (fewer values than cores) splits the algorithms over the
/// cores instead; the numbers stay the same.
#[test]
fn a_single_value_sweep_is_a_run() {
    let common = ["--requests", "1500", "--algorithms", "random,maglev,peak-ewma"];
    let mut args = vec!["sweep", "--param", "zipf=1.4..1.4:0.1"];
    args.extend(common);
    let sweep = stdout(&args);
    let mut single = vec!["run", "--format", "csv", "--zipf", "1.4"];
    single.extend(common);
    let run = stdout(&single);
    let expected: Vec<String> = run.lines().skip(1).map(|row| format!("1.4,{row}")).collect();
    assert_eq!(sweep.lines().skip(1).collect::<Vec<_>>(), expected);
}

/// A share link with the page's sweep (`sweep=`) sweeps it: the rows are
/// those of `--param` with the same text; `--param` given wins; neither
/// names what is missing.
#[test]
fn a_links_sweep_is_the_sweep_without_param() {
    let link = "http://x/#v=1&requests=1000&algorithms=random,round-robin&sweep=servers%3D2..4%3A1";
    let linked = stdout(&["sweep", "--url", link]);
    let flagged = stdout(&["sweep", "--url", link, "--param", "servers=2..4:1"]);
    assert_eq!(linked, flagged);
    assert!(linked.starts_with("servers,algorithm,"), "{linked}");
    assert_eq!(linked.lines().count(), 1 + 3 * 2, "{linked}");
    let other = stdout(&["sweep", "--url", link, "--param", "zipf=1..1.2:0.2"]);
    assert!(other.starts_with("zipf,algorithm,"), "{other}");
    let out = crate::lbsim().args(["sweep", "--requests", "1000"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sweep=NAME=FROM..TO:STEP"));
}

/// A sweep over a log: every value runs on the log's own requests, each
/// row the one `lbsim run --log` at that value gives; a sweep over the
/// servers leaves the log's fleet for the counts it sweeps.
#[test]
fn a_sweep_over_a_log_runs_the_logs_requests_at_every_value() {
    let csv = stdout(&["workload", "--requests", "1200", "--seed", "5", "--format", "csv"]);
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lbsim-sweep-log.csv");
    std::fs::write(&path, csv).expect("a file");
    let log = path.to_str().expect("UTF-8");
    let common = ["--log", log, "--algorithms", "round-robin,least-connections"];
    let mut args = vec!["sweep", "--param", "slots=2..4:2"];
    args.extend(common);
    let out = stdout(&args);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1 + 2 * 2, "{out}");
    for (i, value) in ["2", "4"].iter().enumerate() {
        let mut single = vec!["run", "--format", "csv", "--slots", value];
        single.extend(common);
        let run = stdout(&single);
        for (j, row) in run.lines().skip(1).enumerate() {
            assert_eq!(lines[1 + 2 * i + j], format!("{value},{row}"));
        }
    }
    let mut args = vec!["sweep", "--param", "servers=2..3:1"];
    args.extend(common);
    assert_eq!(stdout(&args).lines().count(), 1 + 2 * 2);
}
