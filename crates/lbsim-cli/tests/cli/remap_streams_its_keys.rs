//! `lbsim remap` writes, hashes and counts each key, then drops it: memory
//! does not grow with the number of keys, and the counts are those of one
//! sequential pass whatever the slices the cores took.

use crate::json;

/// 5,000,000 keys held as strings with two owner lists were about 300 MB;
/// under a 150 MB address-space limit only streaming succeeds.
#[cfg(target_os = "linux")]
#[test]
fn remap_memory_does_not_grow_with_the_keys() {
    let out = crate::under_memory_limit(
        150_000,
        &["remap", "--scheme", "jump", "--keys", "5000000", "--format", "json"],
    );
    assert!(out.status.success(), "{:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["keys"], 5_000_000);
}

/// Counting on one thread or on several gives the same report.
#[test]
fn remap_counts_do_not_depend_on_the_threads() {
    let args =
        ["remap", "--scheme", "rendezvous", "--nodes", "a,b,c,d,e", "--remove", "c", "--keys", "70000"];
    let parallel = json(&args);
    let out = crate::lbsim()
        .args(args)
        .args(["--format", "json"])
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .expect("lbsim runs");
    let sequential: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(parallel, sequential);
    let moved = parallel["moved"].as_u64().expect("moved");
    assert_eq!(Some(moved), parallel["before"]["c"].as_u64(), "only the leaving node's keys move");
}
