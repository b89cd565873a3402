//! Series over time: the longest queue, the errors and the hit rate (one
//! line per rule), and the requests sent to each server (one panel per
//! rule), the fleet's events marked on each.

use lbsim_core::events::{EventKind, Events};
use lbsim_core::report::AlgorithmResult;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use web_sys::HtmlCanvasElement;

use crate::plots::axis::{ms_label, themed, trim, unstretched};
use crate::plots::drawn;
use crate::plots::frame::{fail, surface, titled, Area};
use crate::plots::legend::{legend_rows, LegendRow};
use crate::plots::look::{drawing_order, Look};

/// A series over time of one result, one value per bucket of
/// `queue_bucket_ms` (`None`: nothing to show there, drawn as a gap).
pub type Series = fn(&AlgorithmResult) -> Vec<Option<f64>>;

/// What an over-time plot shows: its title, its y axis, the series, and
/// whether the series is a share (drawn 0 to 100%, whatever the values).
#[derive(Clone, Copy, Debug)]
pub struct OverTime {
    /// The plot's title.
    pub title: &'static str,
    /// The y axis's description.
    pub y_desc: &'static str,
    /// The values per bucket.
    pub series: Series,
    /// A share in 0..1, drawn as a percentage on a fixed axis.
    pub share: bool,
    /// What the plot says when every value is zero ("no errors in this
    /// run"), so a flat line is not taken for a missing one.
    pub none: &'static str,
}

fn counts(series: &[u32]) -> Vec<Option<f64>> {
    series.iter().map(|&n| Some(f64::from(n))).collect()
}

/// The longest queue on any server in each bucket.
pub fn queue_series(r: &AlgorithmResult) -> Vec<Option<f64>> {
    counts(&r.queue_series)
}

/// The errors in each bucket (fleet runs).
pub fn error_series(r: &AlgorithmResult) -> Vec<Option<f64>> {
    counts(r.error_series.as_deref().unwrap_or_default())
}

/// The cache hit rate of the requests dispatched in each bucket (caches
/// on); a bucket without any is a gap.
pub fn hit_series(r: &AlgorithmResult) -> Vec<Option<f64>> {
    r.hit_series.clone().unwrap_or_default()
}

/// Time the buckets of a result span, in s.
fn span_s(results: &[&AlgorithmResult]) -> f64 {
    results
        .iter()
        .map(|r| r.queue_series.len() as f64 * r.queue_bucket_ms / 1000.0)
        .fold(0.0, f64::max)
        .max(1e-3)
}

/// The fleet's events as dashed vertical lines over a chart of time in s,
/// each labelled ("s3 fail") at the top, labels moved down a row when
/// they would run into the one before.
fn markers(
    chart: &mut drawn::Chart<'_>,
    area: &Area,
    events: &Events,
    top: f64,
    css: f64,
    look: &Look,
) -> Result<(), String> {
    let font = look.font(css).pos(Pos::new(HPos::Left, VPos::Top));
    let mut ends = [i32::MIN; 3];
    let (right, _) = area.dim_in_pixel();
    for e in &events.0 {
        let at_s = e.at_ms as f64 / 1000.0;
        let end = chart.x_range().end;
        let c = match e.kind {
            EventKind::Fail | EventKind::Crash => look.theme.saturated,
            _ => look.theme.fg,
        };
        // An event after the run's end is named at the right edge, with
        // its time, instead of silently left out.
        let (t, label) = if at_s > end {
            (end, format!("{} {} at {} s \u{2192}", e.server, e.kind, trim(at_s)))
        } else {
            chart
                .draw_series(DashedLineSeries::new(
                    [(at_s, 0.0), (at_s, top)],
                    look.px(4.0),
                    look.px(3.0),
                    c.stroke_width(look.stroke(1.0)),
                ))
                .map_err(fail)?;
            (at_s, format!("{} {}", e.server, e.kind))
        };
        let (w, h) = area.estimate_text_size(&label, &font).unwrap_or((0, 0));
        let at = chart.backend_coord(&(t, top));
        let base = area.get_base_pixel();
        let line_x = at.0 - base.0;
        let mut x = line_x + look.px(3.0) as i32;
        // Near the right edge the label goes to the left of its line, and
        // a short rule joins it to the line, so it is read as that line's.
        let left = x + w as i32 > right as i32;
        if left {
            x = line_x - look.px(8.0) as i32 - w as i32;
        }
        let row = ends.iter().position(|&end| x > end).unwrap_or(0);
        ends[row] = x + w as i32 + look.px(4.0) as i32;
        let y = at.1 - base.1 + look.px(2.0) as i32 + row as i32 * (h as i32 + look.px(2.0) as i32);
        // On the background's colour, so a line running along the top (a
        // hit rate near 100%) does not cross the words.
        let pad = look.px(2.0) as i32;
        let back = [(x - pad, y - pad / 2), (x + w as i32 + pad, y + h as i32 + pad / 2)];
        area.draw(&Rectangle::new(back, look.theme.bg.mix(0.85).filled())).map_err(fail)?;
        area.draw(&Text::new(label, (x, y), font.clone().color(&c))).map_err(fail)?;
        if left {
            let mid = y + h as i32 / 2;
            let rule = [(x + w as i32 + pad, mid), (line_x, mid)];
            area.draw(&PathElement::new(rule, c.stroke_width(look.stroke(1.0)))).map_err(fail)?;
        }
    }
    Ok(())
}

/// A series over time (the longest queue on any server, the errors, the
/// hit rate), one line per algorithm, the fleet's events marked; a rule
/// whose line dwarfs the rest runs off the top, marked in the legend.
/// Returns the legend's rows.
pub fn over_time(
    canvas: &HtmlCanvasElement,
    results: &[&AlgorithmResult],
    what: OverTime,
    events: &Events,
    look: &Look,
) -> Result<Vec<LegendRow>, String> {
    let Some(root) = surface(canvas, look) else { return Ok(Vec::new()) };
    let plot = titled(&root, what.title, look)?;
    let span = span_s(results);
    let scale = if what.share { 100.0 } else { 1.0 };
    let values = |r: &AlgorithmResult| (what.series)(r).into_iter().map(move |v| v.map(|v| v * scale));
    let peaks: Vec<f64> = results.iter().map(|r| values(r).flatten().fold(0.0, f64::max)).collect();
    let top = if what.share {
        100.0
    } else {
        // A few requests are never an outlier, even when the other rules
        // have none.
        let (peak, _) = unstretched(&peaks, 4.0, 10.0);
        (peak * 1.1).max(1.0)
    };
    let mut chart = ChartBuilder::on(&plot)
        .margin(look.px(8.0))
        .margin_right(look.px(20.0))
        .x_label_area_size(look.px(42.0))
        .y_label_area_size(look.px(58.0))
        .build_cartesian_2d(0.0..span, 0.0..top)
        .map_err(fail)?;
    let y_label = |v: &f64| if what.share { format!("{}%", trim(*v)) } else { trim(*v) };
    // Every series is per bucket: the axis says how wide one is.
    let bucket = ms_label(results.first().map_or(0.0, |r| r.queue_bucket_ms));
    themed(&mut chart.configure_mesh(), look, 12.0, 0.0)
        .x_desc(format!("time (s), buckets of {bucket}"))
        .y_desc(match what.y_desc.strip_suffix(" bucket") {
            Some(head) => format!("{head} {bucket} bucket"),
            None => what.y_desc.to_string(),
        })
        .y_labels(if what.share { 6 } else { 10 })
        .x_label_formatter(&|v| trim(*v))
        .y_label_formatter(&y_label)
        .axis_desc_style(look.font(13.0))
        .draw()
        .map_err(fail)?;
    let order = drawing_order(results, look);
    for r in order {
        let step = r.queue_bucket_ms / 1000.0;
        // One line per stretch of buckets with a value: a gap stays a gap.
        let mut stretch = Vec::new();
        for (i, v) in values(r).chain([None]).enumerate() {
            match v {
                Some(v) => stretch.push((i as f64 * step, v.min(top))),
                None if !stretch.is_empty() => {
                    let style = look.line(r.algorithm, 1.5);
                    let dashes = look.dashes(r.algorithm);
                    drawn::line(
                        &mut chart,
                        canvas,
                        r.algorithm.id(),
                        &stretch,
                        style,
                        dashes,
                        [false, false],
                    )?;
                    stretch.clear();
                }
                None => {}
            }
        }
    }
    markers(&mut chart, &plot, events, top, 11.0, look)?;
    if peaks.iter().all(|&p| p == 0.0) && !what.none.is_empty() {
        let at = (look.px(72.0) as i32, look.px(44.0) as i32);
        plot.draw(&Text::new(what.none, at, look.font(14.0))).map_err(fail)?;
    }
    let off: Vec<Option<String>> = peaks.iter().map(|&p| (p > top).then(|| format!("peak {p}"))).collect();
    root.present().map_err(fail)?;
    Ok(legend_rows(&results.iter().map(|r| r.algorithm).collect::<Vec<_>>(), &off, look))
}

/// Colours a reader tells apart, after the theme's text colour: one per
/// server up to eight. None is a rule's (the panels are the rules): Paul
/// Tol's muted and bright schemes less the hues the rules wear.
const SERVER_COLOURS: [RGBColor; 7] = [
    RGBColor(0xCC, 0x66, 0x77),
    RGBColor(0x11, 0x77, 0x33),
    RGBColor(0x66, 0x77, 0xDD),
    RGBColor(0xDD, 0xAA, 0x33),
    RGBColor(0x88, 0x22, 0x55),
    RGBColor(0x66, 0xCC, 0xEE),
    RGBColor(0xBB, 0xBB, 0xBB),
];

/// The colour of each server in the requests plot: its own up to eight
/// servers; beyond that the busiest and those the events name keep one
/// (in that order, while colours last) and the rest share a faint one.
fn server_colours(look: &Look, first: &AlgorithmResult, events: &Events) -> Vec<(RGBColor, bool)> {
    let n = first.servers.len();
    let palette =
        |k: usize| if k == 0 { look.theme.fg } else { SERVER_COLOURS[(k - 1) % SERVER_COLOURS.len()] };
    if n <= 8 {
        return (0..n).map(|i| (palette(i), true)).collect();
    }
    let busiest = (0..n).max_by_key(|&i| first.servers[i].requests).unwrap_or(0);
    let mut marked = vec![busiest];
    for e in &events.0 {
        if let Some(i) = first.servers.iter().position(|s| s.name == e.server) {
            if !marked.contains(&i) && marked.len() < 8 {
                marked.push(i);
            }
        }
    }
    let (RGBColor(a, b, c), RGBColor(x, y, z)) = (look.theme.fg, look.theme.bg);
    let faint = |from: u8, to: u8| (f64::from(from) * 0.35 + f64::from(to) * 0.65) as u8;
    let rest = RGBColor(faint(a, x), faint(b, y), faint(c, z));
    (0..n)
        .map(|i| marked.iter().position(|&m| m == i).map_or((rest, false), |k| (palette(k), true)))
        .collect()
}

/// Most servers drawn one line each.
const MAX_SERVER_LINES: usize = 32;

/// Requests sent to each server over time (per second), one panel per
/// algorithm, one line per server, the fleet's events marked. Returns the
/// legend's rows: the servers.
pub fn requests(
    canvas: &HtmlCanvasElement,
    results: &[&AlgorithmResult],
    events: &Events,
    cols: usize,
    look: &Look,
) -> Result<Vec<LegendRow>, String> {
    let Some(root) = surface(canvas, look) else { return Ok(Vec::new()) };
    let Some(first) = results.first() else { return Ok(Vec::new()) };
    let body = titled(&root, "Requests sent to each server over time (per second)", look)?;
    let colours = server_colours(look, first, events);
    let mut rows: Vec<LegendRow> = first
        .servers
        .iter()
        .zip(&colours)
        .filter(|(_, (_, own))| *own)
        .map(|(s, &(c, _))| LegendRow::line(s.name.clone(), c, true))
        .collect();
    if colours.iter().any(|(_, own)| !own) {
        rows.push(LegendRow::line(
            "the other servers".into(),
            colours.iter().find(|c| !c.1).map_or(look.theme.fg, |c| c.0),
            false,
        ));
    }
    let per_s = |r: &AlgorithmResult, count: u32| f64::from(count) * 1000.0 / r.queue_bucket_ms.max(1e-9);
    let peak = results
        .iter()
        .flat_map(|r| r.servers.iter().flat_map(|s| s.requests_series.iter().flatten().map(|&c| per_s(r, c))))
        .fold(0.0, f64::max);
    let top = (peak * 1.1).max(1.0);
    let span = span_s(results);
    let panels = body.split_evenly((results.len().div_ceil(cols), cols));
    for (i, (panel, r)) in panels.iter().zip(results).enumerate() {
        let first_column = i % cols == 0;
        let mut chart = ChartBuilder::on(panel)
            .caption(r.algorithm.id(), look.font(13.0))
            .margin(look.px(6.0))
            .x_label_area_size(look.px(18.0))
            .y_label_area_size(look.px(if first_column { 44.0 } else { 30.0 }))
            .build_cartesian_2d(0.0..span, 0.0..top)
            .map_err(fail)?;
        themed(&mut chart.configure_mesh(), look, 11.0, 0.0)
            .x_labels(4)
            .y_labels(4)
            .x_label_formatter(&|v| format!("{} s", trim(*v)))
            .y_label_formatter(&|v| trim(*v))
            .y_desc(if first_column { "requests/s" } else { "" })
            .axis_desc_style(look.font(11.0))
            .draw()
            .map_err(fail)?;
        // The servers that share a look first, so the marked ones are on top.
        let order = (0..r.servers.len()).filter(|&j| !colours.get(j).is_some_and(|c| c.1));
        let order = order.take(MAX_SERVER_LINES);
        for j in order.chain((0..r.servers.len()).filter(|&j| colours.get(j).is_some_and(|c| c.1))) {
            let s = &r.servers[j];
            let step = r.queue_bucket_ms / 1000.0;
            let line: Vec<(f64, f64)> = s
                .requests_series
                .iter()
                .flatten()
                .enumerate()
                .map(|(k, &c)| (k as f64 * step, per_s(r, c)))
                .collect();
            let (c, _) = colours.get(j).copied().unwrap_or((look.theme.fg, false));
            let name = format!("{} {}", r.algorithm.id(), s.name);
            drawn::line(
                &mut chart,
                canvas,
                &name,
                &line,
                c.stroke_width(look.stroke(1.5)),
                [0.0; 2],
                [false, false],
            )?;
        }
        markers(&mut chart, panel, events, top, 10.0, look)?;
    }
    root.present().map_err(fail)?;
    Ok(rows)
}
