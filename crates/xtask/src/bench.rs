//! `cargo xtask bench`: the benchmarks whose figures the README quotes.

use crate::gate::{harness_paths, harness_script};
use crate::tools::{ensure_node, ensure_wasm_target, output, root, step};

/// Native vs wasm (Node/V8) time per algorithm on the same scenario, in one
/// run, alternating, median of `REPS`.
pub fn bench(_args: &[String]) -> Result<(), String> {
    ensure_wasm_target()?;
    ensure_node()?;
    let (native, wasm) = harness_paths()?;
    step("core: native vs wasm (Node), mixed preset, 1M requests, one algorithm at a time");
    let dir = root().join("target/bench");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    println!("{:18} {:>12} {:>12} {:>7}", "algorithm", "native ns/req", "wasm ns/req", "ratio");
    let requests = 1_000_000.0;
    for algorithm in lbsim_ids() {
        let file = dir.join(format!("{algorithm}.json"));
        std::fs::write(&file, format!(r#"{{"requests":1000000,"algorithms":["{algorithm}"]}}"#))
            .map_err(|e| e.to_string())?;
        let n: f64 =
            output(&native, &["--time", "5"], Some(&file))?.trim().parse().map_err(|_| "bad timing")?;
        let w: f64 = output("node", &[&harness_script(), &wasm, "--time", "5"], Some(&file))?
            .trim()
            .parse()
            .map_err(|_| "bad timing")?;
        println!("{algorithm:18} {:>12.1} {:>12.1} {:>7.2}", n * 1e6 / requests, w * 1e6 / requests, w / n);
    }
    Ok(())
}

fn lbsim_ids() -> Vec<&'static str> {
    lbsim_core::AlgorithmId::ALL.iter().map(|a| a.id()).collect()
}
