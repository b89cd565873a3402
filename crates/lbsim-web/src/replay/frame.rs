//! What the view shows at the playhead: both sides drawn, the clock, the
//! scrubber, the play button's label and the counters; the status line;
//! and the view's layout (the canvases' heights, the scrubber's range).
//! A test that sets `window.lbsimReplayDrawn` to an array finds in it,
//! per side and frame, what was drawn (`draw::draw_side`'s record).

use js_sys::{Array, Reflect};
use lbsim_core::replay::Counters;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlElement, HtmlInputElement};

use super::draw::{draw_side, height, Frame};
use super::links::cli;
use super::state::{counters_line, seconds, with_player, Side};
use crate::dom::{by_id, now_ms, set_text, window};
use crate::state::look;

thread_local! {
    /// Where [`bring_into_sight`] scrolled the page, until the replays
    /// arrive: if the reader has not scrolled since, the view is brought
    /// into sight again once it has its height.
    static BROUGHT: std::cell::Cell<Option<f64>> = const { std::cell::Cell::new(None) };
}

/// Scrolls the page so that the replay's panel starts at the top of the
/// window, when it is not in sight (a `view=replay` link opens it far
/// below the plots; an embed of the replay has it in sight already).
pub fn bring_into_sight() {
    let Some(panel) = by_id::<Element>("replay-panel") else { return };
    let win = window();
    let top = panel.get_bounding_client_rect().top();
    let height = win.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
    if (0.0..height * 0.5).contains(&top) {
        return;
    }
    let y = win.scroll_y().unwrap_or(0.0) + top - 8.0;
    win.scroll_to_with_x_and_y(0.0, y);
    BROUGHT.with(|b| b.set(Some(win.scroll_y().unwrap_or(y))));
}

/// Once the replays arrived: the view again at the top, unless the reader
/// scrolled meanwhile; and again until the page's own result is drawn
/// (its plots and table, above the replay, grow the page when they come,
/// which can be after the replay's), checked every 100 ms for 10 s at most.
pub fn keep_in_sight() {
    keep_in_sight_for(100);
}

fn keep_in_sight_for(checks: u32) {
    let Some(y) = BROUGHT.with(std::cell::Cell::take) else { return };
    if window().scroll_y().unwrap_or(0.0) != y {
        return;
    }
    bring_into_sight();
    let page_ready = crate::dom::document()
        .body()
        .and_then(|b| b.get_attribute("data-state"))
        .is_some_and(|s| s == "ready");
    if page_ready || checks == 0 {
        BROUGHT.with(|b| b.set(None));
        return;
    }
    let y = window().scroll_y().unwrap_or(y);
    BROUGHT.with(|b| b.set(Some(y)));
    crate::dom::after(100, move || keep_in_sight_for(checks - 1));
}

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
                    "{}: each server's slots and queue at the playhead, and what the rule heard (probes) or \
                     learned (weights); the counters under it and the status line say the same in text",
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
        // Whole ms, as the playhead rests: the last reaches the end.
        let _ = scrub.set_attribute("max", &end.ceil().to_string());
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
    let drawn = Reflect::get(&window(), &JsValue::from_str("lbsimReplayDrawn"))
        .ok()
        .and_then(|log| log.dyn_into::<Array>().ok());
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
            record: drawn.is_some(),
        };
        for (i, side) in p.sides.iter_mut().enumerate() {
            let counters = side.replay.at(frame.t);
            let record = draw_side(i, side, &counters, &frame);
            if let (Some(log), Some(record)) = (&drawn, record) {
                log.push(&JsValue::from_str(&record));
            }
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
    // The page benchmark's frame log (tests/support/bench-page.mjs), when it set one.
    if let Ok(log) = Reflect::get(&window(), &JsValue::from_str("lbsimReplayFrames")) {
        if let Some(log) = log.dyn_ref::<Array>() {
            let entry =
                Array::of3(&JsValue::from(started), &JsValue::from(now_ms()), &JsValue::from_bool(playing));
            log.push(&entry);
        }
    }
}

/// The counters beside a side, as text.
fn show_counters(i: usize, side: &mut Side, c: &Counters) {
    let text = counters_line(c);
    if side.shown != text {
        set_text(&format!("replay-counters-{i}"), &text);
        side.shown = text;
    }
}
