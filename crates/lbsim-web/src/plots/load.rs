//! The loads plot: each server's offered load, one panel per rule.

use lbsim_core::report::AlgorithmResult;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use web_sys::HtmlCanvasElement;

use crate::palette::colour;
use crate::plots::axis::{category_label, themed, trim};
use crate::plots::drawn;
use crate::plots::frame::{fail, surface, titled};
use crate::plots::look::Look;

/// How many panels side by side fit a canvas `css_width` wide (two at
/// least, so that a phone's column of panels stays short), and the height
/// of a row of them in CSS px (lower on narrow canvases, for the same
/// reason).
pub fn grid(css_width: f64, panels: usize) -> (usize, usize) {
    let columns = ((css_width / 170.0).floor() as usize).max(2).min(panels.max(1));
    (columns, if css_width < 700.0 { 130 } else { 150 })
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
    // Headroom over the saturation line for the busiest server's label.
    let ymax = (peak.max(fairest).max(1.0) * 1.3 * 10.0).ceil() / 10.0;
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
        let bar = |i: usize| [(i as f64 - half, 0.0), (i as f64 + half, r.servers[i].load)];
        let others: Vec<(f64, f64)> = (0..n).filter(|&i| i != busiest || muted).flat_map(bar).collect();
        drawn::bars(&mut chart, canvas, r.algorithm.id(), &others, c.mix(0.45).filled())?;
        if !muted {
            let name = format!("{} busiest", r.algorithm.id());
            drawn::bars(&mut chart, canvas, &name, &bar(busiest), c.filled())?;
        }
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
        // In the headroom at the top right of the plot, above the
        // saturation line and inside the panel, whatever the bars.
        let s = &r.servers[busiest];
        let label = format!("highest load {} {:.2}", s.name, s.load);
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        let base = panel.get_base_pixel();
        panel
            .draw(&Text::new(
                label,
                (xs.end - base.0 - look.px(2.0) as i32, ys.start - base.1 + look.px(1.0) as i32),
                look.font(11.0).pos(Pos::new(HPos::Right, VPos::Top)),
            ))
            .map_err(fail)?;
    }
    root.present().map_err(fail)
}
