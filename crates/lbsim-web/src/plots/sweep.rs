//! The sweep view's plot: one figure of every rule across the swept values.

use lbsim_core::report::Headline;
use lbsim_core::sweep::Sweep;
use lbsim_core::AlgorithmId;
use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::palette::colour;
use crate::plots::axis::{ms_label, share_label, themed, trim};
use crate::plots::frame::{fail, surface, titled};
use crate::plots::legend::LegendRow;
use crate::plots::look::Look;

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
            Figure::BusiestShare => "largest share of requests",
        }
    }
}

/// The sweep: the figure for every algorithm across the swept values
/// (`rows[value][algorithm]`), latency on a log axis. Returns the legend's
/// rows.
pub fn sweep(
    canvas: &HtmlCanvasElement,
    range: &Sweep,
    rows: &[Vec<Headline>],
    figure: Figure,
    look: &Look,
) -> Result<Vec<LegendRow>, String> {
    let Some(root) = surface(canvas, look) else { return Ok(Vec::new()) };
    let plot = titled(&root, &format!("{} against {}", figure.words(), range.key), look)?;
    let algorithms: Vec<AlgorithmId> = rows
        .first()
        .map(|r| r.iter().filter_map(|h| h.algorithm.parse::<AlgorithmId>().ok()).collect())
        .unwrap_or_default();
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
    root.present().map_err(fail)?;
    Ok(algorithms
        .iter()
        .map(|a| LegendRow::line(a.id().to_string(), colour(*a), look.emphasised(*a)))
        .collect())
}
