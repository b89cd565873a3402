//! `lbsim run`: the three formats, the sources and their order, and the
//! presets' lessons (docs/cli.md#lbsim-run-one-scenario-every-rule).

use crate::{json, lbsim, stdout};

/// The rules a scenario runs unless it names its own, from the core's one
/// registry (the classic ones).
fn all() -> Vec<&'static str> {
    lbsim_core::AlgorithmId::classic().iter().map(|a| a.id()).collect()
}

fn result<'a>(report: &'a serde_json::Value, algorithm: &str) -> &'a serde_json::Value {
    let results = report["results"].as_array().expect("results");
    results.iter().find(|r| r["algorithm"] == algorithm).unwrap_or_else(|| panic!("no {algorithm}"))
}

#[test]
fn table_has_the_articles_columns_and_one_row_per_algorithm() {
    let out = stdout(&["run", "--requests", "4000"]);
    let header = out.lines().next().expect("a header");
    for column in ["algorithm", "quick p99", "p99", "peak queue", "largest share", "imbalance"] {
        assert!(header.contains(column), "{header}");
    }
    for id in all() {
        assert!(out.lines().any(|l| l.split_whitespace().next() == Some(id)), "{id} missing:\n{out}");
    }
    let realized = out.lines().find(|l| l.starts_with("realized:")).expect("realized line");
    for figure in ["load", "slow share", "rate", "top user"] {
        assert!(realized.contains(figure), "{realized}");
    }
}

/// Work that is not bimodal has no quick class: the table has no quick
/// column (one with no meaning there), and p99 comes first.
#[test]
fn table_has_no_quick_column_without_a_quick_class() {
    let out = stdout(&["run", "--preset", "control", "--requests", "2000", "--algorithms", "random"]);
    let header = out.lines().next().expect("a header");
    assert!(!header.contains("quick"), "{header}");
    assert!(header.split_whitespace().nth(1) == Some("p99"), "{header}");
    let row = out.lines().find(|l| l.starts_with("random")).expect("a row");
    assert!(row.split_whitespace().nth(1).is_some_and(|p99| p99.parse::<f64>().is_ok()), "{row}");
}

/// docs/cli.md#formats names these fields; they must all be there.
#[test]
fn json_has_the_fields_the_docs_name() {
    let report = json(&["run", "--requests", "3000"]);
    for key in ["scenario", "realized", "results"] {
        assert!(report.get(key).is_some(), "{key}");
    }
    for key in ["load", "slow_share", "rate_per_s", "top_user_share", "top10_share"] {
        assert!(report["realized"][key].is_number(), "realized.{key}");
    }
    assert_eq!(report["results"].as_array().expect("results").len(), all().len());
    let r = result(&report, "least-connections");
    for class in ["all", "quick", "slow"] {
        for p in ["p50", "p90", "p99", "p999", "max", "mean"] {
            assert!(r["latency_ms"][class][p].is_number(), "latency_ms.{class}.{p}");
        }
    }
    for key in ["peak_queue", "busiest_share", "imbalance"] {
        assert!(r[key].is_number(), "{key}");
    }
    assert!(r["wait_ms"]["mean"].is_number() && r["wait_ms"]["p99"].is_number());
    let server = &r["servers"][0];
    for key in ["requests", "share", "load", "peak_queue", "mean_queue"] {
        assert!(server[key].is_number(), "servers[].{key}");
    }
    assert_eq!(report["scenario"]["slow-share"], 0.1, "the scenario keeps its kebab-case keys");
}

#[test]
fn json_has_no_class_split_for_one_class_work() {
    let report = json(&["run", "--work", "exponential", "--requests", "2000", "--algorithms", "random"]);
    let latency = &result(&report, "random")["latency_ms"];
    assert!(latency.get("quick").is_none() && latency.get("slow").is_none(), "{latency}");
}

#[test]
fn csv_is_a_header_then_one_row_per_chosen_algorithm() {
    let out =
        stdout(&["run", "--requests", "2000", "--algorithms", "user-hash,round-robin", "--format", "csv"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(header[0], "algorithm");
    assert!(header.contains(&"quick_p99_ms") && header.contains(&"busiest_share"));
    // Canonical order, whatever order the flag gave.
    assert!(lines[1].starts_with("round-robin,") && lines[2].starts_with("user-hash,"), "{out}");
    assert!(lines[1..].iter().all(|l| l.split(',').count() == header.len()));
}

/// The CSV carries the same numbers as the JSON report.
#[test]
fn csv_numbers_are_the_reports() {
    let args = ["run", "--requests", "2000", "--algorithms", "least-connections"];
    let report = json(&args);
    let mut csv_args = args.to_vec();
    csv_args.extend(["--format", "csv"]);
    let out = stdout(&csv_args);
    let lines: Vec<&str> = out.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let row: Vec<&str> = lines[1].split(',').collect();
    let cell =
        |name: &str| row[header.iter().position(|h| *h == name).expect(name)].parse::<f64>().expect(name);
    let r = result(&report, "least-connections");
    assert_eq!(cell("quick_p99_ms"), r["latency_ms"]["quick"]["p99"].as_f64().expect("p99"));
    assert_eq!(cell("p99_ms"), r["latency_ms"]["all"]["p99"].as_f64().expect("p99"));
    assert_eq!(cell("busiest_share"), r["busiest_share"].as_f64().expect("share"));
}

/// The article: least connections keeps quick requests quick; round robin
/// queues them behind slow ones; user hashing builds a hot server.
#[test]
fn mixed_preset_tells_the_articles_story() {
    let report =
        json(&["run", "--preset", "mixed", "--algorithms", "round-robin,least-connections,user-hash"]);
    let quick = |a: &str| result(&report, a)["latency_ms"]["quick"]["p99"].as_f64().expect("p99");
    assert!(quick("least-connections") < 0.5 * quick("round-robin"));
    assert!(result(&report, "user-hash")["busiest_share"].as_f64().expect("share") > 0.3);
}

/// The `degraded` lesson: round robin keeps sending C a third of the traffic and
/// C's queue grows; least connections gives C about an eighth (more than
/// the fluid model's 2/22: whole counts tie, ties rotate) and C's queue
/// stays short (none at the preset's seed).
#[test]
fn degraded_preset_starves_c_under_least_connections_only() {
    let report = json(&["run", "--preset", "degraded", "--algorithms", "round-robin,least-connections"]);
    let c = |a: &str| result(&report, a)["servers"][2].clone();
    assert_eq!(c("round-robin")["name"], "C");
    assert!((c("round-robin")["share"].as_f64().expect("share") - 1.0 / 3.0).abs() < 0.01);
    assert!(c("round-robin")["peak_queue"].as_u64().expect("queue") > 100);
    let lc = c("least-connections")["share"].as_f64().expect("share");
    assert!((0.05..0.15).contains(&lc), "C's share under least connections: {lc}");
}

#[test]
fn presets_print_their_lesson_in_the_table() {
    let out = stdout(&["run", "--preset", "theory", "--requests", "2000"]);
    assert!(out.contains("Erlang C"), "{out}");
}

/// Later sources override earlier ones, and only in the fields they name.
#[test]
fn sources_apply_preset_then_file_then_link_then_flags() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("lbsim-cli-sources.json");
    std::fs::write(&file, r#"{"seed": 3, "zipf": 0.5}"#).expect("a scenario file");
    let file = file.to_str().expect("a UTF-8 path");
    let base =
        ["run", "--preset", "degraded", "--scenario", file, "--requests", "500", "--algorithms", "random"];
    let scenario = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend(extra);
        json(&args)["scenario"].clone()
    };
    let s = scenario(&[]);
    assert_eq!(
        (s["servers"].as_u64(), s["seed"].as_u64(), s["zipf"].as_f64()),
        (Some(3), Some(3), Some(0.5))
    );
    let s = scenario(&["--url", "http://x/#v=1&seed=5"]);
    assert_eq!(
        (s["seed"].as_u64(), s["zipf"].as_f64(), s["servers"].as_u64()),
        (Some(5), Some(0.5), Some(3))
    );
    let s = scenario(&["--url", "v=1&seed=5", "--seed", "7"]);
    assert_eq!(s["seed"].as_u64(), Some(7));
    // The link's three speeds fit the preset's three servers.
    let s = scenario(&["--url", "v=1&speeds=1,1%2C0.5"]);
    assert_eq!(s["speeds"], serde_json::json!([1.0, 1.0, 0.5]));
}

#[test]
fn scenario_can_come_from_stdin() {
    let out = lbsim()
        .args(["run", "--scenario", "-", "--format", "json"])
        .write_stdin(r#"{"requests": 500, "algorithms": ["random"], "seed": 9}"#)
        .output()
        .expect("lbsim runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["scenario"]["seed"], 9);
    assert_eq!(report["results"].as_array().map(Vec::len), Some(1));
}
