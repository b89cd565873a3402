//! A trace may name any user up to 4,294,967,295; the hashing rules hash
//! the user's key from its bytes, so the trace's memory does not grow with
//! the user's number (docs/cli.md#lbsim-trace-a-rules-picks).

/// The largest user under a 256 MB address-space cap, for every rule that
/// hashes the key: the pick comes back, and user-hash's is
/// `fnv1a32("user-4294967295") mod 4`, computed here from FNV-1a's
/// published constants.
#[cfg(target_os = "linux")]
#[test]
fn the_largest_user_is_traced_in_little_memory() {
    fn fnv1a32(bytes: &[u8]) -> u32 {
        bytes.iter().fold(0x811c_9dc5, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
    }
    let steps = "arrive:user-4294967295,arrive:user-4294967294,arrive:user-1";
    for rule in ["user-hash", "consistent-hash", "bounded-load", "maglev", "rendezvous"] {
        let out = crate::under_memory_limit(
            256 * 1024,
            &["trace", "--algorithm", rule, "--steps", steps, "--format", "json"],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{rule}: {stderr}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
        let picks = report["picks"].as_array().expect("picks");
        assert_eq!(picks.len(), 3, "{rule}: {report}");
        if rule == "user-hash" {
            let expected = format!("s{}", fnv1a32(b"user-4294967295") % 4 + 1);
            assert_eq!(picks[0].as_str(), Some(expected.as_str()));
        }
    }
}
