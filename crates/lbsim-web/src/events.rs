//! The events editor: the scenario's `events` as a list of rows (time,
//! server, kind, speed factor for `slow`), each with a remove button, and
//! an "add event" button. Every change writes the events string into the
//! `events` text control and commits it like any control, so the core
//! checks it, the link follows, and an error is shown on that control.
//! Like the other controls it knows nothing of the page's state: the
//! commit and the scenario on screen come from the wiring, as functions.

use lbsim_core::events::{Event, EventKind, Events};
use lbsim_core::Scenario;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event as DomEvent, HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::dom::{add_option, by_id, document, element, on, on_id, target, text_element};

/// Adds the rows' container and the add button under the text control.
pub fn build(wrap: &Element) {
    let rows = element("div", "event-rows");
    let _ = rows.set_attribute("id", "event-rows");
    let _ = wrap.append_child(&rows);
    let add = text_element("button", "", "add event");
    let _ = add.set_attribute("type", "button");
    let _ = add.set_attribute("id", "add-event");
    let _ = wrap.append_child(&add);
    let note = element("p", "events-past");
    let _ = note.set_attribute("id", "events-past");
    let _ = note.set_attribute("aria-live", "polite");
    let _ = note.set_attribute("hidden", "");
    let _ = wrap.append_child(&note);
}

/// Marks the rows of `events` after the run's last arrival `end_ms` (the
/// core's [`Events::after`]) and says under the rows that they change
/// nothing; the run's length stays as its requests make it.
pub fn mark_after(events: &Events, end_ms: f64) {
    let late: Vec<&Event> = events.after(end_ms).collect();
    let all = rows();
    for (r, e) in all.iter().zip(&events.0) {
        let past = all.len() == events.0.len() && late.contains(&e);
        let _ = r.class_list().toggle_with_force("past-end", past);
    }
    let Some(note) = by_id::<HtmlElement>("events-past") else { return };
    note.set_hidden(late.is_empty());
    let list: Vec<String> = late.iter().map(|e| e.to_string()).collect();
    note.set_text_content(Some(&format!(
        "After the run's last answer ({:.1} s), so changing nothing in it: {}.",
        end_ms / 1000.0,
        list.join(", ")
    )));
}

fn part(tag: &str, class: &str, label: String) -> Element {
    let e = element(tag, class);
    let _ = e.set_attribute("aria-label", &label);
    e
}

fn options(select: &Element, values: impl IntoIterator<Item = String>, chosen: &str) {
    for v in values {
        let o = add_option(select, &v, &v);
        if v == chosen {
            let _ = o.set_attribute("selected", "");
        }
    }
}

/// One row for event `e` (number `n`, from 1), its server chosen from
/// `names`.
fn row(n: usize, e: &Event, names: &[String]) -> Element {
    let div = element("div", "event-row");
    let _ = div.set_attribute("role", "group");
    let _ = div.set_attribute("aria-label", &format!("event {n}"));
    let time = part("input", "ev-time", format!("event {n} time (20s, 1500ms)"));
    let _ = time.set_attribute("type", "text");
    // The time as the canonical string writes it (20s, 1500ms).
    let text = e.to_string();
    let _ = time.set_attribute("value", text.split(':').next().unwrap_or_default());
    let server = part("select", "ev-server", format!("event {n} server"));
    options(&server, names.iter().cloned(), &e.server);
    let kind = part("select", "ev-kind", format!("event {n} kind"));
    let factor = match e.kind {
        EventKind::Slow(f) => Some(f),
        _ => None,
    };
    options(&kind, EventKind::ALL.map(|k| k.name().to_string()), e.kind.name());
    let value = part("input", "ev-value", format!("event {n} speed factor (slow)"));
    let _ = value.set_attribute("type", "number");
    let _ = value.set_attribute("min", "0.01");
    let _ = value.set_attribute("max", "100");
    let _ = value.set_attribute("step", "any");
    let _ = value.set_attribute("value", &factor.map(|f| f.to_string()).unwrap_or_default());
    if factor.is_none() {
        let _ = value.set_attribute("disabled", "");
    }
    let remove = part("button", "ev-remove", format!("remove event {n}"));
    remove.set_text_content(Some("\u{2212}"));
    let _ = remove.set_attribute("type", "button");
    for p in [time, server, kind, value, remove] {
        let _ = div.append_child(&p);
    }
    div
}

fn rows() -> Vec<Element> {
    let Ok(list) = document().query_selector_all("#event-rows .event-row") else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)?.dyn_into().ok()).collect()
}

/// The focused part of the editor, as (row, class), to focus again after
/// the rows are rebuilt.
fn focused() -> Option<(usize, String)> {
    let active = document().active_element()?;
    let row = active.closest(".event-row").ok()??;
    let index = rows().iter().position(|r| *r == row)?;
    Some((index, active.class_name()))
}

fn focus(index: usize, class: &str) {
    let row = rows().into_iter().nth(index);
    if let Some(e) = row.and_then(|r| r.query_selector(&format!(".{class}")).ok().flatten()) {
        if let Some(e) = e.dyn_ref::<HtmlElement>() {
            let _ = e.focus();
        }
    }
}

/// Rebuilds the rows from the scenario's events, keeping the focus.
pub fn sync(s: &Scenario) {
    let Some(list) = by_id::<Element>("event-rows") else { return };
    let was = focused();
    list.set_text_content(None);
    let names: Vec<String> = (0..s.servers as usize).map(|i| s.server_name(i)).collect();
    for (i, e) in s.events.0.iter().enumerate() {
        let _ = list.append_child(&row(i + 1, e, &names));
    }
    if let Some((i, class)) = was {
        focus(i, &class);
    }
}

fn value_of<T: JsCast>(row: &Element, class: &str) -> Option<T> {
    row.query_selector(&format!(".{class}")).ok()??.dyn_into().ok()
}

/// The events string the rows say, in their order: a bare number of
/// seconds gets its `s`.
fn encode() -> String {
    let mut items = Vec::new();
    for r in rows() {
        let time = value_of::<HtmlInputElement>(&r, "ev-time").map(|i| i.value()).unwrap_or_default();
        let time = time.trim();
        let unit = if time.parse::<f64>().is_ok() { "s" } else { "" };
        let server = value_of::<HtmlSelectElement>(&r, "ev-server").map(|s| s.value()).unwrap_or_default();
        let mut kind = value_of::<HtmlSelectElement>(&r, "ev-kind").map(|s| s.value()).unwrap_or_default();
        if let Some(v) = value_of::<HtmlInputElement>(&r, "ev-value") {
            v.set_disabled(kind != "slow");
            if kind == "slow" {
                if v.value().is_empty() {
                    v.set_value("0.5");
                }
                kind = format!("slow={}", v.value());
            }
        }
        items.push(format!("{time}{unit}:{server}:{kind}"));
    }
    items.join(",")
}

/// Writes the rows' events into the text control and commits them.
fn commit(events: fn(&str)) {
    let text = encode();
    if let Some(input) = by_id::<HtmlInputElement>("c-events") {
        input.set_value(&text);
    }
    events(&text);
}

/// Wires the rows and the add button: every change goes to `events` (the
/// wiring's commit of the `events` control), and a new row follows the
/// last event of `scenario()`, the scenario on screen.
pub fn wire(events: fn(&str), scenario: fn() -> Scenario) {
    if let Some(list) = by_id::<Element>("event-rows") {
        on(&list, "change", move |_| commit(events));
        on(&list, "click", move |e: DomEvent| {
            let Some(button) = target::<Element>(&e).and_then(|t| t.closest(".ev-remove").ok()?) else {
                return;
            };
            let all = rows();
            let row = button.closest(".event-row").ok().flatten();
            let Some(index) = all.iter().position(|r| Some(r) == row.as_ref()) else { return };
            all[index].remove();
            // The focus goes to the next row's remove button, or to add.
            if index + 1 < all.len() {
                focus(index, "ev-remove");
            } else if let Some(add) = by_id::<HtmlElement>("add-event") {
                let _ = add.focus();
            }
            commit(events);
        });
    }
    on_id("add-event", "click", move |_| {
        let s = scenario();
        let at_ms = s.events.0.last().map_or(20_000, |e| e.at_ms + 10_000);
        let server = s.server_name(0);
        let e = Event { at_ms, server, kind: EventKind::Slow(0.5) };
        let names: Vec<String> = (0..s.servers as usize).map(|i| s.server_name(i)).collect();
        let n = rows().len();
        if let Some(list) = by_id::<Element>("event-rows") {
            let _ = list.append_child(&row(n + 1, &e, &names));
        }
        focus(n, "ev-time");
        commit(events);
    });
}
