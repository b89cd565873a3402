//! The panels the second module (`lbsim-panels`) draws, each for the
//! scenario of a share link (what `lazy` passes): the remapping
//! experiment, and the Config panel, the scenario as NGINX, HAProxy or
//! Envoy configuration, written by the core's `config` (what `lbsim
//! config` prints), for the rule and balancer the reader picks. What the
//! balancer cannot express is a comment in the text, never dropped. And
//! the results' downloads, written from the report on screen, and the
//! finished sweep's plot, PNG and CSV, from the rows the first module ran.
//! The first module never names this one, so its code is not in the first
//! visit's.

use std::cell::RefCell;

use lbsim_core::config::{self, Key, Program, Request};
use lbsim_core::presets;
use lbsim_core::report::Headline;
use lbsim_core::sweep::{Figure, Sweep};
use lbsim_core::url::MAX_LINK_SWEEP_VALUES;
use lbsim_core::{url, AlgorithmId};
use web_sys::{Element, HtmlDetailsElement, HtmlInputElement, HtmlSelectElement};

use crate::dom::{self, add_option, by_id, on_id, set_text};
use crate::plots::{self, look::Look};
use crate::state::look;
use crate::view;

/// The remapping panel's controls, plot and table (a constant, as the
/// Config panel's), built when it first opens.
const REMAP_PANEL: &str = r#"<div class="plot-tools">
<label>change <select id="remap-change"><option value="add">add a server</option><option value="remove">remove the last server</option></select></label>
<button type="button" id="remap-png">Save PNG</button>
</div>
<canvas id="remap" class="tall" role="img" aria-label="Keys moved per scheme and keys per node before and after"></canvas>
<ul class="legend" id="remap-legend" aria-label="legend"></ul>
<table id="remap-table">
<caption>Keys (session:0 to session:999) that change owner</caption>
<thead><tr><th scope="col">scheme</th><th scope="col">moved</th><th scope="col">share</th></tr></thead>
<tbody></tbody>
</table>"#;

thread_local! {
    /// The link the remapping panel was last drawn for: its change picker
    /// draws it again.
    static REMAP_LINK: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Draws the remapping panel for the scenario of `link`, building its
/// controls the first time.
pub fn remapping(link: &str, force: bool) {
    REMAP_LINK.with(|l| *l.borrow_mut() = link.to_string());
    if let Some(root) = by_id::<Element>("remap-root").filter(|_| by_id::<Element>("remap").is_none()) {
        root.set_inner_html(REMAP_PANEL);
        on_id("remap-change", "input", |_| {
            let link = REMAP_LINK.with(|l| l.borrow().clone());
            remapping(&link, false);
        });
        on_id("remap-png", "click", |_| view::save_png("remap"));
    }
    view::draw_remapping(&url::decode(link).scenario, &look(), force);
}

/// The Config panel's controls and text (a constant: nothing of a link's
/// is ever parsed as HTML), built when it first opens, so that a first
/// visit carries neither them nor their wiring.
const CONFIG_PANEL: &str = r#"<div class="plot-tools">
<label>for <select id="config-for"></select></label>
<label>rule <select id="config-rule"></select></label>
<label><input type="checkbox" id="config-full"> whole config</label>
<button type="button" id="config-copy">Copy</button>
<span id="config-status" role="status"></span>
</div>
<pre id="config-text" class="config" tabindex="0" aria-label="The configuration"></pre>
<p class="note">The hash key is the query argument <code>user</code>; what the balancer cannot express is a comment. NGINX's and HAProxy's pass <code>nginx -t</code> and <code>haproxy -c</code>, and route as lbsim predicts (held to the real programs in the tests); Envoy's is not run here; gRPC's service config is the JSON under the <code>#</code> notes, taken by gRPC's own parser in the tests. The same from the command line: <code id="config-cli"></code></p>"#;

thread_local! {
    /// The link the Config panel was last written for: its controls write
    /// it again for the reader's pick.
    static CONFIG_LINK: RefCell<String> = const { RefCell::new(String::new()) };
}

fn rewrite_config() {
    let link = CONFIG_LINK.with(|l| l.borrow().clone());
    config(&link);
}

/// Builds the Config panel's controls, once.
fn build_config() {
    let Some(root) = by_id::<Element>("config") else { return };
    if by_id::<Element>("config-text").is_some() {
        return;
    }
    root.set_inner_html(CONFIG_PANEL);
    if let Some(select) = by_id::<Element>("config-for") {
        for program in Program::ALL {
            add_option(&select, program.id(), program.name());
        }
    }
    for id in ["config-for", "config-rule", "config-full"] {
        on_id(id, "input", |_| rewrite_config());
    }
    on_id("config-copy", "click", |_| {
        let text = by_id::<Element>("config-text").and_then(|t| t.text_content()).unwrap_or_default();
        dom::copy(&text);
        set_text("config-status", "Copied.");
    });
}

/// Writes the Config panel for the scenario of `link`, if it is open: the
/// rule list follows the scenario's rules (keeping the reader's pick while
/// it is one of them), then the config and the command that prints the
/// same.
pub fn config(link: &str) {
    if !by_id::<HtmlDetailsElement>("config-panel").is_some_and(|d| d.open()) {
        return;
    }
    CONFIG_LINK.with(|l| *l.borrow_mut() = link.to_string());
    build_config();
    let (Some(program_select), Some(rule_select)) =
        (by_id::<HtmlSelectElement>("config-for"), by_id::<HtmlSelectElement>("config-rule"))
    else {
        return;
    };
    let scenario = url::decode(link).scenario;
    let rules = scenario.rules();
    let chosen: Option<AlgorithmId> = rule_select.value().parse().ok().filter(|r| rules.contains(r));
    let listed: Vec<String> =
        (0..rule_select.length()).filter_map(|i| rule_select.item(i)).map(|o| o.id()).collect();
    let wanted: Vec<String> = rules.iter().map(|r| format!("config-rule-{}", r.id())).collect();
    if listed != wanted {
        rule_select.set_inner_html("");
        for rule in &rules {
            add_option(&rule_select, rule.id(), rule.id()).set_id(&format!("config-rule-{}", rule.id()));
        }
    }
    let Some(rule) = chosen.or_else(|| rules.first().copied()) else {
        set_text("config-text", "No rule is chosen: pick one under Algorithms.");
        return;
    };
    rule_select.set_value(rule.id());
    let program: Program = program_select.value().parse().unwrap_or(Program::Nginx);
    let full = by_id::<HtmlInputElement>("config-full").is_some_and(|c| c.checked());
    let request = Request { program, rule, full, key: Key::Arg("user".into()), port: 8080 };
    set_text("config-text", &config::write(&scenario, &request));
    let whole = if full { " --full" } else { "" };
    set_text(
        "config-cli",
        &format!("lbsim config --for {} --algorithm {}{whole} --url '{}'", program.id(), rule.id(), link),
    );
}

/// Downloads the report `bytes` (the workers' wire format, as the first
/// module holds it) as `format`: the JSON or CSV `lbsim run --format`
/// writes for the same link.
pub fn results(bytes: &[u8], format: &str) {
    let report = match lbsim_protocol::wire::decode::<lbsim_core::Report>(bytes) {
        Ok(report) => report,
        Err(e) => return set_text("share-status", &format!("The results could not be read: {e}")),
    };
    if format == "json" {
        match lbsim_core::report::json::to_string(&report) {
            Ok(text) => dom::download_text(&text, "application/json", "lbsim-results.json"),
            Err(e) => set_text("share-status", &format!("The results could not be written: {e}")),
        }
    } else {
        dom::download_text(&report.csv(), "text/csv", "lbsim-results.csv");
    }
}

/// A finished sweep handed over by the first module: its range `spec` (as
/// the link writes it) and its `rows` (the workers' wire format).
fn finished_sweep(spec: &str, rows: &[u8]) -> Result<(Sweep, Vec<Vec<Headline>>), String> {
    let sweep = Sweep::parse(spec, "sweep", MAX_LINK_SWEEP_VALUES).map_err(|e| e.to_string())?;
    let rows = lbsim_protocol::wire::decode(rows).map_err(|e| e.to_string())?;
    Ok((sweep, rows))
}

/// Draws the finished sweep `spec` of `rows` with the figure `figure` (on
/// a log axis if `log`), the lesson's rules of `preset` standing out as in
/// the page's other plots, and its legend; `finished`: the sweep has just
/// finished, and the body's `data-sweep` says "ready" once it is drawn.
pub fn sweep(spec: &str, rows: &[u8], figure: &str, log: bool, preset: Option<String>, finished: bool) {
    if let Some(canvas) = by_id("sweep") {
        let focus = preset.as_deref().and_then(presets::preset).map_or(&[][..], |p| p.view.focus);
        let drawn = finished_sweep(spec, rows).and_then(|(sweep, rows)| {
            let figure = Figure::parse(figure).map_err(|e| e.to_string())?;
            plots::sweep::sweep(&canvas, &sweep, &rows, figure, log, &Look { focus, ..look() })
        });
        match drawn {
            Ok(legend) => view::show_legend("sweep", legend),
            Err(e) => set_text("sweep-status", &e),
        }
    }
    if finished {
        dom::set_body_data("sweep", "ready");
    }
}

/// Downloads the finished sweep `spec` of `rows` as `lbsim sweep --format
/// csv` writes it.
pub fn sweep_csv(spec: &str, rows: &[u8]) {
    match finished_sweep(spec, rows) {
        Ok((sweep, rows)) => dom::download_text(&sweep.csv(&rows), "text/csv", "lbsim-sweep.csv"),
        Err(e) => set_text("sweep-status", &e),
    }
}

/// Saves the sweep's plot as a PNG, the legend this module drew under it.
pub fn sweep_png() {
    view::save_png("sweep");
}
