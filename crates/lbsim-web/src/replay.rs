//! The replay view, which the replay's module (`lbsim-replay`) draws: two
//! rules' runs of the same first requests, side by side on one clock. What
//! moves is the core's attempt log (`lbsim_core::replay`), run in the
//! replay's worker (`web/replay-worker.js`, on the same module) and
//! sent whole; the counters beside each rule are [`Replay::at`] at the
//! playhead. This module decides only where the dots go. The first module
//! never names it, so a first visit does not carry it.
//!
//! Its state lives in that module's instance; the page's links learn
//! the view's keys from the panel (`data-keys` and an `lbsim-keys` event,
//! which the first module's wiring turns into its links).

use std::cell::RefCell;
use std::fmt::Write as _;

use js_sys::{Array, Reflect, Uint8Array};
use lbsim_core::events::EventKind;
use lbsim_core::fleet::{Cause, Outcome};
use lbsim_core::presets::Preset;
use lbsim_core::replay::{default_pair, Counters, Replay, View, MAX_WINDOW};
use lbsim_core::{url, AlgorithmId, Scenario};
use lbsim_protocol::{wire, FromReplayWorker};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    CanvasRenderingContext2d, Element, Event, HtmlCanvasElement, HtmlElement, HtmlInputElement,
    HtmlSelectElement, KeyboardEvent, MessageEvent, Worker, WorkerOptions, WorkerType,
};

use crate::controls::thousands;
use crate::dom::{by_id, document, element, now_ms, on, page_base, set_text, text_element, window};
use crate::palette::Theme;
use crate::state::look;

/// The speeds offered, in simulated seconds per second (a link may ask
/// for any speed from 0.1 to 10; it is added to the list).
const SPEEDS: [f64; 7] = [0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0];
/// Wall-clock ms a dot takes to glide from the balancer to its server, and
/// to leave it: the counters do not wait for it (they count the log).
const GLIDE_MS: f64 = 300.0;
/// CSS px: the timeline strip on top, a server's row, the balancer's
/// gutter, a server's name, a slot, a waiting dot's step, a count column.
const TOP: f64 = 30.0;
const ROW: f64 = 22.0;
const GUTTER: f64 = 20.0;
const NAME: f64 = 34.0;
const SLOT: f64 = 13.0;
const STEP: f64 = 8.0;
const COUNT: f64 = 44.0;

/// One rule's side: its replay and, per attempt, the slot it took.
struct Side {
    replay: Replay,
    slot: Vec<u32>,
    /// The counters last written, to touch the page only when they change.
    shown: String,
}

/// A server's state at a moment, from the scenario's events.
#[derive(Clone, Copy, PartialEq)]
enum Health {
    Up,
    Slow(f64),
    Failing,
    Crashed,
    Out,
}

struct Player {
    /// What the sides were computed for (scenario, pair, window).
    computed: String,
    scenario: Scenario,
    preset: Option<&'static Preset>,
    names: Vec<String>,
    pair: [AlgorithmId; 2],
    window: u64,
    sides: Vec<Side>,
    /// Every moment something happens on either side, sorted: the steps.
    moments: Vec<f64>,
    end_ms: f64,
    t_ms: f64,
    speed: f64,
    playing: bool,
    last_frame: Option<f64>,
    /// The replay asked of the worker last (older answers are dropped).
    asked: u32,
    worker: Option<Worker>,
    /// The link's playhead, applied when the first replay arrives.
    start_ms: Option<f64>,
    reduced_motion: bool,
    /// What of the link's replay keys was not used, said with the first
    /// replay's status.
    problems: String,
    /// Each canvas's CSS size, read when the view is laid out: reading it
    /// while drawing would lay the page out again every frame.
    sizes: [(f64, f64); 2],
}

/// What a frame is drawn from, the same for both sides.
struct Frame<'a> {
    scenario: &'a Scenario,
    names: &'a [String],
    t: f64,
    end: f64,
    /// Simulated ms a dot glides (0: none, paused or reduced motion).
    glide: f64,
    scale: f64,
    theme: Theme,
    sizes: [(f64, f64); 2],
}

/// How a dot looks: a square for a slow request, hollow for a cache hit,
/// ringed for a retry.
struct Mark {
    slow: bool,
    hollow: bool,
    ring: bool,
}

type FrameCallback = Closure<dyn FnMut(f64)>;

thread_local! {
    static PLAYER: RefCell<Option<Player>> = const { RefCell::new(None) };
    static FRAME: RefCell<Option<FrameCallback>> = const { RefCell::new(None) };
}

fn with_player<R>(f: impl FnOnce(&mut Player) -> R) -> Option<R> {
    PLAYER.with(|p| p.borrow_mut().as_mut().map(f))
}

/// Shows the replay for `link` (the page's share link with its view keys):
/// builds the view the first time, asks the worker for a new window when
/// the scenario, the pair or the window changed, else redraws.
pub fn show(link: &str) {
    if by_id::<Element>("replay-view").is_none() {
        build();
    }
    let decoded = url::decode(link);
    let (view, errors) = decoded.replay.clone().unwrap_or_default().view();
    let scenario = decoded.scenario;
    let mut pair = view.pair.unwrap_or_else(|| default_pair(&scenario, decoded.preset));
    // A scenario of one rule: the view compares it with round robin (or
    // least connections), as two sides always do.
    if pair[0] == pair[1] {
        pair[1] = if pair[0] == AlgorithmId::RoundRobin {
            AlgorithmId::LeastConnections
        } else {
            AlgorithmId::RoundRobin
        };
    }
    let fresh = PLAYER.with(|p| p.borrow().is_none());
    if fresh {
        let reduced_motion = window()
            .match_media("(prefers-reduced-motion: reduce)")
            .ok()
            .flatten()
            .is_some_and(|m| m.matches());
        PLAYER.with(|p| {
            *p.borrow_mut() = Some(Player {
                computed: String::new(),
                names: scenario.pool().names,
                scenario: scenario.clone(),
                preset: decoded.preset,
                pair,
                window: view.window_of(&scenario),
                sides: Vec::new(),
                moments: Vec::new(),
                end_ms: 0.0,
                t_ms: 0.0,
                speed: view.speed,
                playing: false,
                last_frame: None,
                asked: 0,
                worker: None,
                start_ms: Some(view.t_s * 1000.0),
                reduced_motion,
                sizes: [(0.0, 0.0); 2],
                problems: if errors.is_empty() {
                    String::new()
                } else {
                    let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
                    format!("Parts of the link's replay were not used: {}.", lines.join("; "))
                },
            })
        });
    }
    with_player(|p| {
        p.scenario = scenario;
        p.preset = decoded.preset;
        p.names = p.scenario.pool().names;
        p.pair = pair;
        p.window = view.window_of(&p.scenario);
        p.speed = view.speed;
    });
    show_choices();
    compute_if_changed();
}

/// Asks the worker for the window when what it was computed for changed.
fn compute_if_changed() {
    let Some((wanted, scenario, pair, window)) = with_player(|p| {
        let pair = format!("{},{}", p.pair[0].id(), p.pair[1].id());
        let scenario = url::encode(&p.scenario);
        (format!("{scenario}|{pair}|{}", p.window), scenario, pair, p.window)
    }) else {
        return;
    };
    if with_player(|p| p.computed == wanted) == Some(true) {
        draw();
        return;
    }
    let Some(worker) = with_player(|p| p.worker.clone()).flatten().or_else(start_worker) else {
        status("The replay needs a Web Worker, which this browser did not start.");
        return;
    };
    let id = with_player(|p| {
        p.asked += 1;
        p.computed = wanted;
        pause(p);
        p.asked
    })
    .unwrap_or(0);
    set_state("running");
    status(&format!("Replaying the first {} requests…", thousands(window)));
    let message = Array::of4(
        &JsValue::from(id),
        &JsValue::from_str(&scenario),
        &JsValue::from_str(&pair),
        &JsValue::from(window as u32),
    );
    let _ = worker.post_message(&message);
}

/// The version the modules fetched on first use go by (`?v=`,
/// web/finish.mjs): the replay's worker script and styles are fetched
/// with it.
fn version() -> String {
    document()
        .query_selector("script[data-lbsim-tools]")
        .ok()
        .flatten()
        .and_then(|s| s.get_attribute("data-lbsim-tools"))
        .unwrap_or_default()
}

/// Starts the replay's worker, on the same module as this view's.
fn start_worker() -> Option<Worker> {
    let version = version();
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(&format!("./replay-worker.js{version}"), &options).ok()?;
    let answer = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| arrived(&e.data()));
    worker.set_onmessage(Some(answer.as_ref().unchecked_ref()));
    answer.forget();
    let failed = Closure::<dyn FnMut(Event)>::new(|_: Event| {
        set_state("error");
        status("The replay's worker stopped; reload the page to try again.");
    });
    worker.set_onerror(Some(failed.as_ref().unchecked_ref()));
    failed.forget();
    with_player(|p| p.worker = Some(worker.clone()));
    Some(worker)
}

/// The worker's answer: the window's replays, or why there are none.
fn arrived(data: &JsValue) {
    let Some(bytes) = data.dyn_ref::<Uint8Array>() else {
        set_state("error");
        status(&format!("The replay could not run: {}", data.as_string().unwrap_or_default()));
        return;
    };
    match wire::decode::<FromReplayWorker>(&bytes.to_vec()) {
        Ok(FromReplayWorker::Done { id, replays }) => {
            if with_player(|p| p.asked != id).unwrap_or(true) {
                return;
            }
            let attempts = replays.first().map_or(0, |r| r.attempts.len());
            with_player(|p| load(p, replays));
            if let Some(view) = by_id::<Element>("replay-view") {
                let _ = view.set_attribute("data-attempts", &attempts.to_string());
            }
            layout();
            set_state("ready");
            draw();
            say_where();
            if let Some(problems) = with_player(|p| std::mem::take(&mut p.problems)).filter(|p| !p.is_empty())
            {
                let said =
                    by_id::<Element>("replay-status").and_then(|e| e.text_content()).unwrap_or_default();
                status(&format!("{problems} {said}"));
            }
        }
        Ok(FromReplayWorker::Error { id, message }) => {
            if with_player(|p| p.asked == id) == Some(true) {
                set_state("error");
                status(&format!("The replay could not run: {message}"));
            }
        }
        Err(e) => {
            set_state("error");
            status(&format!("The replay's answer could not be read: {e}"));
        }
    }
}

/// Takes the replays in: each attempt's slot, the moments, the end.
fn load(p: &mut Player, replays: Vec<Replay>) {
    let mut moments = Vec::new();
    p.sides = replays
        .into_iter()
        .map(|replay| {
            for r in &replay.requests {
                moments.extend([r.arrival_ms, r.answered_ms]);
            }
            for a in &replay.attempts {
                moments.extend([a.sent_ms, a.start_ms, a.done_ms]);
            }
            let slot = slots(&replay);
            Side { replay, slot, shown: String::new() }
        })
        .collect();
    // Times are finite and not negative, so their bits sort as they do
    // (the core's one sort, which this module shares: no second one in it).
    let mut keys: Vec<(u64, u32)> =
        moments.iter().filter(|t| t.is_finite()).map(|t| (t.to_bits(), 0)).collect();
    lbsim_core::sort::by_key(&mut keys);
    keys.dedup();
    p.moments = keys.into_iter().map(|(bits, _)| f64::from_bits(bits)).collect();
    p.end_ms = p.sides.iter().map(|s| s.replay.end_ms()).fold(0.0, f64::max);
    let t = p.start_ms.take().unwrap_or(p.t_ms);
    p.t_ms = t.clamp(0.0, p.end_ms);
}

/// Per attempt, the slot of its server it took: the lowest free one when it
/// started (a server's slots serve in parallel, its queue in order), so a
/// dot keeps its place while it is served.
fn slots(replay: &Replay) -> Vec<u32> {
    let mut order: Vec<(u64, u32)> =
        replay.attempts.iter().enumerate().map(|(i, a)| (a.start_ms.to_bits(), i as u32)).collect();
    lbsim_core::sort::by_key(&mut order);
    let mut free_at: Vec<Vec<f64>> = vec![Vec::new(); replay.servers as usize];
    let mut slot = vec![0; replay.attempts.len()];
    for (_, i) in order {
        let i = i as usize;
        let a = &replay.attempts[i];
        let Some(free) = free_at.get_mut(a.server as usize) else { continue };
        let k = free.iter().position(|&f| f <= a.start_ms).unwrap_or(free.len());
        if k == free.len() {
            free.push(0.0);
        }
        free[k] = a.done_ms;
        slot[i] = k as u32;
    }
    slot
}

fn set_state(state: &str) {
    if let Some(view) = by_id::<Element>("replay-view") {
        let _ = view.set_attribute("data-state", state);
    }
}

/// The line screen readers hear (and everyone reads) at each pause.
fn status(text: &str) {
    set_text("replay-status", text);
}

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
fn build() {
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
    let _ = view.set_attribute("aria-label", "Replay: space plays or pauses, the arrow keys step");
    let tools = element("div", "plot-tools replay-tools");
    for i in 0..2 {
        let select = element("select", "");
        select.set_id(&format!("replay-rule-{i}"));
        for a in AlgorithmId::ALL {
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
    let _ = tools.append_child(&labelled("first ", &window_input));
    let _ = tools.append_child(&text_element("span", "", " requests"));
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
    for (k, v) in [("type", "range"), ("min", "0"), ("max", "0"), ("step", "any"), ("value", "0")] {
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
        "● a quick request, ■ a slow one; hollow: its server's cache held the user; ringed: a retry; \
         × an error leaving. Boxes are a server's slots, dots after them its queue; the columns count \
         what is in flight and waiting; the strip on top marks the scenario's events, and the ticks \
         under it the balancer's health verdicts (a dashed row: taken out of its choices). The counters \
         count what has happened by the playhead (p99 so far: of the requests answered by then).",
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
                step(true);
            }
            "ArrowLeft" if !typing => {
                e.prevent_default();
                step(false);
            }
            _ => {}
        }
    });
    if let Some(b) = by_id::<Element>("replay-play") {
        on(&b, "click", |_| toggle());
    }
    if let Some(b) = by_id::<Element>("replay-step") {
        on(&b, "click", |_| step(true));
    }
    if let Some(b) = by_id::<Element>("replay-back") {
        on(&b, "click", |_| step(false));
    }
    if let Some(scrub) = by_id::<HtmlInputElement>("replay-scrub") {
        on(&scrub, "input", |e| {
            let Some(input) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
            let t = input.value_as_number();
            with_player(|p| p.t_ms = t.clamp(0.0, p.end_ms));
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
fn show_choices() {
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
        let mut speeds: Vec<f64> = SPEEDS.to_vec();
        if !speeds.contains(&speed) {
            speeds.insert(speeds.partition_point(|&s| s < speed), speed);
        }
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

/// The canvases' heights (one row per server) and the scrubber's range.
fn layout() {
    let Some((servers, end, pair)) = with_player(|p| (p.names.len(), p.end_ms, p.pair)) else { return };
    for (i, rule) in pair.iter().enumerate() {
        if let Some(c) = by_id::<HtmlElement>(&format!("replay-canvas-{i}")) {
            let height = TOP + ROW * servers as f64 + 6.0;
            let _ = c.style().set_property("height", &format!("{height}px"));
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

fn pause(p: &mut Player) {
    p.playing = false;
    p.last_frame = None;
}

/// Play or pause (at the end, play starts again from the beginning).
fn toggle() {
    let playing = with_player(|p| {
        if p.playing {
            pause(p);
            // The playhead rests on a whole ms, so the link names it exactly.
            p.t_ms = p.t_ms.round().min(p.end_ms);
        } else if !p.sides.is_empty() {
            if p.t_ms >= p.end_ms {
                p.t_ms = 0.0;
            }
            p.playing = true;
        }
        p.playing
    });
    draw();
    if playing == Some(true) {
        let speed = with_player(|p| p.speed).unwrap_or(1.0);
        status(&format!("Playing at {speed}x; space pauses."));
        request_frame();
    } else {
        say_where();
        publish();
    }
}

/// To the next (or previous) moment something happens on either side.
fn step(forward: bool) {
    with_player(|p| {
        pause(p);
        let t = p.t_ms;
        let next = if forward {
            let i = p.moments.partition_point(|&m| m <= t);
            p.moments.get(i).copied()
        } else {
            let i = p.moments.partition_point(|&m| m < t);
            i.checked_sub(1).and_then(|i| p.moments.get(i).copied())
        };
        p.t_ms = next.unwrap_or(if forward { p.end_ms } else { 0.0 });
    });
    draw();
    say_where();
    publish();
}

fn request_frame() {
    FRAME.with(|f| {
        let mut f = f.borrow_mut();
        let callback = f.get_or_insert_with(|| Closure::<dyn FnMut(f64)>::new(frame));
        let _ = window().request_animation_frame(callback.as_ref().unchecked_ref());
    });
}

/// One frame of playing: the clock moves by the wall time since the last
/// frame times the speed, and stops at the end.
fn frame(now: f64) {
    let Some(more) = with_player(|p| {
        if !p.playing {
            return false;
        }
        if let Some(last) = p.last_frame {
            p.t_ms += (now - last).max(0.0) * p.speed;
        }
        p.last_frame = Some(now);
        if p.t_ms >= p.end_ms {
            p.t_ms = p.end_ms;
            pause(p);
            return false;
        }
        true
    }) else {
        return;
    };
    draw();
    if more {
        request_frame();
    } else {
        say_where();
        publish();
    }
}

/// Writes the view's keys where the first module reads them for its links.
fn publish() {
    let Some(keys) = with_player(|p| {
        View { pair: Some(p.pair), t_s: p.t_ms / 1000.0, speed: p.speed, window: Some(p.window) }.encode()
    }) else {
        return;
    };
    if let Some(panel) = by_id::<Element>("replay-panel") {
        let _ = panel.set_attribute("data-keys", keys.trim_start_matches('&'));
        if let Ok(event) = Event::new("lbsim-keys") {
            let _ = panel.dispatch_event(&event);
        }
    }
    cli();
}

/// The command that prints the same counters at the playhead.
fn cli() {
    let Some(text) = with_player(|p| {
        format!(
            "lbsim replay --url '{}' --pair {},{} --window {} --at {}",
            url::share_url_over(&page_base(), &p.scenario, p.preset),
            p.pair[0].id(),
            p.pair[1].id(),
            p.window,
            p.t_ms / 1000.0
        )
    }) else {
        return;
    };
    set_text("replay-cli", &text);
}

fn seconds(ms: f64) -> String {
    format!("{:.3} s", ms / 1000.0)
}

/// The status line at a pause: where the playhead is and each rule's
/// counters there.
fn say_where() {
    let Some(text) = with_player(|p| {
        let mut text = format!("Paused at {} of {}.", seconds(p.t_ms), seconds(p.end_ms));
        for side in &p.sides {
            let c = side.replay.at(p.t_ms);
            let _ = write!(
                text,
                " {}: {} arrived, {} answered, {} errors, {} retries, p99 so far {}.",
                side.replay.algorithm.id(),
                thousands(u64::from(c.arrived)),
                thousands(u64::from(c.finished)),
                thousands(u64::from(c.errors)),
                thousands(u64::from(c.retries)),
                c.p99_ms.map_or_else(|| "none yet".to_string(), |v| format!("{v:.1} ms"))
            );
        }
        text
    }) else {
        return;
    };
    status(&text);
    cli();
}

/// A server's state at `t_ms` from the scenario's events.
fn health(s: &Scenario, name: &str, t_ms: f64) -> Health {
    let mut state = if s.events.starts_outside(name) { Health::Out } else { Health::Up };
    for e in s.events.0.iter().filter(|e| e.server == name && e.at_ms as f64 <= t_ms) {
        state = match e.kind {
            EventKind::Slow(f) => Health::Slow(f),
            EventKind::Fail => Health::Failing,
            EventKind::Crash => Health::Crashed,
            EventKind::Recover | EventKind::Join => Health::Up,
            EventKind::Leave => Health::Out,
        };
    }
    state
}

fn css(c: plotters::style::RGBColor, alpha: f64) -> String {
    format!("rgba({},{},{},{alpha})", c.0, c.1, c.2)
}

/// Draws both sides at the playhead, and the clock, the scrubber and the
/// counters.
fn draw() {
    let started = now_ms();
    let look = look();
    let Some(state) = with_player(|p| {
        let glide = if p.reduced_motion || !p.playing { 0.0 } else { GLIDE_MS * p.speed };
        let frame = Frame {
            scenario: &p.scenario,
            names: &p.names,
            t: p.t_ms,
            end: p.end_ms,
            glide,
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
    let (t, end, playing) = state;
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
    let p99 = c.p99_ms.map_or_else(|| "none yet".to_string(), |v| format!("{v:.1} ms"));
    let text = format!(
        "arrived {} · answered {} · errors {} · retries {} · p99 so far {p99}",
        thousands(u64::from(c.arrived)),
        thousands(u64::from(c.finished)),
        thousands(u64::from(c.errors)),
        thousands(u64::from(c.retries)),
    );
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

/// Opacities a leaving dot fades through, in steps, so that dots of one
/// look are one path: a canvas fills one path of many dots far faster than
/// many paths (on a throttled phone the frame is the canvas's to fill).
const FADES: usize = 4;

/// A frame's dots, gathered by look and drawn a path per look.
#[derive(Default)]
struct Dots {
    /// By `slow + 2 hollow + 4 fade step`.
    looks: [Vec<(f64, f64)>; 4 * FADES],
    rings: Vec<(f64, f64)>,
    crosses: Vec<(f64, f64)>,
}

impl Dots {
    /// A dot at `(x, y)`, `fade` from 0 (solid) to 1 (gone).
    fn add(&mut self, at: (f64, f64), mark: &Mark, fade: f64) {
        let step = ((fade * FADES as f64) as usize).min(FADES - 1);
        self.looks[usize::from(mark.slow) + 2 * usize::from(mark.hollow) + 4 * step].push(at);
        if mark.ring && step == 0 {
            self.rings.push(at);
        }
    }

    /// Draws them: a circle for a quick request, a square for a slow one,
    /// hollow when its server's cache held the user, ringed for a retry,
    /// a cross for an error leaving.
    fn draw(&self, ctx: &CanvasRenderingContext2d, fill: &str, fg: &str, bad: &str) {
        let r = 3.2;
        ctx.set_fill_style_str(fill);
        ctx.set_stroke_style_str(fill);
        ctx.set_line_width(1.5);
        for (i, dots) in self.looks.iter().enumerate().filter(|(_, d)| !d.is_empty()) {
            let (slow, hollow, step) = (i % 2 == 1, (i / 2) % 2 == 1, i / 4);
            ctx.set_global_alpha(1.0 - step as f64 / FADES as f64);
            ctx.begin_path();
            for &(x, y) in dots {
                if slow {
                    ctx.rect(x - r, y - r, 2.0 * r, 2.0 * r);
                } else {
                    ctx.move_to(x + r, y);
                    let _ = ctx.arc(x, y, r, 0.0, std::f64::consts::TAU);
                }
            }
            if hollow {
                ctx.stroke();
            } else {
                ctx.fill();
            }
        }
        ctx.set_global_alpha(1.0);
        ctx.begin_path();
        for &(x, y) in &self.rings {
            ctx.move_to(x + r + 2.0, y);
            let _ = ctx.arc(x, y, r + 2.0, 0.0, std::f64::consts::TAU);
        }
        ctx.set_stroke_style_str(fg);
        ctx.set_line_width(1.0);
        ctx.stroke();
        let c = 3.5;
        ctx.begin_path();
        for &(x, y) in &self.crosses {
            ctx.move_to(x - c, y - c);
            ctx.line_to(x + c, y + c);
            ctx.move_to(x + c, y - c);
            ctx.line_to(x - c, y + c);
        }
        ctx.set_stroke_style_str(bad);
        ctx.set_line_width(2.0);
        ctx.stroke();
    }
}

/// Draws one rule's side at the playhead.
fn draw_side(i: usize, side: &Side, counters: &Counters, frame: &Frame) {
    let Frame { scenario, names, t, end, glide, scale, theme, sizes } = *frame;
    let Some(canvas) = by_id::<HtmlCanvasElement>(&format!("replay-canvas-{i}")) else { return };
    let (w, h) = sizes[i];
    if w <= 0.0 || h <= 0.0 {
        return;
    }
    let (pw, ph) = ((w * scale).round() as u32, (h * scale).round() as u32);
    if canvas.width() != pw {
        canvas.set_width(pw);
    }
    if canvas.height() != ph {
        canvas.set_height(ph);
    }
    let Some(ctx) =
        canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let _ = ctx.set_transform(scale, 0.0, 0.0, scale, 0.0, 0.0);
    let (fg, bg, grid, bad) =
        (css(theme.fg, 1.0), css(theme.bg, 1.0), css(theme.grid, 1.0), css(theme.saturated, 1.0));
    ctx.set_fill_style_str(&bg);
    ctx.fill_rect(0.0, 0.0, w, h);
    ctx.set_font("11px sans-serif");
    ctx.set_text_baseline("middle");
    let replay = &side.replay;
    let servers = names.len();
    let slots = scenario.slots.max(1) as f64;
    let queue_x = GUTTER + NAME + slots * SLOT + 6.0;
    let counts_x = w - 2.0 * COUNT;
    // Room for the waiting dots, and for a "+N" after them when more wait.
    let room = ((counts_x - queue_x - 30.0) / STEP).floor().max(0.0) as usize;
    let row_y = |s: usize| TOP + ROW * s as f64 + ROW / 2.0;
    // The timeline strip: the window's span, the events, the playhead.
    let (x0, x1) = (GUTTER + NAME, counts_x - 8.0);
    let at_x = |ms: f64| x0 + (x1 - x0) * if end > 0.0 { (ms / end).clamp(0.0, 1.0) } else { 0.0 };
    ctx.set_fill_style_str(&grid);
    ctx.fill_rect(x0, 8.0, x1 - x0, 3.0);
    ctx.set_fill_style_str(&fg);
    ctx.set_text_align("right");
    let _ = ctx.fill_text("in flight", w - COUNT - 4.0, 10.0);
    let _ = ctx.fill_text("waiting", w - 4.0, 10.0);
    ctx.set_text_align("left");
    for e in &scenario.events.0 {
        let x = at_x(e.at_ms as f64);
        if e.at_ms as f64 > end {
            continue;
        }
        ctx.set_fill_style_str(if matches!(e.kind, EventKind::Crash | EventKind::Fail) { &bad } else { &fg });
        ctx.fill_rect(x - 1.0, 3.0, 2.0, 13.0);
        let _ = ctx.fill_text(&format!("{} {}", e.server, e.kind), x + 3.0, 22.0);
    }
    ctx.set_fill_style_str(&fg);
    ctx.begin_path();
    let px = at_x(t);
    ctx.move_to(px - 5.0, 2.0);
    ctx.line_to(px + 5.0, 2.0);
    ctx.line_to(px, 9.0);
    ctx.fill();
    // The balancers' health verdicts: a tick each under the strip, and per
    // server the cause of the latest "out" still standing by `t`.
    let mut cause: Vec<Option<Cause>> = vec![None; servers];
    ctx.set_fill_style_str(&css(theme.fg, 0.55));
    for v in &replay.verdicts {
        ctx.fill_rect(at_x(v.at_ms) - 0.5, 12.0, 1.0, 4.0);
        if v.at_ms <= t && v.out.is_some() {
            if let Some(c) = cause.get_mut(v.server as usize) {
                *c = v.out;
            }
        }
    }
    // The rows: each server's name and state, its slots, its counts.
    for (s, name) in names.iter().enumerate() {
        let y = row_y(s);
        let state = health(scenario, name, t);
        let (tint, mut said) = match state {
            Health::Up => (None, String::new()),
            Health::Slow(f) => (Some(css(theme.saturated, 0.10)), format!("slow ×{f}")),
            Health::Failing => (Some(css(theme.saturated, 0.22)), "failing: 500s".to_string()),
            Health::Crashed => (Some(css(theme.saturated, 0.30)), "crashed".to_string()),
            Health::Out => (Some(css(theme.grid, 0.8)), "not in the pool".to_string()),
        };
        if let Some(tint) = tint {
            ctx.set_fill_style_str(&tint);
            ctx.fill_rect(GUTTER, y - ROW / 2.0 + 1.0, w - GUTTER, ROW - 2.0);
        }
        // Taken out by the balancer's checks: the row outlined, dashed.
        if counters.out.get(s).copied().unwrap_or(0) > 0 {
            let why = match cause[s] {
                Some(Cause::Checks) => "out: health checks",
                Some(Cause::Passive) => "out: max-fails",
                Some(Cause::Outlier) => "out: ejected",
                None => "out",
            };
            said = if said.is_empty() { why.to_string() } else { format!("{said} · {why}") };
            ctx.set_stroke_style_str(&fg);
            ctx.set_line_width(1.0);
            let _ = ctx.set_line_dash(&Array::of2(&JsValue::from(4.0), &JsValue::from(3.0)));
            ctx.stroke_rect(GUTTER + 0.5, y - ROW / 2.0 + 1.5, w - GUTTER - 1.0, ROW - 3.0);
            let _ = ctx.set_line_dash(&Array::new());
        }
        ctx.set_fill_style_str(&fg);
        let _ = ctx.fill_text(name, GUTTER + 3.0, y);
        ctx.set_stroke_style_str(&grid);
        ctx.set_line_width(1.0);
        for k in 0..slots as usize {
            ctx.stroke_rect(
                GUTTER + NAME + k as f64 * SLOT + 0.5,
                y - SLOT / 2.0 + 0.5,
                SLOT - 2.0,
                SLOT - 2.0,
            );
        }
        if !said.is_empty() && counters.queued.get(s).copied().unwrap_or(0) < 4 {
            ctx.set_fill_style_str(&bad);
            let _ = ctx.fill_text(&said, queue_x + 4.0 * STEP + 6.0, y);
        }
        ctx.set_fill_style_str(&fg);
        ctx.set_text_align("right");
        let _ =
            ctx.fill_text(&counters.in_flight.get(s).copied().unwrap_or(0).to_string(), w - COUNT - 4.0, y);
        let _ = ctx.fill_text(&counters.queued.get(s).copied().unwrap_or(0).to_string(), w - 4.0, y);
        ctx.set_text_align("left");
    }
    // The balancer: a bar the requests leave from.
    let lb_y = TOP + ROW * servers as f64 / 2.0;
    ctx.set_fill_style_str(&grid);
    ctx.fill_rect(4.0, TOP, 6.0, ROW * servers as f64);
    // The requests in flight at `t`, and those leaving (while gliding).
    let fill = crate::palette::css(replay.algorithm);
    let mut waiting = vec![0usize; servers];
    let mut dots = Dots::default();
    for (a, &slot) in replay.attempts.iter().zip(&side.slot) {
        if a.sent_ms > t {
            continue;
        }
        let s = a.server as usize;
        if s >= servers {
            continue;
        }
        let y = row_y(s);
        let slow = replay.requests.get(a.request as usize).is_some_and(|r| r.slow);
        let mark = Mark { slow, hollow: a.hit, ring: a.retry };
        let slot_x = GUTTER + NAME + f64::from(slot.min(slots as u32 - 1)) * SLOT + SLOT / 2.0 - 1.0;
        if a.done_ms <= t {
            // Leaving: along its row to the right, an error as a cross.
            if glide > 0.0 && t - a.done_ms < glide {
                let f = (t - a.done_ms) / glide;
                let x = slot_x + (counts_x - slot_x) * f;
                if a.outcome == Outcome::Ok {
                    dots.add((x, y), &mark, f);
                } else {
                    dots.crosses.push((x, y));
                }
            }
            continue;
        }
        let target = if a.start_ms > t {
            let k = waiting[s];
            waiting[s] += 1;
            if k >= room {
                continue;
            }
            (queue_x + STEP * k as f64 + STEP / 2.0, y)
        } else {
            (slot_x, y)
        };
        let (x, y) = if glide > 0.0 && t - a.sent_ms < glide {
            let f = (t - a.sent_ms) / glide;
            (10.0 + (target.0 - 10.0) * f, lb_y + (target.1 - lb_y) * f)
        } else {
            target
        };
        dots.add((x, y), &mark, 0.0);
    }
    dots.draw(&ctx, &fill, &fg, &bad);
    // More waiting than the row shows: say how many.
    ctx.set_fill_style_str(&fg);
    for (s, &n) in waiting.iter().enumerate() {
        if n > room {
            let _ = ctx.fill_text(&format!("+{}", n - room), queue_x + STEP * room as f64 + 2.0, row_y(s));
        }
    }
}
