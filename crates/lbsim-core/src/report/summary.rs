//! The statistics behind a report: nearest-rank percentiles and the
//! downsampled latency distribution, found on a binning of the values'
//! float bits instead of by sorting them all.

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

/// Points in a downsampled latency distribution.
pub const CDF_POINTS: usize = 200;

/// Nearest-rank percentiles and the mean, in ms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest value.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
}

/// The 1-based nearest rank of the p-quantile of n values: `ceil(p * n)`,
/// at least 1.
pub fn rank(p: f64, n: usize) -> usize {
    (libm::ceil(p * n as f64) as usize).clamp(1, n.max(1))
}

/// Bits of a non-negative float kept as its bin: sign, exponent and the top
/// 8 mantissa bits, so bins are 1/256 of an octave (0.4%) wide and ordered
/// like the values.
const BIN_SHIFT: u32 = 44;

/// Percentiles and a downsampled CDF of one sample.
pub type Summary = (Percentiles, Vec<[f64; 2]>);

/// Per-bin statistics of a sample on a shared binning.
struct Histogram {
    /// Values in bins `0..=i`.
    cumulative: Vec<u64>,
    /// Largest and smallest value bits in each bin.
    top: Vec<u64>,
    bottom: Vec<u64>,
    n: usize,
    sum: f64,
    hi: u64,
}

const NONE: u32 = u32::MAX;

impl Histogram {
    fn bin_of_rank(&self, r: usize) -> usize {
        self.cumulative.partition_point(|&c| (c as usize) < r)
    }

    fn before(&self, bin: usize) -> usize {
        if bin == 0 {
            0
        } else {
            self.cumulative[bin - 1] as usize
        }
    }

    /// Whether CDF rank `r` is drawn at its exact value: past p99, or in a
    /// bin that reaches past it (so the bin-top points of the body never
    /// overtake the exact tail points).
    fn in_tail(&self, r: usize) -> bool {
        let tail_start = rank(0.99, self.n);
        r > tail_start || self.cumulative[self.bin_of_rank(r)] as usize > tail_start
    }

    /// Bins that need their values gathered: those holding a wanted rank
    /// (a percentile or a tail point) and more than one distinct value.
    /// Returns the slot of each bin (`NONE` if not gathered) and the count.
    fn slots(&self) -> (Vec<u32>, usize) {
        let mut slots = alloc::vec![NONE; self.top.len()];
        let mut count = 0;
        if self.n == 0 {
            return (slots, 0);
        }
        let percentiles = [0.5, 0.9, 0.99, 0.999].map(|p| rank(p, self.n));
        let tail = cdf_ranks(self.n).into_iter().filter(|&r| self.in_tail(r));
        for r in percentiles.into_iter().chain(tail) {
            let bin = self.bin_of_rank(r);
            if self.top[bin] != self.bottom[bin] && slots[bin] == NONE {
                slots[bin] = count as u32;
                count += 1;
            }
        }
        (slots, count)
    }

    /// The summary, given the sorted values of the gathered bins.
    fn summary(&self, slots: &[u32], gathered: &[Gathered]) -> Summary {
        let n = self.n;
        if n == 0 {
            return (Percentiles::default(), Vec::new());
        }
        let value_at = |r: usize| -> f64 {
            let bin = self.bin_of_rank(r);
            match slots[bin] {
                NONE => f64::from_bits(self.top[bin]),
                slot => f64::from_bits(gathered[slot as usize].at(r - self.before(bin) - 1)),
            }
        };
        let percentiles = Percentiles {
            p50: value_at(rank(0.5, n)),
            p90: value_at(rank(0.9, n)),
            p99: value_at(rank(0.99, n)),
            p999: value_at(rank(0.999, n)),
            max: f64::from_bits(self.hi),
            mean: self.sum / n as f64,
        };
        let mut cdf: Vec<[f64; 2]> = Vec::new();
        let mut last_bin = usize::MAX;
        for r in cdf_ranks(n) {
            if self.in_tail(r) {
                cdf.push([value_at(r), r as f64 / n as f64]);
                continue;
            }
            let bin = self.bin_of_rank(r);
            if bin != last_bin {
                cdf.push([f64::from_bits(self.top[bin]), self.cumulative[bin] as f64 / n as f64]);
                last_bin = bin;
            }
        }
        (percentiles, cdf)
    }
}

/// Nearest-rank percentiles of `bits`, non-negative floats' bits
/// (latencies): the same numbers as [`summarize`]'s for one class, without
/// its CDF, in two passes ([`ranked`]).
pub fn percentiles(bits: &[u64]) -> Percentiles {
    let n = bits.len();
    if n == 0 {
        return Percentiles::default();
    }
    let mean = bits.iter().map(|&b| f64::from_bits(b)).sum::<f64>() / n as f64;
    let wanted = [0.5, 0.9, 0.99, 0.999, 1.0].map(|p| rank(p, n) - 1);
    let found = ranked(bits, &wanted);
    let f = |i: usize| f64::from_bits(found[i]);
    Percentiles { p50: f(0), p90: f(1), p99: f(2), p999: f(3), max: f(4), mean }
}

/// The values of `bits` (non-negative floats' bits) at 0-based ranks
/// `wanted` (each below `bits.len()`), as `select_nth_unstable` finds
/// them, on the summaries' binning instead: one pass counts the values per
/// bin, a second gathers the bins the ranks fall in, and only those are
/// sorted. Selection's own code was 1.8 KiB of the page; this reuses the
/// summaries' sort.
pub fn ranked(bits: &[u64], wanted: &[usize]) -> Vec<u64> {
    let (lo, hi) = bits.iter().fold((u64::MAX, 0), |(lo, hi), &b| (lo.min(b), hi.max(b)));
    if lo > hi {
        return Vec::new();
    }
    let base = lo >> BIN_SHIFT;
    let bin_of = |b: u64| ((b >> BIN_SHIFT) - base) as usize;
    let mut cumulative = alloc::vec![0u32; bin_of(hi) + 1];
    for &b in bits {
        cumulative[bin_of(b)] += 1;
    }
    let mut below = 0;
    for c in cumulative.iter_mut() {
        below += *c;
        *c = below;
    }
    let bin_of_rank = |r: usize| cumulative.partition_point(|&c| c as usize <= r);
    let rank_bins: Vec<usize> = wanted.iter().map(|&r| bin_of_rank(r)).collect();
    let mut bins = rank_bins.clone();
    bins.dedup();
    let mut gathered: Vec<Vec<u64>> = bins.iter().map(|_| Vec::new()).collect();
    // Most values lie outside the span of the wanted bins: one compare
    // passes them by.
    let first = bins.iter().copied().min().unwrap_or(0);
    let span = bins.iter().copied().max().unwrap_or(0) - first;
    for &b in bits {
        let bin = bin_of(b);
        if bin.wrapping_sub(first) > span {
            continue;
        }
        if let Some(slot) = bins.iter().position(|&wanted| wanted == bin) {
            gathered[slot].push(b);
        }
    }
    for values in &mut gathered {
        values.sort_unstable();
    }
    wanted
        .iter()
        .zip(rank_bins)
        .map(|(&r, bin)| {
            let slot = bins.iter().position(|&b| b == bin).unwrap_or(0);
            let before = if bin == 0 { 0 } else { cumulative[bin - 1] as usize };
            gathered[slot][r - before]
        })
        .collect()
}

/// Nearest-rank percentiles and a downsampled CDF of each class and of all
/// classes together, without sorting them: one pass bins the values by
/// their float bits (on one binning shared by the classes, so the union's
/// histogram is the sum), the cumulative counts locate each wanted rank's
/// bin, and sorting just that bin's values gives the exact value (no
/// sorting at all when the bin holds one repeated value, as the unqueued
/// requests' latencies do). Three passes over the values in all, where
/// sorting everything would be most of a run's cost.
///
/// The body of each CDF is exact points of the empirical distribution (the
/// largest value of a bin and the share up to it); the tail past p99 is at
/// exact ranks, for the tail view.
pub fn summarize(classes: &[&[f64]]) -> (Summary, Vec<Summary>) {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for class in classes {
        for v in class.iter() {
            lo = lo.min(v.to_bits());
            hi = hi.max(v.to_bits());
        }
    }
    let base = lo >> BIN_SHIFT;
    let bins = if lo > hi { 1 } else { ((hi >> BIN_SHIFT) - base + 1) as usize };
    let bin_index = |b: u64| ((b >> BIN_SHIFT) - base) as usize;

    let histograms: Vec<Histogram> = classes
        .iter()
        .map(|class| {
            // One record per bin, so each value costs one bounds check.
            let mut stats = alloc::vec![Bin { count: 0, top: 0, bottom: u64::MAX }; bins];
            let mut sum = 0.0;
            for v in class.iter() {
                let b = v.to_bits();
                let bin = &mut stats[bin_index(b)];
                bin.count += 1;
                bin.top = bin.top.max(b);
                bin.bottom = bin.bottom.min(b);
                sum += v;
            }
            let mut below = 0;
            let cumulative = stats
                .iter()
                .map(|bin| {
                    below += bin.count;
                    below
                })
                .collect();
            Histogram {
                cumulative,
                top: stats.iter().map(|bin| bin.top).collect(),
                bottom: stats.iter().map(|bin| bin.bottom).collect(),
                n: class.len(),
                sum,
                hi: stats.iter().map(|bin| bin.top).max().unwrap_or(0),
            }
        })
        .collect();
    let mut all = Histogram {
        cumulative: alloc::vec![0; bins],
        top: alloc::vec![0; bins],
        bottom: alloc::vec![u64::MAX; bins],
        n: histograms.iter().map(|h| h.n).sum(),
        sum: histograms.iter().map(|h| h.sum).sum(),
        hi: histograms.iter().map(|h| h.hi).max().unwrap_or(0),
    };
    for h in &histograms {
        for i in 0..bins {
            all.cumulative[i] += h.cumulative[i];
            all.top[i] = all.top[i].max(h.top[i]);
            all.bottom[i] = all.bottom[i].min(h.bottom[i]);
        }
    }

    // Each class gathers, in one pass and once per value, the bins that it
    // or the union needs; the union's bins then take the classes' values.
    // A class reading a bin it did not need is harmless: such
    // a bin holds one repeated value, the bin's top, which is what the
    // class would have read without it.
    let (all_slots, all_count) = all.slots();
    let mut summaries = Vec::with_capacity(classes.len());
    let mut all_gathered: Vec<Gathered> = Vec::with_capacity(all_count);
    for (i, &slot) in all_slots.iter().enumerate() {
        if slot != NONE {
            all_gathered.push(Gathered { bottom: all.bottom[i], repeats: 0, above: Vec::new() });
        }
    }
    for (class, h) in classes.iter().zip(&histograms) {
        let (mut slots, _) = h.slots();
        let mut gathered: Vec<Gathered> = Vec::new();
        for (i, slot) in slots.iter_mut().enumerate() {
            let in_bin = h.cumulative[i] as usize - h.before(i);
            if in_bin > 0 && (*slot != NONE || all_slots[i] != NONE) {
                *slot = gathered.len() as u32;
                gathered.push(Gathered { bottom: h.bottom[i], repeats: 0, above: Vec::new() });
            } else {
                *slot = NONE;
            }
        }
        if !gathered.is_empty() {
            for v in class.iter() {
                let (b, i) = (v.to_bits(), bin_index(v.to_bits()));
                if slots[i] != NONE {
                    gathered[slots[i] as usize].add(b);
                }
            }
        }
        for bin in gathered.iter_mut() {
            bin.above.sort_unstable();
        }
        for (i, &all_slot) in all_slots.iter().enumerate() {
            if all_slot != NONE && slots[i] != NONE {
                all_gathered[all_slot as usize].absorb(&gathered[slots[i] as usize]);
            }
        }
        summaries.push(h.summary(&slots, &gathered));
    }
    for bin in all_gathered.iter_mut() {
        bin.above.sort_unstable();
    }
    (all.summary(&all_slots, &all_gathered), summaries)
}

/// The values of one gathered bin, in order: its smallest value counted
/// (a bin that holds a wanted rank often holds thousands of copies of it,
/// as the unqueued requests' one latency), the rest kept and sorted.
struct Gathered {
    bottom: u64,
    repeats: usize,
    above: Vec<u64>,
}

impl Gathered {
    #[inline]
    fn add(&mut self, b: u64) {
        if b == self.bottom {
            self.repeats += 1;
        } else {
            self.above.push(b);
        }
    }

    /// The value of 0-based rank `j` within the bin.
    fn at(&self, j: usize) -> u64 {
        if j < self.repeats {
            self.bottom
        } else {
            self.above[j - self.repeats]
        }
    }

    /// Takes in a class's values of the same bin (whose smallest value is
    /// at least this bin's); sorted afterwards (a merge of the sorted
    /// classes would be faster, but its code costs the page more than the
    /// few values above the repeats take to sort).
    fn absorb(&mut self, class: &Gathered) {
        if class.bottom == self.bottom {
            self.repeats += class.repeats;
        } else {
            self.above.extend(core::iter::repeat_n(class.bottom, class.repeats));
        }
        self.above.extend_from_slice(&class.above);
    }
}

/// One bin's count and extremes while binning.
#[derive(Clone, Copy)]
struct Bin {
    count: u64,
    top: u64,
    bottom: u64,
}

/// Ranks to plot: evenly spaced in probability, plus ranks that resolve
/// the tail (`1 - F = 10^-2, 10^-2.25, ...` down to one value) for the tail
/// view; ascending.
fn cdf_ranks(n: usize) -> Vec<usize> {
    let even = (0..=CDF_POINTS).map(|k| (k * n).div_ceil(CDF_POINTS).max(1));
    let mut tail = Vec::new();
    let mut x = 2.0;
    loop {
        let above = libm::pow(10.0, -x) * n as f64;
        if above < 1.0 {
            break;
        }
        tail.push(n - libm::floor(above) as usize);
        x += 0.25;
    }
    // Both lists ascend, so a merge orders them (a sort's code would cost
    // the page's bundle kilobytes).
    let mut ranks = Vec::with_capacity(CDF_POINTS + 1 + tail.len());
    let (mut even, mut tail) = (even.peekable(), tail.into_iter().peekable());
    while let Some(next) = match (even.peek(), tail.peek()) {
        (Some(a), Some(b)) if b < a => tail.next(),
        (Some(_), _) => even.next(),
        (None, _) => tail.next(),
    } {
        ranks.push(next);
    }
    ranks.dedup();
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition: `v[ceil(p * n) - 1]` of the sorted values.
    fn by_sorting(values: &[f64]) -> Percentiles {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let at = |p: f64| v[rank(p, v.len()) - 1];
        Percentiles {
            p50: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            p999: at(0.999),
            max: v[v.len() - 1],
            mean: values.iter().sum::<f64>() / v.len() as f64,
        }
    }

    #[test]
    fn nearest_rank_matches_the_definition() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        let ((p, _), _) = summarize(&[&v]);
        assert_eq!((p.p50, p.p90, p.p99, p.max, p.mean), (5.0, 9.0, 10.0, 10.0, 5.5));
        assert_eq!(rank(0.91, 10), 10);
        assert_eq!(rank(0.0, 10), 1);
    }

    proptest! {
        /// `ranked` finds what sorting finds, for any values (repeats, far
        /// apart exponents, the same bin for several ranks) at any ranks.
        #[test]
        fn ranked_values_are_the_sorted_values_at_their_ranks(
            values in proptest::collection::vec(
                prop_oneof![any::<u64>(), 0u64..4, (1u64 << 62)..(1u64 << 62) + 3, 0x4040_0000_0000_0000u64..0x4040_0000_0100_0000],
                1..400,
            ),
            picks in proptest::collection::vec(any::<prop::sample::Index>(), 1..6),
        ) {
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let wanted: Vec<usize> = picks.iter().map(|i| i.index(values.len())).collect();
            let want: Vec<u64> = wanted.iter().map(|&r| sorted[r]).collect();
            prop_assert_eq!(ranked(&values, &wanted), want);
        }
    }

    proptest! {
        /// Binning and selecting gives exactly the sorted nearest ranks, and
        /// every CDF point lies on the empirical distribution.
        #[test]
        fn summary_equals_sorting(
            quick in proptest::collection::vec(0.001f64..1e6, 0..300),
            slow in proptest::collection::vec(prop_oneof![Just(400.0), 0.001f64..2000.0], 1..300),
        ) {
            let (union, classes) = summarize(&[&quick, &slow]);
            let mut all = quick.clone();
            all.extend_from_slice(&slow);
            for (values, (p, cdf)) in [(&all, &union), (&quick, &classes[0]), (&slow, &classes[1])] {
                if values.is_empty() {
                    prop_assert!(cdf.is_empty());
                    continue;
                }
                let want = by_sorting(values);
                prop_assert_eq!((p.p50, p.p90, p.p99, p.p999, p.max), (want.p50, want.p90, want.p99, want.p999, want.max));
                prop_assert!((p.mean - want.mean).abs() <= 1e-9 * want.mean.abs());
                // Each point is on the empirical CDF's step at its value.
                let n = values.len() as f64;
                for [v, f] in cdf {
                    let below = values.iter().filter(|&&x| x < *v).count() as f64 / n;
                    let at_or_below = values.iter().filter(|&&x| x <= *v).count() as f64 / n;
                    prop_assert!(below < *f && *f <= at_or_below, "{} at {}", f, v);
                }
                prop_assert!(cdf.windows(2).all(|w| w[0][0] <= w[1][0] && w[0][1] < w[1][1]));
                prop_assert_eq!(cdf.last().map(|p| p[1]), Some(1.0));
            }
        }

        /// The same with many repeats inside a few bins, where the classes'
        /// smallest values in a shared bin differ (20.0 to 20.07 is one bin
        /// 0.4% wide): the counted repeats and the union's merge.
        #[test]
        fn summary_equals_sorting_with_repeats(
            quick in proptest::collection::vec(prop_oneof![Just(20.0), Just(20.03), 20.0f64..20.07, Just(41.0)], 0..400),
            slow in proptest::collection::vec(prop_oneof![Just(20.01), Just(20.03), 20.0f64..20.07, Just(400.0)], 1..400),
        ) {
            let (union, classes) = summarize(&[&quick, &slow]);
            let mut all = quick.clone();
            all.extend_from_slice(&slow);
            for (values, (p, _)) in [(&all, &union), (&quick, &classes[0]), (&slow, &classes[1])] {
                if values.is_empty() {
                    continue;
                }
                let want = by_sorting(values);
                prop_assert_eq!((p.p50, p.p90, p.p99, p.p999, p.max), (want.p50, want.p90, want.p99, want.p999, want.max));
            }
        }
    }

    #[test]
    fn downsampled_cdf_has_a_few_hundred_points_and_resolves_the_tail() {
        let v: Vec<f64> = (1..=100_000).map(f64::from).collect();
        let ((_, cdf), _) = summarize(&[&v]);
        assert!(cdf.len() > 100 && cdf.len() < 2 * CDF_POINTS, "{}", cdf.len());
        assert_eq!(*cdf.last().unwrap(), [100_000.0, 1.0]);
        // The tail view reaches 1 - F = 1e-5, one value in 100,000.
        assert!(cdf.contains(&[99_999.0, 0.99999]));
    }
}

#[cfg(test)]
mod percentile_tests {
    use super::*;

    #[test]
    fn selection_gives_summarize_s_percentiles() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in [1usize, 2, 7, 1000, 12_345] {
            let mut values: Vec<f64> = (0..n)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (x >> 40) as f64 / 1e3
                })
                .collect();
            let summarized = summarize(&[&values]).0 .0;
            let bits: Vec<u64> = values.drain(..).map(f64::to_bits).collect();
            assert_eq!(percentiles(&bits), summarized, "{n} values");
        }
    }
}
