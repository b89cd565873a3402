//! A scenario file is read up to a cap (256 KiB) and no further, so an
//! endless or huge input fails at once, naming the cap, instead of filling
//! memory.

use std::time::{Duration, Instant};

use crate::lbsim;

const CAP: usize = 256 * 1024;

/// A scenario padded with spaces to `bytes` bytes.
fn padded(bytes: usize) -> String {
    let json = r#"{"requests": 100}"#;
    " ".repeat(bytes - json.len()) + json
}

fn run_file(name: &str, text: &str) -> std::process::Output {
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&file, text).expect("a file");
    lbsim().args(["run", "--scenario", file.to_str().expect("UTF-8")]).output().expect("lbsim runs")
}

#[test]
fn a_file_at_the_cap_is_read() {
    let out = run_file("lbsim-at-cap.json", &padded(CAP));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_file_over_the_cap_is_refused_naming_the_cap() {
    for bytes in [CAP + 1, 4 * CAP] {
        let out = run_file("lbsim-over-cap.json", &padded(bytes));
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("scenario") && stderr.contains("at most 256 KiB"), "{stderr}");
    }
}

#[test]
fn stdin_over_the_cap_is_refused() {
    let out =
        lbsim().args(["run", "--scenario", "-"]).write_stdin(padded(CAP + 10)).output().expect("lbsim runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 256 KiB"));
}

#[cfg(unix)]
#[test]
fn an_endless_file_fails_fast() {
    let start = Instant::now();
    let out = lbsim().args(["run", "--scenario", "/dev/zero"]).output().expect("lbsim runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 256 KiB"));
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
}
