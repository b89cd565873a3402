//! Small numeric helpers the workload and both engines share: times as
//! sortable bits, the later of two times, and float-to-index conversion,
//! each written for what it compiles to natively and in wasm. All are
//! `#[inline]`: they sit in a module of their own, and the engines call
//! them for every request.

/// A non-negative time as sortable bits: for finite `t >= 0` the IEEE bit
/// pattern orders like the number, and integer compares are cheaper.
#[inline]
pub(crate) fn bits(t: f64) -> u64 {
    t.to_bits()
}

/// The later of two times. `f64::max` is a call to `fmax` in wasm (its
/// `f64.max` treats NaN otherwise); times are never NaN, so a compare and
/// a select do, twice a request.
#[inline]
pub(crate) fn later(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// `x as usize` for the callers here, which clamp the result far below
/// 2^63 (NaN and negatives give 0, as `as` does). On 64-bit targets it
/// goes through a signed conversion: x86-64 converts to a signed integer
/// in one instruction, to an unsigned one in a dozen. wasm32 converts to
/// its 32-bit usize in one.
#[inline]
pub(crate) fn whole(x: f64) -> usize {
    #[cfg(target_pointer_width = "64")]
    let whole = (x as i64).max(0) as usize;
    #[cfg(not(target_pointer_width = "64"))]
    let whole = x as usize;
    whole
}
