//! Control characters in echoed input never reach the terminal: an error
//! shows them escaped as Rust's `escape_debug` does, on one line.

use crate::lbsim;

/// Runs a failing command; returns its message after checking it is one
/// printable line.
fn escaped_error(args: &[&str]) -> String {
    let out = lbsim().args(args).output().expect("lbsim runs");
    assert_eq!(out.status.code(), Some(2), "lbsim {args:?}");
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    let line = stderr.strip_suffix('\n').expect("ends with a newline");
    let unprintable: Vec<char> = line.chars().filter(|c| c.is_control() || *c == '\u{202e}').collect();
    assert!(unprintable.is_empty(), "{unprintable:?} reached the terminal: {stderr:?}");
    stderr
}

#[test]
fn link_values_are_escaped() {
    let message = escaped_error(&["run", "--url", "v=1&servers=%0a%1b[31mX"]);
    assert!(message.contains(r"servers: '\n\u{1b}[31mX'"), "{message}");
}

#[test]
fn link_keys_are_escaped() {
    let message = escaped_error(&["run", "--url", "v=1&colour%07=blue%E2%80%AE"]);
    assert!(message.contains(r"unknown key 'colour\u{7}'"), "{message}");
}

#[test]
fn flag_values_and_clap_errors_are_escaped() {
    escaped_error(&["run", "--servers", "4\r\x1b[2K"]);
    assert!(escaped_error(&["run", "--format", "x\ry"]).contains(r"'x\ry'"));
    escaped_error(&["run", "--sed\x07", "3"]);
    escaped_error(&["remap", "--add", "e\x1b[31m"]);
    escaped_error(&["sweep", "--param", "seed\x1b=1..2:1"]);
}

#[test]
fn scenario_files_and_their_contents_are_escaped() {
    escaped_error(&["run", "--scenario", "/nonexistent/a\nb\x1b[31m.json"]);
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lbsim-cli-escape.json");
    std::fs::write(&file, "{\"\x1b[31mcolour\": 1}").expect("a file");
    escaped_error(&["run", "--scenario", file.to_str().expect("UTF-8")]);
}

#[test]
fn a_link_base_with_control_characters_is_refused_not_printed() {
    let message = escaped_error(&["url", "--base", "http://x/\x1b[2J"]);
    assert!(message.contains(r"base: 'http://x/\u{1b}[2J'"), "{message}");
}
