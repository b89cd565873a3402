//! Installing a balancer from Debian when it is missing, without starting
//! its packaged service.

use std::path::Path;
use std::process::Command;

use crate::tools::{have, run, step};

/// `program` (`version` prints its version), installed from Debian's
/// `package` if missing; `false`: not to be had here (skipped, loudly),
/// an error under CI.
pub(super) fn ensure(program: &str, package: &str, version: &str) -> Result<bool, String> {
    if have(program, version) {
        return Ok(true);
    }
    step(&format!("installing {package} (apt-get, once; its service is not started)"));
    let installed = install_without_starting(package);
    if installed.is_ok() && have(program, version) {
        return Ok(true);
    }
    let why = installed.err().unwrap_or_else(|| format!("{program} still does not run"));
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        return Err(format!("conformance: {package} is needed in CI and could not be installed: {why}"));
    }
    eprintln!("\n!!! conformance SKIPPED ({package}): it could not be installed here ({why}); CI runs it\n");
    Ok(false)
}

/// `apt-get install` with a `policy-rc.d` that answers 101, so no packaged
/// service starts (and none takes the ports).
fn install_without_starting(package: &str) -> Result<(), String> {
    let policy = Path::new("/usr/sbin/policy-rc.d");
    let ours = !policy.exists();
    if ours {
        std::fs::write(policy, "#!/bin/sh\nexit 101\n").map_err(|e| format!("{}: {e}", policy.display()))?;
        let _ = Command::new("chmod").arg("755").arg(policy).status();
    }
    let result = run("apt-get", &["install", "-y", "-q", "--no-install-recommends", package]).or_else(|_| {
        run("apt-get", &["update", "-q"])?;
        run("apt-get", &["install", "-y", "-q", "--no-install-recommends", package])
    });
    if ours {
        let _ = std::fs::remove_file(policy);
    }
    result
}
