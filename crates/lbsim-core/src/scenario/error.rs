//! Bad input, named: the field, the value and what is allowed.

use alloc::string::String;
use core::fmt;

/// Bad input: names the field, the value and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The field (URL key / CLI flag name).
    pub field: String,
    /// The offending value, as given.
    pub value: String,
    /// What is allowed, for example `1 to 1024 (number of servers)`.
    pub allowed: String,
}

/// How [`ScenarioError::unknown_key`] marks its `allowed` text.
pub(super) const UNKNOWN_KEY: &str = "a known key: ";

impl ScenarioError {
    /// Whether the key itself is unknown (rather than its value bad).
    pub fn is_unknown_key(&self) -> bool {
        self.allowed.starts_with(UNKNOWN_KEY)
    }
}

/// Shows echoed input escaped as Rust's `escape_debug` does (`\n`,
/// `\u{1b}`, `\'`), so a value can neither break the message's one line
/// nor reach a terminal as a control sequence. The field and the value are
/// input; the allowed text is ours but may quote input (a JSON parser's
/// message), so only what is unprintable in it is escaped.
impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(known) = self.allowed.strip_prefix(UNKNOWN_KEY) {
            return write!(f, "unknown key '{}'; known keys: {known}", self.field.escape_debug());
        }
        write!(
            f,
            "{}: '{}' is not allowed; allowed: {}",
            self.field.escape_debug(),
            self.value.escape_debug(),
            Escaped(&self.allowed)
        )
    }
}

/// Text with its unprintable characters (controls, bidirectional
/// overrides and the like) escaped as `escape_debug` does, and every
/// printable one, quotes and backslashes included, as it is.
#[derive(Clone, Copy, Debug)]
pub struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            match c {
                '\\' | '\'' | '"' => fmt::Write::write_char(f, c)?,
                _ => write!(f, "{}", c.escape_debug())?,
            }
        }
        Ok(())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ScenarioError {}
