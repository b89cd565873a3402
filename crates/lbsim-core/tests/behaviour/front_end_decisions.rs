//! Decisions the page and the CLI share, made once in the core: merging
//! the parts of a run dealt out to several workers, when the Erlang C
//! formula applies, the remapping panel's change, fitting per-server lists
//! to a new server count, which fields a scenario uses, and which plot a
//! preset's embed shows.

use lbsim_core::presets::{Plot, PRESETS};
use lbsim_core::remap::{compare, Change, Remap, Scheme};
use lbsim_core::scenario::WorkKind;
use lbsim_core::theory::MMc;
use lbsim_core::{run, AlgorithmId, Report, Scenario};

fn part(scenario: &Scenario, algorithms: Vec<AlgorithmId>) -> Report {
    run(&Scenario { algorithms, ..scenario.clone() }).expect("valid")
}

#[test]
fn parts_dealt_to_workers_merge_into_the_report_of_one_run() {
    let scenario = Scenario {
        requests: 3_000,
        balancers: 2,
        algorithms: AlgorithmId::ALL.to_vec(),
        ..Scenario::default()
    };
    let whole = run(&scenario).expect("valid");
    for workers in 1..=4 {
        let mut groups = vec![Vec::new(); workers];
        for (i, a) in AlgorithmId::ALL.iter().enumerate() {
            groups[i % workers].push(*a);
        }
        // Parts arrive in any order.
        let parts: Vec<Report> = groups.into_iter().rev().map(|g| part(&scenario, g)).collect();
        assert_eq!(Report::merge(parts), Some(whole.clone()), "{workers} workers");
    }
}

#[test]
fn parts_of_different_workloads_do_not_merge() {
    let a = part(&Scenario { requests: 500, ..Scenario::default() }, vec![AlgorithmId::Random]);
    let b = part(&Scenario { requests: 500, seed: 17, ..Scenario::default() }, vec![AlgorithmId::Maglev]);
    assert_eq!(Report::merge(vec![a, b]), None);
    assert_eq!(Report::merge(Vec::new()), None);
}

#[test]
fn erlang_c_applies_to_one_exponential_pool_below_saturation_only() {
    let pool = Scenario { servers: 1, work: WorkKind::Exponential, mean_ms: 50.0, ..Scenario::default() };
    let m = MMc::of_scenario(&pool).expect("M/M/8");
    assert_eq!(m.c, 8);
    // lambda = load x c x mu: the target load is the utilisation.
    assert!((m.lambda / (f64::from(m.c) * m.mu) - pool.load).abs() < 1e-12);
    assert!(MMc::of_scenario(&Scenario { servers: 2, ..pool.clone() }).is_none(), "a rule chooses");
    assert!(MMc::of_scenario(&Scenario { work: WorkKind::Bimodal, ..pool.clone() }).is_none());
    assert!(MMc::of_scenario(&Scenario { rate: Some(200.0), ..pool }).is_none(), "saturated");
}

#[test]
fn the_remapping_panel_adds_the_next_free_name_or_removes_the_last() {
    let nodes: Vec<String> = ["s1", "s2", "s5"].map(String::from).to_vec();
    assert_eq!(Change::for_pool(&nodes, true), Change::Add("s4".into()));
    assert_eq!(Change::for_pool(&nodes, false), Change::Remove("s5".into()));
    assert_eq!(Change::for_pool(&nodes[..1], false), Change::Add("s2".into()), "one node can only grow");
    assert_eq!(Change::Add("s4".into()).ideal_share(3), 0.25);
    assert_eq!(Change::Remove("s5".into()).words(3), "s5 leaves 3 servers");
    let base = Remap { nodes, change: Change::Add("s4".into()), ..Remap::default() };
    let schemes: Vec<Scheme> = compare(&base).into_iter().map(|(s, _)| s).collect();
    assert_eq!(schemes, Scheme::ALL);
}

#[test]
fn per_server_lists_follow_the_server_count() {
    let mut s = Scenario {
        servers: 3,
        speeds: vec![1.0, 0.5, 2.0, 1.0],
        weights: vec![2, 1],
        names: vec!["s3".into(), "a".into()],
        ..Scenario::default()
    };
    s.fit_lists();
    assert_eq!(s.speeds, [1.0, 0.5, 2.0]);
    assert_eq!(s.weights, [2, 1, 1]);
    assert_eq!(s.names, ["s3", "a", "s4"], "a new name never repeats one in use");
    assert!(s.validate().is_ok());
    let mut plain = Scenario { servers: 7, ..Scenario::default() };
    plain.fit_lists();
    assert!(plain.speeds.is_empty() && plain.weights.is_empty() && plain.names.is_empty());
}

#[test]
fn fields_a_work_kind_does_not_use_are_said_so() {
    let bimodal = Scenario::default();
    assert!(bimodal.uses("slow-share") && !bimodal.uses("mean-ms") && !bimodal.uses("sigma"));
    let lognormal = Scenario { work: WorkKind::Lognormal, ..Scenario::default() };
    assert!(!lognormal.uses("slow-share") && lognormal.uses("mean-ms") && lognormal.uses("sigma"));
    assert!(!Scenario { rate: Some(100.0), ..Scenario::default() }.uses("load"));
    assert!(bimodal.uses("servers"));
}

/// A preset's embed opens on the plot its lesson is read in, and that plot
/// is one the preset's run draws: the fleet's plots need events, the hit
/// rate caches, and only a remapping preset opens on the remapping panel.
#[test]
fn every_preset_embeds_a_plot_its_run_draws() {
    for p in PRESETS {
        assert_eq!(p.remapping, p.plot == Plot::Remap, "{}", p.id);
        assert_eq!(Plot::parse(p.plot.id()), Some(p.plot));
        let scenario = Scenario { requests: 2_000, ..p.scenario() };
        let report = run(&scenario).expect("valid");
        let drawn = match p.plot {
            Plot::Errors | Plot::Requests => report.results.iter().all(|r| r.error_series.is_some()),
            Plot::Hits => report.has_caches(),
            Plot::Cdf | Plot::Loads | Plot::Queues | Plot::Remap => true,
            Plot::Table | Plot::Sweep | Plot::Replay => false,
        };
        assert!(drawn, "{}: its run does not draw {}", p.id, p.plot.id());
    }
}
