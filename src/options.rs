//! Typed pass options: the value types a pass option may have, and the declaration macros that turn
//! a plain struct into options the pipeline text can set and print back.
//!
//! A pass declares its options once with [`pass_options!`](crate::pass_options) (field, type,
//! default, doc line). From that one declaration come the struct the pass reads, the `--list-passes`
//! lines, the validation of `pass{key=value}` text and its canonical printing. Invariants:
//! - option names are the field names in kebab case (`max_moves` → `max-moves`), as in MLIR;
//! - for every value type, `parse(print(v)) == v`, so a printed pipeline parses back to the same value;
//! - a value that does not parse is rejected with a sentence naming the expected type, never coerced.

use std::fmt::Write as _;

/// A type a pass option can have: parsed from and printed to option text (unquoted; pipeline
/// printing quotes values that need it).
pub trait OptionType: Sized {
    /// How the type is named to users: `unsigned integer`, `bool`, ``one of `cost`, `lru` ``.
    fn describe() -> String;
    /// Parses option text; the error is a sentence fragment such as "expected a bool".
    fn parse_option(text: &str) -> Result<Self, String>;
    /// The canonical text of the value; `parse_option` reads it back to an equal value.
    fn print_option(&self) -> String;
    /// The value as a count, for types an option's `#[range(lo..=hi)]` can bound; `None` for
    /// values no range applies to (flags, names, `auto`).
    fn magnitude(&self) -> Option<u64> {
        None
    }
    /// What kind of value it is, for hosts that declare options in a type system of their own;
    /// text unless the type says otherwise.
    fn kind() -> OptionKind {
        OptionKind::Text
    }
}

/// What kind of value an option holds: what a host with typed options (the C++ MLIR library's
/// generated pass options, `lattice_capi`) declares it as. Whatever the kind, lattice's own check
/// ([`OptionInfo::canonicalize`]) has the last word on a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `true` or `false`.
    Bool,
    /// A count no larger than `max`.
    Unsigned {
        /// The largest value the type holds.
        max: u64,
    },
    /// One of these words.
    Choice(Vec<&'static str>),
    /// Any text.
    Text,
}

macro_rules! unsigned_option {
    ($($ty:ty),*) => {$(
        impl OptionType for $ty {
            fn describe() -> String {
                "unsigned integer".into()
            }
            fn parse_option(text: &str) -> Result<Self, String> {
                if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!("expected an unsigned integer, found `{text}`"));
                }
                text.parse()
                    .map_err(|_| format!("`{text}` is larger than the largest allowed value {}", <$ty>::MAX))
            }
            fn print_option(&self) -> String {
                self.to_string()
            }
            fn magnitude(&self) -> Option<u64> {
                u64::try_from(*self).ok()
            }
            fn kind() -> OptionKind {
                OptionKind::Unsigned { max: <$ty>::MAX as u64 }
            }
        }
    )*};
}
unsigned_option!(u32, u64, usize);

macro_rules! positive_option {
    ($($ty:ty),*) => {$(
        impl OptionType for $ty {
            fn describe() -> String {
                "positive integer".into()
            }
            fn parse_option(text: &str) -> Result<Self, String> {
                let value = text.parse().ok().filter(|_| text.bytes().all(|b| b.is_ascii_digit()));
                value.and_then(<$ty>::new).ok_or_else(|| {
                    format!("expected a positive integer, found `{text}`")
                })
            }
            fn print_option(&self) -> String {
                self.to_string()
            }
            fn magnitude(&self) -> Option<u64> {
                Some(u64::from(self.get()))
            }
            fn kind() -> OptionKind {
                OptionKind::Unsigned { max: u64::from(<$ty>::MAX.get()) }
            }
        }
    )*};
}
// Counts that must not be zero (a search budget, a thread count) say so in their type, so a zero
// is rejected when the pipeline is parsed instead of being clamped later.
positive_option!(std::num::NonZeroU32, std::num::NonZeroU64);

impl OptionType for bool {
    fn describe() -> String {
        "bool".into()
    }
    fn parse_option(text: &str) -> Result<Self, String> {
        match text {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(format!(
                "expected a bool (`true` or `false`), found `{text}`"
            )),
        }
    }
    fn print_option(&self) -> String {
        self.to_string()
    }
    fn kind() -> OptionKind {
        OptionKind::Bool
    }
}

impl OptionType for String {
    fn describe() -> String {
        "string".into()
    }
    fn parse_option(text: &str) -> Result<Self, String> {
        Ok(text.to_string())
    }
    fn print_option(&self) -> String {
        self.clone()
    }
}

/// Quotes a string value when it would not survive as a bare pipeline token.
pub fn quote_if_needed(text: &str) -> String {
    let bare = !text.is_empty()
        && !text
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '{' | '}' | ',' | '"' | '\\' | '='));
    if bare {
        return text.to_string();
    }
    let mut quoted = String::from('"');
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

/// Declares an enum whose variants are spelled as option values, e.g.
/// `option_enum! { pub enum Victim { Cost = "cost", Lru = "lru" } }`.
#[macro_export]
macro_rules! option_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name { $( $(#[$vmeta])* $variant ),+ }

        impl $crate::options::OptionType for $name {
            fn describe() -> String {
                let names: &[&str] = &[$( concat!("`", $text, "`") ),+];
                format!("one of {}", names.join(", "))
            }
            fn parse_option(text: &str) -> Result<Self, String> {
                match text {
                    $( $text => Ok($name::$variant), )+
                    _ => Err(format!("expected {}, found `{text}`", <Self as $crate::options::OptionType>::describe())),
                }
            }
            fn print_option(&self) -> String {
                match self { $( $name::$variant => $text.to_string(), )+ }
            }
            fn kind() -> $crate::options::OptionKind {
                $crate::options::OptionKind::Choice(vec![$( $text ),+])
            }
        }
    };
}

/// What `--list-passes`, the manual's pass table and the pipeline parser know about one option.
#[derive(Clone, Debug)]
pub struct OptionInfo {
    /// Kebab-case name used in pipeline text.
    pub name: String,
    /// The one-line doc comment of the field.
    pub summary: String,
    /// The value type in words.
    pub type_name: String,
    /// The default value, printed canonically.
    pub default: String,
    /// What kind of value it is.
    pub kind: OptionKind,
    /// Validates option text and returns its canonical spelling.
    pub canonicalize: fn(&str) -> Result<String, String>,
}

impl OptionInfo {
    /// One `--list-passes` line: `name=default  (type) summary`.
    pub fn describe(&self) -> String {
        let mut line = format!("{}={}", self.name, quote_if_needed(&self.default));
        let _ = write!(line, "  ({}) {}", self.type_name, self.summary);
        line
    }
}

/// Options of one pass: built from validated `(name, canonical value)` pairs, described for users.
pub trait PassOptions: Default + Clone + std::fmt::Debug {
    /// Every option in declaration order.
    fn infos() -> Vec<OptionInfo>;
    /// Builds the options from canonical pairs (as produced by the pipeline parser); a pair naming
    /// no option or holding an invalid value is an error.
    fn from_pairs(pairs: &[(String, String)]) -> Result<Self, String>;
    /// Every option with its canonical value, in declaration order: what `from_pairs` reads back
    /// to equal options.
    fn pairs(&self) -> Vec<(String, String)>;
}

/// The kebab-case spelling of a field name.
pub fn kebab(field: &str) -> String {
    field.replace('_', "-")
}

/// Parses `text` as a `T` inside `range` (inclusive bounds, when the option declares one).
pub fn parse_in<T: OptionType>(text: &str, range: Option<(u64, u64)>) -> Result<T, String> {
    let value = T::parse_option(text)?;
    if let (Some((lo, hi)), Some(m)) = (range, value.magnitude()) {
        if m < lo || m > hi {
            return Err(format!("`{text}` is outside the valid range {lo}..={hi}"));
        }
    }
    Ok(value)
}

/// Validates `text` as a `T` inside `range` (when the option declares one) and returns its
/// canonical spelling.
pub fn canonicalize_in<T: OptionType>(
    text: &str,
    range: Option<(u64, u64)>,
) -> Result<String, String> {
    parse_in::<T>(text, range).map(|v| v.print_option())
}

/// The words `--list-passes` and the pass table use for an option's type and range.
pub fn type_in(type_name: String, range: Option<(u64, u64)>) -> String {
    match range {
        Some((lo, hi)) => format!("{type_name} in {lo}..={hi}"),
        None => type_name,
    }
}

/// The range an option declares, as the `pass_options!` expansion passes it on.
#[doc(hidden)]
#[macro_export]
macro_rules! __option_range {
    () => {
        None
    };
    ($lo:literal, $hi:literal) => {
        Some(($lo, $hi))
    };
}

/// Declares a pass's options struct with defaults and docs, e.g.
///
/// ```
/// lattice::pass_options! {
///     /// Options of a search pass.
///     pub struct SearchOptions {
///         /// Rounds of local search.
///         #[range(0..=64)]
///         passes: u32 = 2,
///     }
/// }
/// ```
///
/// A count option may declare its valid range with `#[range(lo..=hi)]` after its doc line: a
/// value outside it is refused when the pipeline is parsed, with the range in the message, and
/// `--list-passes` shows it.
#[macro_export]
macro_rules! pass_options {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                #[doc = $doc:literal]
                $( #[range($lo:literal ..= $hi:literal)] )?
                $field:ident : $ty:ty = $default:expr
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        $vis struct $name { $( #[doc = $doc] pub $field: $ty, )* }

        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: $default, )* }
            }
        }

        impl $crate::options::PassOptions for $name {
            fn infos() -> Vec<$crate::options::OptionInfo> {
                vec![$(
                    $crate::options::OptionInfo {
                        name: $crate::options::kebab(stringify!($field)),
                        summary: $doc.trim().to_string(),
                        type_name: $crate::options::type_in(
                            <$ty as $crate::options::OptionType>::describe(),
                            $crate::__option_range!($($lo, $hi)?),
                        ),
                        default: <$ty as $crate::options::OptionType>::print_option(&$default),
                        kind: <$ty as $crate::options::OptionType>::kind(),
                        canonicalize: |text| {
                            $crate::options::canonicalize_in::<$ty>(
                                text,
                                $crate::__option_range!($($lo, $hi)?),
                            )
                        },
                    }
                ),*]
            }

            #[allow(unused_mut)]
            fn from_pairs(pairs: &[(String, String)]) -> Result<Self, String> {
                let mut options = Self::default();
                for (key, value) in pairs {
                    $(
                        if *key == $crate::options::kebab(stringify!($field)) {
                            options.$field = $crate::options::parse_in::<$ty>(
                                value,
                                $crate::__option_range!($($lo, $hi)?),
                            )?;
                            continue;
                        }
                    )*
                    return Err(format!("unknown option `{key}`"));
                }
                Ok(options)
            }

            fn pairs(&self) -> Vec<(String, String)> {
                vec![$(
                    (
                        $crate::options::kebab(stringify!($field)),
                        <$ty as $crate::options::OptionType>::print_option(&self.$field),
                    )
                ),*]
            }
        }
    };
}

/// The options of a pass that has none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NoOptions;

impl PassOptions for NoOptions {
    fn infos() -> Vec<OptionInfo> {
        Vec::new()
    }
    fn from_pairs(pairs: &[(String, String)]) -> Result<Self, String> {
        match pairs.first() {
            Some((key, _)) => Err(format!("unknown option `{key}`")),
            None => Ok(NoOptions),
        }
    }
    fn pairs(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    option_enum! {
        /// A test enum.
        enum Policy { Cost = "cost", Lru = "lru" }
    }

    crate::pass_options! {
        /// Test options.
        struct Opts {
            /// Rounds.
            #[range(1..=64)]
            max_rounds: u32 = 2,
            /// Policy.
            policy: Policy = Policy::Cost,
            /// Flag.
            eager: bool = false,
            /// Text.
            message: String = String::from("a b"),
        }
    }

    #[test]
    fn every_value_type_round_trips_through_its_text() {
        for info in Opts::infos() {
            let canonical = (info.canonicalize)(&info.default).unwrap();
            assert_eq!(canonical, info.default, "{}", info.name);
        }
        assert_eq!(canonicalize_in::<u32>("007", None).unwrap(), "7");
        assert_eq!(canonicalize_in::<bool>("1", None).unwrap(), "true");
        assert_eq!(quote_if_needed("a \"b\""), r#""a \"b\"""#);
        assert_eq!(quote_if_needed(""), r#""""#);
    }

    #[test]
    fn a_declared_range_refuses_values_outside_it_and_is_shown() {
        let info = &Opts::infos()[0];
        assert_eq!(info.type_name, "unsigned integer in 1..=64");
        assert_eq!((info.canonicalize)("064").unwrap(), "64");
        assert_eq!(
            (info.canonicalize)("65").unwrap_err(),
            "`65` is outside the valid range 1..=64"
        );
        let zero = Opts::from_pairs(&[("max-rounds".into(), "0".into())]).unwrap_err();
        assert_eq!(zero, "`0` is outside the valid range 1..=64");
        // Types a range does not apply to keep their own check.
        assert_eq!(Opts::infos()[2].type_name, "bool");
    }

    #[test]
    fn pairs_build_typed_options_and_reject_strangers() {
        let pairs = vec![
            ("max-rounds".to_string(), "9".to_string()),
            ("policy".to_string(), "lru".to_string()),
        ];
        let opts = Opts::from_pairs(&pairs).unwrap();
        assert_eq!(opts.max_rounds, 9);
        assert_eq!(opts.policy, Policy::Lru);
        assert!(!opts.eager);
        assert_eq!(Opts::from_pairs(&opts.pairs()).unwrap(), opts);
        let bad = Opts::from_pairs(&[("rounds".into(), "1".into())]).unwrap_err();
        assert_eq!(bad, "unknown option `rounds`");
        let wrong = Opts::from_pairs(&[("policy".into(), "fifo".into())]).unwrap_err();
        assert_eq!(wrong, "expected one of `cost`, `lru`, found `fifo`");
        assert!(u32::parse_option("99999999999").is_err());
        assert!(u32::parse_option("-1").is_err());
        let zero = std::num::NonZeroU32::parse_option("0").unwrap_err();
        assert_eq!(zero, "expected a positive integer, found `0`");
        assert!(std::num::NonZeroU64::parse_option("+3").is_err());
        assert_eq!(
            canonicalize_in::<std::num::NonZeroU64>("012", None).unwrap(),
            "12"
        );
    }
}
