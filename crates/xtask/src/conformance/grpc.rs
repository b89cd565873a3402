//! gRPC's own parser over `lbsim config --for grpc`: gRPC's Python package
//! `grpcio` (gRPC C-core's service config parser) makes a channel with
//! each rule's config as its default service config. C-core refuses an
//! invalid one when the channel is made, and the first call then fails
//! with INVALID_ARGUMENT naming the config's error; a config it takes
//! fails that call otherwise (nothing listens), which is all we ask of it.
//!
//! Each run first shows the check can fail: a duration written as a
//! number and a misspelt policy must be refused. gRPC ignores a setting it
//! does not know, so a misspelt setting is held elsewhere: by the core's
//! tests against grpc-go's names in `tests/oracles/grpc_service_config.txt`.
//!
//! `grpcio` is installed from PyPI into a virtual environment under
//! `target/grpcio` (pip, once; Debian's `python3-venv` first when Python
//! cannot make one).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::tools::{have, output, run, run_command, step};

/// The `grpcio` the check runs: one whose C-core has `weighted_round_robin`
/// (gRFC A58) and ring hash's `requestHashHeader` (gRFC A76).
const GRPCIO: &str = "1.85.4";

/// Makes a channel per config (label, JSON) read from the file named
/// first, and prints for each `label<TAB>taken` or `label<TAB>refused<TAB>why`.
const PARSE: &str = r#"
import json, sys, grpc
for label, config in json.load(open(sys.argv[1])):
    channel = grpc.insecure_channel("127.0.0.1:9", options=[("grpc.service_config", config)])
    try:
        channel.unary_unary("/lbsim.Check/Config")(b"", timeout=2)
        verdict = "taken"
    except grpc.RpcError as e:
        refused = e.code() == grpc.StatusCode.INVALID_ARGUMENT and "service config" in (e.details() or "")
        verdict = "refused\t" + (e.details() or "").replace("\n", " ") if refused else "taken"
    channel.close()
    print(label + "\t" + verdict, flush=True)
"#;

/// Every rule's `lbsim config --for grpc --full` taken by gRPC's parser,
/// and the broken ones refused.
pub fn check(lbsim: &Path, target: &Path) -> Result<(), String> {
    step("grpc: gRPC's own parser (grpcio) takes every rule's `lbsim config --for grpc`");
    let python = ensure_grpcio(target)?;
    let lbsim = lbsim.to_string_lossy();
    let mut configs: Vec<(String, String)> = Vec::new();
    for rule in lbsim_core::AlgorithmId::ALL {
        for key in ["arg:user", "header:X-User"] {
            let text = output(
                &lbsim,
                &[
                    "config",
                    "--full",
                    "--for",
                    "grpc",
                    "--algorithms",
                    rule.id(),
                    "--key",
                    key,
                    "--weights",
                    "2,1,1,3",
                    "--blackout",
                    "2500",
                    "--report-period",
                    "1500",
                    "--out-of-band",
                    "true",
                    "--error-penalty",
                    "0.5",
                ],
                None,
            )?;
            let json: String =
                text.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect();
            configs.push((format!("{} --key {key}", rule.id()), json));
        }
    }
    // The breaks the check must see: without them, a parser that took
    // anything would pass every config.
    let wrr = configs
        .iter()
        .find(|(label, _)| label.starts_with("grpc-wrr "))
        .map(|(_, json)| json.clone())
        .ok_or("no grpc-wrr config")?;
    let broken = [
        (
            "a duration written as a number",
            wrr.replace("\"blackoutPeriod\": \"2.5s\"", "\"blackoutPeriod\": 2.5"),
        ),
        ("a misspelt policy", wrr.replace("weighted_round_robin", "weighted_round_robn")),
    ];
    for (why, json) in &broken {
        if json == &wrr {
            return Err(format!("grpc: the break ({why}) changed nothing in {wrr}"));
        }
    }
    let mut all = configs.clone();
    all.extend(broken.iter().map(|(why, json)| (format!("broken: {why}"), json.clone())));
    let dir = target.join("conformance/grpc");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let input = dir.join("configs.json");
    let list: Vec<[&str; 2]> = all.iter().map(|(l, j)| [l.as_str(), j.as_str()]).collect();
    std::fs::write(&input, serde_json::to_string(&list).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let script = dir.join("parse.py");
    std::fs::write(&script, PARSE).map_err(|e| e.to_string())?;
    let seen =
        output(&python.to_string_lossy(), &[&script.to_string_lossy(), &input.to_string_lossy()], None)?;
    let verdicts: Vec<(&str, &str)> = seen.lines().filter_map(|l| l.split_once('\t')).collect();
    if verdicts.len() != all.len() {
        return Err(format!("grpc: {} verdicts for {} configs:\n{seen}", verdicts.len(), all.len()));
    }
    for ((label, json), (_, verdict)) in all.iter().zip(&verdicts) {
        let refused = verdict.starts_with("refused");
        if label.starts_with("broken: ") && !refused {
            return Err(format!("grpc: gRPC took {label}, so the check cannot fail:\n{json}"));
        }
        if !label.starts_with("broken: ") && refused {
            return Err(format!("lbsim config --for grpc, {label}: gRPC refuses it: {verdict}\n{json}"));
        }
    }
    eprintln!(
        "grpc: {} configs taken by grpcio {GRPCIO}; {} broken ones refused",
        configs.len(),
        broken.len()
    );
    Ok(())
}

/// The virtual environment's Python, with `grpcio` at [`GRPCIO`].
fn ensure_grpcio(target: &Path) -> Result<PathBuf, String> {
    let venv = target.join("grpcio");
    let python = venv.join("bin/python");
    let has = |python: &Path| {
        Command::new(python)
            .args(["-c", &format!("import grpc; assert grpc.__version__ == '{GRPCIO}'")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if has(&python) {
        return Ok(python);
    }
    step(&format!("installing grpcio=={GRPCIO} from PyPI into {} (pip, once)", venv.display()));
    let venv_text = venv.to_string_lossy().into_owned();
    if !have("python3", "--version") || run("python3", &["-m", "venv", &venv_text]).is_err() {
        step("installing python3-venv (apt-get, once)");
        run("apt-get", &["install", "-y", "-q", "--no-install-recommends", "python3-venv"]).or_else(
            |_| {
                run("apt-get", &["update", "-q"])?;
                run("apt-get", &["install", "-y", "-q", "--no-install-recommends", "python3-venv"])
            },
        )?;
        run("python3", &["-m", "venv", &venv_text])?;
    }
    run_command(Command::new(venv.join("bin/pip")).args([
        "install",
        "-q",
        "--disable-pip-version-check",
        &format!("grpcio=={GRPCIO}"),
    ]))?;
    if has(&python) {
        Ok(python)
    } else {
        Err(format!("grpcio {GRPCIO} was installed into {} but does not import", venv.display()))
    }
}
