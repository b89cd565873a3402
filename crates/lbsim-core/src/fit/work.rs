//! The work distribution: each of the model's kinds fitted to the logged
//! work, and the one whose Kolmogorov-Smirnov distance to the log is
//! smallest taken (docs/model.md#fitting-a-scenario).

use alloc::vec::Vec;

use serde::Serialize;

use crate::scenario::WorkKind;

/// One kind fitted to the work, with its distance to the log.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct WorkFit {
    /// The kind.
    pub kind: WorkKind,
    /// Mean work in ms (constant, exponential, log-normal).
    pub mean_ms: f64,
    /// Log-normal shape.
    pub sigma: f64,
    /// Quick work in ms (bimodal).
    pub fast_ms: f64,
    /// Slow work in ms (bimodal).
    pub slow_ms: f64,
    /// Share of slow requests (bimodal).
    pub slow_share: f64,
    /// Kolmogorov-Smirnov distance of the fitted distribution to the log.
    pub ks: f64,
}

/// Every kind fitted to positive work values, best (smallest KS distance)
/// first; kinds with fewer parameters win ties. Empty when no value is
/// positive.
pub fn fit_work(work_ms: &[f64]) -> Vec<WorkFit> {
    let mut sorted: Vec<f64> = work_ms.iter().copied().filter(|w| *w > 0.0 && w.is_finite()).collect();
    if sorted.is_empty() {
        return Vec::new();
    }
    sorted.sort_unstable_by(f64::total_cmp);
    let n = sorted.len() as f64;
    let mean = sorted.iter().sum::<f64>() / n;
    let blank = WorkFit {
        kind: WorkKind::Constant,
        mean_ms: mean,
        sigma: 1.0,
        fast_ms: mean,
        slow_ms: mean,
        slow_share: 0.0,
        ks: 0.0,
    };
    let mut fits = Vec::new();

    let constant = WorkFit { ks: ks_distance(&sorted, |x, left| step(x, left, mean)), ..blank };
    fits.push(constant);

    let exponential = WorkFit {
        kind: WorkKind::Exponential,
        ks: ks_distance(&sorted, |x, _| 1.0 - libm::exp(-x / mean)),
        ..blank
    };
    fits.push(exponential);

    // Log-normal by maximum likelihood: the mean and deviation of log work;
    // the model takes it as its mean `exp(mu + sigma^2 / 2)` and sigma.
    let mu = sorted.iter().map(|w| libm::log(*w)).sum::<f64>() / n;
    let var = sorted.iter().map(|w| (libm::log(*w) - mu) * (libm::log(*w) - mu)).sum::<f64>() / n;
    let sigma = libm::sqrt(var);
    if sigma > 0.0 {
        let cdf = |x: f64, _| 0.5 * libm::erfc(-(libm::log(x) - mu) / (sigma * core::f64::consts::SQRT_2));
        fits.push(WorkFit {
            kind: WorkKind::Lognormal,
            mean_ms: libm::exp(mu + var / 2.0),
            sigma,
            ks: ks_distance(&sorted, cdf),
            ..blank
        });
    }

    if let Some((split, fast_ms, slow_ms)) = two_means(&sorted) {
        let slow_share = (sorted.len() - split) as f64 / n;
        let cdf = |x: f64, left: bool| {
            (1.0 - slow_share) * step(x, left, fast_ms) + slow_share * step(x, left, slow_ms)
        };
        fits.push(WorkFit {
            kind: WorkKind::Bimodal,
            fast_ms,
            slow_ms,
            slow_share,
            ks: ks_distance(&sorted, cdf),
            ..blank
        });
    }
    // A stable sort over kinds pushed simplest first keeps the simpler
    // kind on a tie.
    fits.sort_by(|a, b| a.ks.total_cmp(&b.ks));
    fits
}

/// The CDF of a point mass at `at`, at `x` or just left of it.
fn step(x: f64, left: bool, at: f64) -> f64 {
    if x > at || (!left && x == at) {
        1.0
    } else {
        0.0
    }
}

/// `sup |F_n - F|` over sorted values, exact for any `F` given as
/// `cdf(x, left)` (`left`: the limit from below, for distributions with
/// atoms): between two distinct values `F_n` is flat, so the supremum is
/// reached at a value or just left of one.
fn ks_distance(sorted: &[f64], cdf: impl Fn(f64, bool) -> f64) -> f64 {
    let n = sorted.len() as f64;
    let mut d: f64 = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let v = sorted[i];
        let mut j = i;
        while j < sorted.len() && sorted[j] == v {
            j += 1;
        }
        d = d.max((i as f64 / n - cdf(v, true)).abs()).max((j as f64 / n - cdf(v, false)).abs());
        i = j;
    }
    d
}

/// The exact two-means split of sorted work in log space (the split
/// minimizing the within-group sum of squares, found in one pass over
/// prefix sums): the index of the first slow value and each group's mean
/// work in ms. `None` when all values are equal.
fn two_means(sorted: &[f64]) -> Option<(usize, f64, f64)> {
    let logs: Vec<f64> = sorted.iter().map(|w| libm::log(*w)).collect();
    let n = logs.len();
    let (total, total_sq) = logs.iter().fold((0.0, 0.0), |(s, q), x| (s + x, q + x * x));
    let (mut sum, mut sq) = (0.0, 0.0);
    let mut best: Option<(usize, f64)> = None;
    for k in 1..n {
        sum += logs[k - 1];
        sq += logs[k - 1] * logs[k - 1];
        if logs[k] == logs[k - 1] {
            continue;
        }
        let (left, right) = (k as f64, (n - k) as f64);
        let within = (sq - sum * sum / left) + ((total_sq - sq) - (total - sum) * (total - sum) / right);
        if best.is_none_or(|(_, b)| within < b) {
            best = Some((k, within));
        }
    }
    let (k, _) = best?;
    let fast = sorted[..k].iter().sum::<f64>() / k as f64;
    let slow = sorted[k..].iter().sum::<f64>() / (n - k) as f64;
    Some((k, fast, slow))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ks_of_a_uniform_grid_against_its_own_cdf_is_one_step() {
        let sorted: Vec<f64> = (1..=100).map(f64::from).collect();
        let d = ks_distance(&sorted, |x, _| x / 100.0);
        assert!((d - 0.01).abs() < 1e-12, "{d}");
    }

    #[test]
    fn two_values_are_split_exactly() {
        let mut work = alloc::vec![20.0; 90];
        work.extend([400.0; 10]);
        let best = fit_work(&work)[0];
        assert_eq!(
            (best.kind, best.fast_ms, best.slow_ms, best.slow_share),
            (WorkKind::Bimodal, 20.0, 400.0, 0.1)
        );
        assert_eq!(best.ks, 0.0);
    }

    #[test]
    fn equal_values_are_constant() {
        let best = fit_work(&[7.0; 10])[0];
        assert_eq!((best.kind, best.mean_ms, best.ks), (WorkKind::Constant, 7.0, 0.0));
    }
}
