//! The remapping panel: keys moved when a server joins or leaves, and each
//! node's keys before and after, per scheme.

use lbsim_core::remap::RemapReport;
use lbsim_core::AlgorithmId;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use web_sys::HtmlCanvasElement;

use crate::palette::colour;
use crate::plots::axis::{category_label, share_label, themed, trim};
use crate::plots::frame::{fail, surface};
use crate::plots::look::Look;

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
