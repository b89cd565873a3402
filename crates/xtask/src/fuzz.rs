//! `cargo xtask fuzz [CASES]`: the fuzz harness's long run. The property
//! tests that `cargo test` runs briefly (hostile links, JSON scenarios,
//! single fields and remap arguments against the core; generated scenarios
//! run to reports and generated sweeps; the same inputs against the
//! binary) run here with many cases each, optimized, and the command says
//! how many cases it tried.

use std::process::Command;

use crate::tools::{root, step};

/// Cases per core property unless given; the binary's properties start a
/// process or two per case and get a twentieth of them.
pub const DEFAULT_CASES: u64 = 100_000;

pub fn fuzz(cases: u64) -> Result<(), String> {
    let runs: [(&str, u64, &[&str]); 3] = [
        ("the core", cases, &["-p", "lbsim-core", "--test", "behaviour", "fuzz_inputs"]),
        // Each case runs a scenario: a hundredth of the cases.
        (
            "reports and sweeps",
            (cases / 100).max(1),
            &["-p", "lbsim-core", "--test", "behaviour", "fuzz_reports"],
        ),
        ("the binary", (cases / 20).max(1), &["-p", "lbsim-cli", "--test", "cli", "fuzz_the_binary"]),
    ];
    let mut total = 0;
    for (what, n, selection) in runs {
        step(&format!("fuzz {what}: {n} cases per property (building first, then quiet until done)"));
        let out = Command::new("cargo")
            .args(["test", "--release"])
            .args(selection)
            .args(["--", "--nocapture"])
            .env("PROPTEST_CASES", n.to_string())
            .current_dir(root())
            .output()
            .map_err(|e| format!("could not start `cargo test`: {e}"))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        for line in stderr.lines().filter(|l| l.starts_with("fuzz ")) {
            eprintln!("  {line}");
            let tried = line.split_once(": ").and_then(|(_, rest)| rest.split(' ').next());
            total += tried.and_then(|t| t.parse::<u64>().ok()).unwrap_or(0);
        }
        if !out.status.success() {
            eprintln!("{}{stderr}", String::from_utf8_lossy(&out.stdout));
            return Err(format!("fuzz {what}: a property failed (the smallest failing input is above)"));
        }
    }
    eprintln!("\nfuzz: {total} cases tried, every property held");
    Ok(())
}
