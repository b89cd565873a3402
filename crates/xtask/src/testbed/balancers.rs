//! The real balancer in front of the testbed's servers: its config, the
//! block `lbsim config` writes for the rule inside a whole file that
//! keeps the program's defaults (keep-alive to the client; NGINX's new
//! HTTP/1.0 connection per request upstream, HAProxy's kept and reused
//! server connections), and the program started and stopped by its pid
//! (the conformance suite's `processes.rs`).

use std::path::Path;
use std::process::Command;

use lbsim_core::config::{write, Key, Program, Request};
use lbsim_core::{AlgorithmId, Scenario};

use crate::conformance::processes::{haproxy_path, nginx_command, Running};

/// `program` running `rule` over `scenario`'s servers, listening on
/// `front`, its files under `dir`.
pub(super) fn start(
    program: Program,
    scenario: &Scenario,
    rule: AlgorithmId,
    front: u16,
    dir: &Path,
) -> Result<Running, String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("logs")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let request = Request { program, rule, full: false, key: Key::Arg("user".into()), port: front };
    let block = write(scenario, &request);
    match program {
        Program::Nginx => {
            std::fs::write(dir.join("nginx.conf"), nginx(dir, &block, front)).map_err(|e| e.to_string())?;
            Running::start(nginx_command(dir), dir, front)
        }
        _ => {
            let cfg = dir.join("haproxy.cfg");
            std::fs::write(&cfg, haproxy(dir, &block, front)).map_err(|e| e.to_string())?;
            let mut command = Command::new(haproxy_path());
            command.arg("-db").arg("-f").arg(&cfg);
            Running::start(command, dir, front)
        }
    }
}

/// NGINX with one worker (one balancer's counts, as lbsim's one copy),
/// the upstream block and the location its comments give. The read
/// timeout is raised from 60 s: a slow node's queue can hold a request
/// longer, and NGINX would answer 504 where the model waits.
fn nginx(dir: &Path, block: &str, front: u16) -> String {
    let p = dir.display();
    let upstream: String =
        block.lines().take_while(|l| !l.starts_with('}')).map(|l| format!("  {l}\n")).collect();
    let location: String =
        block.lines().filter_map(|l| l.strip_prefix("#     ")).map(|l| format!("{l} ")).collect();
    format!(
        "master_process off;\nworker_processes 1;\ndaemon off;\npid {p}/nginx.pid;\nerror_log {p}/logs/error.log warn;\n\
         events {{ worker_connections 16384; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {p}/client_body;\n  proxy_temp_path {p}/proxy;\n  \
         fastcgi_temp_path {p}/fastcgi;\n  uwsgi_temp_path {p}/uwsgi;\n  scgi_temp_path {p}/scgi;\n\
         {upstream}  }}\n  server {{ listen 127.0.0.1:{front}; location / {{ {location}proxy_read_timeout 300s; }} }}\n}}\n"
    )
}

/// HAProxy with one thread (one balancer's state), no connection limit
/// below the servers' (HAProxy would queue in front of them otherwise),
/// timeouts longer than any answer.
fn haproxy(dir: &Path, block: &str, front: u16) -> String {
    format!(
        "global\n    nbthread 1\n    maxconn 8000\n    pidfile {}/haproxy.pid\n\ndefaults\n    mode http\n    \
         maxconn 8000\n    timeout connect 2s\n    timeout client 300s\n    timeout server 300s\n\n\
         frontend front\n    bind 127.0.0.1:{front}\n    default_backend lbsim\n\n{block}",
        dir.display()
    )
}
