//! NGINX access logs, read by the `log_format` string they were written
//! by: the format's variables are parsed out of it and each line matched by
//! the literal text between them (docs/model.md#your-own-traffic).
//!
//! NGINX writes a line when the response ends: `$msec` is then, so the
//! arrival is `$msec - $request_time`. `$upstream_addr` and
//! `$upstream_response_time` list every try (`a, b : c`); the last is the
//! server that answered, the others are retries.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::clock;
use super::entry::{duration, short, Entry};
use super::error::LogError;

/// lbsim's documented timing format (docs/model.md#your-own-traffic).
pub const DEFAULT_FORMAT: &str = "$remote_addr [$time_local] \"$request\" $status $msec $request_time \
                                  $upstream_response_time $upstream_addr";

/// NGINX's built-in `combined` format, which has no timing.
const COMBINED: &str =
    "$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent \"$http_referer\" \"$http_user_agent\"";

/// The `log_format` line to add to an NGINX configuration for
/// [`DEFAULT_FORMAT`].
#[derive(Clone, Copy, Debug)]
pub struct LbsimFormat;

impl LbsimFormat {
    /// `log_format lbsim '...';`
    pub fn directive() -> String {
        format!("log_format lbsim '{DEFAULT_FORMAT}';")
    }
}

/// A piece of a format: text written as is, or a variable's value.
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Literal(String),
    Variable(String),
}

/// What a variable gives lbsim.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Msec,
    TimeLocal,
    TimeIso,
    RequestTime,
    UpstreamTime,
    UpstreamAddr,
    Status,
    Key,
    Other,
}

/// A compiled `log_format`: its pieces, each variable's role.
#[derive(Clone, Debug)]
pub(super) struct NginxFormat {
    pieces: Vec<Piece>,
    roles: Vec<Role>,
}

/// The format string out of a whole directive
/// (`log_format name [escape=..] '...' '...';`), or the string itself.
fn format_text(given: &str) -> String {
    let trimmed = given.trim();
    if !trimmed.starts_with("log_format ") {
        return given.to_string();
    }
    let mut out = String::new();
    let mut quote = None;
    for c in trimmed.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => out.push(c),
            None if c == '\'' || c == '"' => quote = Some(c),
            None => {}
        }
    }
    out
}

/// The key variable: a request argument, cookie or header the user chose
/// to log (not the referer or user agent), else the client's address.
fn key_rank(name: &str) -> Option<u8> {
    match name {
        "http_referer" | "http_user_agent" => None,
        _ if name.starts_with("arg_") || name.starts_with("cookie_") || name.starts_with("http_") => Some(0),
        "remote_addr" | "realip_remote_addr" | "binary_remote_addr" => Some(1),
        _ => None,
    }
}

impl NginxFormat {
    /// Parses a `log_format` string (or a whole directive).
    pub fn compile(given: &str) -> Result<NginxFormat, LogError> {
        let text = format_text(given);
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '$' {
                literal.push(c);
                continue;
            }
            let braced = chars.peek() == Some(&'{');
            if braced {
                chars.next();
            }
            let mut name = String::new();
            while let Some(&n) = chars.peek() {
                if n.is_ascii_alphanumeric() || n == '_' {
                    name.push(n);
                    chars.next();
                } else {
                    break;
                }
            }
            if braced && chars.next() != Some('}') {
                return Err(LogError::BadFormat { reason: format!("${{{name} is not closed with }}") });
            }
            if name.is_empty() {
                literal.push('$');
                continue;
            }
            if literal.is_empty() && matches!(pieces.last(), Some(Piece::Variable(_))) {
                return Err(LogError::BadFormat {
                    reason: format!(
                        "two variables with nothing between them (before ${name}) cannot be told apart"
                    ),
                });
            }
            if !literal.is_empty() {
                pieces.push(Piece::Literal(core::mem::take(&mut literal)));
            }
            pieces.push(Piece::Variable(name));
        }
        if !literal.is_empty() {
            pieces.push(Piece::Literal(literal));
        }
        let names: Vec<&str> = pieces
            .iter()
            .filter_map(|p| if let Piece::Variable(n) = p { Some(n.as_str()) } else { None })
            .collect();
        if names.is_empty() {
            return Err(LogError::BadFormat { reason: "the format names no variable".to_string() });
        }
        let key =
            names.iter().filter_map(|n| key_rank(n).map(|r| (r, *n))).min_by_key(|&(r, _)| r).map(|(_, n)| n);
        let roles = names
            .iter()
            .map(|&n| match n {
                "msec" => Role::Msec,
                "time_local" => Role::TimeLocal,
                "time_iso8601" => Role::TimeIso,
                "request_time" => Role::RequestTime,
                "upstream_response_time" => Role::UpstreamTime,
                "upstream_addr" => Role::UpstreamAddr,
                "status" => Role::Status,
                _ if Some(n) == key => Role::Key,
                _ => Role::Other,
            })
            .collect::<Vec<Role>>();
        let has = |role: Role| roles.contains(&role);
        let fix = format!(
            "add {} and `access_log /var/log/nginx/access.log lbsim;` to NGINX's http block (or give --log-format)",
            LbsimFormat::directive()
        );
        if !has(Role::RequestTime) && !has(Role::UpstreamTime) {
            let what = if format_text(given).trim() == COMBINED { "the combined format's " } else { "" };
            return Err(LogError::NoTiming {
                missing: format!("{what}$request_time (and $upstream_response_time)"),
                fix,
            });
        }
        if !has(Role::Msec) && !has(Role::TimeLocal) && !has(Role::TimeIso) {
            return Err(LogError::NoTiming { missing: "$msec (or $time_local)".to_string(), fix });
        }
        Ok(NginxFormat { pieces, roles })
    }

    /// lbsim's timing format.
    pub fn lbsim() -> NginxFormat {
        match NginxFormat::compile(DEFAULT_FORMAT) {
            Ok(format) => format,
            Err(_) => NginxFormat { pieces: Vec::new(), roles: Vec::new() },
        }
    }

    /// Whether the format has only a whole second's time (no `$msec`).
    pub fn whole_seconds(&self) -> bool {
        !self.roles.contains(&Role::Msec)
    }

    /// The variables' values in a line, by the literals between them.
    fn values<'a>(&self, line: &'a str) -> Result<Vec<&'a str>, String> {
        let mut values = Vec::with_capacity(self.roles.len());
        let mut at = 0;
        let mut pieces = self.pieces.iter().peekable();
        while let Some(piece) = pieces.next() {
            match piece {
                Piece::Literal(text) => {
                    if !line[at..].starts_with(text.as_str()) {
                        return Err(format!(
                            "expected \"{}\" at column {}, saw \"{}\"",
                            short(text),
                            at + 1,
                            short(&line[at..])
                        ));
                    }
                    at += text.len();
                }
                Piece::Variable(name) => {
                    let end = match pieces.peek() {
                        Some(Piece::Literal(next)) => {
                            let Some(mut end) = line[at..].find(next.as_str()).map(|i| at + i) else {
                                return Err(format!("expected \"{}\" after column {}", short(next), at + 1));
                            };
                            // NGINX's lists of tries (`a, b : c`) hold spaces.
                            while name.starts_with("upstream_")
                                && (line[..end].ends_with(',') || line[end..].starts_with(" : "))
                            {
                                let from = end + 1 + usize::from(line[end..].starts_with(" : ")) * 2;
                                match line.get(from..).and_then(|rest| rest.find(next.as_str())) {
                                    Some(i) => end = from + i,
                                    None => break,
                                }
                            }
                            end
                        }
                        _ => line.len(),
                    };
                    values.push(&line[at..end]);
                    at = end;
                }
            }
        }
        if at != line.len() {
            return Err(format!("unexpected text at column {}: \"{}\"", at + 1, short(&line[at..])));
        }
        Ok(values)
    }

    /// One line's entry.
    pub fn entry<'a>(&self, line: &'a str) -> Result<Entry<'a>, String> {
        let values = self.values(line)?;
        let mut entry = Entry::default();
        let (mut end_ms, mut request_ms) = (None, None);
        let mut tries = 0u32;
        for (&role, &value) in self.roles.iter().zip(&values) {
            match role {
                Role::Msec => {
                    end_ms = Some(
                        duration(value, 1000.0)?.ok_or_else(|| format!("$msec is \"{}\"", short(value)))?,
                    )
                }
                Role::TimeLocal if end_ms.is_none() => {
                    end_ms = Some(
                        clock::common_log(value)
                            .ok_or_else(|| format!("$time_local \"{}\" is not a date", short(value)))?,
                    )
                }
                Role::TimeIso if end_ms.is_none() => {
                    end_ms = Some(
                        clock::iso8601(value)
                            .ok_or_else(|| format!("$time_iso8601 \"{}\" is not a date", short(value)))?,
                    )
                }
                Role::RequestTime => {
                    request_ms = duration(value, 1000.0).map_err(|e| format!("$request_time: {e}"))?;
                    entry.total_ms = request_ms;
                }
                Role::UpstreamTime => {
                    // The last try answered.
                    let last = value.rsplit([',', ':']).next().unwrap_or(value);
                    entry.upstream_ms =
                        duration(last, 1000.0).map_err(|e| format!("$upstream_response_time: {e}"))?;
                }
                Role::UpstreamAddr => {
                    let all: Vec<&str> =
                        value.split(", ").flat_map(|v| v.split(" : ")).map(str::trim).collect();
                    tries = all.len() as u32;
                    entry.server = all.last().copied().filter(|&s| s != "-" && !s.is_empty());
                }
                Role::Status => {
                    let status: u16 = value
                        .trim()
                        .parse()
                        .map_err(|_| format!("$status \"{}\" is not a number", short(value)))?;
                    entry.failed |= status >= 500;
                }
                Role::Key => entry.key = Some(value).filter(|&k| k != "-" && !k.is_empty()),
                _ => {}
            }
        }
        let end_ms = end_ms.ok_or_else(|| "no time".to_string())?;
        entry.arrival_ms = end_ms - request_ms.or(entry.upstream_ms).unwrap_or(0.0);
        entry.retries = tries.saturating_sub(1);
        Ok(entry)
    }

    /// Whether a line reads as NGINX's `combined` format (for the error
    /// that says it has no timing).
    pub fn is_combined(line: &str) -> bool {
        match NginxFormat::compile_unchecked(COMBINED) {
            Some(format) => format.values(line).is_ok(),
            None => false,
        }
    }

    /// A format's pieces without the timing check.
    fn compile_unchecked(text: &str) -> Option<NginxFormat> {
        let mut pieces = Vec::new();
        let mut rest = text;
        while let Some(i) = rest.find('$') {
            if i > 0 {
                pieces.push(Piece::Literal(rest[..i].to_string()));
            }
            let name_len = rest[i + 1..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len() - i - 1);
            pieces.push(Piece::Variable(rest[i + 1..i + 1 + name_len].to_string()));
            rest = &rest[i + 1 + name_len..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Literal(rest.to_string()));
        }
        let roles = pieces.iter().filter(|p| matches!(p, Piece::Variable(_))).map(|_| Role::Other).collect();
        Some(NginxFormat { pieces, roles })
    }
}
