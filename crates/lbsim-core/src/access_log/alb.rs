//! AWS Application Load Balancer access logs, fields in AWS's documented
//! order (Elastic Load Balancing, "Access logs for your Application Load
//! Balancer"); fields AWS adds at the end are tolerated.
//!
//! The arrival is `request_creation_time`; the server's time
//! `target_processing_time`, the whole the three processing times summed.
//! A time of -1 (never dispatched, or the target closed), no target or a
//! 5xx from the balancer is an error.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::clock;
use super::entry::{duration, short, Entry};

/// The kinds of request the first field names.
const TYPES: [&str; 6] = ["http", "https", "h2", "grpcs", "ws", "wss"];

/// Field positions, 0-based.
const TIME: usize = 1;
const CLIENT: usize = 3;
const TARGET: usize = 4;
const REQUEST_PROCESSING: usize = 5;
const TARGET_PROCESSING: usize = 6;
const RESPONSE_PROCESSING: usize = 7;
const ELB_STATUS: usize = 8;
const REQUEST_CREATION: usize = 21;

/// The line's fields: space-separated, a `"..."` field whole.
fn fields(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        let (field, next) = if let Some(quoted) = rest.strip_prefix('"') {
            match quoted.find("\" ").or_else(|| quoted.ends_with('"').then(|| quoted.len() - 1)) {
                Some(end) => (&quoted[..end], &quoted[(end + 1).min(quoted.len())..]),
                None => (quoted, ""),
            }
        } else {
            rest.split_once(' ').unwrap_or((rest, ""))
        };
        out.push(field);
        rest = next.trim_start();
    }
    out
}

/// Whether a line looks like an ALB log's.
pub(super) fn looks_like(line: &str) -> bool {
    let mut words = line.split(' ');
    TYPES.contains(&words.next().unwrap_or("")) && words.next().is_some_and(|t| clock::iso8601(t).is_some())
}

/// One line's entry.
pub(super) fn entry(line: &str) -> Result<Entry<'_>, String> {
    let fields = fields(line);
    if fields.len() < ELB_STATUS + 1 || !TYPES.contains(&fields[0]) {
        return Err(format!(
            "{} fields, not an ALB line (type, time, elb, client:port, target:port, ...)",
            fields.len()
        ));
    }
    let time = |i: usize, name: &str| duration(fields[i], 1000.0).map_err(|e| format!("{name}: {e}"));
    let request = time(REQUEST_PROCESSING, "request_processing_time")?;
    let target = time(TARGET_PROCESSING, "target_processing_time")?;
    let response = time(RESPONSE_PROCESSING, "response_processing_time")?;
    let mut entry = Entry::default();
    let status = fields[ELB_STATUS];
    entry.failed = request.is_none()
        || target.is_none()
        || response.is_none()
        || fields[TARGET] == "-"
        || status.starts_with('5');
    entry.upstream_ms = target;
    entry.total_ms = match (request, target, response) {
        (Some(a), Some(b), Some(c)) => Some(a + b + c),
        _ => None,
    };
    entry.arrival_ms = match fields.get(REQUEST_CREATION) {
        Some(created) => clock::iso8601(created)
            .ok_or_else(|| format!("request_creation_time \"{}\" is not a date", short(created)))?,
        // Older lines end before it: the response's time less the three.
        None => {
            let end = clock::iso8601(fields[TIME])
                .ok_or_else(|| format!("time \"{}\" is not a date", short(fields[TIME])))?;
            end - entry.total_ms.unwrap_or(0.0)
        }
    };
    let client = fields[CLIENT];
    entry.key =
        Some(client.rsplit_once(':').map_or(client, |(ip, _)| ip)).filter(|k| !k.is_empty() && *k != "-");
    entry.server = Some(fields[TARGET]).filter(|t| *t != "-");
    Ok(entry)
}

#[cfg(test)]
pub(super) fn split_fields(line: &str) -> Vec<String> {
    fields(line).into_iter().map(String::from).collect()
}
