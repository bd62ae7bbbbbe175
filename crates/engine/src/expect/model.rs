//! Expectations for the other models (shape cache, arena, descriptor cache): what a model
//! preset's published row shows, stated per *variant* (`before-fix`, `fifo`, `session-live`,
//! ...) the way call-site expectations are stated per policy, and checked by `blast check` and
//! the playground's model page.
//!
//! ```text
//! expect before-fix / fifo >= 10x time
//! expect under fifo, lru, unbounded: collateral == 0
//! expect under no-deopt: missed >= 1
//! ```
//! A model run has no event log or sites, so the claims are figures of a run (its time per op
//! and its verdict counts) and ratios between two variants. Variants are named by the model
//! (`ModelConfig::variants`), so the text is parsed against the model it is about and every
//! error names its `line:col`.

use std::fmt;

use serde::Serialize;

use crate::models::{ModelConfig, ModelPreset, ModelReport};
use crate::spelling::named;

use super::eval::Status;
use super::spec::{Cmp, Decimal, DecimalError};

/// A figure of one model run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelMetric {
    /// The run's figure per op, in the model's unit (`us/op`, `ns/op`): lower is better.
    Time,
    Necessary,
    Collateral,
    Missed,
}

impl ModelMetric {
    pub const ALL: [ModelMetric; 4] = [ModelMetric::Time, ModelMetric::Necessary, ModelMetric::Collateral, ModelMetric::Missed];

    pub fn name(self) -> &'static str {
        match self {
            ModelMetric::Time => "time",
            ModelMetric::Necessary => "necessary",
            ModelMetric::Collateral => "collateral",
            ModelMetric::Missed => "missed",
        }
    }

    fn of(self, r: &ModelReport) -> f64 {
        match self {
            ModelMetric::Time => r.value,
            ModelMetric::Necessary => r.verdicts.necessary as f64,
            ModelMetric::Collateral => r.verdicts.collateral as f64,
            ModelMetric::Missed => r.verdicts.missed as f64,
        }
    }
}

named!(ModelMetric, "metric");

/// One `expect` line about a model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "claim", rename_all = "kebab-case")]
pub enum ModelExpectation {
    /// `expect under fifo, lru: collateral == 0`
    Value { variants: Vec<String>, metric: ModelMetric, cmp: Cmp, value: Decimal },
    /// `expect before-fix / fifo >= 10x time`
    Ratio { a: String, b: String, cmp: Cmp, factor: Decimal, metric: ModelMetric },
}

impl ModelExpectation {
    /// Every variant whose run this expectation reads, in first-mention order.
    pub fn variants(&self) -> Vec<&str> {
        match self {
            ModelExpectation::Value { variants, .. } => variants.iter().map(String::as_str).collect(),
            ModelExpectation::Ratio { a, b, .. } => vec![a.as_str(), b.as_str()],
        }
    }

    /// The claim restated as what the runs must show (the "expected" line of a failure).
    pub fn expected(&self) -> String {
        match self {
            ModelExpectation::Value { variants, metric, cmp, value } => format!("{metric} {cmp} {value} under {}", variants.join(", ")),
            ModelExpectation::Ratio { a, b, cmp, factor, metric } => format!("{metric} {a} / {b} {cmp} {factor}"),
        }
    }
}

impl fmt::Display for ModelExpectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelExpectation::Value { variants, metric, cmp, value } => write!(f, "expect under {}: {metric} {cmp} {value}", variants.join(", ")),
            ModelExpectation::Ratio { a, b, cmp, factor, metric } => write!(f, "expect {a} / {b} {cmp} {factor}x {metric}"),
        }
    }
}

/// A malformed model expectation, at its `line:col` (1-based) in the text it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelExpectError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for ModelExpectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ModelExpectError {}

/// A parsed expectation and where its line starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub expectation: ModelExpectation,
    pub line: usize,
    pub col: usize,
}

/// At most this many lines of model expectations (each runs at most every variant once).
pub const MAX_MODEL_EXPECTATIONS: usize = 1_000;

/// A model preset's own expectations, parsed against its configuration.
pub fn of_preset(preset: &ModelPreset) -> Result<Vec<Placed>, ModelExpectError> {
    parse(preset.expectations, &preset.config())
}

/// Parse one expectation per non-blank line (`#` starts a comment) against `config`'s variants.
pub fn parse(text: &str, config: &ModelConfig) -> Result<Vec<Placed>, ModelExpectError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        let tokens = tokenize(line, i + 1)?;
        let Some(first) = tokens.first() else { continue };
        if out.len() == MAX_MODEL_EXPECTATIONS {
            return Err(first.error(format!("more than {MAX_MODEL_EXPECTATIONS} expectations")));
        }
        let mut p = LineParser { tokens: &tokens, at: 0, variants: config.variants(), end: (i + 1, line.trim_end().len() + 1) };
        let expectation = p.expectation()?;
        p.end_of_line()?;
        out.push(Placed { expectation, line: first.line, col: first.col });
    }
    Ok(out)
}

#[derive(Clone, Debug, PartialEq)]
struct Token {
    text: String,
    line: usize,
    col: usize,
}

impl Token {
    fn error(&self, message: impl Into<String>) -> ModelExpectError {
        ModelExpectError { line: self.line, col: self.col, message: message.into() }
    }
}

/// Words (`before-fix`, `10x`, `1.5`), punctuation (`:`, `,`, `/`) and comparisons (`<=`).
fn tokenize(line: &str, line_no: usize) -> Result<Vec<Token>, ModelExpectError> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | '-' | '.')) {
                i += 1;
            }
        } else if matches!(c, '<' | '>' | '=' | '!') {
            while i < chars.len() && matches!(chars[i], '<' | '>' | '=' | '!') {
                i += 1;
            }
        } else if matches!(c, ':' | ',' | '/') {
            i += 1;
        } else {
            return Err(ModelExpectError { line: line_no, col: start + 1, message: format!("unexpected character `{c}`") });
        }
        out.push(Token { text: chars[start..i].iter().collect(), line: line_no, col: start + 1 });
    }
    Ok(out)
}

struct LineParser<'t> {
    tokens: &'t [Token],
    at: usize,
    variants: &'static [&'static str],
    /// Where the line ends, for "expected ..., found the end of the line".
    end: (usize, usize),
}

impl LineParser<'_> {
    fn next(&mut self, what: &str) -> Result<&Token, ModelExpectError> {
        match self.tokens.get(self.at) {
            Some(t) => {
                self.at += 1;
                Ok(t)
            }
            None => Err(ModelExpectError { line: self.end.0, col: self.end.1, message: format!("expected {what}, found the end of the line") }),
        }
    }

    fn peek_is(&self, text: &str) -> bool {
        self.tokens.get(self.at).is_some_and(|t| t.text == text)
    }

    fn word(&mut self, word: &str) -> Result<(), ModelExpectError> {
        let t = self.next(&format!("`{word}`"))?;
        if t.text != word {
            return Err(t.error(format!("expected `{word}`, found `{}`", t.text)));
        }
        Ok(())
    }

    fn end_of_line(&mut self) -> Result<(), ModelExpectError> {
        match self.tokens.get(self.at) {
            Some(t) => Err(t.error(format!("unexpected `{}` after the expectation", t.text))),
            None => Ok(()),
        }
    }

    fn expectation(&mut self) -> Result<ModelExpectation, ModelExpectError> {
        self.word("expect")?;
        if self.peek_is("under") {
            self.at += 1;
            let mut variants: Vec<String> = Vec::new();
            loop {
                let (v, t) = self.variant()?;
                if variants.contains(&v) {
                    return Err(t.error(format!("variant `{v}` is named twice")));
                }
                variants.push(v);
                if self.peek_is(",") {
                    self.at += 1;
                    continue;
                }
                self.word(":")?;
                break;
            }
            let (metric, _) = self.metric()?;
            let cmp = self.cmp()?;
            let vt = self.next("a number")?.clone();
            let value: Decimal = vt.text.parse().map_err(|e: DecimalError| vt.error(e.to_string()))?;
            if metric != ModelMetric::Time && !value.is_whole() {
                return Err(vt.error(format!("`{metric}` is a count; {value} is not a whole number")));
            }
            return Ok(ModelExpectation::Value { variants, metric, cmp, value });
        }
        let (a, _) = self.variant()?;
        self.word("/")?;
        let (b, bt) = self.variant()?;
        if a == b {
            return Err(bt.error(format!("comparing `{a}` with itself says nothing")));
        }
        let cmp = self.cmp()?;
        let ft = self.next("a factor (`10x`)")?.clone();
        let Some(digits) = ft.text.strip_suffix('x') else {
            return Err(ft.error(format!("expected a factor written `10x`, found `{}`", ft.text)));
        };
        let factor: Decimal = digits.parse().map_err(|e: DecimalError| ft.error(e.to_string()))?;
        if factor.units == 0 {
            return Err(ft.error("a ratio bound must be greater than 0"));
        }
        let (metric, _) = self.metric()?;
        Ok(ModelExpectation::Ratio { a, b, cmp, factor, metric })
    }

    fn variant(&mut self) -> Result<(String, Token), ModelExpectError> {
        let variants = self.variants;
        let t = self.next("a variant")?.clone();
        if !variants.contains(&t.text.as_str()) {
            return Err(t.error(format!("unknown variant `{}` (this model has: {})", t.text, variants.join(", "))));
        }
        Ok((t.text.clone(), t))
    }

    fn metric(&mut self) -> Result<(ModelMetric, Token), ModelExpectError> {
        let t = self.next("a metric (time, necessary, collateral or missed)")?.clone();
        let metric = t.text.parse::<ModelMetric>().map_err(|e| t.error(e.to_string()))?;
        Ok((metric, t))
    }

    fn cmp(&mut self) -> Result<Cmp, ModelExpectError> {
        let t = self.next("a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)")?;
        Cmp::ALL
            .into_iter()
            .find(|c| c.name() == t.text)
            .ok_or_else(|| t.error(format!("expected a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`), found `{}`", t.text)))
    }
}

/// What the runs showed for one model expectation.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ModelObserved {
    Figure {
        variant: String,
        metric: ModelMetric,
        value: f64,
        unit: String,
    },
    /// `ratio` = a / b.
    Pair {
        metric: ModelMetric,
        a: String,
        a_value: f64,
        b: String,
        b_value: f64,
        ratio: f64,
    },
    /// That variant has not run (yet).
    Waiting {
        variant: String,
    },
}

impl fmt::Display for ModelObserved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelObserved::Figure { variant, metric: ModelMetric::Time, value, unit } => write!(f, "{variant}: {value:.2} {unit}"),
            ModelObserved::Figure { variant, metric, value, .. } => write!(f, "{variant}: {metric} {value}"),
            ModelObserved::Pair { metric, a, a_value, b, b_value, ratio } => write!(f, "{metric} {a} {a_value:.2} / {b} {b_value:.2} = {ratio:.2}x"),
            ModelObserved::Waiting { variant } => write!(f, "{variant}: not run yet"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelOutcome {
    /// Index in the expectation list.
    pub index: usize,
    pub status: Status,
    pub observed: Vec<ModelObserved>,
}

/// Every expectation against the finished runs at hand (`(variant, report)`); a claim whose
/// variant has not finished is `Pending` (model runs report only once they are done).
pub fn evaluate(expectations: &[ModelExpectation], runs: &[(&str, &ModelReport)]) -> Vec<ModelOutcome> {
    let run = |v: &str| runs.iter().find(|(name, _)| *name == v).map(|(_, r)| *r);
    expectations
        .iter()
        .enumerate()
        .map(|(index, e)| {
            let mut out = ModelOutcome { index, status: Status::Pass, observed: Vec::new() };
            let settle = |holds: bool, out: &mut ModelOutcome| {
                if !holds {
                    out.status = Status::Fail;
                }
            };
            let mut waiting = Vec::new();
            match e {
                ModelExpectation::Value { variants, metric, cmp, value } => {
                    for v in variants {
                        let Some(r) = run(v) else {
                            waiting.push(v.clone());
                            continue;
                        };
                        let observed = metric.of(r);
                        out.observed.push(ModelObserved::Figure { variant: v.clone(), metric: *metric, value: observed, unit: r.unit.clone() });
                        settle(cmp.holds(observed, value.value()), &mut out);
                    }
                }
                ModelExpectation::Ratio { a, b, cmp, factor, metric } => match (run(a), run(b)) {
                    (Some(ra), Some(rb)) => {
                        let (va, vb) = (metric.of(ra), metric.of(rb));
                        let ratio = va / vb;
                        out.observed.push(ModelObserved::Pair { metric: *metric, a: a.clone(), a_value: va, b: b.clone(), b_value: vb, ratio });
                        settle(cmp.holds(ratio, factor.value()), &mut out);
                    }
                    (ra, rb) => waiting.extend([(a, ra.is_none()), (b, rb.is_none())].into_iter().filter(|(_, missing)| *missing).map(|(v, _)| v.clone())),
                },
            }
            if !waiting.is_empty() && out.status != Status::Fail {
                out.status = Status::Pending;
            }
            out.observed.extend(waiting.into_iter().map(|variant| ModelObserved::Waiting { variant }));
            out
        })
        .collect()
}

/// Run every variant the expectations read (once each) and evaluate them.
pub fn check(config: &ModelConfig, expectations: &[ModelExpectation]) -> Result<Vec<ModelOutcome>, crate::models::ModelError> {
    let mut names: Vec<&str> = Vec::new();
    for v in expectations.iter().flat_map(|e| e.variants()) {
        if !names.contains(&v) {
            names.push(v);
        }
    }
    let reports = names.iter().map(|v| config.run(v)).collect::<Result<Vec<_>, _>>()?;
    let runs: Vec<(&str, &ModelReport)> = names.iter().copied().zip(reports.iter()).collect();
    Ok(evaluate(expectations, &runs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models;

    fn records() -> ModelConfig {
        models::find("records_length100").unwrap().config()
    }

    fn error(text: &str) -> String {
        parse(text, &records()).unwrap_err().to_string()
    }

    #[test]
    fn both_forms_parse_and_print_back() {
        let text = "expect before-fix / fifo >= 10x time\nexpect under fifo, lru: collateral == 0   # a comment\n\n# only a comment\nexpect under capacity-0: time < 200.5";
        let parsed = parse(text, &records()).unwrap();
        assert_eq!(parsed.len(), 3);
        assert_eq!((parsed[1].line, parsed[1].col), (2, 1));
        let printed: Vec<String> = parsed.iter().map(|p| p.expectation.to_string()).collect();
        assert_eq!(printed, ["expect before-fix / fifo >= 10x time", "expect under fifo, lru: collateral == 0", "expect under capacity-0: time < 200.5"]);
        let again = parse(&printed.join("\n"), &records()).unwrap();
        assert_eq!(again.iter().map(|p| &p.expectation).collect::<Vec<_>>(), parsed.iter().map(|p| &p.expectation).collect::<Vec<_>>());
    }

    #[test]
    fn malformed_lines_name_their_place() {
        let cases = [
            ("expect under fifo collateral == 0", "1:19: expected `:`, found `collateral`"),
            ("expect under always: missed == 0", "1:14: unknown variant `always` (this model has: before-fix, fifo, lru, unbounded, capacity-0)"),
            ("expect under fifo, fifo: missed == 0", "1:20: variant `fifo` is named twice"),
            ("expect under fifo: relinks == 0", "1:20: unknown metric `relinks` (expected one of: time, necessary, collateral, missed)"),
            ("expect under fifo: missed = 0", "1:27: expected a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`), found `=`"),
            ("expect under fifo: missed == 0.5", "1:30: `missed` is a count; 0.5 is not a whole number"),
            ("expect under fifo: missed ==", "1:29: expected a number, found the end of the line"),
            ("expect fifo / fifo >= 2x time", "1:15: comparing `fifo` with itself says nothing"),
            ("expect before-fix / fifo >= 10 time", "1:29: expected a factor written `10x`, found `10`"),
            ("expect before-fix / fifo >= 0x time", "1:29: a ratio bound must be greater than 0"),
            ("expect before-fix fifo >= 2x time", "1:19: expected `/`, found `fifo`"),
            ("expect under fifo: time < 3 ms", "1:29: unexpected `ms` after the expectation"),
            ("\n  want under fifo: time < 3", "2:3: expected `expect`, found `want`"),
            ("expect under fifo: time < 3;", "1:28: unexpected character `;`"),
        ];
        for (text, message) in cases {
            assert_eq!(error(text), message, "{text:?}");
        }
    }

    #[test]
    fn pending_until_the_variant_has_run_then_decided() {
        let exps: Vec<ModelExpectation> =
            parse("expect before-fix / fifo >= 10x time\nexpect under fifo: collateral > 0", &records()).unwrap().into_iter().map(|p| p.expectation).collect();
        let fifo = records().run("fifo").unwrap();
        let partial = evaluate(&exps, &[("fifo", &fifo)]);
        assert_eq!(partial[0].status, Status::Pending);
        assert_eq!(partial[1].status, Status::Fail, "fifo has no collateral: {:?}", partial[1].observed);
        let all = check(&records(), &exps).unwrap();
        assert_eq!(all[0].status, Status::Pass, "{:?}", all[0].observed);
        let ModelObserved::Pair { ratio, .. } = all[0].observed[0] else { panic!("a pair") };
        assert!(ratio > 10.0);
    }
}
