//! Old numbers stay: a regression net, not a reference. The fingerprints in
//! `golden/reports.txt` are xxh64 of each whole JSON report, captured from
//! the code as it was: they say a change moved numbers, never that the
//! numbers are right (the behaviour tests say that). The base model's
//! lines (the first presets and the six static links) were captured from
//! main before the engine learned about events; the
//! fleet, cache and layer 4 lines were captured later, from the code of
//! their time, so they hold those mechanisms to what they did then.
//!
//! Every preset has a line (`scale-out`, a remapping lesson, fingerprints
//! its remapping experiment, not the `mixed` run it shares), and so does a
//! scenario for each mechanism of the fleet (every event kind, retries,
//! passive and active checks, 5xx counting, outlier ejection, warm-up,
//! slow start, error and connect times), of caches, of layer 4
//! connections and of the load reports weights are learned from. No two lines are the same scenario or the same report.
//! `LBSIM_BLESS=1` rewrites the file (only when numbers may move); unset,
//! empty or `0` checks it, and any other value fails, so a stray setting
//! neither rewrites it nor passes unseen.

use lbsim_core::presets::PRESETS;
use lbsim_core::remap::{compare, Remap};
use lbsim_core::{run, Scenario};

/// A scenario for the run, or a remapping experiment.
enum Golden {
    Run(Box<Scenario>),
    Remap(Remap),
}

/// Links over a 6,000-request base (about 17 s of arrivals), each with the
/// mechanism it is here for.
const LINKS: &[&str] = &[
    // The base model.
    "v=1&balancers=3",
    "v=1&weights=1,2,3,4&speeds=1,0.5,2,1",
    "v=1&work=lognormal&sigma=1.5&zipf=0.5&servers=7",
    "v=1&work=exponential&load=0.9&balancers=4&hash=crc32",
    "v=1&servers=16&slots=2&users=50&names=a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p",
    "v=1&work=constant&rate=500&vnodes=40&balance-factor=150",
    // Ring placements.
    "v=1&ring=nginx&names=10.0.0.1:8080,10.0.0.2:8080,10.0.0.3:80,10.0.0.4:8080&weights=1,2,1,1",
    "v=1&ring=ketama&servers=6",
    // The fleet: a black hole with 5xx counting and passive checks.
    "v=1&events=4s:s3:fail&count-5xx=1&max-fails=2&fail-timeout-ms=3000",
    // A crash and recovery, retries, connect time, active TCP checks.
    "v=1&events=4s:s2:crash,10s:s2:recover&retries=2&connect-ms=5&max-fails=0&check-ms=1000&fall=2&rise=3",
    // Active HTTP checks catch a black hole; error time.
    "v=1&events=4s:s1:fail,12s:s1:recover&check-ms=500&check=http&max-fails=0&error-ms=3",
    // Outlier ejection over three copies (passive checks off).
    "v=1&events=3s:s4:fail&outlier-5xx=3&ejection-ms=2000&max-ejection=50&balancers=3&max-fails=0",
    // A join and a leave, warm-up and slow start.
    "v=1&servers=5&events=4s:s5:join,9s:s2:leave&warmup-ms=4000&cold-speed=0.1&slow-start-ms=5000&slow-start-aggression=2",
    // A slow server with weights, two copies; slow start after a crash.
    "v=1&events=3s:s2:slow=0.2,6s:s3:crash,9s:s2:recover,10s:s3:recover&weights=1,3,1,2&balancers=2&slow-start-ms=3000&check-ms=500",
    // Caches on a fixed pool.
    "v=1&cache-keys=200&hit-cost=0.1&load=1.2",
    // Caches: a join starts cold, a crash empties one.
    "v=1&cache-keys=200&servers=5&events=5s:s5:join,8s:s2:crash,11s:s2:recover&load=1.2",
    // Layer 4: pinned connections and a join.
    "v=1&layer=4&servers=5&events=5s:s5:join",
    // Layer 4: connections re-opened after their life, closed by a crash
    // and a leave.
    "v=1&layer=4&conn-life-ms=2000&events=5s:s3:crash,9s:s3:recover,12s:s4:leave&balancers=2",
    // Layer 4 black hole with caches.
    "v=1&layer=4&events=4s:s2:fail&cache-keys=100",
    // Learned weights: out-of-band reports over unequal servers; per-call
    // reports through a crash, retries and three copies.
    "v=1&algorithms=grpc-wrr,envoy-cswrr&out-of-band=true&blackout=1000&report-period=500&speeds=1,1,2,4",
    "v=1&algorithms=grpc-wrr,envoy-cswrr&events=4s:s2:crash,10s:s2:recover&retries=2&balancers=3&blackout=1000&report-period=500",
];

fn scenarios() -> Vec<(String, Golden)> {
    let mut all: Vec<(String, Golden)> = PRESETS
        .iter()
        .map(|p| {
            if p.remapping {
                let remap = Remap::default().placed_as(&p.scenario());
                (format!("preset {} (remapping)", p.id), Golden::Remap(remap))
            } else {
                (format!("preset {}", p.id), Golden::Run(Box::new(p.scenario())))
            }
        })
        .collect();
    let base = Scenario { requests: 6_000, ..Scenario::default() };
    for link in LINKS {
        let mut s = base.clone();
        for (key, value) in link.split('&').skip(1).filter_map(|kv| kv.split_once('=')) {
            s.set(key, value).unwrap_or_else(|e| panic!("{link}: {e}"));
        }
        all.push((link.to_string(), Golden::Run(Box::new(s))));
    }
    all
}

fn report_json(golden: &Golden) -> String {
    match golden {
        Golden::Run(s) => serde_json::to_string(&run(s).expect("valid")).expect("serializes"),
        Golden::Remap(r) => serde_json::to_string(&compare(r)).expect("serializes"),
    }
}

#[test]
fn reports_are_byte_identical_to_the_captured_ones() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/reports.txt");
    let scenarios = scenarios();
    // Each line a scenario of its own.
    let mut inputs: Vec<String> = scenarios
        .iter()
        .map(|(_, g)| match g {
            Golden::Run(s) => serde_json::to_string(s).expect("serializes"),
            Golden::Remap(r) => serde_json::to_string(r).expect("serializes"),
        })
        .collect();
    inputs.sort();
    inputs.dedup();
    assert_eq!(inputs.len(), scenarios.len(), "two golden lines are the same scenario");
    let lines: Vec<String> = scenarios
        .iter()
        .map(|(name, g)| format!("{:016x} {name}", xxhash_rust::xxh64::xxh64(report_json(g).as_bytes(), 0)))
        .collect();
    let mut fingerprints: Vec<&str> = lines.iter().map(|l| &l[..16]).collect();
    fingerprints.sort_unstable();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), lines.len(), "two golden lines have the same report");
    // Every preset, and every mechanism's scenario, uses what it is here for.
    for (name, g) in &scenarios {
        if let (Golden::Run(s), true) = (g, name.contains("events=") || name.contains("cache-keys=")) {
            assert!(s.uses_event_loop(), "{name}: runs the fleet's event loop");
        }
    }
    if blessing(std::env::var("LBSIM_BLESS").ok().as_deref()).unwrap_or_else(|e| panic!("{e}")) {
        std::fs::write(path, lines.join("\n") + "\n").expect("writes golden file");
        return;
    }
    let golden = std::fs::read_to_string(path).expect("golden file");
    let golden: Vec<&str> = golden.lines().collect();
    assert_eq!(golden.len(), lines.len(), "one fingerprint per scenario");
    for (want, got) in golden.iter().zip(&lines) {
        assert_eq!(*want, got, "report changed");
    }
}

/// Whether `LBSIM_BLESS`'s value asks to rewrite the goldens: only `1`.
fn blessing(value: Option<&str>) -> Result<bool, String> {
    match value {
        Some("1") => Ok(true),
        None | Some("" | "0") => Ok(false),
        Some(other) => {
            Err(format!("LBSIM_BLESS is 1 (rewrite the goldens) or 0 (check them), not {other:?}"))
        }
    }
}

#[test]
fn only_lbsim_bless_1_rewrites_the_goldens() {
    assert_eq!(blessing(Some("1")), Ok(true));
    for checks in [None, Some(""), Some("0")] {
        assert_eq!(blessing(checks), Ok(false), "{checks:?}");
    }
    for refused in ["true", "yes", "2", " 1"] {
        assert!(blessing(Some(refused)).is_err(), "{refused:?}");
    }
}
