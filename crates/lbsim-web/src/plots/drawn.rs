//! The marks that carry a plot's data (a rule's line, a server's bar),
//! drawn and told to a test: when the page has a function
//! `window.lbsimDrawn` (only the browser tests define one), each mark is
//! passed to it with its colour and the chart's frame, so a test can hold
//! what was drawn against the report and look for its colour on the
//! canvas (docs/testing.md#what-the-plots-draw). Without the function the
//! page only draws.

use js_sys::{Float64Array, Function, Reflect};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::backend::Canvas;

/// The one chart type of every plot: linear axes of f64 (a log axis is
/// drawn as log10 of its values on a linear one).
pub(super) type Chart<'a> = ChartContext<'a, Canvas, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

fn hook() -> Option<Function> {
    let window: JsValue = web_sys::window()?.into();
    Reflect::get(&window, &JsValue::from_str("lbsimDrawn")).ok()?.dyn_into().ok()
}

/// A new drawing of `canvas` begins: the hook forgets its marks.
pub(super) fn begin(canvas: &HtmlCanvasElement) {
    if let Some(f) = hook() {
        let _ = f.call1(&JsValue::NULL, &canvas.id().into());
    }
}

/// Tells the hook one mark: `name`, then numbers: the colour (r, g, b,
/// opacity), the stroke in pixels (0: filled rectangles, given by
/// opposite corners), the plot area in canvas pixels (left, right, top,
/// bottom), its extent in data units (x from, x to, y from, y to), which
/// axes are log, then the points in data units.
fn tell(
    chart: &Chart,
    canvas: &HtmlCanvasElement,
    name: &str,
    style: &ShapeStyle,
    log: [bool; 2],
    points: &[(f64, f64)],
) {
    let Some(f) = hook() else { return };
    let (px, py) = chart.plotting_area().get_pixel_range();
    let (x, y) = (chart.x_range(), chart.y_range());
    let un = |v: f64, log: bool| if log { libm::pow(10.0, v) } else { v };
    let c = style.color;
    let mut data = vec![
        f64::from(c.0),
        f64::from(c.1),
        f64::from(c.2),
        c.3,
        if style.filled { 0.0 } else { f64::from(style.stroke_width) },
        f64::from(px.start),
        f64::from(px.end),
        f64::from(py.start),
        f64::from(py.end),
        un(x.start, log[0]),
        un(x.end, log[0]),
        un(y.start, log[1]),
        un(y.end, log[1]),
        f64::from(u8::from(log[0])),
        f64::from(u8::from(log[1])),
    ];
    data.extend(points.iter().flat_map(|&(x, y)| [x, y]));
    let _ = f.call3(&JsValue::NULL, &canvas.id().into(), &name.into(), &Float64Array::from(&data[..]));
}

/// Draws a line through `points`, given in data units (`log`: the axes
/// drawn as log10 of them), broken by `dashes` (canvas pixels, dash and
/// gap; zeros: solid), and tells the hook.
pub(super) fn line(
    chart: &mut Chart,
    canvas: &HtmlCanvasElement,
    name: &str,
    points: &[(f64, f64)],
    style: ShapeStyle,
    dashes: [f64; 2],
    log: [bool; 2],
) -> Result<(), String> {
    let axis = |v: f64, log: bool| if log { libm::log10(v) } else { v };
    let path = points.iter().map(|&(x, y)| (axis(x, log[0]), axis(y, log[1])));
    // plotters-canvas strokes a line as one path, so the canvas's own
    // dash runs along the whole line, not restarted at each point.
    let context =
        canvas.get_context("2d").ok().flatten().map(JsCast::unchecked_into::<CanvasRenderingContext2d>);
    let dash = |d: &[f64]| context.as_ref().map(|c| c.set_line_dash(&Float64Array::from(d)));
    dash(&dashes);
    chart.draw_series(LineSeries::new(path, style)).map_err(|e| e.to_string())?;
    dash(&[0.0; 2]);
    tell(chart, canvas, name, &style, log, points);
    Ok(())
}

/// Draws filled rectangles, each given by two opposite corners on linear
/// axes, and tells the hook.
pub(super) fn bars(
    chart: &mut Chart,
    canvas: &HtmlCanvasElement,
    name: &str,
    corners: &[(f64, f64)],
    style: ShapeStyle,
) -> Result<(), String> {
    chart
        .draw_series(corners.chunks(2).map(|c| Rectangle::new([c[0], c[1]], style)))
        .map_err(|e| e.to_string())?;
    tell(chart, canvas, name, &style, [false, false], corners);
    Ok(())
}
