//! A rule's picks for a given sequence of arrivals and finishes (what
//! `lbsim trace` prints, and what the conformance suite compares with a
//! real balancer, request by request). Nothing queues and nothing is
//! timed: an arrival is picked and dispatched, a finish completes the
//! arrival it names, one millisecond per step, so "which server gets the
//! next request while these are in flight" is the rule's answer alone.
//!
//! Steps are written `arrive:user-7` (the request of user 7, whose hashing
//! key is `user-7`) and `finish:3` (the third arrival finishes), separated
//! by commas. With no steps, each of `picks` requests arrives and finishes
//! at once, so the pool stays idle.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::balancer::{self, AlgorithmId, Pick};
use crate::scenario::{Scenario, ScenarioError};
use crate::workload::algorithm_rng;

/// Most steps (and picks) a trace takes.
pub const MAX_STEPS: usize = 100_000;

/// One step of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A request arrives and is picked for.
    Arrive {
        /// Its user (1-based): the hashing key is `user-{user}`.
        user: u32,
    },
    /// A request in flight finishes.
    Finish {
        /// Which: the arrival's number (1-based, in arrival order).
        arrival: usize,
    },
}

fn steps_error(value: &str, why: &str) -> ScenarioError {
    ScenarioError {
        field: "steps".into(),
        value: value.into(),
        allowed: format!(
            "{why}; steps are arrive:user-N (N 1 to 4294967295) or finish:K (K an arrival not yet \
             finished), comma-separated, at most {MAX_STEPS}"
        ),
    }
}

/// Reads `arrive:user-1,arrive:user-2,finish:1,...`; a finish must name
/// an arrival that came before it and has not finished.
pub fn parse_steps(text: &str) -> Result<Vec<Step>, ScenarioError> {
    let mut steps = Vec::new();
    let mut arrived = 0usize;
    let mut finished: Vec<bool> = Vec::new();
    for part in text.split(',').map(str::trim) {
        if steps.len() == MAX_STEPS {
            return Err(steps_error(text, "too many steps"));
        }
        let step = match part.split_once(':') {
            Some(("arrive", key)) => {
                let user = key
                    .strip_prefix("user-")
                    .and_then(|id| id.parse::<u32>().ok())
                    .filter(|&id| id >= 1)
                    .ok_or_else(|| steps_error(part, "an arrival's key is user-N"))?;
                arrived += 1;
                finished.push(false);
                Step::Arrive { user }
            }
            Some(("finish", k)) => {
                let arrival = k.parse::<usize>().map_err(|_| steps_error(part, "K is a number"))?;
                if arrival == 0 || arrival > arrived {
                    return Err(steps_error(part, &format!("arrival {arrival} has not arrived yet")));
                }
                if core::mem::replace(&mut finished[arrival - 1], true) {
                    return Err(steps_error(part, &format!("arrival {arrival} has finished already")));
                }
                Step::Finish { arrival }
            }
            _ => return Err(steps_error(part, "not a step")),
        };
        steps.push(step);
    }
    Ok(steps)
}

/// The steps of `picks` requests on an idle pool: request i (of user i)
/// arrives and finishes before the next.
pub fn idle(picks: usize) -> Vec<Step> {
    (1..=picks)
        .flat_map(|i| {
            [Step::Arrive { user: u32::try_from(i).unwrap_or(u32::MAX) }, Step::Finish { arrival: i }]
        })
        .collect()
}

/// The server (an index into the scenario's pool) `rule` picks for each
/// arrival of `steps`, over the scenario's pool and the rule's own random
/// stream, as a run builds them. `steps` are as [`parse_steps`] checks them.
pub fn picks(scenario: &Scenario, rule: AlgorithmId, steps: &[Step]) -> Vec<usize> {
    let pool = scenario.pool();
    let mut balancer = balancer::build(rule, &pool);
    let mut rng = algorithm_rng(scenario.seed, rule.id());
    let mut servers: Vec<usize> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let now_ms = i as f64;
        match *step {
            Step::Arrive { user } => {
                let server = balancer.pick(&Pick { now_ms, user }, &mut rng);
                balancer.dispatched(server);
                servers.push(server);
            }
            Step::Finish { arrival } => {
                if let Some(&server) = servers.get(arrival - 1) {
                    balancer.completed(server, now_ms, 0.0);
                }
            }
        }
    }
    servers
}

/// The steps written back in their link form.
pub fn write_steps(steps: &[Step]) -> String {
    let parts: Vec<String> = steps
        .iter()
        .map(|s| match s {
            Step::Arrive { user } => format!("arrive:user-{user}"),
            Step::Finish { arrival } => format!("finish:{arrival}"),
        })
        .collect();
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use super::*;

    fn scenario(weights: &[u32]) -> Scenario {
        let mut s = Scenario::default();
        s.set("servers", &weights.len().to_string()).unwrap();
        let w: Vec<String> = weights.iter().map(u32::to_string).collect();
        s.set("weights", &w.join(",")).unwrap();
        s
    }

    #[test]
    fn an_idle_trace_is_nginxs_documented_sequence() {
        // NGINX's comment in ngx_http_upstream_round_robin.c: weights 5, 1, 1
        // give a a b a c a a.
        let picks = picks(&scenario(&[5, 1, 1]), AlgorithmId::RoundRobin, &idle(7));
        assert_eq!(picks, [0, 0, 1, 0, 2, 0, 0]);
    }

    #[test]
    fn held_requests_steer_least_connections() {
        // s1 and s2 each hold one; s3 is the only idle server until s1's
        // request finishes, then s1 has fewer than s2 and s3.
        let steps = parse_steps("arrive:user-1,arrive:user-2,arrive:user-3,finish:1,arrive:user-4").unwrap();
        assert_eq!(picks(&scenario(&[1, 1, 1]), AlgorithmId::LeastConnections, &steps), [0, 1, 2, 0]);
    }

    #[test]
    fn bad_steps_name_the_field_and_the_step() {
        for (text, why) in [
            ("finish:1", "has not arrived yet"),
            ("arrive:user-1,finish:1,finish:1", "has finished already"),
            ("arrive:bob", "key is user-N"),
            ("leave:1", "not a step"),
            ("arrive:user-0", "key is user-N"),
        ] {
            let e = parse_steps(text).unwrap_err();
            assert_eq!(e.field, "steps");
            assert!(e.allowed.contains(why), "{text}: {}", e.allowed);
        }
        let text = "arrive:user-1,finish:1,arrive:user-9";
        assert_eq!(write_steps(&parse_steps(text).unwrap()), text);
    }
}
