//! Native side of the wasm harness.
//!
//! `lbsim-native-harness < scenario.json` prints the report JSON, the bytes
//! the wasm build must reproduce; `lbsim-native-harness --time REPS <
//! scenario.json` prints the median wall time of REPS runs in ms.

use std::io::Read;
use std::time::Instant;

fn main() {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("stdin: {e}");
        std::process::exit(2);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--time") {
        let reps: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
        let mut times: Vec<f64> = (0..reps)
            .map(|_| {
                let start = Instant::now();
                if let Err(e) = lbsim_wasm_harness::run_quietly(&input) {
                    eprintln!("{e}");
                    std::process::exit(2);
                }
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!("{}", times[times.len() / 2]);
        return;
    }
    match lbsim_wasm_harness::report_json(&input) {
        Ok(json) => println!("{json}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
