//! Whose construction the rules follow (`builder=`): lbsim's own, or a
//! real balancer's, so a reader can predict what their deployment does.
//! A builder applies to the rules it has (`Builder::follows`, beside the
//! rules' registry); the others keep lbsim's construction, and every front
//! end says so.
//!
//! - `lbsim` (the default): ring point `i` of server `name` at
//!   `hash("{name}#{i}")`, `vnodes` points per weight unit, with the
//!   scenario's hash function (xxh64 unless set).
//! - `nginx` (1.22): `hash $key consistent` (`ngx_http_upstream_init_chash`):
//!   160 points per weight unit; a server's `address` splits into host and
//!   port (the digits after the last `:`; none otherwise), and its points
//!   are `crc32(HOST \0 PORT PREV)`, `PREV` the previous point's four
//!   bytes, little-endian (0 for the first); equal points are kept once; a
//!   key goes to the first point at or after `crc32(key)`, wrapping.
//!   `hash $key` (user-hash): `((crc32([TRY] KEY) >> 16) & 0x7fff)` added
//!   to the previous hash, modulo the total weight (`user_hash.rs`).
//!   Smooth weighted round robin is NGINX's in every builder.
//! - `haproxy` (2.6): `hash-type consistent` (`lb_chash.c`): server `k`
//!   (its id, 1 for the first `server` line) has `16 x weight` points
//!   `full_hash(k x 4096 + j)`; the key's hash is the scenario's when it is
//!   one of HAProxy's (sdbm, djb2, wt6, crc32: `hash-type consistent
//!   FUNCTION`), else HAProxy's default for `hash-type consistent` alone,
//!   sdbm then `full_hash` (its `avalanche`); a key
//!   goes to the nearer of the points around it, the previous one on a
//!   tie (`chash_get_server_hash`). Bounded loads walk on from there.
//! - `envoy`: Maglev's permutations as Envoy's `MaglevTable` takes them
//!   (`maglev.rs`); ring hash as `RingHashLoadBalancer::Ring` builds it:
//!   weights normalized to shares, `scale = min(ceil(least share x
//!   1024) / least share, 8M)`, server after server `xxHash64("{address}_{i}")`
//!   while the running count of points is below the running target
//!   (`scale x share` summed), sorted; a key (`xxHash64(key)`) goes to the
//!   first point at or after it, wrapping.
//! - `ketama`: libketama's continuum: each server gets `floor(weight /
//!   total x 40 x N)` MD5 digests of `"{name}-{k}"`, four points from each
//!   (bytes `4h..4h+3`, little-endian); a key goes to the first point at or
//!   after the first four bytes of `md5(key)`, little-endian.
//!
//! `nginx`, `haproxy` and `ketama` rings bring their own points per weight,
//! in place of `vnodes`; `nginx` and `ketama` their own key hash.

use alloc::vec::Vec;
use core::str::FromStr;

use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use crate::hash::{HashFn, KeyBuf};

/// Envoy's ring hash `minimum_ring_size` and `maximum_ring_size` defaults.
pub const ENVOY_MIN_RING: u64 = 1024;
const ENVOY_MAX_RING: u64 = 8 * 1024 * 1024;

/// HAProxy's points per unit of weight (`BE_WEIGHT_SCALE`).
const HAPROXY_WEIGHT_SCALE: u64 = 16;
/// HAProxy's node-key stride per server id (`SRV_EWGHT_RANGE`), and so
/// its largest weight (256) times its scale.
const HAPROXY_ID_STRIDE: u32 = 4096;

/// Whose construction the rules follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Builder {
    /// `hash("{name}#{i}")`, `vnodes` per weight unit, the scenario's hash.
    #[default]
    Lbsim,
    /// NGINX 1.22's: `hash $key consistent` (`crc32(HOST \0 PORT PREV)`,
    /// 160 per weight unit), `hash $key`, smooth weighted round robin.
    Nginx,
    /// HAProxy 2.6's `hash-type consistent`: consistent-hash and
    /// bounded-load on its ring of server ids.
    Haproxy,
    /// Envoy's ring hash, Maglev table, round robin and least request
    /// (one earliest-deadline-first schedule), outlier detection.
    Envoy,
    /// libketama: MD5, four points per digest, 160 per server on average.
    Ketama,
}

impl Builder {
    /// Every builder, in the order the page lists them.
    pub const ALL: [Builder; 5] =
        [Builder::Lbsim, Builder::Nginx, Builder::Haproxy, Builder::Envoy, Builder::Ketama];

    /// The id used in URLs, flags and JSON.
    pub fn id(self) -> &'static str {
        match self {
            Builder::Lbsim => "lbsim",
            Builder::Nginx => "nginx",
            Builder::Haproxy => "haproxy",
            Builder::Envoy => "envoy",
            Builder::Ketama => "ketama",
        }
    }

    /// Its name in prose ("as HAProxy 2.6 builds them").
    pub fn name(self) -> &'static str {
        match self {
            Builder::Lbsim => "lbsim",
            Builder::Nginx => "NGINX 1.22",
            Builder::Haproxy => "HAProxy 2.6",
            Builder::Envoy => "Envoy",
            Builder::Ketama => "libketama",
        }
    }

    /// Whether its rings bring their own points per weight (so `vnodes`
    /// does not apply).
    pub fn owns_points(self) -> bool {
        matches!(self, Builder::Nginx | Builder::Haproxy | Builder::Envoy | Builder::Ketama)
    }

    /// Whether its ring sends a key to the nearer of the two points around
    /// it (HAProxy), not the first at or after it.
    pub fn nearest_point(self) -> bool {
        self == Builder::Haproxy
    }

    /// Whether a value is the default (JSON leaves it out).
    pub fn is_default(&self) -> bool {
        *self == Builder::Lbsim
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
            Builder::Envoy => return (envoy_ring(names, weights, ENVOY_MIN_RING), 64),
            Builder::Lbsim => {
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
            Builder::Nginx => {
                for (server, (name, &weight)) in names.iter().zip(weights).enumerate() {
                    // `crc32(HOST \0 PORT PREV_HASH)`: the register after
                    // host, a NUL byte and port, continued over the
                    // previous point's four bytes (little-endian).
                    let (host, port) = nginx_host_port(name.as_ref());
                    let mut base = KeyBuf::text(host);
                    base.push_str("\0");
                    base.push_str(port);
                    let register = !crate::hash::crc32(base.as_bytes());
                    let mut previous = 0u32;
                    for _ in 0..160 * u64::from(weight) {
                        previous = crate::hash::crc32_from(register, &previous.to_le_bytes());
                        points.push((u64::from(previous), server as u32));
                    }
                }
                crate::sort::by_key(&mut points);
                points.dedup_by_key(|p| p.0);
            }
            Builder::Haproxy => {
                for (server, &weight) in weights.iter().enumerate() {
                    // Server ids count from 1 in `server` line order; a
                    // weight is at most 256 there (`lbsim config` caps it).
                    let base = (server as u32 + 1).wrapping_mul(HAPROXY_ID_STRIDE);
                    for j in 0..HAPROXY_WEIGHT_SCALE * u64::from(weight.min(256)) {
                        let point = crate::hash::full_hash(base.wrapping_add(j as u32));
                        points.push((u64::from(point), server as u32));
                    }
                }
                crate::sort::by_key(&mut points);
            }
            Builder::Ketama => {
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

    /// The hash of a key on this builder's ring (`lbsim`: the scenario's
    /// hash function; `haproxy`: it when HAProxy offers it, else sdbm with
    /// avalanche).
    pub fn key_hash(self, key: &[u8], hash: HashFn) -> u64 {
        match self {
            Builder::Lbsim => hash.hash(key),
            // The route's hash policy: xxHash64 of the header or argument.
            Builder::Envoy => HashFn::Xxh64.hash(key),
            Builder::Haproxy if HashFn::HAPROXY.contains(&hash) => hash.hash(key),
            // `hash-type consistent` with no function: sdbm, then avalanche.
            Builder::Haproxy => u64::from(crate::hash::full_hash(crate::hash::sdbm(key))),
            Builder::Nginx => u64::from(crate::hash::crc32(key)),
            Builder::Ketama => {
                let digest = Md5::digest(key);
                u64::from(u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]]))
            }
        }
    }
}

/// Envoy's ring (`RingHashLoadBalancer::Ring`) of servers named by their
/// addresses with `weights`, at least `min_ring_size` points: (hash,
/// server), sorted.
pub fn envoy_ring<S: AsRef<str>>(names: &[S], weights: &[u32], min_ring_size: u64) -> Vec<(u64, u32)> {
    let total: f64 = weights.iter().map(|&w| f64::from(w)).sum();
    let mut points = Vec::new();
    if total <= 0.0 {
        return points;
    }
    let least =
        weights.iter().filter(|&&w| w > 0).map(|&w| f64::from(w) / total).fold(f64::INFINITY, f64::min);
    let scale = (libm::ceil(least * min_ring_size as f64) / least).min(ENVOY_MAX_RING as f64);
    // Running sums over the whole pool, as Envoy keeps them, so shares that
    // are no whole number of points still add up to the ring's size.
    let (mut current, mut target) = (0.0f64, 0.0f64);
    for (server, (name, &weight)) in names.iter().zip(weights).enumerate() {
        target += scale * (f64::from(weight) / total);
        let mut key = KeyBuf::text(name.as_ref());
        key.push_str("_");
        let prefix = key.as_bytes().len();
        let mut i = 0u64;
        while current < target {
            key.truncate(prefix);
            key.push_u64(i);
            points.push((HashFn::Xxh64.hash(key.as_bytes()), server as u32));
            i += 1;
            current += 1.0;
        }
    }
    crate::sort::by_key(&mut points);
    points
}

/// A server's host and port as NGINX's `chash` splits the `server`
/// directive's address: the digits after the last `:` are the port (none
/// when anything else follows it, or there is no `:`).
fn nginx_host_port(name: &str) -> (&str, &str) {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let cut = name.len() - digits;
    match name[..cut].strip_suffix(':') {
        Some(host) => (host, &name[cut..]),
        None => (name, ""),
    }
}

impl FromStr for Builder {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Builder::ALL.into_iter().find(|p| p.id() == s).ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balancer::consistent_hash::Ring;

    fn owners(placement: Builder, names: &[&str], weights: &[u32]) -> Vec<usize> {
        let ring = Ring::placed(placement, names, weights, 160, HashFn::DEFAULT);
        (1..=20)
            .map(|i| {
                let key = alloc::format!("user-{i}");
                ring.owner(placement.key_hash(key.as_bytes(), HashFn::DEFAULT))
            })
            .collect()
    }

    // The `nginx` ring is held to the real NGINX by `cargo xtask
    // conformance` and to the repository's `tests/oracles/nginx_chash.py`
    // by `tests/behaviour/nginx_ring_matches_the_oracle.rs`. The `ketama`
    // vectors are regression vectors captured from this code; they agree with a
    // re-derivation from libketama's `ketama_create_continuum` in Python's
    // hashlib, which is our reading of libketama, not libketama.
    const CONFIG: [&str; 3] = ["10.0.0.1:8080", "10.0.0.2:8080", "10.0.0.3:80"];

    /// The first points of NGINX 1.22's ring for this pool, as the oracle
    /// `tests/oracles/nginx_chash.py` computes them from NGINX's source (a
    /// running NGINX does not expose its ring; the real program holds the
    /// ring request by request in `cargo xtask conformance`).
    #[test]
    fn nginx_ring_begins_where_nginx_does() {
        let (points, bits) = Builder::Nginx.points(&CONFIG, &[1, 2, 1], 0, HashFn::DEFAULT);
        assert_eq!((points.len(), bits), (640, 32));
        assert_eq!(&points[..3], &[(10_773_370, 1), (18_170_467, 0), (26_718_565, 2)]);
    }

    /// NGINX's split: the digits after the last `:` are the port.
    #[test]
    fn nginx_splits_a_port_only_of_digits() {
        assert_eq!(nginx_host_port("10.0.0.3:80"), ("10.0.0.3", "80"));
        assert_eq!(nginx_host_port("backend"), ("backend", ""));
        assert_eq!(nginx_host_port("s1"), ("s1", ""));
        assert_eq!(nginx_host_port("host:8x"), ("host:8x", ""));
        assert_eq!(nginx_host_port("host:"), ("host", ""));
        assert_eq!(nginx_host_port("a:b:9"), ("a:b", "9"));
        // A `:80` is hashed as written.
        let with = Builder::Nginx.points(&["10.0.0.3:80"], &[1], 0, HashFn::DEFAULT);
        let without = Builder::Nginx.points(&["10.0.0.3"], &[1], 0, HashFn::DEFAULT);
        assert_ne!(with, without);
    }

    #[test]
    fn ketama_regression_vectors() {
        let (points, bits) = Builder::Ketama.points(&CONFIG, &[1, 2, 1], 0, HashFn::DEFAULT);
        assert_eq!((points.len(), bits), (480, 32), "40 x 3 x weight share digests, four points each");
        assert_eq!(&points[..3], &[(6_779_088, 1), (12_113_315, 1), (16_255_930, 1)]);
        assert_eq!(
            owners(Builder::Ketama, &CONFIG, &[1, 2, 1]),
            [2, 1, 0, 2, 1, 1, 0, 2, 1, 0, 0, 0, 2, 0, 2, 1, 2, 2, 1, 2]
        );
        assert_eq!(
            owners(Builder::Ketama, &["s1", "s2", "s3", "s4"], &[1; 4]),
            [1, 1, 2, 3, 1, 1, 1, 3, 1, 1, 2, 2, 3, 1, 3, 0, 1, 2, 1, 0]
        );
    }
}
