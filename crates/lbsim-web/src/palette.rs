//! Colours and line styles: each algorithm's come from its row in the
//! core's registry ([`AlgorithmId::colour`], [`AlgorithmId::stroke`]), so
//! the palette is as long as the list of rules; the dashes' lengths and
//! the themes' foreground, background and grid are here.

use lbsim_core::balancer::Stroke;
use lbsim_core::AlgorithmId;
use plotters::style::RGBColor;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

use crate::dom::element;

/// The algorithm's colour.
pub fn colour(algorithm: AlgorithmId) -> RGBColor {
    let [_, r, g, b] = algorithm.colour().to_be_bytes();
    RGBColor(r, g, b)
}

/// The rule's line as dash and gap lengths in CSS pixels (zeros: solid,
/// as the canvas reads them), long enough to read on a dense curve at a
/// phone's width.
pub fn dashes(algorithm: AlgorithmId) -> [f64; 2] {
    match algorithm.stroke() {
        Stroke::Solid => [0.0, 0.0],
        Stroke::Dashed => [8.0, 4.0],
        Stroke::Dotted => [2.0, 3.0],
    }
}

/// The colour as CSS.
pub fn css(algorithm: AlgorithmId) -> String {
    format!("#{:06x}", algorithm.colour())
}

/// A rule's swatch, beside its checkbox and its row in the table: a short
/// piece of its line, in its colour and broken by the plot's own dash and
/// gap lengths (docs/web.md#line-styles), so a reader matches a box to a
/// line by its style as well as its hue.
pub fn swatch(algorithm: AlgorithmId) -> Element {
    let swatch = element("span", "swatch");
    let colour = css(algorithm);
    let [dash, gap] = dashes(algorithm);
    let paint = if dash > 0.0 {
        format!("repeating-linear-gradient(90deg,{colour} 0 {dash}px,#0000 0 {}px)", dash + gap)
    } else {
        colour
    };
    if let Some(s) = swatch.dyn_ref::<HtmlElement>() {
        let _ = s.style().set_property("background", &paint);
    }
    swatch
}

/// Foreground, background and grid colours of one theme.
#[derive(Clone, Copy, Debug)]
pub struct Theme {
    /// Text and axes.
    pub fg: RGBColor,
    /// Plot background (drawn, so saved PNGs keep it).
    pub bg: RGBColor,
    /// Grid lines.
    pub grid: RGBColor,
    /// The saturation line (load 1) on the load panels.
    pub saturated: RGBColor,
    /// Opacity of the lines the lesson is not about: on a dark background
    /// the same opacity looks fainter, so it is higher there.
    pub muted: f64,
}

impl Theme {
    /// The theme for `prefers-color-scheme: dark` or light.
    pub fn new(dark: bool) -> Theme {
        if dark {
            Theme {
                fg: RGBColor(0xE4, 0xE4, 0xE7),
                bg: RGBColor(0x18, 0x1A, 0x1F),
                grid: RGBColor(0x3A, 0x3D, 0x45),
                saturated: RGBColor(0xFF, 0x8A, 0x80),
                muted: 0.55,
            }
        } else {
            Theme {
                fg: RGBColor(0x1F, 0x1F, 0x24),
                bg: RGBColor(0xFF, 0xFF, 0xFF),
                grid: RGBColor(0xE2, 0xE2, 0xE6),
                saturated: RGBColor(0xB3, 0x26, 0x1E),
                muted: 0.45,
            }
        }
    }
}
