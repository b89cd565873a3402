//! Progress on standard error for long work: a bar when stderr is a
//! terminal, nothing otherwise (a script's stderr stays clean).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// A bar of `len` `units` under `prefix`, hidden unless stderr is a
/// terminal and `long` (the work is expected to take more than a moment).
pub fn bar(len: u64, units: &str, prefix: String, long: bool) -> ProgressBar {
    if !long || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    let template = format!("{{prefix}} [{{bar:40}}] {{pos}}/{{len}} {units}, {{eta}} left");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(prefix);
    bar
}
