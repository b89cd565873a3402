//! Where a scenario comes from: a preset, a JSON file, a share link and the
//! scenario flags, applied in that order. The flags are built from the
//! core's one table of ranges (`scenario::FIELDS`), one per URL key, and
//! applied with `Scenario::set`, so no range is written down here. Each
//! command takes the fields that apply to it ([`FieldSet`]): `run`, `url`
//! and `sweep` all of them, `trace` those its picks depend on, `remap`
//! those that place a ring.

use std::collections::BTreeSet;
use std::io::Read;
use std::marker::PhantomData;
use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use lbsim_core::presets::{Preset, PRESETS};
use lbsim_core::scenario::{
    field_spec, Field, FieldKind, FAILURE_KEYS, FIELDS, OLD_KEYS, PLACEMENT_KEYS, POOL_KEYS,
};
use lbsim_core::{url, AlgorithmId, Scenario, ScenarioError};

use crate::outcome::{bad, Failure};

/// What a scenario flag's value looks like, for `--help`.
fn value_name(field: &Field) -> &'static str {
    match field.kind {
        FieldKind::Integer => "N",
        FieldKind::Real => "X",
        FieldKind::Choice => "ID",
        FieldKind::NumberList | FieldKind::NameList => "LIST",
        FieldKind::Events => "EVENTS",
        FieldKind::Text => "TEXT",
    }
}

/// The help line of a scenario field: what it means, its range, its default.
pub fn field_help(key: &str) -> String {
    let Some(field) = field_spec(key) else {
        return String::new();
    };
    let range = match field.kind {
        FieldKind::Integer | FieldKind::Real => format!("{}: {} to {}", field.meaning, field.min, field.max),
        FieldKind::NumberList => {
            format!("{}: comma-separated, each {} to {}", field.meaning, field.min, field.max)
        }
        FieldKind::NameList if key == "names" => {
            format!("{}, at most {} characters", field.meaning, field.max)
        }
        FieldKind::NameList | FieldKind::Events => format!("{}: {}", field.meaning, field.allowed()),
        FieldKind::Text => format!("{}, at most {} characters", field.meaning, field.max),
        FieldKind::Choice => field.allowed(),
    };
    let default = match (key, Scenario::default().get(key)) {
        // The classic rules, so a scenario's report keeps its rules as the
        // current ones are added (`AlgorithmId::classic`).
        ("algorithms", _) => {
            let current: Vec<&str> =
                AlgorithmId::ALL.iter().filter(|a| a.is_current()).map(|a| a.id()).collect();
            if current.is_empty() {
                "all".to_string()
            } else {
                format!("all but {}", current.join(", "))
            }
        }
        ("names", _) => "s1..sN".to_string(),
        ("events", _) => "none: a fixed, healthy pool".to_string(),
        (_, Some(text)) if text.is_empty() => "all 1".to_string(),
        (_, Some(text)) => text,
        ("rate", None) => "from load".to_string(),
        (_, None) => "unset".to_string(),
    };
    capitalized(&format!("{range} [default: {default}]"))
}

/// Help text starts with a capital, as clap's own does.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// One `--key VALUE` flag for a field of the table.
pub fn field_arg(field: &'static Field) -> Arg {
    // A field's old key stays a flag (`--ring`), unlisted.
    let old = OLD_KEYS.iter().filter(|(_, new)| *new == field.key).map(|(old, _)| *old);
    Arg::new(field.key)
        .long(field.key)
        .aliases(old)
        .value_name(value_name(field))
        .help(field_help(field.key))
        .action(ArgAction::Set)
        // Negative numbers reach the range check, which names the range.
        .allow_negative_numbers(true)
}

/// Which fields of the table a command takes as flags.
pub trait FieldSet {
    /// Whether the command takes `field`.
    fn takes(field: &Field) -> bool;
}

/// Every field: `run`, `url` and `sweep`.
#[derive(Clone, Copy, Debug, Default)]
pub struct AllFields;

impl FieldSet for AllFields {
    fn takes(_: &Field) -> bool {
        true
    }
}

/// The fields a rule's picks depend on, failures included: `trace`.
#[derive(Clone, Copy, Debug, Default)]
pub struct PickFields;

impl FieldSet for PickFields {
    fn takes(field: &Field) -> bool {
        POOL_KEYS.contains(&field.key) || FAILURE_KEYS.contains(&field.key) || PlacementFields::takes(field)
    }
}

/// The fields that place a hashing rule's servers and keys: `remap`.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlacementFields;

impl FieldSet for PlacementFields {
    fn takes(field: &Field) -> bool {
        PLACEMENT_KEYS.contains(&field.key)
    }
}

/// The scenario flags of the fields in `S`, as given: (key, text) in
/// table order.
#[derive(Clone, Debug)]
pub struct ScenarioFlags<S = AllFields> {
    values: Vec<(&'static str, String)>,
    set: PhantomData<S>,
}

impl<S: FieldSet> ScenarioFlags<S> {
    /// The fields of the table this command takes.
    fn fields() -> impl Iterator<Item = &'static Field> {
        FIELDS.iter().filter(|field| S::takes(field))
    }

    /// The text given for `key`, if any.
    pub fn given(&self, key: &str) -> Option<&str> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, text)| text.as_str())
    }

    /// Sets the given fields of `scenario`, each checked by the table.
    pub fn apply(&self, scenario: &mut Scenario) -> Result<(), Failure> {
        for (key, text) in &self.values {
            scenario.set(key, text)?;
        }
        Ok(())
    }
}

impl<S: FieldSet> FromArgMatches for ScenarioFlags<S> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = ScenarioFlags { values: Vec::new(), set: PhantomData };
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for field in Self::fields() {
            if let Some(text) = matches.get_one::<String>(field.key) {
                self.values.retain(|(key, _)| *key != field.key);
                self.values.push((field.key, text.clone()));
            }
        }
        Ok(())
    }
}

impl<S: FieldSet> Args for ScenarioFlags<S> {
    fn augment_args(cmd: Command) -> Command {
        let cmd = cmd.next_help_heading("Scenario flags (the share link's keys)");
        // The flags after these go back under the default heading.
        Self::fields()
            .fold(cmd, |cmd, field| cmd.arg(field_arg(field)))
            .next_help_heading(None::<&'static str>)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// The presets `lbsim run` takes (those that are runs, not remappings).
fn run_presets() -> impl Iterator<Item = &'static Preset> {
    PRESETS.iter().filter(|p| !p.remapping)
}

fn preset_help() -> String {
    let ids: Vec<&str> = run_presets().map(|p| p.id).collect();
    format!("Start from a preset: {} [default: mixed, the defaults]", ids.join(", "))
}

/// A scenario from a preset, a file, a link and flags.
#[derive(Args, Clone, Debug)]
pub struct Sources {
    #[arg(long, value_name = "NAME", help = preset_help())]
    pub preset: Option<String>,
    /// Scenario JSON file (kebab-case keys, as in the report's `scenario`; `-` reads stdin)
    #[arg(long, value_name = "FILE.json")]
    pub scenario: Option<PathBuf>,
    /// A share link, or just its fragment (`v=1&slow-share=0.2`); strict: any unknown key or bad value is an error
    #[arg(long, value_name = "LINK")]
    pub url: Option<String>,
    #[command(flatten)]
    pub flags: ScenarioFlags,
}

/// Copies the named fields of `from` onto `to`, through the range checks.
fn apply_fields(to: &mut Scenario, from: &Scenario, keys: &BTreeSet<&'static str>) -> Result<(), Failure> {
    for key in keys {
        to.set(key, &from.get(key).unwrap_or_default())?;
    }
    Ok(())
}

impl Sources {
    /// The preset named by `--preset`, if any.
    pub fn preset(&self) -> Result<Option<&'static Preset>, Failure> {
        let Some(id) = &self.preset else {
            return Ok(None);
        };
        match run_presets().find(|p| p.id == id) {
            Some(p) => Ok(Some(p)),
            None => {
                let ids: Vec<&str> = run_presets().map(|p| p.id).collect();
                let also = PRESETS.iter().filter(|p| p.remapping).map(|p| p.id).collect::<Vec<_>>();
                Err(bad(
                    "preset",
                    id,
                    format!("{} ({} is for `lbsim remap`)", ids.join(", "), also.join(", ")),
                ))
            }
        }
    }

    /// The scenario: preset, then file, then link, then flags; each source
    /// overrides only the fields it names. Checked as a whole at the end.
    pub fn scenario(&self) -> Result<Scenario, Failure> {
        let scenario = self.unchecked()?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// Whether the servers were given on the command line (`--servers`,
    /// `--names`): a log's servers are then not the fleet.
    pub fn fleet_given(&self) -> bool {
        self.flags.given("servers").is_some() || self.flags.given("names").is_some()
    }

    /// The fields given on the command line that have no effect on
    /// `scenario` (`--retries` without events, `--load` with a rate): a
    /// note each, as `run` and `sweep` both print them.
    pub fn without_effect(&self, scenario: &Scenario) -> Vec<String> {
        self.flags
            .values
            .iter()
            .filter(|(key, _)| !scenario.uses(key))
            .map(|(key, _)| format!("note: --{key} has no effect on this scenario"))
            .collect()
    }

    /// The scenario with every source laid over the other, each field
    /// checked alone but not the fields against each other: a sweep's base
    /// (its values decide, say, how many servers the names must fit).
    pub fn unchecked(&self) -> Result<Scenario, Failure> {
        let mut scenario = self.preset()?.map_or_else(Scenario::default, Preset::scenario);
        if let Some(path) = &self.scenario {
            let (from, keys) = read_scenario_file(path)?;
            apply_fields(&mut scenario, &from, &keys)?;
        }
        if let Some(link) = &self.url {
            url::apply_strict(&mut scenario, link)?;
        }
        self.flags.apply(&mut scenario)?;
        Ok(scenario)
    }
}

/// Most bytes a scenario file may have. A full one (1,024 names, speeds
/// and weights) is under 64 KiB; the cap keeps `--scenario /dev/zero` or a
/// log file from filling memory before the parser can object.
pub const MAX_SCENARIO_BYTES: u64 = 256 * 1024;

/// Reads at most [`MAX_SCENARIO_BYTES`] of a scenario file; more is an error.
fn read_capped(source: impl Read, shown: &str) -> Result<String, Failure> {
    let unreadable = |e: std::io::Error| bad("scenario", shown, format!("a readable JSON scenario ({e})"));
    let mut bytes = Vec::new();
    source.take(MAX_SCENARIO_BYTES + 1).read_to_end(&mut bytes).map_err(unreadable)?;
    if bytes.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(bad(
            "scenario",
            shown,
            format!(
                "a JSON scenario of at most {} KiB ({MAX_SCENARIO_BYTES} bytes)",
                MAX_SCENARIO_BYTES / 1024
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| bad("scenario", shown, format!("a JSON scenario in UTF-8 ({e})")))
}

/// When a JSON object reads but a value in it has the wrong type
/// (`{"retries": "1"}`), the field that refuses it, read alone: serde's
/// own message gives only a line and a column.
fn field_at_fault(text: &str) -> Option<Failure> {
    let object: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).ok()?;
    object.into_iter().find_map(|(key, value)| {
        let alone = serde_json::Value::Object(std::iter::once((key.clone(), value.clone())).collect());
        let e = serde_json::from_value::<Scenario>(alone).err()?;
        let Some(field) = field_spec(&key) else {
            return Some(Failure::from(ScenarioError::unknown_key(&key, &value.to_string())));
        };
        Some(bad(&key, &value.to_string(), format!("{} ({e})", field.allowed())))
    })
}

/// A scenario file: the scenario and the fields it names.
fn read_scenario_file(path: &PathBuf) -> Result<(Scenario, BTreeSet<&'static str>), Failure> {
    let shown = path.display().to_string();
    let text = if shown == "-" {
        read_capped(std::io::stdin().lock(), &shown)?
    } else {
        let file = std::fs::File::open(path)
            .map_err(|e| bad("scenario", &shown, format!("a readable JSON scenario file ({e})")))?;
        read_capped(file, &shown)?
    };
    let invalid = |e: serde_json::Error| {
        bad("scenario", &shown, format!("a JSON object with the scenario's kebab-case fields ({e})"))
    };
    // Editors on Windows may start UTF-8 files with a byte order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let scenario: Scenario = match serde_json::from_str(text) {
        Ok(scenario) => scenario,
        Err(e) => return Err(field_at_fault(text).unwrap_or_else(|| invalid(e))),
    };
    // Each field alone, before other sources are laid over it: a name with
    // a comma must not become two names on the way.
    scenario.check_fields()?;
    let object: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).map_err(invalid)?;
    let keys = object.keys().filter_map(|k| field_spec(k)).map(|f| f.key).collect();
    Ok((scenario, keys))
}
