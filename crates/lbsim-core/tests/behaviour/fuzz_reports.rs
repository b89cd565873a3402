//! Generated scenarios (every field of the table among them, events,
//! health checks, retries, warm-up, caches, layer 4, rings and
//! `host:port` names included: `fuzz.rs`) run to a report, and sweeps
//! over generated ranges: whatever the mix, every report keeps the
//! invariants below, and a sweep either runs every value or names what it
//! refuses. `PROPTEST_CASES` sets the cases; `cargo xtask fuzz` runs many.

use lbsim_core::report::{AlgorithmResult, Percentiles};
use lbsim_core::scenario::{field_spec, FieldKind, FIELDS};
use lbsim_core::sweep::Sweep;
use lbsim_core::{engine, Scenario};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::fuzz::{self, fuzz, hostile_text, printable, scenario_of, valid_pairs, Covered};

/// Requests per generated run: enough for queues, errors and retries,
/// few enough for hundreds of cases.
const REQUESTS: u64 = 600;

fn ordered(what: &str, p: &Percentiles) -> Result<(), TestCaseError> {
    let figures = [p.p50, p.p90, p.p99, p.p999, p.max];
    prop_assert!(figures.iter().chain([&p.mean]).all(|v| v.is_finite() && *v >= 0.0), "{what}: {p:?}");
    prop_assert!(figures.windows(2).all(|w| w[0] <= w[1]), "{what} out of order: {p:?}");
    Ok(())
}

/// What every rule's result keeps, whatever the scenario.
fn keeps_its_invariants(s: &Scenario, r: &AlgorithmResult) -> Result<(), TestCaseError> {
    let id = r.algorithm.id();
    ordered(id, &r.latency_ms.all)?;
    prop_assert!(r.wait_ms.mean >= 0.0 && r.wait_ms.p99 >= 0.0, "{id}: negative wait {:?}", r.wait_ms);
    // One answer per request: the distribution of all requests ends at 1.
    let last = r.cdf.all.last().map(|p| p[1]);
    prop_assert_eq!(last, Some(1.0), "{}: the CDF ends at {:?}", id, last);
    // Every attempt went to one server: the per-server counts sum to the
    // requests, and with retries to at most requests plus retries (an
    // attempt that finds no server is answered at once, sent nowhere).
    let sent: u64 = r.servers.iter().map(|x| x.requests).sum();
    let retries = r.retries.unwrap_or(0);
    if r.errors.is_none() {
        prop_assert_eq!(sent, s.requests, "{}: static run sent {} of {}", id, sent, s.requests);
    }
    prop_assert!(
        sent <= s.requests + retries,
        "{id}: {sent} sent, {} requests, {retries} retries",
        s.requests
    );
    if sent > 0 {
        let shares: f64 = r.servers.iter().map(|x| x.share).sum();
        prop_assert!((shares - 1.0).abs() < 1e-9, "{id}: shares sum to {shares}");
    }
    // Errors: a count of requests, a share in [0, 1], and successes'
    // latencies present exactly when there were errors, null when nothing
    // succeeded (never zeros over nothing).
    if let Some(errors) = r.errors {
        prop_assert!(errors <= s.requests, "{id}: {errors} errors of {} requests", s.requests);
        let share = r.error_share.unwrap_or(f64::NAN);
        prop_assert!((0.0..=1.0).contains(&share), "{id}: error share {share}");
        match (errors, &r.latency_ms.ok) {
            (0, None) => {}
            (e, Some(None)) if e == s.requests => {}
            (e, Some(Some(ok))) if e > 0 && e < s.requests => ordered("ok", ok)?,
            (e, ok) => prop_assert!(false, "{id}: {e} errors of {} and ok {ok:?}", s.requests),
        }
    }
    let rates = r.servers.iter().map(|x| x.hit_rate).chain([r.hit_rate]);
    for rate in rates.flatten() {
        prop_assert!(rate.is_none_or(|h| (0.0..=1.0).contains(&h)), "{id}: hit rate {rate:?}");
    }
    Ok(())
}

#[test]
fn generated_scenarios_run_to_reports_that_keep_their_invariants() {
    let covered = Covered::default();
    let tried = fuzz("reports", fuzz::cases(128), valid_pairs(), |pairs| {
        let Some(mut scenario) = scenario_of(&pairs) else { return Ok(false) };
        scenario.requests = scenario.requests.min(REQUESTS);
        if scenario.validate().is_err() {
            return Ok(false);
        }
        // A valid scenario may still be refused once its requests are
        // drawn (a run's messages bounded over its span, docs/model.md):
        // then the error names a field and the value the scenario holds.
        let report = match engine::run(&scenario) {
            Ok(report) => report,
            Err(e) => {
                prop_assert!(field_spec(&e.field).is_some(), "{e}");
                prop_assert_eq!(Some(e.value.clone()), scenario.get(&e.field), "{}", e);
                prop_assert!(printable(&e.to_string()), "{e:?}");
                return Ok(false);
            }
        };
        for r in &report.results {
            keeps_its_invariants(&scenario, r)?;
        }
        covered.saw(pairs.iter().map(|(k, _)| k.as_str()));
        Ok(true)
    });
    covered.every_field("reports", tried);
}

/// A sweep's range: a numeric field of the table with ends in its range,
/// mostly; now and then hostile text.
fn sweep_spec() -> impl Strategy<Value = String> {
    let numeric: Vec<&'static str> = FIELDS
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Integer | FieldKind::Real))
        .map(|f| f.key)
        .collect();
    let valid =
        (prop::sample::select(numeric), 0.0f64..1.0, 0.0f64..1.0, 1u32..6).prop_map(|(key, a, b, n)| {
            let f = field_spec(key).expect("a field of the table");
            // Near the bottom of the range, where runs stay small.
            let span = (f.max - f.min).min(10.0 * f.step.max(1.0));
            let at = |x: f64| {
                let v = f.min + x * span;
                if f.kind == FieldKind::Integer {
                    v.round().to_string()
                } else {
                    format!("{v:.2}")
                }
            };
            let (from, to) = if a <= b { (at(a), at(b)) } else { (at(b), at(a)) };
            let step = if f.kind == FieldKind::Integer { n.to_string() } else { format!("0.{n}") };
            format!("{key}={from}..{to}:{step}")
        });
    prop_oneof![4 => valid, 1 => hostile_text()]
}

#[test]
fn generated_sweeps_run_every_value_or_name_what_they_refuse() {
    let base = Scenario { requests: 200, ..Scenario::default() };
    fuzz("sweeps", fuzz::cases(128), sweep_spec(), |spec| {
        let sweep = match Sweep::parse(&spec, "param", 40) {
            Ok(s) => s,
            Err(e) => {
                prop_assert!(e.field == "param" || field_spec(&e.field).is_some(), "{spec}: {e}");
                prop_assert!(printable(&e.to_string()), "{e:?}");
                return Ok(false);
            }
        };
        prop_assert!(!sweep.values.is_empty() && sweep.values.len() <= 40, "{spec}: {:?}", sweep.values);
        match sweep.scenarios(&base) {
            Ok(scenarios) => {
                prop_assert_eq!(scenarios.len(), sweep.values.len());
                for (s, value) in scenarios.iter().zip(&sweep.values) {
                    prop_assert!(s.validate().is_ok(), "{spec} at {value}");
                    let set = s.get(sweep.key).and_then(|v| v.parse::<f64>().ok());
                    prop_assert_eq!(set, value.parse::<f64>().ok(), "{} at {}", spec, value);
                }
                Ok(true)
            }
            Err(e) => {
                prop_assert!(field_spec(&e.field).is_some(), "{spec}: {e}");
                Ok(false)
            }
        }
    });
}
