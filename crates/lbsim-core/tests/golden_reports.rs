//! New behaviour leaves old numbers alone: every preset and a spread of
//! static scenarios give exactly the reports they gave before the fleet
//! (SPEC section 12.1). The fingerprints in `golden/reports.txt` are xxh64
//! of each whole JSON report, captured from main before the engine learned
//! about events; `LBSIM_BLESS=1` rewrites them (only when numbers may move).

use lbsim_core::presets::PRESETS;
use lbsim_core::{run, Scenario};

fn scenarios() -> Vec<(String, Scenario)> {
    // Presets of the fleet over time, caches and connections came after
    // the capture.
    let mut all: Vec<(String, Scenario)> = PRESETS
        .iter()
        .filter(|p| !p.scenario().uses_event_loop())
        .map(|p| (format!("preset {}", p.id), p.scenario()))
        .collect();
    let base = Scenario { requests: 6_000, ..Scenario::default() };
    let links = [
        "v=1&balancers=3",
        "v=1&weights=1,2,3,4&speeds=1,0.5,2,1",
        "v=1&work=lognormal&sigma=1.5&zipf=0.5&servers=7",
        "v=1&work=exponential&load=0.9&balancers=4&hash=crc32",
        "v=1&servers=16&slots=2&users=50&names=a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p",
        "v=1&work=constant&rate=500&vnodes=40&balance-factor=150",
    ];
    for link in links {
        let mut s = base.clone();
        for (key, value) in link.split('&').skip(1).filter_map(|kv| kv.split_once('=')) {
            s.set(key, value).expect("golden scenarios are valid");
        }
        all.push((link.to_string(), s));
    }
    all
}

#[test]
fn static_reports_are_byte_identical_to_the_captured_ones() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/reports.txt");
    let lines: Vec<String> = scenarios()
        .into_iter()
        .map(|(name, s)| {
            let json = serde_json::to_string(&run(&s).expect("valid")).expect("serializes");
            format!("{:016x} {name}", xxhash_rust::xxh64::xxh64(json.as_bytes(), 0))
        })
        .collect();
    if std::env::var_os("LBSIM_BLESS").is_some() {
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
