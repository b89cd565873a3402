//! Finagle's deterministic aperture in a run: each balancer copy sends
//! only to the servers its slice of the ring covers, the slices together
//! cover every server, edge servers get about their overlap's share, and
//! the report counts the connections the copies hold. Held to Finagle's
//! own tests (`ApertureTest.scala`, `RingTest.scala`), whose vectors
//! `tests/oracles/finagle_aperture_slices.txt` keeps with their names.

use std::collections::{BTreeMap, BTreeSet};

use lbsim_core::report::Connections;
use lbsim_core::{AlgorithmId, Prepared, Scenario};

fn oracle() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/oracles/finagle_aperture_slices.txt");
    std::fs::read_to_string(path).expect("tests/oracles/finagle_aperture_slices.txt")
}

fn aperture(servers: u32, copies: u32, aperture_size: u32, requests: u64) -> Scenario {
    Scenario {
        servers,
        balancers: copies,
        aperture_size,
        requests,
        algorithms: vec![AlgorithmId::Aperture],
        ..Scenario::default()
    }
}

/// Picks per server of each copy, from the run's attempt log.
fn picks_by_copy(scenario: &Scenario) -> BTreeMap<usize, BTreeMap<usize, u32>> {
    let prepared = Prepared::new(scenario).expect("valid");
    let mut picks: BTreeMap<usize, BTreeMap<usize, u32>> = BTreeMap::new();
    for attempt in prepared.attempt_log(AlgorithmId::Aperture) {
        *picks.entry(usize::from(attempt.copy)).or_default().entry(attempt.server as usize).or_default() += 1;
    }
    picks
}

/// The servers copy `i` of `c`'s slice covers, in whole numbers: the
/// slice is `u = min(c, ceil(a x c / n))` copy-widths from `i / c`, so in
/// units of `1 / (n x c)` it spans `[i n, (i + u) n)` and server `k`
/// spans `[k c, (k + 1) c)`, both round the ring of `n c` units.
fn slice(i: u64, c: u64, n: u64, aperture_size: u64) -> BTreeSet<usize> {
    let a = aperture_size.min(n);
    let u = c.min((a * c).div_ceil(n));
    let ring = n * c;
    let (begin, end) = (i * n, (i + u) * n);
    (0..n)
        .filter(|&k| {
            // Server k's span, shifted by whole turns to meet the slice.
            [0, ring].iter().any(|&turn| k * c + turn < end && (k + 1) * c + turn > begin)
        })
        .map(|k| k as usize)
        .collect()
}

#[test]
fn each_copy_sends_only_to_its_slice_as_finagles_tests_show() {
    let text = oracle();
    let mut held = 0;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let fields: BTreeMap<&str, &str> =
            line.split_whitespace().filter_map(|w| w.split_once('=')).collect();
        let number = |name: &str| -> u32 { fields[name].parse().expect(name) };
        let (copies, copy, servers) = (number("copies"), number("copy") as usize, number("servers"));
        let scenario = aperture(servers, copies, number("aperture"), 200_000);
        let picks = picks_by_copy(&scenario);
        let (first, last) = fields["picks"].split_once("..").expect("FIRST..LAST");
        let (first, last): (usize, usize) = (first.parse().expect("first"), last.parse().expect("last"));
        let want: BTreeSet<usize> = if first <= last {
            (first..=last).collect()
        } else {
            (first..servers as usize).chain(0..=last).collect()
        };
        let seen: BTreeSet<usize> = picks[&copy].keys().copied().collect();
        assert_eq!(seen, want, "{line}");
        let count = |s: &str| f64::from(picks[&copy][&s.parse::<usize>().expect("server")]);
        for ratio in fields["ratios"].split(',').filter(|r| !r.is_empty()) {
            let (pair, want) = ratio.split_once(':').expect("A/B:R");
            let (a, b) = pair.split_once('/').expect("A/B");
            let seen = count(a) / count(b);
            let want: f64 = want.parse().expect("R");
            assert!((seen - want).abs() <= 0.1, "{line}: s{a} over s{b} {seen:.3}, not {want} within 0.1");
        }
        held += 1;
    }
    assert_eq!(held, 3);
}

/// Every copy keeps to its slice, worked out in whole numbers here, and
/// the slices together cover every server: 100 servers and 16 copies at
/// the default aperture of 12, each slice two copy-widths (12.5 servers,
/// 13 or 14 of them); 10 and 4 with an aperture of 4, half the ring each.
#[test]
fn the_copies_keep_to_their_slices_and_cover_every_server() {
    for (servers, copies, aperture_size) in [(100u32, 16u32, 12u32), (10, 4, 4), (7, 3, 2)] {
        let picks = picks_by_copy(&aperture(servers, copies, aperture_size, 40_000));
        let mut union = BTreeSet::new();
        for i in 0..copies {
            let want = slice(u64::from(i), u64::from(copies), u64::from(servers), u64::from(aperture_size));
            let seen: BTreeSet<usize> = picks[&(i as usize)].keys().copied().collect();
            assert!(
                seen.is_subset(&want),
                "copy {i} of {copies} over {servers}: sent to {seen:?}, slice {want:?}"
            );
            union.extend(seen);
        }
        assert_eq!(union.len(), servers as usize, "{servers} servers, {copies} copies: the union {union:?}");
    }
}

/// The report's connections: each copy's slice, all copies' together and
/// a full mesh's, as the slices worked out in whole numbers give them;
/// no other rule reports any.
#[test]
fn the_report_counts_the_connections_each_copy_holds() {
    for (servers, copies, aperture_size) in [(100u32, 16u32, 12u32), (10, 4, 4), (10, 1, 12)] {
        let mut scenario = aperture(servers, copies, aperture_size, 2_000);
        scenario.algorithms = vec![AlgorithmId::PowerOfTwo, AlgorithmId::Aperture];
        let report = lbsim_core::run(&scenario).expect("valid");
        let sizes: Vec<u32> = (0..copies)
            .map(|i| {
                slice(u64::from(i), u64::from(copies), u64::from(servers), u64::from(aperture_size)).len()
                    as u32
            })
            .collect();
        let want = Connections {
            fewest: *sizes.iter().min().expect("a copy"),
            most: *sizes.iter().max().expect("a copy"),
            total: sizes.iter().map(|&n| u64::from(n)).sum(),
            full_mesh: u64::from(servers * copies),
        };
        assert_eq!(report.results[0].connections, None, "power of two holds a full mesh");
        assert_eq!(report.results[1].connections, Some(want), "{servers} servers, {copies} copies");
    }
}
