//! One spelling per idea: every engine enum that is shown or parsed has `ALL` and `name()`,
//! and [`named!`] derives `FromStr` and `Display` from those two, so the DSL, the CLI, the
//! editor and the exports cannot drift apart.

use std::fmt;

/// A word that names no variant of an enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// What was being named (`metaclass kind`, `semantics`, ...).
    pub kind: &'static str,
    pub name: String,
    pub expected: Vec<&'static str>,
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}` (expected one of: {})", self.kind, self.name, self.expected.join(", "))
    }
}

impl std::error::Error for UnknownName {}

/// `FromStr` (error [`UnknownName`]) and `Display` for a type with `ALL` and `name()`.
macro_rules! named {
    ($t:ty, $kind:literal) => {
        impl std::str::FromStr for $t {
            type Err = $crate::spelling::UnknownName;

            fn from_str(name: &str) -> Result<Self, Self::Err> {
                Self::ALL.into_iter().find(|v| v.name() == name).ok_or_else(|| $crate::spelling::UnknownName {
                    kind: $kind,
                    name: name.to_string(),
                    expected: Self::ALL.iter().map(|v| v.name()).collect(),
                })
            }
        }

        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

pub(crate) use named;

#[cfg(test)]
mod tests {
    use crate::report::{SiteState, Verdict};
    use crate::scenario::{MetaKind, Semantics};

    /// `name()` is the serde name too, so JSON and text agree, and parsing a name gives back
    /// its variant.
    fn round_trips<T>(all: &[T])
    where
        T: Copy + PartialEq + std::fmt::Debug + std::fmt::Display + std::str::FromStr + serde::Serialize,
        T::Err: std::fmt::Debug,
    {
        for v in all {
            let name = v.to_string();
            assert_eq!(name.parse::<T>().unwrap(), *v);
            assert_eq!(serde_json::to_value(v).unwrap(), serde_json::Value::String(name));
        }
    }

    #[test]
    fn every_named_enum_round_trips_through_its_name_and_serde() {
        round_trips(&MetaKind::ALL);
        round_trips(&Semantics::ALL);
        round_trips(&SiteState::ALL);
        round_trips(&Verdict::ALL);
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let e = "wobbly".parse::<MetaKind>().unwrap_err();
        assert_eq!(e.expected, vec!["none", "stock", "expando", "custom"]);
        assert_eq!(e.to_string(), "unknown metaclass kind `wobbly` (expected one of: none, stock, expando, custom)");
    }
}
