//! One rule's side on its canvas at the playhead: the timeline strip with
//! the scenario's events and the balancer's health verdicts, a row per
//! server (its name, its slots, its queue, its state, its counts), and the
//! requests as dots gliding from the balancer to a slot or the queue, and
//! back to the balancer when answered.
//!
//! Each row keeps its places apart, left to right: the name, the
//! balancer's bar, the slots, the queue, the state and the counts. A dot
//! only ever moves between the bar and the queue (an answer goes back the
//! way it came, never through the queue), and the queue ends before the
//! first state label, so no mark covers a label (`docs/embedding.md#the-replay`).
//!
//! What a rule heard and learned (docs/model.md#learned-weights-in-a-trace-and-a-replay):
//! a rule that probes marks each server it probed in the last
//! [`PROBE_SHOWN_MS`] with a diamond beside the balancer's bar, fading,
//! and a column gives what each server's last reply said (its requests
//! in flight); a rule that learns weights draws each server's weight as a
//! bar at the foot of its row, longest for the heaviest, with the weight
//! in a column, and ticks each update on the timeline strip.

use std::fmt::Write as _;

use js_sys::Array;
use lbsim_core::events::EventKind;
use lbsim_core::fleet::timeline::Timeline;
use lbsim_core::fleet::{Cause, Outcome};
use lbsim_core::replay::{Counters, ServerState};
use lbsim_core::Scenario;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::state::Side;
use crate::dom::by_id;
use crate::palette::Theme;

/// CSS px: the timeline strip on top, a server's row, the widest names'
/// column, the balancer's bar, the widest slot, a waiting dot's step, a
/// count column, the gap kept around a label.
const TOP: f64 = 30.0;
const ROW: f64 = 22.0;
const NAME: f64 = 34.0;
const BAR: f64 = 6.0;
const SLOT: f64 = 13.0;
const STEP: f64 = 8.0;
const COUNT: f64 = 40.0;
const GAP: f64 = 6.0;
/// Room kept after a queue for its "+N" when more wait than it shows.
const PLUS: f64 = 30.0;
/// Half a label's height (11 px text, its box as tall as the font).
const HALF_TEXT: f64 = 6.0;
/// The column of what a rule heard or learned (a reply's RIF, a weight).
const HEARD: f64 = 50.0;
/// Simulated ms a probe's mark stays after it was sent: a probe's round
/// trip (1 ms by default) is far too short to see.
pub const PROBE_SHOWN_MS: f64 = 300.0;

/// A side's canvas height in CSS px for `servers` rows.
pub fn height(servers: usize) -> f64 {
    TOP + ROW * servers as f64 + 6.0
}

/// What a frame is drawn from, the same for both sides.
pub struct Frame<'a> {
    pub scenario: &'a Scenario,
    pub timeline: &'a Timeline,
    pub names: &'a [String],
    pub t: f64,
    pub end: f64,
    /// Simulated ms a dot glides (0: none, paused or reduced motion).
    pub glide: f64,
    pub scale: f64,
    pub theme: Theme,
    pub sizes: [(f64, f64); 2],
    /// Whether a test asked for what the frame drew (`window.lbsimReplayDrawn`).
    pub record: bool,
}

/// How a dot looks: a square for a slow request, hollow for a cache hit,
/// ringed for a retry.
struct Mark {
    slow: bool,
    hollow: bool,
    ring: bool,
}

fn css(c: plotters::style::RGBColor, alpha: f64) -> String {
    format!("rgba({},{},{},{alpha})", c.0, c.1, c.2)
}

/// Opacities a leaving dot fades through, in steps, so that dots of one
/// look are one path: a canvas fills one path of many dots far faster than
/// many paths (on a throttled phone the frame is the canvas's to fill).
const FADES: usize = 4;

/// Where a dot is, for the record a test reads: in a slot, waiting,
/// gliding in, going back answered, an error going back.
#[derive(Clone, Copy)]
enum Place {
    Served,
    Queued,
    Arriving,
    Leaving,
    Error,
}

impl Place {
    fn code(self) -> char {
        match self {
            Place::Served => 's',
            Place::Queued => 'q',
            Place::Arriving => 'a',
            Place::Leaving => 'l',
            Place::Error => 'x',
        }
    }
}

/// A mark as recorded: where, its place's code, its server, whether hollow.
type Recorded = (f64, f64, char, usize, bool);

/// A frame's dots, gathered by look and drawn a path per look.
#[derive(Default)]
struct Dots {
    /// By `slow + 2 hollow + 4 fade step`.
    looks: [Vec<(f64, f64)>; 4 * FADES],
    rings: Vec<(f64, f64)>,
    crosses: Vec<(f64, f64)>,
    /// Every mark, when recorded.
    record: Option<Vec<Recorded>>,
}

impl Dots {
    /// A dot at `(x, y)`, `fade` from 0 (solid) to 1 (gone).
    fn add(&mut self, at: (f64, f64), mark: &Mark, fade: f64, place: Place, server: usize) {
        let step = ((fade * FADES as f64) as usize).min(FADES - 1);
        self.looks[usize::from(mark.slow) + 2 * usize::from(mark.hollow) + 4 * step].push(at);
        if mark.ring && step == 0 {
            self.rings.push(at);
        }
        if let Some(r) = self.record.as_mut() {
            r.push((at.0, at.1, place.code(), server, mark.hollow));
        }
    }

    fn cross(&mut self, at: (f64, f64), server: usize) {
        self.crosses.push(at);
        if let Some(r) = self.record.as_mut() {
            r.push((at.0, at.1, Place::Error.code(), server, false));
        }
    }

    /// Draws them: a circle for a quick request, a square for a slow one,
    /// hollow when its server's cache held the user, ringed for a retry,
    /// a cross for an error going back.
    fn draw(&self, ctx: &CanvasRenderingContext2d, r: f64, fill: &str, fg: &str, bad: &str) {
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
        let c = r + 0.3;
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

/// The labels a frame drew, with their boxes, when recorded.
struct Labels<'a> {
    ctx: &'a CanvasRenderingContext2d,
    record: Option<Vec<(String, [f64; 4])>>,
}

impl Labels<'_> {
    fn width(&self, text: &str) -> f64 {
        self.ctx.measure_text(text).map_or(0.0, |m| m.width())
    }

    /// Draws `text` in `colour` with its left (or, `right`, its right)
    /// edge at `x`, centred on `y`.
    fn text(&mut self, text: &str, x: f64, y: f64, right: bool, colour: &str) {
        self.ctx.set_fill_style_str(colour);
        self.ctx.set_text_align(if right { "right" } else { "left" });
        let _ = self.ctx.fill_text(text, x, y);
        if let Some(r) = self.record.as_mut() {
            let w = self.ctx.measure_text(text).map_or(0.0, |m| m.width());
            let x0 = if right { x - w } else { x };
            r.push((text.to_string(), [x0, y - HALF_TEXT, x0 + w, y + HALF_TEXT]));
        }
    }

    /// `text` cut with an ellipsis to `room` px.
    fn fit(&self, text: &str, room: f64) -> String {
        if self.width(text) <= room {
            return text.to_string();
        }
        let mut cut: Vec<char> = text.chars().collect();
        while !cut.is_empty() {
            cut.pop();
            let shorter: String = cut.iter().chain(['…'].iter()).collect();
            if self.width(&shorter) <= room {
                return shorter;
            }
        }
        String::new()
    }
}

/// What a server's row says of it, longest first: its state and the
/// balancer's verdict, then shorter forms for a narrow row.
fn said(state: ServerState, out: bool, cause: Option<Cause>) -> Vec<String> {
    let state = match state {
        ServerState::Up => None,
        ServerState::Slow(f) => Some(format!("slow ×{f}")),
        ServerState::Failing => Some("failing: 500s".to_string()),
        ServerState::Crashed => Some("crashed".to_string()),
        ServerState::Out => Some("not in the pool".to_string()),
    };
    let why = match cause {
        Some(Cause::Checks) => "out: health checks",
        Some(Cause::Passive) => "out: max-fails",
        Some(Cause::Outlier) => "out: ejected",
        None => "out",
    };
    match (state, out) {
        (None, false) => Vec::new(),
        (None, true) => vec![why.to_string(), "out".to_string()],
        (Some(s), false) => vec![s],
        (Some(s), true) => vec![format!("{s} · {why}"), format!("{s} · out"), s],
    }
}

/// What a row's column of the heard says: the server's weight in force,
/// or the requests in flight its last probe reply carried.
fn heard_cell(counters: &Counters, weights: Option<&[f64]>, s: usize) -> Option<String> {
    match weights {
        Some(weights) => weights.get(s).map(|&w| lbsim_core::replay::weight_text(w)),
        None => counters.replies.get(s).copied().flatten().map(|p| p.in_flight.to_string()),
    }
}

/// JSON text of a string (a server's name may hold anything).
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Draws rule `i`'s side at the playhead; with `frame.record`, returns
/// what it drew as JSON text (for the tests: the layout, each row's state
/// and counts, every mark and every label with its box).
pub fn draw_side(i: usize, side: &Side, counters: &Counters, frame: &Frame) -> Option<String> {
    let Frame { scenario, timeline, names, t, end, glide, scale, theme, sizes, record } = *frame;
    let canvas = by_id::<HtmlCanvasElement>(&format!("replay-canvas-{i}"))?;
    let (w, h) = sizes[i];
    if w <= 0.0 || h <= 0.0 {
        return None;
    }
    let (pw, ph) = ((w * scale).round() as u32, (h * scale).round() as u32);
    if canvas.width() != pw {
        canvas.set_width(pw);
    }
    if canvas.height() != ph {
        canvas.set_height(ph);
    }
    let ctx = canvas.get_context("2d").ok().flatten()?.dyn_into::<CanvasRenderingContext2d>().ok()?;
    let _ = ctx.set_transform(scale, 0.0, 0.0, scale, 0.0, 0.0);
    let (fg, bg, grid, bad) =
        (css(theme.fg, 1.0), css(theme.bg, 1.0), css(theme.grid, 1.0), css(theme.saturated, 1.0));
    ctx.set_fill_style_str(&bg);
    ctx.fill_rect(0.0, 0.0, w, h);
    ctx.set_font("11px sans-serif");
    ctx.set_text_baseline("middle");
    let mut labels = Labels { ctx: &ctx, record: record.then(Vec::new) };
    let replay = &side.replay;
    let servers = names.len();
    let slots = scenario.slots.max(1);
    // The places of a row, left to right (see the module's doc): the
    // names' column as wide as the widest name (cut at NAME).
    let widest_name = names.iter().map(|n| labels.width(n)).fold(0.0, f64::max);
    let name_w = (widest_name + 4.0).clamp(12.0, NAME);
    let bar_x = name_w + 2.0;
    let slots_x = bar_x + BAR + 8.0;
    // What the rule heard or learned, in a column before the counts.
    let weights = counters.weights.as_deref();
    let probing = !replay.probes.is_empty();
    // Kept from the start, so that the first update moves nothing.
    let learning = !replay.weights.is_empty();
    let heard_header = match (learning, probing) {
        (true, _) => Some("weight"),
        (false, true) => Some("probe RIF"),
        (false, false) => None,
    };
    let counts_x = w - 2.0 * COUNT - if heard_header.is_some() { HEARD } else { 0.0 };
    // The slots share at most 0.4 of the room between the bar and the
    // counts, so that a narrow row keeps room for its queue and its state.
    let pitch = ((counts_x - slots_x) * 0.4 / f64::from(slots)).clamp(2.0, SLOT);
    let r = (pitch / 2.0 - 1.2).clamp(1.0, 3.2);
    let queue_x = slots_x + f64::from(slots) * pitch + GAP;
    let row_y = |s: usize| TOP + ROW * s as f64 + ROW / 2.0;
    // The timeline strip: the window's span, the events, the playhead.
    let (x0, x1) = (slots_x, counts_x - 8.0);
    let at_x = |ms: f64| x0 + (x1 - x0) * if end > 0.0 { (ms / end).clamp(0.0, 1.0) } else { 0.0 };
    ctx.set_fill_style_str(&grid);
    ctx.fill_rect(x0, 8.0, x1 - x0, 3.0);
    labels.text("in flight", w - COUNT - 4.0, 10.0, true, &fg);
    labels.text("waiting", w - 4.0, 10.0, true, &fg);
    if let Some(header) = heard_header {
        labels.text(header, w - 2.0 * COUNT - 4.0, 10.0, true, &fg);
    }
    let colour = crate::palette::css(replay.algorithm);
    // Each weight update of the first copy: a tick on the strip, in the
    // rule's colour.
    ctx.set_fill_style_str(&colour);
    for u in replay.weights.iter().filter(|u| u.copy == 0) {
        ctx.fill_rect(at_x(u.at_ms) - 1.0, 6.0, 2.0, 7.0);
    }
    // An event's label beside its mark, on its left where the right has no
    // room; one that would overlap the label before it is left to the mark.
    let mut taken = f64::NEG_INFINITY;
    for e in scenario.events.0.iter().filter(|e| e.at_ms as f64 <= end) {
        let x = at_x(e.at_ms as f64);
        let colour = if matches!(e.kind, EventKind::Crash | EventKind::Fail) { &bad } else { &fg };
        ctx.set_fill_style_str(colour);
        ctx.fill_rect(x - 1.0, 3.0, 2.0, 13.0);
        let text = format!("{} {}", e.server, e.kind);
        let width = labels.width(&text);
        let (left, right) =
            if x + 3.0 + width <= w - 2.0 { (x + 3.0, false) } else { (x - 3.0 - width, true) };
        if left > taken + GAP && left >= 0.0 {
            labels.text(&text, if right { x - 3.0 } else { left }, 22.0, right, colour);
            taken = left + width;
        }
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
    // Each row's state, said in the longest form that leaves the queue
    // two dots and a "+N"; the labels share one left edge, where every queue ends.
    let states: Vec<ServerState> = (0..servers).map(|s| ServerState::at(timeline, s, t)).collect();
    let outs: Vec<bool> = (0..servers).map(|s| counters.out.get(s).copied().unwrap_or(0) > 0).collect();
    let label_end = counts_x - GAP;
    let shown: Vec<String> = (0..servers)
        .map(|s| {
            let forms = said(states[s], outs[s], cause[s]);
            let room = label_end - queue_x - 2.0 * STEP - PLUS - GAP;
            let short = forms.last().cloned().unwrap_or_default();
            forms.into_iter().find(|f| labels.width(f) <= room).unwrap_or_else(|| labels.fit(&short, room))
        })
        .collect();
    let widest = shown.iter().map(|s| labels.width(s)).fold(0.0, f64::max);
    let queue_end = if widest > 0.0 { label_end - widest - GAP } else { label_end };
    for (s, name) in names.iter().enumerate() {
        let y = row_y(s);
        let tint = match states[s] {
            ServerState::Up => None,
            ServerState::Slow(_) => Some(css(theme.saturated, 0.10)),
            ServerState::Failing => Some(css(theme.saturated, 0.22)),
            ServerState::Crashed => Some(css(theme.saturated, 0.30)),
            ServerState::Out => Some(css(theme.grid, 0.8)),
        };
        if let Some(tint) = tint {
            ctx.set_fill_style_str(&tint);
            ctx.fill_rect(0.0, y - ROW / 2.0 + 1.0, w, ROW - 2.0);
        }
        // Taken out by the balancer's checks: the row outlined, dashed.
        if outs[s] {
            ctx.set_stroke_style_str(&fg);
            ctx.set_line_width(1.0);
            let _ = ctx.set_line_dash(&Array::of2(&JsValue::from(4.0), &JsValue::from(3.0)));
            ctx.stroke_rect(0.5, y - ROW / 2.0 + 1.5, w - 1.0, ROW - 3.0);
            let _ = ctx.set_line_dash(&Array::new());
        }
        let name = labels.fit(name, name_w - 2.0);
        labels.text(&name, 2.0, y, false, &fg);
        ctx.set_stroke_style_str(&grid);
        ctx.set_line_width(1.0);
        if pitch >= 4.0 {
            for k in 0..slots {
                ctx.stroke_rect(
                    slots_x + f64::from(k) * pitch + 0.5,
                    y - pitch / 2.0 + 0.5,
                    pitch - 2.0,
                    pitch - 2.0,
                );
            }
        } else {
            ctx.stroke_rect(slots_x + 0.5, y - 4.5, f64::from(slots) * pitch - 1.0, 9.0);
        }
        if !shown[s].is_empty() {
            labels.text(&shown[s], label_end, y, true, &bad);
        }
        let in_flight = counters.in_flight.get(s).copied().unwrap_or(0).to_string();
        labels.text(&in_flight, w - COUNT - 4.0, y, true, &fg);
        if let Some(cell) = heard_cell(counters, weights, s) {
            labels.text(&cell, w - 2.0 * COUNT - 4.0, y, true, &fg);
        }
        labels.text(&counters.queued.get(s).copied().unwrap_or(0).to_string(), w - 4.0, y, true, &fg);
    }
    // The balancer: a bar the requests leave from and answers come back to.
    let lb = (bar_x + BAR, TOP + ROW * servers as f64 / 2.0);
    ctx.set_fill_style_str(&grid);
    ctx.fill_rect(bar_x, TOP, BAR, ROW * servers as f64);
    // Learned weights: a bar at each row's foot, the heaviest reaching
    // the queue's end.
    let mut weight_bars = Vec::new();
    if let Some(weights) = weights {
        let heaviest = weights.iter().copied().fold(0.0, f64::max);
        ctx.set_fill_style_str(&colour);
        for (s, &weight) in weights.iter().enumerate().take(servers) {
            let length = if heaviest > 0.0 { (queue_end - slots_x) * weight / heaviest } else { 0.0 };
            ctx.fill_rect(slots_x, row_y(s) + ROW / 2.0 - 4.0, length, 2.0);
            weight_bars.push(length);
        }
    }
    // Probes: the newest to each server in the last PROBE_SHOWN_MS, a
    // diamond between the bar and the row's slots, fading as it ages.
    let mut newest: Vec<Option<f64>> = vec![None; servers];
    for p in replay.probes_sent(t - PROBE_SHOWN_MS, t) {
        if let Some(sent) = newest.get_mut(p.server as usize) {
            *sent = Some(sent.map_or(p.sent_ms, |s: f64| s.max(p.sent_ms)));
        }
    }
    let mut probe_marks = Vec::new();
    ctx.set_fill_style_str(&colour);
    for (s, sent) in newest.iter().enumerate() {
        let Some(sent) = *sent else { continue };
        let (x, y) = (bar_x + BAR + 4.0, row_y(s));
        ctx.set_global_alpha(1.0 - 0.75 * ((t - sent) / PROBE_SHOWN_MS).clamp(0.0, 1.0));
        ctx.begin_path();
        ctx.move_to(x, y - 4.0);
        ctx.line_to(x + 3.0, y);
        ctx.line_to(x, y + 4.0);
        ctx.line_to(x - 3.0, y);
        ctx.fill();
        probe_marks.push((s, sent, x, y));
    }
    ctx.set_global_alpha(1.0);
    // The requests in flight at `t`, and those going back (while gliding).
    let mut waiting = vec![0usize; servers];
    let mut dots = Dots { record: record.then(Vec::new), ..Dots::default() };
    let queued_at = |k: usize| queue_x + STEP * k as f64 + STEP / 2.0;
    // Room for the waiting dots; when some row has more than fit, every
    // row keeps room for a "+N" after them, at one place, so that no dot
    // on its way to a queue crosses another row's "+N".
    let queued: Vec<usize> =
        (0..servers).map(|s| counters.queued.get(s).copied().unwrap_or(0) as usize).collect();
    let fit_all = ((queue_end - queue_x) / STEP).floor().max(0.0) as usize;
    let rooms: Vec<usize> = if queued.iter().all(|&n| n <= fit_all) {
        queued.clone()
    } else {
        let room = ((queue_end - queue_x - PLUS) / STEP).floor().max(0.0) as usize;
        queued.iter().map(|&n| n.min(room)).collect()
    };
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
        let slot_x = slots_x + f64::from(slot.min(slots - 1)) * pitch + pitch / 2.0 - 1.0;
        if a.done_ms <= t {
            // Answered: back to the balancer, fading, an error as a cross;
            // in half the time it took to come, so the way back stays clear.
            let back = glide / 2.0;
            if back > 0.0 && t - a.done_ms < back {
                let f = (t - a.done_ms) / back;
                let at = (slot_x + (lb.0 - slot_x) * f, y + (lb.1 - y) * f);
                if a.outcome == Outcome::Ok {
                    dots.add(at, &mark, f, Place::Leaving, s);
                } else {
                    dots.cross(at, s);
                }
            }
            continue;
        }
        let (target, place) = if a.start_ms > t {
            let k = waiting[s];
            waiting[s] += 1;
            if k >= rooms[s] {
                continue;
            }
            ((queued_at(k), y), Place::Queued)
        } else {
            ((slot_x, y), Place::Served)
        };
        if glide > 0.0 && t - a.sent_ms < glide {
            let f = (t - a.sent_ms) / glide;
            let at = (lb.0 + (target.0 - lb.0) * f, lb.1 + (target.1 - lb.1) * f);
            dots.add(at, &mark, 0.0, Place::Arriving, s);
        } else {
            dots.add(target, &mark, 0.0, place, s);
        }
    }
    dots.draw(&ctx, r, &crate::palette::css(replay.algorithm), &fg, &bad);
    // More waiting than the row shows: say how many.
    for (s, &n) in waiting.iter().enumerate() {
        if n > rooms[s] {
            labels.text(
                &format!("+{}", n - rooms[s]),
                queue_x + STEP * rooms[s] as f64 + 4.0,
                row_y(s),
                false,
                &fg,
            );
        }
    }
    let (marks, texts) = (dots.record?, labels.record?);
    let mut out = format!(
        "{{\"side\":{i},\"rule\":\"{}\",\"t\":{t},\"glide\":{glide},\"width\":{w},\"scale\":{scale},\
         \"top\":{TOP},\"row\":{ROW},\"bar\":[{bar_x},{}],\"slotsX\":{slots_x},\"pitch\":{pitch},\"radius\":{r},\
         \"queueX\":{queue_x},\"queueEnd\":{queue_end},\"countsX\":{counts_x},\"rows\":[",
        replay.algorithm.id(),
        bar_x + BAR
    );
    for s in 0..servers {
        let state = match states[s] {
            ServerState::Up => "up",
            ServerState::Slow(_) => "slow",
            ServerState::Failing => "failing",
            ServerState::Crashed => "crashed",
            ServerState::Out => "out of the pool",
        };
        let _ = write!(
            out,
            "{}{{\"name\":{},\"state\":\"{state}\",\"out\":{},\"said\":{}}}",
            if s == 0 { "" } else { "," },
            quoted(&names[s]),
            outs[s],
            quoted(&shown[s])
        );
    }
    out.push_str("],\"marks\":[");
    for (k, (x, y, place, s, hollow)) in marks.iter().enumerate() {
        let _ = write!(out, "{}[{x},{y},\"{place}\",{s},{hollow}]", if k == 0 { "" } else { "," });
    }
    out.push_str("],\"probes\":[");
    for (k, (s, sent, x, y)) in probe_marks.iter().enumerate() {
        let _ = write!(out, "{}[{s},{sent},{x},{y}]", if k == 0 { "" } else { "," });
    }
    out.push_str("],\"weights\":");
    match weights {
        None => out.push_str("null"),
        Some(weights) => {
            let list: Vec<String> = weights.iter().map(f64::to_string).collect();
            let bars: Vec<String> = weight_bars.iter().map(f64::to_string).collect();
            let _ = write!(out, "{{\"values\":[{}],\"bars\":[{}]}}", list.join(","), bars.join(","));
        }
    }
    out.push_str(",\"labels\":[");
    for (k, (text, [a, b, c, d])) in texts.iter().enumerate() {
        let _ = write!(out, "{}[{},{a},{b},{c},{d}]", if k == 0 { "" } else { "," }, quoted(text));
    }
    out.push_str("]}");
    Some(out)
}
