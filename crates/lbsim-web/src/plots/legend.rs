//! Legends: one row per rule (and notes for lines run off scale), beside
//! the chart on wide canvases and under it on narrow ones.

use lbsim_core::report::AlgorithmResult;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::palette::colour;
use crate::plots::frame::{fail, Area};
use crate::plots::look::Look;

/// One legend row: label, the line's colour (none: a note, text only), and
/// whether the line is emphasised.
pub(super) type LegendRow = (String, Option<RGBColor>, bool);

/// Draws a legend of rows into `area`, in `columns` columns.
pub(super) fn legend(area: &Area, rows: &[LegendRow], columns: usize, look: &Look) -> Result<(), String> {
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
pub(super) fn legend_rows(
    results: &[&AlgorithmResult],
    off_scale: &[Option<String>],
    look: &Look,
) -> Vec<LegendRow> {
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
pub(super) fn with_legend(root: &Area, rows: usize, look: &Look) -> (Area, Area, usize) {
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
