//! The latency plot: the CDF (or 1 - CDF) of every rule, and the Erlang C
//! curve when the theory applies.

use lbsim_core::balancer::Stroke;
use lbsim_core::presets::RequestClass;
use lbsim_core::report::AlgorithmResult;
use lbsim_core::theory::MMc;
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::plots::axis::{decade_ceil, decade_floor, ms_label, share_label, themed, unstretched};
use crate::plots::drawn;
use crate::plots::frame::{fail, surface, titled};
use crate::plots::legend::{legend_rows, LegendRow};
use crate::plots::look::{drawing_order, Look};

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
/// Returns the legend's rows (the page writes them next to the canvas).
pub fn latency(
    canvas: &HtmlCanvasElement,
    results: &[&AlgorithmResult],
    view: CdfView,
    theory: Option<MMc>,
    look: &Look,
) -> Result<Vec<LegendRow>, String> {
    let Some(root) = surface(canvas, look) else { return Ok(Vec::new()) };
    let title = format!(
        "Latency, {}{}",
        view.class.words(),
        // No break inside "(1 - CDF)" on a phone's width.
        if view.tail { ": share slower than x (1\u{a0}-\u{a0}CDF)" } else { ": share at most x (CDF)" }
    );
    let plot = titled(&root, &title, look)?;
    let all: Vec<[f64; 2]> =
        results.iter().flat_map(|r| points(r, view.class).iter().copied()).filter(|p| p[0] > 0.0).collect();
    if all.is_empty() {
        plot.draw(&Text::new(
            "no requests of this class",
            (look.px(20.0) as i32, look.px(30.0) as i32),
            look.font(14.0),
        ))
        .map_err(fail)?;
        root.present().map_err(fail)?;
        return Ok(Vec::new());
    }
    let largest = |r: &&AlgorithmResult| points(r, view.class).iter().map(|p| p[0]).fold(0.0, f64::max);
    let extremes: Vec<f64> = results.iter().map(largest).collect();
    let (hi, _) = unstretched(&extremes, 3.0, 0.0);
    // The axis starts where the lines leave 0: at the first point past the
    // fastest half percent of some rule (a few requests far faster than
    // the rest would leave most of the width flat), the faster ones drawn
    // at the left edge.
    let lo = all.iter().filter(|p| p[1] >= 0.005).map(|p| p[0]).fold(f64::INFINITY, f64::min);
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
    // Room for "0.001%" beside the axis's title, which runs the chart's
    // whole height on a phone.
    // Room on the right for half the last tick's label ("10 s").
    builder
        .margin(look.px(8.0))
        .margin_right(look.px(20.0))
        .x_label_area_size(look.px(42.0))
        .y_label_area_size(look.px(66.0));
    // Both log axes are drawn as log10 of the value on a linear one,
    // decades labelled: the one chart type of every plot, which keeps the
    // bundle small. Points past the right edge are cut at it (plotters
    // draws them outside the plot otherwise).
    let decade = |v: f64, label: fn(f64) -> String| {
        let whole = v.round();
        if (v - whole).abs() < 1e-6 {
            label(libm::pow(10.0, whole))
        } else {
            String::new()
        }
    };
    let (y_lo, y_desc) = if view.tail {
        (libm::log10(y0), "share of requests slower (log)")
    } else {
        (0.0, "share of requests at most x")
    };
    let y_label = |v: &f64| if view.tail { decade(*v, share_label) } else { share_label(*v) };
    let y_hi = if view.tail { 0.0 } else { 1.0 };
    let mut chart = builder.build_cartesian_2d(libm::log10(x0)..libm::log10(x1), y_lo..y_hi).map_err(fail)?;
    themed(&mut chart.configure_mesh(), look, 12.0, 0.0)
        .x_desc("latency (log scale)")
        .y_desc(y_desc)
        .x_label_formatter(&|v| decade(*v, ms_label))
        .y_label_formatter(&y_label)
        .axis_desc_style(look.font(13.0))
        .draw()
        .map_err(fail)?;
    for r in order {
        let line = steps(points(r, view.class), (x0, x1), y0, view.tail);
        let style = look.line(r.algorithm, 2.0);
        let dashes = look.dashes(r.algorithm);
        drawn::line(&mut chart, canvas, r.algorithm.id(), &line, style, dashes, [true, view.tail])?;
    }
    if let Some(m) = theory {
        let curve: Vec<(f64, f64)> = log_grid(x0, x1)
            .map(|t| (t, if view.tail { m.sojourn_tail(t) } else { m.sojourn_cdf(t) }))
            .filter(|p| !view.tail || p.1 >= y0)
            .map(|(t, v)| (libm::log10(t), if view.tail { libm::log10(v) } else { v }))
            .collect();
        chart
            .draw_series(DashedLineSeries::new(
                curve,
                look.px(6.0),
                look.px(4.0),
                look.theme.fg.stroke_width(look.stroke(2.0)),
            ))
            .map_err(fail)?;
    }
    let off: Vec<Option<String>> =
        extremes.iter().map(|&top| (top > x1).then(|| format!("max {}", ms_label(top)))).collect();
    let mut rows = legend_rows(&results.iter().map(|r| r.algorithm).collect::<Vec<_>>(), &off, look);
    if theory.is_some() {
        let formula = LegendRow {
            stroke: Stroke::Dashed,
            ..LegendRow::line("M/M/c (Erlang C)".into(), look.theme.fg, true)
        };
        rows.insert(results.len(), formula);
    }
    root.present().map_err(fail)?;
    Ok(rows)
}

/// The distribution of `points` (latency, share at most it) as drawn: a
/// step at each point (the share holds until the next latency, then
/// rises), never a straight line from one point to the next, which would
/// show requests that do not exist where two points are far apart. In
/// data units (ms, and the share, or the share slower for the `tail`,
/// down to `floor`); within the axis's latencies `x`, a line past its
/// right edge stopping there.
fn steps(points: &[[f64; 2]], x: (f64, f64), floor: f64, tail: bool) -> Vec<(f64, f64)> {
    let y = |share: f64| if tail { (1.0 - share).max(floor) } else { share };
    let mut line = vec![(x.0, y(0.0))];
    for p in points {
        let held = line[line.len() - 1].1;
        // max and min, not clamp: its panic message would format floats
        // as Debug, kilobytes of the first visit.
        line.push((p[0].max(x.0).min(x.1), held));
        if p[0] > x.1 {
            break;
        }
        line.push((p[0].max(x.0), y(p[1])));
    }
    line
}

fn log_grid(x0: f64, x1: f64) -> impl Iterator<Item = f64> {
    let (a, b) = (libm::log(x0), libm::log(x1));
    (0..=160).map(move |i| libm::exp(a + (b - a) * f64::from(i) / 160.0))
}
