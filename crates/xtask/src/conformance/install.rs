//! Installing a balancer from Debian when it is missing, without starting
//! its packaged service.

use std::path::Path;
use std::process::Command;

use super::processes::overridden;
use crate::tools::{have, run, step};

/// `program` (`version` prints its version), installed from Debian's
/// `package` if missing; the error says why it cannot be had here (the
/// caller fails the run for it unless the balancer was skipped by name).
/// `variable` is the environment variable that may name the program: one
/// named there that does not run is not installed over.
pub(crate) fn ensure(program: &str, package: &str, version: &str, variable: &str) -> Result<(), String> {
    if have(program, version) {
        return Ok(());
    }
    if overridden(variable) {
        return Err(format!("`{program}` (named by {variable}) does not run"));
    }
    step(&format!("installing {package} (apt-get, once; its service is not started)"));
    let installed = install_without_starting(package);
    if installed.is_ok() && have(program, version) {
        return Ok(());
    }
    Err(installed.err().unwrap_or_else(|| format!("{package} was installed but `{program}` does not run")))
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
