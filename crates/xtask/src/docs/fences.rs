//! Reading a doc's `console` blocks: where its fenced blocks are, and the
//! commands a `console` block holds with the lines it shows under each.

use super::words::split_words;

/// A problem at a line (1-based) of a doc file.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Failure {
    pub(super) line: usize,
    pub(super) message: String,
}

/// A fenced block: the lines of its opening and closing fences (0-based;
/// `close` is the number of lines when the block is never closed), its
/// info string and the indentation of its fence (a block inside a list
/// item is indented, and so is its content).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Fence {
    pub(super) open: usize,
    pub(super) close: usize,
    pub(super) info: String,
    pub(super) indent: usize,
}

/// The fenced blocks of a Markdown text, split into lines.
pub(super) fn fences(lines: &[&str]) -> Vec<Fence> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let text = line.trim_start_matches(' ');
        let Some((mark, count)) = fence_mark(text) else {
            i += 1;
            continue;
        };
        let info = text[count..].trim().to_string();
        // CommonMark: a backtick fence's info string has no backtick (that
        // is inline code running over the line, not a fence).
        if mark == '`' && info.contains('`') {
            i += 1;
            continue;
        }
        let closes = |l: &str| {
            let t = l.trim();
            t.len() >= count && t.chars().all(|c| c == mark)
        };
        let close = (i + 1..lines.len()).find(|&j| closes(lines[j])).unwrap_or(lines.len());
        found.push(Fence { open: i, close, info, indent: line.len() - text.len() });
        i = close + 1;
    }
    found
}

/// The fence character and how many of it open a line, when it opens a
/// fenced block (three or more backticks or tildes).
fn fence_mark(text: &str) -> Option<(char, usize)> {
    let mark = text.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let count = text.chars().take_while(|c| *c == mark).count();
    (count >= 3).then_some((mark, count))
}

/// Whether each line is part of a fenced block (fences included).
pub(super) fn code_lines(lines: &[&str]) -> Vec<bool> {
    let mut in_code = vec![false; lines.len()];
    for fence in fences(lines) {
        let end = fence.close.min(lines.len() - 1);
        for flag in &mut in_code[fence.open..=end] {
            *flag = true;
        }
    }
    in_code
}

/// One command of a `console` block and what the block shows under it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Example {
    /// The line of the `$ ` command (0-based).
    pub(super) line: usize,
    /// The command as written, after `$ `.
    pub(super) command: String,
    /// Its words, `lbsim` first.
    pub(super) words: Vec<String>,
    /// The lines the block shows as its output (0-based, end exclusive):
    /// everything up to the next command or the closing fence.
    pub(super) shown: std::ops::Range<usize>,
}

/// The examples of a `console` block, and the problems of the lines that
/// are not examples (a bad command is reported and skipped with the lines
/// under it; the block's other examples still run).
pub(super) fn examples(lines: &[&str], fence: &Fence) -> (Vec<Example>, Vec<Failure>) {
    let mut found: Vec<Example> = Vec::new();
    let mut failures = Vec::new();
    let mut started = false;
    for (i, line) in lines.iter().enumerate().take(fence.close).skip(fence.open + 1) {
        let text = unindent(line, fence.indent);
        let Some(command) = text.strip_prefix("$ ") else {
            if !started && !text.trim().is_empty() {
                started = true;
                failures.push(Failure {
                    line: i + 1,
                    message: "a console block starts with a `$ ` command; this line comes before any".into(),
                });
            }
            continue;
        };
        started = true;
        if let Some(last) = found.last_mut().filter(|last| last.shown.end > i) {
            last.shown.end = i;
        }
        let fail = |message: String| Failure { line: i + 1, message };
        match split_words(command) {
            Err(why) => failures.push(fail(format!("`{command}`: {why}"))),
            Ok(words) if words.first().map(String::as_str) != Some("lbsim") => failures.push(fail(format!(
                "`{command}`: only `lbsim` runs in a console block; show other commands in an `sh` block"
            ))),
            Ok(words) => found.push(Example {
                line: i,
                command: command.to_string(),
                words,
                shown: i + 1..fence.close,
            }),
        }
    }
    (found, failures)
}

/// A line of a block without the block's indentation.
pub(super) fn unindent(line: &str, indent: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(indent)..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docs::DOC;

    #[test]
    fn console_blocks_hold_examples_and_other_blocks_are_not_run() {
        let lines: Vec<&str> = DOC.split('\n').collect();
        let blocks = fences(&lines);
        let infos: Vec<&str> = blocks.iter().map(|f| f.info.as_str()).collect();
        assert_eq!(infos, ["console", "sh", "console"]);
        assert_eq!(blocks[2].indent, 2);
        let (found, bad) = examples(&lines, &blocks[0]);
        assert!(bad.is_empty());
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].line, found[0].shown.clone()), (3, 4..6));
        assert_eq!((found[1].line, found[1].shown.clone()), (6, 7..8));
        let (indented, _) = examples(&lines, &blocks[2]);
        assert_eq!(indented[0].words, ["lbsim", "c"]);
    }
}
