//! The random generator every rule draws its own choices from, and the
//! uniform draw over a range that several rules and the fleet share.

/// The random generator every rule draws its own choices from: ChaCha8,
/// rand_chacha's natively, the same stream computed with wasm's SIMD in a
/// wasm build with `simd128` ([`crate::chacha`]).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub type Rng = rand_chacha::ChaCha8Rng;
/// The random generator every rule draws its own choices from: ChaCha8,
/// the same stream as rand_chacha's, computed with wasm's SIMD.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub type Rng = crate::chacha::ChaCha8Rng;

/// A uniform draw in `0..range` (`range > 0`): rand's
/// `random_range(0..range)` for `u64` to the bit (one 64-bit draw times the
/// range, whose high half is the result; a second draw only when the low
/// half lands in the top `range - 1` values, where it decides a carry).
/// Ranges are u64 on every target, so native and wasm draw the same numbers. Written out because rand takes
/// the product as a `u128`, which wasm has no instruction for: a call to
/// `__multi3` that was a tenth of least request's time in V8.
#[inline]
pub fn below(rng: &mut Rng, range: u64) -> u64 {
    use rand::RngCore as _;
    debug_assert!(range > 0, "an empty range, which rand refuses too");
    let (mut result, low) = wide_product(rng.next_u64(), range);
    if low > range.wrapping_neg() {
        let (carry_in, _) = wide_product(rng.next_u64(), range);
        result += u64::from(low.checked_add(carry_in).is_none());
    }
    result
}

/// `a * b` as (high, low) 64-bit halves.
#[inline]
fn wide_product(a: u64, b: u64) -> (u64, u64) {
    #[cfg(not(target_arch = "wasm32"))]
    let halves = {
        let p = u128::from(a) * u128::from(b);
        ((p >> 64) as u64, p as u64)
    };
    #[cfg(target_arch = "wasm32")]
    let halves = wide_product_by_halves(a, b);
    halves
}

/// `a * b` from four 32 x 32 products: what wasm's 64-bit multiply gives
/// in a few instructions (the native build keeps the one-instruction
/// `u128` product and tests this against it).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[inline]
fn wide_product_by_halves(a: u64, b: u64) -> (u64, u64) {
    const LOW: u64 = 0xffff_ffff;
    let (a0, a1, b0, b1) = (a & LOW, a >> 32, b & LOW, b >> 32);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let middle = (p00 >> 32) + (p01 & LOW) + (p10 & LOW);
    let high = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
    (high, (middle << 32) | (p00 & LOW))
}

#[cfg(test)]
mod draws {
    use proptest::prelude::*;
    use rand::{Rng as _, SeedableRng};

    use super::{below, wide_product, wide_product_by_halves, Rng};

    proptest! {
        /// `below` is rand's `random_range(0..range)` draw for draw, the
        /// same stream left behind; ranges near 2^64 take the second draw
        /// about half the time.
        #[test]
        fn below_draws_what_rands_random_range_draws(seed in any::<u64>(), ranges in proptest::collection::vec(1u64.., 1..64), small in 1u64..2_000) {
            let (mut ours, mut rands) = (Rng::seed_from_u64(seed), Rng::seed_from_u64(seed));
            for range in ranges.into_iter().chain([small, 1, u64::MAX, 1 << 63, (1 << 63) + 1]) {
                prop_assert_eq!(below(&mut ours, range), rands.random_range(0..range), "range {}", range);
            }
            prop_assert_eq!(ours.random::<u64>(), rands.random::<u64>());
        }

        /// The product wasm takes by halves is the `u128` product.
        #[test]
        fn the_product_by_halves_is_the_wide_product(a in any::<u64>(), b in any::<u64>()) {
            prop_assert_eq!(wide_product_by_halves(a, b), wide_product(a, b));
            let p = u128::from(a) * u128::from(b);
            prop_assert_eq!(wide_product_by_halves(a, b), ((p >> 64) as u64, p as u64));
        }
    }
}
