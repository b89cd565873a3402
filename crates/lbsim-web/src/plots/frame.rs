//! A plot's frame: the canvas sized to its CSS box at the screen's pixel
//! density, and a title wrapped to the canvas's width.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use web_sys::HtmlCanvasElement;

use crate::backend::Canvas;
use crate::plots::look::Look;

pub(super) type Area = DrawingArea<Canvas, plotters::coord::Shift>;

pub(super) fn fail(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Sizes the canvas's backing store to its CSS box times the pixel ratio;
/// `None` when the canvas is not laid out (hidden).
pub(super) fn surface(canvas: &HtmlCanvasElement, look: &Look) -> Option<Area> {
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
    crate::plots::drawn::begin(canvas);
    let area = Canvas::new(canvas)?.into_drawing_area();
    area.fill(&look.theme.bg).ok()?;
    Some(area)
}

/// Draws a title over `area`, wrapped onto as many lines as its width
/// needs (so it is never cut off), and returns the area under it.
pub(super) fn titled(area: &Area, title: &str, look: &Look) -> Result<Area, String> {
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
