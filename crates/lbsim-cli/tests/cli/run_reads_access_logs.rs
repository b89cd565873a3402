//! `lbsim run --log`: a workload written by `lbsim workload` and read
//! back runs to the same results and realized figures as the scenario it
//! came from; logs plain, gzip or on standard input; and the bad inputs of
//! docs/model.md#your-own-traffic, each an exit status 2 naming the log
//! and what is wrong, never a panic.

use std::io::Write;
use std::path::PathBuf;

use flate2::write::GzEncoder;
use flate2::Compression;

use crate::{json, lbsim, stdout};

fn file(name: &str, bytes: &[u8]) -> String {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, bytes).expect("a file");
    path.to_str().expect("UTF-8").to_string()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

/// The report's sections as the JSON text writes them.
fn section(report: &serde_json::Value, key: &str) -> String {
    serde_json::to_string(&report[key]).expect("JSON")
}

fn refused(args: &[&str]) -> String {
    let out = lbsim().args(args).output().expect("lbsim runs");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn a_workload_read_back_gives_the_same_results_and_realized_figures() {
    // mixed: the defaults; crash: events, retries and two balancer copies
    // would move if copies were drawn differently.
    for (preset, extra) in [("mixed", &[][..]), ("crash", &["--balancers", "3"][..])] {
        let mut args = vec!["--preset", preset, "--requests", "4000"];
        args.extend(extra);
        let written = stdout(&[&["workload"][..], &args].concat());
        let csv = file(&format!("lbsim-workload-{preset}.csv"), written.as_bytes());
        let drawn = json(&[&["run"][..], &args].concat());
        let read = json(&[&["run", "--log", &csv][..], &args].concat());
        for key in ["results", "realized"] {
            assert_eq!(section(&read, key), section(&drawn, key), "{preset}: {key}");
        }
        // The scenario section names the source.
        assert_eq!(read["scenario"]["log"], csv.as_str());
        assert_eq!(read["scenario"]["log-kind"], "csv");
        // gzip, told by its magic bytes, and standard input read the same.
        let gz = file(&format!("lbsim-workload-{preset}.csv.gz"), &gzip(written.as_bytes()));
        let zipped = json(&[&["run", "--log", &gz][..], &args].concat());
        assert_eq!(section(&zipped, "results"), section(&drawn, "results"), "{preset}: gzip");
        let out = lbsim()
            .args([&["run", "--log", "-", "--format", "json"][..], &args].concat())
            .write_stdin(written.clone())
            .output()
            .expect("lbsim runs");
        let piped: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(section(&piped, "results"), section(&drawn, "results"), "{preset}: stdin");
    }
}

/// Lines in lbsim's NGINX timing format from two servers.
fn nginx_log(lines: usize) -> String {
    (0..lines)
        .map(|i| {
            let end = 1_796_667_267.0 + i as f64 * 0.010;
            format!(
                "203.0.113.{} [07/Dec/2026:18:14:27 +0000] \"GET / HTTP/1.1\" 200 {end:.3} 0.030 0.025 10.0.0.{}:8080\n",
                i % 50,
                1 + i % 2
            )
        })
        .collect()
}

#[test]
fn an_nginx_logs_servers_are_the_fleet_unless_servers_are_given() {
    let log = file("lbsim-nginx.log", nginx_log(500).as_bytes());
    let report = json(&["run", "--log", &log, "--algorithms", "round-robin"]);
    assert_eq!(report["scenario"]["log-kind"], "nginx");
    assert_eq!(report["scenario"]["servers"], 2);
    assert_eq!(report["scenario"]["names"], serde_json::json!(["10.0.0.1:8080", "10.0.0.2:8080"]));
    assert_eq!(report["realized"]["requests"], 500);
    let report = json(&["run", "--log", &log, "--algorithms", "round-robin", "--servers", "5"]);
    assert_eq!(report["scenario"]["servers"], 5);
    let table = stdout(&["run", "--log", &log, "--algorithms", "round-robin"]);
    assert!(table.starts_with(&format!("log {log}, nginx, 500 requests\n")), "{table}");
}

#[test]
fn bad_logs_are_refused_naming_what_is_wrong() {
    let empty = file("lbsim-empty.log", b"");
    assert!(refused(&["run", "--log", &empty]).contains("empty"));
    let binary = file("lbsim-binary.log", &[0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0]);
    assert!(refused(&["run", "--log", &binary]).contains("binary"));
    let mut truncated = gzip(nginx_log(2000).as_bytes());
    truncated.truncate(truncated.len() / 2);
    let truncated = file("lbsim-truncated.log.gz", &truncated);
    assert!(refused(&["run", "--log", &truncated]).contains("gzip"));
    let combined = file(
        "lbsim-combined.log",
        b"203.0.113.7 - - [07/Dec/2026:18:14:27 +0000] \"GET / HTTP/1.1\" 200 612 \"-\" \"curl/8.0\"\n",
    );
    let message = refused(&["run", "--log", &combined]);
    assert!(message.contains("$request_time") && message.contains("log_format lbsim '"), "{message}");
    let mostly = file("lbsim-mostly-bad.log", [nginx_log(3), "bad\n".repeat(10)].concat().as_bytes());
    let message = refused(&["run", "--log", &mostly, "--log-kind", "nginx"]);
    assert!(message.contains("10 of 13 lines") && message.contains("line 4"), "{message}");
    let missing = refused(&["run", "--log", "/nonexistent/lbsim.log"]);
    assert!(missing.starts_with("lbsim: log: ") && missing.contains("a readable access log"), "{missing}");
}

#[test]
fn a_10_mb_line_is_skipped_and_counted() {
    let text = [nginx_log(100), "x".repeat(10 << 20), "\n".to_string(), nginx_log(100)].concat();
    let log = file("lbsim-long-line.log", text.as_bytes());
    let out = lbsim()
        .args(["run", "--log", &log, "--algorithms", "random", "--format", "json"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("line 101: longer than 64 KiB"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["realized"]["requests"], 200);
}
