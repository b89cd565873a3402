//! gRPC's static stride scheduler (`balancer/stride.rs`) against gRPC
//! C-core's own unit tests, `static_stride_scheduler_test.cc`, whose
//! vectors `tests/oracles/grpc_static_stride_scheduler.txt` keeps with the
//! name of the test each comes from.

use std::collections::BTreeMap;

use lbsim_core::balancer::stride::StrideScheduler;

fn oracle() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/oracles/grpc_static_stride_scheduler.txt");
    std::fs::read_to_string(path).expect("tests/oracles/grpc_static_stride_scheduler.txt")
}

fn numbers<T: std::str::FromStr>(text: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    text.split(',').filter(|w| !w.is_empty()).map(|w| w.parse().expect(w)).collect()
}

/// The picks of `count` sequence numbers from 0.
fn picks(scheduler: &StrideScheduler, count: usize) -> Vec<usize> {
    let mut sequence = 0;
    (0..count).map(|_| scheduler.pick(&mut sequence)).collect()
}

#[test]
fn every_vector_of_grpcs_own_tests_holds() {
    let text = oracle();
    let mut held = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (kind, test) = (words[0], words[1]);
        let fields: BTreeMap<&str, &str> = words[2..].iter().filter_map(|w| w.split_once('=')).collect();
        let weights: Vec<f32> = numbers(fields["weights"]);
        let scheduler = StrideScheduler::make(&weights);
        let field = |name: &str| -> usize { fields[name].parse().expect(name) };
        match kind {
            "none" => assert!(scheduler.is_none(), "{test}: no scheduler for {weights:?}"),
            "counts" => {
                let picks = picks(scheduler.as_ref().expect(test), field("picks"));
                let mut counts = vec![0usize; weights.len()];
                for p in picks {
                    counts[p] += 1;
                }
                assert_eq!(counts, numbers::<usize>(fields["counts"]), "{test}");
            }
            "count" => {
                let picks = picks(scheduler.as_ref().expect(test), field("picks"));
                let count = picks.iter().filter(|&&p| p == field("backend")).count();
                assert_eq!(count, field("count"), "{test}");
            }
            "turn" => {
                let picks = picks(scheduler.as_ref().expect(test), field("picks"));
                let period = field("period");
                let mut first: Vec<usize> = picks[..period].to_vec();
                first.sort_unstable();
                assert_eq!(first, (0..period).collect::<Vec<_>>(), "{test}: each backend once");
                for (i, &p) in picks.iter().enumerate() {
                    assert_eq!(p, picks[i % period], "{test}: pick {i} repeats the turn");
                }
            }
            other => panic!("{test}: unknown kind {other}"),
        }
        held.push(test);
    }
    // The file's tests, every one read: a line lost to a typo fails here.
    assert_eq!(held.len(), 10, "{held:?}");
}
