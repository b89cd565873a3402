//! The results table (`<table id="results">`), the plots' text
//! alternative: one row per algorithm, sortable by any column, each cell
//! holding its exact value in `data-value`. (The CSV download is the
//! core's [`Report::csv`], the same as `lbsim run --format csv`.)

use lbsim_core::report::columns::COLUMNS;
use lbsim_core::report::AlgorithmResult;
use lbsim_core::Report;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

use crate::dom::{by_id, element, text_element};
use crate::palette;

/// Builds the header: one sort button per column.
pub fn build_head() {
    let Some(table) = by_id::<Element>("results") else { return };
    let Some(thead) = table.query_selector("thead").ok().flatten() else { return };
    let row = element("tr", "");
    let first = text_element("th", "", "algorithm");
    let _ = first.set_attribute("scope", "col");
    let _ = row.append_child(&first);
    for (i, c) in COLUMNS.iter().enumerate() {
        let th = element("th", "");
        let _ = th.set_attribute("scope", "col");
        let _ = th.set_attribute("data-key", c.key);
        let _ = th.set_attribute("aria-sort", "none");
        if c.shown.is_some() {
            let _ = th.set_attribute("hidden", "");
        }
        let button = text_element("button", "sort", c.heading);
        let _ = button.set_attribute("type", "button");
        let _ = button.set_attribute("data-column", &i.to_string());
        let _ = th.append_child(&button);
        let _ = row.append_child(&th);
    }
    let _ = thead.append_child(&row);
}

/// How the rows are ordered: by column `index`, ascending or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    /// Column index.
    pub index: usize,
    /// Smallest first.
    pub ascending: bool,
}

/// Fills the body from the report, in the given order.
pub fn fill(report: &Report, sort: Option<Sort>) {
    let Some(table) = by_id::<Element>("results") else { return };
    let Some(tbody) = table.query_selector("tbody").ok().flatten() else { return };
    let mut rows: Vec<&AlgorithmResult> = report.results.iter().collect();
    if let Some(s) = sort {
        if let Some(c) = COLUMNS.get(s.index) {
            let key = |r: &AlgorithmResult| (c.value)(r).unwrap_or(f64::NAN);
            let before = |a: &AlgorithmResult, b: &AlgorithmResult| {
                let o = key(a).total_cmp(&key(b));
                if s.ascending {
                    o.is_lt()
                } else {
                    o.is_gt()
                }
            };
            // A row a rule, a dozen or so: an insertion sort (stable) is plenty, and
            // far smaller in the bundle than the standard library's sort.
            for i in 1..rows.len() {
                let mut j = i;
                while j > 0 && before(rows[j], rows[j - 1]) {
                    rows.swap(j, j - 1);
                    j -= 1;
                }
            }
        }
    }
    tbody.set_text_content(None);
    for r in rows {
        let tr = element("tr", "");
        let _ = tr.set_attribute("data-algorithm", r.algorithm.id());
        let th = element("th", "");
        let _ = th.set_attribute("scope", "row");
        let _ = th.set_attribute("title", r.algorithm.description());
        let _ = th.append_child(&palette::swatch(r.algorithm));
        let _ = th.append_child(&text_element("span", "", r.algorithm.id()));
        let _ = tr.append_child(&th);
        for c in COLUMNS.iter().filter(|c| c.shown(report)) {
            let td = match (c.value)(r) {
                Some(v) => {
                    let td = text_element("td", "", &(c.format)(v));
                    let _ = td.set_attribute("data-value", &v.to_string());
                    td
                }
                // An empty figure reads as the CLI's tables write it.
                None => text_element("td", "", "-"),
            };
            let _ = td.set_attribute("data-key", c.key);
            let _ = tr.append_child(&td);
        }
        let _ = tbody.append_child(&tr);
    }
    if let Ok(heads) = table.query_selector_all("thead th[data-key]") {
        for i in 0..heads.length() {
            if let Some(th) = heads.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                let state = match sort {
                    Some(s) if s.index == i as usize && s.ascending => "ascending",
                    Some(s) if s.index == i as usize => "descending",
                    _ => "none",
                };
                let _ = th.set_attribute("aria-sort", state);
                if let (Some(c), Some(th)) = (COLUMNS.get(i as usize), th.dyn_ref::<HtmlElement>()) {
                    th.set_hidden(!c.shown(report));
                }
            }
        }
    }
}
