//! The hash functions the hashing rules can use, all over UTF-8 bytes with
//! seed 0. xxHash and CRC-32 come from their well-kept crates; FNV-1a is
//! four lines and is what the article's lab uses; sdbm, djb2 and wt6 are
//! HAProxy's own (`src/hash.c` of 2.6, written here as there: no crate
//! carries wt6, and the other two are a line each).

use alloc::vec::Vec;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

/// A hash function over bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HashFn {
    /// 32-bit FNV-1a (offset basis 0x811c9dc5, prime 0x01000193).
    Fnv1a32,
    /// 32-bit xxHash, seed 0.
    Xxh32,
    /// 64-bit xxHash, seed 0.
    Xxh64,
    /// CRC-32 (IEEE, as zlib).
    Crc32,
    /// sdbm, HAProxy's default for `hash-type`: `h = c + (h << 6) + (h <<
    /// 16) - h`.
    Sdbm,
    /// djb2: `h = h * 33 + c`, from 5381.
    Djb2,
    /// HAProxy's wt6 (Willy Tarreau's), rotations steered by the input.
    Wt6,
}

impl HashFn {
    /// The default of the rings and tables (consistent-hash, bounded-load,
    /// maglev, rendezvous) and of remapping experiments.
    pub const DEFAULT: HashFn = HashFn::Xxh64;

    /// Every hash function, in the order the page lists them.
    pub const ALL: [HashFn; 7] = [
        HashFn::Fnv1a32,
        HashFn::Xxh32,
        HashFn::Xxh64,
        HashFn::Crc32,
        HashFn::Sdbm,
        HashFn::Djb2,
        HashFn::Wt6,
    ];

    /// The key hashes HAProxy's `hash-type` offers.
    pub const HAPROXY: [HashFn; 4] = [HashFn::Sdbm, HashFn::Djb2, HashFn::Wt6, HashFn::Crc32];

    /// The id used in URLs, flags and JSON.
    pub fn id(self) -> &'static str {
        match self {
            HashFn::Fnv1a32 => "fnv1a32",
            HashFn::Xxh32 => "xxh32",
            HashFn::Xxh64 => "xxh64",
            HashFn::Crc32 => "crc32",
            HashFn::Sdbm => "sdbm",
            HashFn::Djb2 => "djb2",
            HashFn::Wt6 => "wt6",
        }
    }

    /// Width of the hash in bits.
    pub fn bits(self) -> u32 {
        match self {
            HashFn::Xxh64 => 64,
            _ => 32,
        }
    }

    /// Hashes `bytes`; 32-bit functions are zero-extended.
    pub fn hash(self, bytes: &[u8]) -> u64 {
        match self {
            HashFn::Fnv1a32 => u64::from(fnv1a32(bytes)),
            HashFn::Xxh32 => u64::from(xxhash_rust::xxh32::xxh32(bytes, 0)),
            HashFn::Xxh64 => xxhash_rust::xxh64::xxh64(bytes, 0),
            HashFn::Crc32 => u64::from(crc32(bytes)),
            HashFn::Sdbm => u64::from(sdbm(bytes)),
            HashFn::Djb2 => u64::from(djb2(bytes)),
            HashFn::Wt6 => u64::from(wt6(bytes)),
        }
    }
}

impl FromStr for HashFn {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        HashFn::ALL.into_iter().find(|h| h.id() == s).ok_or(())
    }
}

/// CRC-32 as zlib computes it (ISO HDLC: reflected, polynomial
/// 0x04C11DB7), one 1 KiB table. Keys are a few bytes, so a wider table
/// would buy no speed; crc32fast's sixteen tables were 16 KiB of the page's
/// gzipped bundle, incompressible.
const CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);

/// The CRC-32 of `bytes` (zlib's `crc32(0, bytes)`).
pub fn crc32(bytes: &[u8]) -> u32 {
    CRC32.checksum(bytes)
}

/// The CRC-32 of `bytes` continued from `register`, the raw state (before
/// the final inversion) that zlib's and NGINX's reflected code keeps.
/// NGINX's `chash` keeps the register after host, NUL and port
/// (`base_hash`) and continues it over each previous point, then
/// `ngx_crc32_final`: `crc32_from(!crc32(HOST \0 PORT), PREV)`.
pub fn crc32_from(register: u32, bytes: &[u8]) -> u32 {
    // The crate takes an initial value in the unreflected convention.
    let mut digest = CRC32.digest_with_initial(register.reverse_bits());
    digest.update(bytes);
    digest.finalize()
}

/// HAProxy's `hash_sdbm`.
pub fn sdbm(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0u32, |h, &c| u32::from(c).wrapping_add(h << 6).wrapping_add(h << 16).wrapping_sub(h))
}

/// HAProxy's `hash_djb2`.
pub fn djb2(bytes: &[u8]) -> u32 {
    bytes.iter().fold(5381u32, |h, &c| (h << 5).wrapping_add(h).wrapping_add(u32::from(c)))
}

/// HAProxy's `hash_wt6`.
pub fn wt6(bytes: &[u8]) -> u32 {
    let (mut h0, mut h1) = (0xa53c_965a_u32, 0x5ca6_953a_u32);
    let (mut step0, mut step1) = (6u32, 18u32);
    for &c in bytes {
        let t = u32::from(c);
        h0 = !(h0 ^ t);
        h1 = !(h1.wrapping_add(t));
        let t = h1.rotate_left(step0);
        h1 = h0.rotate_left(step1);
        h0 = t;
        let t = ((h0 >> 16) ^ h1) & 0xffff;
        step0 = t & 0x1f;
        step1 = t >> 11;
    }
    h0 ^ h1
}

/// HAProxy's `full_hash` (one of Bob Jenkins' full-avalanche integer
/// hashes, then a multiply by a prime near 3/4 of 2^32 "so values spread
/// all around the tree"): the node keys of its consistent-hash tree, and
/// `avalanche`.
pub fn full_hash(a: u32) -> u32 {
    let a = a.wrapping_add(0x7ed5_5d16).wrapping_add(a << 12);
    let a = (a ^ 0xc761_c23c) ^ (a >> 19);
    let a = a.wrapping_add(0x1656_67b1).wrapping_add(a << 5);
    let a = a.wrapping_add(0xd3a2_646c) ^ (a << 9);
    let a = a.wrapping_add(0xfd70_46c5).wrapping_add(a << 3);
    ((a ^ 0xb55a_4f09) ^ (a >> 16)).wrapping_mul(3_221_225_473)
}

/// 32-bit FNV-1a.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// Bytes a [`KeyBuf`] holds on the stack: every key the simulator itself
/// makes (`user-{id}`, `{name}#{i}`, `{name}#skip`) fits. A longer key (a
/// remapping pattern with many `{i}`, plus `#` and a node name) moves to
/// the heap and is still hashed whole: no result depends on this size.
pub const KEY_BYTES: usize = 128;

/// A key such as `user-42` or `s1#7`, written into a stack buffer so the
/// hot path hashes without allocating; past [`KEY_BYTES`] it spills to the
/// heap rather than losing bytes.
pub struct KeyBuf {
    bytes: [u8; KEY_BYTES],
    len: usize,
    /// The whole key once it outgrew `bytes` (empty until then).
    spilled: Vec<u8>,
}

impl KeyBuf {
    /// `prefix` followed by the decimal digits of `n`.
    pub fn new(prefix: &str, n: u64) -> KeyBuf {
        let mut key = KeyBuf::text(prefix);
        key.push_u64(n);
        key
    }

    /// Just `text`.
    pub fn text(text: &str) -> KeyBuf {
        let mut key = KeyBuf { bytes: [0; KEY_BYTES], len: 0, spilled: Vec::new() };
        key.push_str(text);
        key
    }

    /// Appends text.
    pub fn push_str(&mut self, s: &str) {
        self.push_bytes(s.as_bytes());
    }

    /// Appends bytes, moving the key to the heap when it outgrows the stack.
    pub fn push_bytes(&mut self, b: &[u8]) {
        if self.spilled.is_empty() && self.len + b.len() <= KEY_BYTES {
            self.bytes[self.len..self.len + b.len()].copy_from_slice(b);
            self.len += b.len();
            return;
        }
        if self.spilled.is_empty() {
            self.spilled.extend_from_slice(&self.bytes[..self.len]);
        }
        self.spilled.extend_from_slice(b);
    }

    /// Keeps the first `len` bytes (all of them if there are fewer).
    pub fn truncate(&mut self, len: usize) {
        if self.spilled.is_empty() {
            self.len = self.len.min(len);
        } else {
            self.spilled.truncate(len);
        }
    }

    /// Appends the decimal digits of `n`.
    pub fn push_u64(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.push_bytes(&digits[i..]);
    }

    /// The key's bytes, all of them.
    pub fn as_bytes(&self) -> &[u8] {
        if self.spilled.is_empty() {
            &self.bytes[..self.len]
        } else {
            &self.spilled
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_of_foo_is_the_public_vector() {
        assert_eq!(HashFn::Crc32.hash(b"foo"), 2_356_372_769);
    }

    #[test]
    fn crc32_matches_the_check_value_and_crc32fast() {
        // The catalogue's check value for CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        // crc32fast (the crate used before, a dev-dependency now) on keys
        // of every length up to 40, whole and continued from a register.
        let bytes: Vec<u8> = (0..40u32).map(|i| (i * 37 + 11) as u8).collect();
        for len in 0..=bytes.len() {
            let key = &bytes[..len];
            assert_eq!(crc32(key), crc32fast::hash(key), "length {len}");
            let base = crc32fast::hash(&bytes[len..]);
            let mut fast = crc32fast::Hasher::new_with_initial(!base);
            fast.update(key);
            assert_eq!(crc32_from(base, key), fast.finalize(), "length {len}");
        }
    }

    #[test]
    fn fnv1a32_matches_the_reference_vectors() {
        // From the FNV reference test suite (isthe.com/chongo/tech/comp/fnv).
        assert_eq!(fnv1a32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a32(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn xxhash_matches_the_reference_vectors() {
        // xxHash's published values for the empty input, seed 0.
        assert_eq!(HashFn::Xxh32.hash(b""), 0x02cc_5d05);
        assert_eq!(HashFn::Xxh64.hash(b""), 0xef46_db37_51d8_e999);
    }

    #[test]
    fn key_buffer_writes_decimal_keys() {
        assert_eq!(KeyBuf::new("user-", 0).as_bytes(), b"user-0");
        assert_eq!(KeyBuf::new("user-", 2000).as_bytes(), b"user-2000");
        let mut k = KeyBuf::text("");
        k.push_str("s1#");
        k.push_u64(u64::MAX);
        assert_eq!(k.as_bytes(), b"s1#18446744073709551615");
    }

    #[test]
    fn keys_longer_than_the_stack_buffer_are_kept_whole() {
        let long = "k".repeat(KEY_BYTES - 2);
        let mut k = KeyBuf::text(&long);
        k.push_str("#s1");
        k.push_u64(42);
        let want = alloc::format!("{long}#s142");
        assert_eq!(k.as_bytes(), want.as_bytes());
        for hash in HashFn::ALL {
            assert_eq!(hash.hash(k.as_bytes()), hash.hash(want.as_bytes()), "{}", hash.id());
        }
    }

    #[test]
    fn truncating_keeps_a_prefix_on_the_stack_or_the_heap() {
        for stem in ["s1#", &"k".repeat(KEY_BYTES + 5)] {
            let mut k = KeyBuf::text(stem);
            k.push_str("first");
            k.truncate(stem.len());
            k.push_str("second");
            assert_eq!(k.as_bytes(), alloc::format!("{stem}second").as_bytes());
        }
    }
}
