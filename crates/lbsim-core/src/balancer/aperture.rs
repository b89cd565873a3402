//! Finagle's deterministic aperture (twitter/finagle,
//! `finagle-core/.../loadbalancer/aperture/`: `Ring.scala`,
//! `ProcessCoordinate.scala`, `DeterministicAperture.scala`,
//! `WeightedP2CPick.scala`, with `ApertureLeastLoaded`'s load): the servers
//! and the balancer copies each mapped uniformly onto the unit ring, each
//! copy talking only to the servers its slice of the ring overlaps, and
//! picking by power of two choices inside the slice.
//!
//! A copy's slice starts at its coordinate, `instance / copies`, and is
//! `min(1, ceil(A x (1/N) / (1/C)) x (1/C))` wide for `N` servers, `C`
//! copies and aperture `A = min(aperture-size, N)` (Finagle's
//! `dApertureWidth` with `MinDeterministicAperture`, 12 by default: whole
//! copy-widths, so the slices of all copies cover the ring evenly). A pick
//! draws a point uniformly in the slice, so a server the slice only partly
//! overlaps (an edge server) is drawn in proportion to its overlap; the
//! second choice is drawn from the slice without the first's share, as
//! Finagle's `tryPickSecond` does, so the two differ whenever the slice
//! holds more than one server. Of the two, the fewer of the copy's own
//! unfinished requests per overlap wins (`WeightedP2CPick`: plain counts
//! when the two overlaps are within 0.0001), the first on a tie.
//!
//! The ring holds the pool's members, each once: the configured weights and
//! slow start's are not read (Finagle's weighted variant is another
//! distributor, `WeightedAperture`). A pick in a fleet run draws among the
//! allowed servers of the slice only; with none allowed there it is `None`
//! and the request fails, as Finagle's balancer sends to a closed node of
//! its aperture once its tries are spent (docs/model.md#finagles-aperture).

use rand::Rng as _;

#[cfg(feature = "current-rules")]
use alloc::vec::Vec;

#[cfg(feature = "current-rules")]
use super::rule::{Balancer, Eligible, Pick, Pool, Unfinished};
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

/// Finagle's rule for two overlaps "effectively the same"
/// (`WeightedP2CPick.approxEqual`).
#[cfg(feature = "current-rules")]
const SAME_OVERLAP: f64 = 0.0001;

/// One balancer copy's deterministic aperture over the pool's members.
#[cfg(feature = "current-rules")]
pub struct Aperture {
    /// Ring index to server: the members, in pool order.
    members: Vec<u32>,
    ring: Ring,
    coordinate: Coordinate,
    /// The `aperture-size` field (Finagle's `MinDeterministicAperture`).
    aperture: u32,
    /// The slice's width for the current members and copies.
    width: f64,
    /// Per ring index, its overlap with the slice (kept, not worked out
    /// at each pick).
    overlaps: Vec<f64>,
    unfinished: Unfinished,
}

#[cfg(feature = "current-rules")]
impl Aperture {
    /// Copy 0 of 1 over `pool` (the engine places each copy before its
    /// first pick, [`Balancer::place`]).
    pub fn new(pool: &Pool) -> Aperture {
        let mut aperture = Aperture {
            members: (0..pool.len() as u32).collect(),
            ring: Ring::new(pool.len()),
            coordinate: Coordinate::new(0, 1),
            aperture: pool.aperture_size,
            width: 1.0,
            overlaps: Vec::new(),
            unfinished: Unfinished::new(pool.len()),
        };
        aperture.rebuild();
        aperture
    }

    /// The ring and the width over the current members and coordinate
    /// (Finagle rebuilds its distributor on either change).
    fn rebuild(&mut self) {
        let n = self.members.len();
        self.ring = Ring::new(n);
        let logical = self.aperture.min(u32::try_from(n).unwrap_or(u32::MAX));
        self.width = self.coordinate.width(logical, n);
        let (ring, offset, width) = (self.ring, self.coordinate.offset, self.width);
        self.overlaps = (0..n).map(|i| ring.weight(i, offset, width)).collect();
    }

    /// The server at ring index `i`, and its overlap with the slice.
    fn node(&self, i: usize) -> (usize, f64) {
        (self.members[i] as usize, self.overlaps[i])
    }

    /// `WeightedP2CPick`: the fewer unfinished per overlap of `a` and `b`,
    /// plain counts when the overlaps are the same, `a` on a tie.
    fn less_loaded(&self, (a, aw): (usize, f64), (b, bw): (usize, f64)) -> usize {
        let (la, lb) = (f64::from(self.unfinished.get(a)), f64::from(self.unfinished.get(b)));
        let aw = if aw == 0.0 { 1.0 } else { aw };
        let bw = if bw == 0.0 { 1.0 } else { bw };
        let first = if (aw - bw).abs() < SAME_OVERLAP { la <= lb } else { la / aw <= lb / bw };
        if first {
            a
        } else {
            b
        }
    }

    /// A ring index of the slice among those `allowed`, each drawn in
    /// proportion to its overlap; `None` when the slice allows none.
    fn draw_among(&self, rng: &mut Rng, allowed: impl Fn(usize) -> bool) -> Option<usize> {
        if self.members.is_empty() {
            return None;
        }
        let (offset, width) = (self.coordinate.offset, self.width);
        let weighted =
            || self.ring.indices(offset, width).filter(|&i| allowed(i)).map(|i| (i, self.node(i).1));
        let total: f64 = weighted().map(|(_, w)| w).sum();
        if total <= 0.0 {
            return None;
        }
        let mut r = rng.random::<f64>() * total;
        let mut last = None;
        for (i, w) in weighted() {
            if r < w {
                return Some(i);
            }
            r -= w;
            last = Some(i);
        }
        last
    }
}

#[cfg(feature = "current-rules")]
impl Balancer for Aperture {
    fn pick(&mut self, _request: &Pick, rng: &mut Rng) -> usize {
        let (offset, width) = (self.coordinate.offset, self.width);
        let a = self.ring.pick(offset, width, rng);
        let b = self.ring.pick_second(a, offset, width, rng);
        self.less_loaded(self.node(a), self.node(b))
    }

    fn dispatched(&mut self, server: usize) {
        self.unfinished.add(server);
    }

    fn completed(&mut self, server: usize, _now_ms: f64, _latency_ms: f64) {
        self.unfinished.remove(server);
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        let allows = |i: usize| eligible.allows(self.members[i] as usize);
        let a = self.draw_among(rng, allows)?;
        let b = self.draw_among(rng, |i| i != a && allows(i)).unwrap_or(a);
        Some(self.less_loaded(self.node(a), self.node(b)))
    }

    fn reshape(&mut self, members: &[bool], _available: &[bool]) {
        let now: Vec<u32> = (0..members.len() as u32).filter(|&s| members[s as usize]).collect();
        if now != self.members {
            self.members = now;
            self.rebuild();
        }
    }

    fn place(&mut self, copy: usize, copies: usize) {
        self.coordinate = Coordinate::new(copy, copies);
        self.rebuild();
    }

    fn connections(&self) -> Option<usize> {
        Some(if self.members.is_empty() { 0 } else { self.ring.range(self.coordinate.offset, self.width) })
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

    /// `WeightedP2CPick.pick`: "if (approxEqual(_aw, _bw)) { if (a.load <=
    /// b.load) a else b } else { if (a.load / _aw <= b.load / _bw) a else b }":
    /// the fewer unfinished per overlap wins, plain counts when the
    /// overlaps are within 0.0001, the first on a tie (of counts: two
    /// overlaps' quotients are as floating point has them). Copy 3 of 4 over
    /// `Ring(10)` with an aperture of 4 is RingTest's slice from 3/4, half
    /// the ring: s8 (index 7) and s3 (index 2) its edges, half covered.
    #[cfg(feature = "current-rules")]
    #[test]
    fn the_fewer_unfinished_per_overlap_wins_the_first_on_a_tie() {
        let mut aperture =
            Aperture::new(&Pool { aperture_size: 4, ..crate::balancer::checks::pool(&[1; 10]) });
        aperture.place(3, 4);
        assert_eq!(aperture.connections(), Some(6));
        let (edge, inner, other) = (aperture.node(7), aperture.node(8), aperture.node(9));
        assert!((edge.1 - 0.5).abs() < 1e-9 && (inner.1 - 1.0).abs() < 1e-9, "{edge:?} {inner:?}");
        assert_eq!(aperture.less_loaded(inner, other), 8, "equal overlaps, no load: the first");
        aperture.dispatched(7);
        aperture.dispatched(8);
        assert_eq!(aperture.less_loaded(edge, inner), 8, "1 / 0.5 against 1 / 1");
        aperture.dispatched(8);
        aperture.dispatched(8);
        assert_eq!(aperture.less_loaded(edge, inner), 7, "1 / 0.5 against 3 / 1");
        assert_eq!(aperture.less_loaded(inner, edge), 7, "3 / 1 against 1 / 0.5");
        aperture.dispatched(9);
        aperture.dispatched(9);
        aperture.completed(8, 0.0, 1.0);
        assert_eq!(aperture.less_loaded(other, inner), 9, "2 against 2, equal overlaps: the first");
        assert_eq!(aperture.less_loaded(inner, other), 8, "2 against 2, equal overlaps: the first");
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
        assert_eq!(held, 14);
    }
}
