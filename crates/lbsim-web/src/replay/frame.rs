//! What the view shows at the playhead: both sides drawn, the clock, the
//! scrubber, the play button's label and the counters, exactly as data
//! attributes too; the status line; and the view's layout (the canvases'
//! heights, the scrubber's range).

use js_sys::{Array, Reflect};
use lbsim_core::replay::Counters;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlElement, HtmlInputElement};

use super::draw::{draw_side, height, Frame};
use super::links::cli;
use super::state::{counters_line, seconds, with_player, Side};
use crate::dom::{by_id, now_ms, set_text, window};
use crate::state::look;

/// The view's state for the tests: `running`, `ready` or `error`.
pub fn set_state(state: &str) {
    if let Some(view) = by_id::<Element>("replay-view") {
        let _ = view.set_attribute("data-state", state);
    }
}

/// The line screen readers hear (and everyone reads) at each pause.
pub fn status(text: &str) {
    set_text("replay-status", text);
}

/// The status line at a pause, and the command that counts the same.
pub fn say_where() {
    let Some(text) = with_player(|p| p.said_at_pause()) else { return };
    status(&text);
    cli();
}

/// The canvases' heights (one row per server) and the scrubber's range.
pub fn layout() {
    let Some((servers, end, pair)) = with_player(|p| (p.names.len(), p.end_ms, p.pair)) else { return };
    for (i, rule) in pair.iter().enumerate() {
        if let Some(c) = by_id::<HtmlElement>(&format!("replay-canvas-{i}")) {
            let _ = c.style().set_property("height", &format!("{}px", height(servers)));
            let _ = c.set_attribute(
                "aria-label",
                &format!(
                    "{}: each server's slots and queue at the playhead; the counters under it and the status \
                     line say the same in text",
                    rule.id()
                ),
            );
        }
        set_text(&format!("replay-title-{i}"), rule.id());
        if let Some(title) = by_id::<HtmlElement>(&format!("replay-title-{i}")) {
            let _ = title.style().set_property("border-color", &crate::palette::css(*rule));
        }
    }
    if let Some(scrub) = by_id::<HtmlInputElement>("replay-scrub") {
        let _ = scrub.set_attribute("max", &end.to_string());
    }
    let size = |i: usize| {
        by_id::<HtmlElement>(&format!("replay-canvas-{i}"))
            .map_or((0.0, 0.0), |c| (f64::from(c.client_width()), f64::from(c.client_height())))
    };
    let sizes = [size(0), size(1)];
    with_player(|p| p.sizes = sizes);
}

/// Draws both sides at the playhead, and the clock, the scrubber and the
/// counters.
pub fn draw() {
    let started = now_ms();
    let look = look();
    let Some((t, end, playing)) = with_player(|p| {
        let frame = Frame {
            scenario: &p.scenario,
            timeline: &p.timeline,
            names: &p.names,
            t: p.t_ms,
            end: p.end_ms,
            glide: p.glide_ms(),
            scale: look.scale,
            theme: look.theme,
            sizes: p.sizes,
        };
        for (i, side) in p.sides.iter_mut().enumerate() {
            let counters = side.replay.at(frame.t);
            draw_side(i, side, &counters, &frame);
            show_counters(i, side, &counters);
        }
        (p.t_ms, p.end_ms, p.playing)
    }) else {
        return;
    };
    set_text("replay-clock", &format!("{} of {}", seconds(t), seconds(end)));
    if let Some(scrub) = by_id::<HtmlInputElement>("replay-scrub") {
        scrub.set_value_as_number(t);
    }
    let label = if playing { "Pause" } else { "Play" };
    if let Some(button) =
        by_id::<Element>("replay-play").filter(|b| b.text_content().as_deref() != Some(label))
    {
        button.set_text_content(Some(label));
    }
    if let Some(view) = by_id::<Element>("replay-view") {
        let _ = view.set_attribute("data-t-ms", &t.to_string());
        let _ = view.set_attribute("data-playing", if playing { "1" } else { "0" });
    }
    // The page benchmark's frame log (tests/support/bench-page.mjs), when it set one.
    if let Ok(log) = Reflect::get(&window(), &JsValue::from_str("lbsimReplayFrames")) {
        if let Some(log) = log.dyn_ref::<Array>() {
            let entry =
                Array::of3(&JsValue::from(started), &JsValue::from(now_ms()), &JsValue::from_bool(playing));
            log.push(&entry);
        }
    }
}

/// The counters beside a side, as text and, exactly, as data attributes.
fn show_counters(i: usize, side: &mut Side, c: &Counters) {
    let text = counters_line(c);
    if side.shown == text {
        return;
    }
    let Some(e) = by_id::<Element>(&format!("replay-counters-{i}")) else { return };
    e.set_text_content(Some(&text));
    let list = |v: &[u32]| v.iter().map(ToString::to_string).collect::<Vec<_>>().join(",");
    for (k, v) in [
        ("data-arrived", c.arrived.to_string()),
        ("data-finished", c.finished.to_string()),
        ("data-errors", c.errors.to_string()),
        ("data-retries", c.retries.to_string()),
        ("data-p99-ms", c.p99_ms.map_or_else(String::new, |v| v.to_string())),
        ("data-in-flight", list(&c.in_flight)),
        ("data-queued", list(&c.queued)),
        ("data-out", list(&c.out)),
    ] {
        let _ = e.set_attribute(k, &v);
    }
    side.shown = text;
}
