//! The playground page: `cargo xtask build` (a deployable `dist/`),
//! `cargo xtask serve` (`trunk serve` on 127.0.0.1:8080, rebuilding on edits), the browser
//! tests `cargo xtask test` ends with, and the page benchmark.
//!
//! Each installs on first use what it needs and says so: the wasm target,
//! Trunk, the wasm-bindgen CLI at the version in `Cargo.lock`, Chromium
//! from Debian's packages and the npm packages of `package-lock.json`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::tools::{ensure_node, ensure_wasm_target, have, output, root, run, run_command, step};

/// Trunk 0.22 needs a newer rustc than the one the machines have.
const TRUNK_VERSION: &str = "0.21.14";
/// Debian's Chromium, which Playwright drives (it downloads no browser).
const CHROMIUM: &str = "/usr/bin/chromium";
/// Where `serve` listens.
const ADDRESS: &str = "127.0.0.1";
const PORT: &str = "8080";
/// Where the deployed page lives (`https://example.org/lbsim/`): link
/// previews name their image by an absolute address, which only the
/// deployer knows (docs/embedding.md#link-previews). Without it the
/// previews have no image.
const PUBLIC_URL: &str = "LBSIM_PUBLIC_URL";

/// The version of a tool as `tool --version` prints it, if it runs.
fn version_of(program: &str) -> Option<String> {
    let out = Command::new(program).arg("--version").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The `wasm-bindgen` version `Cargo.lock` holds: the CLI must match it
/// exactly, or Trunk tries to download one (and fails offline).
fn locked_wasm_bindgen() -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).map_err(|e| format!("Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines.next().and_then(|l| l.trim().strip_prefix("version = \"")) {
                return Ok(v.trim_end_matches('"').to_string());
            }
        }
    }
    Err("Cargo.lock has no wasm-bindgen entry".into())
}

fn ensure_trunk() -> Result<(), String> {
    if version_of("trunk").is_some_and(|v| v.split_whitespace().nth(1) == Some(TRUNK_VERSION)) {
        return Ok(());
    }
    step(&format!("installing Trunk {TRUNK_VERSION} (cargo install, once; about 10 minutes on 2 cores)"));
    run("cargo", &["install", "trunk", "--version", TRUNK_VERSION, "--locked"])
}

fn ensure_wasm_bindgen() -> Result<(), String> {
    let locked = locked_wasm_bindgen()?;
    if version_of("wasm-bindgen").is_some_and(|v| v.split_whitespace().nth(1) == Some(locked.as_str())) {
        return Ok(());
    }
    step(&format!(
        "installing the wasm-bindgen CLI {locked}, the version in Cargo.lock (cargo install, once; about 4 minutes)"
    ));
    // `--locked` fails for this version: one of its locked dependencies is
    // no longer published.
    run("cargo", &["install", "wasm-bindgen-cli", "--version", &format!("={locked}")])
}

fn ensure_chromium() -> Result<(), String> {
    if Path::new(CHROMIUM).exists() {
        return Ok(());
    }
    step("installing Chromium from Debian's packages (apt-get, once)");
    let sudo = output("id", &["-u"], None).map(|u| u.trim() != "0").unwrap_or(false);
    let apt = |args: &[&str]| {
        if sudo {
            // -n: fail rather than wait for a password nobody will type.
            let mut all = vec!["-n", "apt-get"];
            all.extend_from_slice(args);
            run("sudo", &all)
        } else {
            run("apt-get", args)
        }
    };
    apt(&["update"])?;
    apt(&["install", "-y", "chromium"])?;
    if Path::new(CHROMIUM).exists() {
        Ok(())
    } else {
        Err(format!("Chromium was installed but {CHROMIUM} is missing"))
    }
}

fn ensure_npm_packages() -> Result<(), String> {
    // Every package the tests import; a checkout that gained one since
    // its last `npm ci` installs again.
    let installed = ["playwright-core", "axe-core", "binaryen"]
        .iter()
        .all(|p| root().join("node_modules").join(p).join("package.json").exists());
    if installed {
        return Ok(());
    }
    if !have("npm", "--version") {
        return Err("npm is needed for the browser tests; install Node.js 20 with npm".into());
    }
    step("installing the browser tests' npm packages from package-lock.json (npm ci, once)");
    run("npm", &["ci", "--no-audit", "--no-fund"])
}

/// Writes a deployable `dist/`: relative URLs only, so it works from any
/// sub-path of any static host; with `LBSIM_PUBLIC_URL` set, the link
/// previews' image tags name it.
pub fn build() -> Result<PathBuf, String> {
    ensure_wasm_target()?;
    ensure_trunk()?;
    ensure_wasm_bindgen()?;
    // Minified HTML and CSS for what readers download (the served
    // development build is not minified: its live-reload script is admitted
    // by the exact hash of its text).
    step("trunk build --release --minify true --public-url ./ (writes dist/)");
    run("trunk", &["build", "--release", "--minify", "true", "--public-url", "./"])?;
    let dist = root().join("dist");
    if !dist.join("index.html").exists() {
        return Err("trunk build wrote no dist/index.html".into());
    }
    // What Trunk cannot do: minify wasm-bindgen's glue (its minifier gives
    // up on it), drop the module's name section, and write the integrity
    // hashes again for both.
    ensure_npm_packages()?;
    let public_url = std::env::var(PUBLIC_URL).ok().filter(|u| !u.trim().is_empty());
    let mut finish = vec!["web/finish.mjs".to_string(), dist.display().to_string()];
    if let Some(url) = &public_url {
        finish.extend(["--public-url".to_string(), url.trim().to_string()]);
    }
    step(&format!(
        "node {} (terser on the JavaScript, wasm-opt -Os and the name section dropped, integrity hashes, {})",
        finish.join(" "),
        match &public_url {
            Some(_) => format!("link previews with their image, from {PUBLIC_URL}"),
            None =>
                format!("link previews without an image: set {PUBLIC_URL} to the deployed address for one"),
        }
    ));
    let finish: Vec<&str> = finish.iter().map(String::as_str).collect();
    run("node", &finish)?;
    Ok(dist)
}

/// Serves the page on 127.0.0.1:8080 with `trunk serve`, as Trunk apps
/// do: it builds, watches the sources, rebuilds on a change and reloads
/// the page, until interrupted. Nothing else is needed (no Python).
pub fn serve() -> Result<(), String> {
    ensure_wasm_target()?;
    ensure_trunk()?;
    ensure_wasm_bindgen()?;
    step(&format!(
        "trunk serve --release on http://{ADDRESS}:{PORT}/ (rebuilds and reloads on every edit; Ctrl-C stops)"
    ));
    // Its own output directory: `trunk serve` writes a development build
    // (with the live-reload client, at the root path) that must never
    // replace the deployable dist/.
    run(
        "trunk",
        &[
            "serve",
            "--release",
            "--address",
            ADDRESS,
            "--port",
            PORT,
            "--public-url",
            "/",
            "--dist",
            "target/serve",
        ],
    )
}

/// The native harness, to hold the page's numbers against.
fn native_harness() -> Result<String, String> {
    run("cargo", &["build", "--release", "-p", "lbsim-wasm-harness", "--bin", "lbsim-native-harness"])?;
    let path = root().join("target/release/lbsim-native-harness");
    if path.exists() {
        Ok(path.display().to_string())
    } else {
        Err(format!("{} was not built", path.display()))
    }
}

/// The `lbsim` CLI (the debug build `cargo test` already made), whose
/// `run --url` must give the page's numbers for the same link.
fn cli() -> Result<String, String> {
    run("cargo", &["build", "-p", "lbsim-cli", "--bin", "lbsim"])?;
    let path = root().join("target/debug/lbsim");
    if path.exists() {
        Ok(path.display().to_string())
    } else {
        Err(format!("{} was not built", path.display()))
    }
}

/// Builds `dist/`, then runs `node` on `script` with what it needs in the
/// environment.
fn node_with_browser(args: &[&str]) -> Result<(), String> {
    nodes_with_browser(&[args])
}

/// Builds `dist/` once, then runs `node` with each of `runs` in turn.
fn nodes_with_browser(runs: &[&[&str]]) -> Result<(), String> {
    let dist = build()?;
    ensure_chromium()?;
    ensure_node()?;
    ensure_npm_packages()?;
    let native = native_harness()?;
    let cli = cli()?;
    for args in runs {
        run_command(
            Command::new("node")
                .args(*args)
                .current_dir(root())
                .env("LBSIM_DIST", &dist)
                .env("LBSIM_NATIVE", &native)
                .env("LBSIM_CLI", &cli)
                .env("LBSIM_CHROMIUM", CHROMIUM)
                .env("LBSIM_OUTPUT", root().join("test-output")),
        )?;
    }
    Ok(())
}

/// Browser tests in headless Chromium against the built `dist/`;
/// screenshots go to `test-output/`.
pub fn browser_tests() -> Result<(), String> {
    browser(&[])
}

/// `cargo xtask browser [FILE...]`: the browser tests of the files given
/// (all of `tests/` without any), after building `dist/`, for working on
/// the page without the rest of the gate.
pub fn browser(files: &[String]) -> Result<(), String> {
    step("browser tests: headless Chromium against dist/ (screenshots in test-output/)");
    let mut args = vec!["--test", "--test-concurrency=1"];
    if files.is_empty() {
        args.push("tests/");
    }
    args.extend(files.iter().map(String::as_str));
    node_with_browser(&args)
}

/// The page's performance figures in headless Chromium: input change to
/// redrawn plots (median of 20), first plot after navigation, bytes
/// transferred gzipped (`cargo xtask bench page`).
pub fn bench_page() -> Result<(), String> {
    step("page: input to redrawn plots, first plot, bytes transferred (headless Chromium)");
    // Then the "Your traffic" panel: a 1M-line log from the pick to every plot.
    nodes_with_browser(&[&["tests/support/bench-page.mjs"], &["tests/support/bench-traffic.mjs"]])
}
