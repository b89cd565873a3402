//! A sweep keeps each value's rows, not its whole report, so its memory
//! does not grow with the number of values beyond the rows themselves.

/// 500 values of a 1,024-server pool: each full report is about 1 MB
/// (queue series per server), the rows a few hundred bytes. Under a
/// 300 MB address-space limit (the run asks for 152 MB: two threads'
/// allocator room and their values), keeping the reports (about 500 MB)
/// fails.
#[cfg(target_os = "linux")]
#[test]
fn sweep_memory_does_not_grow_with_the_number_of_values() {
    let out = crate::under_memory_limit(
        300_000,
        &[
            "sweep",
            "--param",
            "seed=0..499:1",
            "--servers",
            "1024",
            "--requests",
            "1",
            "--algorithms",
            "round-robin",
        ],
    );
    assert!(out.status.success(), "{:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 501, "a header and 500 rows");
}
