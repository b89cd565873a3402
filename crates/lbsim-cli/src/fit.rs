//! `lbsim fit`: a scenario fitted to an access log, each estimate with how
//! well it fits and a note, and the fitted scenario's share link
//! (docs/cli.md#lbsim-fit-a-scenario-fitted-to-an-access-log). The estimators are the core's
//! (`lbsim_core::fit`); this prints them.

use clap::Args;
use lbsim_core::access_log::Traffic;
use lbsim_core::fit::{fit as fit_traffic, Fit, Observed};
use lbsim_core::url::{self, Views};
use serde::Serialize;

use crate::flags::Sources;
use crate::outcome::{bad, print, Failure};
use crate::remap::TableOrJson;
use crate::run::{json_line, DEFAULT_BASE};

#[derive(Args, Debug)]
pub struct FitArgs {
    /// The access log to fit (`-`: standard input); its kind and format as --log-kind and --log-format say
    #[arg(value_name = "FILE|-")]
    pub file: String,
    /// The scenario the fit starts from (what a log does not show, such as slots, keeps its value)
    #[command(flatten)]
    pub sources: Sources,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: TableOrJson,
    /// The page's address; the link is this plus `#` and the fitted scenario's fragment
    #[arg(long, value_name = "URL", default_value = DEFAULT_BASE)]
    pub base: String,
}

/// The JSON form: the fit and the whole link.
#[derive(Serialize)]
struct FitJson<'a> {
    #[serde(flatten)]
    fit: &'a Fit,
    share_link: String,
}

pub fn fit(args: &FitArgs) -> Result<(), Failure> {
    if args.base.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(bad("base", &args.base, "a URL without spaces or control characters"));
    }
    let mut base = args.sources.scenario()?;
    // Read as `lbsim run --log` reads (plain or gzip, memory bounded); the
    // fit sets the fleet itself, so the log's servers are not made it here.
    base.log = Some(args.file.clone());
    let traffic =
        crate::log::read(&mut base, true)?.ok_or_else(|| bad("log", &args.file, "an access log to fit"))?;
    let fitted = fit_traffic(&Observed::from(&traffic), &base).map_err(|e| Failure::Input(e.to_string()))?;
    let link = url::share_link(&args.base, &fitted.scenario, None, &Views::default());
    match args.format {
        TableOrJson::Json => print(&json_line(&FitJson { fit: &fitted, share_link: link })?),
        TableOrJson::Table => print(&table(&fitted, &traffic, &link)),
    }
}

/// The estimates as aligned columns, the arrivals over time in a line and
/// the link (the reader's notes go to standard error, as for `lbsim run`).
fn table(fit: &Fit, traffic: &Traffic, link: &str) -> String {
    let goodness = |e: &lbsim_core::fit::Estimate| match &e.goodness {
        None => String::new(),
        Some(g) => match g.p_value {
            Some(p) => format!("{} {:.4} (p {p:.3})", g.test, g.statistic),
            None => format!("{} {:.4}", g.test, g.statistic),
        },
    };
    let rows: Vec<[String; 4]> = fit
        .estimates
        .iter()
        .map(|e| [e.field.to_string(), e.value.clone(), goodness(e), e.note.clone()])
        .collect();
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0).max(5);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    let mut out = format!(
        "Fitted to {} requests of a {} log\n{:w0$}  {:w1$}  {:w2$}  note\n",
        traffic.requests.len(),
        traffic.kind.id(),
        "field",
        "value",
        "fit"
    );
    for [field, value, fit, note] in &rows {
        out += &format!("{field:w0$}  {value:w1$}  {fit:w2$}  {note}\n");
    }
    let per_s = &fit.arrivals.per_s;
    if !per_s.is_empty() {
        let low = per_s.iter().copied().fold(f64::MAX, f64::min);
        let high = per_s.iter().copied().fold(0.0, f64::max);
        out += &format!(
            "Arrivals per second in {} bins of {} s: {low:.1} to {high:.1} (--format json lists them)\n",
            per_s.len(),
            fit.arrivals.bin_s
        );
    }
    if traffic.errors > 0 || traffic.retries > 0 {
        out += &format!(
            "Not fitted: {} errors and {} retries the log counts\n",
            traffic.errors, traffic.retries
        );
    }
    out += &format!("Link (the fitted numbers only): {link}\n");
    out
}
