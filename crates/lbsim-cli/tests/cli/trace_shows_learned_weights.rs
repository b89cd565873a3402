//! `lbsim trace` of a rule that learns weights shows the load reports it
//! heard and the weights they brought in force (docs/cli.md#trace): on
//! four servers whose requests are held as long as a server of speed 1,
//! 1, 2 and 4 would take (400, 400, 200 and 100 ms), gRPC's weighted round
//! robin, with no blackout, learns weights ordered as those speeds, each
//! equal to gRFC A58's `qps / (utilization + eps / qps x penalty)`
//! computed here from the last report the trace says each server sent.

use crate::json;

/// How long a request on each server is held, ms: 400 over its speed.
const HELD_MS: [u64; 4] = [400, 400, 200, 100];

/// Four arrivals every 100 ms for two seconds, then one at 2,050 ms; with
/// `servers` (where each went, from a trace of the arrivals alone), each
/// finishes when its server is done with it.
fn steps(servers: Option<&[usize]>) -> String {
    let mut timed: Vec<(u64, String)> = Vec::new();
    for k in 0..80u64 {
        let at = 100 * (k / 4) + 10 * (k % 4);
        timed.push((at, format!("arrive:user-{}", k + 1)));
        if let Some(servers) = servers {
            timed.push((at + 5 + HELD_MS[servers[k as usize]], format!("finish:{}", k + 1)));
        }
    }
    timed.push((2_050, "arrive:user-81".into()));
    timed.sort_by_key(|(at, _)| *at);
    let mut out = Vec::new();
    let mut clock = 0;
    for (at, step) in timed {
        if at > clock {
            out.push(format!("at:{at}"));
            clock = at;
        }
        out.push(step);
        clock += 1;
    }
    out.join(",")
}

fn trace(steps: &str) -> serde_json::Value {
    json(&[
        "trace",
        "--algorithm",
        "grpc-wrr",
        "--servers",
        "4",
        "--slots",
        "8",
        "--blackout",
        "0",
        "--steps",
        steps,
    ])
}

fn server_index(name: &serde_json::Value) -> usize {
    let name = name.as_str().expect("a name");
    name.trim_start_matches('s').parse::<usize>().expect("s1 to s4") - 1
}

#[test]
fn learned_weights_follow_the_servers_speeds_and_grfc_a58s_formula() {
    // Until the first weights are in force (the rebuild at 2 s, from the
    // figures of the first closed second) the picks are round robin, so a
    // trace of the arrivals alone says where each goes.
    let alone = trace(&steps(None));
    let servers: Vec<usize> =
        alone["picks"].as_array().expect("picks").iter().take(80).map(server_index).collect();
    let traced = trace(&steps(Some(&servers)));
    let picks: Vec<usize> =
        traced["picks"].as_array().expect("picks").iter().take(80).map(server_index).collect();
    assert_eq!(picks, servers, "the round robin's picks do not depend on the finishes");
    let reports = traced["reports"].as_array().expect("reports are listed");
    let weights = traced["weights"].as_array().expect("weights are listed");
    // The last report heard from each server before the last pick.
    let mut last = [None; 4];
    for report in reports.iter().flat_map(|r| r.as_array().expect("a pick's reports")) {
        let figure = |k: &str| report[k].as_f64().expect(k);
        last[server_index(&report["server"])] = Some((figure("qps"), figure("eps"), figure("utilization")));
    }
    let in_force: Vec<f64> = weights[80]
        .as_array()
        .expect("the last pick brings weights in force")
        .iter()
        .map(|w| w.as_f64().expect("a weight"))
        .collect();
    for (s, figures) in last.iter().enumerate() {
        let (qps, eps, utilization) = figures.expect("every server reported");
        let penalty = 1.0;
        let expected = qps / (utilization + eps / qps * penalty);
        assert!(
            (in_force[s] - expected).abs() <= 1e-9 * expected,
            "s{}: {} against {expected}",
            s + 1,
            in_force[s]
        );
    }
    assert!(in_force[0] < in_force[2] && in_force[1] < in_force[2], "{in_force:?}");
    assert!(in_force[2] < in_force[3], "{in_force:?}");
    let (slow, fast) = (in_force[0].max(in_force[1]), in_force[0].min(in_force[1]));
    assert!(slow / fast < 1.1, "the two speed-1 servers alike: {in_force:?}");
}
