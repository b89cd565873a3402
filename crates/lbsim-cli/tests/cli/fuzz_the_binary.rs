//! The fuzz harness against the binary: hostile links, scenario files,
//! scenario flags and remap arguments. Whatever comes in, `lbsim` exits 0
//! or 2 (never a panic's 101), says why in one printable line, and what it
//! accepts it reads back unchanged from its own share link. Valid input
//! made from the table's rows is mixed in, so that most cases are accepted
//! (the harness requires a share, `lbsim-core/tests/behaviour/fuzz.rs`) and
//! every field is run through the binary. Each case starts a process or
//! two, so the default is fewer cases than the core's; `PROPTEST_CASES`
//! sets them (`cargo xtask fuzz` runs many).

use std::io::Write;
use std::process::{Command, Output, Stdio};

use lbsim_core::scenario::FIELDS;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::fuzz::{
    self, fuzz, hostile_list, hostile_text, hostile_value, mixed_json, mixed_link, printable, valid_pairs,
    Covered,
};

const CASES: u32 = 24;

/// `lbsim ARGS` with `stdin` on standard input.
fn lbsim(args: &[String], stdin: &[u8]) -> Result<Output, TestCaseError> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lbsim"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| TestCaseError::fail(format!("lbsim does not start: {e}")))?;
    if let Some(mut input) = child.stdin.take() {
        // lbsim may stop reading early (a capped file): that is its right.
        let _ = input.write_all(stdin);
    }
    child.wait_with_output().map_err(|e| TestCaseError::fail(e.to_string()))
}

/// Exit 0, or exit 2 with one printable line; `true` for 0.
fn succeeds_or_says_why(args: &[String], out: &Output) -> Result<bool, TestCaseError> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => Ok(true),
        Some(2) => {
            let line = stderr.strip_suffix('\n').unwrap_or(&stderr);
            prop_assert!(line.starts_with("lbsim: "), "{args:?}: {stderr:?}");
            prop_assert!(printable(line), "{args:?}: unprintable {stderr:?}");
            Ok(false)
        }
        code => Err(TestCaseError::fail(format!("{args:?}: exit {code:?}: {stderr}"))),
    }
}

/// The link `lbsim url` printed reads back to itself.
fn link_reads_back(printed: &[u8]) -> Result<(), TestCaseError> {
    let link = String::from_utf8_lossy(printed).trim_end().to_string();
    let again = lbsim(&["url".into(), "--url".into(), link.clone()], b"")?;
    prop_assert_eq!(again.status.code(), Some(0), "{}", String::from_utf8_lossy(&again.stderr));
    let read_back = String::from_utf8_lossy(&again.stdout).trim_end().to_string();
    prop_assert_eq!(read_back, link);
    Ok(())
}

/// `lbsim url ...` exits 0 or 2, and a link it prints reads back to itself;
/// `true` when it printed one.
fn url_reads_back(args: &[String], stdin: &[u8]) -> Result<bool, TestCaseError> {
    let out = lbsim(args, stdin)?;
    let accepted = succeeds_or_says_why(args, &out)?;
    if accepted {
        link_reads_back(&out.stdout)?;
    }
    Ok(accepted)
}

/// Arguments cannot carry NUL bytes through `exec`.
fn arg(text: String) -> String {
    text.replace('\0', "?")
}

#[test]
fn hostile_links_exit_0_or_2_and_read_back() {
    fuzz("cli links", fuzz::cases(CASES), mixed_link(), |link| {
        url_reads_back(&["url".into(), "--url".into(), arg(link)], b"")
    });
}

#[test]
fn hostile_scenario_files_exit_0_or_2_and_read_back() {
    let file = prop_oneof![
        4 => mixed_json().prop_map(String::into_bytes),
        1 => mixed_json().prop_map(|j| format!("\u{feff}{j}").into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..64),
    ];
    fuzz("cli scenario files", fuzz::cases(CASES), file, |bytes| {
        url_reads_back(&["url", "--scenario", "-"].map(String::from), &bytes)
    });
}

#[test]
fn hostile_scenario_flags_exit_0_or_2_and_read_back() {
    let flag = || {
        (prop::sample::select(FIELDS.iter().map(|f| f.key).collect::<Vec<_>>()), hostile_value())
            .prop_map(|(k, v)| (k.to_string(), v))
    };
    let flags = prop_oneof![
        5 => valid_pairs(),
        1 => prop::collection::vec(flag(), 0..5),
        1 => (valid_pairs(), flag()).prop_map(|(mut pairs, (k, v))| {
            pairs.push((k, v));
            pairs
        }),
    ];
    let covered = Covered::default();
    let tried = fuzz("cli scenario flags", fuzz::cases(CASES), flags, |flags| {
        let mut args = vec!["url".to_string()];
        for (key, value) in &flags {
            args.extend([format!("--{key}"), arg(value.clone())]);
        }
        let accepted = url_reads_back(&args, b"")?;
        if accepted {
            covered.saw(flags.iter().map(|(k, _)| k.as_str()));
        }
        Ok(accepted)
    });
    covered.every_field("cli scenario flags", tried);
}

#[test]
fn hostile_remap_arguments_exit_0_or_2() {
    // Key counts stay small (or wrong): the arguments are under test, not the machine.
    let keys = prop_oneof![
        (0u64..3000).prop_map(|k| k.to_string()),
        prop::sample::select(vec!["-1", "1e3", "NaN", " 7 ", "18446744073709551616", "10000001", ""])
            .prop_map(String::from),
    ];
    let flag = prop_oneof![
        prop::sample::select(vec!["modulo", "jump", "all", "maglev", "rendezvous", "ring", ""])
            .prop_map(|s| ("--scheme", s.to_string())),
        hostile_list().prop_map(|l| ("--nodes", l)),
        prop_oneof![hostile_text(), "[a-z0-9]{1,4}"].prop_map(|n| ("--add", n)),
        prop_oneof![hostile_text(), Just("s2".to_string())].prop_map(|n| ("--remove", n)),
        keys.prop_map(|k| ("--keys", k)),
        prop_oneof![hostile_text(), "[a-z:-]{0,8}\\{i\\}".prop_map(String::from)]
            .prop_map(|f| ("--key-format", f)),
        prop_oneof![fuzz::hostile_number(), (1u32..300).prop_map(|v| v.to_string())]
            .prop_map(|v| ("--vnodes", v)),
        prop::sample::select(vec!["xxh64", "crc32", "md5", ""]).prop_map(|h| ("--hash", h.to_string())),
        prop::sample::select(vec!["json", "table", "xml"]).prop_map(|f| ("--format", f.to_string())),
    ];
    // What a user would type: distinct nodes, a node added or removed.
    let valid = (
        prop::sample::select(vec!["modulo", "jump", "all", "maglev", "rendezvous", "consistent-hash"]),
        prop::collection::btree_set("[a-z][a-z0-9]{0,4}", 2..8),
        any::<bool>(),
        0u64..3000,
        prop::sample::select(vec!["xxh64", "crc32", "fnv1a32", "xxh32"]),
    )
        .prop_map(|(scheme, nodes, add, keys, hash)| {
            let nodes: Vec<String> = nodes.into_iter().collect();
            let change =
                if add { ("--add", "new".to_string()) } else { ("--remove", nodes[nodes.len() - 1].clone()) };
            vec![
                ("--scheme", scheme.to_string()),
                ("--nodes", nodes.join(",")),
                change,
                ("--keys", keys.to_string()),
                ("--hash", hash.to_string()),
            ]
        });
    let flags = prop_oneof![3 => valid, 1 => prop::collection::vec(flag, 0..5)];
    fuzz("cli remap arguments", fuzz::cases(CASES), flags, |flags| {
        let mut args = vec!["remap".to_string()];
        for (flag, value) in flags {
            args.extend([flag.to_string(), arg(value)]);
        }
        let out = lbsim(&args, b"")?;
        let accepted = succeeds_or_says_why(&args, &out)?;
        if accepted {
            prop_assert!(!out.stdout.is_empty(), "{args:?}: nothing printed");
        }
        Ok(accepted)
    });
}
