//! Everything that can go wrong in a `blast` command, as values: the command decides the exit
//! code from the variant (2 for a mistake in the command line, 1 for a bad input or a failed
//! run), and the text is made only when it is printed.

use std::fmt;

use blast_engine::expect::model::ModelExpectError;
use blast_engine::fingerprint::FingerprintError;
use blast_engine::models::ModelError;
use blast_engine::names::UnknownName;
use blast_engine::policy::PolicyError;
use blast_engine::sweep::SweepError;
use blast_engine::trace::TraceError;
use blast_engine::ScenarioError;

use crate::options::Format;

#[derive(Debug)]
pub enum CliError {
    NoCommand,
    UnknownCommand(String),
    UnknownOption(String),
    MissingValue {
        option: String,
    },
    /// `--param` without `name=value`.
    BadParam {
        given: String,
    },
    /// More than one `--param` lists several values.
    SeveralSweeps,
    UnknownFormat(String),
    FormatNotSupported {
        command: &'static str,
        format: Format,
        supported: &'static [Format],
    },
    MissingTarget,
    TooManyTargets(usize),
    /// `run` got `--param name=v1,v2`.
    SweepInRun,
    /// `sweep` got no `--param name=v1,v2`.
    SweepNeedsParam,
    Policy(PolicyError),
    /// The target is neither a preset nor a readable file.
    Unreadable {
        target: String,
        reason: String,
    },
    /// The file does not parse or validate.
    Scenario {
        target: String,
        error: ScenarioError,
    },
    /// A `--param` could not be set.
    Setting {
        name: String,
        value: String,
        error: SweepError,
    },
    Model(ModelError),
    /// A model preset's expectations do not parse (a bug in the preset, caught by tests).
    ModelExpectations {
        preset: &'static str,
        error: ModelExpectError,
    },
    /// The scenario was refused when its run was set up.
    Run {
        scenario: String,
        error: ScenarioError,
    },
    /// A probe result that cannot be fingerprinted.
    Fingerprint {
        file: String,
        error: FingerprintError,
    },
    /// `--plot` could not draw or write its chart (no font, an unwritable file).
    Plot(String),
    /// `--plot` given to a command that draws nothing.
    PlotNotSupported(String),
    /// `--log-format` names no log format.
    LogFormat(UnknownName),
    /// `--log-format` or `--replay` given to a command that reads no log.
    LogFormatNotSupported(String),
    /// A log refused (over the size cap) or whose reading stopped at a cap.
    Trace {
        file: String,
        error: TraceError,
    },
}

impl CliError {
    /// 2 when the command line itself is wrong, 1 when an input or a run is.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::NoCommand
            | CliError::UnknownCommand(_)
            | CliError::UnknownOption(_)
            | CliError::MissingValue { .. }
            | CliError::BadParam { .. }
            | CliError::SeveralSweeps
            | CliError::UnknownFormat(_)
            | CliError::FormatNotSupported { .. }
            | CliError::MissingTarget
            | CliError::TooManyTargets(_)
            | CliError::SweepInRun
            | CliError::SweepNeedsParam
            | CliError::Policy(_)
            | CliError::PlotNotSupported(_)
            | CliError::LogFormat(_)
            | CliError::LogFormatNotSupported(_) => 2,
            CliError::Unreadable { .. }
            | CliError::Scenario { .. }
            | CliError::Setting { .. }
            | CliError::Model(_)
            | CliError::ModelExpectations { .. }
            | CliError::Run { .. }
            | CliError::Fingerprint { .. }
            | CliError::Plot(_)
            | CliError::Trace { .. } => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::NoCommand => write!(f, "no command given (try `blast help`)"),
            CliError::UnknownCommand(c) => write!(f, "unknown command `{c}` (try `blast help`)"),
            CliError::UnknownOption(o) => write!(f, "unknown option `{o}`"),
            CliError::MissingValue { option } => write!(f, "{option} needs a value"),
            CliError::BadParam { given } => write!(f, "--param expects name=value, got `{given}`"),
            CliError::SeveralSweeps => write!(f, "only one --param may list several values"),
            CliError::UnknownFormat(name) => {
                let known: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                write!(f, "unknown format `{name}` (expected one of: {})", known.join(", "))
            }
            CliError::FormatNotSupported { command, format, supported } => {
                let known: Vec<&str> = supported.iter().map(|f| f.name()).collect();
                write!(f, "`{command}` cannot print {} (it prints: {})", format.name(), known.join(", "))
            }
            CliError::MissingTarget => write!(f, "missing <preset|file>"),
            CliError::TooManyTargets(n) => write!(f, "expected one <preset|file>, got {n}"),
            CliError::SweepInRun => write!(f, "`run` takes single values; use `blast sweep` to vary a parameter"),
            CliError::SweepNeedsParam => write!(f, "sweep needs --param name=v1,v2,..."),
            CliError::Policy(e) => write!(f, "{e}"),
            CliError::Unreadable { target, reason } => write!(f, "{target}: not a preset, and cannot read it as a file: {reason}"),
            CliError::Scenario { target, error } if error.location.is_some() => write!(f, "{target}:{error}"),
            CliError::Scenario { target, error } => write!(f, "{target}: {error}"),
            CliError::Setting { name, value, error } => write!(f, "--param {name}={value}: {error}"),
            CliError::Model(e) => write!(f, "{e}"),
            CliError::ModelExpectations { preset, error } => write!(f, "{preset}: expectations: {error}"),
            CliError::Run { scenario, error } => write!(f, "{scenario}: {error}"),
            CliError::Fingerprint { file, error } => write!(f, "{file}: {error}"),
            CliError::Plot(reason) => write!(f, "cannot draw the chart: {reason}"),
            CliError::PlotNotSupported(command) => {
                write!(f, "--plot draws the charts of `blast fingerprint` and `blast calibrate`; `blast {command}` has none")
            }
            CliError::LogFormat(e) => write!(f, "--log-format: {e}"),
            CliError::LogFormatNotSupported(command) => write!(f, "--log-format and --replay are for `blast trace`; `blast {command}` reads no log"),
            CliError::Trace { file, error } => write!(f, "{file}: {error}"),
        }
    }
}

impl std::error::Error for CliError {}

impl From<PolicyError> for CliError {
    fn from(e: PolicyError) -> Self {
        CliError::Policy(e)
    }
}

impl From<ModelError> for CliError {
    fn from(e: ModelError) -> Self {
        CliError::Model(e)
    }
}
