//! The share-link codec held to its own round trips and notices.

use super::*;

#[test]
fn an_embed_shows_the_lessons_plot_and_the_table() {
    let crash = preset("crash").expect("a preset");
    let s = crash.scenario();
    assert_eq!(
        embed_url("https://example.org/lbsim/?theme=dark#v=1", &s, Some(crash), &Views::default()),
        "https://example.org/lbsim/?embed=1&plots=errors,table#v=1&preset=crash"
    );
    let scale_out = preset("scale-out").expect("a preset");
    assert_eq!(embed_plots(Some(scale_out)), [Plot::Remap], "the remapping panel has its own table");
    assert_eq!(embed_plots(None), [Plot::Cdf, Plot::Table]);
    let sweep = Sweep::parse("load=0.5..0.9:0.2", "sweep", MAX_LINK_SWEEP_VALUES).expect("a range");
    assert_eq!(
        embed_url("x/", &Scenario::default(), None, &Views { sweep: Some(&sweep), ..Views::default() }),
        "x/?embed=1&plots=cdf,table,sweep#v=1&sweep=load=0.5..0.9:0.2"
    );
}

#[test]
fn a_preset_is_a_key_its_other_keys_apply_over() {
    let degraded = preset("degraded").expect("a preset");
    let d = decode("#v=1&preset=degraded&seed=7");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.preset.map(|p| p.id), Some("degraded"));
    assert_eq!(d.scenario, Scenario { seed: 7, ..degraded.scenario() });
    // Encoded over the preset, only the edit appears.
    assert_eq!(encode_over(&d.scenario, d.preset), "v=1&preset=degraded&seed=7");
    assert_eq!(decode(&encode_over(&d.scenario, d.preset)), d);
    // A key set back to the defaults' value still differs from the
    // preset, so it appears: here "no rate" (derive it from the load).
    let back = Scenario { rate: None, ..degraded.scenario() };
    assert_eq!(encode_over(&back, Some(degraded)), "v=1&preset=degraded&rate=");
    assert_eq!(decode("v=1&preset=degraded&rate=").scenario, back);
}

#[test]
fn the_changed_keys_are_those_a_link_over_the_preset_writes() {
    let mixed = preset("mixed").expect("a preset").scenario();
    assert!(changed_keys(&mixed, &mixed).is_empty());
    let d = decode("#v=1&preset=mixed&zipf=1.5&servers=64&slow-share=0.3");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    // In the table's order, not the link's.
    assert_eq!(changed_keys(&d.scenario, &mixed), ["servers", "slow-share", "zipf"]);
    // An unset optional field differs from a set one, both ways.
    let degraded = preset("degraded").expect("a preset").scenario();
    let back = Scenario { rate: None, ..degraded.clone() };
    assert_eq!(changed_keys(&back, &degraded), ["rate"]);
    assert_eq!(changed_keys(&degraded, &back), ["rate"]);
}

#[test]
fn an_unknown_preset_is_named_and_the_rest_applies() {
    let d = decode("#v=1&preset=bogus&seed=7");
    assert_eq!(d.problems.len(), 1);
    assert_eq!(d.problems[0].field, "preset");
    assert!(d.problems[0].allowed.contains("degraded"));
    assert_eq!(d.scenario, Scenario { seed: 7, ..Scenario::default() });
    let mut s = Scenario::default();
    assert_eq!(apply_strict(&mut s, "v=1&preset=bogus").map_err(|e| e.field), Err("preset".into()));
}

#[test]
fn a_links_preset_replaces_what_the_cli_started_from() {
    let mut s = Scenario { seed: 99, servers: 9, ..Scenario::default() };
    apply_strict(&mut s, "v=1&preset=herding&seed=5").expect("valid");
    assert_eq!(s, Scenario { seed: 5, ..preset("herding").expect("a preset").scenario() });
}

#[test]
fn a_sweep_rides_in_the_link_and_runs_ignore_it() {
    let d = decode("#v=1&seed=3&sweep=load=0.5..0.9:0.2");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    let sweep = d.sweep.clone().expect("a sweep");
    assert_eq!(
        (sweep.key, sweep.values.clone()),
        ("load", alloc::vec!["0.5".into(), "0.7".into(), "0.9".into()])
    );
    assert_eq!(
        encode_link(&d.scenario, None, &Views { sweep: Some(&sweep), ..Views::default() }),
        "v=1&seed=3&sweep=load=0.5..0.9:0.2"
    );
    let mut s = Scenario::default();
    apply_strict(&mut s, "v=1&seed=3&sweep=load=0.5..0.9:0.2").expect("a run ignores the sweep");
    assert_eq!(s.seed, 3);
    let bad = decode("#v=1&sweep=colour=1..2:1");
    assert_eq!(bad.problems[0].field, "sweep");
    assert!(bad.sweep.is_none());
}

#[test]
fn the_replay_view_rides_in_the_link_and_runs_ignore_it() {
    let link =
        "v=1&preset=crash&seed=4&view=replay&pair=round-robin,least-connections&t=12.5&speed=2&window=2000";
    let d = decode(&alloc::format!("#{link}"));
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    let (view, errors) = d.replay.clone().expect("the replay view").view();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!((view.t_s, view.speed, view.window), (12.5, 2.0, Some(2000)));
    assert_eq!(encode_link(&d.scenario, d.preset, &d.views()), link, "the round trip is exact");
    let mut s = Scenario::default();
    apply_strict(&mut s, link).expect("a run takes the view's keys");
    assert_eq!(
        s,
        Scenario { seed: 4, ..preset("crash").expect("a preset").scenario() },
        "and they change nothing"
    );
    let kept = decode("#v=1&t=3").replay.expect("kept as given");
    assert!(!kept.open(), "only view=replay opens it");
    assert!(decode("#v=1&seed=3").replay.is_none());
    let bad = decode("#v=1&view=replay&speed=50&t=1e300&pair=nope,nope&window=0");
    assert!(bad.problems.is_empty(), "the view reads its keys: {:?}", bad.problems);
    let (view, errors) = bad.replay.expect("the view").view();
    let said: Vec<(&str, &str)> = errors.iter().map(|e| (e.field.as_str(), e.value.as_str())).collect();
    assert_eq!(said, [("speed", "50"), ("t", "1e300"), ("pair", "nope,nope"), ("window", "0")]);
    assert_eq!(view, replay::View::default(), "a bad value keeps its default");
    assert_eq!(view.encode(), "&view=replay", "and the keys written back drop it");
    let (_, errors) = replay::Keys(alloc::vec![("view".into(), "movie".into())]).view();
    assert_eq!(errors[0].allowed, "replay");
    assert!(apply_strict(&mut Scenario::default(), "v=1&window=0").is_err());
    assert!(decode_strict("v=1&t=3").is_err(), "a scenario alone has no view keys");
}

#[test]
fn the_sweeps_figure_rides_with_it_before_or_after() {
    let link = "v=1&sweep=load=0.5..0.9:0.2&sweep-figure=largest-share";
    let d = decode(&alloc::format!("#{link}"));
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    let sweep = d.sweep.clone().expect("a sweep");
    assert_eq!(sweep.figure, Some(Figure::LargestShare));
    assert_eq!(encode_link(&d.scenario, None, &Views { sweep: Some(&sweep), ..Views::default() }), link);
    let before = decode("#v=1&sweep-figure=p99&sweep=load=0.5..0.9:0.2");
    assert_eq!(before.sweep.and_then(|s| s.figure), Some(Figure::P99));
    let old = decode("#v=1&sweep=load=0.5..0.9:0.2&sweep-figure=busiest-share");
    assert_eq!(old.sweep.and_then(|s| s.figure), Some(Figure::LargestShare));
    let bad = decode("#v=1&sweep=load=0.5..0.9:0.2&sweep-figure=mean");
    assert_eq!((bad.problems[0].field.as_str(), bad.problems[0].value.as_str()), ("sweep-figure", "mean"));
    let mut s = Scenario::default();
    apply_strict(&mut s, link).expect("a run ignores the figure");
}

#[test]
fn defaults_encode_to_the_version_alone() {
    assert_eq!(encode(&Scenario::default()), "v=1");
}

#[test]
fn the_documented_example_link_decodes() {
    let d = decode("https://example.org/lbsim/#v=1&slow-share=0.2&zipf=1.2&seed=7");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!((d.scenario.slow_share, d.scenario.zipf, d.scenario.seed), (0.2, 1.2, 7));
    assert_eq!(encode(&d.scenario), "v=1&slow-share=0.2&zipf=1.2&seed=7");
}

#[test]
fn bad_keys_and_values_are_reported_and_the_rest_applies() {
    let d = decode("#v=1&servers=0&colour=blue&seed=9&zipf=abc");
    let fields: Vec<&str> = d.problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["servers", "colour", "zipf"]);
    assert_eq!(d.scenario.seed, 9);
    assert_eq!(d.scenario.servers, 4, "a bad value falls back to the default");
    assert!(d.problems[0].allowed.contains("1 to 1024"));
}

#[test]
fn inconsistent_lists_fall_back() {
    let d = decode("v=1&servers=3&speeds=1,1");
    assert_eq!(d.problems.len(), 1);
    assert_eq!(d.problems[0].field, "speeds");
    assert!(d.scenario.speeds.is_empty());
    assert_eq!(d.scenario.servers, 3);
}

/// 100,000 distinct unknown keys: a list of the keys seen made this
/// quadratic (seconds to minutes, the page frozen meanwhile). Held by how
/// the time grows, not by a wall-clock limit (a busy machine stretches
/// both sizes alike): ten times the keys must take well under the hundred
/// times a quadratic decode would, the best of three of each.
#[cfg(feature = "std")]
#[test]
fn a_link_of_many_distinct_keys_decodes_in_about_linear_time() {
    let best = |keys: usize| {
        let link: Vec<String> = (0..keys).map(|i| alloc::format!("k{i}=1")).collect();
        let link = link.join("&");
        (0..3)
            .map(|_| {
                let start = std::time::Instant::now();
                let d = decode(&link);
                assert_eq!(d.problems.len(), keys);
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let (small, large) = (best(10_000), best(100_000));
    assert!(large < 35.0 * small, "10,000 keys {small:.3} s, 100,000 keys {large:.3} s");
}

/// Which of two values was meant is not the page's to guess: neither
/// applies, and the notice says so and quotes both.
#[test]
fn a_repeated_key_is_refused_whole() {
    let d = decode("v=1&servers=3&seed=9&servers=7");
    assert_eq!(d.problems.len(), 1);
    assert_eq!(
        d.problems[0].to_string(),
        "servers: '3' is not allowed; \
         allowed: the key once (the link gives it more than once; none of its values applies)"
    );
    assert_eq!((d.scenario.servers, d.scenario.seed), (Scenario::default().servers, 9), "the rest applies");
    let preset_twice = decode("v=1&preset=crash&preset=degraded&seed=9");
    assert_eq!((preset_twice.preset, preset_twice.problems[0].field.as_str()), (None, "preset"));
    let views = decode("v=1&view=replay&t=3&t=4&theme=dark&theme=light&sweep-figure=p99&sweep-figure=p99");
    let fields: Vec<&str> = views.problems.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["t", "theme", "sweep-figure"]);
    assert_eq!((views.replay.map(|k| k.0.len()), views.theme), (Some(1), None));
    assert!(decode("v=1&colour=1&colour=2").problems[0].is_unknown_key(), "a key that is no key is unknown");
    let e = decode_strict("v=1&seed=3&seed=4").expect_err("strict refuses it");
    assert_eq!(e.to_string(), "seed: '4' is not allowed; allowed: the key once (the link gives it more than once; none of its values applies)");
}

/// An unknown version keeps the rule of every key (it falls back, the
/// rest applies), and its notice says exactly that.
#[test]
fn an_unknown_version_is_said_and_the_rest_read_as_version_1() {
    let d = decode("v=2&servers=6");
    assert_eq!(d.scenario.servers, 6);
    assert_eq!(d.problems.len(), 1);
    assert_eq!(
        d.problems[0].to_string(),
        "v: '2' is not allowed; allowed: 1; the link's other keys were read as version 1's"
    );
    assert!(apply_strict(&mut Scenario::default(), "v=2&servers=6").is_err(), "the CLI refuses it");
}

#[test]
fn the_theme_is_a_view_key_runs_ignore() {
    let d = decode("#v=1&seed=3&theme=dark");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.theme, Some("dark"));
    assert_eq!(encode_link(&d.scenario, None, &d.views()), "v=1&seed=3&theme=dark", "kept in the link");
    let mut s = Scenario::default();
    apply_strict(&mut s, "v=1&seed=3&theme=light").expect("a run takes it");
    assert_eq!(s, Scenario { seed: 3, ..Scenario::default() }, "and it changes nothing");
    let bad = decode("#v=1&theme=blue");
    assert_eq!(bad.theme, None);
    assert_eq!(bad.problems[0].to_string(), "theme: 'blue' is not allowed; allowed: light, dark, auto");
    assert!(apply_strict(&mut Scenario::default(), "v=1&theme=blue").is_err());
}

/// A hostile link (a 200 KB value, 10,000 unknown keys) makes a notice
/// of a few short lines.
#[test]
fn a_notice_is_short_whatever_the_link() {
    let long = "s".repeat(200_000);
    let mut link = alloc::format!("v=1&names={long}&servers=0");
    for i in 0..10_000 {
        link += &alloc::format!("&k{i}=1");
    }
    let lines = notice(&decode(&link).problems);
    assert_eq!(lines.len(), 8, "{lines:?}");
    assert!(lines.iter().all(|l| l.chars().count() < 400), "{lines:?}");
    assert!(lines[0].starts_with("names: 'ssss"), "{}", lines[0]);
    assert!(lines[0].contains("…' (and 199,920 more characters) is not allowed"), "{}", lines[0]);
    assert_eq!(
        lines[2..7],
        ["'k0'", "'k1'", "'k2'", "'k3'", "'k4'"].map(|k| alloc::format!("unknown key {k} ignored"))
    );
    assert_eq!(lines[7], "and 9,995 more unknown keys ignored");
    assert_eq!(notice(&decode("v=1&colour=blue").problems), ["unknown key 'colour' ignored"]);
    // Every field wrong at once: the lines stop at the cap, counted.
    let all: Vec<String> = FIELDS.iter().map(|f| alloc::format!("{}=%00", f.key)).collect();
    let lines = notice(&decode(&all.join("&")).problems);
    assert_eq!(lines.len(), NOTICE_LINES);
    assert!(
        lines[NOTICE_LINES - 1].starts_with("and ") && lines[NOTICE_LINES - 1].ends_with(" more problems")
    );
}

/// Found by the fuzz harness: the ring limit names `vnodes`, which the
/// link left at its default; falling back to that default changed
/// nothing and the page got a scenario it could not run.
#[test]
fn a_ring_too_large_for_the_link_falls_back_to_a_valid_scenario() {
    let d = decode("servers=570&balancers=46");
    assert!(d.scenario.validate().is_ok(), "{:?}", d.scenario.validate());
    assert_eq!(d.problems.len(), 1);
    assert_eq!((d.problems[0].field.as_str(), d.problems[0].value.as_str()), ("balancers", "46"));
    assert!(d.problems[0].allowed.contains("ring points"));
    assert_eq!(d.scenario.servers, 570, "the rest of the link still applies");
}

#[test]
fn percent_escapes_are_read() {
    let d = decode("v=1&speeds=1%2C1%2C1%2C0.2");
    assert_eq!(d.scenario.speeds, [1.0, 1.0, 1.0, 0.2]);
}

/// A text field's `%`, `&` and `#` are escaped in the link, so it reads
/// back whole: written raw, `#` began a new fragment and the field read
/// back empty.
#[test]
fn a_text_fields_link_characters_survive_the_link() {
    let scenario = Scenario { log_format: Some("#a&b=%41 $msec".into()), ..Scenario::default() };
    let link = encode(&scenario);
    assert!(link.ends_with("log-format=%23a%26b=%2541 $msec"), "{link}");
    assert_eq!(decode_strict(&link), Ok(scenario));
}
