//! `cargo xtask test`: the whole gate, in order. CI (`.ci/run`) runs
//! exactly this.

use std::path::Path;

use crate::tools::{ensure_node, ensure_wasm_target, output, root, run, step};

/// Scenarios whose reports must be byte-identical natively and in wasm:
/// every rule, every work distribution, weights, speeds, copies, and a
/// fleet that changes.
const DETERMINISM_SCENARIOS: &[&str] = &[
    r#"{}"#,
    r#"{"work":"lognormal","sigma":1.5,"balancers":3,"weights":[3,1,1,2],"speeds":[1,0.5,1,2]}"#,
    r#"{"work":"exponential","servers":1,"slots":8,"load":0.8,"requests":30000}"#,
    r#"{"servers":16,"slots":2,"balancers":8,"load":0.85,"zipf":1.3,"hash":"crc32"}"#,
    r#"{"servers":3,"rate":60,"work":"constant","mean-ms":100,"speeds":[1,1,0.2],"hash":"xxh32"}"#,
    // The fleet over time: every event kind, every health mechanism, retries,
    // warm-up and slow start (whose weights and ramps are float arithmetic).
    r#"{"servers":5,"balancers":2,"weights":[1,2,1,1,3],"events":"5s:s5:join,10s:s1:crash,15s:s1:recover,20s:s2:fail,30s:s2:recover,25s:s3:slow=0.3,35s:s3:recover,40s:s4:leave","retries":2,"count-5xx":true,"check-ms":1000,"check":"http","outlier-5xx":3,"warmup-ms":5000,"slow-start-ms":8000,"slow-start-aggression":1.5}"#,
    // Caches and layer 4 connections (docs/model.md#caches-and-connections):
    // a crash empties a cache, a join starts cold, connections re-open and
    // close.
    r#"{"servers":5,"balancers":2,"cache-keys":150,"hit-cost":0.3,"layer":4,"conn-life-ms":7000,"events":"10s:s5:join,20s:s2:crash,30s:s2:recover,40s:s3:leave"}"#,
    r#"{"cache-keys":300,"load":1.6,"servers":5,"events":"20s:s5:join"}"#,
];

pub fn test() -> Result<(), String> {
    ensure_wasm_target()?;
    step("cargo fmt --check");
    run("cargo", &["fmt", "--all", "--check"])?;
    step("cargo clippy, warnings denied");
    run("cargo", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    crate::layers::check()?;
    step("cargo test (unit, property, theory and CLI tests)");
    run("cargo", &["test", "--workspace"])?;
    crate::docs::check(false)?;
    crate::conformance::conformance()?;
    step("core for wasm32-unknown-unknown without std");
    run(
        "cargo",
        &["build", "-p", "lbsim-core", "--no-default-features", "--target", "wasm32-unknown-unknown"],
    )?;
    determinism()?;
    crate::web::browser_tests()?;
    eprintln!("\nall checks passed");
    Ok(())
}

/// The same scenarios natively and in wasm under Node must give the same
/// report bytes.
fn determinism() -> Result<(), String> {
    step("determinism: native and wasm (Node) reports must be byte-identical");
    ensure_node()?;
    let (native, wasm) = harness_paths()?;
    let dir = root().join("target/determinism");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for (i, scenario) in DETERMINISM_SCENARIOS.iter().enumerate() {
        let file = dir.join(format!("scenario-{i}.json"));
        std::fs::write(&file, scenario).map_err(|e| e.to_string())?;
        let a = output(&native, &[], Some(&file))?;
        let b = output("node", &[&harness_script(), &wasm], Some(&file))?;
        if a != b {
            std::fs::write(dir.join(format!("native-{i}.json")), &a).map_err(|e| e.to_string())?;
            std::fs::write(dir.join(format!("wasm-{i}.json")), &b).map_err(|e| e.to_string())?;
            return Err(format!(
                "scenario {scenario}: native and wasm reports differ (see {})",
                dir.display()
            ));
        }
        eprintln!("  identical ({} bytes): {scenario}", a.len());
    }
    Ok(())
}

/// Builds the harness natively and for wasm; returns both paths.
pub fn harness_paths() -> Result<(String, String), String> {
    run("cargo", &["build", "--release", "-p", "lbsim-wasm-harness", "--bin", "lbsim-native-harness"])?;
    run(
        "cargo",
        &["build", "--release", "-p", "lbsim-wasm-harness", "--lib", "--target", "wasm32-unknown-unknown"],
    )?;
    let target = root().join("target");
    let native = target.join("release/lbsim-native-harness");
    let wasm = target.join("wasm32-unknown-unknown/release/lbsim_wasm_harness.wasm");
    for p in [&native, &wasm] {
        if !Path::new(p).exists() {
            return Err(format!("{} was not built", p.display()));
        }
    }
    Ok((native.display().to_string(), wasm.display().to_string()))
}

/// The Node side of the harness.
pub fn harness_script() -> String {
    root().join("crates/lbsim-wasm-harness/run.mjs").display().to_string()
}
