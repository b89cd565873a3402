//! ChaCha8 for wasm: the very stream of rand_chacha's `ChaCha8Rng` (the
//! same seed expansion, block layout, counter and stream words, and
//! rand_core's `BlockRng` over four blocks at a time), computed with wasm's
//! 128-bit SIMD, four blocks in the four lanes.
//!
//! rand_chacha's SIMD backends are x86 and NEON only; in wasm it runs a
//! portable one, and its block function was a quarter of a run's time under
//! V8. Native builds keep rand_chacha. Natively, a test holds the portable
//! form of this block function ([`blocks`]) to `ChaCha8Rng` draw for draw;
//! the determinism gate holds the SIMD form to the native reports, byte
//! for byte.

use rand::rand_core::block::{BlockRng, BlockRngCore};
use rand::rand_core::{RngCore, SeedableRng};

/// "expand 32-byte k".
const CONSTANTS: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// ChaCha8's eight rounds (four double rounds: four columns, then four
/// diagonals) with quarter round `$qr` on state `$x`, written out so both
/// word widths get straight-line code.
macro_rules! eight_rounds {
    ($qr:ident, $x:expr) => {
        for _ in 0..4 {
            $qr($x, 0, 4, 8, 12);
            $qr($x, 1, 5, 9, 13);
            $qr($x, 2, 6, 10, 14);
            $qr($x, 3, 7, 11, 15);
            $qr($x, 0, 5, 10, 15);
            $qr($x, 1, 6, 11, 12);
            $qr($x, 2, 7, 8, 13);
            $qr($x, 3, 4, 9, 14);
        }
    };
}

/// Four blocks of output: 64 words, block by block.
#[derive(Clone, Copy, Debug)]
pub struct Blocks(pub [u32; 64]);

impl Default for Blocks {
    fn default() -> Blocks {
        Blocks([0; 64])
    }
}

impl AsRef<[u32]> for Blocks {
    fn as_ref(&self) -> &[u32] {
        &self.0
    }
}

impl AsMut<[u32]> for Blocks {
    fn as_mut(&mut self) -> &mut [u32] {
        &mut self.0
    }
}

/// The key, block counter and stream of one ChaCha8 generator.
#[derive(Clone, Debug)]
pub struct Core {
    key: [u32; 8],
    counter: u64,
    stream: u64,
}

/// The four blocks at `counter`..`counter + 3`, portably.
pub fn blocks(key: &[u32; 8], counter: u64, stream: u64, out: &mut [u32; 64]) {
    for (j, block) in out.chunks_exact_mut(16).enumerate() {
        let at = counter.wrapping_add(j as u64);
        let mut init = [0u32; 16];
        init[..4].copy_from_slice(&CONSTANTS);
        init[4..12].copy_from_slice(key);
        init[12] = at as u32;
        init[13] = (at >> 32) as u32;
        init[14] = stream as u32;
        init[15] = (stream >> 32) as u32;
        let mut x = init;
        let qr = |x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize| {
            x[a] = x[a].wrapping_add(x[b]);
            x[d] = (x[d] ^ x[a]).rotate_left(16);
            x[c] = x[c].wrapping_add(x[d]);
            x[b] = (x[b] ^ x[c]).rotate_left(12);
            x[a] = x[a].wrapping_add(x[b]);
            x[d] = (x[d] ^ x[a]).rotate_left(8);
            x[c] = x[c].wrapping_add(x[d]);
            x[b] = (x[b] ^ x[c]).rotate_left(7);
        };
        eight_rounds!(qr, &mut x);
        for (word, (&v, &i)) in block.iter_mut().zip(x.iter().zip(&init)) {
            *word = v.wrapping_add(i);
        }
    }
}

/// The four blocks at `counter`..`counter + 3`, one per SIMD lane.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn blocks_simd(key: &[u32; 8], counter: u64, stream: u64, out: &mut [u32; 64]) {
    use core::arch::wasm32::*;

    #[inline(always)]
    fn rotl<const L: u32, const R: u32>(v: v128) -> v128 {
        v128_or(u32x4_shl(v, L), u32x4_shr(v, R))
    }
    #[inline(always)]
    fn qr(x: &mut [v128; 16], a: usize, b: usize, c: usize, d: usize) {
        x[a] = u32x4_add(x[a], x[b]);
        x[d] = rotl::<16, 16>(v128_xor(x[d], x[a]));
        x[c] = u32x4_add(x[c], x[d]);
        x[b] = rotl::<12, 20>(v128_xor(x[b], x[c]));
        x[a] = u32x4_add(x[a], x[b]);
        x[d] = rotl::<8, 24>(v128_xor(x[d], x[a]));
        x[c] = u32x4_add(x[c], x[d]);
        x[b] = rotl::<7, 25>(v128_xor(x[b], x[c]));
    }

    let at = [0u64, 1, 2, 3].map(|j| counter.wrapping_add(j));
    let mut init = [u32x4_splat(0); 16];
    for (i, &c) in CONSTANTS.iter().enumerate() {
        init[i] = u32x4_splat(c);
    }
    for (i, &k) in key.iter().enumerate() {
        init[4 + i] = u32x4_splat(k);
    }
    init[12] = u32x4(at[0] as u32, at[1] as u32, at[2] as u32, at[3] as u32);
    init[13] = u32x4((at[0] >> 32) as u32, (at[1] >> 32) as u32, (at[2] >> 32) as u32, (at[3] >> 32) as u32);
    init[14] = u32x4_splat(stream as u32);
    init[15] = u32x4_splat((stream >> 32) as u32);
    let mut x = init;
    eight_rounds!(qr, &mut x);
    // Lane j of word i is word i of block j.
    for i in 0..16 {
        let v = u32x4_add(x[i], init[i]);
        out[i] = u32x4_extract_lane::<0>(v);
        out[16 + i] = u32x4_extract_lane::<1>(v);
        out[32 + i] = u32x4_extract_lane::<2>(v);
        out[48 + i] = u32x4_extract_lane::<3>(v);
    }
}

impl BlockRngCore for Core {
    type Item = u32;
    type Results = Blocks;

    fn generate(&mut self, results: &mut Blocks) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        blocks_simd(&self.key, self.counter, self.stream, &mut results.0);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        blocks(&self.key, self.counter, self.stream, &mut results.0);
        self.counter = self.counter.wrapping_add(4);
    }
}

impl SeedableRng for Core {
    type Seed = [u8; 32];

    fn from_seed(seed: [u8; 32]) -> Core {
        let mut key = [0u32; 8];
        for (k, bytes) in key.iter_mut().zip(seed.chunks_exact(4)) {
            *k = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        Core { key, counter: 0, stream: 0 }
    }
}

/// ChaCha8 with eight rounds, 64-bit counter and 64-bit stream, as
/// `rand_chacha::ChaCha8Rng`.
#[derive(Clone, Debug)]
pub struct ChaCha8Rng {
    rng: BlockRng<Core>,
}

impl ChaCha8Rng {
    /// Selects stream `stream` (rand_chacha's `set_stream`), on a generator
    /// that has not drawn yet: how the workload and the rules use it.
    pub fn set_stream(&mut self, stream: u64) {
        self.rng.core.stream = stream;
        self.rng.reset();
    }
}

impl SeedableRng for ChaCha8Rng {
    type Seed = [u8; 32];

    fn from_seed(seed: [u8; 32]) -> ChaCha8Rng {
        ChaCha8Rng { rng: BlockRng::new(Core::from_seed(seed)) }
    }
}

impl RngCore for ChaCha8Rng {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        self.rng.next_u32()
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.rng.fill_bytes(dest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_rand_chachas_draw_for_draw() {
        for (seed, stream) in [(0, 0), (16, 1), (16, 3), (7, 1_000 + 0x811c_9dc5), (u64::MAX, u64::MAX)] {
            let mut ours = ChaCha8Rng::seed_from_u64(seed);
            ours.set_stream(stream);
            let mut theirs = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            theirs.set_stream(stream);
            // Mixed widths cross block and buffer boundaries at odd words.
            for i in 0..2_000 {
                if i % 3 == 0 {
                    assert_eq!(ours.next_u32(), theirs.next_u32(), "seed {seed} stream {stream} draw {i}");
                } else {
                    assert_eq!(ours.next_u64(), theirs.next_u64(), "seed {seed} stream {stream} draw {i}");
                }
            }
        }
    }
}
