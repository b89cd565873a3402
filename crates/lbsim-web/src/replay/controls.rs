//! The view's markup and what each of its controls does: the two rules,
//! the window and the speed; play, the steps and the scrubber; the keys
//! (space plays or pauses, the arrows step, with Shift to the next thing
//! that happens); a folded panel pauses.

use lbsim_core::replay::{View, MAX_WINDOW};
use lbsim_core::AlgorithmId;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement, KeyboardEvent};

use super::frame::{draw, layout, say_where, status};
use super::links::publish;
use super::playback::{step, toggle};
use super::state::{speeds_offered, with_player};
use super::worker::{compute_if_changed, version};
use crate::dom::{by_id, document, element, on, text_element};

/// The label, the button and the input a control is made of.
fn labelled(text: &str, control: &Element) -> Element {
    let label = text_element("label", "", text);
    let _ = label.append_child(control);
    label
}

fn button(id: &str, text: &str, name: &str) -> Element {
    let b = text_element("button", "", text);
    b.set_id(id);
    let _ = b.set_attribute("type", "button");
    if !name.is_empty() {
        let _ = b.set_attribute("aria-label", name);
    }
    b
}

/// Builds the view inside `#replay` (and loads its styles, which are not
/// in the first visit's either).
pub fn build() {
    let Some(root) = by_id::<Element>("replay") else { return };
    if let Ok(link) = document().create_element("link") {
        let _ = link.set_attribute("rel", "stylesheet");
        let version = version();
        let _ = link.set_attribute("href", &format!("replay.css{version}"));
        if let Ok(Some(head)) = document().query_selector("head") {
            let _ = head.append_child(&link);
        }
    }
    let view = element("div", "replay-view");
    view.set_id("replay-view");
    let _ = view.set_attribute("tabindex", "0");
    let _ = view.set_attribute(
        "aria-label",
        "Replay: space plays or pauses, the arrow keys step a hundredth, with Shift to the next request",
    );
    let tools = element("div", "plot-tools replay-tools");
    for i in 0..2 {
        let select = element("select", "");
        select.set_id(&format!("replay-rule-{i}"));
        for a in AlgorithmId::ALL.iter().filter(|a| a.runs_here()) {
            let option = text_element("option", "", a.id());
            let _ = option.set_attribute("value", a.id());
            let _ = select.append_child(&option);
        }
        let _ = tools.append_child(&labelled(if i == 0 { "rule " } else { "beside " }, &select));
    }
    let window_input = element("input", "");
    window_input.set_id("replay-window");
    for (k, v) in [("type", "number"), ("min", "1"), ("max", &MAX_WINDOW.to_string()), ("step", "1")] {
        let _ = window_input.set_attribute(k, v);
    }
    // "requests" in the label, so that it wraps with its number.
    let first = labelled("first ", &window_input);
    let _ = first.append_child(&document().create_text_node(" requests"));
    let _ = tools.append_child(&first);
    let speed = element("select", "");
    speed.set_id("replay-speed");
    let _ = tools.append_child(&labelled("speed ", &speed));
    let _ = view.append_child(&tools);
    let transport = element("div", "plot-tools replay-transport");
    let _ = transport.append_child(&button("replay-back", "◀", "step back"));
    let _ = transport.append_child(&button("replay-play", "Play", ""));
    let _ = transport.append_child(&button("replay-step", "▶", "step forward"));
    let scrub = element("input", "replay-scrub");
    scrub.set_id("replay-scrub");
    for (k, v) in [("type", "range"), ("min", "0"), ("max", "0"), ("step", "1"), ("value", "0")] {
        let _ = scrub.set_attribute(k, v);
    }
    let _ = scrub.set_attribute("aria-label", "playhead, simulated time");
    let _ = transport.append_child(&scrub);
    let clock = element("output", "replay-clock");
    clock.set_id("replay-clock");
    let _ = transport.append_child(&clock);
    let _ = view.append_child(&transport);
    let pair = element("div", "replay-pair");
    for i in 0..2 {
        let side = element("figure", "replay-side");
        let title = element("figcaption", "");
        title.set_id(&format!("replay-title-{i}"));
        let _ = side.append_child(&title);
        let canvas = element("canvas", "");
        canvas.set_id(&format!("replay-canvas-{i}"));
        let _ = canvas.set_attribute("role", "img");
        let _ = side.append_child(&canvas);
        let counters = element("p", "replay-counters");
        counters.set_id(&format!("replay-counters-{i}"));
        let _ = side.append_child(&counters);
        let _ = pair.append_child(&side);
    }
    let _ = view.append_child(&pair);
    let legend = text_element(
        "p",
        "note",
        "● a quick request, ■ a slow one; hollow: its server's cache held the user; ringed: a retry. \
         Requests leave the balancer (the bar) for a server's slots (the boxes) or its queue (the dots \
         after them), and go back to it answered, fading; × an error going back. The columns count what \
         is in flight and waiting; the strip on top marks the scenario's events, and the ticks under it \
         the balancer's health verdicts (a dashed row: taken out of its choices). A rule that probes: ◆ \
         a server probed in the last 0.3 s, and its last reply's requests in flight (probe RIF). A rule \
         that learns weights: a bar under each row, the server's weight, and a tick on the strip at each \
         update. ◀ ▶ step a hundredth \
         of the replay. The counters count what has happened by the playhead (p99 so far: of the \
         requests answered by then).",
    );
    let _ = view.append_child(&legend);
    let status_line = element("p", "replay-status");
    status_line.set_id("replay-status");
    let _ = status_line.set_attribute("role", "status");
    let _ = view.append_child(&status_line);
    let cli = element("p", "note");
    let _ = cli.append_child(&document().create_text_node("The same from the command line: "));
    let code = element("code", "");
    code.set_id("replay-cli");
    let _ = cli.append_child(&code);
    let _ = view.append_child(&cli);
    let _ = root.append_child(&view);
    wire_view(&view);
}

fn wire_view(view: &Element) {
    on(view, "keydown", |e| {
        let Some(key) = e.dyn_ref::<KeyboardEvent>() else { return };
        // The controls keep their own keys: a select's and the scrubber's
        // arrows, typing; a button's Space (it clicks the button).
        let tag = e.target().and_then(|t| t.dyn_into::<Element>().ok()).map(|t| t.tag_name());
        let typing = matches!(tag.as_deref(), Some("SELECT" | "INPUT"));
        let button = tag.as_deref() == Some("BUTTON");
        match key.key().as_str() {
            " " if !typing && !button => {
                e.prevent_default();
                toggle();
            }
            "ArrowRight" if !typing => {
                e.prevent_default();
                step(true, key.shift_key());
            }
            "ArrowLeft" if !typing => {
                e.prevent_default();
                step(false, key.shift_key());
            }
            _ => {}
        }
    });
    if let Some(b) = by_id::<Element>("replay-play") {
        on(&b, "click", |_| toggle());
    }
    if let Some(b) = by_id::<Element>("replay-step") {
        on(&b, "click", |_| step(true, false));
    }
    if let Some(b) = by_id::<Element>("replay-back") {
        on(&b, "click", |_| step(false, false));
    }
    if let Some(scrub) = by_id::<HtmlInputElement>("replay-scrub") {
        on(&scrub, "input", |e| {
            let Some(input) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
            let t = input.value_as_number();
            with_player(|p| p.scrub(t));
            draw();
        });
        on(&scrub, "change", |_| {
            say_where();
            publish();
        });
    }
    if let Some(speed) = by_id::<HtmlSelectElement>("replay-speed") {
        on(&speed, "change", |e| {
            let Some(select) = e.target().and_then(|t| t.dyn_into::<HtmlSelectElement>().ok()) else {
                return;
            };
            let mut view = View::default();
            if view.set("speed", &select.value()).is_ok() {
                with_player(|p| p.speed = view.speed);
                publish();
            }
        });
    }
    for i in 0..2 {
        if let Some(select) = by_id::<HtmlSelectElement>(&format!("replay-rule-{i}")) {
            on(&select, "change", move |_| choose_pair());
        }
    }
    if let Some(input) = by_id::<HtmlInputElement>("replay-window") {
        on(&input, "change", |e| {
            let Some(input) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
            let mut view = View::default();
            match view.set("window", input.value().trim()) {
                Ok(()) => {
                    with_player(|p| p.window = view.window_of(&p.scenario));
                    publish();
                    compute_if_changed();
                }
                Err(e) => status(&format!("{e}; the replay keeps its last window.")),
            }
        });
    }
    // A folded panel does not play on unseen.
    if let Some(panel) = by_id::<web_sys::HtmlDetailsElement>("replay-panel") {
        let folded = panel.clone();
        on(&panel, "toggle", move |_| {
            if !folded.open() && with_player(|p| p.playing) == Some(true) {
                toggle();
            }
        });
    }
    let resized = Closure::<dyn FnMut()>::new(|| {
        layout();
        draw();
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(resized.as_ref().unchecked_ref()) {
        observer.observe(view);
    }
    resized.forget();
}

/// The two rules the selects name, if they are two.
fn choose_pair() {
    let ids: Vec<String> = (0..2)
        .filter_map(|i| by_id::<HtmlSelectElement>(&format!("replay-rule-{i}")).map(|s| s.value()))
        .collect();
    let mut view = View::default();
    match view.set("pair", &ids.join(",")) {
        Ok(()) => {
            if let Some(pair) = view.pair {
                with_player(|p| p.pair = pair);
            }
            publish();
            compute_if_changed();
        }
        Err(_) => status("Pick two different rules to compare."),
    }
}

/// The controls show the player's pair, window and speed.
pub fn show_choices() {
    let Some((pair, window, speed)) = with_player(|p| (p.pair, p.window, p.speed)) else { return };
    for (i, rule) in pair.iter().enumerate() {
        if let Some(select) = by_id::<HtmlSelectElement>(&format!("replay-rule-{i}")) {
            select.set_value(rule.id());
        }
    }
    if let Some(input) = by_id::<HtmlInputElement>("replay-window") {
        input.set_value(&window.to_string());
    }
    if let Some(select) = by_id::<HtmlSelectElement>("replay-speed") {
        let speeds = speeds_offered(speed);
        let listed: Vec<String> = (0..select.length())
            .filter_map(|i| select.item(i))
            .map(|o| o.text_content().unwrap_or_default())
            .collect();
        let wanted: Vec<String> = speeds.iter().map(|s| format!("{s}x")).collect();
        if listed != wanted {
            select.set_inner_html("");
            for s in &speeds {
                let option = text_element("option", "", &format!("{s}x"));
                let _ = option.set_attribute("value", &s.to_string());
                let _ = select.append_child(&option);
            }
        }
        select.set_value(&speed.to_string());
    }
}
