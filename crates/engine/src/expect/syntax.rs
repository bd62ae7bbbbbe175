//! The `expect` lines of the scenario language (a child of `dsl`, whose `Parser` it extends).
//!
//! ```text
//! expect under exact: write Unrelated.* relinks none of [hot, loopTest]
//! expect under hierarchy: write Parent.* relinks [childBase]
//! expect under exact, ideal: missed == 0
//! expect under global: relinks at hot >= 100
//! expect under global: relinks <= 8 per event
//! expect exact / global >= 10x ops
//! expect ideal <= exact relinks
//! expect under exact: ops within 30% of published hotLoop_unrelatedMetaClassChurn
//! expect exact / global ops within 50% of 210.5
//! ```
//! Every name is checked by `validate` (via `expect::check`), which places its errors through
//! the paths marked here: `expectations[i]`, `.policies[j]`, `.event`, `.sites[j]`, `.site`,
//! `.value`, `.factor`, `.tolerance_pct`, `.reference`.

use super::{describe, PResult, Parser, Tok, Token};
use crate::expect::spec::{Cmp, Decimal, DecimalError, EventPattern, Expectation, FigureRef, Metric, SiteClaim, Subject, ANY_NAME};
use crate::expect::{MAX_LISTED_SITES, MAX_LISTED_TOTAL};
use crate::policy::Policy;

/// Characters only expectations use (`:`, lists, wildcards, comparisons, ratios, percents).
pub(super) const EXPECT_SYMBOLS: &str = ":[],*<>!/%";

impl<'a> Parser<'a> {
    /// After `expect`: the rest of the line.
    pub(super) fn expectation(&mut self, path: &str) -> PResult<Expectation> {
        if self.at_keyword("under") {
            self.next()?;
            let policies = self.policy_list(path)?;
            return self.run_claim(path, policies);
        }
        let t = *self.peek();
        let Tok::Ident(word) = &t.tok else {
            return self.error(&t, format!("expected `under POLICY:` or a comparison of two policies after `expect`, found {}", describe(&t.tok)));
        };
        if word.parse::<Policy>().is_err() && (EVENT_KINDS.contains(word) || word.parse::<Metric>().is_ok()) {
            return self.error(&t, format!("say which policy's run this is about: `expect under exact: {word} ...`"));
        }
        let (a, _) = self.policy(path, "a")?;
        if self.at_sym('/') {
            self.next()?;
            let (b, _) = self.policy(path, "b")?;
            if self.at_cmp() {
                let cmp = self.cmp()?;
                let factor = self.decimal(&format!("{path}.factor"), "a factor (`10x`)")?;
                self.factor_x()?;
                let metric = self.metric()?;
                return Ok(Expectation::Ratio { a, b, cmp, factor, metric });
            }
            let metric = self.metric()?;
            let (tolerance_pct, reference) = self.within(path)?;
            return Ok(Expectation::Figure { subject: Subject::Ratio { a, b }, metric, tolerance_pct, reference });
        }
        if !self.at_cmp() {
            let t = *self.peek();
            return self.error(&t, format!("expected `/` (a ratio) or a comparison (`<=`, `==`, ...) after `{a}`, found {}", describe(&t.tok)));
        }
        let cmp = self.cmp()?;
        let (b, _) = self.policy(path, "b")?;
        let metric = self.metric()?;
        Ok(Expectation::Order { a, cmp, b, metric })
    }

    /// `POLICY {, POLICY} :`
    fn policy_list(&mut self, path: &str) -> PResult<Vec<Policy>> {
        let mut out = Vec::new();
        loop {
            let (p, pt) = self.policy(path, &format!("policies[{}]", out.len()))?;
            if out.contains(&p) {
                return self.error(&pt, format!("policy `{p}` is named twice"));
            }
            out.push(p);
            if self.at_sym(',') {
                self.next()?;
                continue;
            }
            self.sym(':')?;
            return Ok(out);
        }
    }

    fn policy(&mut self, path: &str, field: &str) -> PResult<(Policy, Token<'a>)> {
        let (name, t) = self.ident("a policy")?;
        self.mark(|| format!("{path}.{field}"), &t);
        match name.parse() {
            Ok(p) => Ok((p, t)),
            Err(e) => self.error(&t, e.to_string()),
        }
    }

    /// After `under POLICY:`: a relink claim, a bound on a figure, or a `within`.
    fn run_claim(&mut self, path: &str, policies: Vec<Policy>) -> PResult<Expectation> {
        let t = *self.peek();
        let metric = match &t.tok {
            Tok::Ident(w) => w.parse::<Metric>().ok(),
            _ => None,
        };
        let Some(metric) = metric else {
            let event = self.event_pattern(path)?;
            let sites = self.site_claim(path)?;
            return Ok(Expectation::Relinks { policies, event, sites });
        };
        self.next()?;
        if self.at_keyword("within") {
            let (tolerance_pct, reference) = self.within(path)?;
            return Ok(Expectation::Figure { subject: Subject::Run { policies }, metric, tolerance_pct, reference });
        }
        let mut site = None;
        if self.at_keyword("at") {
            self.next()?;
            let (name, st) = self.ident("a site name")?;
            self.mark(|| format!("{path}.site"), &st);
            site = Some(name.to_string());
        }
        if !self.at_cmp() {
            let t = *self.peek();
            return self
                .error(&t, format!("expected a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`) or `within` after `{metric}`, found {}", describe(&t.tok)));
        }
        let cmp = self.cmp()?;
        let value = self.decimal(&format!("{path}.value"), "a number")?;
        let mut per_event = false;
        if self.at_keyword("per") {
            self.next()?;
            self.keyword("event")?;
            per_event = true;
        }
        Ok(Expectation::Value { policies, metric, site, cmp, value, per_event })
    }

    fn metric(&mut self) -> PResult<Metric> {
        let (m, mt) = self.ident("a metric (ops, relinks, necessary, collateral, missed or deopts)")?;
        match m.parse() {
            Ok(metric) => Ok(metric),
            Err(e) => self.error(&mt, e.to_string()),
        }
    }

    /// `within P% of published` or `within P% of FIGURE`.
    fn within(&mut self, path: &str) -> PResult<(Decimal, FigureRef)> {
        self.keyword("within")?;
        let pct = self.decimal(&format!("{path}.tolerance_pct"), "a tolerance in percent")?;
        self.sym('%')?;
        self.keyword("of")?;
        let t = *self.peek();
        self.mark(|| format!("{path}.reference"), &t);
        if self.at_keyword("published") {
            self.next()?;
            let (row, rt) = self.ident("the published row's benchmark name (`published hotLoop_baseline`)")?;
            self.mark(|| format!("{path}.reference.row"), &rt);
            return Ok((pct, FigureRef::Published(row.to_string())));
        }
        if !matches!(t.tok, Tok::Num(_) | Tok::Dec(_)) {
            return self.error(&t, format!("expected `published` or a figure after `of`, found {}", describe(&t.tok)));
        }
        let figure = self.decimal(&format!("{path}.reference"), "a figure")?;
        Ok((pct, FigureRef::Given(figure)))
    }

    fn decimal(&mut self, mark: &str, what: &str) -> PResult<Decimal> {
        let t = self.next()?;
        self.mark(|| mark.to_string(), &t);
        let text = match &t.tok {
            Tok::Num(n) => return Ok(Decimal::whole(*n)),
            Tok::Dec(d) => d.replace('_', ""),
            other => return self.error(&t, format!("expected {what}, found {}", describe(other))),
        };
        text.parse().or_else(|e: DecimalError| self.error(&t, e.to_string()))
    }

    /// The `x` of `10x`, written against the number or apart from it.
    fn factor_x(&mut self) -> PResult<()> {
        let t = self.next()?;
        match &t.tok {
            Tok::Ident(x) if *x == "x" => Ok(()),
            other => self.error(&t, format!("expected `x` after the factor (`10x ops`), found {}", describe(other))),
        }
    }

    fn at_cmp(&self) -> bool {
        matches!(self.peek().tok, Tok::Sym('<' | '>' | '=' | '!'))
    }

    /// `==`, `!=`, `<`, `<=`, `>`, `>=`: one or two adjacent symbols.
    fn cmp(&mut self) -> PResult<Cmp> {
        let first = self.next()?;
        let second_is_eq = {
            let n = self.peek();
            n.tok == Tok::Sym('=') && n.line == first.line && n.col == first.col + 1
        };
        let cmp = match (&first.tok, second_is_eq) {
            (Tok::Sym('<'), true) => Cmp::Le,
            (Tok::Sym('<'), false) => return Ok(Cmp::Lt),
            (Tok::Sym('>'), true) => Cmp::Ge,
            (Tok::Sym('>'), false) => return Ok(Cmp::Gt),
            (Tok::Sym('='), true) => Cmp::Eq,
            (Tok::Sym('!'), true) => Cmp::Ne,
            (Tok::Sym(c), false) => return self.error(&first, format!("`{c}` is not a comparison; write `==`, `!=`, `<`, `<=`, `>` or `>=`")),
            (other, _) => return self.error(&first, format!("expected a comparison, found {}", describe(other))),
        };
        self.next()?;
        Ok(cmp)
    }

    /// A name or `*`.
    fn name_or_any(&mut self, what: &str) -> PResult<(String, Token<'a>)> {
        if self.at_sym('*') {
            let t = self.next()?;
            return Ok((ANY_NAME.to_string(), t));
        }
        self.ident(what).map(|(n, t)| (n.to_string(), t))
    }

    fn event_pattern(&mut self, path: &str) -> PResult<EventPattern> {
        let (kind, kt) = self.ident("an event pattern or a metric")?;
        self.mark(|| format!("{path}.event"), &kt);
        let class = |me: &mut Parser<'a>, what: &str| -> PResult<String> {
            let (c, ct) = me.name_or_any(what)?;
            me.mark(|| format!("{path}.event.name"), &ct);
            Ok(c)
        };
        Ok(match kind {
            "write" => {
                let class_name = class(self, "a class name or `*`")?;
                self.sym('.')?;
                let (method, mt) = self.name_or_any("a method name or `*`")?;
                self.mark(|| format!("{path}.event.method"), &mt);
                EventPattern::Write { class: class_name, method }
            }
            "replace" => EventPattern::Replace { class: class(self, "a class name or `*`")? },
            "remove" => EventPattern::Remove { class: class(self, "a class name or `*`")? },
            "instance" => EventPattern::Instance { class: class(self, "a class name or `*`")? },
            "load" => EventPattern::Load { class: class(self, "a class name or `*`")? },
            "use" => EventPattern::Use { category: class(self, "a category name or `*`")? },
            "enter" => EventPattern::Enter { category: class(self, "a category name or `*`")? },
            "leave" => EventPattern::Leave { category: class(self, "a category name or `*`")? },
            "invalidate" => {
                self.keyword("all")?;
                EventPattern::InvalidateAll
            }
            "unattributed" => EventPattern::Unattributed,
            "any" => {
                self.keyword("event")?;
                EventPattern::Any
            }
            other => {
                return self.error(
                    &kt,
                    format!(
                        "unknown event pattern or metric `{other}` (expected write, replace, remove, instance, load, use, enter, leave, invalidate all, unattributed, any event, or ops, relinks, necessary, collateral, missed, deopts)"
                    ),
                )
            }
        })
    }

    /// `relinks [a, b]`, `relinks none of [..]`, `relinks only [..]`, `relinks nothing`.
    fn site_claim(&mut self, path: &str) -> PResult<SiteClaim> {
        self.keyword("relinks")?;
        let t = *self.peek();
        match &t.tok {
            Tok::Ident(w) if *w == "nothing" => {
                self.next()?;
                Ok(SiteClaim::Nothing)
            }
            Tok::Ident(w) if *w == "none" => {
                self.next()?;
                self.keyword("of")?;
                Ok(SiteClaim::NoneOf(self.site_list(path)?))
            }
            Tok::Ident(w) if *w == "only" => {
                self.next()?;
                Ok(SiteClaim::Only(self.site_list(path)?))
            }
            Tok::Sym('[') => Ok(SiteClaim::All(self.site_list(path)?)),
            other => self.error(&t, format!("expected `[sites]`, `none of [sites]`, `only [sites]` or `nothing` after `relinks`, found {}", describe(other))),
        }
    }

    fn site_list(&mut self, path: &str) -> PResult<Vec<String>> {
        let open = self.sym('[')?;
        let mut out = Vec::new();
        while !self.at_sym(']') {
            if !out.is_empty() {
                self.sym(',')?;
            }
            let (site, st) = self.ident("a site name")?;
            self.cap(&st, out.len(), MAX_LISTED_SITES, "sites in one expectation's list")?;
            self.cap(&st, self.n.listed, MAX_LISTED_TOTAL, "sites listed by all expectations")?;
            self.n.listed += 1;
            self.mark(|| format!("{path}.sites[{}]", out.len()), &st);
            out.push(site.to_string());
        }
        self.sym(']')?;
        if out.is_empty() {
            return self.error(&open, "an empty site list; to say no site is relinked, write `relinks nothing`");
        }
        Ok(out)
    }
}

const EVENT_KINDS: [&str; 11] = ["write", "replace", "remove", "instance", "load", "use", "enter", "leave", "invalidate", "unattributed", "any"];
