//! docs/cli.md's exit-status table holds when standard output or standard
//! error is full (`/dev/full`), `/dev/null` or closed (`>&-`): 2 for bad
//! input, 1 when the output cannot be written, 0 when it is thrown away on
//! purpose (`/dev/null`, however opened: what `subprocess.DEVNULL` and
//! service managers give), never a panic (101).

use std::fs::File;
use std::process::{Command, Stdio};

fn full() -> File {
    File::options().write(true).open("/dev/full").expect("/dev/full")
}

/// `lbsim ARGS` with stdout and stderr as given; its exit status.
fn status(args: &[&str], stdout: Stdio, stderr: Stdio) -> Option<i32> {
    let out = lbsim().args(args).stdout(stdout).stderr(stderr).status().expect("lbsim runs");
    out.code()
}

/// The binary under test, as a plain command (its streams set by the test).
fn lbsim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lbsim"))
}

/// `lbsim ARGS` through `sh`, with standard output closed.
fn status_with_stdout_closed(args: &[&str]) -> Option<i32> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(r#"exec "$@" >&-"#)
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_lbsim"))
        .args(args)
        .output()
        .expect("sh runs");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    out.status.code()
}

#[test]
fn bad_input_exits_2_when_stderr_is_full() {
    assert_eq!(status(&["run", "--servers", "0"], Stdio::null(), full().into()), Some(2));
    assert_eq!(status(&["run", "--frobnicate"], Stdio::null(), full().into()), Some(2));
}

#[test]
fn unwritable_output_exits_1_when_stderr_is_full_too() {
    let args = ["run", "--requests", "10"];
    assert_eq!(status(&args, full().into(), full().into()), Some(1));
    assert_eq!(status(&args, full().into(), Stdio::null()), Some(1));
}

#[test]
fn help_and_version_into_a_full_stdout_exit_1() {
    assert_eq!(status(&["run", "--help"], full().into(), Stdio::null()), Some(1));
    assert_eq!(status(&["--version"], full().into(), Stdio::null()), Some(1));
    assert_eq!(status(&["run", "--help"], Stdio::null(), Stdio::null()), Some(0));
}

/// `/dev/null` opened for reading and writing, as Python's
/// `subprocess.DEVNULL` and Node's `stdio: 'ignore'` give it.
fn devnull_read_write() -> File {
    File::options().read(true).write(true).open("/dev/null").expect("/dev/null")
}

#[test]
fn stdout_on_a_read_write_dev_null_exits_0() {
    let args = ["run", "--requests", "10"];
    assert_eq!(status(&args, devnull_read_write().into(), Stdio::null()), Some(0));
    assert_eq!(status(&["run", "--help"], devnull_read_write().into(), Stdio::null()), Some(0));
    assert_eq!(status(&["run", "--servers", "0"], devnull_read_write().into(), Stdio::null()), Some(2));
}

/// A closed standard output cannot be told from a read-write `/dev/null`
/// (Rust's runtime opens one in its place): the output is lost, as with
/// every Unix tool, and the status says success unless the input was bad.
#[test]
fn closed_stdout_exits_0_and_bad_input_still_2() {
    assert_eq!(status_with_stdout_closed(&["run", "--requests", "10"]), Some(0));
    assert_eq!(status_with_stdout_closed(&["run", "--help"]), Some(0));
    assert_eq!(status_with_stdout_closed(&["run", "--servers", "0"]), Some(2), "bad input is still 2");
}

#[test]
fn a_reader_closing_the_pipe_early_is_success() {
    let mut child = lbsim()
        .args(["sweep", "--param", "seed=0..200:1", "--requests", "200"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("lbsim runs");
    drop(child.stdout.take());
    assert_eq!(child.wait().expect("lbsim exits").code(), Some(0));
}
