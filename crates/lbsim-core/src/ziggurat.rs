//! Exponential and normal draws by the ziggurat method (Marsaglia and
//! Tsang, "The Ziggurat Method for Generating Random Variables", 2000), as
//! `rand_distr`'s `Exp1` and `StandardNormal` draw them: 256 layers of equal
//! area, one 64-bit draw for nearly every variate (its low 8 bits pick the
//! layer, its high 52 the point in it), a multiply and a comparison; `libm`
//! only in the rare wedge and tail cases. The logarithm it replaces was a
//! quarter of drawing a request.
//!
//! Why not `rand_distr` itself: its wedges and tails call `exp` and `ln`
//! through `num-traits`, which takes them from `libm` only while nothing in
//! the build turns on `num-traits/std`, and plotters (the page's plots) and
//! proptest (the core's tests) do (`cargo tree -e features -i num-traits
//! --workspace`). The page and the tests would then draw with the
//! platform's `exp` and `ln` (glibc's natively) and the CLI with `libm`'s,
//! which differ in the last bit on some inputs: reports would no longer be
//! byte-identical across builds. Here every float function is `libm`'s.
//!
//! The layers are computed from the paper's constants for 256 layers (the
//! base layer's edge `r` and the common area `v`) with `libm` when a
//! workload is drawn: about 500 logarithms and exponentials for each
//! distribution, the same bits on every target.

use rand::{Rng as _, RngCore as _};

use crate::rng::Rng;

/// Layers.
const LAYERS: usize = 256;

/// The exponential's base edge and layer area: `v = (r + 1) e^-r`.
const EXP_R: f64 = 7.697_117_470_131_05;
const EXP_V: f64 = 0.003_949_659_822_581_557;
/// The normal's (density `exp(-x^2 / 2)`, unnormalised as in the paper).
const NORMAL_R: f64 = 3.654_152_885_361_009;
const NORMAL_V: f64 = 0.004_928_673_233_99;

fn exp_density(x: f64) -> f64 {
    libm::exp(-x)
}

fn normal_density(x: f64) -> f64 {
    libm::exp(-x * x / 2.0)
}

/// The layers of a density that falls from 1 at 0: their right edges `x`
/// (from the base layer's `v / f(r)` down to 0) and the density at each.
#[derive(Clone, Debug)]
struct Layers {
    x: [f64; LAYERS + 1],
    f: [f64; LAYERS + 1],
}

impl Layers {
    /// Layer `i` is the rectangle `x[i] x (f[i + 1] - f[i])` of area `v`;
    /// the base layer is `r x f(r)` plus the tail beyond `r`, also `v`.
    fn new(density: fn(f64) -> f64, inverse: fn(f64) -> f64, r: f64, v: f64) -> Layers {
        let (mut x, mut f) = ([0.0; LAYERS + 1], [0.0; LAYERS + 1]);
        x[0] = v / density(r);
        f[0] = density(x[0]);
        x[1] = r;
        f[1] = density(r);
        for i in 1..LAYERS - 1 {
            x[i + 1] = inverse(f[i] + v / x[i]);
            f[i + 1] = density(x[i + 1]);
        }
        f[LAYERS] = density(0.0);
        Layers { x, f }
    }

    /// The point `u` (in (-1, 1)) scaled to layer `i`: the variate if it
    /// lies in the layer's rectangle under the layer above, else the point
    /// for the wedge's (or, in the base layer, the tail's) test.
    #[inline]
    fn step(&self, i: usize, u: f64) -> Result<f64, f64> {
        let x = u * self.x[i];
        if x.abs() < self.x[i + 1] {
            Ok(x)
        } else {
            Err(x)
        }
    }

    /// Whether a point at `x` in layer `i`'s wedge is under the density.
    #[inline]
    fn in_wedge(&self, rng: &mut Rng, i: usize, density_at_x: f64) -> bool {
        self.f[i + 1] + (self.f[i] - self.f[i + 1]) * rng.random::<f64>() < density_at_x
    }
}

/// The exponential distribution with rate 1.
#[derive(Clone, Debug)]
pub struct Exponential(Layers);

impl Default for Exponential {
    fn default() -> Exponential {
        Exponential(Layers::new(exp_density, |y| -libm::log(y), EXP_R, EXP_V))
    }
}

impl Exponential {
    /// A variate: one 64-bit draw, but in a wedge (about 1 draw in 100) or
    /// the tail (about 1 in 2,000). The rectangle's case is inlined where
    /// the workload is drawn; the rare cases are not.
    #[inline]
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        let bits = rng.next_u64();
        let i = (bits & 0xff) as usize;
        // (0, 1) from the high 52 bits: [1, 2) less just under 1.
        let u = f64::from_bits((bits >> 12) | 0x3ff0_0000_0000_0000) - (1.0 - f64::EPSILON / 2.0);
        match self.0.step(i, u) {
            Ok(x) => x,
            Err(x) => self.outside(rng, i, x),
        }
    }

    /// The point `x` of layer `i` fell outside the rectangle: the tail's
    /// variate, the wedge's point if under the density, or a new draw.
    #[cold]
    #[inline(never)]
    fn outside(&self, rng: &mut Rng, i: usize, x: f64) -> f64 {
        if i == 0 {
            // The tail beyond r is r plus an exponential.
            EXP_R - libm::log(open_unit(rng))
        } else if self.0.in_wedge(rng, i, exp_density(x)) {
            x
        } else {
            self.sample(rng)
        }
    }
}

/// The standard normal distribution.
#[derive(Clone, Debug)]
pub struct Normal(Layers);

impl Default for Normal {
    fn default() -> Normal {
        Normal(Layers::new(normal_density, |y| libm::sqrt(-2.0 * libm::log(y)), NORMAL_R, NORMAL_V))
    }
}

impl Normal {
    /// A variate: one 64-bit draw, but in a wedge or the tails.
    #[inline]
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        let bits = rng.next_u64();
        let i = (bits & 0xff) as usize;
        // [-1, 1) from the high 52 bits: [2, 4) less 3.
        let u = f64::from_bits((bits >> 12) | 0x4000_0000_0000_0000) - 3.0;
        match self.0.step(i, u) {
            Ok(x) => x,
            Err(x) => self.outside(rng, i, u, x),
        }
    }

    /// As for the exponential; the tails are Marsaglia's, on `u`'s side.
    #[cold]
    #[inline(never)]
    fn outside(&self, rng: &mut Rng, i: usize, u: f64, x: f64) -> f64 {
        if i == 0 {
            loop {
                let x = libm::log(open_unit(rng)) / NORMAL_R;
                let y = libm::log(open_unit(rng));
                if -2.0 * y >= x * x {
                    return if u < 0.0 { x - NORMAL_R } else { NORMAL_R - x };
                }
            }
        } else if self.0.in_wedge(rng, i, normal_density(x)) {
            x
        } else {
            self.sample(rng)
        }
    }
}

/// A draw in (0, 1], safe for logarithms.
fn open_unit(rng: &mut Rng) -> f64 {
    1.0 - rng.random::<f64>()
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;
    use crate::workload::rng;

    /// The paper's constants are the ones whose layers close: with `r`
    /// and `v`, every layer has area `v`, the base layer's rectangle and
    /// tail too, and the top layer ends at density 1 (the recurrence lands
    /// on 0 after exactly 256 layers).
    #[test]
    fn every_layer_has_the_same_area() {
        let tails = [
            (Exponential::default().0, EXP_R, EXP_V, libm::exp(-EXP_R)),
            (
                Normal::default().0,
                NORMAL_R,
                NORMAL_V,
                libm::sqrt(core::f64::consts::FRAC_PI_2) * libm::erfc(NORMAL_R / core::f64::consts::SQRT_2),
            ),
        ];
        for (layers, r, v, tail) in tails {
            let base = r * layers.f[1] + tail;
            assert!((base - v).abs() < 1e-9 * v, "base layer {base}, v {v}");
            for i in 1..LAYERS {
                let area = layers.x[i] * (layers.f[i + 1] - layers.f[i]);
                assert!((area - v).abs() < 1e-6 * v, "layer {i}: area {area}, v {v}");
            }
        }
    }

    /// The largest gap between the sorted draws' empirical CDF and `cdf`
    /// (Kolmogorov-Smirnov's D).
    fn ks_distance(mut draws: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
        draws.sort_by(f64::total_cmp);
        let n = draws.len() as f64;
        draws.iter().enumerate().fold(0.0, |d: f64, (k, &x)| {
            let c = cdf(x);
            d.max((c - k as f64 / n).abs()).max(((k + 1) as f64 / n - c).abs())
        })
    }

    /// 4,000,000 draws against the exponential's CDF `1 - e^-x`: D under
    /// the 1% critical value `1.63 / sqrt(n)`; the tail beyond r takes
    /// `e^-r` of them within four standard deviations; the mean is 1.
    #[test]
    fn exponential_draws_follow_the_exponential() {
        let (n, exponential, mut rng) = (4_000_000, Exponential::default(), rng(7, 1));
        let draws: Vec<f64> = (0..n).map(|_| exponential.sample(&mut rng)).collect();
        let tail = draws.iter().filter(|&&x| x > EXP_R).count() as f64;
        let mean = draws.iter().sum::<f64>() / n as f64;
        let d = ks_distance(draws, |x| 1.0 - libm::exp(-x));
        assert!(d < 1.63 / libm::sqrt(n as f64), "D = {d}");
        let expected = n as f64 * libm::exp(-EXP_R);
        assert!((tail - expected).abs() < 4.0 * libm::sqrt(expected), "{tail} beyond r, {expected} expected");
        assert!((mean - 1.0).abs() < 4.0 / libm::sqrt(n as f64), "mean {mean}");
    }

    /// 4,000,000 draws against the normal's CDF `(1 + erf(x / sqrt 2)) / 2`,
    /// and both tails beyond r.
    #[test]
    fn normal_draws_follow_the_normal() {
        let (n, normal, mut rng) = (4_000_000, Normal::default(), rng(7, 2));
        let draws: Vec<f64> = (0..n).map(|_| normal.sample(&mut rng)).collect();
        let beyond = |sign: f64| draws.iter().filter(|&&x| sign * x > NORMAL_R).count() as f64;
        let expected = n as f64 * libm::erfc(NORMAL_R / core::f64::consts::SQRT_2) / 2.0;
        for sign in [1.0, -1.0] {
            let tail = beyond(sign);
            assert!(
                (tail - expected).abs() < 4.0 * libm::sqrt(expected),
                "{tail} beyond {sign} r, {expected} expected"
            );
        }
        let d = ks_distance(draws, |x| (1.0 + libm::erf(x / core::f64::consts::SQRT_2)) / 2.0);
        assert!(d < 1.63 / libm::sqrt(n as f64), "D = {d}");
    }
}
