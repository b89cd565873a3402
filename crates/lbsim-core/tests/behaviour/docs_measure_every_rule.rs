//! The figures a rule is held to are written down for every rule of the
//! registry: docs/performance.md's table has a row of measured figures per
//! rule (cost a request, growth with the pool, events, wasm), so a new rule
//! is not done until it is measured. (The docs' lists of rules are
//! `lbsim list rules` blocks, which `cargo xtask docs-check` keeps.)

use lbsim_core::AlgorithmId;

#[test]
fn the_performance_table_has_a_row_per_rule() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/performance.md");
    let doc = std::fs::read_to_string(path).expect("docs/performance.md is readable");
    let rows: Vec<&str> = doc.lines().filter(|l| l.starts_with("| `")).collect();
    for rule in AlgorithmId::ALL {
        let row = format!("| `{}`", rule.id());
        assert!(
            rows.iter().any(|r| r.starts_with(&row)),
            "docs/performance.md has no row of figures for {}: run the benches its table names and add one",
            rule.id()
        );
    }
}
