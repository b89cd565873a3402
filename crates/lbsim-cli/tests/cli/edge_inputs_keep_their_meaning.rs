//! Small edge cases of input: each either means exactly what it says or is
//! refused with an error naming its field.

use crate::{lbsim, stdout};

/// A failing command's one-line message (exit status 2).
fn refused(args: &[&str]) -> String {
    let out = lbsim().args(args).output().expect("lbsim runs");
    assert_eq!(out.status.code(), Some(2), "lbsim {args:?}");
    String::from_utf8(out.stderr).expect("UTF-8")
}

fn scenario_file(name: &str, text: &str) -> String {
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&file, text).expect("a file");
    file.to_str().expect("UTF-8").to_string()
}

#[test]
fn values_starting_with_a_hyphen_are_values_not_flags() {
    let csv = stdout(&["run", "--names", "-a,b", "--servers", "2", "--requests", "50", "--format", "json"]);
    assert!(csv.contains(r#""names":["-a","b"]"#), "{csv}");
    let table = stdout(&["remap", "--nodes", "-a,b", "--key-format", "-{i}", "--keys", "100"]);
    assert!(table.starts_with("2 nodes, add s3"), "{table}");
    let message = refused(&["run", "--servers", "-3"]);
    assert!(message.contains("servers: '-3'"), "{message}");
    let message = refused(&["run", "--names", "-a,b"]);
    assert!(message.contains("names: '-a,b'") && message.contains("one value per server"), "{message}");
}

#[test]
fn json_names_are_checked_one_by_one() {
    let file = scenario_file("lbsim-comma-names.json", r#"{"servers": 3, "names": ["a,b", "c", "d"]}"#);
    let message = refused(&["run", "--scenario", &file]);
    assert!(message.contains("names: 'a,b'"), "{message}");
    let file = scenario_file("lbsim-empty-name.json", r#"{"servers": 1, "names": [""]}"#);
    let message = refused(&["run", "--scenario", &file]);
    assert!(message.contains("names: ''"), "{message}");
}

#[test]
fn json_files_may_start_with_a_byte_order_mark() {
    let file = scenario_file("lbsim-bom.json", "\u{feff}{\"requests\": 50, \"seed\": 3}");
    let json = stdout(&["run", "--scenario", &file, "--format", "json"]);
    assert!(json.contains(r#""requests":50"#) && json.contains(r#""seed":3"#), "{json}");
}

#[test]
fn repeated_link_keys_are_refused_naming_the_key() {
    let message = refused(&["run", "--url", "v=1&seed=3&zipf=1.1&seed=4"]);
    assert!(message.contains("seed: '4'") && message.contains("more than once"), "{message}");
    let message = refused(&["run", "--url", "v=1&v=1"]);
    assert!(message.starts_with("lbsim: v: '1'"), "{message}");
}

#[test]
fn sweep_values_are_the_ones_written() {
    let csv = stdout(&[
        "sweep",
        "--param",
        "zipf=0..5:2.50000000001",
        "--requests",
        "20",
        "--algorithms",
        "random",
    ]);
    let values: Vec<&str> = csv.lines().skip(1).filter_map(|l| l.split(',').next()).collect();
    assert_eq!(values, ["0", "2.50000000001"]);
    let csv = stdout(&[
        "sweep",
        "--param",
        "slow-share=0..2e-16:1e-16",
        "--requests",
        "20",
        "--algorithms",
        "random",
    ]);
    let values: Vec<&str> = csv.lines().skip(1).filter_map(|l| l.split(',').next()).collect();
    assert_eq!(values, ["0", "0.0000000000000001", "0.0000000000000002"]);
}
