//! Running commands and installing the tools the gate needs.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (the parent of `crates/xtask`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).map(Path::to_path_buf).unwrap_or_default()
}

/// Prints a step heading, as people and CI logs read it.
pub fn step(what: &str) {
    eprintln!("\n==> {what}");
}

/// Runs a command in the workspace root; an error names it.
pub fn run(program: &str, args: &[&str]) -> Result<(), String> {
    run_in(&root(), program, args)
}

/// Runs a command in `dir`; an error names it.
pub fn run_in(dir: &Path, program: &str, args: &[&str]) -> Result<(), String> {
    let mut command = Command::new(program);
    command.args(args).current_dir(dir);
    run_command(&mut command)
}

/// Runs a prepared command (arguments, directory, environment set); an
/// error names it.
pub fn run_command(command: &mut Command) -> Result<(), String> {
    let program = command.get_program().to_string_lossy().into_owned();
    let args: Vec<String> = command.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
    let status = command.status().map_err(|e| format!("could not start `{program}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

/// Runs a command and returns its standard output.
pub fn output(program: &str, args: &[&str], stdin: Option<&Path>) -> Result<String, String> {
    let mut command = Command::new(program);
    command.args(args).current_dir(root());
    if let Some(file) = stdin {
        let file = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
        command.stdin(file);
    }
    let out = command.output().map_err(|e| format!("could not start `{program}`: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`{program} {}` failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("`{program}` printed non-UTF-8: {e}"))
}

/// Whether `program` runs at all.
pub fn have(program: &str, version_arg: &str) -> bool {
    Command::new(program).arg(version_arg).output().is_ok_and(|o| o.status.success())
}

/// Adds the wasm target with rustup unless it is there.
pub fn ensure_wasm_target() -> Result<(), String> {
    let installed = output("rustup", &["target", "list", "--installed"], None)?;
    if !installed.lines().any(|l| l.trim() == "wasm32-unknown-unknown") {
        step("installing the wasm32-unknown-unknown target (rustup, once)");
        run("rustup", &["target", "add", "wasm32-unknown-unknown"])?;
    }
    Ok(())
}

/// Node.js, which runs the wasm harness.
pub fn ensure_node() -> Result<(), String> {
    if have("node", "--version") {
        return Ok(());
    }
    Err("Node.js is needed to run the core's wasm build; install it (Debian: apt-get install nodejs)".into())
}
