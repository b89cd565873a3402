//! `cargo xtask docs-check [--bless]`: the docs' examples still run and
//! still print what the docs show, and the docs' links still lead
//! somewhere. It reads `README.md`, `CONTRIBUTING.md` and `docs/*.md`.
//!
//! The convention (CONTRIBUTING.md says the same to the people who write
//! the docs):
//!
//! - A fenced block whose info string is `console` is checked. Each line
//!   that starts with `$ ` is a command; the lines after it, up to the next
//!   `$ ` line or the end of the block, are what it prints.
//! - Only `lbsim` runs: the workspace's debug build (`cargo build -p
//!   lbsim-cli` first), in the repository's root, with `COLUMNS=100`,
//!   `NO_COLOR=1` and an empty standard input. No shell runs: a command is
//!   split into words as a shell would (`'...'`, `"..."`, `\`, and a `#`
//!   starting a word begins a comment), and what only a shell could do
//!   (pipes, redirections, variables, globs) is refused, so a reader who
//!   pastes the line into a shell gets what the check got.
//! - The command must exit with status 0 and print exactly the lines shown
//!   on standard output; trailing spaces on a line and blank lines at the
//!   end do not count. A shown output whose first line starts with
//!   `lbsim: ` (as every error of `lbsim` does) shows an error instead: the
//!   command must then fail, and the lines are its standard error.
//! - Every other block (`sh`, `text`, `json`, ...) is shown, never run:
//!   long or machine-bound commands (serving, benchmarks, deployment) go
//!   there.
//! - Each command must finish within [`QUICK`]: checked examples are small.
//! - `--bless` writes what each command printed in place of what its block
//!   showed, so regenerating the docs after a change to the CLI is one
//!   command. It never turns an example into an error or back: a command
//!   that fails where its block shows output (or the reverse) stays a
//!   failure for a person to look at.
//! - Every `[text](target)` outside code whose target is not a URL must
//!   name a file or directory of the repository, and its `#anchor`, if it
//!   has one, a heading of that Markdown file (as GitHub makes anchors).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::tools::{root, run, step};

/// Longest a checked example may run: the docs' examples are meant to be
/// quick, and a slow one belongs in an `sh` block.
const QUICK: Duration = Duration::from_secs(10);

/// The terminal width the examples are printed at, so `--help` (and
/// anything else that reads the width) prints the same on every machine.
const COLUMNS: &str = "100";

/// `cargo xtask docs-check [--bless]`.
pub fn docs_check(args: &[String]) -> Result<(), String> {
    match args {
        [] => check(false),
        [flag] if flag == "--bless" => check(true),
        _ => Err("usage: cargo xtask docs-check [--bless]".into()),
    }
}

/// Checks (or, with `bless`, rewrites) every doc file's examples and links.
pub fn check(bless: bool) -> Result<(), String> {
    step(if bless {
        "docs-check --bless: the docs' console examples rewritten with what lbsim prints"
    } else {
        "docs-check: the docs' console examples against lbsim, and their links"
    });
    run("cargo", &["build", "-p", "lbsim-cli", "--bin", "lbsim"])?;
    let lbsim = root().join("target/debug/lbsim");
    let mut runner = |words: &[String]| run_lbsim(&lbsim, words);
    let mut problems = Vec::new();
    let mut headings = Headings::default();
    for file in doc_files()? {
        let name = shown_path(&file);
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{name}: {e}"))?;
        let checked = check_text(&text, &mut runner, bless);
        let links = links(&text);
        for (line, target) in &links {
            if let Some(why) = broken(&file, target, &mut headings) {
                problems.push(format!("{name}:{line}: link `{target}`: {why}"));
            }
        }
        problems.extend(checked.failures.iter().map(|f| format!("{name}:{}: {}", f.line, f.message)));
        if bless && checked.text != text {
            std::fs::write(&file, &checked.text).map_err(|e| format!("{name}: {e}"))?;
            eprintln!("  {name}: rewritten");
        }
        eprintln!("  {name}: {} examples run, {} links", checked.examples, links.len());
    }
    if problems.is_empty() {
        return Ok(());
    }
    for problem in &problems {
        eprintln!("\n{problem}");
    }
    let hint =
        if bless { "" } else { " (`cargo xtask docs-check --bless` rewrites outputs that only changed)" };
    Err(format!("docs-check: {} problem(s) in the docs{hint}", problems.len()))
}

/// README.md, CONTRIBUTING.md and docs/*.md, those that exist, in a fixed
/// order.
fn doc_files() -> Result<Vec<PathBuf>, String> {
    let root = root();
    let mut files: Vec<PathBuf> =
        ["README.md", "CONTRIBUTING.md"].iter().map(|f| root.join(f)).filter(|p| p.is_file()).collect();
    let docs = root.join("docs");
    if docs.is_dir() {
        let mut more: Vec<PathBuf> = std::fs::read_dir(&docs)
            .map_err(|e| format!("docs/: {e}"))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        more.sort();
        files.extend(more);
    }
    Ok(files)
}

/// A path as people read it: relative to the repository.
fn shown_path(path: &Path) -> String {
    let root = root();
    path.strip_prefix(&root).unwrap_or(path).display().to_string()
}

/// What a command did.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    success: bool,
    stdout: String,
    stderr: String,
}

/// Runs `lbsim` with the words after `lbsim`, as the convention says.
fn run_lbsim(lbsim: &Path, words: &[String]) -> Result<Outcome, String> {
    let start = Instant::now();
    let out = Command::new(lbsim)
        .args(&words[1..])
        .current_dir(root())
        .env("COLUMNS", COLUMNS)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not start {}: {e}", lbsim.display()))?;
    let took = start.elapsed();
    if took > QUICK {
        return Err(format!(
            "took {:.1} s, over the {} s a checked example may take: make it smaller, or show it in an `sh` block",
            took.as_secs_f64(),
            QUICK.as_secs()
        ));
    }
    Ok(Outcome {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// A problem at a line (1-based) of a doc file.
#[derive(Debug, PartialEq, Eq)]
struct Failure {
    line: usize,
    message: String,
}

/// A fenced block: the lines of its opening and closing fences (0-based;
/// `close` is the number of lines when the block is never closed), its
/// info string and the indentation of its fence (a block inside a list
/// item is indented, and so is its content).
#[derive(Debug, PartialEq, Eq)]
struct Fence {
    open: usize,
    close: usize,
    info: String,
    indent: usize,
}

/// The fenced blocks of a Markdown text, split into lines.
fn fences(lines: &[&str]) -> Vec<Fence> {
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

/// One command of a `console` block and what the block shows under it.
#[derive(Debug, PartialEq, Eq)]
struct Example {
    /// The line of the `$ ` command (0-based).
    line: usize,
    /// The command as written, after `$ `.
    command: String,
    /// Its words, `lbsim` first.
    words: Vec<String>,
    /// The lines the block shows as its output (0-based, end exclusive):
    /// everything up to the next command or the closing fence.
    shown: std::ops::Range<usize>,
}

/// The examples of a `console` block, and the problems of the lines that
/// are not examples (a bad command is reported and skipped with the lines
/// under it; the block's other examples still run).
fn examples(lines: &[&str], fence: &Fence) -> (Vec<Example>, Vec<Failure>) {
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
fn unindent(line: &str, indent: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(indent)..]
}

/// Lines as they are compared: trailing whitespace and trailing blank lines
/// do not count.
fn normalised<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = lines.map(|l| l.trim_end().to_string()).collect();
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

/// What checking (or blessing) one doc's text gave.
struct Checked {
    /// The text, with blessed outputs when blessing; otherwise unchanged.
    text: String,
    failures: Vec<Failure>,
    examples: usize,
}

/// Runs every example of every `console` block of `text` through `run`;
/// with `bless`, writes what they printed in place of what they showed.
fn check_text(text: &str, run: &mut dyn FnMut(&[String]) -> Result<Outcome, String>, bless: bool) -> Checked {
    // Split on '\n' alone so an unchanged text joins back byte for byte.
    let lines: Vec<&str> = text.split('\n').collect();
    let mut failures = Vec::new();
    let mut count = 0;
    // Blessed outputs: the lines they replace and the new lines.
    let mut replacements: Vec<(std::ops::Range<usize>, Vec<String>)> = Vec::new();
    for fence in fences(&lines).iter().filter(|f| f.info == "console") {
        let (found, bad) = examples(&lines, fence);
        failures.extend(bad);
        for example in found {
            count += 1;
            let shown_lines = &lines[example.shown.clone()];
            let shown = normalised(shown_lines.iter().map(|l| unindent(l, fence.indent)));
            let error = shown.first().is_some_and(|l| l.starts_with("lbsim: "));
            let fail = |message: String| Failure { line: example.line + 1, message };
            let outcome = match run(&example.words) {
                Ok(outcome) => outcome,
                Err(why) => {
                    failures.push(fail(format!("`{}`: {why}", example.command)));
                    continue;
                }
            };
            let printed = match (error, outcome.success) {
                (false, true) => normalised(outcome.stdout.lines()),
                (true, false) => normalised(outcome.stderr.lines()),
                (false, false) => {
                    failures.push(fail(format!(
                        "`{}` failed; a block that shows an error starts its output with `lbsim: `:\n{}",
                        example.command,
                        outcome.stderr.trim_end()
                    )));
                    continue;
                }
                (true, true) => {
                    failures.push(fail(format!(
                        "`{}` succeeded, but the block shows an error (its output starts with `lbsim: `)",
                        example.command
                    )));
                    continue;
                }
            };
            if printed == shown {
                continue;
            }
            if bless {
                // Keep the blank lines that set the example apart from the
                // next one.
                let blank_tail = shown_lines.iter().rev().take_while(|l| l.trim().is_empty()).count();
                let indent = " ".repeat(fence.indent);
                let mut new: Vec<String> = printed
                    .iter()
                    .map(|l| if l.is_empty() { String::new() } else { format!("{indent}{l}") })
                    .collect();
                new.extend(shown_lines[shown_lines.len() - blank_tail..].iter().map(|l| l.to_string()));
                replacements.push((example.shown.clone(), new));
            } else {
                let stream = if error { "standard error" } else { "standard output" };
                failures.push(fail(format!(
                    "`{}`: its {stream} is not what the block shows\n{}",
                    example.command,
                    diff(&shown, &printed)
                )));
            }
        }
    }
    // A bad command is found before the examples run; report in line order.
    failures.sort_by_key(|f| f.line);
    let text = if replacements.is_empty() { text.to_string() } else { replaced(&lines, &replacements) };
    Checked { text, failures, examples: count }
}

/// `lines` with each range replaced by its new lines (ranges in order, not
/// overlapping).
fn replaced(lines: &[&str], replacements: &[(std::ops::Range<usize>, Vec<String>)]) -> String {
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut next = 0;
    for (range, new) in replacements {
        out.extend(lines[next..range.start].iter().map(|l| l.to_string()));
        out.extend(new.iter().cloned());
        next = range.end;
    }
    out.extend(lines[next..].iter().map(|l| l.to_string()));
    out.join("\n")
}

/// Splits a command into words as a POSIX shell would, for the little a
/// doc example needs: blanks separate words, `'...'` is literal, `"..."`
/// keeps `\"` and `\\`, `\` outside quotes takes the next character as it
/// is, and a `#` that starts a word starts a comment. What only a shell
/// could do is refused, since no shell runs the command.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '#' if !in_word => break,
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a `'` quote is not closed".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a `\"` quote is not closed".into()),
                        },
                        Some(c @ ('$' | '`')) => {
                            return Err(format!(
                                "`{c}` inside double quotes expands in a shell; use single quotes"
                            ))
                        }
                        Some(c) => word.push(c),
                        None => return Err("a `\"` quote is not closed".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("a `\\` ends the line: write each command on one line".into()),
                }
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' | '*' | '?' | '[' | '{' | '}' | '~' => {
                return Err(format!(
                    "an unquoted `{c}` means something to a shell, and no shell runs here; quote it \
                     (pipes and redirections belong in an `sh` block)"
                ))
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// The expected and the printed lines, those that differ marked `-` and
/// `+` with two lines of context around them: a longest common subsequence
/// of the lines, as `diff` finds.
fn diff(shown: &[String], printed: &[String]) -> String {
    const CONTEXT: usize = 2;
    let (n, m) = (shown.len(), printed.len());
    // lcs[i][j]: the longest common subsequence of shown[i..] and printed[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] =
                if shown[i] == printed[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut rows: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && shown[i] == printed[j] {
            rows.push((' ', &shown[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            rows.push(('-', &shown[i]));
            i += 1;
        } else {
            rows.push(('+', &printed[j]));
            j += 1;
        }
    }
    let near_change = |k: usize| {
        let lo = k.saturating_sub(CONTEXT);
        let hi = (k + CONTEXT + 1).min(rows.len());
        rows[lo..hi].iter().any(|(mark, _)| *mark != ' ')
    };
    let mut out = String::from("--- shown in the doc\n+++ printed by lbsim\n");
    let mut skipped = false;
    for (k, (mark, line)) in rows.iter().enumerate() {
        if near_change(k) {
            out.push_str(&format!("{mark} {line}\n"));
            skipped = false;
        } else if !skipped {
            out.push_str("  ...\n");
            skipped = true;
        }
    }
    out.trim_end().to_string()
}

/// Every link target outside code: `[text](target)` and `![alt](target)`,
/// with its line (1-based).
fn links(text: &str) -> Vec<(usize, String)> {
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

/// Whether each line is part of a fenced block (fences included).
fn code_lines(lines: &[&str]) -> Vec<bool> {
    let mut in_code = vec![false; lines.len()];
    for fence in fences(lines) {
        let end = fence.close.min(lines.len() - 1);
        for flag in &mut in_code[fence.open..=end] {
            *flag = true;
        }
    }
    in_code
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
struct Headings {
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
fn broken(file: &Path, target: &str, headings: &mut Headings) -> Option<String> {
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

    fn words(line: &str) -> Vec<String> {
        split_words(line).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    #[test]
    fn words_split_as_a_shell_splits_them() {
        assert_eq!(words("lbsim run  --seed 7"), ["lbsim", "run", "--seed", "7"]);
        assert_eq!(
            words("lbsim run --url 'http://x/#v=1&seed=7' --names \"a b\",c"),
            ["lbsim", "run", "--url", "http://x/#v=1&seed=7", "--names", "a b,c"]
        );
        // Quotes join with what touches them; inside single quotes nothing
        // is special, inside double quotes `\"` and `\\` are.
        assert_eq!(
            words(r#"lbsim x 'it'"s" "a\"b\\c" 'd\e' f\ g"#),
            ["lbsim", "x", "its", "a\"b\\c", "d\\e", "f g"]
        );
        assert_eq!(words("lbsim x ''"), ["lbsim", "x", ""]);
        // A `#` that starts a word starts a comment; inside a word it is text.
        assert_eq!(
            words("lbsim url --base http://h/#x  # the link"),
            ["lbsim", "url", "--base", "http://h/#x"]
        );
    }

    #[test]
    fn what_only_a_shell_could_do_is_refused() {
        for line in [
            "lbsim run | head",
            "lbsim run > out",
            "lbsim run --seed $SEED",
            "lbsim run --key-format user-{i}",
            "lbsim run 'open",
            "lbsim run \"open",
            "lbsim run \"$HOME\"",
            "lbsim run \\",
        ] {
            assert!(split_words(line).is_err(), "{line}");
        }
    }

    const DOC: &str = "# Title\n\
                       \n\
                       ```console\n\
                       $ lbsim a\n\
                       old\n\
                       \n\
                       $ lbsim b 'x y'\n\
                       lbsim: bad\n\
                       ```\n\
                       \n\
                       ```sh\n\
                       $ lbsim never\n\
                       ```\n\
                       \n\
                       - item\n\
                       \n\
                       \x20 ```console\n\
                       \x20 $ lbsim c\n\
                       \x20 one\n\
                       \x20 ```\n";

    fn fake(words: &[String]) -> Result<Outcome, String> {
        let ok = |stdout: &str| Outcome { success: true, stdout: stdout.into(), stderr: String::new() };
        match words[1].as_str() {
            "a" => Ok(ok("new\n\nlines  \n\n")),
            "b" => {
                assert_eq!(words[2], "x y");
                Ok(Outcome { success: false, stdout: String::new(), stderr: "lbsim: bad\n".into() })
            }
            "c" => Ok(ok("one\ntwo\n")),
            other => panic!("the doc never runs `{other}`"),
        }
    }

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

    #[test]
    fn mismatches_are_reported_at_their_command_with_a_diff() {
        let checked = check_text(DOC, &mut fake, false);
        assert_eq!(checked.examples, 3);
        assert_eq!(checked.text, DOC, "checking never rewrites");
        let lines: Vec<usize> = checked.failures.iter().map(|f| f.line).collect();
        assert_eq!(lines, [4, 18], "`b` shows its error as it is printed");
        assert!(
            checked.failures[0].message.contains("- old\n+ new\n+ \n+ lines"),
            "{}",
            checked.failures[0].message
        );
        assert!(checked.failures[1].message.contains("  one\n+ two"), "{}", checked.failures[1].message);
    }

    #[test]
    fn a_bad_command_is_reported_and_the_rest_of_its_block_runs() {
        let doc = "```console\n$ lbsim a\nnew\n\nlines\n$ lbsim x | y\nignored\n$ lbsim c\none\n```\n";
        let checked = check_text(doc, &mut fake, false);
        assert_eq!(checked.examples, 2);
        let lines: Vec<usize> = checked.failures.iter().map(|f| f.line).collect();
        assert_eq!(lines, [6, 8], "the pipe, then c's missing line; a's output ends at the bad command");
    }

    #[test]
    fn bless_writes_what_was_printed_in_place() {
        let checked = check_text(DOC, &mut fake, true);
        assert!(checked.failures.is_empty());
        let want = DOC
            .replace("$ lbsim a\nold\n\n", "$ lbsim a\nnew\n\nlines\n\n")
            .replace("  one\n  ```", "  one\n  two\n  ```");
        assert_eq!(checked.text, want);
        // Blessed text checks clean, and blessing again changes nothing.
        let again = check_text(&checked.text, &mut fake, true);
        assert!(again.failures.is_empty());
        assert_eq!(again.text, want);
    }

    #[test]
    fn bless_never_turns_output_into_an_error() {
        let doc = "```console\n$ lbsim a\nold\n```\n";
        let mut failing = |_: &[String]| {
            Ok(Outcome { success: false, stdout: String::new(), stderr: "lbsim: no\n".into() })
        };
        let checked = check_text(doc, &mut failing, true);
        assert_eq!(checked.text, doc);
        assert_eq!(checked.failures.len(), 1);
        let mut other = |_: &[String]| -> Result<Outcome, String> { panic!("never run") };
        let bad = check_text("```console\nnot a command\n```\n", &mut other, false);
        assert_eq!(bad.failures[0].line, 2);
        let shell = check_text("```console\n$ ls -l\n```\n", &mut other, false);
        assert!(shell.failures[0].message.contains("only `lbsim`"));
    }

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
