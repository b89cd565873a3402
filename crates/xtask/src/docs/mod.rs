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

mod diff;
mod examples;
mod fences;
mod links;
mod words;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::tools::{root, run, step};
use examples::{check_text, Outcome};
use links::{broken, links, shown_path, Headings};

/// Longest a checked example may run: the docs' examples are meant to be
/// quick, and a slow one belongs in an `sh` block.
const QUICK: Duration = Duration::from_secs(10);

/// The terminal width the examples are printed at, so `--help` (and
/// anything else that reads the width) prints the same on every machine.
const COLUMNS: &str = "100";

/// `cargo xtask docs-check [--bless]`: checks (or, with `bless`, rewrites) every doc file's examples and links.
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

/// A doc for the parts' tests: two `console` blocks (the second indented
/// in a list item) around an `sh` block that never runs.
#[cfg(test)]
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
