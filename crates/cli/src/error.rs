//! Everything that can go wrong in a `blast` command, as values: the command decides the exit
//! code from the variant (2 for a mistake in the command line, 1 for a bad input or a failed
//! run, [`EXIT_OUTPUT`] when the output could not be written, 0 when its reader went away),
//! and the text is made only when it is printed.

use std::fmt;

use blast_engine::expect::model::ModelExpectError;
use blast_engine::fingerprint::FingerprintError;
use blast_engine::models::ModelError;
use blast_engine::policy::PolicyError;
use blast_engine::spelling::UnknownName;
use blast_engine::sweep::SweepError;
use blast_engine::trace::{ClassesError, TraceError};
use blast_engine::ScenarioError;

use crate::format::Format;
use crate::input::InputError;
use crate::out::OutError;

/// The exit code when writing the output failed for any reason but a broken pipe (a full disk,
/// a device error): 74, `EX_IOERR` of BSD's sysexits.h. A broken pipe (`blast ... | head`)
/// exits 0 and prints nothing, as `grep` and `rg` do.
pub const EXIT_OUTPUT: i32 = 74;

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
    /// The target is neither a preset nor a file that could be read as text within the cap
    /// (missing, too large, not UTF-8 text, a NUL byte).
    Input {
        target: String,
        error: InputError,
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
    /// `show` would print more than `run` reads back.
    ShowTooLarge {
        scenario: String,
        format: Format,
        bytes: u64,
        cap: u64,
    },
    /// `sweep` was given more values than it runs.
    TooManyValues {
        given: usize,
        max: usize,
    },
    /// Writing the output failed (stdout closed, a full disk, a value JSON cannot encode).
    Output(OutError),
    /// `--log-format` names no log format.
    LogFormat(UnknownName),
    /// `--log-format` or `--replay` given to a command that reads no log.
    LogFormatNotSupported(String),
    /// `fingerprint --format json` given a runtime log (its JSON is `blast trace --replay`'s).
    LogAsJson(String),
    /// A log file that cannot be opened or read.
    LogUnreadable {
        file: String,
        error: std::io::Error,
    },
    /// A log refused (over the size cap) or whose reading stopped at a cap.
    Trace {
        file: String,
        error: TraceError,
    },
    /// The class tree beside a log (`NAME.classes`) does not read.
    ClassTree {
        file: String,
        error: ClassesError,
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
            | CliError::TooManyValues { .. }
            | CliError::LogFormat(_)
            | CliError::LogFormatNotSupported(_)
            | CliError::LogAsJson(_) => 2,
            CliError::Output(e) if e.is_broken_pipe() => 0,
            CliError::Output(OutError::Write(_)) => EXIT_OUTPUT,
            CliError::Input { .. }
            | CliError::LogUnreadable { .. }
            | CliError::Output(OutError::Encode(_))
            | CliError::ShowTooLarge { .. }
            | CliError::Scenario { .. }
            | CliError::Setting { .. }
            | CliError::Model(_)
            | CliError::ModelExpectations { .. }
            | CliError::Run { .. }
            | CliError::Fingerprint { .. }
            | CliError::Plot(_)
            | CliError::Trace { .. }
            | CliError::ClassTree { .. } => 1,
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
            CliError::Input { target, error: InputError::Io(e) } => write!(f, "{target}: not a preset, and cannot read it as a file: {e}"),
            CliError::Input { target, error } => write!(f, "{target}: {error}"),
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
            CliError::ShowTooLarge { scenario, format, bytes, cap } => {
                write!(f, "{scenario}: as {} it is {bytes} bytes; `blast run` reads at most {cap}, so `show` does not print it", format.name())
            }
            CliError::TooManyValues { given, max } => write!(f, "sweep got {given} values; it runs at most {max} (split the sweep)"),
            CliError::Output(e) => write!(f, "{e}"),
            CliError::LogFormat(e) => write!(f, "--log-format: {e}"),
            CliError::LogFormatNotSupported(command) => write!(f, "--log-format and --replay are for `blast trace`; `blast {command}` reads no log"),
            CliError::LogAsJson(file) => write!(
                f,
                "{file} is a runtime log: `blast fingerprint --format json` writes the fingerprints of probe results; `blast trace {file} --replay --format json` writes the log's evidence"
            ),
            CliError::LogUnreadable { file, error } => write!(f, "{file}: cannot read it: {error}"),
            CliError::Trace { file, error } => write!(f, "{file}: {error}"),
            CliError::ClassTree { file, error } => write!(f, "{file}: {error}"),
        }
    }
}

impl std::error::Error for CliError {}

impl CliError {
    /// Whether the command ends without a word: its output's reader went away.
    pub fn is_quiet(&self) -> bool {
        matches!(self, CliError::Output(e) if e.is_broken_pipe())
    }
}

impl From<OutError> for CliError {
    fn from(e: OutError) -> Self {
        CliError::Output(e)
    }
}

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
