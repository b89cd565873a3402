//! What a lenient reader of a link says of its problems: a notice of a
//! few lines however hostile the link (docs/embedding.md#share-links).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::scenario::{thousands, Echo, ScenarioError};

/// The most lines [`notice`] writes.
pub const NOTICE_LINES: usize = 8;

/// The most unknown keys [`notice`] names.
const UNKNOWN_KEYS_NAMED: u64 = 5;

/// What a lenient reader of a link (the page) says of its problems: one
/// line per problem, each value cut ([`Echo`]); the first few unknown keys
/// a line each and the rest counted in one; and at most [`NOTICE_LINES`]
/// lines, the rest counted, so that no link (10,000 unknown keys, a 200 KB
/// value) makes a notice longer than a screen.
pub fn notice(problems: &[ScenarioError]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut unknown = 0;
    for e in problems {
        if !e.is_unknown_key() {
            lines.push(e.to_string());
            continue;
        }
        unknown += 1;
        if unknown <= UNKNOWN_KEYS_NAMED {
            lines.push(alloc::format!("unknown key {} ignored", Echo::quoted(&e.field)));
        }
    }
    if unknown > UNKNOWN_KEYS_NAMED {
        lines.push(alloc::format!(
            "and {} more unknown keys ignored",
            thousands(unknown - UNKNOWN_KEYS_NAMED)
        ));
    }
    capped(lines)
}

/// At most [`NOTICE_LINES`] of a notice's `lines`, the last counting
/// those left out: what a front end says of a link or an address it reads
/// leniently.
pub fn capped(mut lines: Vec<String>) -> Vec<String> {
    if lines.len() > NOTICE_LINES {
        let more = lines.len() - (NOTICE_LINES - 1);
        lines.truncate(NOTICE_LINES - 1);
        lines.push(alloc::format!("and {} more problems", thousands(more as u64)));
    }
    lines
}
