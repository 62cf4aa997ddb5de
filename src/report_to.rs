//! Where an instrumentation report goes: `--timing=json:FILE` and `--pass-statistics=json:FILE`
//! write the report, one whole document, to FILE; without `:FILE` it goes to the error stream
//! with the remarks, as in mlir-opt.
//!
//! The spelling `FORMAT:FILE` keeps one flag per report (the format is already the flag's value)
//! and reads like the `--metrics=FILE` flags. The format is the text before the first `:`, so a
//! file name may hold colons of its own. O(length of the value).

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use clap::ValueEnum;
use std::ffi::OsStr;
use std::marker::PhantomData;
use std::path::PathBuf;

/// A report's format and, when it goes to a file, the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportTo<F> {
    /// How the report is written.
    pub format: F,
    /// Its file; `None`: the error stream.
    pub file: Option<PathBuf>,
}

impl<F> ReportTo<F> {
    /// The report in `format` on the error stream.
    pub fn stderr(format: F) -> Self {
        ReportTo { format, file: None }
    }
}

/// Parses `FORMAT` or `FORMAT:FILE` (clap's value parser for the report flags).
pub fn parse_report_to<F: ValueEnum>(value: &str) -> Result<ReportTo<F>, String> {
    let (name, file) = match value.split_once(':') {
        Some((name, file)) => (name, Some(file)),
        None => (value, None),
    };
    let format = F::from_str(name, false).map_err(|_| {
        let names: Vec<String> = F::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|v| v.get_name().to_owned())
            .collect();
        format!(
            "unknown format `{name}`; give one of {} (then `:FILE` to write the report to FILE)",
            names.join(", ")
        )
    })?;
    match file {
        Some("") => Err(format!("no file after `{name}:`")),
        file => Ok(ReportTo {
            format,
            file: file.map(PathBuf::from),
        }),
    }
}

/// clap's parser of a report flag: [`parse_report_to`], with the formats listed as the flag's
/// possible values in `--help` (which also keeps clap's long help layout).
#[derive(Clone, Debug)]
pub struct ReportToParser<F>(PhantomData<F>);

impl<F> ReportToParser<F> {
    /// The parser of `FORMAT[:FILE]` values of the formats `F`.
    pub fn new() -> Self {
        ReportToParser(PhantomData)
    }
}

impl<F> Default for ReportToParser<F> {
    fn default() -> Self {
        Self::new()
    }
}

impl<F: ValueEnum + Clone + Send + Sync + 'static> TypedValueParser for ReportToParser<F> {
    type Value = ReportTo<F>;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<ReportTo<F>, clap::Error> {
        StringValueParser::new()
            .try_map(|text| parse_report_to::<F>(&text))
            .parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            F::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::TimingFormat;

    #[test]
    fn format_then_optional_file() {
        let parse = parse_report_to::<TimingFormat>;
        assert_eq!(parse("json"), Ok(ReportTo::stderr(TimingFormat::Json)));
        assert_eq!(
            parse("json:out/t:1.json"),
            Ok(ReportTo {
                format: TimingFormat::Json,
                file: Some(PathBuf::from("out/t:1.json"))
            })
        );
        let unknown = parse("yaml:t.json").unwrap_err();
        assert!(unknown.contains("unknown format `yaml`"), "{unknown}");
        assert!(unknown.contains("tree, list, json"), "{unknown}");
        assert_eq!(parse("json:").unwrap_err(), "no file after `json:`");
    }
}
