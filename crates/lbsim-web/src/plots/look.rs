//! How one redraw looks: the pixel scale, the theme's colours and the
//! rules the lesson is about (drawn on top, the rest muted).

use lbsim_core::report::AlgorithmResult;
use lbsim_core::AlgorithmId;
use plotters::prelude::*;

use crate::palette::{colour, dashes, Theme};

/// Pixel scale, colours and emphasis shared by every plot of one redraw.
#[derive(Clone, Copy, Debug)]
pub struct Look {
    /// devicePixelRatio.
    pub scale: f64,
    /// Colours of the theme.
    pub theme: Theme,
    /// The rules the lesson is about, drawn on top and in full colour; the
    /// rest are muted (not hidden). Empty: all alike.
    pub focus: &'static [AlgorithmId],
}

impl Look {
    pub(super) fn px(&self, css: f64) -> u32 {
        (css * self.scale).round() as u32
    }

    pub(super) fn font(&self, css: f64) -> TextStyle<'static> {
        // A named family, not the string "sans-serif": parsing the string
        // lowercases it, which pulls Unicode case tables into the bundle.
        FontDesc::new(FontFamily::SansSerif, css * self.scale, FontStyle::Normal).color(&self.theme.fg)
    }

    pub(super) fn stroke(&self, css: f64) -> u32 {
        (css * self.scale).round().max(1.0) as u32
    }

    pub(super) fn emphasised(&self, a: AlgorithmId) -> bool {
        self.focus.is_empty() || self.focus.contains(&a)
    }

    /// A rule's dashes in canvas pixels (docs/web.md#line-styles).
    pub(super) fn dashes(&self, a: AlgorithmId) -> [f64; 2] {
        dashes(a).map(|d| d * self.scale)
    }

    /// A rule's line: full colour and thicker when the lesson is about it,
    /// faint and thinner otherwise.
    pub(super) fn line(&self, a: AlgorithmId, css: f64) -> ShapeStyle {
        if self.emphasised(a) {
            colour(a).stroke_width(self.stroke(if self.focus.is_empty() { css } else { css + 1.0 }))
        } else {
            colour(a).mix(self.theme.muted).stroke_width(self.stroke(css * 0.75))
        }
    }
}

/// The results in drawing order: the muted rules first, so the lesson's
/// rules are drawn over them.
pub(super) fn drawing_order<'r, 'a>(
    results: &'r [&'a AlgorithmResult],
    look: &Look,
) -> Vec<&'r &'a AlgorithmResult> {
    let muted = results.iter().filter(|r| !look.emphasised(r.algorithm));
    muted.chain(results.iter().filter(|r| look.emphasised(r.algorithm))).collect()
}
