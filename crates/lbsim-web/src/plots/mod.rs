//! The plots, drawn with plotters on canvases at the screen's pixel density
//! (`canvas.width = css width x devicePixelRatio`, fonts and strokes scaled
//! by the same factor). Each function draws one canvas from a report and
//! touches nothing else, so the page redraws only what changed; a plot
//! with a legend returns its rows, which the page writes as a list next to
//! the canvas (`legend::fill`), so the chart keeps the whole canvas.
//!
//! One file per plot family (`cdf`, `load`, `over_time`, `remap`, `sweep`)
//! over the shared pieces (`look`, `frame`, `legend`, `axis`, and `drawn`, the marks that carry the data, told to tests). They know
//! nothing of the page's state: what to draw comes in as arguments.

pub mod axis;
pub mod cdf;
pub mod drawn;
pub mod frame;
pub mod legend;
pub mod load;
pub mod look;
pub mod over_time;
pub mod remap;
pub mod sweep;
