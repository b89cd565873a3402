//! Bad input, named: the field, the value and what is allowed.

use alloc::string::{String, ToString};
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
/// nor reach a terminal as a control sequence, and cut ([`Echo`]), so a
/// 200 KB value makes a line a reader can take in. The field and the value
/// are input; the allowed text is ours but may quote input (a JSON
/// parser's message), so only what is unprintable in it is escaped.
impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(known) = self.allowed.strip_prefix(UNKNOWN_KEY) {
            return write!(f, "unknown key {}; known keys: {known}", Echo::quoted(&self.field));
        }
        let (field, value) = (Echo::bare(&self.field), Echo::quoted(&self.value));
        write!(f, "{field}: {value} is not allowed; allowed: {}", Escaped(&self.allowed))
    }
}

/// The most characters of one echoed key or value a message shows: a link
/// or a flag may be of any length, and what a message quotes of it is
/// enough to find it (docs/embedding.md#share-links).
pub const MAX_ECHOED: usize = 80;

/// Echoed input, escaped as `escape_debug` does, and cut after
/// [`MAX_ECHOED`] characters with how many more there were: a value in
/// quotes, `'s1,s2,s3…' (and 199,920 more characters)`, a key bare.
#[derive(Clone, Copy, Debug)]
pub struct Echo<'a> {
    text: &'a str,
    quote: &'static str,
}

impl<'a> Echo<'a> {
    /// A value, in single quotes.
    pub fn quoted(text: &'a str) -> Echo<'a> {
        Echo { text, quote: "'" }
    }

    /// A key, as it is.
    pub fn bare(text: &'a str) -> Echo<'a> {
        Echo { text, quote: "" }
    }
}

impl fmt::Display for Echo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut chars = self.text.chars();
        f.write_str(self.quote)?;
        for c in chars.by_ref().take(MAX_ECHOED) {
            write!(f, "{}", c.escape_debug())?;
        }
        match chars.count() {
            0 => f.write_str(self.quote),
            more => write!(f, "…{} (and {} more {})", self.quote, thousands(more as u64), characters(more)),
        }
    }
}

/// "character" or "characters", as `n` asks.
fn characters(n: usize) -> &'static str {
    if n == 1 {
        "character"
    } else {
        "characters"
    }
}

/// A count with thousands separators, as messages and the page write
/// counts: 10,000,000.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Text with its unprintable characters (controls, bidirectional
/// overrides and the like) escaped as `escape_debug` does, and every
/// printable one, quotes and backslashes included, as it is; cut as
/// [`Echo`] cuts, after ten times as many characters (it is ours, and
/// quotes input only in part).
#[derive(Clone, Copy, Debug)]
pub struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut chars = self.0.chars();
        for c in chars.by_ref().take(10 * MAX_ECHOED) {
            match c {
                '\\' | '\'' | '"' => fmt::Write::write_char(f, c)?,
                _ => write!(f, "{}", c.escape_debug())?,
            }
        }
        match chars.count() {
            0 => Ok(()),
            more => write!(f, "… (and {} more {})", thousands(more as u64), characters(more)),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoed_input_is_cut_after_its_limit_and_counted() {
        let at_limit = "x".repeat(MAX_ECHOED);
        assert_eq!(Echo::quoted(&at_limit).to_string(), alloc::format!("'{at_limit}'"));
        let over = "é".repeat(MAX_ECHOED + 1);
        let shown = "é".repeat(MAX_ECHOED);
        assert_eq!(Echo::quoted(&over).to_string(), alloc::format!("'{shown}…' (and 1 more character)"));
        assert_eq!(Echo::bare("a\nb").to_string(), "a\\nb");
        let e =
            ScenarioError { field: "k".repeat(1_000), value: "v".repeat(10_000), allowed: "a".repeat(3_000) };
        let text = e.to_string();
        assert!(text.contains("… (and 920 more characters): 'v"), "{text}");
        assert!(text.contains("…' (and 9,920 more characters) is not allowed"));
        assert!(text.ends_with("… (and 2,200 more characters)"));
        assert!(text.chars().count() < 1_100);
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
