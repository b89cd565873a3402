//! How the field table's rows become the scenario: the macro that declares
//! [`Scenario`](super::Scenario), its `Default`, its JSON form,
//! [`FIELDS`](super::FIELDS) and [`IN_CONFIG`](super::IN_CONFIG) from one
//! row per field. The rows, and the types a row is made of, are in
//! `fields.rs`; the names the macro expands to resolve there.

/// Declares the [`Scenario`](super::Scenario) type, its `Default`, its JSON
/// form and [`FIELDS`](super::FIELDS) from one row per field:
///
/// ```text
/// name: type = default[, skip_default]
///     => (key, kind, min, max, step, group, label, meaning)
///     [applies(fn(&Scenario) -> bool)]
///     config(nginx, haproxy, envoy[, grpc: grpc]),
/// ```
///
/// with its doc comment (and any serde attribute for reading, such as an
/// old name: JSON is written under the key, so such an attribute changes
/// reading only) above it. `skip_default` leaves the field out of JSON at
/// its default: every field added after the base model has it, so a
/// scenario that does not use the field writes what it wrote before.
/// `applies` says when the field affects the numbers (always, when left
/// out); `config` how each balancer's configuration expresses it
/// ([`Expression`](super::Expression), gathered in [`IN_CONFIG`](super::IN_CONFIG)), so `lbsim config` cannot
/// drop a field unsaid. gRPC's service config holds the balancing policy
/// alone, so its column may be left out of a row that every balancer
/// leaves outside (a build-time check holds it). The choices, the reader and the writer come from
/// the field's type ([`FieldValue`]).
macro_rules! scenario {
    (
        $(#[$meta:meta])*
        pub struct $name:ident;
        $(
            $(#[$attr:meta])*
            $field:ident: $ty:ty = $default:expr $(, $skip:ident)?
                => ($key:literal, $kind:ident, $min:expr, $max:expr, $step:expr, $group:ident, $label:literal,
                    $meaning:expr)
                $(applies($applies:expr))?
                config($nginx:expr, $haproxy:expr, $envoy:expr $(, grpc: $grpc:expr)? $(,)?),
        )*
    ) => {
        $(#[$meta])*
        pub struct $name {
            $($(#[$attr])* pub $field: $ty,)*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        /// The JSON form: every field under its key, in the table's order,
        /// a `skip_default` field only away from its default.
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let defaults = $name::default();
                let mut out = serializer.serialize_struct(stringify!($name), FIELDS.len())?;
                $(
                    if !stringify!($($skip)?).is_empty() && self.$field == defaults.$field {
                        out.skip_field($key)?;
                    } else {
                        out.serialize_field($key, &self.$field)?;
                    }
                )*
                out.end()
            }
        }

        /// The one table of scenario fields and their ranges. The CLI builds its
        /// flags from it, the URL codec its keys, the page its inputs.
        pub const FIELDS: &[Field] = &[$(Field {
            spec: Spec {
                key: $key,
                kind: FieldKind::$kind,
                min: $min,
                max: $max,
                step: $step,
                group: Group::$group,
                label: $label,
                meaning: $meaning,
                choices: <$ty as FieldValue>::choices,
            },
            skips_default: !stringify!($($skip)?).is_empty(),
            applies: applies_or_always!($($applies)?),
            write: |scenario, field, text| {
                scenario.$field = FieldValue::parse(field, text)?;
                Ok(())
            },
            read: |scenario| scenario.$field.text(),
        }),*];

        /// How each balancer's configuration expresses each field, in the
        /// order of [`FIELDS`]. Apart from the rows' other columns because
        /// only `lbsim config` reads it: the page's first module, which
        /// reads [`FIELDS`], does not carry its notes.
        pub const IN_CONFIG: &[InConfig] = &[$(InConfig {
            nginx: $nginx,
            haproxy: $haproxy,
            envoy: $envoy,
            grpc: in_grpc!($key, [$nginx, $haproxy, $envoy] $(, $grpc)?),
        }),*];

        $($(const _: () = assert!(
            is_skip_default(stringify!($skip)),
            concat!("a row's flag after its default is `skip_default`, not `", stringify!($skip), "`")
        );)?)*
    };
}

/// Whether a row's flag is `skip_default` (the one flag a row takes).
pub(super) const fn is_skip_default(flag: &str) -> bool {
    let (flag, want) = (flag.as_bytes(), b"skip_default");
    if flag.len() != want.len() {
        return false;
    }
    let mut i = 0;
    while i < flag.len() {
        if flag[i] != want[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A row's gRPC column; left out, `Outside`, which the build allows only
/// when every balancer leaves the field outside: a field another balancer
/// writes or notes must say what gRPC's service config does with it.
macro_rules! in_grpc {
    ($key:literal, [$($others:expr),*], $grpc:expr) => {
        $grpc
    };
    ($key:literal, [$($others:expr),*]) => {{
        const _: () = assert!(
            $(matches!($others, Expression::Outside))&&*,
            concat!("field `", $key, "`: a balancer writes or notes it, so its row needs a `grpc:` column")
        );
        Expression::Outside
    }};
}

/// A row's `applies`, or "always" when it has none.
macro_rules! applies_or_always {
    () => {
        |_| true
    };
    ($applies:expr) => {
        $applies
    };
}

pub(super) use applies_or_always;
pub(super) use in_grpc;
pub(super) use scenario;
