//! Sweeps: one numeric scenario field across a range (`lbsim sweep` and
//! the page's sweep view), `NAME=FROM..TO:STEP` counted in decimal so no
//! value is one the user did not write, and the rows both write.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::report::{Headline, CACHE_HEADER, FLEET_HEADER, HEADLINE_HEADER};
use crate::scenario::{field_spec, FieldKind, Scenario, ScenarioError, FIELDS};

/// A parsed sweep: the field and its values' text forms, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sweep {
    /// The field swept.
    pub key: &'static str,
    /// The values as the range writes them: `0.05`, `2`.
    pub values: Vec<String>,
    /// The range as given, `load=0.1..0.9:0.1`.
    pub spec: String,
    /// The figure the page plots, when the reader chose one (the link's
    /// `sweep-figure=`); `None`: [`Figure::default_for`] the scenario.
    pub figure: Option<Figure>,
}

/// What the page's sweep view plots for each rule across the values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// p99 of quick requests (bimodal work), ms.
    QuickP99,
    /// p99 of all requests, ms.
    P99,
    /// The largest share of requests one server took.
    LargestShare,
}

impl Figure {
    /// Every figure, in the menu's order.
    pub const ALL: [Figure; 3] = [Figure::QuickP99, Figure::P99, Figure::LargestShare];

    /// The figure's name in links and the menu.
    pub fn id(self) -> &'static str {
        match self {
            Figure::QuickP99 => "quick-p99",
            Figure::P99 => "p99",
            Figure::LargestShare => "largest-share",
        }
    }

    /// The figure in the menu's words.
    pub fn label(self) -> &'static str {
        match self {
            Figure::QuickP99 => "quick p99",
            Figure::P99 => "p99",
            Figure::LargestShare => "largest share",
        }
    }

    /// What the figure is, in a line (`lbsim list figures`).
    pub fn meaning(self) -> &'static str {
        match self {
            Figure::QuickP99 => "p99 of quick requests, ms (bimodal work)",
            Figure::P99 => "p99 of all requests, ms",
            Figure::LargestShare => "the largest share of requests one server took",
        }
    }

    /// Reads a figure's name; `busiest-share` is the old name of
    /// `largest-share`.
    pub fn parse(text: &str) -> Result<Figure, ScenarioError> {
        let text = if text == "busiest-share" { "largest-share" } else { text };
        Figure::ALL.into_iter().find(|f| f.id() == text).ok_or_else(|| ScenarioError {
            field: "sweep-figure".to_string(),
            value: text.to_string(),
            allowed: Figure::ALL.map(Figure::id).join(", "),
        })
    }

    /// The figure shown when the reader chose none: quick requests' p99
    /// where there are quick requests (bimodal work), p99 otherwise.
    pub fn default_for(scenario: &Scenario) -> Figure {
        if scenario.work == crate::scenario::WorkKind::Bimodal {
            Figure::QuickP99
        } else {
            Figure::P99
        }
    }

    /// The figure of one rule's headline; `None` where it has no meaning
    /// (quick requests' p99 without quick requests).
    pub fn of(self, h: &Headline) -> Option<f64> {
        match self {
            Figure::QuickP99 => h.quick_p99_ms,
            Figure::P99 => Some(h.p99_ms),
            Figure::LargestShare => Some(h.busiest_share),
        }
    }

    /// Whether the figure is a latency (ms) rather than a share.
    pub fn is_latency(self) -> bool {
        self != Figure::LargestShare
    }

    /// The figure in words, for the plot's axis.
    pub fn words(self) -> &'static str {
        match self {
            Figure::QuickP99 => "quick-request p99 (ms)",
            Figure::P99 => "p99 (ms)",
            Figure::LargestShare => "largest share of requests",
        }
    }
}

/// A parameter the page's sweep view offers, with the range it starts
/// from (any numeric field sweeps from the CLI).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Offered {
    /// The field's key.
    pub key: &'static str,
    /// The range's first value, last value and step, as the view's
    /// inputs show them.
    pub range: (&'static str, &'static str, &'static str),
}

/// The parameters the sweep view offers, in its menu's order: the ones
/// whose curves tell the article's stories (the hockey stick of load, the
/// slow share, the skew that builds hot servers, the pool, the copies).
pub const OFFERED: &[Offered] = &[
    Offered { key: "load", range: ("0.3", "0.95", "0.05") },
    Offered { key: "slow-share", range: ("0", "0.3", "0.03") },
    Offered { key: "zipf", range: ("0", "2", "0.2") },
    Offered { key: "servers", range: ("2", "12", "1") },
    Offered { key: "balancers", range: ("1", "16", "3") },
];

/// The numeric fields a sweep can take.
pub fn numeric_fields() -> Vec<&'static str> {
    FIELDS.iter().filter(|f| matches!(f.kind, FieldKind::Integer | FieldKind::Real)).map(|f| f.key).collect()
}

/// Most decimal places a sweep's numbers may have.
const MAX_PLACES: u32 = 30;

/// A number exactly as written: `digits x 10^-places`. The values of a
/// range are counted and written in decimal, so `0..1:0.1` ends at `1`
/// and no value is one the user did not write (binary `a + i x step`
/// drifts: `0..5:2.50000000001` would end past 5).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Decimal {
    digits: i128,
    places: u32,
}

impl Decimal {
    /// `12`, `-0.05`, `+.5`, `5e-3`; `None` past [`MAX_PLACES`] places or 38 digits.
    fn parse(text: &str) -> Option<Decimal> {
        let (mantissa, exponent) = match text.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i64>().ok()?),
            None => (text, 0),
        };
        let (negative, mantissa) = match mantissa.strip_prefix('-') {
            Some(m) => (true, m),
            None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let fraction = fraction.trim_end_matches('0');
        let written = whole.bytes().chain(fraction.bytes());
        if (whole.is_empty() && fraction.is_empty()) || !written.clone().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut digits: i128 = 0;
        for b in written {
            digits = digits.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
        }
        let shift = exponent.checked_sub(fraction.len() as i64)?;
        let (digits, places) = if shift >= 0 {
            (digits.checked_mul(10i128.checked_pow(u32::try_from(shift).ok()?)?)?, 0)
        } else {
            (digits, u32::try_from(-shift).ok()?)
        };
        let digits = if negative { -digits } else { digits };
        (places <= MAX_PLACES).then_some(Decimal { digits, places })
    }

    /// The digits at `places` decimal places (at least its own).
    fn at(self, places: u32) -> Option<i128> {
        self.digits.checked_mul(10i128.checked_pow(places - self.places)?)
    }
}

/// `n` in decimal, nine digits at a time, dividing its 32-bit limbs with
/// 64-bit arithmetic: 128-bit division (as `u128`'s own `Display` does it)
/// is a kilobyte of code the page would carry for sweeps alone.
fn u128_text(n: u128) -> String {
    const BILLION: u64 = 1_000_000_000;
    let mut limbs = [(n >> 96) as u32, (n >> 64) as u32, (n >> 32) as u32, n as u32];
    // Digits, least significant first.
    let mut digits = Vec::new();
    loop {
        let mut rem = 0u64;
        for limb in limbs.iter_mut() {
            // rem < 10^9 < 2^30, so this fits in 62 bits.
            let part = (rem << 32) | u64::from(*limb);
            *limb = (part / BILLION) as u32;
            rem = part % BILLION;
        }
        // Nine digits, but no leading zeros in the highest chunk.
        let highest = limbs.iter().all(|&limb| limb == 0);
        for _ in 0..9 {
            digits.push(b'0' + (rem % 10) as u8);
            rem /= 10;
            if highest && rem == 0 {
                break;
            }
        }
        if highest {
            return digits.iter().rev().map(|&d| char::from(d)).collect();
        }
    }
}

/// `span / step` rounded down, for `span >= 0` and `step > 0`, by
/// bisection on products (no 128-bit division; see [`u128_text`]).
fn quotient(span: i128, step: i128) -> i128 {
    let (mut lo, mut hi) = (0, span);
    while lo < hi {
        let mid = lo + ((hi - lo + 1) >> 1);
        if mid.checked_mul(step).is_some_and(|p| p <= span) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// `digits x 10^-places` written out, without trailing zeros: `0.5`, `2`.
fn decimal_text(digits: i128, places: u32) -> String {
    let sign = if digits < 0 { "-" } else { "" };
    let text = u128_text(digits.unsigned_abs());
    let places = places as usize;
    if places == 0 {
        return format!("{sign}{text}");
    }
    let padded = format!("{text:0>width$}", width = places + 1);
    let (whole, fraction) = padded.split_at(padded.len() - places);
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{fraction}")
    }
}

impl Sweep {
    /// Reads `NAME=FROM..TO:STEP` (FROM and TO included) for the numeric
    /// field NAME, at most `max_values` values; an error names `flag` (the
    /// CLI's `param`, the link's `sweep`).
    pub fn parse(spec: &str, flag: &str, max_values: usize) -> Result<Sweep, ScenarioError> {
        let bad = |value: &str, allowed: &dyn core::fmt::Display| ScenarioError {
            field: flag.to_string(),
            value: value.to_string(),
            allowed: allowed.to_string(),
        };
        let shape = "NAME=FROM..TO:STEP, for example slow-share=0..0.5:0.05";
        let (name, range) = spec.split_once('=').ok_or_else(|| bad(spec, &shape))?;
        let numeric: Vec<&str> = FIELDS
            .iter()
            .filter(|f| matches!(f.kind, FieldKind::Integer | FieldKind::Real))
            .map(|f| f.key)
            .collect();
        let name = name.trim();
        let field = field_spec(name)
            .filter(|f| matches!(f.kind, FieldKind::Integer | FieldKind::Real))
            .ok_or_else(|| bad(name, &format!("a numeric field: {}", numeric.join(", "))))?;
        let (from_to, step) = range.split_once(':').ok_or_else(|| bad(spec, &shape))?;
        let (from, to) = from_to.split_once("..").ok_or_else(|| bad(spec, &shape))?;
        let (from, to, step) = (from.trim(), to.trim(), step.trim());
        // Each end goes through the table's own range check.
        let mut probe = Scenario::default();
        probe.set(field.key, from)?;
        probe.set(field.key, to)?;
        let exact = format!("numbers of at most {MAX_PLACES} decimal places and 38 digits");
        let (Some(a), Some(b)) = (Decimal::parse(from), Decimal::parse(to)) else {
            return Err(bad(spec, &exact));
        };
        let whole_step = "a step above 0, a whole number for an integer field";
        let s = Decimal::parse(step)
            .filter(|s| s.digits > 0 && (field.kind == FieldKind::Real || s.places == 0))
            .ok_or_else(|| bad(step, &whole_step))?;
        let places = a.places.max(b.places).max(s.places);
        let (Some(a), Some(b), Some(s)) = (a.at(places), b.at(places), s.at(places)) else {
            return Err(bad(spec, &exact));
        };
        if b < a {
            return Err(bad(spec, &"FROM at most TO"));
        }
        let count = quotient(b - a, s) + 1;
        if count > max_values as i128 {
            let count = u128_text(count.unsigned_abs());
            return Err(bad(spec, &format!("at most {max_values} values (this range has {count})")));
        }
        let values: Vec<String> = (0..count).map(|i| decimal_text(a + i * s, places)).collect();
        // Values closer than a double can tell apart would run one scenario twice.
        let same = values.windows(2).find(|w| w[0].parse::<f64>().ok() == w[1].parse::<f64>().ok());
        if let Some(pair) = same {
            let allowed =
                format!("a step a double can resolve ({} and {} are the same number)", pair[0], pair[1]);
            return Err(bad(step, &allowed));
        }
        Ok(Sweep { key: field.key, values, spec: spec.to_string(), figure: None })
    }

    /// The scenario of each value: `base` with the field set, each checked
    /// whole (so `base` need not be valid for every count a `servers`
    /// sweep sets, only each value's scenario). Sweeping `servers` fits the
    /// per-server lists to each count, as the page's servers control does.
    /// A field the scenario does not use runs too, every value the same, as
    /// `run` takes it: [`Sweep::without_effect`] says so.
    pub fn scenarios(&self, base: &Scenario) -> Result<Vec<Scenario>, ScenarioError> {
        self.values
            .iter()
            .map(|text| {
                let mut scenario = base.clone();
                scenario.set(self.key, text)?;
                if self.key == "servers" {
                    scenario.fit_lists();
                }
                scenario.validate()?;
                Ok(scenario)
            })
            .collect()
    }

    /// A note when the swept field has no effect on `base` (`load` when a
    /// rate is given, `slow-share` for constant work, health settings
    /// without events): every value then runs the same scenario.
    pub fn without_effect(&self, base: &Scenario) -> Option<String> {
        (!base.uses(self.key))
            .then(|| format!("{} has no effect on this scenario: every value runs the same", self.key))
    }

    /// The sweep as CSV (`lbsim sweep --format csv` and the page's
    /// download): the field, then [`HEADLINE_HEADER`]; one row per value
    /// and algorithm, `rows` holding each value's headlines. When any value
    /// ran the fleet over time, every row gains `errors,retries,error_share`
    /// (zeros for a value that did not); with caches, `hit_rate`.
    pub fn csv(&self, rows: &[Vec<Headline>]) -> String {
        let fleet = rows.iter().flatten().any(|h| h.errors.is_some());
        let caches = rows.iter().flatten().any(|h| h.hit_rate.is_some());
        let mut out = format!(
            "{},{HEADLINE_HEADER}{}{}\n",
            self.key,
            if fleet { FLEET_HEADER } else { "" },
            if caches { CACHE_HEADER } else { "" }
        );
        for (value, rows) in self.values.iter().zip(rows) {
            for h in rows {
                let fleet = if fleet { h.fleet_csv() } else { String::new() };
                let caches = if caches { h.cache_csv() } else { String::new() };
                out += &format!("{value},{}{fleet}{caches}\n", h.csv());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The limb-wise decimal and the bisected quotient agree with
        /// 128-bit `Display` and division.
        #[test]
        fn text_and_quotient_agree_with_128_bit_arithmetic(
            n in prop_oneof![any::<u128>(), 0u128..1_000_000_000_000, Just(u128::MAX), Just(0u128)],
            span in 0i128..=i128::MAX,
            step in prop_oneof![1i128..=i128::MAX, 1i128..1_000],
        ) {
            prop_assert_eq!(u128_text(n), alloc::format!("{n}"));
            prop_assert_eq!(quotient(span, step), span / step);
        }
    }

    #[test]
    fn a_sweep_of_the_fleet_gains_its_columns_on_every_row() {
        let mut base = Scenario {
            requests: 9_000,
            algorithms: alloc::vec![crate::AlgorithmId::RoundRobin],
            ..Scenario::default()
        };
        base.set("events", "20s:s4:crash").expect("valid");
        let sweep = Sweep::parse("retries=0..1:1", "sweep", 10).expect("a range");
        let rows: Vec<Vec<Headline>> = sweep
            .scenarios(&base)
            .expect("valid")
            .iter()
            .map(|s| crate::run(s).expect("valid").results.iter().map(Headline::from).collect())
            .collect();
        let csv = sweep.csv(&rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[0].ends_with("imbalance,errors,retries,error_share"), "{}", lines[0]);
        assert_eq!(lines.len(), 3);
        assert!(lines.iter().all(|l| l.split(',').count() == lines[0].split(',').count()));
        let plain = Sweep::parse("seed=1..2:1", "sweep", 10).expect("a range");
        let static_rows: Vec<Vec<Headline>> = plain
            .scenarios(&Scenario { requests: 500, ..Scenario::default() })
            .expect("valid")
            .iter()
            .map(|s| crate::run(s).expect("valid").results.iter().map(Headline::from).collect())
            .collect();
        assert!(plain.csv(&static_rows).lines().next().is_some_and(|h| h.ends_with(",imbalance")));
    }

    #[test]
    fn a_field_the_scenario_ignores_runs_with_a_note_and_servers_fit_the_lists() {
        let rated = Scenario { rate: Some(100.0), ..Scenario::default() };
        let load = Sweep::parse("load=0.5..0.9:0.2", "sweep", 10).expect("a range");
        assert_eq!(load.scenarios(&rated).map(|s| s.len()), Ok(3));
        assert!(load.without_effect(&rated).is_some_and(|note| note.starts_with("load has no effect")));
        assert_eq!(load.without_effect(&Scenario::default()), None);
        // The base need not fit every count: each value's scenario is checked.
        let named =
            Scenario { names: alloc::vec!["a".into(), "b".into(), "c".into()], ..Scenario::default() };
        let counts = Sweep::parse("servers=1..5:1", "sweep", 10).expect("a range");
        let runs = counts.scenarios(&named).expect("names follow the count");
        assert_eq!(runs[4].names, ["a", "b", "c", "s4", "s5"]);
        let speeds = Scenario { speeds: alloc::vec![1.0, 1.0, 1.0, 0.2], ..Scenario::default() };
        let servers = Sweep::parse("servers=2..6:2", "sweep", 10).expect("a range");
        let runs = servers.scenarios(&speeds).expect("lists follow the count");
        assert_eq!(runs.iter().map(|s| s.speeds.len()).collect::<Vec<_>>(), [2, 4, 6]);
    }

    fn parse(spec: &str) -> Result<Sweep, ScenarioError> {
        Sweep::parse(spec, "param", 1000)
    }

    #[test]
    fn ranges_include_both_ends_without_binary_noise() {
        let r = parse("slow-share=0..0.3:0.1").expect("a range");
        assert_eq!(r.values, ["0", "0.1", "0.2", "0.3"]);
        let r = parse("servers=2..8:3").expect("a range");
        assert_eq!(r.values, ["2", "5", "8"]);
        let r = parse("load=0.5..0.6:0.05").expect("a range");
        assert_eq!(r.values, ["0.5", "0.55", "0.6"]);
        let r = parse("zipf=1..1.002:1e-3").expect("a range");
        assert_eq!(r.values, ["1", "1.001", "1.002"]);
        let r = parse("seed=9007199254740989..9007199254740991:1").expect("a range");
        assert_eq!(r.values, ["9007199254740989", "9007199254740990", "9007199254740991"]);
    }

    #[test]
    fn a_step_never_overshoots_to_a_value_not_written() {
        let r = parse("zipf=0..5:2.50000000001").expect("a range");
        assert_eq!(r.values, ["0", "2.50000000001"]);
        let r = parse("slow-share=0..1:0.3").expect("a range");
        assert_eq!(r.values, ["0", "0.3", "0.6", "0.9"]);
    }

    #[test]
    fn fine_steps_are_written_in_full_not_rounded() {
        let r = parse("slow-share=0..1e-16:1e-17").expect("a range");
        assert_eq!(r.values.len(), 11);
        assert_eq!(r.values[1], "0.00000000000000001");
        assert_eq!(r.values[10], "0.0000000000000001");
    }

    #[test]
    fn steps_finer_than_a_double_are_refused() {
        let Err(message) = parse("zipf=1..1.000000000000001:1e-16").map_err(|e| e.to_string()) else {
            panic!("a step a double cannot resolve was accepted");
        };
        assert!(message.contains("are the same number"), "{message}");
    }

    #[test]
    fn decimals_parse_as_written() {
        let d = |text| Decimal::parse(text).map(|d| (d.digits, d.places));
        assert_eq!(d("0.050"), Some((5, 2)));
        assert_eq!(d("+.5"), Some((5, 1)));
        assert_eq!(d("5e-3"), Some((5, 3)));
        assert_eq!(d("12e2"), Some((1200, 0)));
        assert_eq!(d("-1.5"), Some((-15, 1)));
        assert_eq!(d("1e-31"), None);
        assert_eq!(d("1e39"), None);
        assert_eq!(d("."), None);
        assert_eq!(d("1_0"), None);
        assert_eq!(decimal_text(5, 3), "0.005");
        assert_eq!(decimal_text(-1200, 2), "-12");
    }
}
