//! The sweep view's plot: one figure of every rule across the swept values.

use lbsim_core::report::Headline;
use lbsim_core::sweep::{Figure, Sweep};
use lbsim_core::AlgorithmId;
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::plots::axis::{decade_ceil, decade_floor, ms_label, share_label, themed, trim, unstretched};
use crate::plots::drawn;
use crate::plots::frame::{fail, surface, titled};
use crate::plots::legend::{legend_rows, LegendRow};
use crate::plots::look::Look;

/// The sweep: the figure for every algorithm across the swept values
/// (`rows[value][algorithm]`); a latency on a log axis when `log`. One rule
/// far above the rest does not flatten them: its line runs off the top and
/// its legend entry says so, as in the other plots. Returns the legend's
/// rows.
pub fn sweep(
    canvas: &HtmlCanvasElement,
    range: &Sweep,
    rows: &[Vec<Headline>],
    figure: Figure,
    log: bool,
    look: &Look,
) -> Result<Vec<LegendRow>, String> {
    let Some(root) = surface(canvas, look) else { return Ok(Vec::new()) };
    let log = log && figure.is_latency();
    let scale = if log { ", log scale" } else { "" };
    let plot = titled(&root, &format!("{} against {}{scale}", figure.words(), range.key), look)?;
    let algorithms: Vec<AlgorithmId> = rows
        .first()
        .map(|r| r.iter().filter_map(|h| h.algorithm.parse::<AlgorithmId>().ok()).collect())
        .unwrap_or_default();
    let xs: Vec<f64> = range.values.iter().filter_map(|v| v.parse::<f64>().ok()).collect();
    let (x0, x1) = (xs.first().copied().unwrap_or(0.0), xs.last().copied().unwrap_or(1.0));
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let series = |i: usize| -> Vec<(f64, f64)> {
        xs.iter()
            .zip(rows)
            .filter_map(|(&x, r)| {
                r.get(i).and_then(|h| figure.of(h)).filter(|y| y.is_finite()).map(|y| (x, y))
            })
            .collect()
    };
    let lines: Vec<Vec<(f64, f64)>> = (0..algorithms.len()).map(series).collect();
    let extremes: Vec<f64> = lines.iter().map(|l| l.iter().map(|p| p.1).fold(0.0, f64::max)).collect();
    let (hi, _) = unstretched(&extremes, 3.0, 0.0);
    let hi = hi.max(f64::MIN_POSITIVE);
    // A log axis is drawn as the values' log10 on a linear one, decades
    // labelled: the same chart type as the linear view and the queue plot,
    // which keeps the bundle small.
    let lo = lines.iter().flatten().map(|p| p.1).filter(|&y| y > 0.0).fold(hi, f64::min);
    let (y0, y1) = if log {
        let (a, b) = (libm::log10(decade_floor(lo)), libm::log10(decade_ceil(hi)));
        (a, if b > a { b } else { a + 1.0 })
    } else {
        (0.0, hi * 1.1)
    };
    let to_axis = |y: f64| if log { libm::log10(y.max(libm::pow(10.0, y0))) } else { y }.min(y1);
    let un = |v: f64| if log { libm::pow(10.0, v) } else { v };
    let mut chart = ChartBuilder::on(&plot);
    chart
        .margin(look.px(8.0))
        .margin_right(look.px(20.0))
        .x_label_area_size(look.px(42.0))
        .y_label_area_size(look.px(58.0));
    // Ticks in the unit the axis's title names ("p99 (ms)"); the legend's
    // note says a value with its unit.
    let value_label = |v: f64| if figure.is_latency() { trim(v) } else { share_label(v) };
    let label = |v: f64| {
        let whole = v.round();
        match log {
            false => value_label(v),
            true if (v - whole).abs() < 1e-6 => trim(libm::pow(10.0, whole)),
            true => String::new(),
        }
    };
    let mut chart = chart.build_cartesian_2d(x0..x1, y0..y1).map_err(fail)?;
    themed(&mut chart.configure_mesh(), look, 12.0, 0.0)
        .x_desc(range.key)
        .y_desc(figure.words())
        .x_label_formatter(&|v| trim(*v))
        .y_label_formatter(&|v| label(*v))
        .axis_desc_style(look.font(13.0))
        .draw()
        .map_err(fail)?;
    for (line, a) in lines.iter().zip(&algorithms) {
        // In data units: what the axis shows, a value off the top at it.
        let points: Vec<(f64, f64)> = line.iter().map(|&(x, y)| (x, un(to_axis(y)))).collect();
        drawn::line(&mut chart, canvas, a.id(), &points, look.line(*a, 2.0), look.dashes(*a), [false, log])?;
    }
    root.present().map_err(fail)?;
    let note = |v: f64| if figure.is_latency() { ms_label(v) } else { share_label(v) };
    let ceiling = if log { libm::pow(10.0, y1) } else { y1 };
    let off: Vec<Option<String>> =
        extremes.iter().map(|&top| (top > ceiling).then(|| format!("max {}", note(top)))).collect();
    Ok(legend_rows(&algorithms, &off, look))
}
