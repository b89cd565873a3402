//! A log's keys are what the hashing rules hash (docs/model.md#your-own-traffic):
//! user-hash places each logged key where FNV-1a 32 of its bytes says, and
//! the realized section names the heaviest keys as logged.

use lbsim_core::access_log::{LogReader, LogSettings};
use lbsim_core::{AlgorithmId, Prepared, Scenario};

/// FNV-1a 32 from its published definition (offset basis 2166136261,
/// prime 16777619), apart from the crate's own.
fn fnv1a32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(2_166_136_261u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(16_777_619))
}

#[test]
fn hashing_rules_hash_the_logged_key() {
    let mut text = String::new();
    for i in 0..200u32 {
        let end = 1_796_667_267.0 + f64::from(i) * 0.01;
        text += &format!(
            "198.51.100.{} [07/Dec/2026:18:14:27 +0000] \"GET / HTTP/1.1\" 200 {end:.3} 0.005 0.004 10.0.0.{}:80\n",
            i % 37,
            i % 3
        );
    }
    let mut reader = LogReader::new(LogSettings::default());
    reader.push(text.as_bytes()).unwrap();
    let traffic = reader.finish().unwrap();
    let mut scenario = Scenario { algorithms: vec![AlgorithmId::UserHash], ..Scenario::default() };
    traffic.fleet_into(&mut scenario);
    let prepared = Prepared::with_traffic(&scenario, &traffic).unwrap();
    let log = prepared.dispatch_log(AlgorithmId::UserHash);
    assert_eq!(log.len(), 200);
    for d in &log {
        let key = traffic.key(prepared.workload().requests[d.request].user);
        // user-hash: FNV-1a 32 of the key, mod the servers (equal weights).
        assert_eq!(d.server, fnv1a32(key.as_bytes()) as usize % 3, "{key}");
    }
    let report = prepared.report(vec![prepared.run_one(AlgorithmId::UserHash)]);
    assert!(report.realized.heaviest_keys[0].key.starts_with("198.51.100."));
}
