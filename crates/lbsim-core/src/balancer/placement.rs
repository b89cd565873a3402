//! Where a ring puts its points, and how it hashes a key (`ring=`): so a
//! reader can predict the ring of a real deployment.
//!
//! - `lbsim` (the default): point `i` of server `name` at
//!   `hash("{name}#{i}")`, `vnodes` points per weight unit, with the
//!   scenario's hash function (xxh64 unless set).
//! - `nginx`: modelled on NGINX's `hash $key consistent` and known to
//!   differ from it (below): 160 points per weight unit, chained CRC-32s
//!   of the server's `host:port` (a `:80` suffix dropped): the first point
//!   is `crc32` continued from `crc32(server)` over four zero bytes, each
//!   next one over the previous point's four bytes (little-endian); equal
//!   points are kept once; a key goes to the first point at or after
//!   `crc32(key)`.
//!
//!   **Known to differ from NGINX 1.22.** NGINX's
//!   `ngx_http_upstream_init_chash` (moved to
//!   `ngx_http_upstream_update_chash` in later versions) in
//!   `src/http/modules/ngx_http_upstream_hash_module.c` (`release-1.22.1`,
//!   lines 362-374) seeds the points with host, a NUL byte and port, and
//!   continues from the running register, not the finished CRC:
//!
//!   ```c
//!   ngx_crc32_init(base_hash);
//!   ngx_crc32_update(&base_hash, host, host_len);
//!   ngx_crc32_update(&base_hash, (u_char *) "", 1);
//!   ngx_crc32_update(&base_hash, port, port_len);
//!
//!   prev_hash.value = 0;
//!   npoints = peer->weight * 160;
//!
//!   for (j = 0; j < npoints; j++) {
//!       hash = base_hash;
//!
//!       ngx_crc32_update(&hash, prev_hash.byte, 4);
//!       ngx_crc32_final(hash);
//!   ```
//!
//!   and has no `:80` rule (the port is whatever digits follow the last
//!   `:`). Ours instead continues from the finished `crc32("host:port")`
//!   used as the register. For the pool of the tests below NGINX's first
//!   points are (10773370, 1), (18170467, 0), (26718565, 2), ours
//!   (3086562, 1), (18399098, 1), (24216650, 2); the two rings share no
//!   point and agree on the owners of 10 of user-1..20.
//!   The repository's `tests/oracles/nginx_chash.py` follows NGINX's
//!   source, and this crate's `tests/nginx_ring_known_difference.rs` holds
//!   the difference against its output. The
//!   construction stays as it is until it is held to the real NGINX
//!   binary (SPEC section 14): its numbers do not move here.
//! - `ketama`: libketama's continuum: each server gets `floor(weight /
//!   total x 40 x N)` MD5 digests of `"{name}-{k}"`, four points from each
//!   (bytes `4h..4h+3`, little-endian); a key goes to the first point at or
//!   after the first four bytes of `md5(key)`, little-endian.
//!
//! `nginx` and `ketama` use their own hash and points per weight, in place
//! of `hash` and `vnodes`.

use alloc::vec::Vec;
use core::str::FromStr;

use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use crate::hash::{HashFn, KeyBuf};

/// How a ring is placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// `hash("{name}#{i}")`, `vnodes` per weight unit, the scenario's hash.
    #[default]
    Lbsim,
    /// Modelled on NGINX `hash $key consistent`: chained CRC-32, 160 per
    /// weight unit; its points differ from NGINX 1.22's (module doc).
    Nginx,
    /// libketama: MD5, four points per digest, 160 per server on average.
    Ketama,
}

impl Placement {
    /// Every placement, in the order the page lists them.
    pub const ALL: [Placement; 3] = [Placement::Lbsim, Placement::Nginx, Placement::Ketama];

    /// The id used in URLs, flags and JSON.
    pub fn id(self) -> &'static str {
        match self {
            Placement::Lbsim => "lbsim",
            Placement::Nginx => "nginx",
            Placement::Ketama => "ketama",
        }
    }

    /// Whether a value is the default (JSON leaves it out).
    pub fn is_default(&self) -> bool {
        *self == Placement::Lbsim
    }

    /// The ring's points (hash, server index), sorted, and the width of
    /// its hash in bits. `hash` and `vnodes` apply to `lbsim` only.
    pub fn points<S: AsRef<str>>(
        self,
        names: &[S],
        weights: &[u32],
        vnodes: u32,
        hash: HashFn,
    ) -> (Vec<(u64, u32)>, u32) {
        let mut points = Vec::new();
        match self {
            Placement::Lbsim => {
                for (server, (name, &weight)) in names.iter().zip(weights).enumerate() {
                    // `{name}#` once, then only the digits change.
                    let mut key = KeyBuf::text(name.as_ref());
                    key.push_str("#");
                    let prefix = key.as_bytes().len();
                    for i in 0..u64::from(vnodes) * u64::from(weight) {
                        key.truncate(prefix);
                        key.push_u64(i);
                        points.push((hash.hash(key.as_bytes()), server as u32));
                    }
                }
                crate::sort::by_key(&mut points);
                return (points, hash.bits());
            }
            Placement::Nginx => {
                for (server, (name, &weight)) in names.iter().zip(weights).enumerate() {
                    let name = name.as_ref();
                    let host = match name.len().checked_sub(3) {
                        Some(cut) if name.len() >= 5 && name[cut..].eq_ignore_ascii_case(":80") => {
                            &name[..cut]
                        }
                        _ => name,
                    };
                    let base = crate::hash::crc32(host.as_bytes());
                    let mut previous = 0u32;
                    for _ in 0..160 * u64::from(weight) {
                        // NGINX continues the CRC from the finished base
                        // value as if it were the running state.
                        previous = crate::hash::crc32_from(base, &previous.to_le_bytes());
                        points.push((u64::from(previous), server as u32));
                    }
                }
                crate::sort::by_key(&mut points);
                points.dedup_by_key(|p| p.0);
            }
            Placement::Ketama => {
                let total: u32 = weights.iter().sum();
                let n = names.len() as f64;
                for (server, (name, &weight)) in names.iter().zip(weights).enumerate() {
                    // libketama: `floorf(pct * 40.0 * numservers)`, pct a float.
                    let pct = weight as f32 / total.max(1) as f32;
                    let digests = libm::floorf((f64::from(pct) * 40.0 * n) as f32) as u64;
                    for k in 0..digests {
                        let mut key = KeyBuf::text(name.as_ref());
                        key.push_str("-");
                        key.push_u64(k);
                        let digest = Md5::digest(key.as_bytes());
                        for quarter in digest.chunks_exact(4) {
                            let point = u32::from_le_bytes([quarter[0], quarter[1], quarter[2], quarter[3]]);
                            points.push((u64::from(point), server as u32));
                        }
                    }
                }
                crate::sort::by_key(&mut points);
            }
        }
        (points, 32)
    }

    /// The hash of a key on this placement's ring (`lbsim`: the scenario's
    /// hash function).
    pub fn key_hash(self, key: &[u8], hash: HashFn) -> u64 {
        match self {
            Placement::Lbsim => hash.hash(key),
            Placement::Nginx => u64::from(crate::hash::crc32(key)),
            Placement::Ketama => {
                let digest = Md5::digest(key);
                u64::from(u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]]))
            }
        }
    }
}

impl FromStr for Placement {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Placement::ALL.into_iter().find(|p| p.id() == s).ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balancer::consistent_hash::Ring;

    fn owners(placement: Placement, names: &[&str], weights: &[u32]) -> Vec<usize> {
        let ring = Ring::placed(placement, names, weights, 160, HashFn::DEFAULT);
        (1..=20)
            .map(|i| {
                let key = alloc::format!("user-{i}");
                ring.owner(placement.key_hash(key.as_bytes(), HashFn::DEFAULT))
            })
            .collect()
    }

    // Regression vectors: point counts, the first points and the owners of
    // user-1..user-20, captured from this code. They are not an outside
    // reference. The `nginx` ones are not NGINX's (see the module doc and
    // `tests/nginx_ring_known_difference.rs`, which holds them against the
    // repository's `tests/oracles/nginx_chash.py`); the `ketama` ones agree with a
    // re-derivation from libketama's `ketama_create_continuum` in Python's
    // hashlib, which is our reading of libketama, not libketama.
    const CONFIG: [&str; 3] = ["10.0.0.1:8080", "10.0.0.2:8080", "10.0.0.3:80"];

    #[test]
    fn nginx_ring_regression_vectors() {
        let (points, bits) = Placement::Nginx.points(&CONFIG, &[1, 2, 1], 0, HashFn::DEFAULT);
        assert_eq!((points.len(), bits), (640, 32));
        assert_eq!(&points[..3], &[(3_086_562, 1), (18_399_098, 1), (24_216_650, 2)]);
        assert_eq!(
            owners(Placement::Nginx, &CONFIG, &[1, 2, 1]),
            [0, 0, 1, 1, 2, 0, 0, 1, 2, 2, 2, 1, 0, 0, 1, 1, 1, 1, 0, 1]
        );
        assert_eq!(
            owners(Placement::Nginx, &["s1", "s2", "s3", "s4"], &[1; 4]),
            [0, 3, 1, 1, 0, 3, 2, 0, 1, 3, 1, 2, 3, 3, 1, 0, 1, 0, 2, 0]
        );
    }

    #[test]
    fn ketama_regression_vectors() {
        let (points, bits) = Placement::Ketama.points(&CONFIG, &[1, 2, 1], 0, HashFn::DEFAULT);
        assert_eq!((points.len(), bits), (480, 32), "40 x 3 x weight share digests, four points each");
        assert_eq!(&points[..3], &[(6_779_088, 1), (12_113_315, 1), (16_255_930, 1)]);
        assert_eq!(
            owners(Placement::Ketama, &CONFIG, &[1, 2, 1]),
            [2, 1, 0, 2, 1, 1, 0, 2, 1, 0, 0, 0, 2, 0, 2, 1, 2, 2, 1, 2]
        );
        assert_eq!(
            owners(Placement::Ketama, &["s1", "s2", "s3", "s4"], &[1; 4]),
            [1, 1, 2, 3, 1, 1, 1, 3, 1, 1, 2, 2, 3, 1, 3, 0, 1, 2, 1, 0]
        );
    }

    /// Our rule, not NGINX's: NGINX hashes `10.0.0.3:80` with its port.
    #[test]
    fn our_nginx_ring_drops_a_port_80_suffix_which_nginx_does_not() {
        let with = Placement::Nginx.points(&["10.0.0.3:80"], &[1], 0, HashFn::DEFAULT);
        let without = Placement::Nginx.points(&["10.0.0.3"], &[1], 0, HashFn::DEFAULT);
        assert_eq!(with, without);
    }
}
