//! `cargo xtask test`: the whole gate, in order. CI (`.ci/run`) runs
//! exactly this.
//!
//! Every part runs, or the gate fails: a part leaves the run only when it
//! is skipped by name (`--skip conformance`), never under `CI=true`, and
//! the last line counts the parts that passed, failed and were skipped.

use std::path::Path;

use crate::conformance::not_run;
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

/// A part of the gate, by the name `--skip` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Part {
    /// `cargo fmt --check`
    Fmt,
    /// `cargo clippy`, warnings denied
    Clippy,
    /// `cargo xtask layers`
    Layers,
    /// `cargo test --workspace`
    Tests,
    /// `cargo xtask docs-check`
    Docs,
    /// `cargo xtask conformance`: both `nginx` and `haproxy`
    Conformance,
    /// the conformance suite's NGINX cases and `nginx -t` checks
    Nginx,
    /// the conformance suite's HAProxy cases and `haproxy -c` checks
    Haproxy,
    /// `cargo xtask grpc-config`: gRPC's own parser (grpcio) over every
    /// rule's `lbsim config --for grpc`
    Grpc,
    /// `cargo xtask testbed`'s short run: latencies on the real NGINX
    /// and HAProxy against lbsim's prediction
    Testbed,
    /// the core built for wasm32-unknown-unknown without std
    NoStd,
    /// native and wasm reports byte-identical
    Determinism,
    /// the browser tests
    Browser,
}

/// The parts the gate counts, in the order it runs them (`conformance`
/// names two of them).
const COUNTED: [Part; 12] = [
    Part::Fmt,
    Part::Clippy,
    Part::Layers,
    Part::Tests,
    Part::Docs,
    Part::Nginx,
    Part::Haproxy,
    Part::Grpc,
    Part::Testbed,
    Part::NoStd,
    Part::Determinism,
    Part::Browser,
];

impl Part {
    fn name(self) -> &'static str {
        match self {
            Part::Fmt => "fmt",
            Part::Clippy => "clippy",
            Part::Layers => "layers",
            Part::Tests => "tests",
            Part::Docs => "docs",
            Part::Conformance => "conformance",
            Part::Nginx => "nginx",
            Part::Haproxy => "haproxy",
            Part::Grpc => "grpc",
            Part::Testbed => "testbed",
            Part::NoStd => "no-std",
            Part::Determinism => "determinism",
            Part::Browser => "browser",
        }
    }

    /// Whether `--skip` with these names leaves this counted part out.
    fn skipped_by(self, skip: &[Part]) -> bool {
        skip.contains(&self)
            || (matches!(self, Part::Nginx | Part::Haproxy) && skip.contains(&Part::Conformance))
    }
}

/// Refuses a skip under CI, where every part must run.
pub fn refuse_skips_in_ci(skip: &[Part]) -> Result<(), String> {
    if !skip.is_empty() && std::env::var("CI").is_ok_and(|v| v == "true") {
        let names: Vec<&str> = skip.iter().map(|p| p.name()).collect();
        return Err(format!("CI runs every part; --skip {} is refused when CI=true", names.join(",")));
    }
    Ok(())
}

/// What became of each counted part.
#[derive(Default)]
struct Tally {
    passed: Vec<&'static str>,
    failed: Vec<&'static str>,
    skipped: Vec<&'static str>,
}

impl Tally {
    /// The gate's last lines: the parts by name, then the counts.
    fn print(&self, not_reached: &[&str]) {
        let list = |names: &[&str]| if names.is_empty() { "none".to_string() } else { names.join(", ") };
        eprintln!(
            "\ngate: passed {}; failed {}; skipped by name {}; not reached {}",
            list(&self.passed),
            list(&self.failed),
            list(&self.skipped),
            list(not_reached)
        );
        eprintln!(
            "gate: {} passed, {} failed, {} skipped",
            self.passed.len(),
            self.failed.len(),
            self.skipped.len()
        );
    }
}

pub fn test(skip: &[Part]) -> Result<(), String> {
    refuse_skips_in_ci(skip)?;
    ensure_wasm_target()?;
    let mut tally = Tally::default();
    let mut parts = COUNTED.iter().copied().peekable();
    while let Some(part) = parts.next() {
        if part.skipped_by(skip) {
            step(&format!("{}: skipped by name (--skip)", part.name()));
            tally.skipped.push(part.name());
            continue;
        }
        // The conformance suite runs both balancers at once.
        let with_haproxy = part == Part::Nginx && parts.next_if(|p| *p == Part::Haproxy).is_some();
        let names: &[&'static str] = if with_haproxy { &["nginx", "haproxy"] } else { &[part.name()] };
        // A balancer that could not be had fails its own part; the other
        // ran and passed.
        let (failed, error): (Vec<&'static str>, _) = match run_part(part, with_haproxy) {
            Ok(missing) if missing.is_empty() => (Vec::new(), None),
            Ok(missing) => (missing.iter().map(|(name, _)| *name).collect(), Some(not_run(&missing))),
            Err(e) => (names.to_vec(), Some(e)),
        };
        tally.passed.extend(names.iter().filter(|n| !failed.contains(n)));
        if let Some(e) = error {
            tally.failed.extend(&failed);
            eprintln!("\nxtask: {e}");
            let rest: Vec<&str> = parts.map(Part::name).collect();
            tally.print(&rest);
            return Err(format!("the gate failed at {}", failed.join(" and ")));
        }
    }
    tally.print(&[]);
    Ok(())
}

/// Runs one part (`with_haproxy`: NGINX's and HAProxy's cases in one run
/// of the conformance suite); the balancers that could not be had, whose
/// cases did not run.
fn run_part(part: Part, with_haproxy: bool) -> Result<Vec<(&'static str, String)>, String> {
    let ran = |result: Result<(), String>| result.map(|()| Vec::new());
    match part {
        Part::Fmt => {
            step("cargo fmt --check");
            ran(run("cargo", &["fmt", "--all", "--check"]))
        }
        Part::Clippy => {
            step("cargo clippy, warnings denied");
            ran(run("cargo", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))
        }
        Part::Layers => ran(crate::layers::check()),
        Part::Tests => {
            step("cargo test (unit, property, theory and CLI tests)");
            ran(run("cargo", &["test", "--workspace"]))
        }
        Part::Docs => ran(crate::docs::check(false)),
        Part::NoStd => {
            step("core for wasm32-unknown-unknown without std");
            ran(run(
                "cargo",
                &["build", "-p", "lbsim-core", "--no-default-features", "--target", "wasm32-unknown-unknown"],
            ))
        }
        Part::Determinism => ran(determinism()),
        Part::Grpc => ran(crate::conformance::grpc_configs()),
        Part::Browser => ran(crate::web::browser_tests()),
        Part::Testbed => {
            step(
                "testbed: the mixed lab's latencies on the real NGINX and HAProxy against lbsim's prediction",
            );
            ran(crate::testbed::gate())
        }
        Part::Conformance | Part::Nginx | Part::Haproxy => {
            crate::conformance::run_balancers(crate::conformance::Balancers {
                nginx: part != Part::Haproxy,
                haproxy: part != Part::Nginx || with_haproxy,
            })
        }
    }
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
