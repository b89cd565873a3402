//! One colour per algorithm, the same in every plot, the table and the
//! legends: Okabe-Ito's colour-blind-safe set extended with Paul Tol's
//! muted teal, purple, olive and sand, all of middle lightness so they read
//! on the light and the dark theme alike.

use lbsim_core::AlgorithmId;
use plotters::style::RGBColor;

/// Colours in `AlgorithmId::ALL` order.
const COLOURS: [RGBColor; 11] = [
    RGBColor(0xE6, 0x9F, 0x00), // round-robin: orange
    RGBColor(0x99, 0x99, 0x99), // random: grey
    RGBColor(0x00, 0x9E, 0x73), // least-connections: bluish green
    RGBColor(0x56, 0xB4, 0xE9), // power-of-two: sky blue
    RGBColor(0x00, 0x72, 0xB2), // least-request: blue
    RGBColor(0xCC, 0x79, 0xA7), // peak-ewma: reddish purple
    RGBColor(0xD5, 0x5E, 0x00), // user-hash: vermillion
    RGBColor(0xDD, 0xCC, 0x77), // consistent-hash: sand
    RGBColor(0x44, 0xAA, 0x99), // bounded-load: teal
    RGBColor(0xAA, 0x44, 0x99), // maglev: purple
    RGBColor(0x99, 0x99, 0x33), // rendezvous: olive
];

/// The algorithm's colour.
pub fn colour(algorithm: AlgorithmId) -> RGBColor {
    let i = AlgorithmId::ALL.iter().position(|&a| a == algorithm).unwrap_or(0);
    COLOURS[i % COLOURS.len()]
}

/// The colour as CSS, for swatches in the table and the controls.
pub fn css(algorithm: AlgorithmId) -> String {
    let RGBColor(r, g, b) = colour(algorithm);
    format!("#{r:02x}{g:02x}{b:02x}")
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
}

impl Theme {
    /// The theme for `prefers-color-scheme: dark` or light.
    pub fn new(dark: bool) -> Theme {
        if dark {
            Theme {
                fg: RGBColor(0xE4, 0xE4, 0xE7),
                bg: RGBColor(0x18, 0x1A, 0x1F),
                grid: RGBColor(0x3A, 0x3D, 0x45),
            }
        } else {
            Theme {
                fg: RGBColor(0x1F, 0x1F, 0x24),
                bg: RGBColor(0xFF, 0xFF, 0xFF),
                grid: RGBColor(0xE2, 0xE2, 0xE6),
            }
        }
    }
}
