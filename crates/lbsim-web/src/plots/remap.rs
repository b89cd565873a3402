//! The remapping panel: keys moved when a server joins or leaves, and each
//! node's keys before and after, per scheme.

use lbsim_core::remap::{RemapReport, Scheme};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use web_sys::HtmlCanvasElement;

use crate::palette::colour;
use crate::plots::axis::{category_label, share_label, themed, trim};
use crate::plots::drawn;
use crate::plots::frame::{fail, surface, titled};
use crate::plots::legend::LegendRow;
use crate::plots::look::Look;

/// The colour of a remapping scheme: that of the rule built on it.
fn scheme_colour(id: &str, look: &Look) -> RGBColor {
    match id.parse::<Scheme>().ok().and_then(Scheme::rule) {
        Some(rule) => colour(rule),
        None => look.theme.fg,
    }
}

/// The height in CSS px the remapping plot needs for `schemes` schemes
/// with its panels in `columns` columns of rows `row` px tall, on a canvas
/// `css_width` wide (where its titles wrap).
pub fn remapping_height(css_width: f64, schemes: usize, columns: usize, row: usize) -> usize {
    let titles = if css_width < 520.0 { 90 } else { 60 };
    titles + upper_height(schemes) + schemes.div_ceil(columns.max(1)) * row
}

fn upper_height(schemes: usize) -> usize {
    28 * schemes + 44
}

/// Keys moved per scheme (bars across, the dashed line at the minimum),
/// then each node's share of the keys before and after the change, one
/// panel per scheme in `columns` columns. `ideal` is the share of keys
/// that must move (1/N of the larger pool).
pub fn remapping(
    canvas: &HtmlCanvasElement,
    reports: &[(&'static str, RemapReport)],
    ideal: f64,
    change: &str,
    columns: usize,
    look: &Look,
) -> Result<Vec<LegendRow>, String> {
    let Some(root) = surface(canvas, look) else { return Ok(Vec::new()) };
    let m = reports.len();
    let body = titled(&root, &format!("Keys moved when {change} (dashed: the minimum, 1/N)"), look)?;
    let (upper, lower) = body.split_vertically(look.px(upper_height(m) as f64));
    // The first scheme on top; the names beside the bars fit any width.
    let ids: Vec<&str> = reports.iter().rev().map(|r| r.0).collect();
    let mut chart = ChartBuilder::on(&upper)
        .margin(look.px(8.0))
        .x_label_area_size(look.px(22.0))
        .y_label_area_size(look.px(108.0))
        .build_cartesian_2d(0.0..1.12, -0.5..(m as f64 - 0.5))
        .map_err(fail)?;
    let id_of = |y: &f64| category_label(&ids, *y);
    themed(&mut chart.configure_mesh(), look, 12.0, 0.0)
        .disable_y_mesh()
        .y_labels(m)
        .x_labels(6)
        .y_label_formatter(&id_of)
        .x_label_formatter(&|v| if *v <= 1.0 { share_label(*v) } else { String::new() })
        .draw()
        .map_err(fail)?;
    let at = |i: usize| (m - 1 - i) as f64;
    let share = |r: &RemapReport| r.moved as f64 / r.keys.max(1) as f64;
    for (i, (id, r)) in reports.iter().enumerate() {
        let moved = [(0.0, at(i) - 0.35), (share(r), at(i) + 0.35)];
        drawn::bars(&mut chart, canvas, &format!("{id} moved"), &moved, scheme_colour(id, look).filled())?;
    }
    chart
        .draw_series(DashedLineSeries::new(
            [(ideal, -0.5), (ideal, m as f64 - 0.5)],
            look.px(5.0),
            look.px(4.0),
            look.theme.fg.stroke_width(look.stroke(1.5)),
        ))
        .map_err(fail)?;
    for (i, (_, r)) in reports.iter().enumerate() {
        let end = chart.backend_coord(&(share(r), at(i)));
        let base = upper.get_base_pixel();
        upper
            .draw(&Text::new(
                format!("{}%", trim(share(r) * 100.0)),
                (end.0 - base.0 + look.px(4.0) as i32, end.1 - base.1),
                look.font(11.0).pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(fail)?;
    }
    let lower = titled(&lower, "Each node's share of the keys, before (faint) and after the change", look)?;
    let panels = lower.split_evenly((m.div_ceil(columns.max(1)), columns.max(1)));
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
            .caption(*id, look.font(12.0))
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
        let before: Vec<(f64, f64)> = nodes
            .iter()
            .enumerate()
            .flat_map(|(i, n)| [(i as f64 - 0.4, 0.0), (i as f64, owned(&r.before, n))])
            .collect();
        let after: Vec<(f64, f64)> = nodes
            .iter()
            .enumerate()
            .flat_map(|(i, n)| [(i as f64, 0.0), (i as f64 + 0.4, owned(&r.after, n))])
            .collect();
        drawn::bars(&mut chart, canvas, &format!("{id} before"), &before, c.mix(0.4).filled())?;
        drawn::bars(&mut chart, canvas, &format!("{id} after"), &after, c.filled())?;
    }
    root.present().map_err(fail)?;
    // The bars of each panel: light before the change, dark after; the
    // keys are the core's sample of session keys (`Remap::default`).
    Ok(vec![
        LegendRow::line("before (light)".into(), look.theme.fg, false),
        LegendRow::line("after (dark)".into(), look.theme.fg, true),
        LegendRow::note("keys: session:0 to session:999".into()),
    ])
}
