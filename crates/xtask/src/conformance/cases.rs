//! The cases: which rules, over which pools, the suite runs against the
//! real NGINX and HAProxy, and how each case's requests go. A new case is
//! one entry in a table here.

/// One comparison: a rule over a pool (the flags `lbsim config` and
/// `lbsim trace` both take), and how many requests, request i carrying the
/// key `?user=user-{i+1}` (the rule may ignore it), played as `play` says.
pub(super) struct Case {
    pub(super) name: &'static str,
    pub(super) weights: &'static [u32],
    pub(super) picks: usize,
    pub(super) flags: &'static [&'static str],
    pub(super) play: Play,
}

/// How a case's requests go.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Play {
    /// One at a time.
    Idle,
    /// As the steps of [`held_steps`](super::play::held_steps): held open
    /// at their backend and finished in a shuffled order, so the counting
    /// rules' choices while requests are in flight are compared.
    Held,
    /// One at a time at the times of [`timed_steps`](super::play::timed_steps),
    /// server `refuses` (0-based) refusing every connection (it is
    /// `REFUSING`, and the scenario's events crash it at 0 s): the passive
    /// checks' windows, on the balancer's own clock, and its retries are
    /// compared, attempt by attempt.
    Timed { refuses: usize },
}

/// A hashing case over user-1 .. user-2000.
const fn keys(name: &'static str, weights: &'static [u32], flags: &'static [&'static str]) -> Case {
    Case { name, weights, picks: 2000, flags, play: Play::Idle }
}

/// A case of `picks` requests one at a time.
const fn picks(
    name: &'static str,
    weights: &'static [u32],
    picks: usize,
    flags: &'static [&'static str],
) -> Case {
    Case { name, weights, picks, flags, play: Play::Idle }
}

/// A case of `picks` requests held open and finished out of order.
const fn held(
    name: &'static str,
    weights: &'static [u32],
    picks: usize,
    flags: &'static [&'static str],
) -> Case {
    Case { name, weights, picks, flags, play: Play::Held }
}

/// A case of `picks` requests one at a time, five a second, server
/// `refuses` refusing.
const fn timed(
    name: &'static str,
    weights: &'static [u32],
    refuses: usize,
    picks: usize,
    flags: &'static [&'static str],
) -> Case {
    Case { name, weights, picks, flags, play: Play::Timed { refuses } }
}

/// HAProxy's cases: `hash-type consistent` alone (sdbm with avalanche) and
/// with each of its key hashes named (no avalanche), weighted and not;
/// bounded loads one request at a time (the allowance never binds: the
/// home point is compared) and held (the allowance and the walk);
/// `leastconn` held, weighted and not; `balance roundrobin` for the
/// weightings NGINX's round robin is held to.
pub(super) const HAPROXY_CASES: &[Case] = &[
    keys(
        "hash-type consistent (sdbm, avalanche), 4 servers",
        &[1, 1, 1, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy"],
    ),
    keys(
        "hash-type consistent (sdbm, avalanche), 7 servers weighted 2,1,1,3,1,1,1",
        &[2, 1, 1, 3, 1, 1, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy"],
    ),
    keys(
        "hash-type consistent sdbm, 4 servers",
        &[1, 1, 1, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy", "--hash", "sdbm"],
    ),
    keys(
        "hash-type consistent djb2, 5 servers weighted 1,4,1,2,1",
        &[1, 4, 1, 2, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy", "--hash", "djb2"],
    ),
    keys(
        "hash-type consistent wt6, 5 servers",
        &[1, 1, 1, 1, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy", "--hash", "wt6"],
    ),
    keys(
        "hash-type consistent crc32, 6 servers weighted 3,1,1,1,2,1",
        &[3, 1, 1, 1, 2, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy", "--hash", "crc32"],
    ),
    keys(
        "hash-balance-factor 125, one request at a time, 4 servers",
        &[1, 1, 1, 1],
        &["--algorithm", "bounded-load", "--builder", "haproxy"],
    ),
    held(
        "hash-balance-factor 125, held, 4 servers",
        &[1, 1, 1, 1],
        300,
        &["--algorithm", "bounded-load", "--builder", "haproxy"],
    ),
    held(
        "hash-balance-factor 150, held, 5 servers weighted 2,1,1,3,1",
        &[2, 1, 1, 3, 1],
        300,
        &["--algorithm", "bounded-load", "--builder", "haproxy", "--balance-factor", "150"],
    ),
    held(
        "leastconn, held, 4 servers",
        &[1, 1, 1, 1],
        300,
        &["--algorithm", "least-connections", "--builder", "haproxy"],
    ),
    held(
        "leastconn, held, 4 servers weighted 3,1,2,1",
        &[3, 1, 2, 1],
        300,
        &["--algorithm", "least-connections", "--builder", "haproxy"],
    ),
    picks(
        "balance roundrobin 1,1,1,1",
        &[1, 1, 1, 1],
        40,
        &["--algorithm", "round-robin", "--builder", "haproxy"],
    ),
    picks(
        "balance roundrobin 5,1,1",
        &[5, 1, 1],
        70,
        &["--algorithm", "round-robin", "--builder", "haproxy"],
    ),
    picks(
        "balance roundrobin 3,2,1,1,4",
        &[3, 2, 1, 1, 4],
        110,
        &["--algorithm", "round-robin", "--builder", "haproxy"],
    ),
    picks(
        "balance roundrobin 7,3,2",
        &[7, 3, 2],
        120,
        &["--algorithm", "round-robin", "--builder", "haproxy"],
    ),
];

/// NGINX's cases: smooth weighted round robin (its default) for several
/// weightings, `hash $arg_user consistent` over four, five and seven
/// servers and `hash $arg_user` over four and five, with user-1 ..
/// user-2000 as keys (`lbsim trace` sends pick i to user i+1),
/// `least_conn` held, weighted and not, and passive checks (`max_fails`,
/// `fail_timeout`, the trial after it) with retries past a server that
/// refuses, over four seconds of NGINX's whole-second clock.
pub(super) const NGINX_CASES: &[Case] = &[
    picks("round robin 5,1,1", &[5, 1, 1], 70, &["--algorithm", "round-robin"]),
    picks("round robin 3,2,1,1,4", &[3, 2, 1, 1, 4], 110, &["--algorithm", "round-robin"]),
    picks("round robin 1,1,1,1", &[1, 1, 1, 1], 40, &["--algorithm", "round-robin"]),
    picks("round robin 7,3,2", &[7, 3, 2], 120, &["--algorithm", "round-robin"]),
    picks(
        "hash $arg_user consistent, 4 servers",
        &[1, 1, 1, 1],
        2000,
        &["--algorithm", "consistent-hash", "--builder", "nginx"],
    ),
    picks(
        "hash $arg_user consistent, 5 servers",
        &[1, 1, 1, 1, 1],
        2000,
        &["--algorithm", "consistent-hash", "--builder", "nginx"],
    ),
    picks(
        "hash $arg_user consistent, 7 servers weighted 2,1,1,3,1,1,1",
        &[2, 1, 1, 3, 1, 1, 1],
        2000,
        &["--algorithm", "consistent-hash", "--builder", "nginx"],
    ),
    keys("hash $arg_user, 4 servers", &[1, 1, 1, 1], &["--algorithm", "user-hash", "--builder", "nginx"]),
    keys(
        "hash $arg_user, 5 servers weighted 2,1,3,1,1",
        &[2, 1, 3, 1, 1],
        &["--algorithm", "user-hash", "--builder", "nginx"],
    ),
    held(
        "least_conn, held, 4 servers",
        &[1, 1, 1, 1],
        300,
        &["--algorithm", "least-connections", "--builder", "nginx"],
    ),
    held(
        "least_conn, held, 4 servers weighted 3,1,2,1",
        &[3, 1, 2, 1],
        300,
        &["--algorithm", "least-connections", "--builder", "nginx"],
    ),
    timed(
        "max_fails=1 fail_timeout=1s, one retry, s2 refuses, 3 servers",
        &[1, 1, 1],
        1,
        20,
        &["--algorithm", "round-robin", "--builder", "nginx", "--fail-timeout-ms", "1000", "--retries", "1"],
    ),
    timed(
        "max_fails=2 fail_timeout=1s, two retries, s1 refuses, 4 servers weighted 2,1,3,1",
        &[2, 1, 3, 1],
        0,
        20,
        &[
            "--algorithm",
            "round-robin",
            "--builder",
            "nginx",
            "--max-fails",
            "2",
            "--fail-timeout-ms",
            "1000",
            "--retries",
            "2",
        ],
    ),
];
