//! The tail probabilities the goodness figures quote: Kolmogorov's
//! limiting distribution for a KS distance and the chi-square's upper tail
//! through the regularized incomplete gamma function (Numerical Recipes'
//! series and continued fraction), both in `libm` so every target agrees.

/// `P(D > d)` for the KS distance `d` of `n` values from a fully given
/// distribution, by Kolmogorov's series with Stephens' small-sample
/// correction. When the distribution's parameters were estimated from the
/// same values the true tail is smaller (Lilliefors): the figure is then
/// generous, and the fit's note says so.
pub fn ks_p_value(d: f64, n: usize) -> f64 {
    let en = libm::sqrt(n as f64);
    let lambda = (en + 0.12 + 0.11 / en) * d;
    if lambda < 0.2 {
        return 1.0;
    }
    let mut sum = 0.0;
    let mut sign = 2.0;
    for j in 1..=100 {
        let j = f64::from(j);
        let term = sign * libm::exp(-2.0 * j * j * lambda * lambda);
        sum += term;
        if term.abs() < 1e-12 {
            break;
        }
        sign = -sign;
    }
    sum.clamp(0.0, 1.0)
}

/// `P(X > x)` for a chi-square `X` with `df` degrees of freedom.
pub fn chi_square_p_value(x: f64, df: f64) -> f64 {
    if df <= 0.0 || x.is_nan() {
        return 1.0;
    }
    upper_gamma(df / 2.0, x / 2.0)
}

/// The regularized upper incomplete gamma `Q(a, x)`.
fn upper_gamma(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let log_front = -x + a * libm::log(x) - libm::lgamma(a);
    if x < a + 1.0 {
        // The series for P(a, x) converges quickly below a + 1.
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..500 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        (1.0 - sum * libm::exp(log_front)).clamp(0.0, 1.0)
    } else {
        // Lentz's continued fraction for Q(a, x) above it.
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..500 {
            let an = -f64::from(i) * (f64::from(i) - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let step = d * c;
            h *= step;
            if (step - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (libm::exp(log_front) * h).clamp(0.0, 1.0)
    }
}

/// `x` to four significant digits: a fitted number is an estimate, and the
/// link it goes into stays short.
pub fn four_digits(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let magnitude = libm::floor(libm::log10(x.abs()));
    let scale = libm::pow(10.0, 3.0 - magnitude);
    libm::round(x * scale) / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chi_square_tails_match_the_tables() {
        // Upper 5% points of the chi-square distribution (any table).
        for (x, df) in [(3.841, 1.0), (11.070, 5.0), (31.410, 20.0)] {
            assert!((chi_square_p_value(x, df) - 0.05).abs() < 5e-4, "{x} {df}");
        }
        // df = 2 is exponential: P(X > x) = exp(-x / 2).
        assert!((chi_square_p_value(3.0, 2.0) - libm::exp(-1.5)).abs() < 1e-12);
    }

    #[test]
    fn ks_tail_matches_the_table() {
        // Kolmogorov's 5% critical value: 1.358 / sqrt(n) for large n.
        let n = 1_000_000;
        assert!((ks_p_value(1.358 / libm::sqrt(n as f64), n) - 0.05).abs() < 1e-3);
    }

    #[test]
    fn four_digits_rounds_significant_digits() {
        assert_eq!(four_digits(123.456), 123.5);
        assert_eq!(four_digits(0.0012345), 0.001235);
    }
}
