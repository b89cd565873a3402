//! End-to-end tests of the `lbsim` binary, one module per behaviour. Each
//! pins the output against something outside the CLI: a reference
//! implementation's documented sequence, a remapping fraction from theory,
//! the report's documented field names, another command's output.

mod config_means_what_the_scenario_means;
mod config_writes_what_the_balancer_takes;
mod edge_inputs_keep_their_meaning;
mod empty_figures_are_not_zeros;
mod errors_escape_control_characters;
mod errors_name_field_value_and_range;
mod events_after_the_run_are_noted;
mod exit_status_follows_the_table_on_broken_streams;
mod fit_gives_back_a_known_scenario;
// The generators are the core's fuzz harness, shared.
#[path = "../../../lbsim-core/tests/behaviour/fuzz.rs"]
mod fuzz;
mod fuzz_the_binary;
mod memory_is_known_before_the_run;
mod quiet_probes_cost_one_step;
mod remap_hashes_long_keys_whole;
mod remap_moves_the_expected_share;
mod remap_streams_its_keys;
mod remap_takes_the_placement_fields;
mod replay_ends_on_the_report;
mod run_formats;
mod run_reads_access_logs;
mod scenario_files_are_read_up_to_a_cap;
mod sweep_keeps_only_rows;
mod sweep_rows_match_single_runs;
mod trace_follows_the_reference_sequences;
mod trace_memory_does_not_grow_with_the_user;
mod trace_places_rings_as_the_core_does;
mod trace_shows_learned_weights;
mod trace_takes_every_field_its_picks_depend_on;
mod url_round_trip;
mod values_are_read_one_way;

use assert_cmd::Command;
use lbsim_core::presets::PRESETS;
use lbsim_core::scenario::{Field, FieldKind};
use lbsim_core::{AlgorithmId, Scenario};

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

/// Values of `field` other than its value in `base` that a scenario may
/// take, each as its flag reads it: the ends of its range, a choice's ids
/// (from its row), the rules, lists of one per server and the presets'
/// values. None is written
/// here for a particular field, so a field added to the table is tried too.
pub fn other_values(field: &Field, base: &Scenario) -> Vec<String> {
    let servers = base.servers as usize;
    // A whole f64 prints without a fraction, as an integer field reads it.
    let (low, high) = (field.min.to_string(), field.max.to_string());
    let per_server = |first: &str, rest: &str| {
        let mut list = vec![first.to_string()];
        list.resize(servers, rest.to_string());
        list.join(",")
    };
    let mut values: Vec<String> = match field.kind {
        FieldKind::Integer | FieldKind::Real => vec![low, high],
        FieldKind::NumberList => vec![per_server(&high, &low), per_server(&low, &high)],
        FieldKind::NameList => {
            let names: Vec<String> = (1..=servers).map(|i| format!("{}{i}", field.key)).collect();
            let rules = AlgorithmId::ALL.iter().map(|r| r.id().to_string());
            rules.chain([names.join(",")]).collect()
        }
        FieldKind::Choice => field.choices().iter().map(|c| c.id.to_string()).collect(),
        // A log's name or format means a file to read: the log tests try them.
        FieldKind::Events | FieldKind::Text => Vec::new(),
    };
    values.extend(PRESETS.iter().filter_map(|p| p.scenario().get(field.key)));
    let mut kept: Vec<String> = Vec::new();
    for text in values {
        let mut other = base.clone();
        let allowed = other.set(field.key, &text).is_ok() && other.validate().is_ok();
        if allowed && other.get(field.key) != base.get(field.key) && !kept.contains(&text) {
            kept.push(text);
        }
    }
    kept
}
