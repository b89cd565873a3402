//! `lbsim fit` on a CSV log of a known scenario's requests (written here
//! from the core's own draw, as `arrival_ms,work_ms,key`) gives back its
//! fields within docs/model.md#fitting-a-scenario's tolerances, and its
//! link reads back to the fitted scenario and names none of the log's keys.

use lbsim_core::workload::Workload;
use lbsim_core::{url, Scenario};

use crate::lbsim;

#[test]
fn a_csv_log_of_a_known_scenario_fits_back_to_it() {
    let truth =
        Scenario { requests: 50_000, users: 300, zipf: 1.2, load: 0.5, seed: 3, ..Scenario::default() };
    let workload = Workload::generate(&truth);
    let mut log = String::from("arrival_ms,work_ms,key\n");
    for r in &workload.requests {
        log += &format!("{},{},client-{}\n", r.arrival_ms, r.work_ms, r.user);
    }
    let out = lbsim().args(["fit", "-", "--format", "json"]).write_stdin(log).output().expect("lbsim runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one line of JSON");
    let fitted: Scenario = serde_json::from_value(json["scenario"].clone()).expect("a scenario");
    let rate = fitted.rate.expect("a rate");
    assert!((rate / truth.rate_per_s() - 1.0).abs() <= 0.02, "rate {rate} against {}", truth.rate_per_s());
    assert!((fitted.slow_share - truth.slow_share).abs() <= 0.01, "slow share {}", fitted.slow_share);
    assert!((fitted.zipf - truth.zipf).abs() <= 0.05, "zipf {}", fitted.zipf);
    assert_eq!((fitted.fast_ms, fitted.slow_ms, fitted.users), (truth.fast_ms, truth.slow_ms, truth.users));
    let link = json["share_link"].as_str().expect("a link");
    let fragment = link.split_once('#').expect("a fragment").1;
    assert_eq!(url::decode_strict(fragment).expect("the link reads back"), fitted);
    assert!(!link.contains("client-"), "{link}");
}
