//! The command line as data: which output format, which policies, which `--param` settings and
//! which swept values. Parsing only; the commands in `lib.rs` decide what each one means.

use std::str::FromStr;

use blast_engine::policy::{parse_policies, Policy};

use crate::error::CliError;
pub use crate::format::Format;

impl FromStr for Format {
    type Err = CliError;

    fn from_str(name: &str) -> Result<Format, CliError> {
        Format::named(name).ok_or_else(|| CliError::UnknownFormat(name.to_string()))
    }
}

/// The most values one `sweep` runs: each is a full run under every policy (seconds each at
/// the caps), so a longer list is refused before anything runs, rather than left to run for
/// minutes.
pub const MAX_SWEEP_VALUES: usize = 32;

#[derive(Debug, Default)]
pub struct Options {
    /// `--policy` as given: call-site policies, or a model's variants.
    pub policy_list: Option<String>,
    /// `--format`, if given; each command has its own default.
    pub format: Option<Format>,
    /// `--param name=value`: fixed settings, applied in order.
    pub sets: Vec<(String, String)>,
    /// `--param name=v1,v2,..`: the swept parameter (at most one).
    pub sweep: Option<(String, Vec<String>)>,
    pub positional: Vec<String>,
    /// `--plot FILE.png`: where `blast fingerprint` or `blast calibrate` draws its chart.
    pub plot: Option<String>,
    /// `--log-format v8|hotspot|groovy`: the log format `blast trace` reads, instead of
    /// detecting it (`--format` stays the output format, as for every command).
    pub log_format: Option<String>,
    /// `--replay`: `blast trace` also replays each log under every policy.
    pub replay: bool,
}

impl Options {
    /// The call-site policies to run (default: global, exact).
    pub fn policies(&self) -> Result<Vec<Policy>, CliError> {
        match &self.policy_list {
            Some(list) => Ok(parse_policies(list)?),
            None => Ok(vec![Policy::Global, Policy::Exact]),
        }
    }

    /// The format asked for, if `command` can print it; `supported[0]` when none was asked for.
    pub fn format_for(&self, command: &'static str, supported: &'static [Format]) -> Result<Format, CliError> {
        match self.format {
            None => Ok(supported[0]),
            Some(f) if supported.contains(&f) => Ok(f),
            Some(format) => Err(CliError::FormatNotSupported { command, format, supported }),
        }
    }

    /// The one `<preset|file>` the command works on.
    pub fn one_target(&self) -> Result<&str, CliError> {
        match self.positional.as_slice() {
            [t] => Ok(t),
            [] => Err(CliError::MissingTarget),
            more => Err(CliError::TooManyTargets(more.len())),
        }
    }
}

pub fn parse_options(args: &[String]) -> Result<Options, CliError> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |option: &str| it.next().cloned().ok_or_else(|| CliError::MissingValue { option: option.to_string() });
        match a.as_str() {
            "--policy" | "--policies" => o.policy_list = Some(value(a)?),
            "--format" => o.format = Some(value(a)?.parse()?),
            "--plot" => o.plot = Some(value(a)?),
            "--log-format" => o.log_format = Some(value(a)?),
            "--replay" => o.replay = true,
            "--param" => {
                let v = value(a)?;
                let (name, val) = v.split_once('=').ok_or_else(|| CliError::BadParam { given: v.clone() })?;
                let (name, val) = (name.trim().to_string(), val.trim());
                if val.contains(',') {
                    if o.sweep.is_some() {
                        return Err(CliError::SeveralSweeps);
                    }
                    let values: Vec<String> = val.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect();
                    if values.len() > MAX_SWEEP_VALUES {
                        return Err(CliError::TooManyValues { given: values.len(), max: MAX_SWEEP_VALUES });
                    }
                    o.sweep = Some((name, values));
                } else {
                    o.sets.push((name, val.to_string()));
                }
            }
            s if s.starts_with("--") => return Err(CliError::UnknownOption(s.to_string())),
            _ => o.positional.push(a.clone()),
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_parse_into_settings_and_one_sweep() {
        let o = parse_options(&args(&["x", "--param", "ops=3", "--param", "churn_every=10,100", "--format", "md"])).unwrap();
        assert_eq!(o.sets, vec![("ops".to_string(), "3".to_string())]);
        assert_eq!(o.sweep, Some(("churn_every".to_string(), vec!["10".to_string(), "100".to_string()])));
        assert_eq!(o.format, Some(Format::Markdown));
        assert_eq!(o.one_target().unwrap(), "x");
    }

    #[test]
    fn mistakes_are_typed() {
        assert!(matches!(parse_options(&args(&["--format"])), Err(CliError::MissingValue { .. })));
        assert!(matches!(parse_options(&args(&["--format", "xml"])), Err(CliError::UnknownFormat(f)) if f == "xml"));
        assert!(matches!(parse_options(&args(&["--param", "x"])), Err(CliError::BadParam { .. })));
        assert!(matches!(parse_options(&args(&["--param", "a=1,2", "--param", "b=3,4"])), Err(CliError::SeveralSweeps)));
        assert!(matches!(parse_options(&args(&["--frob"])), Err(CliError::UnknownOption(_))));
        let o = parse_options(&args(&["a", "b", "--format", "dsl"])).unwrap();
        assert!(matches!(o.one_target(), Err(CliError::TooManyTargets(2))));
        assert!(matches!(o.format_for("run", &[Format::Table, Format::Csv]), Err(CliError::FormatNotSupported { command: "run", format: Format::Dsl, .. })));
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
        }
    }
}
