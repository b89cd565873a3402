//! A 1,000,000-line NGINX log in lbsim's timing format read by the core's
//! reader, and read then replayed through every rule
//! (docs/performance.md#the-figures: at most 2 s for both).
//! `cargo bench -p lbsim-core --bench access_log`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::fmt::Write as _;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lbsim_core::access_log::{LogReader, LogSettings, Traffic};
use lbsim_core::{Prepared, Scenario};

const LINES: u64 = 1_000_000;

/// Lines as NGINX writes them at about 600 requests a second over 8
/// servers, from 20,000 clients.
fn nginx_log() -> Vec<u8> {
    let mut text = String::with_capacity(LINES as usize * 110);
    for i in 0..LINES {
        let end = 1_796_667_267.0 + i as f64 / 600.0;
        let work = 0.005 + (i % 97) as f64 * 0.001;
        let _ = writeln!(
            text,
            "10.{}.{}.{} [07/Dec/2026:18:14:27 +0000] \"GET /item/{} HTTP/1.1\" 200 {end:.3} {:.3} {work:.3} 10.0.0.{}:8080",
            i % 7,
            (i * 31) % 53,
            (i * 17) % 57,
            i % 1000,
            work + 0.001,
            1 + i % 8
        );
    }
    text.into_bytes()
}

fn read(bytes: &[u8]) -> Traffic {
    let mut reader = LogReader::new(LogSettings::default());
    for chunk in bytes.chunks(1 << 20) {
        reader.push(chunk).expect("a good log");
    }
    reader.finish().expect("a good log")
}

fn nginx_1m(c: &mut Criterion) {
    let bytes = nginx_log();
    let mut group = c.benchmark_group("nginx-log-1M");
    group.sample_size(10);
    group.throughput(Throughput::Elements(LINES));
    group.bench_function("read", |b| b.iter(|| read(&bytes)));
    group.bench_function("read-and-replay-every-rule", |b| {
        b.iter(|| {
            let traffic = read(&bytes);
            let mut scenario = Scenario::default();
            traffic.fleet_into(&mut scenario);
            let prepared = Prepared::with_traffic(&scenario, &traffic).expect("valid");
            let results = prepared.scenario().algorithms.iter().map(|&a| prepared.run_one(a)).collect();
            prepared.report(results)
        })
    });
    group.finish();
}

criterion_group!(benches, nginx_1m);
criterion_main!(benches);
