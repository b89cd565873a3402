//! The real balancers as processes: started in the foreground, waited for
//! until they listen, and stopped by their own pid.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The NGINX to hold lbsim to: `LBSIM_NGINX` when set (another build, or
/// a path that does not run, to see the suite refuse to pass without it),
/// else where Debian installs it, else `nginx` on the PATH.
pub(crate) fn nginx_path() -> PathBuf {
    if let Some(program) = std::env::var_os("LBSIM_NGINX") {
        return program.into();
    }
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .unwrap_or("nginx".into())
}

/// The HAProxy to hold lbsim to: `LBSIM_HAPROXY` when set, else `haproxy`
/// on the PATH.
pub(crate) fn haproxy_path() -> PathBuf {
    std::env::var_os("LBSIM_HAPROXY").map_or_else(|| "haproxy".into(), PathBuf::from)
}

/// Whether the program was named by `LBSIM_NGINX` or `LBSIM_HAPROXY`
/// (installing the package would not make it run).
pub(super) fn overridden(variable: &str) -> bool {
    std::env::var_os(variable).is_some()
}

/// NGINX in the foreground, its paths under `prefix`.
pub(crate) fn nginx_command(prefix: &Path) -> Command {
    let mut command = Command::new(nginx_path());
    command.arg("-p").arg(prefix).arg("-c").arg(prefix.join("nginx.conf"));
    command
}

/// A balancer running in the foreground, stopped by its own pid.
pub(crate) struct Running {
    child: Child,
}

impl Running {
    /// Starts `command` and waits (at most 10 s) until port `last`, its
    /// last front, answers; `dir` holds its logs.
    pub(crate) fn start(mut command: Command, dir: &Path, last: u16) -> Result<Running, String> {
        let program = command.get_program().to_string_lossy().into_owned();
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("could not start {program}: {e}"))?;
        let mut running = Running { child };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", last)).is_err() {
            if started.elapsed() > Duration::from_secs(10) {
                running.stop();
                return Err(format!("{program} did not listen within 10 s (see {})", dir.display()));
            }
            if let Ok(Some(status)) = running.child.try_wait() {
                return Err(format!("{program} exited at once ({status}; see {})", dir.display()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(running)
    }

    pub(crate) fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}
