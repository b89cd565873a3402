//! gRPC's static stride scheduler, as gRPC C-core's
//! `src/core/load_balancing/weighted_round_robin/static_stride_scheduler.cc`
//! builds and walks it: the weighted round robin picker of gRFC A58.
//!
//! Building: the weights are `f32`, as C-core's are; a weight of 0 is
//! unknown and takes the mean of the known ones; the largest is capped at
//! 10x that mean and the others floored at 0.01x of it (C-core's
//! `kMaxRatio` and `kMinRatio`, to bound the skipped sequence numbers);
//! then all are scaled so the largest is 65,535 and rounded half away from
//! zero (`std::lround`). No scheduler is built for fewer than two weights
//! or when every weight is 0: the caller takes plain round robin.
//!
//! Picking: a shared sequence number, incremented (wrapping at 2^32) for
//! every candidate, names a backend (`sequence % n`) and a generation
//! (`sequence / n`); the backend is taken when
//! `(weight x generation + index x 32,767) % 65,535` is at least
//! `65,535 - weight`, so each backend is taken `weight` times in 65,535
//! generations and a tie cannot arise: the sequence alone decides.
//!
//! grpc-go's `balancer/weightedroundrobin/scheduler.go` walks the same
//! sequence but builds the weights differently: `f64` weights, no 10x or
//! 0.01x caps, and plain round robin when at most one weight is known or
//! every scaled weight equals the mean (C-core keeps the stride walk,
//! which then takes the backends in turn).

use alloc::vec::Vec;

/// The largest scaled weight (`kMaxWeight`, `u16::MAX`).
pub const MAX_WEIGHT: u16 = u16::MAX;

/// C-core's cap on the largest weight, as a multiple of the mean.
const MAX_RATIO: f64 = 10.0;

/// C-core's floor on any known weight, as a multiple of the mean.
const MIN_RATIO: f64 = 0.01;

/// A built schedule: the scaled weights, one per backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrideScheduler {
    weights: Vec<u16>,
}

impl StrideScheduler {
    /// C-core's `StaticStrideScheduler::Make`: `None` for fewer than two
    /// weights or all of them 0.
    pub fn make(weights: &[f32]) -> Option<StrideScheduler> {
        let n = weights.len();
        if n < 2 {
            return None;
        }
        let mut sum = 0.0_f64;
        let mut unscaled_max = 0.0_f32;
        let mut zeros = 0usize;
        for &weight in weights {
            sum += f64::from(weight);
            unscaled_max = unscaled_max.max(weight);
            if weight == 0.0 {
                zeros += 1;
            }
        }
        if zeros == n {
            return None;
        }
        let unscaled_mean = sum / (n - zeros) as f64;
        if f64::from(unscaled_max) / unscaled_mean > MAX_RATIO {
            // C-core stores the cap in its `float` maximum: rounded to f32.
            unscaled_max = (MAX_RATIO * unscaled_mean) as f32;
        }
        let scaling = f64::from(MAX_WEIGHT) / f64::from(unscaled_max);
        let mean = lround_u16(scaling * unscaled_mean);
        let lower_bound = lround_u16(f64::from(mean) * MIN_RATIO).max(1);
        let weights = weights
            .iter()
            .map(|&weight| {
                if weight == 0.0 {
                    mean
                } else {
                    lround_u16(f64::from(weight.min(unscaled_max)) * scaling).max(lower_bound)
                }
            })
            .collect();
        Some(StrideScheduler { weights })
    }

    /// The scaled weights, in backend order.
    pub fn weights(&self) -> &[u16] {
        &self.weights
    }

    /// C-core's `Pick`: the next backend, advancing `sequence` past every
    /// number it reads.
    pub fn pick(&self, sequence: &mut u32) -> usize {
        let n = self.weights.len() as u64;
        let offset = u64::from(MAX_WEIGHT / 2);
        loop {
            let number = u64::from(*sequence);
            *sequence = sequence.wrapping_add(1);
            let index = number % n;
            let generation = number / n;
            let weight = u64::from(self.weights[index as usize]);
            let turn = (weight * generation + index * offset) % u64::from(MAX_WEIGHT);
            if turn >= u64::from(MAX_WEIGHT) - weight {
                return index as usize;
            }
        }
    }
}

/// `std::lround` into a `u16`, as C-core's implicit narrowing stores it:
/// the values here are in 0..=65,535 by construction.
fn lround_u16(value: f64) -> u16 {
    libm::round(value) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The picks over `count` sequence numbers from 0, counted per backend.
    fn counts(weights: &[f32], count: usize) -> Vec<u32> {
        let scheduler = StrideScheduler::make(weights).expect("a scheduler");
        let mut sequence = 0;
        let mut counts = alloc::vec![0; weights.len()];
        for _ in 0..count {
            counts[scheduler.pick(&mut sequence)] += 1;
        }
        counts
    }

    #[test]
    fn the_scaled_weights_put_the_largest_at_the_maximum() {
        let scheduler = StrideScheduler::make(&[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(scheduler.weights(), [21845, 43690, 65535]);
    }

    /// C-core's caps by its formula: 81 and nineteen 1s have mean 5, so the
    /// maximum is capped at 50 and a 1 scales to 65,535 / 50 = 1,310.7,
    /// rounded to 1,311 (uncapped it would be 65,535 / 81, 809). 100 and
    /// 1e-10 have mean 50, scaled 32,767.5, rounded to 32,768, so the
    /// floor is 0.01 x 32,768 rounded, 328. C-core's own
    /// `MaxIsClampedForHighRatio` also holds uncapped over its 69 picks,
    /// which is why the scaled weights are held here.
    #[test]
    fn the_caps_are_ten_times_and_a_hundredth_of_the_mean() {
        let mut weights = alloc::vec![1.0; 20];
        weights[0] = 81.0;
        let capped = StrideScheduler::make(&weights).unwrap();
        assert_eq!(capped.weights()[..2], [65535, 1311]);
        let floored = StrideScheduler::make(&[100.0, 1e-10]).unwrap();
        assert_eq!(floored.weights(), [65535, 328]);
    }

    #[test]
    fn the_sequence_wraps_at_two_to_the_thirty_two() {
        let scheduler = StrideScheduler::make(&[1.0, 1.0]).unwrap();
        let mut sequence = u32::MAX;
        scheduler.pick(&mut sequence);
        assert_eq!(sequence, 0);
    }

    #[test]
    fn equal_weights_take_the_backends_in_turn() {
        assert_eq!(counts(&[5.0, 5.0, 5.0, 5.0], 400), [100, 100, 100, 100]);
    }
}
