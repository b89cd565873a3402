//! The scenario form, built from the core's one table of ranges
//! ([`lbsim_core::scenario::FIELDS`]): one labelled input per URL key,
//! named after it, showing its value and its range.

use lbsim_core::scenario::{field_spec, Field, FieldKind, Group, FIELDS};
use lbsim_core::{AlgorithmId, Scenario};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlDetailsElement, HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::dom::{add_option, by_id, document, element, text_element};
use crate::palette;

/// Requests above this are refused here: a run must stay interactive. The
/// CLI runs up to the table's maximum.
pub const MAX_INTERACTIVE_REQUESTS: u64 = 1_000_000;

/// The fields the form shows, in the table's order, each in the group its
/// row names and under its row's label (the rules are the checkboxes).
pub fn layout() -> impl Iterator<Item = &'static Field> {
    FIELDS.iter().filter(|f| f.group != Group::Rules && f.group != Group::Log)
}

/// Real fields with a small range get a slider; the rest a number box.
fn is_slider(f: &Field) -> bool {
    f.kind == FieldKind::Real && f.max <= 5.0
}

/// An integer with thousands separators (10,000,000), as the core's
/// messages write counts.
pub use lbsim_core::scenario::thousands;

fn number(v: f64) -> String {
    if v >= 1e6 {
        thousands(v as u64)
    } else {
        format!("{v}")
    }
}

/// The range as the page shows it.
pub fn range_text(f: &Field) -> String {
    match f.kind {
        FieldKind::Integer if f.key == "requests" => format!(
            "{} to {} here; the CLI takes up to {}",
            number(f.min),
            number(MAX_INTERACTIVE_REQUESTS as f64),
            number(f.max)
        ),
        FieldKind::Integer | FieldKind::Real => format!("{} to {}", number(f.min), number(f.max)),
        FieldKind::NumberList => format!("one per server, each {} to {}", number(f.min), number(f.max)),
        FieldKind::NameList => "one per server, comma-separated".to_string(),
        FieldKind::Choice => String::new(),
        FieldKind::Events => "TIME:SERVER:KIND, comma-separated".to_string(),
        FieldKind::Text => format!("at most {} characters", number(f.max)),
    }
}

fn input_id(key: &str) -> String {
    format!("c-{key}")
}

/// Builds every control into its fieldset.
pub fn build() {
    for f in layout() {
        let (key, label) = (f.key, f.label);
        let Some(fieldset) =
            document().query_selector(&format!("[data-group={}]", f.group.id())).ok().flatten()
        else {
            continue;
        };
        let wrap = element("div", "control");
        let _ = wrap.set_attribute("data-key", key);
        let id = input_id(key);
        let label_el = text_element("label", "", label);
        let _ = label_el.set_attribute("for", &id);
        let _ = label_el.set_attribute("title", f.meaning);
        let _ = wrap.append_child(&label_el);
        let input: Element = match f.kind {
            FieldKind::Choice => {
                let select = element("select", "");
                for choice in f.choices() {
                    add_option(&select, choice.id, choice.label);
                }
                select
            }
            FieldKind::Integer | FieldKind::Real => {
                let input = element("input", "");
                let slider = is_slider(f);
                let _ = input.set_attribute("type", if slider { "range" } else { "number" });
                let _ = input.set_attribute("min", &f.min.to_string());
                let max = if key == "requests" { MAX_INTERACTIVE_REQUESTS as f64 } else { f.max };
                let _ = input.set_attribute("max", &max.to_string());
                let step = if key == "rate" || key.ends_with("-ms") {
                    "any".to_string()
                } else {
                    f.step.to_string()
                };
                let _ = input.set_attribute("step", &step);
                if key == "rate" {
                    let _ = input.set_attribute("placeholder", "from load");
                }
                input
            }
            FieldKind::NumberList | FieldKind::NameList | FieldKind::Events | FieldKind::Text => {
                let input = element("input", "");
                let _ = input.set_attribute("type", "text");
                let _ = input.set_attribute("spellcheck", "false");
                let placeholder = match f.kind {
                    FieldKind::Events => "20s:s3:fail,40s:s3:recover",
                    _ if key == "names" => "s1,s2,...",
                    _ => "all 1",
                };
                let _ = input.set_attribute("placeholder", placeholder);
                input
            }
        };
        let _ = input.set_attribute("id", &id);
        let _ = input.set_attribute("name", key);
        let _ = input.set_attribute("aria-describedby", &format!("{id}-range {id}-error"));
        let _ = wrap.append_child(&input);
        if is_slider(f) {
            let output = element("output", "value");
            let _ = output.set_attribute("for", &id);
            let _ = output.set_attribute("id", &format!("{id}-value"));
            let _ = wrap.append_child(&output);
        }
        if key == "seed" {
            let button = text_element("button", "", "new seed");
            let _ = button.set_attribute("type", "button");
            let _ = button.set_attribute("id", "new-seed");
            let _ = wrap.append_child(&button);
        }
        if key == "events" {
            crate::events::build(&wrap);
        }
        let range = text_element("small", "range", &range_text(f));
        let _ = range.set_attribute("id", &format!("{id}-range"));
        let _ = wrap.append_child(&range);
        let error = element("small", "error");
        let _ = error.set_attribute("id", &format!("{id}-error"));
        let _ = error.set_attribute("role", "alert");
        let _ = wrap.append_child(&error);
        let _ = fieldset.append_child(&wrap);
    }
    if let Some(fieldset) = document().query_selector("[data-group=algorithms]").ok().flatten() {
        let wrap = element("div", "control algorithms");
        let _ = wrap.set_attribute("data-key", "algorithms");
        // Every rule: the current ones run in the full simulator's worker
        // (`pool`).
        for a in AlgorithmId::ALL {
            let label = element("label", "algorithm");
            let _ = label.set_attribute("title", a.description());
            let input = element("input", "");
            let _ = input.set_attribute("type", "checkbox");
            let _ = input.set_attribute("name", "algorithms");
            let _ = input.set_attribute("value", a.id());
            let _ = label.append_child(&input);
            let _ = label.append_child(&palette::swatch(*a));
            let _ = label.append_child(&document().create_text_node(a.id()));
            let _ = wrap.append_child(&label);
        }
        let error = element("small", "error");
        let _ = error.set_attribute("id", "c-algorithms-error");
        let _ = error.set_attribute("role", "alert");
        let _ = wrap.append_child(&error);
        let _ = fieldset.append_child(&wrap);
    }
    // A folded group says how much it holds.
    for group in folded_groups() {
        let n = group.query_selector_all(".control").map_or(0, |l| l.length());
        if let Ok(Some(summary)) = group.query_selector("summary") {
            let _ = summary.append_child(&text_element("span", "count", &format!("{n} settings")));
        }
    }
}

/// The form's folded groups (Hashing, Health, ...).
fn folded_groups() -> Vec<HtmlDetailsElement> {
    let Ok(list) = document().query_selector_all("#controls details") else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)?.dyn_into().ok()).collect()
}

/// Folds every group (before a preset opens the ones it changes).
pub fn fold_groups() {
    for group in folded_groups() {
        group.set_open(false);
    }
}

/// The text a control should hold for the scenario.
fn value_text(scenario: &Scenario, key: &str) -> String {
    scenario.get(key).unwrap_or_default()
}

/// Puts every control in step with the scenario (a link, a preset), and
/// opens each folded group holding a value other than the default, so
/// what the scenario changed is in view.
pub fn sync(scenario: &Scenario) {
    let defaults = Scenario::default();
    for key in layout().map(|f| f.key) {
        sync_one(scenario, key);
        if scenario.get(key) != defaults.get(key) {
            let group = document()
                .query_selector(&format!(".control[data-key=\"{key}\"]"))
                .ok()
                .flatten()
                .and_then(|wrap| wrap.closest("details").ok().flatten())
                .and_then(|d| d.dyn_into::<HtmlDetailsElement>().ok());
            if let Some(group) = group {
                group.set_open(true);
            }
        }
    }
    let picked: Vec<&str> = scenario.algorithms.iter().map(|a| a.id()).collect();
    if let Ok(list) = document().query_selector_all("input[name=algorithms]") {
        for i in 0..list.length() {
            if let Some(input) = list.item(i).and_then(|n| n.dyn_into::<HtmlInputElement>().ok()) {
                input.set_checked(picked.contains(&input.value().as_str()));
            }
        }
    }
    mark_inactive(scenario);
}

/// Puts one control in step with the scenario.
pub fn sync_one(scenario: &Scenario, key: &str) {
    let id = input_id(key);
    let text = value_text(scenario, key);
    if let Some(input) = by_id::<HtmlInputElement>(&id) {
        if input.value() != text {
            input.set_value(&text);
        }
        show_value(key, &text);
    } else if let Some(select) = by_id::<HtmlSelectElement>(&id) {
        select.set_value(&text);
    }
    if key == "events" {
        crate::events::sync(scenario);
    }
    set_error(key, "");
}

/// Shows a slider's value next to it.
pub fn show_value(key: &str, text: &str) {
    if let Some(output) = by_id::<Element>(&format!("{}-value", input_id(key))) {
        output.set_text_content(Some(text));
    }
}

/// Shows (or clears, with "") the error under a control, as text, and
/// marks the control `aria-invalid` (its `aria-describedby` names the
/// error text).
pub fn set_error(key: &str, message: &str) {
    let id = input_id(key);
    if let Some(e) = by_id::<Element>(&format!("{id}-error")) {
        e.set_text_content(Some(message));
    }
    if let Some(input) = by_id::<Element>(&id) {
        if message.is_empty() {
            let _ = input.remove_attribute("aria-invalid");
        } else {
            let _ = input.set_attribute("aria-invalid", "true");
        }
    }
    if let Some(wrap) = document().query_selector(&format!(".control[data-key=\"{key}\"]")).ok().flatten() {
        let _ = wrap.class_list().toggle_with_force("invalid", !message.is_empty());
    }
}

/// Says over the results that they belong to the last good scenario while
/// `key` holds a value that cannot run (`last_good` is what ran).
pub fn show_stale(key: &str, last_good: &str) {
    let label = field_spec(key).map_or(key, |f| f.label);
    let shown = if last_good.is_empty() { "its default" } else { last_good };
    if let Some(stale) = by_id::<HtmlElement>("stale") {
        stale.set_text_content(Some(&format!(
            "The results below are for the last valid scenario ({label}: {shown}); fix the value in red to run again."
        )));
        stale.set_hidden(false);
    }
    if let Some(body) = document().body() {
        let _ = body.class_list().add_1("stale");
    }
}

/// Clears one control's error; the results' "last valid scenario" note
/// goes only when no control is left invalid.
pub fn clear_error(key: &str) {
    set_error(key, "");
    if document().query_selector(".control.invalid").ok().flatten().is_none() {
        hide_stale();
    }
}

/// The results belong to the controls again.
fn hide_stale() {
    if let Some(stale) = by_id::<HtmlElement>("stale") {
        stale.set_hidden(true);
    }
    if let Some(body) = document().body() {
        let _ = body.class_list().remove_1("stale");
    }
}

/// Puts every control still marked invalid back to the scenario's value
/// (the last valid one), so no control shows a value the results do not
/// belong to once a run goes ahead.
pub fn revert_invalid(scenario: &Scenario) {
    for key in layout().map(|f| f.key) {
        let invalid = document()
            .query_selector(&format!(".control.invalid[data-key=\"{key}\"]"))
            .ok()
            .flatten()
            .is_some();
        if invalid {
            sync_one(scenario, key);
        }
    }
}

/// Clears every control's error.
pub fn clear_errors() {
    for key in layout().map(|f| f.key) {
        set_error(key, "");
    }
    set_error("algorithms", "");
    hide_stale();
}

/// Disables the controls of fields the scenario does not use (slow share
/// for constant work, load when a rate is given, ...), as the core's
/// [`Scenario::uses`] says; disabled, they leave the tab order too.
pub fn mark_inactive(scenario: &Scenario) {
    for key in layout().map(|f| f.key) {
        let inactive = !scenario.uses(key);
        if let Some(wrap) = document().query_selector(&format!(".control[data-key=\"{key}\"]")).ok().flatten()
        {
            let _ = wrap.class_list().toggle_with_force("inactive", inactive);
        }
        let id = input_id(key);
        if let Some(input) = by_id::<HtmlInputElement>(&id) {
            input.set_disabled(inactive);
        } else if let Some(select) = by_id::<HtmlSelectElement>(&id) {
            select.set_disabled(inactive);
        }
    }
}

/// The algorithms ticked, in canonical order.
pub fn ticked_algorithms() -> Vec<AlgorithmId> {
    let mut out = Vec::new();
    if let Ok(list) = document().query_selector_all("input[name=algorithms]:checked") {
        for i in 0..list.length() {
            if let Some(input) = list.item(i).and_then(|n| n.dyn_into::<HtmlInputElement>().ok()) {
                if let Ok(a) = input.value().parse::<AlgorithmId>() {
                    out.push(a);
                }
            }
        }
    }
    // The boxes are in canonical order already.
    out
}

/// Shows only the controls named in `keys` (embed mode) and hides
/// fieldsets left empty; returns the keys that name no control.
pub fn show_only(keys: &[String]) -> Vec<String> {
    let mut missing = keys.to_vec();
    let Ok(list) = document().query_selector_all("#controls .control") else { return missing };
    for i in 0..list.length() {
        if let Some(wrap) = list.item(i).and_then(|n| n.dyn_into::<HtmlElement>().ok()) {
            let key = wrap.get_attribute("data-key").unwrap_or_default();
            wrap.set_hidden(!keys.contains(&key));
            missing.retain(|k| *k != key);
        }
    }
    let Ok(sets) = document().query_selector_all("#controls fieldset, #controls details") else {
        return missing;
    };
    for i in 0..sets.length() {
        if let Some(set) = sets.item(i).and_then(|n| n.dyn_into::<HtmlElement>().ok()) {
            let shown = set.query_selector(".control:not([hidden])").ok().flatten().is_some();
            set.set_hidden(!shown);
        }
    }
    missing
}
