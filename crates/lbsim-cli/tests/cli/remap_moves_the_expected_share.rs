//! `lbsim remap` against the theory
//! (docs/model.md#remapping-what-moves-when-the-pool-changes): modulo 4 -> 5 moves
//! about 4/5 of the keys, a ring, jump hash and Maglev about 1/5, and
//! rendezvous moves exactly the keys the new node takes.

use crate::{json, stdout};

fn fraction(report: &serde_json::Value) -> f64 {
    report["moved"].as_f64().expect("moved") / report["keys"].as_f64().expect("keys")
}

#[test]
fn modulo_four_to_five_moves_about_four_fifths() {
    let r = json(&["remap", "--scheme", "modulo", "--nodes", "a,b,c,d", "--add", "e", "--keys", "20000"]);
    let moved = fraction(&r);
    assert!((0.77..0.83).contains(&moved), "modulo moved {moved}");
    assert_eq!(r["scheme"], "modulo");
    assert_eq!(r["before"].as_object().expect("before").len(), 4);
    assert_eq!(r["after"].as_object().expect("after").len(), 5);
    let owned: u64 =
        r["after"].as_object().expect("after").values().map(|k| k.as_u64().expect("count")).sum();
    assert_eq!(owned, 20000, "every key has one owner");
}

#[test]
fn ring_jump_and_maglev_move_about_one_fifth() {
    for scheme in ["consistent-hash", "jump", "maglev", "rendezvous"] {
        let r = json(&["remap", "--scheme", scheme, "--keys", "20000"]);
        let moved = fraction(&r);
        assert!((0.15..0.26).contains(&moved), "{scheme} moved {moved}");
    }
}

/// Rendezvous and jump hashing move only the keys the new node takes
/// (and, on removal, only the keys the leaving node had).
#[test]
fn minimal_disruption_schemes_move_only_what_must_move() {
    for scheme in ["rendezvous", "jump"] {
        let r = json(&["remap", "--scheme", scheme, "--keys", "5000"]);
        assert_eq!(r["moved"], r["after"]["s5"], "{scheme} add");
    }
    let r = json(&["remap", "--scheme", "rendezvous", "--remove", "s2", "--keys", "5000"]);
    assert_eq!(r["moved"], r["before"]["s2"]);
    assert!(r["after"].get("s2").is_none());
}

#[test]
fn all_schemes_one_line_each_for_the_scale_out_preset() {
    let out = stdout(&["remap", "--preset", "scale-out", "--keys", "20000"]);
    for scheme in ["modulo", "consistent-hash", "jump", "rendezvous", "maglev"] {
        let line = out.lines().find(|l| l.starts_with(scheme)).unwrap_or_else(|| panic!("{scheme}: {out}"));
        let percent: f64 = line
            .split_whitespace()
            .find(|w| w.ends_with('%'))
            .and_then(|w| w.trim_end_matches('%').parse().ok())
            .expect("a percentage");
        let expected = if scheme == "modulo" { 80.0 } else { 20.0 };
        assert!((percent - expected).abs() < 6.0, "{line}");
    }
    let all = json(&["remap", "--keys", "1000"]);
    assert_eq!(all["schemes"].as_array().expect("schemes").len(), 5);
}

#[test]
fn one_scheme_table_shows_ownership_before_and_after() {
    let out = stdout(&["remap", "--scheme", "jump", "--nodes", "a,b,c", "--remove", "b", "--keys", "3000"]);
    let row =
        |node: &str| out.lines().find(|l| l.split_whitespace().next() == Some(node)).map(str::to_string);
    assert!(row("b").is_some_and(|l| l.trim_end().ends_with('-')), "{out}");
    assert!(out.contains("moved:"), "{out}");
}

#[test]
fn key_format_and_hash_are_used() {
    let a = json(&["remap", "--scheme", "modulo", "--key-format", "k{i}", "--hash", "crc32"]);
    let b = json(&["remap", "--scheme", "modulo", "--key-format", "session:{i}", "--hash", "crc32"]);
    assert_eq!(a["hash"], "crc32");
    assert_ne!(a["before"], b["before"], "another key pattern, other owners");
}

/// Jump hash numbers its buckets, so it can only remove the last one
/// (Lamping & Veach); removing another renumbers those after it. The
/// table says so next to the figure, and only then.
#[test]
fn jump_says_when_a_removal_is_not_like_for_like() {
    let args = |node: &'static str| {
        ["remap", "--scheme", "jump", "--nodes", "a,b,c,d", "--remove", node, "--keys", "20000"]
    };
    let inner = json(&args("b"));
    assert!(fraction(&inner) > 0.5, "removing b renumbers c and d: {}", fraction(&inner));
    assert!(stdout(&args("b")).contains("jump hash can only remove the last node (d)"));
    let last = json(&args("d"));
    assert!(
        (0.23..0.27).contains(&fraction(&last)),
        "removing the last moves its quarter: {}",
        fraction(&last)
    );
    assert!(!stdout(&args("d")).contains("note:"));
}
