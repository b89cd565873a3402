//! One way to read a value: every flag's numbers and lists are read
//! without the spaces around them, `-0` is 0, and a rule named by
//! `--algorithm` or `--pair` is one of the scenario's (docs/cli.md#lbsim-replay-a-runs-first-requests-attempt-by-attempt).

use super::{lbsim, stdout};

#[test]
fn minus_zero_is_zero() {
    let text = stdout(&["replay", "--requests", "50", "--at", "-0"]);
    assert!(text.contains("\nat 0.000 s\n") && !text.contains("-0.000"), "{text}");
}

#[test]
fn numbers_and_lists_are_trimmed_alike() {
    let spaced = stdout(&["replay", "--requests", "50", "--window", " 40", "--pair", "round-robin, random"]);
    let plain = stdout(&["replay", "--requests", "50", "--window", "40", "--pair", "round-robin,random"]);
    assert_eq!(spaced, plain);
}

#[test]
fn a_named_rule_is_one_of_the_scenarios() {
    for (command, field) in [
        (&["replay", "--algorithms", "maglev", "--requests", "50", "--pair", "maglev,random"][..], "pair"),
        (
            &["config", "--for", "nginx", "--algorithm", "maglev", "--algorithms", "round-robin"][..],
            "algorithm",
        ),
    ] {
        let out = lbsim().args(command).output().expect("lbsim runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{field}: ")) && stderr.contains("the scenario's rules"),
            "{stderr}"
        );
    }
    // A one-rule scenario's replay shows it beside round robin, named or not.
    let named =
        stdout(&["replay", "--algorithms", "maglev", "--requests", "50", "--pair", "maglev,round-robin"]);
    assert_eq!(named, stdout(&["replay", "--algorithms", "maglev", "--requests", "50"]));
}
