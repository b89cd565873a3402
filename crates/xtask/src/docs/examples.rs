//! Running a doc's `console` examples: what each command prints against
//! what its block shows, and blessing, which writes what was printed in
//! place of what was shown.

use super::diff::diff;
use super::fences::{examples, fences, unindent, Failure};

/// What a command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Outcome {
    pub(super) success: bool,
    pub(super) stdout: String,
    pub(super) stderr: String,
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
pub(super) struct Checked {
    /// The text, with blessed outputs when blessing; otherwise unchanged.
    pub(super) text: String,
    pub(super) failures: Vec<Failure>,
    pub(super) examples: usize,
}

/// Runs every example of every `console` block of `text` through `run`;
/// with `bless`, writes what they printed in place of what they showed.
pub(super) fn check_text(
    text: &str,
    run: &mut dyn FnMut(&[String]) -> Result<Outcome, String>,
    bless: bool,
) -> Checked {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docs::DOC;

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
}
