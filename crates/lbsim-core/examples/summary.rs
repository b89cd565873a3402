//! Runs the article's lab (the default scenario) and prints one line per
//! algorithm: `cargo run --release -p lbsim-core --example summary`.

use lbsim_core::{run, Scenario};

fn main() {
    let report = match run(&Scenario::default()) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let r = &report.realized;
    println!(
        "load {:.3}  slow share {:.4}  rate {:.1}/s  top user {:.3}  top 10 {:.3}",
        r.load, r.slow_share, r.rate_per_s, r.top_user_share, r.top10_share
    );
    for result in &report.results {
        let quick = result.latency_ms.quick.unwrap_or(result.latency_ms.all);
        println!(
            "{:18} quick p99 {:7.1} ms  p99 {:7.1} ms  peak queue {:4}  busiest {:5.1}%  imbalance {:.2}",
            result.algorithm.id(),
            quick.p99,
            result.latency_ms.all.p99,
            result.peak_queue,
            result.busiest_share * 100.0,
            result.imbalance
        );
    }
}
