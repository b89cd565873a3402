//! Finagle's deterministic aperture, its geometry: the servers and the
//! balancer copies each mapped uniformly onto the unit ring
//! (`aperture/Ring.scala`, `aperture/ProcessCoordinate.scala`), each copy
//! talking only to the servers its slice of the ring overlaps, and
//! picking by power of two choices inside the slice
//! (`DeterministicAperture` in `aperture/Aperture.scala`).
//!
//! A copy's slice starts at its coordinate, `instance / copies`, and is
//! `min(1, ceil(A x (1/N) / (1/C)) x (1/C))` wide for `N` servers, `C`
//! copies and aperture `A` (Finagle's `apertureWidth`: whole copy-widths,
//! so the slices of all copies cover the ring evenly). A pick draws a
//! point uniformly in the slice, so a server the slice only partly
//! overlaps (an edge server) is drawn in proportion to its overlap; the
//! second choice is drawn from the slice without the first's share, as
//! Finagle's `tryPickSecond` does, so the two differ whenever the slice
//! holds more than one server. The less loaded of the two wins, the first
//! on a tie.

use rand::Rng as _;

use crate::rng::Rng;

/// Finagle's tolerance for comparing ring positions (`Ring.epsilon`).
const EPSILON: f64 = 1e-6;

/// Finagle's default aperture: `min(12, servers)` servers a copy talks to
/// before the width is widened to whole copy-widths.
pub const DEFAULT_APERTURE: u32 = 12;

/// The length of the overlap of `[b0, e0)` and `[b1, e1)`.
fn intersect(b0: f64, e0: f64, b1: f64, e1: f64) -> f64 {
    (e0.min(e1) - b0.max(b1)).max(0.0)
}

/// `size` indices spread uniformly over the unit ring `[0, 1)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ring {
    size: usize,
    unit_width: f64,
}

impl Ring {
    /// A ring of `size` indices (at least one).
    pub fn new(size: usize) -> Ring {
        let size = size.max(1);
        Ring { size, unit_width: 1.0 / size as f64 }
    }

    /// The index the position `offset` (in `[0, 1)`) falls in.
    pub fn index(&self, offset: f64) -> usize {
        (libm::floor(offset * self.size as f64) as usize) % self.size
    }

    /// How many indices `[offset, offset + width)` overlaps.
    pub fn range(&self, offset: f64, width: f64) -> usize {
        if 1.0 - width <= EPSILON {
            return self.size;
        }
        let begin = self.index(offset) as i64;
        // The end excluded: a slice ending exactly on an index boundary
        // does not reach into the next index.
        let end = self.index(((offset + width) * (1.0 - EPSILON)) % 1.0) as i64;
        let diff = end - begin + 1;
        (if diff < 0 { diff + self.size as i64 } else { diff }) as usize
    }

    /// The indices `[offset, offset + width)` overlaps, from the first.
    pub fn indices(&self, offset: f64, width: f64) -> impl Iterator<Item = usize> + '_ {
        let first = self.index(offset);
        (0..self.range(offset, width)).map(move |i| (first + i) % self.size)
    }

    /// The share of `index`'s width that `[offset, offset + width)` covers.
    pub fn weight(&self, index: usize, offset: f64, width: f64) -> f64 {
        let (begin, end) = self.span(index, offset, width);
        intersect(begin, end, offset, offset + width) / self.unit_width
    }

    /// `index`'s span, moved once round the ring where the slice wraps past 1.
    fn span(&self, index: usize, offset: f64, width: f64) -> (f64, f64) {
        let begin = index as f64 * self.unit_width;
        let begin = if begin + 1.0 < offset + width { begin + 1.0 } else { begin };
        (begin, begin + self.unit_width)
    }

    /// An index drawn in proportion to its overlap with the slice.
    pub fn pick(&self, offset: f64, width: f64, rng: &mut Rng) -> usize {
        self.index((offset + rng.random::<f64>() * width) % 1.0)
    }

    /// A second index drawn from the slice without `first`'s share
    /// (`first` again only when the slice holds nothing else).
    pub fn pick_second(&self, first: usize, offset: f64, width: f64, rng: &mut Rng) -> usize {
        let (begin, end) = self.span(first, offset, width);
        let overlap = intersect(begin, end, offset, offset + width);
        let rest = width - overlap;
        if rest <= EPSILON {
            return first;
        }
        let mut position = offset + rng.random::<f64>() * rest;
        if position >= end - overlap {
            position += overlap;
        }
        self.index(position % 1.0)
    }
}

/// A copy's place among the copies: where its slice starts and how wide
/// one copy's share of the ring is (`ProcessCoordinate`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coordinate {
    /// Where the copy's slice starts, `instance / copies`.
    pub offset: f64,
    /// `1 / copies`.
    pub unit_width: f64,
}

impl Coordinate {
    /// Copy `instance` of `copies`.
    pub fn new(instance: usize, copies: usize) -> Coordinate {
        let unit_width = 1.0 / copies.max(1) as f64;
        Coordinate { offset: instance as f64 * unit_width, unit_width }
    }

    /// The width of the copy's slice for `aperture` servers of `servers`:
    /// `min(1, ceil(aperture x (1/servers) / (1/copies)) x (1/copies))`.
    pub fn width(&self, aperture: u32, servers: usize) -> f64 {
        let unit_aperture = f64::from(aperture) / servers.max(1) as f64;
        let units = libm::ceil(unit_aperture / self.unit_width);
        (units * self.unit_width).min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use rand::SeedableRng;

    fn field<'a>(line: &'a str, name: &str) -> &'a str {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(name).and_then(|w| w.strip_prefix('=')))
            .unwrap_or_else(|| panic!("{line}: {name}"))
    }

    /// A fraction such as `3/4`, or a plain number.
    fn number(text: &str) -> f64 {
        let parse = |t: &str| t.parse::<f64>().unwrap_or_else(|_| panic!("{text}"));
        match text.split_once('/') {
            Some((a, b)) => parse(a) / parse(b),
            None => parse(text),
        }
    }

    fn list(text: &str) -> Vec<usize> {
        text.split(',').map(|w| w.parse().unwrap_or_else(|_| panic!("{w}"))).collect()
    }

    /// Every line of `tests/oracles/finagle_aperture.txt`: `RingTest.scala`'s
    /// ranges, indices, weights and shares, and the width `apertureWidth` gives.
    #[test]
    fn every_vector_of_finagles_own_tests_holds() {
        let text = include_str!("../../../../tests/oracles/finagle_aperture.txt");
        let mut held = 0;
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let f = |name: &str| field(line, name);
            match line.split_whitespace().next() {
                Some("range") => {
                    let ring = Ring::new(number(f("ring")) as usize);
                    let (offset, width) = (number(f("offset")), number(f("width")));
                    assert_eq!(ring.range(offset, width), number(f("gives")) as usize, "{line}");
                    assert_eq!(ring.indices(offset, width).collect::<Vec<_>>(), list(f("indices")), "{line}");
                }
                Some("weight") => {
                    let ring = Ring::new(number(f("ring")) as usize);
                    let weight =
                        ring.weight(number(f("index")) as usize, number(f("offset")), number(f("width")));
                    assert!((weight - number(f("gives"))).abs() <= 1e-6, "{line}: {weight}");
                }
                Some("shares") => {
                    // Two picks a run, 100,000 runs, as RingTest's `run`.
                    let ring = Ring::new(number(f("ring")) as usize);
                    let (offset, width) = (number(f("offset")), number(f("width")));
                    let mut rng = Rng::seed_from_u64(12345);
                    let mut counts = alloc::vec![0u32; ring.size];
                    for _ in 0..100_000 {
                        let a = ring.pick(offset, width, &mut rng);
                        let b = ring.pick_second(a, offset, width, &mut rng);
                        assert_ne!(a, b, "{line}: pick2 gave one index twice");
                        counts[a] += 1;
                        counts[b] += 1;
                    }
                    let picked: Vec<usize> = (0..ring.size).filter(|&i| counts[i] > 0).collect();
                    let mut drawn = list(f("indices"));
                    drawn.sort_unstable();
                    assert_eq!(picked, drawn, "{line}");
                    let indices = list(f("indices"));
                    let overlaps: Vec<f64> = f("overlaps").split(',').map(number).collect();
                    let total: f64 = overlaps.iter().sum();
                    for (k, &i) in indices.iter().enumerate() {
                        let first = overlaps[k] / total;
                        let second: f64 = (0..indices.len())
                            .filter(|&j| j != k)
                            .map(|j| overlaps[j] / total * overlaps[k] / (total - overlaps[j]))
                            .sum();
                        let expected = 100_000.0 * (first + second);
                        let seen = f64::from(counts[i]);
                        assert!(
                            (seen - expected).abs() / expected < 0.02,
                            "{line}: index {i} {seen} against {expected}"
                        );
                    }
                    if picked.contains(&1) && picked.contains(&2) {
                        assert!(f64::from(counts[2]) / f64::from(counts[1]) - 0.5 < 0.1, "{line}");
                    }
                }
                Some("width") => {
                    let coordinate = Coordinate::new(0, number(f("copies")) as usize);
                    let width = coordinate.width(number(f("aperture")) as u32, number(f("servers")) as usize);
                    assert!((width - number(f("gives"))).abs() < 1e-12, "{line}: {width}");
                }
                other => panic!("{line}: unknown kind {other:?}"),
            }
            held += 1;
        }
        assert_eq!(held, 12);
    }
}
