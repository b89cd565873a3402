//! The docs' relative links: every target outside code names a file or
//! directory of the repository, and its `#anchor` a heading of that
//! Markdown file, as GitHub makes anchors.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::fences::code_lines;
use crate::tools::root;

/// A path as people read it: relative to the repository.
pub(super) fn shown_path(path: &Path) -> String {
    let root = root();
    path.strip_prefix(&root).unwrap_or(path).display().to_string()
}

/// Every link target outside code: `[text](target)` and `![alt](target)`,
/// with its line (1-based).
pub(super) fn links(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.split('\n').collect();
    let in_code = code_lines(&lines);
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if in_code[i] {
            continue;
        }
        let prose = without_code_spans(line);
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            // A title after the target (`(path "title")`) is not part of it.
            let target = after[..end].split_whitespace().next().unwrap_or("");
            let target = target.trim_start_matches('<').trim_end_matches('>');
            if !target.is_empty() {
                found.push((i + 1, target.to_string()));
            }
            rest = &after[end..];
        }
    }
    found
}

/// A line with its inline code spans blanked out, so a `[x](y)` shown as
/// code is not taken for a link.
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|c| *c == '`').count();
        let fence = &rest[start..start + ticks];
        let body = &rest[start + ticks..];
        match body.find(fence) {
            Some(end) => {
                out.push_str(&" ".repeat(ticks * 2 + end));
                rest = &body[end + ticks..];
            }
            None => {
                // An unmatched backtick is text.
                out.push_str(fence);
                rest = body;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The anchors of Markdown files, read once each.
#[derive(Default)]
pub(super) struct Headings {
    by_file: HashMap<PathBuf, Vec<String>>,
}

impl Headings {
    fn of(&mut self, file: &Path) -> &[String] {
        self.by_file
            .entry(file.to_path_buf())
            .or_insert_with(|| std::fs::read_to_string(file).map(|t| anchors(&t)).unwrap_or_default())
    }
}

/// Why a link from `file` to `target` is broken, or `None` when it leads
/// somewhere.
pub(super) fn broken(file: &Path, target: &str, headings: &mut Headings) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
    let dir = file.parent().unwrap_or(Path::new("."));
    let linked = if path.is_empty() { file.to_path_buf() } else { dir.join(path) };
    if !linked.exists() {
        return Some(format!("{} does not exist", shown_path(&linked)));
    }
    let markdown = linked.extension().is_some_and(|e| e == "md");
    if anchor.is_empty() || !markdown {
        return None;
    }
    if headings.of(&linked).iter().any(|a| a == anchor) {
        None
    } else {
        Some(format!("{} has no heading with the anchor `#{anchor}`", shown_path(&linked)))
    }
}

/// The anchors GitHub gives a Markdown text's headings: lower case, spaces
/// to `-`, punctuation other than `-` and `_` dropped, and `-1`, `-2`, ...
/// after repeats.
fn anchors(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let in_code = code_lines(&lines);
    let mut found: Vec<String> = Vec::new();
    let mut repeats: HashMap<String, usize> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        if in_code[i] {
            continue;
        }
        let trimmed = line.trim_start_matches(' ');
        let hashes = trimmed.chars().take_while(|c| *c == '#').count();
        let Some(title) = trimmed[hashes..].strip_prefix(' ') else { continue };
        if !(1..=6).contains(&hashes) || line.len() - trimmed.len() > 3 {
            continue;
        }
        let title = title.trim().trim_end_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        // GitHub numbers a repeated heading's anchor: `x`, `x-1`, `x-2`.
        let seen = repeats.entry(slug.clone()).or_insert(0);
        let anchor = if *seen == 0 { slug } else { format!("{slug}-{seen}") };
        *seen += 1;
        found.push(anchor);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_outside_code_and_heading_anchors() {
        let doc = "# The CLI: `lbsim run`\n\
                   See [the model](docs/model.md#the-fleet), ![shot](web/a.png \"title\").\n\
                   Not `[code](x.md)`, and\n\
                   ```sh\n\
                   [neither](y.md)\n\
                   ```\n\
                   ## Repeat\n\
                   ## Repeat\n";
        assert_eq!(links(doc), [(2, "docs/model.md#the-fleet".to_string()), (2, "web/a.png".to_string())]);
        assert_eq!(anchors(doc), ["the-cli-lbsim-run", "repeat", "repeat-1"]);
    }
}
