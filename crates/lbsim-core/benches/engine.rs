//! Cost per request of each algorithm on the `mixed` preset with 1M
//! requests (docs/performance.md#the-figures: at most 30 ns for the non-hash rules), the
//! cost of drawing the workload, and the cost as the pool grows from 4 to
//! 1,024 servers, and the cost of fitting a scenario to 1M requests.
//! `cargo bench -p lbsim-core --bench engine`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use lbsim_core::fit::Observed;
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

/// The fleet over time (docs/performance.md#the-figures: at most 1.5x the static cost per
/// request): the mixed lab with the crash preset's events, active checks
/// and one retry, through the fleet's event loop.
fn fleet(c: &mut Criterion) {
    let mut scenario = Scenario { requests: REQUESTS, ..Scenario::default() };
    for (key, value) in [
        ("events", "20s:s4:crash,40s:s4:recover,60s:s3:fail,80s:s3:recover,100s:s2:slow=0.5,120s:s2:recover"),
        ("check-ms", "2000"),
        ("retries", "1"),
    ] {
        scenario.set(key, value).expect("valid");
    }
    let sim = Prepared::new(&scenario).expect("valid");
    let mut group = c.benchmark_group("fleet-1M");
    group.sample_size(10);
    group.throughput(Throughput::Elements(REQUESTS));
    for &algorithm in AlgorithmId::ALL {
        group.bench_function(algorithm.id(), |b| b.iter(|| sim.run_one(algorithm)));
    }
    group.finish();
}

/// The fit's estimators on the `mixed` preset's 1M requests
/// (docs/model.md#fitting-a-scenario): what `lbsim fit` adds to reading a
/// 1M-line log.
fn fit(c: &mut Criterion) {
    let scenario = Scenario { requests: REQUESTS, ..Scenario::default() };
    let workload = lbsim_core::workload::Workload::generate(&scenario);
    let observed = Observed { requests: &workload.requests, served_by: &[], servers: &[] };
    let mut group = c.benchmark_group("fit-1M");
    group.sample_size(10);
    group.throughput(Throughput::Elements(REQUESTS));
    group.bench_function("mixed", |b| b.iter(|| lbsim_core::fit::fit(&observed, &scenario).expect("a fit")));
    group.finish();
}

criterion_group!(benches, per_algorithm, pool_growth, fleet, fit);
criterion_main!(benches);
