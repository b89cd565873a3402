//! The plots, drawn with plotters on canvases at the screen's pixel density
//! (`canvas.width = css width x devicePixelRatio`, fonts and strokes scaled
//! by the same factor). Each function draws one canvas from a report and
//! touches nothing else, so the page redraws only what changed.

use lbsim_core::fleet::events::{EventKind, Events};
use lbsim_core::presets::RequestClass;
use lbsim_core::remap::RemapReport;
use lbsim_core::report::AlgorithmResult;
use lbsim_core::report::Headline;
use lbsim_core::sweep::Sweep;
use lbsim_core::theory::MMc;
use lbsim_core::AlgorithmId;
use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use web_sys::HtmlCanvasElement;

use crate::backend::Canvas;
use crate::palette::{colour, Theme};

/// Which requests the latency plot shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Every request.
    All,
    /// Quick requests (bimodal work).
    Quick,
    /// Slow requests (bimodal work).
    Slow,
}

impl From<RequestClass> for Class {
    fn from(c: RequestClass) -> Class {
        match c {
            RequestClass::All => Class::All,
            RequestClass::Quick => Class::Quick,
            RequestClass::Slow => Class::Slow,
        }
    }
}

impl Class {
    /// The value of the class switch that selects it.
    pub fn value(self) -> &'static str {
        match self {
            Class::All => "all",
            Class::Quick => "quick",
            Class::Slow => "slow",
        }
    }

    /// Reads the value of the class switch.
    pub fn parse(text: &str) -> Class {
        match text {
            "quick" => Class::Quick,
            "slow" => Class::Slow,
            _ => Class::All,
        }
    }

    fn words(self) -> &'static str {
        match self {
            Class::All => "all requests",
            Class::Quick => "quick requests",
            Class::Slow => "slow requests",
        }
    }
}

/// How the latency plot is drawn.
#[derive(Clone, Copy, Debug)]
pub struct CdfView {
    /// Which requests.
    pub class: Class,
    /// 1 - CDF on a log scale instead of the CDF.
    pub tail: bool,
}

/// Pixel scale, colours and emphasis shared by every plot of one redraw.
#[derive(Clone, Copy, Debug)]
pub struct Look {
    /// devicePixelRatio.
    pub scale: f64,
    /// Colours of the theme.
    pub theme: Theme,
    /// The rules the lesson is about, drawn on top and in full colour; the
    /// rest are muted (not hidden). Empty: all alike.
    pub focus: &'static [AlgorithmId],
}

impl Look {
    fn px(&self, css: f64) -> u32 {
        (css * self.scale).round() as u32
    }

    fn font(&self, css: f64) -> TextStyle<'static> {
        // A named family, not the string "sans-serif": parsing the string
        // lowercases it, which pulls Unicode case tables into the bundle.
        FontDesc::new(FontFamily::SansSerif, css * self.scale, FontStyle::Normal).color(&self.theme.fg)
    }

    fn stroke(&self, css: f64) -> u32 {
        (css * self.scale).round().max(1.0) as u32
    }

    fn emphasised(&self, a: AlgorithmId) -> bool {
        self.focus.is_empty() || self.focus.contains(&a)
    }

    /// A rule's line: full colour and thicker when the lesson is about it,
    /// faint and thinner otherwise.
    fn line(&self, a: AlgorithmId, css: f64) -> ShapeStyle {
        if self.emphasised(a) {
            colour(a).stroke_width(self.stroke(if self.focus.is_empty() { css } else { css + 1.0 }))
        } else {
            colour(a).mix(0.35).stroke_width(self.stroke(css * 0.75))
        }
    }

    /// Whether the canvas is narrow (a phone): legends go under the plot.
    fn narrow(&self, width_px: u32) -> bool {
        f64::from(width_px) / self.scale < 560.0
    }
}

type Area = DrawingArea<Canvas, plotters::coord::Shift>;

fn fail(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Sizes the canvas's backing store to its CSS box times the pixel ratio;
/// `None` when the canvas is not laid out (hidden).
fn surface(canvas: &HtmlCanvasElement, look: &Look) -> Option<Area> {
    let (w, h) = (canvas.client_width(), canvas.client_height());
    if w <= 0 || h <= 0 {
        return None;
    }
    let (pw, ph) = (look.px(f64::from(w)), look.px(f64::from(h)));
    if canvas.width() != pw {
        canvas.set_width(pw);
    }
    if canvas.height() != ph {
        canvas.set_height(ph);
    }
    let area = Canvas::new(canvas)?.into_drawing_area();
    area.fill(&look.theme.bg).ok()?;
    Some(area)
}

/// One legend row: label, the line's colour (none: a note, text only), and
/// whether the line is emphasised.
type LegendRow = (String, Option<RGBColor>, bool);

/// Draws a legend of rows into `area`, in `columns` columns.
fn legend(area: &Area, rows: &[LegendRow], columns: usize, look: &Look) -> Result<(), String> {
    let line = look.px(18.0) as i32;
    let step = look.px(17.0) as i32;
    let (w, _) = area.dim_in_pixel();
    let columns = columns.max(1);
    let width = (w as usize / columns) as i32;
    let x0 = look.px(8.0) as i32;
    let y0 = look.px(if columns > 1 { 10.0 } else { 22.0 }) as i32;
    for (i, (label, c, strong)) in rows.iter().enumerate() {
        let (x, y) = (x0 + width * (i % columns) as i32, y0 + step * (i / columns) as i32);
        let style = look.font(12.0).pos(Pos::new(HPos::Left, VPos::Center));
        let Some(c) = c else {
            area.draw(&Text::new(label.clone(), (x, y), style)).map_err(fail)?;
            continue;
        };
        let stroke = if *strong {
            c.stroke_width(look.stroke(3.0))
        } else {
            c.mix(0.45).stroke_width(look.stroke(2.0))
        };
        area.draw(&PathElement::new(vec![(x, y), (x + line, y)], stroke)).map_err(fail)?;
        area.draw(&Text::new(label.clone(), (x + line + look.px(6.0) as i32, y), style)).map_err(fail)?;
    }
    Ok(())
}

/// The legend: one row per rule (an arrow after those whose line runs off
/// the plot), then a note per such rule with its extreme value.
fn legend_rows(results: &[&AlgorithmResult], off_scale: &[Option<String>], look: &Look) -> Vec<LegendRow> {
    let mut rows: Vec<LegendRow> = results
        .iter()
        .zip(off_scale)
        .map(|(r, off)| {
            let arrow = if off.is_some() { " \u{2192}" } else { "" };
            (format!("{}{arrow}", r.algorithm.id()), Some(colour(r.algorithm)), look.emphasised(r.algorithm))
        })
        .collect();
    for (r, off) in results.iter().zip(off_scale) {
        if let Some(extreme) = off {
            rows.push(("\u{2192} off scale:".to_string(), None, true));
            rows.push((format!("{} {extreme}", r.algorithm.id()), None, true));
        }
    }
    rows
}

/// Splits a plot's canvas into the chart and its legend of `rows` rows:
/// beside the chart on wide canvases, under it on narrow ones (a phone),
/// where the chart needs the whole width. Returns the chart's area, the
/// legend's, and the legend's columns.
fn with_legend(root: &Area, rows: usize, look: &Look) -> (Area, Area, usize) {
    let (w, h) = root.dim_in_pixel();
    if look.narrow(w) {
        let columns = ((f64::from(w) / look.scale / 125.0) as usize).max(1);
        let height = look.px(17.0) * rows.div_ceil(columns) as u32 + look.px(14.0);
        let (chart, below) = root.split_vertically(h.saturating_sub(height));
        (chart, below, columns)
    } else {
        let (chart, side) = root.split_horizontally(w.saturating_sub(look.px(150.0)));
        (chart, side, 1)
    }
}

/// Draws a title over `area`, wrapped onto as many lines as its width
/// needs (so it is never cut off), and returns the area under it.
fn titled(area: &Area, title: &str, look: &Look) -> Result<Area, String> {
    let font = look.font(15.0);
    let (w, _) = area.dim_in_pixel();
    let room = w.saturating_sub(look.px(16.0));
    let mut lines: Vec<String> = Vec::new();
    for word in title.split(' ') {
        let candidate = match lines.last() {
            Some(line) => format!("{line} {word}"),
            None => word.to_string(),
        };
        let fits = area.estimate_text_size(&candidate, &font).map_or(true, |(tw, _)| tw <= room);
        match lines.last_mut() {
            Some(line) if fits => *line = candidate,
            Some(_) => lines.push(word.to_string()),
            None => lines.push(candidate),
        }
    }
    let step = look.px(19.0) as i32;
    let style = font.pos(Pos::new(HPos::Center, VPos::Top));
    for (i, line) in lines.iter().enumerate() {
        area.draw(&Text::new(
            line.clone(),
            ((w / 2) as i32, look.px(6.0) as i32 + step * i as i32),
            style.clone(),
        ))
        .map_err(fail)?;
    }
    Ok(area.margin(look.px(8.0) + step as u32 * lines.len() as u32, 0, 0, 0))
}

/// The axis limit that keeps one outlier from flattening every other
/// line: the largest value unless it is more than `factor` times the
/// second largest (of the rules' own extremes, and of `floor`, below which
/// nothing counts as an outlier), then the second largest.
/// Returns the limit and whether something was left off scale.
fn unstretched(extremes: &[f64], factor: f64, floor: f64) -> (f64, bool) {
    // The two largest, in one pass (no sort: a sort's code would cost the
    // page's bundle more than this whole plot).
    let (mut top, mut second) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &v in extremes.iter().filter(|v| v.is_finite()) {
        if v > top {
            second = top;
            top = v;
        } else if v > second {
            second = v;
        }
    }
    if !top.is_finite() {
        (0.0, false)
    } else if second.is_finite() && top > factor * second.max(floor).max(f64::MIN_POSITIVE) {
        (second.max(floor), true)
    } else {
        (top, false)
    }
}

/// The results in drawing order: the muted rules first, so the lesson's
/// rules are drawn over them.
fn drawing_order<'r, 'a>(results: &'r [&'a AlgorithmResult], look: &Look) -> Vec<&'r &'a AlgorithmResult> {
    let muted = results.iter().filter(|r| !look.emphasised(r.algorithm));
    muted.chain(results.iter().filter(|r| look.emphasised(r.algorithm))).collect()
}

fn decade_floor(v: f64) -> f64 {
    10f64.powf(v.log10().floor())
}

fn decade_ceil(v: f64) -> f64 {
    10f64.powf(v.log10().ceil())
}

/// Milliseconds as axis labels: 1, 10, 100, 1 s.
fn ms_label(v: f64) -> String {
    if v >= 1000.0 {
        format!("{} s", trim(v / 1000.0))
    } else {
        trim(v)
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn share_label(v: f64) -> String {
    format!("{}%", trim(v * 100.0))
}

/// The points of one result for the chosen class.
fn points(r: &AlgorithmResult, class: Class) -> &[[f64; 2]] {
    match class {
        Class::All => &r.cdf.all,
        Class::Quick => &r.cdf.quick,
        Class::Slow => &r.cdf.slow,
    }
}

/// Latency CDF (or 1 - CDF), log x, every shown algorithm overlaid, the
/// Erlang C curve over it when `theory` is given. One rule far slower than
/// the rest does not stretch the axis: its line runs off the right edge
/// and its legend entry says "off scale" with its largest latency.
pub fn latency(
    canvas: &HtmlCanvasElement,
    results: &[&AlgorithmResult],
    view: CdfView,
    theory: Option<MMc>,
    look: &Look,
) -> Result<(), String> {
    let Some(root) = surface(canvas, look) else { return Ok(()) };
    let title = format!(
        "Latency, {}{}",
        view.class.words(),
        if view.tail { ": share slower than x (1 - CDF)" } else { ": share at most x (CDF)" }
    );
    let body = titled(&root, &title, look)?;
    let (plot, side, columns) = with_legend(&body, results.len() + 3, look);
    let all: Vec<[f64; 2]> =
        results.iter().flat_map(|r| points(r, view.class).iter().copied()).filter(|p| p[0] > 0.0).collect();
    if all.is_empty() {
        plot.draw(&Text::new(
            "no requests of this class",
            (look.px(20.0) as i32, look.px(30.0) as i32),
            look.font(14.0),
        ))
        .map_err(fail)?;
        return root.present().map_err(fail);
    }
    let largest = |r: &&AlgorithmResult| points(r, view.class).iter().map(|p| p[0]).fold(0.0, f64::max);
    let extremes: Vec<f64> = results.iter().map(largest).collect();
    let (hi, _) = unstretched(&extremes, 3.0, 0.0);
    let lo = all.iter().map(|p| p[0]).fold(f64::INFINITY, f64::min);
    let (mut x0, mut x1) = (decade_floor(lo), decade_ceil(hi));
    if x1 <= x0 {
        x1 = x0 * 10.0;
    }
    if hi / x0 < 2.0 {
        x0 /= 10.0;
    }
    let y0 = if view.tail {
        let smallest = all.iter().map(|p| 1.0 - p[1]).filter(|&t| t > 0.0).fold(1.0, f64::min);
        decade_floor(smallest).max(1e-6)
    } else {
        0.0
    };
    // Muted rules first, so the lesson's rules are drawn over them.
    let order = drawing_order(results, look);
    let mut builder = ChartBuilder::on(&plot);
    builder.margin(look.px(8.0)).x_label_area_size(look.px(42.0)).y_label_area_size(look.px(58.0));
    // Points past the axis are cut at its edge (plotters draws them
    // outside the plot otherwise).
    let clip = |x: f64| x.min(x1);
    if view.tail {
        let mut chart =
            builder.build_cartesian_2d((x0..x1).log_scale(), (y0..1.0).log_scale()).map_err(fail)?;
        themed(&mut chart.configure_mesh(), look, 12.0, 0.35)
            .x_desc("latency (ms, log scale)")
            .y_desc("share of requests slower (log)")
            .x_label_formatter(&|v| ms_label(*v))
            .y_label_formatter(&|v| share_label(*v))
            .axis_desc_style(look.font(13.0))
            .draw()
            .map_err(fail)?;
        for r in order {
            let line =
                points(r, view.class).iter().filter(|p| p[1] < 1.0 && p[0] <= x1).map(|p| (p[0], 1.0 - p[1]));
            chart.draw_series(LineSeries::new(line, look.line(r.algorithm, 2.0))).map_err(fail)?;
        }
        if let Some(m) = theory {
            let curve: Vec<(f64, f64)> =
                log_grid(x0, x1).map(|t| (t, m.sojourn_tail(t))).filter(|p| p.1 >= y0).collect();
            chart
                .draw_series(DashedLineSeries::new(
                    curve,
                    look.px(6.0),
                    look.px(4.0),
                    look.theme.fg.stroke_width(look.stroke(2.0)),
                ))
                .map_err(fail)?;
        }
    } else {
        let mut chart = builder.build_cartesian_2d((x0..x1).log_scale(), 0.0..1.0).map_err(fail)?;
        themed(&mut chart.configure_mesh(), look, 12.0, 0.35)
            .x_desc("latency (ms, log scale)")
            .y_desc("share of requests at most x")
            .x_label_formatter(&|v| ms_label(*v))
            .y_label_formatter(&|v| share_label(*v))
            .axis_desc_style(look.font(13.0))
            .draw()
            .map_err(fail)?;
        for r in order {
            let line =
                std::iter::once((x0, 0.0)).chain(points(r, view.class).iter().map(|p| (clip(p[0]), p[1])));
            chart.draw_series(LineSeries::new(line, look.line(r.algorithm, 2.0))).map_err(fail)?;
        }
        if let Some(m) = theory {
            let curve: Vec<(f64, f64)> = log_grid(x0, x1).map(|t| (t, m.sojourn_cdf(t))).collect();
            chart
                .draw_series(DashedLineSeries::new(
                    curve,
                    look.px(6.0),
                    look.px(4.0),
                    look.theme.fg.stroke_width(look.stroke(2.0)),
                ))
                .map_err(fail)?;
        }
    }
    let off: Vec<Option<String>> =
        extremes.iter().map(|&top| (top > x1).then(|| format!("max {}", ms_label(top)))).collect();
    let mut rows = legend_rows(results, &off, look);
    if theory.is_some() {
        rows.insert(results.len(), ("M/M/c (Erlang C)".to_string(), Some(look.theme.fg), true));
    }
    legend(&side, &rows, columns, look)?;
    root.present().map_err(fail)
}

fn log_grid(x0: f64, x1: f64) -> impl Iterator<Item = f64> {
    let (a, b) = (x0.ln(), x1.ln());
    (0..=160).map(move |i| (a + (b - a) * f64::from(i) / 160.0).exp())
}

/// How many panels side by side fit a canvas `css_width` wide.
pub fn columns(css_width: f64, panels: usize) -> usize {
    ((css_width / 230.0).floor() as usize).clamp(1, panels.max(1))
}

/// Per-server offered load, one panel per algorithm, the fair share
/// (`fair` of each result: what every server would carry in proportion to
/// its capacity, [`lbsim_core::Report::fair_load`]) dashed, the busiest server in full
/// colour and named.
pub fn loads(
    canvas: &HtmlCanvasElement,
    results: &[&AlgorithmResult],
    fair: impl Fn(&AlgorithmResult) -> f64,
    cols: usize,
    look: &Look,
) -> Result<(), String> {
    let Some(root) = surface(canvas, look) else { return Ok(()) };
    if results.is_empty() {
        return Ok(());
    }
    let rows = results.len().div_ceil(cols);
    let body = titled(&root, "Offered load per server (dashed: fair share; red: saturated, load 1)", look)?;
    let panels = body.split_evenly((rows, cols));
    let peak = results.iter().flat_map(|r| r.servers.iter().map(|s| s.load)).fold(0.0, f64::max);
    let fairest = results.iter().map(|r| fair(r)).fold(0.0, f64::max);
    let ymax = (peak.max(fairest).max(1.0) * 1.15 * 10.0).ceil() / 10.0;
    for (i, (panel, r)) in panels.iter().zip(results).enumerate() {
        let fair = fair(r);
        let first_column = i % cols == 0;
        let n = r.servers.len();
        let busiest = (0..n).max_by(|&a, &b| r.servers[a].load.total_cmp(&r.servers[b].load)).unwrap_or(0);
        let c = colour(r.algorithm);
        let mut chart = ChartBuilder::on(panel)
            .caption(r.algorithm.id(), look.font(13.0))
            .margin(look.px(6.0))
            .x_label_area_size(look.px(if n <= 8 { 18.0 } else { 6.0 }))
            .y_label_area_size(look.px(if first_column { 44.0 } else { 30.0 }))
            .build_cartesian_2d(-0.5..(n as f64 - 0.5), 0.0..ymax)
            .map_err(fail)?;
        let names: Vec<String> = r.servers.iter().map(|s| s.name.clone()).collect();
        let name_of = |x: &f64| category_label(&names, *x);
        themed(&mut chart.configure_mesh(), look, 11.0, 0.0)
            .disable_x_mesh()
            .x_labels(if n <= 8 { n } else { 0 })
            .y_labels(4)
            .x_label_formatter(&name_of)
            .y_label_formatter(&|v| trim(*v))
            .y_desc(if first_column { "offered load" } else { "" })
            .axis_desc_style(look.font(11.0))
            .draw()
            .map_err(fail)?;
        let half = if n <= 64 { 0.38 } else { 0.5 };
        let muted = !look.emphasised(r.algorithm);
        chart
            .draw_series(r.servers.iter().enumerate().map(|(i, s)| {
                let x = i as f64;
                let fill = if i == busiest && !muted { c.filled() } else { c.mix(0.45).filled() };
                Rectangle::new([(x - half, 0.0), (x + half, s.load)], fill)
            }))
            .map_err(fail)?;
        // Light fills are faint on the background: an outline in the
        // theme's text colour keeps every bar's height readable.
        if n <= 64 {
            chart
                .draw_series(r.servers.iter().enumerate().map(|(i, s)| {
                    let x = i as f64;
                    Rectangle::new(
                        [(x - half, 0.0), (x + half, s.load)],
                        look.theme.fg.mix(0.7).stroke_width(1),
                    )
                }))
                .map_err(fail)?;
        }
        chart
            .draw_series(LineSeries::new(
                [(-0.5, 1.0), (n as f64 - 0.5, 1.0)],
                look.theme.saturated.stroke_width(look.stroke(1.5)),
            ))
            .map_err(fail)?;
        chart
            .draw_series(DashedLineSeries::new(
                [(-0.5, fair), (n as f64 - 0.5, fair)],
                look.px(5.0),
                look.px(4.0),
                look.theme.fg.stroke_width(look.stroke(1.5)),
            ))
            .map_err(fail)?;
        let s = &r.servers[busiest];
        let label = format!("busiest {} {:.2}", s.name, s.load);
        let at = chart.backend_coord(&(busiest as f64, s.load));
        let anchor = if busiest * 2 < n { HPos::Left } else { HPos::Right };
        panel
            .draw(&Text::new(
                label,
                (at.0 - panel.get_base_pixel().0, at.1 - panel.get_base_pixel().1 - look.px(3.0) as i32),
                look.font(11.0).pos(Pos::new(anchor, VPos::Bottom)),
            ))
            .map_err(fail)?;
    }
    root.present().map_err(fail)
}

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
    chart: &mut ChartContext<'_, Canvas, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
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
        let t = e.at_ms as f64 / 1000.0;
        if t > chart.x_range().end {
            continue;
        }
        let c = match e.kind {
            EventKind::Fail | EventKind::Crash => look.theme.saturated,
            _ => look.theme.fg,
        };
        chart
            .draw_series(DashedLineSeries::new(
                [(t, 0.0), (t, top)],
                look.px(4.0),
                look.px(3.0),
                c.stroke_width(look.stroke(1.0)),
            ))
            .map_err(fail)?;
        let label = format!("{} {}", e.server, e.kind);
        let (w, h) = area.estimate_text_size(&label, &font).unwrap_or((0, 0));
        let at = chart.backend_coord(&(t, top));
        let base = area.get_base_pixel();
        let mut x = at.0 - base.0 + look.px(3.0) as i32;
        // Near the right edge the label goes to the left of its line.
        if x + w as i32 > right as i32 {
            x = at.0 - base.0 - look.px(3.0) as i32 - w as i32;
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
    }
    Ok(())
}

/// A series over time (the longest queue on any server, the errors, the
/// hit rate), one line per algorithm, the fleet's events marked; a rule
/// whose line dwarfs the rest runs off the top, marked in the legend.
pub fn over_time(
    canvas: &HtmlCanvasElement,
    results: &[&AlgorithmResult],
    what: OverTime,
    events: &Events,
    look: &Look,
) -> Result<(), String> {
    let Some(root) = surface(canvas, look) else { return Ok(()) };
    let body = titled(&root, what.title, look)?;
    let (plot, side, columns) = with_legend(&body, results.len() + 2, look);
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
        .x_label_area_size(look.px(42.0))
        .y_label_area_size(look.px(58.0))
        .build_cartesian_2d(0.0..span, 0.0..top)
        .map_err(fail)?;
    let y_label = |v: &f64| if what.share { format!("{}%", trim(*v)) } else { trim(*v) };
    themed(&mut chart.configure_mesh(), look, 12.0, 0.0)
        .x_desc("time (s)")
        .y_desc(what.y_desc)
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
                    chart.draw_series(LineSeries::new(std::mem::take(&mut stretch), style)).map_err(fail)?;
                }
                None => {}
            }
        }
    }
    markers(&mut chart, &plot, events, top, 11.0, look)?;
    let off: Vec<Option<String>> = peaks.iter().map(|&p| (p > top).then(|| format!("peak {p}"))).collect();
    legend(&side, &legend_rows(results, &off, look), columns, look)?;
    root.present().map_err(fail)
}

/// Colours of servers in the requests plot (Okabe-Ito and Paul Tol's,
/// readable on both themes' backgrounds), repeated past eight.
const SERVER_COLOURS: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0xAA, 0x44, 0x99),
    RGBColor(0x99, 0x99, 0x33),
];

/// Most servers drawn one line each.
const MAX_SERVER_LINES: usize = 32;

/// The requests plot's legend height in CSS px for `servers` servers on a
/// canvas `css_width` wide, and its columns.
pub fn server_legend(css_width: f64, servers: usize) -> (f64, usize) {
    let columns = ((css_width / 90.0) as usize).max(1);
    (17.0 * servers.min(MAX_SERVER_LINES).div_ceil(columns) as f64 + 14.0, columns)
}

/// Requests sent to each server over time (per second), one panel per
/// algorithm, one line per server, the fleet's events marked.
pub fn requests(
    canvas: &HtmlCanvasElement,
    results: &[&AlgorithmResult],
    events: &Events,
    cols: usize,
    look: &Look,
) -> Result<(), String> {
    let Some(root) = surface(canvas, look) else { return Ok(()) };
    let Some(first) = results.first() else { return Ok(()) };
    let body = titled(&root, "Requests sent to each server over time (per second)", look)?;
    let n = first.servers.len();
    let (w, _) = body.dim_in_pixel();
    let (height, columns) = server_legend(f64::from(w) / look.scale, n);
    let (key, body) = body.split_vertically(look.px(height));
    let rows: Vec<LegendRow> = first
        .servers
        .iter()
        .take(MAX_SERVER_LINES)
        .enumerate()
        .map(|(i, s)| (s.name.clone(), Some(SERVER_COLOURS[i % 8]), true))
        .collect();
    legend(&key, &rows, columns, look)?;
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
        for (j, s) in r.servers.iter().enumerate().take(MAX_SERVER_LINES) {
            let step = r.queue_bucket_ms / 1000.0;
            let line =
                s.requests_series.iter().flatten().enumerate().map(|(k, &c)| (k as f64 * step, per_s(r, c)));
            let style = SERVER_COLOURS[j % 8].stroke_width(look.stroke(1.5));
            chart.draw_series(LineSeries::new(line, style)).map_err(fail)?;
        }
        markers(&mut chart, panel, events, top, 10.0, look)?;
    }
    root.present().map_err(fail)
}

/// The colour of a remapping scheme: that of the algorithm built on it.
fn scheme_colour(id: &str, look: &Look) -> RGBColor {
    match id {
        "modulo" => colour(AlgorithmId::UserHash),
        "consistent-hash" => colour(AlgorithmId::ConsistentHash),
        "rendezvous" => colour(AlgorithmId::Rendezvous),
        "maglev" => colour(AlgorithmId::Maglev),
        _ => look.theme.fg,
    }
}

/// Keys moved per scheme (top) and each node's keys before and after the
/// change, per scheme (bottom). `ideal` is the share of keys that must
/// move (1/N of the larger pool).
pub fn remapping(
    canvas: &HtmlCanvasElement,
    reports: &[(&'static str, RemapReport)],
    ideal: f64,
    change: &str,
    look: &Look,
) -> Result<(), String> {
    let Some(root) = surface(canvas, look) else { return Ok(()) };
    let (_, h) = root.dim_in_pixel();
    let (upper, lower) = root.split_vertically(h * 2 / 5);
    let m = reports.len();
    let mut chart = ChartBuilder::on(&upper)
        .caption(format!("Keys moved when {change} (dashed: the minimum, 1/N)"), look.font(15.0))
        .margin(look.px(8.0))
        .x_label_area_size(look.px(22.0))
        .y_label_area_size(look.px(48.0))
        .build_cartesian_2d(-0.5..(m as f64 - 0.5), 0.0..1.0)
        .map_err(fail)?;
    let ids: Vec<&str> = reports.iter().map(|r| r.0).collect();
    let id_of = |x: &f64| category_label(&ids, *x);
    themed(&mut chart.configure_mesh(), look, 12.0, 0.0)
        .disable_x_mesh()
        .x_labels(m)
        .y_labels(5)
        .x_label_formatter(&id_of)
        .y_label_formatter(&|v| share_label(*v))
        .draw()
        .map_err(fail)?;
    chart
        .draw_series(reports.iter().enumerate().map(|(i, (id, r))| {
            let share = r.moved as f64 / r.keys.max(1) as f64;
            Rectangle::new(
                [(i as f64 - 0.35, 0.0), (i as f64 + 0.35, share)],
                scheme_colour(id, look).filled(),
            )
        }))
        .map_err(fail)?;
    chart
        .draw_series(DashedLineSeries::new(
            [(-0.5, ideal), (m as f64 - 0.5, ideal)],
            look.px(5.0),
            look.px(4.0),
            look.theme.fg.stroke_width(look.stroke(1.5)),
        ))
        .map_err(fail)?;
    for (i, (_, r)) in reports.iter().enumerate() {
        let share = r.moved as f64 / r.keys.max(1) as f64;
        let at = chart.backend_coord(&(i as f64, share));
        upper
            .draw(&Text::new(
                format!("{}%", trim(share * 100.0)),
                (at.0 - upper.get_base_pixel().0, at.1 - upper.get_base_pixel().1 - look.px(3.0) as i32),
                look.font(11.0).pos(Pos::new(HPos::Center, VPos::Bottom)),
            ))
            .map_err(fail)?;
    }
    let panels = lower.split_evenly((1, m.max(1)));
    for (panel, (id, r)) in panels.iter().zip(reports) {
        let mut nodes: Vec<&str> = r.before.0.iter().map(|(n, _)| n.as_str()).collect();
        for (n, _) in &r.after.0 {
            if !nodes.contains(&n.as_str()) {
                nodes.push(n);
            }
        }
        let owned = |o: &lbsim_core::remap::Ownership, n: &str| {
            o.0.iter().find(|(m, _)| m == n).map_or(0, |(_, k)| *k) as f64 / r.keys.max(1) as f64
        };
        let top =
            nodes.iter().map(|n| owned(&r.before, n).max(owned(&r.after, n))).fold(0.0, f64::max).max(0.05)
                * 1.15;
        let count = nodes.len();
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{id}: keys per node"), look.font(12.0))
            .margin(look.px(6.0))
            .x_label_area_size(look.px(if count <= 8 { 18.0 } else { 6.0 }))
            .y_label_area_size(look.px(36.0))
            .build_cartesian_2d(-0.5..(count as f64 - 0.5), 0.0..top)
            .map_err(fail)?;
        let node_of = |x: &f64| category_label(&nodes, *x);
        themed(&mut chart.configure_mesh(), look, 10.0, 0.0)
            .disable_x_mesh()
            .x_labels(if count <= 8 { count } else { 0 })
            .y_labels(4)
            .x_label_formatter(&node_of)
            .y_label_formatter(&|v| share_label(*v))
            .draw()
            .map_err(fail)?;
        let c = scheme_colour(id, look);
        chart
            .draw_series(nodes.iter().enumerate().flat_map(|(i, n)| {
                let x = i as f64;
                [
                    Rectangle::new([(x - 0.4, 0.0), (x, owned(&r.before, n))], c.mix(0.4).filled()),
                    Rectangle::new([(x, 0.0), (x + 0.4, owned(&r.after, n))], c.filled()),
                ]
            }))
            .map_err(fail)?;
    }
    root.present().map_err(fail)
}

/// The theme's labels, axes and grid on a chart's mesh: labels at
/// `label_css` px, the fine grid at `fine_grid` of the grid's opacity.
fn themed<'m, 'a, 'b, X, Y, XT, YT, DB>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
    look: &Look,
    label_css: f64,
    fine_grid: f64,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
    DB: DrawingBackend,
{
    mesh.label_style(look.font(label_css))
        .axis_style(look.theme.fg)
        .bold_line_style(look.theme.grid)
        .light_line_style(look.theme.grid.mix(fine_grid))
}

/// The label of a bar chart's x position: the category's name at whole
/// positions, nothing between them.
fn category_label<S: AsRef<str>>(names: &[S], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() < 1e-6 && i >= 0.0 {
        names.get(i as usize).map(|s| s.as_ref().to_string()).unwrap_or_default()
    } else {
        String::new()
    }
}

/// What the sweep view plots for each algorithm and value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// p99 of quick requests (bimodal work), ms.
    QuickP99,
    /// p99 of all requests, ms.
    P99,
    /// Share of the busiest server.
    BusiestShare,
}

impl Figure {
    /// Reads the figure menu's value.
    pub fn parse(text: &str) -> Figure {
        match text {
            "p99" => Figure::P99,
            "busiest-share" => Figure::BusiestShare,
            _ => Figure::QuickP99,
        }
    }

    fn of(self, h: &Headline) -> Option<f64> {
        match self {
            Figure::QuickP99 => h.quick_p99_ms,
            Figure::P99 => Some(h.p99_ms),
            Figure::BusiestShare => Some(h.busiest_share),
        }
    }

    fn words(self) -> &'static str {
        match self {
            Figure::QuickP99 => "quick-request p99 (ms)",
            Figure::P99 => "p99 (ms)",
            Figure::BusiestShare => "busiest server's share",
        }
    }
}

/// The sweep: the figure for every algorithm across the swept values
/// (`rows[value][algorithm]`), latency on a log axis.
pub fn sweep(
    canvas: &HtmlCanvasElement,
    range: &Sweep,
    rows: &[Vec<Headline>],
    figure: Figure,
    look: &Look,
) -> Result<(), String> {
    let Some(root) = surface(canvas, look) else { return Ok(()) };
    let body = titled(&root, &format!("{} against {}", figure.words(), range.key), look)?;
    let algorithms: Vec<AlgorithmId> = rows
        .first()
        .map(|r| r.iter().filter_map(|h| h.algorithm.parse::<AlgorithmId>().ok()).collect())
        .unwrap_or_default();
    let (plot, side, columns) = with_legend(&body, algorithms.len(), look);
    let xs: Vec<f64> = range.values.iter().filter_map(|v| v.parse::<f64>().ok()).collect();
    let (x0, x1) = (xs.first().copied().unwrap_or(0.0), xs.last().copied().unwrap_or(1.0));
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let values: Vec<f64> =
        rows.iter().flatten().filter_map(|h| figure.of(h)).filter(|v| v.is_finite()).collect();
    let hi = values.iter().copied().fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(&plot);
    chart.margin(look.px(8.0)).x_label_area_size(look.px(42.0)).y_label_area_size(look.px(58.0));
    let series = |i: usize| -> Vec<(f64, f64)> {
        xs.iter()
            .zip(rows)
            .filter_map(|(&x, r)| r.get(i).and_then(|h| figure.of(h)).map(|y| (x, y)))
            .collect()
    };
    // A linear axis, where the hockey stick of p99 against load shows as
    // one (and the same chart type as the queue plot, which keeps the
    // bundle small).
    let share = figure == Figure::BusiestShare;
    let mut chart = chart.build_cartesian_2d(x0..x1, 0.0..(hi * 1.1).max(f64::MIN_POSITIVE)).map_err(fail)?;
    themed(&mut chart.configure_mesh(), look, 12.0, 0.0)
        .x_desc(range.key)
        .y_desc(figure.words())
        .x_label_formatter(&|v| trim(*v))
        .y_label_formatter(&|v| if share { share_label(*v) } else { ms_label(*v) })
        .axis_desc_style(look.font(13.0))
        .draw()
        .map_err(fail)?;
    for (i, a) in algorithms.iter().enumerate() {
        chart.draw_series(LineSeries::new(series(i), look.line(*a, 2.0))).map_err(fail)?;
    }
    let rows: Vec<LegendRow> =
        algorithms.iter().map(|a| (a.id().to_string(), Some(colour(*a)), look.emphasised(*a))).collect();
    legend(&side, &rows, columns, look)?;
    root.present().map_err(fail)
}
