//! `cargo xtask conformance`: the real NGINX decides, not our reading of
//! its source. For each case the suite writes an NGINX config, starts
//! Debian's `nginx-light` in the foreground on loopback high ports under a
//! private prefix (one process, so one balancer's state), sends a bounded
//! sequence of requests, reads which backend answered each one, and
//! compares that, request by request, with what `lbsim trace` predicts for
//! the same pool.
//!
//! The backends are server blocks of the same NGINX that answer their own
//! `address:port`. NGINX is installed when missing (as root: `apt-get
//! install nginx-light`, with a `policy-rc.d` that keeps the packaged
//! service from starting). Where it cannot be had, CI (`CI=true`) fails
//! and elsewhere the suite is skipped with a loud line.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::tools::{have, output, root, run, step};

/// The backends' ports; the balancers listen from `FRONT`.
const BACKENDS: [u16; 7] = [18281, 18282, 18283, 18284, 18285, 18286, 18287];
const FRONT: u16 = 18301;

/// One comparison: a rule over a pool, the requests' keys (the user whose
/// `?u=` each request carries; the rule may ignore it), the upstream block
/// that realises the rule in NGINX, and the `lbsim trace` flags that
/// predict it.
struct Case {
    name: &'static str,
    /// The upstream block's first lines (the balancing directive), or none
    /// for NGINX's default, smooth weighted round robin.
    directive: &'static str,
    weights: &'static [u32],
    picks: usize,
    trace: &'static [&'static str],
}

/// The cases: smooth weighted round robin (NGINX's default) for several
/// weightings, and `hash $arg_u consistent` over four, five and seven
/// servers with user-1 .. user-2000 as keys (`lbsim trace` sends pick i to
/// user i+1, `?u=user-{i+1}` here).
const CASES: &[Case] = &[
    Case {
        name: "round robin 5,1,1",
        directive: "",
        weights: &[5, 1, 1],
        picks: 70,
        trace: &["--algorithm", "round-robin"],
    },
    Case {
        name: "round robin 3,2,1,1,4",
        directive: "",
        weights: &[3, 2, 1, 1, 4],
        picks: 110,
        trace: &["--algorithm", "round-robin"],
    },
    Case {
        name: "round robin 1,1,1,1",
        directive: "",
        weights: &[1, 1, 1, 1],
        picks: 40,
        trace: &["--algorithm", "round-robin"],
    },
    Case {
        name: "round robin 7,3,2",
        directive: "",
        weights: &[7, 3, 2],
        picks: 120,
        trace: &["--algorithm", "round-robin"],
    },
    Case {
        name: "hash $arg_u consistent, 4 servers",
        directive: "hash $arg_u consistent;",
        weights: &[1, 1, 1, 1],
        picks: 2000,
        trace: &["--algorithm", "consistent-hash", "--ring", "nginx"],
    },
    Case {
        name: "hash $arg_u consistent, 5 servers",
        directive: "hash $arg_u consistent;",
        weights: &[1, 1, 1, 1, 1],
        picks: 2000,
        trace: &["--algorithm", "consistent-hash", "--ring", "nginx"],
    },
    Case {
        name: "hash $arg_u consistent, 7 servers weighted 2,1,1,3,1,1,1",
        directive: "hash $arg_u consistent;",
        weights: &[2, 1, 1, 3, 1, 1, 1],
        picks: 2000,
        trace: &["--algorithm", "consistent-hash", "--ring", "nginx"],
    },
];

fn address(port: u16) -> String {
    format!("127.0.0.1:{port}")
}

/// Runs every case against the real NGINX.
pub fn conformance() -> Result<(), String> {
    step("conformance: the real NGINX against lbsim trace, request by request");
    if !ensure_nginx()? {
        return Ok(());
    }
    run("cargo", &["build", "-q", "-p", "lbsim-cli"])?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    let lbsim = target.join("debug/lbsim");
    let prefix = target.join("conformance/nginx");
    let _ = std::fs::remove_dir_all(&prefix);
    std::fs::create_dir_all(prefix.join("logs")).map_err(|e| e.to_string())?;
    std::fs::write(prefix.join("nginx.conf"), config(&prefix)).map_err(|e| e.to_string())?;
    let mut nginx = Running::start(&prefix)?;
    let mut agree = 0;
    for (i, case) in CASES.iter().enumerate() {
        let front = FRONT + i as u16;
        let seen = nginx.sequence(front, case.picks)?;
        let predicted = predict(&lbsim, case)?;
        if let Some(at) = seen.iter().zip(&predicted).position(|(a, b)| a != b) {
            return Err(format!(
                "nginx, {}: request {} (user-{}) went to {} in NGINX, to {} in lbsim trace",
                case.name,
                at + 1,
                at + 1,
                seen[at],
                predicted[at]
            ));
        }
        if seen.len() != predicted.len() {
            return Err(format!(
                "nginx, {}: {} answers against {} picks",
                case.name,
                seen.len(),
                predicted.len()
            ));
        }
        eprintln!("  {}: {} requests agree", case.name, seen.len());
        agree += seen.len();
    }
    nginx.stop();
    eprintln!("nginx: {agree} agree");
    Ok(())
}

/// The whole config: one process, paths under `prefix`, the backends, and
/// one balancer per case.
fn config(prefix: &Path) -> String {
    let p = prefix.display();
    let mut out = format!(
        "master_process off;\nworker_processes 1;\ndaemon off;\npid {p}/nginx.pid;\nerror_log {p}/logs/error.log warn;\n\
         events {{ worker_connections 64; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {p}/client_body;\n  proxy_temp_path {p}/proxy;\n  \
         fastcgi_temp_path {p}/fastcgi;\n  uwsgi_temp_path {p}/uwsgi;\n  scgi_temp_path {p}/scgi;\n"
    );
    for port in BACKENDS {
        out += &format!("  server {{ listen {a}; return 200 \"{a}\"; }}\n", a = address(port));
    }
    for (i, case) in CASES.iter().enumerate() {
        out += &format!("  upstream case{i} {{\n    {}\n", case.directive);
        for (&port, &w) in BACKENDS.iter().zip(case.weights) {
            out += &format!("    server {} weight={w};\n", address(port));
        }
        out += &format!(
            "  }}\n  server {{ listen {}; location / {{ proxy_pass http://case{i}; }} }}\n",
            address(FRONT + i as u16)
        );
    }
    out + "}\n"
}

/// What `lbsim trace` predicts for a case: the server of each pick.
fn predict(lbsim: &Path, case: &Case) -> Result<Vec<String>, String> {
    let names: Vec<String> = BACKENDS.iter().take(case.weights.len()).map(|&p| address(p)).collect();
    let weights: Vec<String> = case.weights.iter().map(u32::to_string).collect();
    let (names, weights, picks) = (names.join(","), weights.join(","), case.picks.to_string());
    let mut args: Vec<&str> = vec!["trace"];
    args.extend(case.trace);
    args.extend(["--names", &names, "--weights", &weights, "--picks", &picks, "--format", "json"]);
    let text = output(&lbsim.to_string_lossy(), &args, None)?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("lbsim trace: {e}"))?;
    let picks = json["picks"].as_array().ok_or("lbsim trace printed no picks")?;
    Ok(picks.iter().map(|p| p.as_str().unwrap_or_default().to_string()).collect())
}

/// NGINX running in the foreground, stopped by its own pid.
struct Running {
    child: Child,
}

impl Running {
    fn start(prefix: &Path) -> Result<Running, String> {
        let conf = prefix.join("nginx.conf");
        let child = Command::new(nginx_path())
            .arg("-p")
            .arg(prefix)
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("could not start nginx: {e}"))?;
        let mut running = Running { child };
        // Up once every balancer answers (at most 10 s).
        let started = Instant::now();
        let last = FRONT + CASES.len() as u16 - 1;
        while TcpStream::connect(("127.0.0.1", last)).is_err() {
            if started.elapsed() > Duration::from_secs(10) {
                running.stop();
                return Err(format!(
                    "nginx did not listen within 10 s (see {}/logs/error.log)",
                    prefix.display()
                ));
            }
            if let Ok(Some(status)) = running.child.try_wait() {
                return Err(format!(
                    "nginx exited at once ({status}; see {}/logs/error.log)",
                    prefix.display()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(running)
    }

    /// The backend that answers each of `n` requests to `front`, request i
    /// carrying `?u=user-{i+1}`.
    fn sequence(&mut self, front: u16, n: usize) -> Result<Vec<String>, String> {
        (1..=n).map(|user| get(front, &format!("/?u=user-{user}"))).collect()
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One HTTP/1.0 GET on loopback, its body (bounded: 2 s, 4 KiB).
fn get(port: u16, path: &str) -> Result<String, String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream =
        TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map_err(|e| format!("{addr}: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).map_err(|e| e.to_string())?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: conformance\r\n\r\n").map_err(|e| e.to_string())?;
    let mut response = Vec::new();
    stream.take(4096).read_to_end(&mut response).map_err(|e| format!("{addr}{path}: {e}"))?;
    let text = String::from_utf8_lossy(&response);
    let (head, body) =
        text.split_once("\r\n\r\n").ok_or_else(|| format!("{addr}{path}: no HTTP response"))?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!("{addr}{path}: {}", head.lines().next().unwrap_or_default()));
    }
    Ok(body.trim().to_string())
}

fn nginx_path() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .unwrap_or("nginx".into())
}

/// NGINX, installed if missing; `false`: not to be had here (skipped,
/// loudly), an error under CI.
fn ensure_nginx() -> Result<bool, String> {
    if have(&nginx_path().to_string_lossy(), "-v") {
        return Ok(true);
    }
    step("installing nginx-light (apt-get, once; its service is not started)");
    let installed = install_without_starting("nginx-light");
    if installed.is_ok() && have(&nginx_path().to_string_lossy(), "-v") {
        return Ok(true);
    }
    let why = installed.err().unwrap_or_else(|| "nginx still does not run".into());
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        return Err(format!("conformance: NGINX is needed in CI and could not be installed: {why}"));
    }
    eprintln!("\n!!! conformance SKIPPED: NGINX could not be installed here ({why}); CI runs it\n");
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
