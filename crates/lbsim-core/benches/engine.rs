//! Cost per request of each algorithm on the `mixed` preset with 1M
//! requests (SPEC section 11: at most 30 ns for the non-hash rules), the
//! cost of drawing the workload, and the cost as the pool grows from 4 to
//! 1,024 servers. `cargo bench -p lbsim-core --bench engine`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use lbsim_core::{AlgorithmId, Prepared, Scenario};

const REQUESTS: u64 = 1_000_000;

fn per_algorithm(c: &mut Criterion) {
    let scenario = Scenario { requests: REQUESTS, ..Scenario::default() };
    let sim = Prepared::new(&scenario).expect("the mixed preset is valid");
    let mut group = c.benchmark_group("mixed-1M");
    group.sample_size(10);
    group.throughput(Throughput::Elements(REQUESTS));
    group.bench_function("workload", |b| b.iter(|| Prepared::new(&scenario).expect("valid")));
    for &algorithm in AlgorithmId::ALL {
        group.bench_function(algorithm.id(), |b| b.iter(|| sim.run_one(algorithm)));
    }
    group.finish();
}

fn pool_growth(c: &mut Criterion) {
    let mut group = c.benchmark_group("pool-growth-200k");
    group.sample_size(10);
    let requests = 200_000;
    group.throughput(Throughput::Elements(requests));
    for servers in [4u32, 1024] {
        let scenario = Scenario { requests, servers, ..Scenario::default() };
        let sim = Prepared::new(&scenario).expect("valid");
        for &algorithm in AlgorithmId::ALL {
            group.bench_with_input(BenchmarkId::new(algorithm.id(), servers), &algorithm, |b, &a| {
                b.iter(|| sim.run_one(a))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, per_algorithm, pool_growth);
criterion_main!(benches);
