//! Axes: limits that one outlier does not stretch, decades, labels, and
//! the theme's mesh.

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;

use crate::plots::look::Look;

/// The axis limit that keeps one outlier from flattening every other
/// line: the largest value unless it is more than `factor` times the
/// second largest (of the rules' own extremes, and of `floor`, below which
/// nothing counts as an outlier), then the second largest.
/// Returns the limit and whether something was left off scale.
pub(super) fn unstretched(extremes: &[f64], factor: f64, floor: f64) -> (f64, bool) {
    // The two largest, in one pass (no sort: a sort's code would cost the
    // page's bundle more than this whole plot).
    let (mut top, mut second) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &v in extremes.iter().filter(|v| v.is_finite()) {
        if v > top {
            second = top;
            top = v;
        } else if v > second {
            second = v;
        }
    }
    if !top.is_finite() {
        (0.0, false)
    } else if second.is_finite() && top > factor * second.max(floor).max(f64::MIN_POSITIVE) {
        (second.max(floor), true)
    } else {
        (top, false)
    }
}

pub(super) fn decade_floor(v: f64) -> f64 {
    libm::pow(10.0, libm::floor(libm::log10(v)))
}

pub(super) fn decade_ceil(v: f64) -> f64 {
    libm::pow(10.0, libm::ceil(libm::log10(v)))
}

/// A duration given in ms, in the unit a reader uses: 250 µs, 10 ms, 1 s
/// (every tick with its unit, so a tick never contradicts the axis's
/// title, nor is a bare number beside "1 s").
pub(super) fn ms_label(v: f64) -> String {
    if v >= 1000.0 {
        format!("{} s", trim(v / 1000.0))
    } else if v > 0.0 && v < 1.0 {
        format!("{} \u{b5}s", trim(v * 1000.0))
    } else {
        format!("{} ms", trim(v))
    }
}

pub(super) fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

pub(super) fn share_label(v: f64) -> String {
    format!("{}%", trim(v * 100.0))
}

/// The theme's labels, axes and grid on a chart's mesh: labels at
/// `label_css` px, the fine grid at `fine_grid` of the grid's opacity.
pub(super) fn themed<'m, 'a, 'b, X, Y, XT, YT, DB>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
    look: &Look,
    label_css: f64,
    fine_grid: f64,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
    DB: DrawingBackend,
{
    mesh.label_style(look.font(label_css))
        .axis_style(look.theme.fg)
        .bold_line_style(look.theme.grid)
        .light_line_style(look.theme.grid.mix(fine_grid))
}

/// The label of a bar chart's x position: the category's name at whole
/// positions, nothing between them.
pub(super) fn category_label<S: AsRef<str>>(names: &[S], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() < 1e-6 && i >= 0.0 {
        names.get(i as usize).map(|s| s.as_ref().to_string()).unwrap_or_default()
    } else {
        String::new()
    }
}
