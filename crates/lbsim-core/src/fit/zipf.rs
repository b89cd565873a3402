//! User popularity: Zipf's s by maximum likelihood over the keys' ranks,
//! the user count as the distinct keys seen, and a chi-square of the
//! heaviest keys' shares (docs/model.md#fitting-a-scenario).

use alloc::vec::Vec;

use super::stats::chi_square_p_value;

/// The heaviest keys the chi-square compares one by one; the rest are
/// pooled into one bin.
pub const TOP_KEYS: usize = 20;

/// The Zipf estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct ZipfFit {
    /// Distinct keys seen (users never seen in the log are not counted).
    pub users: u32,
    /// The exponent.
    pub s: f64,
    /// Chi-square of the top keys' counts against the fitted shares.
    pub chi_square: f64,
    /// Its degrees of freedom.
    pub df: f64,
    /// The heaviest key's share as logged.
    pub top_share: f64,
}

/// Fits Zipf(s) over `U` = the number of counts given (one per distinct
/// key, any order): ranks the keys by count and maximizes the exact
/// log-likelihood `-s * sum(c_k ln k) - N ln H(U, s)` over `s` in
/// `[0, max_s]` by a golden-section search (the log-likelihood is concave
/// in `s`: `ln H` is a log-sum-exp of lines in `s`). `None` without keys.
pub fn fit_zipf(counts: &[u64], max_s: f64) -> Option<ZipfFit> {
    let mut ranked: Vec<u64> = counts.iter().copied().filter(|&c| c > 0).collect();
    if ranked.is_empty() {
        return None;
    }
    ranked.sort_unstable_by(|a, b| b.cmp(a));
    let users = ranked.len();
    let total: u64 = ranked.iter().sum();
    let n = total as f64;
    let log_rank: Vec<f64> = (1..=users).map(|k| libm::log(k as f64)).collect();
    let weighted: f64 = ranked.iter().zip(&log_rank).map(|(&c, l)| c as f64 * l).sum();
    let log_likelihood = |s: f64| {
        let h: f64 = log_rank.iter().map(|l| libm::exp(-s * l)).sum();
        -s * weighted - n * libm::log(h)
    };
    let s = golden_max(log_likelihood, 0.0, max_s);

    let h: f64 = log_rank.iter().map(|l| libm::exp(-s * l)).sum();
    let top = users.min(TOP_KEYS);
    let mut chi_square = 0.0;
    let mut expected_top = 0.0;
    for k in 0..top {
        let expected = n * libm::exp(-s * log_rank[k]) / h;
        expected_top += expected;
        let d = ranked[k] as f64 - expected;
        chi_square += d * d / expected;
    }
    let mut bins = top;
    if users > top {
        let observed: u64 = ranked[top..].iter().sum();
        let expected = n - expected_top;
        if expected > 0.0 {
            let d = observed as f64 - expected;
            chi_square += d * d / expected;
            bins += 1;
        }
    }
    // One degree lost to the total, one to the fitted s.
    let df = bins as f64 - 2.0;
    Some(ZipfFit { users: users as u32, s, chi_square, df, top_share: ranked[0] as f64 / n })
}

impl ZipfFit {
    /// The chi-square's p-value (`None` with too few keys to test).
    pub fn p_value(&self) -> Option<f64> {
        (self.df > 0.0).then(|| chi_square_p_value(self.chi_square, self.df))
    }
}

/// The maximum of a concave function on `[lo, hi]` to within 1e-6.
fn golden_max(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    let ratio = (libm::sqrt(5.0) - 1.0) / 2.0;
    let mut a = hi - ratio * (hi - lo);
    let mut b = lo + ratio * (hi - lo);
    let (mut fa, mut fb) = (f(a), f(b));
    while hi - lo > 1e-6 {
        if fa < fb {
            lo = a;
            a = b;
            fa = fb;
            b = lo + ratio * (hi - lo);
            fb = f(b);
        } else {
            hi = b;
            b = a;
            fb = fa;
            a = hi - ratio * (hi - lo);
            fa = f(a);
        }
    }
    (lo + hi) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_proportional_to_zipf_weights_give_back_s() {
        // Counts exactly 10^6 * k^-1.3 (rounded): the maximum is s = 1.3.
        let counts: Vec<u64> =
            (1..=500).map(|k| libm::round(1e6 * libm::pow(f64::from(k), -1.3)) as u64).collect();
        let fit = fit_zipf(&counts, 5.0).expect("keys");
        assert!((fit.s - 1.3).abs() < 1e-3, "{fit:?}");
        assert_eq!(fit.users, 500);
    }

    #[test]
    fn equal_counts_are_uniform() {
        let fit = fit_zipf(&[100; 50], 5.0).expect("keys");
        assert!(fit.s < 1e-5, "{fit:?}");
    }
}
