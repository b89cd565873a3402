//! The arrival rate: the Poisson maximum-likelihood estimate over the
//! log's span, and the arrivals per second over time, which is reported
//! but fitted into no field (docs/model.md#fitting-a-scenario).

use alloc::vec::Vec;

use serde::Serialize;

use super::stats::chi_square_p_value;

/// At most this many bins of arrivals over time: a day-long log is shown
/// in bins wider than a second rather than as 86,400 numbers.
const MAX_BINS: usize = 600;

/// Arrivals over time, in bins of `bin_s` seconds from the first arrival.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArrivalsOverTime {
    /// Width of a bin in seconds (1, or wider for long logs).
    pub bin_s: f64,
    /// Arrivals per second in each bin (the last bin may be partial).
    pub per_s: Vec<f64>,
}

/// The rate estimate and how steady the arrivals are.
#[derive(Clone, Debug, PartialEq)]
pub struct RateFit {
    /// Requests per second.
    pub rate_per_s: f64,
    /// Variance over mean of the full bins' counts (1 for Poisson).
    pub dispersion: f64,
    /// The dispersion test's chi-square statistic and degrees of freedom.
    pub chi_square: f64,
    /// Degrees of freedom of `chi_square`.
    pub df: f64,
    /// Arrivals over time.
    pub over_time: ArrivalsOverTime,
}

/// The rate of arrivals given in ms, in order: `(n - 1) / span`, the
/// gaps' maximum-likelihood rate (the first arrival opens the span, so it
/// is not counted as a gap). `None` with fewer than two arrivals or no span.
pub fn fit_rate(arrivals_ms: &[f64]) -> Option<RateFit> {
    let (first, last) = (*arrivals_ms.first()?, *arrivals_ms.last()?);
    let span_ms = last - first;
    if arrivals_ms.len() < 2 || span_ms <= 0.0 {
        return None;
    }
    let rate_per_s = (arrivals_ms.len() - 1) as f64 / span_ms * 1000.0;
    let span_s = span_ms / 1000.0;
    let bin_s = libm::ceil(span_s / MAX_BINS as f64).max(1.0);
    let bins = crate::num::whole(span_s / bin_s) + 1;
    let mut counts = alloc::vec![0u64; bins];
    for &t in arrivals_ms {
        let b = crate::num::whole((t - first) / 1000.0 / bin_s).min(bins - 1);
        counts[b] += 1;
    }
    // The dispersion index over the full bins: a Poisson stream's counts
    // have variance equal to their mean, so (k - 1) * var / mean is a
    // chi-square with k - 1 degrees of freedom (Fisher's index test).
    let full = &counts[..bins - 1];
    let (dispersion, chi_square, df) = if full.len() >= 2 {
        let k = full.len() as f64;
        let mean = full.iter().sum::<u64>() as f64 / k;
        let var = full.iter().map(|&c| (c as f64 - mean) * (c as f64 - mean)).sum::<f64>() / (k - 1.0);
        let d = if mean > 0.0 { var / mean } else { 0.0 };
        (d, (k - 1.0) * d, k - 1.0)
    } else {
        (1.0, 0.0, 0.0)
    };
    let last_width = span_s - bin_s * (bins - 1) as f64;
    let per_s = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let width = if i + 1 == bins { last_width.max(1e-3) } else { bin_s };
            c as f64 / width
        })
        .collect();
    Some(RateFit { rate_per_s, dispersion, chi_square, df, over_time: ArrivalsOverTime { bin_s, per_s } })
}

impl RateFit {
    /// The dispersion test's p-value (small when arrivals come in bursts
    /// or the rate drifts; `None` when the log spans under two bins).
    pub fn p_value(&self) -> Option<f64> {
        (self.df > 0.0).then(|| chi_square_p_value(self.chi_square, self.df))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evenly_spaced_arrivals_give_their_rate_and_no_dispersion() {
        // One arrival every 10 ms for 5 s: 100 per second, every full bin
        // holding exactly 100 (variance 0).
        let arrivals: Vec<f64> = (0..=500).map(|i| f64::from(i) * 10.0).collect();
        let fit = fit_rate(&arrivals).expect("a span");
        assert!((fit.rate_per_s - 100.0).abs() < 1e-9, "{fit:?}");
        assert_eq!(fit.over_time.bin_s, 1.0);
        assert_eq!(fit.dispersion, 0.0);
    }
}
