//! Drawing what the page knows: the plots, the table, the realized
//! figures, the remapping panel and notices. Every number comes from the
//! core (the report, [`MMc::of_scenario`], [`remap::compare`]); this module
//! decides only where it goes on screen.

use lbsim_core::remap::{self, Change, Remap, RemapReport};
use lbsim_core::report::AlgorithmResult;
use lbsim_core::theory::MMc;
use lbsim_core::{Report, Scenario};
use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, HtmlDetailsElement, HtmlInputElement, HtmlSelectElement};

use crate::controls::thousands;
use crate::dom::{self, by_id, document, set_text};
pub use crate::dom::{add_notice, show_notice};
use crate::lazy;
use crate::plots::cdf::{latency, CdfView, Class};
use crate::plots::legend::{self, png_with_legend, LegendRow};
use crate::plots::load::{grid, loads};
use crate::plots::look::Look;
use crate::plots::over_time::{
    error_series, hit_series, over_time, queue_series, requests, OverTime, Series,
};
use crate::plots::remap::{remapping, remapping_height};
use crate::state::{look, set_state, with};
use crate::table;

/// Which canvases to redraw.
#[derive(Clone, Copy)]
pub struct Redraw {
    /// The latency distribution.
    pub latency: bool,
    /// Per-server loads, the table and the realized figures.
    pub loads: bool,
    /// Queues over time.
    pub queues: bool,
    /// The remapping panel.
    pub remapping: bool,
}

impl Redraw {
    /// Everything.
    pub const ALL: Redraw = Redraw { latency: true, loads: true, queues: true, remapping: true };
    /// Only the latency plot (its view changed).
    pub const LATENCY: Redraw = Redraw { latency: true, loads: false, queues: false, remapping: false };
}

fn canvas(id: &str) -> Option<HtmlCanvasElement> {
    by_id(id)
}

/// Draws a report: the parts `what` names.
pub fn show_report(report: &Report, what: Redraw) {
    let look = look();
    let results: Vec<&AlgorithmResult> = report.results.iter().collect();
    let view = with(|app| app.view);
    // Quick and slow requests exist when the requests carry classes (the
    // scenario's work kind says nothing of a log's requests).
    let bimodal = report.classed();
    for class in ["quick", "slow"] {
        if let Some(input) = document()
            .query_selector(&format!("input[name=cdf-class][value={class}]"))
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
        {
            input.set_disabled(!bimodal);
        }
    }
    let view = if bimodal { view } else { CdfView { class: Class::All, ..view } };
    let mut problems = Vec::new();
    if what.latency {
        if let Some(c) = canvas("cdf") {
            match latency(&c, &results, view, MMc::of_scenario(&report.scenario), &look) {
                Ok(rows) => show_legend("cdf", rows),
                Err(e) => problems.push(e),
            }
        }
    }
    if what.loads {
        if let Some(c) = canvas("loads") {
            let (cols, row) = grid(f64::from(c.client_width().max(300)), results.len());
            let rows = results.len().div_ceil(cols).max(1);
            let _ = c.style().set_property("height", &format!("{}px", 40 + rows * row));
            if let Err(e) = loads(&c, &results, |r| report.fair_load(r), cols, &look) {
                problems.push(e);
            }
        }
    }
    if what.queues {
        // The fleet's plots show only for runs of the fleet over time, the
        // hit rate only for runs with caches.
        let fleet = results.iter().any(|r| r.error_series.is_some());
        if let Some(body) = document().body() {
            let _ = body.class_list().toggle_with_force("fleet", fleet);
            let _ = body.class_list().toggle_with_force("caches", report.has_caches());
        }
        let events = &report.scenario.events;
        let plots: [(&str, &str, &str, Series, bool, &str); 3] = [
            (
                "queues",
                "Longest queue on any server over time",
                "requests waiting",
                queue_series,
                false,
                "no request waited",
            ),
            ("errors", "Errors over time", "errors per bucket", error_series, false, "no errors in this run"),
            ("hits", "Cache hit rate over time", "hit rate", hit_series, true, ""),
        ];
        for (id, title, y_desc, series, share, none) in plots {
            // A hidden plot is not drawn (it would cost the re-run time).
            let hidden = (id == "errors" && !fleet) || (id == "hits" && !report.has_caches());
            if hidden {
                continue;
            }
            if let Some(c) = canvas(id) {
                let what = OverTime { title, y_desc, series, share, none };
                match over_time(&c, &results, what, events, &look) {
                    Ok(rows) => show_legend(id, rows),
                    Err(e) => problems.push(e),
                }
            }
        }
        if let Some(c) = canvas("requests").filter(|_| fleet) {
            let (cols, row) = grid(f64::from(c.client_width().max(300)), results.len());
            let rows = results.len().div_ceil(cols).max(1);
            let _ = c.style().set_property("height", &format!("{}px", 40 + rows * row));
            match requests(&c, &results, events, cols, &look) {
                Ok(rows) => show_legend("requests", rows),
                Err(e) => problems.push(e),
            }
        }
    }
    crate::events::mark_after(&report.scenario.events, report.end_ms());
    if what.loads {
        table::fill(report, with(|app| app.sort));
        realized(report);
    }
    if what.remapping {
        lazy::remapping(false);
        lazy::config();
        lazy::replay();
    }
    if !problems.is_empty() {
        show_notice("A plot could not be drawn", &problems);
    }
}

fn realized(report: &Report) {
    let r = &report.realized;
    let mut text = format!(
        "This run: {} requests at {:.1}/s, offered load {:.3}, top user {:.1}% of requests, top ten {:.1}%",
        thousands(r.requests),
        r.rate_per_s,
        r.load,
        r.top_user_share * 100.0,
        r.top10_share * 100.0
    );
    if report.classed() {
        text += &format!(", slow share {:.2}%", r.slow_share * 100.0);
    }
    if report.has_caches() {
        text += " (the load is of the work as if nothing were cached; the loads plot shows the work done)";
    }
    text.push('.');
    // Beside hashing rules, why their largest share swings (the core's
    // note, which `lbsim run` prints under its table too).
    if let Some(note) = report.placement_note() {
        text = text + " " + &note;
    }
    set_text("realized", &text);
}

/// The remapping experiment for the scenario's servers: add one server, or
/// remove the last, under every scheme.
pub fn draw_remapping(s: &Scenario, look: &Look, force: bool) {
    let Some(panel) = by_id::<HtmlDetailsElement>("remap-panel") else { return };
    if !panel.open() {
        return;
    }
    let add = by_id::<HtmlSelectElement>("remap-change").is_none_or(|s| s.value() != "remove");
    let nodes: Vec<String> = (0..s.servers as usize).map(|i| s.server_name(i)).collect();
    let hash = s.hash.map_or("", |h| h.id());
    // The width too: the panels' columns and the canvas's height follow it.
    let width = canvas("remap").map_or(0, |c| c.client_width());
    // The theme too: a light/dark switch redraws.
    let bg = look.theme.bg;
    let key = format!(
        "{}|{add}|{hash}|{}|{}|{}|{width}|{},{},{}",
        nodes.join(","),
        s.vnodes,
        s.builder.id(),
        look.scale,
        bg.0,
        bg.1,
        bg.2
    );
    if !force && with(|app| app.remap_key == key) {
        return;
    }
    let change = Change::for_pool(&nodes, add);
    let (words, ideal) = (change.words(nodes.len()), change.ideal_share(nodes.len()));
    let base = Remap { nodes, change, ..Remap::default() }.placed_as(s);
    let reports: Vec<(&'static str, RemapReport)> =
        remap::compare(&base).into_iter().map(|(scheme, r)| (scheme.id(), r)).collect();
    if let Some(c) = canvas("remap") {
        let css_width = f64::from(width.max(300));
        let (cols, row) = grid(css_width, reports.len());
        let height = remapping_height(css_width, reports.len(), cols, row);
        let _ = c.style().set_property("height", &format!("{height}px"));
        match remapping(&c, &reports, ideal, &words, cols, look) {
            Ok(rows) => show_legend("remap", rows),
            Err(e) => show_notice("The remapping plot could not be drawn", &[e]),
        }
    }
    remap_table(&reports);
    with(|app| app.remap_key = key);
}

fn remap_table(reports: &[(&'static str, RemapReport)]) {
    let Some(tbody) = document().query_selector("#remap-table tbody").ok().flatten() else { return };
    tbody.set_text_content(None);
    for (id, r) in reports {
        let tr = dom::element("tr", "");
        let _ = tr.set_attribute("data-scheme", id);
        let _ = tr.append_child(&dom::text_element("th", "", id));
        let _ = tr.append_child(&dom::text_element("td", "", &format!("{} of {}", r.moved, r.keys)));
        let share = r.moved as f64 * 100.0 / r.keys.max(1) as f64;
        let _ = tr.append_child(&dom::text_element("td", "", &format!("{share:.1}%")));
        let _ = tbody.append_child(&tr);
    }
}

/// Redraws the report on screen (or the remapping panel alone).
pub fn redraw(what: Redraw) {
    if let Some(report) = with(|app| app.report.clone()) {
        show_report(&report, what);
    } else if what.remapping {
        lazy::remapping(true);
        lazy::config();
        lazy::replay();
    }
}

/// Writes a plot's legend next to its canvas `id` (the list
/// `{id}-legend`), and keeps its rows for a saved PNG.
pub fn show_legend(id: &'static str, rows: Vec<LegendRow>) {
    legend::fill(&format!("{id}-legend"), &rows);
    with(|app| match app.legends.iter_mut().find(|(k, _)| *k == id) {
        Some((_, kept)) => *kept = rows,
        None => app.legends.push((id, rows)),
    });
}

/// Saves the canvas `id` as a PNG file, its legend drawn under the chart.
pub fn save_png(id: &str) {
    let Some(c) = canvas(id) else { return };
    let rows = with(|app| app.legends.iter().find(|(k, _)| *k == id).map(|(_, rows)| rows.clone()));
    let data = match rows.filter(|rows| !rows.is_empty()) {
        Some(rows) => png_with_legend(&c, &rows, &look()),
        None => c.to_data_url().ok(),
    };
    if let Some(data) = data {
        dom::download(&data, &format!("lbsim-{id}.png"));
    }
}

/// Something went wrong that the reader should know about.
pub fn fail(message: &str) {
    show_notice("Something went wrong", &[message.to_string()]);
    set_state("error");
}

/// Shows the question before a long run, next to the run's status.
pub fn show_confirm(text: &str) {
    set_text("confirm-text", text);
    dom::set_hidden("confirm", false);
}

/// Hides the question.
pub fn hide_confirm() {
    dom::set_hidden("confirm", true);
}
