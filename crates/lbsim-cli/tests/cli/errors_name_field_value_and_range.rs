//! Bad input exits 2 with one line naming the field, the value and what is
//! allowed (docs/cli.md#exit-status-and-errors); nothing panics.

use crate::lbsim;

/// Runs a failing command; returns its one-line message.
fn error(args: &[&str]) -> String {
    let out = lbsim().args(args).output().expect("lbsim runs");
    assert_eq!(out.status.code(), Some(2), "lbsim {args:?}");
    assert!(out.stdout.is_empty(), "nothing on stdout");
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"), "{stderr}");
    stderr
}

fn names_all(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "{part:?} not in {message}");
    }
}

#[test]
fn out_of_range_flags_name_the_table_range() {
    names_all(&error(&["run", "--servers", "0"]), &["servers", "'0'", "1 to 1024"]);
    names_all(&error(&["run", "--slow-share", "1.5"]), &["slow-share", "'1.5'", "0 to 1"]);
    names_all(&error(&["run", "--seed", "-1"]), &["seed", "'-1'", "0 to 9007199254740991"]);
    names_all(&error(&["run", "--load", "abc"]), &["load", "'abc'", "0.01 to 2"]);
    names_all(
        &error(&["run", "--algorithms", "round-robin,fastest"]),
        &["algorithms", "fastest", "least-connections"],
    );
    names_all(&error(&["url", "--requests", "20000000"]), &["requests", "10000000"]);
}

#[test]
fn inconsistent_scenarios_are_rejected() {
    names_all(
        &error(&["run", "--servers", "3", "--speeds", "1,1"]),
        &["speeds", "1,1", "one value per server"],
    );
}

#[test]
fn links_are_read_strictly() {
    names_all(
        &error(&["run", "--url", "http://x/#v=1&colour=blue"]),
        &["unknown key 'colour'", "known keys: servers"],
    );
    names_all(&error(&["run", "--url", "v=1&zipf=9"]), &["zipf", "'9'", "0 to 5"]);
    names_all(&error(&["run", "--url", "v=2"]), &["v", "'2'"]);
}

#[test]
fn bad_scenario_files_are_input_errors() {
    names_all(
        &error(&["run", "--scenario", "/nonexistent/lbsim.json"]),
        &["scenario", "/nonexistent/lbsim.json"],
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("lbsim-cli-bad.json");
    std::fs::write(&file, r#"{"servers": 4, "colour": "blue"}"#).expect("a file");
    names_all(
        &error(&["run", "--scenario", file.to_str().expect("UTF-8")]),
        &["unknown key 'colour'", "servers"],
    );
    std::fs::write(&file, r#"{"servers": 0}"#).expect("a file");
    names_all(
        &error(&["run", "--scenario", file.to_str().expect("UTF-8")]),
        &["servers", "'0'", "1 to 1024"],
    );
}

/// A value of the wrong JSON type names its field and the field's range,
/// not only serde's line and column.
#[test]
fn json_type_errors_name_the_field() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("lbsim-cli-typed.json");
    let cases: [(&str, &[&str]); 4] = [
        (r#"{"servers": 4, "retries": "1"}"#, &["retries", "0 to 10", "expected u32"]),
        (r#"{"events": 5}"#, &["events", "'5'", "TIME:SERVER:KIND"]),
        (r#"{"ring": null}"#, &["ring", "'null'", "nginx"]),
        (r#"{"count-5xx": "yes"}"#, &["count-5xx", "yes"]),
    ];
    for (json, parts) in cases {
        std::fs::write(&file, json).expect("a file");
        names_all(&error(&["run", "--scenario", file.to_str().expect("UTF-8")]), parts);
    }
}

/// An escape sequence in an argument is shown escaped, not dropped (clap
/// alone printed `'xy'` for `x\e[31my`, and a mangled flag as the real one).
#[test]
fn control_characters_in_arguments_are_shown_escaped() {
    names_all(
        &error(&["run", "--format", "x\u{1b}[31my"]),
        &["argument 3", "'x\\u{1b}[31my'", "control character"],
    );
    let message = error(&["run", "--serv\u{1b}[0mers", "3"]);
    names_all(&message, &["argument 2", "'--serv\\u{1b}[0mers'"]);
    assert!(!message.contains('\u{1b}'), "no raw escape reaches the terminal: {message:?}");
}

/// A ring too large names what the reader can change for that ring:
/// vnodes for lbsim's, the weights for NGINX's, the servers for ketama's.
#[test]
fn a_ring_too_large_names_what_applies_to_its_construction() {
    let heavy = vec!["1000"; 1024].join(",");
    let nginx = error(&["run", "--ring", "nginx", "--servers", "1024", "--weights", &heavy]);
    names_all(
        &nginx,
        &["weights: 'a total weight of 1024000 over 1024 servers'", "builder=nginx", "4194304"],
    );
    assert!(!nginx.contains("vnodes"), "vnodes does not apply to NGINX's ring: {nginx}");
    let ketama = error(&[
        "run",
        "--ring",
        "ketama",
        "--servers",
        "1024",
        "--balancers",
        "64",
        "--algorithms",
        "bounded-load",
    ]);
    names_all(&ketama, &["servers: '1024'", "builder=ketama", "balancer copies"]);
    let heavy = vec!["100"; 1024].join(",");
    names_all(
        &error(&["run", "--vnodes", "1000", "--servers", "1024", "--weights", &heavy]),
        &["vnodes: '1000'"],
    );
}

/// A field with no effect on the scenario is one rule for `run` and
/// `sweep`: both run it and say so on standard error (the sweep refused it
/// while `run` took it silently).
#[test]
fn a_field_without_effect_runs_with_a_note_in_run_and_sweep() {
    let note = |args: &[&str]| {
        let out = lbsim().args(args).output().expect("lbsim runs");
        assert_eq!(out.status.code(), Some(0), "lbsim {args:?}");
        assert!(!out.stdout.is_empty());
        String::from_utf8(out.stderr).expect("UTF-8")
    };
    let quick = ["--requests", "200", "--algorithms", "round-robin"];
    let run = note(&[&["run", "--retries", "1"][..], &quick].concat());
    assert!(run.contains("--retries has no effect"), "{run}");
    let sweep = note(&[&["sweep", "--param", "retries=0..1:1"][..], &quick].concat());
    assert!(sweep.contains("retries has no effect"), "{sweep}");
    let used = note(&[&["run", "--retries", "1", "--events", "100ms:s1:crash"][..], &quick].concat());
    assert!(used.is_empty(), "{used}");
}

/// A sweep of `servers` checks each value's scenario, not the base's:
/// three names fit every count (the rest named s4, s5), and a refusal
/// would name the sweep's own count, not the default 4.
#[test]
fn a_servers_sweep_fits_the_names_to_each_count() {
    let out = lbsim()
        .args([
            "sweep",
            "--param",
            "servers=1..5:1",
            "--names",
            "a,b,c",
            "--requests",
            "200",
            "--algorithms",
            "round-robin",
        ])
        .output()
        .expect("lbsim runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 6, "a header and five values");
}

#[test]
fn presets_are_checked_per_command() {
    names_all(&error(&["run", "--preset", "nope"]), &["preset", "nope", "mixed", "degraded"]);
    names_all(&error(&["run", "--preset", "scale-out"]), &["preset", "scale-out", "lbsim remap"]);
    names_all(&error(&["remap", "--preset", "mixed"]), &["preset", "mixed", "scale-out"]);
}

#[test]
fn clap_errors_exit_2_on_one_line() {
    names_all(&error(&["run", "--format", "xml"]), &["format", "xml", "table", "json", "csv"]);
    names_all(&error(&["run", "--sed", "3"]), &["--sed", "--seed"]);
    error(&["frobnicate"]);
    error(&["trace"]);
    error(&["remap", "--add", "x", "--remove", "s1"]);
}

#[test]
fn remap_input_is_checked() {
    names_all(&error(&["remap", "--scheme", "ring"]), &["scheme", "ring", "consistent-hash", "all"]);
    names_all(&error(&["remap", "--remove", "s9"]), &["remove", "s9"]);
    names_all(&error(&["remap", "--keys", "0"]), &["keys", "'0'", "1 to 10000000"]);
    names_all(&error(&["remap", "--keys", "many"]), &["keys", "many", "1 to 10000000"]);
    names_all(&error(&["remap", "--nodes", "a,a,b"]), &["nodes", "a,a,b", "distinct"]);
    names_all(&error(&["remap", "--key-format", "session"]), &["key-format", "session", "{i}"]);
    names_all(&error(&["remap", "--hash", "md5"]), &["hash", "md5", "xxh64"]);
}

#[test]
fn trace_input_is_checked() {
    names_all(&error(&["trace", "--algorithm", "fastest"]), &["algorithm", "fastest", "round-robin"]);
    names_all(&error(&["trace", "--algorithm", "random", "--picks", "0"]), &["picks", "'0'", "1 to 100000"]);
    names_all(
        &error(&["trace", "--algorithm", "random", "--weights", "1,0"]),
        &["weights", "1,0", "1 to 1000"],
    );
    names_all(
        &error(&["trace", "--algorithm", "random", "--weights", "1,2", "--names", "a,b,c"]),
        &["names", "a,b,c", "one value per server"],
    );
}

#[test]
fn sweep_ranges_are_checked() {
    names_all(&error(&["sweep", "--param", "colour=1..2:1"]), &["param", "colour", "slow-share"]);
    names_all(&error(&["sweep", "--param", "speeds=1..2:1"]), &["param", "speeds", "a numeric field"]);
    names_all(&error(&["sweep", "--param", "slow-share=0..2:0.1"]), &["slow-share", "'2'", "0 to 1"]);
    names_all(&error(&["sweep", "--param", "seed=0..1000000:1"]), &["param", "at most 1000 values"]);
    names_all(&error(&["sweep", "--param", "slow-share=0.5..0.1:0.1"]), &["param", "FROM at most TO"]);
    names_all(&error(&["sweep", "--param", "servers=1..4:0.5"]), &["param", "0.5", "whole number"]);
    names_all(&error(&["sweep", "--param", "slow-share=0..1"]), &["param", "NAME=FROM..TO:STEP"]);
}
