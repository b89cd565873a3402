//! A field's type decides how its text form (a URL value, a CLI flag's
//! argument) reads and writes back, and, for a choice, which values it
//! takes: the page's selects, the CLI's help and the fuzz generators all
//! read those from here.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use super::error::ScenarioError;
use super::kinds::{CheckKind, Layer, LogKind, WorkFrom, WorkKind};
use super::spec::{name_problem, Choice, Spec};
use crate::balancer::builder::Builder;
use crate::balancer::AlgorithmId;
use crate::events::Events;
use crate::hash::HashFn;

/// A scenario field's type: how its text form reads, checked against the
/// field's row, and writes back.
pub(super) trait FieldValue: Sized {
    fn parse(field: &Spec, text: &str) -> Result<Self, ScenarioError>;
    fn text(&self) -> Option<String>;
    /// The values a choice takes; none for numbers, lists and events.
    fn choices() -> Vec<Choice> {
        Vec::new()
    }
}

fn format_list<T: fmt::Display>(items: &[T]) -> String {
    let parts: Vec<String> = items.iter().map(|x| x.to_string()).collect();
    parts.join(",")
}

/// Each of a kind's values, shown by its id.
fn by_id<T: Copy>(all: &[T], id: fn(T) -> &'static str) -> Vec<Choice> {
    all.iter().map(|&v| Choice { id: id(v), label: id(v) }).collect()
}

impl FieldValue for u32 {
    fn parse(field: &Spec, text: &str) -> Result<u32, ScenarioError> {
        // The table's ranges keep every u32 field far below u32::MAX.
        Ok(field.parse_integer(text)? as u32)
    }
    fn text(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl FieldValue for u64 {
    fn parse(field: &Spec, text: &str) -> Result<u64, ScenarioError> {
        field.parse_integer(text)
    }
    fn text(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl FieldValue for f64 {
    fn parse(field: &Spec, text: &str) -> Result<f64, ScenarioError> {
        field.parse_real(text)
    }
    fn text(&self) -> Option<String> {
        Some(self.to_string())
    }
}

/// A switch: `true` or `false`, as JSON writes it; `1` and `0`, the
/// links' and flags' older form, still read.
impl FieldValue for bool {
    fn parse(field: &Spec, text: &str) -> Result<bool, ScenarioError> {
        match text.trim() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(field.error(text)),
        }
    }
    fn text(&self) -> Option<String> {
        Some(if *self { "true" } else { "false" }.to_string())
    }
    fn choices() -> Vec<Choice> {
        alloc::vec![Choice { id: "false", label: "no" }, Choice { id: "true", label: "yes" }]
    }
}

/// The rate: empty means "derive it from load".
impl FieldValue for Option<f64> {
    fn parse(field: &Spec, text: &str) -> Result<Option<f64>, ScenarioError> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        field.parse_real(text).map(Some)
    }
    fn text(&self) -> Option<String> {
        self.map(|x| x.to_string())
    }
}

/// The hash: empty means each rule's own default.
impl FieldValue for Option<HashFn> {
    fn parse(field: &Spec, text: &str) -> Result<Option<HashFn>, ScenarioError> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        text.trim().parse().map(Some).map_err(|_| field.error(text))
    }
    fn text(&self) -> Option<String> {
        self.map(|h| h.id().to_string())
    }
    fn choices() -> Vec<Choice> {
        let unset = Choice { id: "", label: "each rule's default" };
        core::iter::once(unset).chain(by_id(&HashFn::ALL, HashFn::id)).collect()
    }
}

/// Fields that take one of a fixed set of ids, listed by the kind's `ALL`.
macro_rules! choice {
    ($($choice:ty),*) => {$(
        impl FieldValue for $choice {
            fn parse(field: &Spec, text: &str) -> Result<$choice, ScenarioError> {
                text.trim().parse().map_err(|_| field.error(text))
            }
            fn text(&self) -> Option<String> {
                Some(self.id().to_string())
            }
            fn choices() -> Vec<Choice> {
                by_id(&<$choice>::ALL, <$choice>::id)
            }
        }
    )*};
}
choice!(WorkKind, Builder, CheckKind, WorkFrom);

/// The layer: its id is the number, the select says what it places.
impl FieldValue for Layer {
    fn parse(field: &Spec, text: &str) -> Result<Layer, ScenarioError> {
        text.trim().parse().map_err(|_| field.error(text))
    }
    fn text(&self) -> Option<String> {
        Some(self.id().to_string())
    }
    fn choices() -> Vec<Choice> {
        Layer::ALL
            .iter()
            .map(|&l| Choice {
                id: l.id(),
                label: match l {
                    Layer::L7 => "7 (requests)",
                    Layer::L4 => "4 (connections)",
                },
            })
            .collect()
    }
}

/// Speeds, one per server.
impl FieldValue for Vec<f64> {
    fn parse(field: &Spec, text: &str) -> Result<Vec<f64>, ScenarioError> {
        field.parse_list(text, |part| field.parse_real(part))
    }
    fn text(&self) -> Option<String> {
        Some(format_list(self))
    }
}

/// Weights, one per server.
impl FieldValue for Vec<u32> {
    fn parse(field: &Spec, text: &str) -> Result<Vec<u32>, ScenarioError> {
        field.parse_list(text, |part| u32::parse(field, part))
    }
    fn text(&self) -> Option<String> {
        Some(format_list(self))
    }
}

/// Server names, one per server.
impl FieldValue for Vec<String> {
    fn parse(field: &Spec, text: &str) -> Result<Vec<String>, ScenarioError> {
        if text.trim().is_empty() {
            return Ok(Vec::new());
        }
        text.split(',')
            .map(str::trim)
            .map(|part| match name_problem(part) {
                None => Ok(part.to_string()),
                Some(why) => Err(ScenarioError {
                    field: field.key.to_string(),
                    value: part.to_string(),
                    allowed: format!("{why}; {}", field.allowed()),
                }),
            })
            .collect()
    }
    fn text(&self) -> Option<String> {
        Some(self.join(","))
    }
}

/// A subset of the rules, kept in canonical order; never empty.
impl FieldValue for Vec<AlgorithmId> {
    fn parse(field: &Spec, text: &str) -> Result<Vec<AlgorithmId>, ScenarioError> {
        let picked: Vec<AlgorithmId> = field
            .parse_list(text, |part| part.trim().parse::<AlgorithmId>().map_err(|_| field.error(part)))?;
        if picked.is_empty() {
            return Err(field.error(text));
        }
        Ok(AlgorithmId::ALL.iter().copied().filter(|a| picked.contains(a)).collect())
    }
    fn text(&self) -> Option<String> {
        let ids: Vec<&str> = self.iter().map(|a| a.id()).collect();
        Some(ids.join(","))
    }
}

/// Fleet events: their own parser names the item at fault.
impl FieldValue for Events {
    fn parse(field: &Spec, text: &str) -> Result<Events, ScenarioError> {
        Events::parse(text).map_err(|item| ScenarioError {
            field: field.key.to_string(),
            value: item,
            allowed: field.allowed(),
        })
    }
    fn text(&self) -> Option<String> {
        Some(self.to_string())
    }
}

/// The log's kind: empty means detected from its lines.
impl FieldValue for Option<LogKind> {
    fn parse(field: &Spec, text: &str) -> Result<Option<LogKind>, ScenarioError> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        text.trim().parse().map(Some).map_err(|_| field.error(text))
    }
    fn text(&self) -> Option<String> {
        self.map(|k| k.id().to_string())
    }
    fn choices() -> Vec<Choice> {
        let unset = Choice { id: "", label: "detected" };
        core::iter::once(unset).chain(by_id(&LogKind::ALL, LogKind::id)).collect()
    }
}

/// Free text (a file's name, a `log_format` string): empty means unset;
/// at most `max` characters, none of them a control character, so it
/// prints on one line wherever it is echoed.
impl FieldValue for Option<String> {
    fn parse(field: &Spec, text: &str) -> Result<Option<String>, ScenarioError> {
        if text.is_empty() {
            return Ok(None);
        }
        if text.chars().count() as f64 > field.max || text.chars().any(char::is_control) {
            return Err(field.error(text));
        }
        Ok(Some(text.to_string()))
    }
    fn text(&self) -> Option<String> {
        self.clone()
    }
}
