//! End-to-end tests of the `lbsim` binary, one module per behaviour. Each
//! pins the output against something outside the CLI: a reference
//! implementation's documented sequence, a remapping fraction from theory,
//! the SPEC's field names, another command's output.

mod edge_inputs_keep_their_meaning;
mod errors_escape_control_characters;
mod errors_name_field_value_and_range;
mod exit_status_follows_the_table_on_broken_streams;
// The generators are the core's fuzz harness, shared.
#[path = "../../../lbsim-core/tests/fuzz/mod.rs"]
mod fuzz;
mod fuzz_the_binary;
mod remap_hashes_long_keys_whole;
mod remap_moves_the_expected_share;
mod remap_streams_its_keys;
mod run_formats;
mod scenario_files_are_read_up_to_a_cap;
mod sweep_keeps_only_rows;
mod sweep_rows_match_single_runs;
mod trace_follows_the_reference_sequences;
mod url_round_trip;

use assert_cmd::Command;

/// The binary under test.
pub fn lbsim() -> Command {
    assert_cmd::cargo::cargo_bin_cmd!("lbsim")
}

/// Runs `lbsim ARGS`, expects success, returns standard output.
pub fn stdout(args: &[&str]) -> String {
    let out = lbsim().args(args).output().expect("lbsim runs");
    assert!(out.status.success(), "lbsim {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Runs `lbsim ARGS --format json` and parses the output.
pub fn json(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    serde_json::from_str(&stdout(&all)).expect("one JSON document")
}

/// Runs `lbsim ARGS` under an address-space limit of `kib` KiB (through
/// `sh`'s `ulimit -v`), with two threads and two malloc arenas so that what
/// the runtime reserves does not depend on the machine's cores.
#[cfg(target_os = "linux")]
pub fn under_memory_limit(kib: u64, args: &[&str]) -> std::process::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(r#"ulimit -v {kib} && exec "$@""#))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_lbsim"))
        .args(args)
        .env("RAYON_NUM_THREADS", "2")
        .env("MALLOC_ARENA_MAX", "2")
        .output()
        .expect("sh runs")
}
