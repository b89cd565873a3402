//! Legends: one row per rule (and notes for lines run off scale). On the
//! page a legend is an HTML list next to its canvas (the styles put it
//! beside a wide plot and under a narrow one), so the chart keeps the
//! whole canvas and a reader or a screen reader gets the names as text;
//! a saved PNG draws the same rows under the chart.

use lbsim_core::balancer::Stroke;
use lbsim_core::AlgorithmId;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement};

use crate::backend::Canvas;
use crate::dom::{by_id, element, text_element};
use crate::palette::colour;
use crate::plots::frame::{fail, Area};
use crate::plots::look::Look;

/// One legend row.
#[derive(Clone, Debug)]
pub struct LegendRow {
    /// What the line is (a rule's id, a server's name) or the note's text.
    pub label: String,
    /// The line's colour; none: a note, text only.
    pub colour: Option<RGBColor>,
    /// Whether the line is drawn in full (the lesson is about it).
    pub strong: bool,
    /// How the line is broken: a rule's own style, or dashed for a
    /// formula drawn over the simulation.
    pub stroke: Stroke,
}

impl LegendRow {
    pub(super) fn line(label: String, colour: RGBColor, strong: bool) -> LegendRow {
        LegendRow { label, colour: Some(colour), strong, stroke: Stroke::Solid }
    }

    pub(super) fn note(label: String) -> LegendRow {
        LegendRow { label, colour: None, strong: true, stroke: Stroke::Solid }
    }
}

/// Writes the rows into the list `id` (the `<ul class="legend">` next to
/// a canvas): each a short line in its colour and style (faint when the
/// lesson mutes it), then its label as text.
pub fn fill(id: &str, rows: &[LegendRow]) {
    let Some(list) = by_id::<HtmlElement>(id) else { return };
    list.set_text_content(None);
    for row in rows {
        let class = match (row.colour, row.strong) {
            (None, _) => "note",
            (Some(_), false) => "muted",
            _ => "",
        };
        let item = element("li", class);
        if let Some(c) = row.colour {
            let key = element(
                "span",
                match row.stroke {
                    Stroke::Solid => "key",
                    Stroke::Dashed => "key dashed",
                    Stroke::Dotted => "key dotted",
                },
            );
            if let Some(key) = key.dyn_ref::<HtmlElement>() {
                let _ = key.style().set_property("color", &format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2));
            }
            let _ = item.append_child(&key);
        }
        let _ = item.append_child(&text_element("span", "", &row.label));
        let _ = list.append_child(&item);
    }
}

/// The chart on `canvas` with its legend drawn under it, as a PNG data
/// URL: what "Save PNG" writes, since the page's legend is not on the
/// canvas.
pub fn png_with_legend(canvas: &HtmlCanvasElement, rows: &[LegendRow], look: &Look) -> Option<String> {
    let (w, h) = (canvas.width(), canvas.height());
    let columns = ((f64::from(w) / look.scale / 150.0) as usize).max(1);
    let below = look.px(17.0) * rows.len().div_ceil(columns) as u32 + look.px(14.0);
    let out = element("canvas", "").dyn_into::<HtmlCanvasElement>().ok()?;
    out.set_width(w);
    out.set_height(h + below);
    let area = Canvas::new(&out)?.into_drawing_area();
    area.fill(&look.theme.bg).ok()?;
    let context = out.get_context("2d").ok()??.dyn_into::<CanvasRenderingContext2d>().ok()?;
    context.draw_image_with_html_canvas_element(canvas, 0.0, 0.0).ok()?;
    let (_, key) = area.split_vertically(h);
    legend(&key, rows, columns, look).ok()?;
    out.to_data_url().ok()
}

/// Draws a legend of rows into `area`, in `columns` columns.
fn legend(area: &Area, rows: &[LegendRow], columns: usize, look: &Look) -> Result<(), String> {
    let line = look.px(18.0) as i32;
    let step = look.px(17.0) as i32;
    let (w, _) = area.dim_in_pixel();
    let width = (w as usize / columns.max(1)) as i32;
    let x0 = look.px(8.0) as i32;
    let y0 = look.px(10.0) as i32;
    for (i, row) in rows.iter().enumerate() {
        let (x, y) = (x0 + width * (i % columns) as i32, y0 + step * (i / columns) as i32);
        let style = look.font(12.0).pos(Pos::new(HPos::Left, VPos::Center));
        let Some(c) = row.colour else {
            area.draw(&Text::new(row.label.clone(), (x, y), style)).map_err(fail)?;
            continue;
        };
        // A thin bar for the line: the rectangle's drawing is in the
        // bundle already, a path's in a legend would be one more.
        let (fill, half) = if row.strong { (c.filled(), 1.5) } else { (c.mix(0.45).filled(), 1.0) };
        let half = look.px(half).max(1) as i32;
        // A broken line as bars of its dashes' lengths (solid: one bar).
        let (dash, gap) = match row.stroke {
            Stroke::Solid => (line, 0),
            Stroke::Dashed => (look.px(6.0) as i32, look.px(3.0) as i32),
            Stroke::Dotted => (look.px(2.0) as i32, look.px(2.0) as i32),
        };
        for from in (x..x + line).step_by((dash + gap).max(1) as usize) {
            let to = (from + dash).min(x + line);
            area.draw(&Rectangle::new([(from, y - half), (to, y + half)], fill)).map_err(fail)?;
        }
        area.draw(&Text::new(row.label.clone(), (x + line + look.px(6.0) as i32, y), style)).map_err(fail)?;
    }
    Ok(())
}

/// The legend: one row per rule (an arrow after those whose line runs off
/// the plot), then a note per such rule with its extreme value.
pub(super) fn legend_rows(
    rules: &[AlgorithmId],
    off_scale: &[Option<String>],
    look: &Look,
) -> Vec<LegendRow> {
    let mut rows: Vec<LegendRow> = rules
        .iter()
        .zip(off_scale)
        .map(|(&a, off)| {
            let arrow = if off.is_some() { " \u{2192}" } else { "" };
            LegendRow {
                stroke: a.stroke(),
                ..LegendRow::line(format!("{}{arrow}", a.id()), colour(a), look.emphasised(a))
            }
        })
        .collect();
    for (a, off) in rules.iter().zip(off_scale) {
        if let Some(extreme) = off {
            rows.push(LegendRow::note(format!("\u{2192} off scale: {} {extreme}", a.id())));
        }
    }
    rows
}
