//! `lbsim list`: the core's registries as text, so the docs show them as
//! checked examples instead of tables kept by hand: the rules, the presets
//! (with their lessons), the scenario's fields, the fleet's event kinds
//! and the sweep's figures.

use clap::{Args, ValueEnum};
use lbsim_core::events::EventKind;
use lbsim_core::presets::PRESETS;
use lbsim_core::scenario::FIELDS;
use lbsim_core::sweep::Figure;
use lbsim_core::AlgorithmId;

use crate::flags::field_help;
use crate::outcome::{print, Failure};

/// What to list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Registry {
    /// The rules, in the order every front end shows them.
    Rules,
    /// The presets and their titles.
    Presets,
    /// The presets with their lessons.
    Lessons,
    /// The scenario's fields: the link keys, flags and JSON names.
    Fields,
    /// The kinds of fleet event (`events=TIME:SERVER:KIND`).
    Events,
    /// The figures a sweep plots (`--figure`, `sweep-figure=`).
    Figures,
}

#[derive(Args)]
pub struct ListArgs {
    /// What to list.
    #[arg(value_enum)]
    pub what: Registry,
}

/// Width a listing wraps its text at.
const WIDTH: usize = 96;

/// Rows of an id and its text, the ids in a column as wide as the longest.
fn rows<'a>(rows: impl Iterator<Item = (&'a str, String)>) -> String {
    let rows: Vec<(&str, String)> = rows.collect();
    let width = rows.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
    rows.iter().map(|(id, text)| format!("{id:<width$}  {text}\n")).collect()
}

/// `text` wrapped at [`WIDTH`], each line indented by `indent` spaces.
fn wrapped(text: &str, indent: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent + line.len() + 1 + word.len() > WIDTH {
            out += &format!("{:indent$}{line}\n", "");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += word;
    }
    if !line.is_empty() {
        out += &format!("{:indent$}{line}\n", "");
    }
    out
}

/// The listing of `what`.
pub fn listing(what: Registry) -> String {
    match what {
        Registry::Rules => rows(AlgorithmId::ALL.iter().map(|r| (r.id(), r.description().to_string()))),
        Registry::Presets => rows(PRESETS.iter().map(|p| (p.id, p.title.to_string()))),
        Registry::Lessons => PRESETS
            .iter()
            .map(|p| format!("{}: {}\n{}", p.id, p.title, wrapped(p.lesson, 4)))
            .collect::<Vec<_>>()
            .join("\n"),
        Registry::Fields => {
            rows(FIELDS.iter().map(|f| (f.key, format!("{}: {}", f.group.id(), field_help(f.key)))))
        }
        Registry::Events => rows(EventKind::ALL.iter().map(|k| (k.name(), k.meaning().to_string()))),
        Registry::Figures => rows(Figure::ALL.iter().map(|f| (f.id(), f.meaning().to_string()))),
    }
}

pub fn list(args: &ListArgs) -> Result<(), Failure> {
    print(&listing(args.what))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every registered rule, preset and figure is listed, one a line.
    #[test]
    fn every_entry_of_a_registry_is_listed() {
        assert_eq!(listing(Registry::Rules).lines().count(), AlgorithmId::ALL.len());
        assert_eq!(listing(Registry::Presets).lines().count(), PRESETS.len());
        assert_eq!(listing(Registry::Fields).lines().count(), FIELDS.len());
        assert_eq!(listing(Registry::Events).lines().count(), EventKind::ALL.len());
        assert_eq!(listing(Registry::Figures).lines().count(), Figure::ALL.len());
        for p in PRESETS {
            assert!(listing(Registry::Lessons).contains(&format!("{}: {}\n", p.id, p.title)));
        }
    }

    #[test]
    fn lessons_wrap_without_losing_a_word() {
        let text = wrapped(PRESETS[0].lesson, 4);
        assert!(text.lines().all(|l| l.len() <= WIDTH && l.starts_with("    ")));
        let words: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(words, PRESETS[0].lesson.split_whitespace().collect::<Vec<_>>());
    }
}
