//! The share-link codec (docs/embedding.md#share-links): the scenario as readable
//! `key=value` pairs in the URL fragment, version first, defaults left out:
//! `#v=1&slow-share=0.2&zipf=1.2&seed=7`. Keys are the CLI flag names.
//!
//! Decoding is lenient, as the page needs: an unknown key or a bad value is
//! reported and falls back to that key's default while the rest applies; a
//! key given twice is reported and none of its values applies (which one
//! was meant is not for the page to guess). The CLI is strict: it turns
//! any reported problem into an error. [`notice`] is what a lenient reader
//! says of the problems, in few lines however hostile the link.
//!
//! `preset=NAME` is a key like any other: the preset's
//! scenario is the base the link's other keys apply to, and encoding over
//! a preset leaves out what equals the preset rather than the defaults.

use alloc::collections::BTreeSet;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::presets::{preset, Plot, Preset, PRESETS};
use crate::replay::{self, VIEW_KEYS};
use crate::scenario::{field_spec, thousands, Echo, Scenario, ScenarioError, FIELDS};
use crate::sweep::{Figure, Sweep};

/// The fragment format version.
pub const VERSION: &str = "1";

/// What the `theme=` view key takes (in the fragment, or in the page's
/// query): `auto` follows the reader's `prefers-color-scheme`, the others
/// override it. A run ignores it once it parses.
pub const THEMES: [&str; 3] = ["light", "dark", "auto"];

/// The theme a `theme=` value names, or the error naming the key.
fn theme(value: &str) -> Result<&'static str, ScenarioError> {
    THEMES.iter().copied().find(|t| *t == value).ok_or_else(|| ScenarioError {
        field: "theme".into(),
        value: value.into(),
        allowed: THEMES.join(", "),
    })
}

/// The fragment (without `#`) for a scenario: `v=1` and every field that
/// differs from its default, in table order.
pub fn encode(scenario: &Scenario) -> String {
    encode_over(scenario, None)
}

/// The whole fragment of the page's state: the scenario over its preset
/// ([`encode_over`]), then the sweep the reader set up, if any.
pub fn encode_link(scenario: &Scenario, base: Option<&Preset>, views: &Views) -> String {
    let mut out = encode_over(scenario, base);
    if let Some(sweep) = views.sweep {
        out.push_str("&sweep=");
        out.push_str(&sweep.spec);
        if let Some(figure) = sweep.figure {
            out.push_str("&sweep-figure=");
            out.push_str(figure.id());
        }
    }
    if let Some(keys) = views.replay {
        out.push_str(&keys.encode());
    }
    if let Some(theme) = views.theme {
        out.push_str("&theme=");
        out.push_str(theme);
    }
    out
}

/// What a link keeps besides the scenario: the views it opens, which
/// change nothing in a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Views<'a> {
    /// The sweep view.
    pub sweep: Option<&'a Sweep>,
    /// The replay view's keys.
    pub replay: Option<&'a replay::Keys>,
    /// The theme the link chose ([`THEMES`]).
    pub theme: Option<&'static str>,
}

/// The fragment for a scenario edited from a preset: `v=1&preset=NAME` and
/// every field that differs from the preset's scenario (without a preset,
/// [`encode`]).
pub fn encode_over(scenario: &Scenario, base: Option<&Preset>) -> String {
    let defaults = base.map_or_else(Scenario::default, Preset::scenario);
    let mut out = alloc::format!("v={VERSION}");
    if let Some(p) = base {
        out.push_str("&preset=");
        out.push_str(p.id);
    }
    for key in changed_keys(scenario, &defaults) {
        out.push('&');
        out.push_str(key);
        out.push('=');
        out.push_str(&scenario.get(key).unwrap_or_default());
    }
    out
}

/// The keys of the fields whose values differ between `scenario` and
/// `base`, in table order: what a link over a preset writes, and what a
/// front end names when a reader has edited the preset it shows.
pub fn changed_keys(scenario: &Scenario, base: &Scenario) -> Vec<&'static str> {
    FIELDS.iter().filter(|f| f.read(scenario) != f.read(base)).map(|f| f.key).collect()
}

/// The preset a link names (`preset=NAME`), if any: `Err` for a name that
/// is no preset. A preset named twice is none (the key's notice says so).
fn linked_preset(link: &str) -> Result<Option<&'static Preset>, ScenarioError> {
    let mut named = pairs(link).filter(|(k, _, _)| k == "preset");
    let (Some((_, name, _)), None) = (named.next(), named.next()) else { return Ok(None) };
    preset(&name).map(Some).ok_or_else(|| {
        let known: Vec<&str> = PRESETS.iter().map(|p| p.id).collect();
        ScenarioError { field: "preset".into(), value: name, allowed: known.join(", ") }
    })
}

/// A decoded link: the scenario and what could not be applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// The scenario, with defaults wherever the link had a problem.
    pub scenario: Scenario,
    /// One entry per unknown key or bad value.
    pub problems: Vec<ScenarioError>,
    /// The preset the link names, which its other keys apply over.
    pub preset: Option<&'static Preset>,
    /// The sweep the link asks for (`sweep=NAME=FROM..TO:STEP`, the page's
    /// sweep view; `lbsim sweep --param` takes the same text, and
    /// `sweep-figure=` its figure).
    pub sweep: Option<Sweep>,
    /// The replay view's keys the link gives ([`VIEW_KEYS`]), as given:
    /// `view=replay` opens the view ([`replay::Keys::open`]),
    /// [`replay::Keys::view`] reads them.
    pub replay: Option<replay::Keys>,
    /// The theme the link chose ([`THEMES`]).
    pub theme: Option<&'static str>,
}

impl Decoded {
    /// The views the link opens, as [`encode_link`] writes them back.
    pub fn views(&self) -> Views<'_> {
        Views { sweep: self.sweep.as_ref(), replay: self.replay.as_ref(), theme: self.theme }
    }
}

/// The most values a link's sweep may have: the page runs them all.
pub const MAX_LINK_SWEEP_VALUES: usize = 40;

/// The fragment of a link: what follows `#` in a full URL, or the text
/// itself without a leading `#`.
fn fragment(link: &str) -> &str {
    match link.find('#') {
        Some(i) => &link[i + 1..],
        None => link,
    }
}

/// `%XX` escapes decoded, as browsers may apply them to copied links.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The link's `key=value` pairs, percent-decoded, in order, each with
/// whether its key came earlier in the link.
fn pairs(link: &str) -> impl Iterator<Item = (String, String, bool)> + '_ {
    // A set, not a list: a hostile link of 100,000 distinct keys would
    // otherwise cost 5 x 10^9 comparisons before the page could answer.
    let mut seen: BTreeSet<String> = BTreeSet::new();
    fragment(link).split('&').filter(|p| !p.is_empty()).map(move |pair| {
        let (key, value) = match pair.split_once('=') {
            Some((k, v)) => (percent_decode(k), percent_decode(v)),
            None => (percent_decode(pair), String::new()),
        };
        let repeated = !seen.insert(key.clone());
        (key, value, repeated)
    })
}

/// A key the link gives more than once, with one of its values: refused
/// by the strict reader, and by the lenient one too (none of its values
/// applies).
fn repeated(key: String, value: String) -> ScenarioError {
    let allowed = "the key once (the link gives it more than once; none of its values applies)".into();
    ScenarioError { field: key, value, allowed }
}

/// Whether a link may give `key`: a field's, a view's, or the version,
/// the preset and the sweep's.
fn known_key(key: &str) -> bool {
    field_spec(key).is_some()
        || VIEW_KEYS.contains(&key)
        || ["v", "preset", "sweep", "sweep-figure", "theme"].contains(&key)
}

/// Applies one pair: the version must be ours; any other key is a field.
fn apply_pair(scenario: &mut Scenario, key: String, value: String) -> Result<(), ScenarioError> {
    if key == "v" {
        if value != VERSION {
            return Err(ScenarioError {
                field: key,
                value,
                allowed: alloc::format!("{VERSION} (link version)"),
            });
        }
        return Ok(());
    }
    if key == "preset" {
        // Applied first, as the base (`linked_preset`).
        return Ok(());
    }
    if key == "sweep" {
        // Not a scenario field: the page's sweep view reads it
        // (`Decoded::sweep`); a run ignores it once it parses.
        return Sweep::parse(&value, "sweep", MAX_LINK_SWEEP_VALUES).map(|_| ());
    }
    if key == "sweep-figure" {
        // The sweep view's figure: a run ignores it once it parses.
        return Figure::parse(&value).map(|_| ());
    }
    if key == "theme" {
        // How the page looks: a run ignores it once it parses.
        return theme(&value).map(|_| ());
    }
    scenario.set(&key, &value)
}

/// Applies a link's fields onto `scenario` strictly: the first wrong
/// version, unknown key or bad value is an error. Fields the link does not
/// name keep their values (the CLI lays a link over a preset or a file);
/// fields that disagree with each other are left to `Scenario::validate`.
pub fn apply_strict(scenario: &mut Scenario, link: &str) -> Result<(), ScenarioError> {
    // The replay view's keys: a run ignores them once they parse.
    apply_link(scenario, link, &|key, value| replay::View::default().set(key, value))
}

/// [`apply_strict`] with `view_key` for the keys of [`VIEW_KEYS`]: a
/// function, so that the reader of those keys is in a build only when
/// [`apply_strict`] is (the page reads only scenarios strictly).
fn apply_link(
    scenario: &mut Scenario,
    link: &str,
    view_key: &dyn Fn(&str, &str) -> Result<(), ScenarioError>,
) -> Result<(), ScenarioError> {
    // A link's preset replaces what the scenario was (a preset, a file).
    if let Some(p) = linked_preset(link)? {
        *scenario = p.scenario();
    }
    pairs(link).try_for_each(|(key, value, again)| {
        if again {
            return Err(repeated(key, value));
        }
        if VIEW_KEYS.contains(&key.as_str()) {
            return view_key(&key, &value);
        }
        apply_pair(scenario, key, value)
    })
}

/// Decodes a share link (a full URL or just its fragment), leniently.
pub fn decode(link: &str) -> Decoded {
    let mut problems = Vec::new();
    let preset = linked_preset(link).unwrap_or_else(|e| {
        problems.push(e);
        None
    });
    let mut scenario = preset.map_or_else(Scenario::default, Preset::scenario);
    // The table's keys the link set, in the order they last applied.
    let mut applied: Vec<&'static str> = Vec::new();
    let mut sweep: Option<Sweep> = None;
    let mut figure = None;
    let mut theme_key = None;
    let mut view = replay::Keys::default();
    // The keys given more than once (a set filled by insertion: collecting
    // one sorts, and a sort costs the page's first visit kilobytes).
    let mut repeats = BTreeSet::new();
    for (key, _, again) in pairs(link) {
        if again {
            repeats.insert(key);
        }
    }
    for (key, value, again) in pairs(link) {
        if repeats.contains(&key) {
            // Said once, with its first value; none of its values
            // applies. A key that is no key is said as unknown.
            if !again {
                problems.push(if known_key(&key) {
                    repeated(key, value)
                } else {
                    ScenarioError::unknown_key(&key, &value)
                });
            }
            continue;
        }
        if key == "theme" {
            theme_key = theme(&value).map_err(|e| problems.push(e)).ok();
            continue;
        }
        if key == "sweep" {
            // Parsed once, here; the later of repeated ones applies.
            sweep = Sweep::parse(&value, "sweep", MAX_LINK_SWEEP_VALUES).map_err(|e| problems.push(e)).ok();
            continue;
        }
        if key == "sweep-figure" {
            figure = Figure::parse(&value).map_err(|e| problems.push(e)).ok();
            continue;
        }
        if VIEW_KEYS.contains(&key.as_str()) {
            // Kept as given, read only by `replay::Keys::view` (the page's
            // replay says a bad one at the top and writes the rest back).
            view.0.push((key, value));
            continue;
        }
        if key == "v" && value != VERSION {
            // The version falls back and the rest applies
            // (docs/embedding.md#share-links): the notice says so.
            problems.push(ScenarioError {
                field: key,
                value,
                allowed: alloc::format!("{VERSION}; the link's other keys were read as version {VERSION}'s"),
            });
            continue;
        }
        match apply_pair(&mut scenario, key.clone(), value) {
            Ok(()) => {
                if let Some(field) = field_spec(&key) {
                    applied.retain(|k| *k != field.key);
                    applied.push(field.key);
                }
            }
            Err(e) => problems.push(e),
        }
    }
    // Fields that are fine alone but not together (one speed per server):
    // report the field and fall back to its default, until all agree. When
    // the field named is at its default already (a ring too large for the
    // servers and copies the link asks for), the link's own fields fall
    // back instead, the last one first.
    let defaults = preset.map_or_else(Scenario::default, Preset::scenario);
    // Each round moves a field to its default for good or drops one of the
    // link's keys from the candidates, so twice the fields bound the
    // rounds; whatever still disagrees after them falls back whole.
    for _ in 0..2 * FIELDS.len() {
        let Err(e) = scenario.validate() else { break };
        let named = defaults.get(&e.field);
        if scenario.get(&e.field) != named && field_spec(&e.field).is_some() {
            let _ = scenario.set(&e.field, &named.unwrap_or_default());
            problems.push(e);
        } else if let Some(key) = applied.pop() {
            let value = scenario.get(key).unwrap_or_default();
            if value != defaults.get(key).unwrap_or_default() {
                let _ = scenario.set(key, &defaults.get(key).unwrap_or_default());
                problems.push(ScenarioError { field: key.to_string(), value, allowed: e.allowed });
            }
        } else {
            break;
        }
    }
    if let Err(e) = scenario.validate() {
        scenario = defaults;
        problems.push(e);
    }
    if let Some(sweep) = sweep.as_mut() {
        sweep.figure = figure;
    }
    Decoded {
        scenario,
        problems,
        preset,
        sweep,
        replay: (!view.0.is_empty()).then_some(view),
        theme: theme_key,
    }
}

/// The most lines [`notice`] writes.
pub const NOTICE_LINES: usize = 8;

/// The most unknown keys [`notice`] names.
const UNKNOWN_KEYS_NAMED: u64 = 5;

/// What a lenient reader of a link (the page) says of its problems: one
/// line per problem, each value cut ([`Echo`]); the first few unknown keys
/// a line each and the rest counted in one; and at most [`NOTICE_LINES`]
/// lines, the rest counted, so that no link (10,000 unknown keys, a 200 KB
/// value) makes a notice longer than a screen.
pub fn notice(problems: &[ScenarioError]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut unknown = 0;
    for e in problems {
        if !e.is_unknown_key() {
            lines.push(e.to_string());
            continue;
        }
        unknown += 1;
        if unknown <= UNKNOWN_KEYS_NAMED {
            lines.push(alloc::format!("unknown key {} ignored", Echo::quoted(&e.field)));
        }
    }
    if unknown > UNKNOWN_KEYS_NAMED {
        lines.push(alloc::format!(
            "and {} more unknown keys ignored",
            thousands(unknown - UNKNOWN_KEYS_NAMED)
        ));
    }
    capped(lines)
}

/// At most [`NOTICE_LINES`] of a notice's `lines`, the last counting
/// those left out: what a front end says of a link or an address it reads
/// leniently.
pub fn capped(mut lines: Vec<String>) -> Vec<String> {
    if lines.len() > NOTICE_LINES {
        let more = lines.len() - (NOTICE_LINES - 1);
        lines.truncate(NOTICE_LINES - 1);
        lines.push(alloc::format!("and {} more problems", thousands(more as u64)));
    }
    lines
}

/// Decodes a share link strictly: the first problem is an error.
/// Only the scenario's own keys: a view's key is unknown here (the link of
/// a scenario alone, as [`encode`] writes it).
pub fn decode_strict(link: &str) -> Result<Scenario, ScenarioError> {
    let mut scenario = Scenario::default();
    apply_link(&mut scenario, link, &|key, value| Scenario::default().set(key, value))?;
    scenario.validate()?;
    Ok(scenario)
}

/// The full share URL: `base` (its own fragment dropped) + `#` + fragment.
pub fn share_url(base: &str, scenario: &Scenario) -> String {
    share_url_over(base, scenario, None)
}

/// The full share URL of a scenario edited from `preset` ([`encode_over`]).
pub fn share_url_over(base: &str, scenario: &Scenario, preset: Option<&Preset>) -> String {
    share_link(base, scenario, preset, &Views::default())
}

/// The share link of a scenario over its preset with the views it opens
/// ([`encode_link`]): what `lbsim url` prints for a link it was given.
pub fn share_link(base: &str, scenario: &Scenario, preset: Option<&Preset>, views: &Views) -> String {
    let base = base.split('#').next().unwrap_or_default();
    base.to_string() + "#" + &encode_link(scenario, preset, views)
}

/// The plots an embed shows unless its `plots=` lists others
/// (docs/embedding.md#what-an-embed-shows-keys-and-defaults): the
/// lesson's plot and the results table (the remapping panel carries its
/// own table, so alone); without a preset, the latency plot and the table.
pub fn embed_plots(preset: Option<&Preset>) -> Vec<Plot> {
    match preset.map_or(Plot::Cdf, |p| p.plot) {
        Plot::Remap => alloc::vec![Plot::Remap],
        plot => alloc::vec![plot, Plot::Table],
    }
}

/// The address an iframe embeds (docs/embedding.md#embedding-a-scenario): `base` (its own query
/// and fragment dropped), `?embed=1&plots=` the preset's [`embed_plots`]
/// (and the sweep, when there is one), then the link's fragment. The
/// page's "copy embed code" and `lbsim url --embed` both write it.
pub fn embed_url(base: &str, scenario: &Scenario, preset: Option<&Preset>, views: &Views) -> String {
    let base = base.split(['?', '#']).next().unwrap_or_default();
    let mut plots = embed_plots(preset);
    if views.sweep.is_some() {
        plots.push(Plot::Sweep);
    }
    let ids: Vec<&str> = plots.iter().map(|p| p.id()).collect();
    alloc::format!("{base}?embed=1&plots={}#{}", ids.join(","), encode_link(scenario, preset, views))
}

#[cfg(test)]
mod tests {
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
        let link = "v=1&preset=crash&seed=4&view=replay&pair=round-robin,least-connections&t=12.5&speed=2&window=2000";
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
        assert_eq!(
            (bad.problems[0].field.as_str(), bad.problems[0].value.as_str()),
            ("sweep-figure", "mean")
        );
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
    /// quadratic (seconds to minutes, the page frozen meanwhile).
    #[cfg(feature = "std")]
    #[test]
    fn a_link_of_many_distinct_keys_decodes_in_about_linear_time() {
        let link: Vec<String> = (0..100_000).map(|i| alloc::format!("k{i}=1")).collect();
        let start = std::time::Instant::now();
        let d = decode(&link.join("&"));
        assert_eq!(d.problems.len(), 100_000);
        assert!(start.elapsed().as_secs_f64() < 2.0, "took {:?}", start.elapsed());
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
        assert_eq!(
            (d.scenario.servers, d.scenario.seed),
            (Scenario::default().servers, 9),
            "the rest applies"
        );
        let preset_twice = decode("v=1&preset=crash&preset=degraded&seed=9");
        assert_eq!((preset_twice.preset, preset_twice.problems[0].field.as_str()), (None, "preset"));
        let views =
            decode("v=1&view=replay&t=3&t=4&theme=dark&theme=light&sweep-figure=p99&sweep-figure=p99");
        let fields: Vec<&str> = views.problems.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["t", "theme", "sweep-figure"]);
        assert_eq!((views.replay.map(|k| k.0.len()), views.theme), (Some(1), None));
        assert!(
            decode("v=1&colour=1&colour=2").problems[0].is_unknown_key(),
            "a key that is no key is unknown"
        );
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
            lines[NOTICE_LINES - 1].starts_with("and ")
                && lines[NOTICE_LINES - 1].ends_with(" more problems")
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
}
