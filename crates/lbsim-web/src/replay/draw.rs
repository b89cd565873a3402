//! One rule's side on its canvas at the playhead: the timeline strip with
//! the scenario's events and the balancer's health verdicts, a row per
//! server (its state, its slots, its queue, its counts), and the requests
//! as dots gliding from the balancer, served and leaving.

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

/// CSS px: the timeline strip on top, a server's row, the balancer's
/// gutter, a server's name, a slot, a waiting dot's step, a count column.
const TOP: f64 = 30.0;
const ROW: f64 = 22.0;
const GUTTER: f64 = 20.0;
const NAME: f64 = 34.0;
const SLOT: f64 = 13.0;
const STEP: f64 = 8.0;
const COUNT: f64 = 44.0;

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

/// Draws rule `i`'s side at the playhead.
pub fn draw_side(i: usize, side: &Side, counters: &Counters, frame: &Frame) {
    let Frame { scenario, timeline, names, t, end, glide, scale, theme, sizes } = *frame;
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
        let (tint, mut said) = match ServerState::at(timeline, s, t) {
            ServerState::Up => (None, String::new()),
            ServerState::Slow(f) => (Some(css(theme.saturated, 0.10)), format!("slow ×{f}")),
            ServerState::Failing => (Some(css(theme.saturated, 0.22)), "failing: 500s".to_string()),
            ServerState::Crashed => (Some(css(theme.saturated, 0.30)), "crashed".to_string()),
            ServerState::Out => (Some(css(theme.grid, 0.8)), "not in the pool".to_string()),
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
