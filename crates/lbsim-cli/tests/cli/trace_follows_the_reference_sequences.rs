//! `lbsim trace` against sequences published outside this project.

use crate::{json, stdout};

fn picks(args: &[&str]) -> Vec<String> {
    let mut all = vec!["trace"];
    all.extend(args);
    let out = json(&all);
    out["picks"].as_array().expect("picks").iter().map(|p| p.as_str().expect("a name").to_string()).collect()
}

/// NGINX's smooth weighted round robin: weights 5,1,1 give a a b a c a a
/// (the commit that introduced it documents this sequence).
#[test]
fn smooth_wrr_5_1_1_is_the_nginx_sequence() {
    let got =
        picks(&["--algorithm", "round-robin", "--weights", "5,1,1", "--names", "a,b,c", "--picks", "7"]);
    assert_eq!(got, ["a", "a", "b", "a", "c", "a", "a"]);
}

/// NGINX's smooth weighted round robin
/// (docs/model.md#the-rules-and-whom-they-follow): weights 4,2,1 give
/// a b a c a b a; the sequence repeats with the period of the total weight.
#[test]
fn smooth_wrr_4_2_1_repeats_every_seven_picks() {
    let got =
        picks(&["--algorithm", "round-robin", "--weights", "4,2,1", "--names", "a,b,c", "--picks", "14"]);
    let once = ["a", "b", "a", "c", "a", "b", "a"];
    assert_eq!(got[..7], once);
    assert_eq!(got[7..], once);
}

/// Without names the servers are s1..sN; equal weights rotate.
#[test]
fn default_names_and_plain_rotation() {
    assert_eq!(
        picks(&["--algorithm", "round-robin", "--servers", "3", "--picks", "4"]),
        ["s1", "s2", "s3", "s1"]
    );
}

/// user-hash is `fnv1a32("user-{id}") mod N` (the article's lab); pick i
/// is for user i+1. FNV-1a is computed here from its published constants.
#[test]
fn user_hash_follows_fnv1a_of_the_user_key() {
    fn fnv1a32(bytes: &[u8]) -> u32 {
        bytes.iter().fold(0x811c_9dc5, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
    }
    let got = picks(&["--algorithm", "user-hash", "--servers", "4", "--picks", "50"]);
    let expected: Vec<String> =
        (1..=50).map(|u| format!("s{}", fnv1a32(format!("user-{u}").as_bytes()) % 4 + 1)).collect();
    assert_eq!(got, expected);
}

#[test]
fn table_lists_each_pick_and_the_sequence() {
    let out = stdout(&[
        "trace",
        "--algorithm",
        "round-robin",
        "--weights",
        "5,1,1",
        "--names",
        "a,b,c",
        "--picks",
        "7",
    ]);
    assert!(out.lines().next().is_some_and(|l| l.contains("pick") && l.contains("server")), "{out}");
    assert!(out.contains("user-7"), "{out}");
    assert!(out.contains("sequence: a a b a c a a"), "{out}");
}
