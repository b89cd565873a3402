//! What a command gives back: its output, written in one go, or why it
//! failed, and the exit status that follows (docs/cli.md's table).

use std::io::{self, Write};
use std::process::ExitCode;

use lbsim_core::ScenarioError;

/// Why a command failed, and so its exit status.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: exit status 2, one line naming field, value and range.
    Input(String),
    /// The output could not be written: exit status 1.
    Output(io::Error),
}

impl From<ScenarioError> for Failure {
    fn from(e: ScenarioError) -> Self {
        Failure::Input(e.to_string())
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Output(e)
    }
}

/// An input error in the core's shape: field, value, what is allowed.
pub fn bad(field: &str, value: &str, allowed: impl Into<String>) -> Failure {
    Failure::from(ScenarioError { field: field.into(), value: value.into(), allowed: allowed.into() })
}

/// Writes `text` to standard output in one go.
pub fn print(text: &str) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// One line on standard error. When even that cannot be written there is
/// no one left to tell, and the exit status still says what happened.
pub fn complain(message: &str) {
    let _ = writeln!(io::stderr().lock(), "lbsim: {message}");
}

/// The exit status of docs/cli.md's table, with the message it owes.
pub fn exit_status(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(message)) => {
            complain(&message);
            ExitCode::from(2)
        }
        // A closed pipe (`lbsim run | head`) is the reader's choice, not a failure.
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(e)) => {
            complain(&format!("cannot write the output: {e}"));
            ExitCode::from(1)
        }
    }
}
