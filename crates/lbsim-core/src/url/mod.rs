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
use crate::scenario::{field_spec, Scenario, ScenarioError, FIELDS};
use crate::sweep::{Figure, Sweep};

mod notice;
pub use notice::{capped, notice, NOTICE_LINES};

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
        push_escaped(&mut out, &scenario.get(key).unwrap_or_default());
    }
    out
}

/// `value` as a link carries it: the characters that would end the pair
/// (`&`), begin the fragment (`#`) or read as an escape (`%`) escaped, so a
/// text field such as `log-format` reads back as it was written.
fn push_escaped(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '%' => out.push_str("%25"),
            '&' => out.push_str("%26"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
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
mod tests;
