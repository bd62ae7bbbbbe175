//! Groovy 2.4's indy log (`-Dgroovy.indy.logging=true`, java.util.logging on stderr) with the
//! capture's metaclass listener line. Shapes, from org.codehaus.groovy.vmplugin.v7.Selector
//! (Groovy 2.4.21) as java.util.logging's `SimpleFormatter` prints them:
//! - a record header `Mon DD, YYYY H:MM:SS AM org.codehaus.groovy.vmplugin.v7.Selector$... method`
//! - `INFO: ----...` then tab-indented lines (`MethodSelector`'s constructor): `invocation of
//!   method 'name'`, `invocation type: METHOD`, `sender: class X`, `with N arguments`, ...
//! - `INFO: meta class is <metaclass class>@<hash>[class X]` (`MethodSelector.setCallSiteTarget`)
//! - `INFO: selection base set to class X` (`MethodSelector.setSelectionBase`): the receiver
//! - `INFO: call site target set, preparing outside invocation`
//!   (`MethodSelector.doCallSiteTargetSet`): the selection is done and the site relinked
//! - the listener (probes/traces/groovy/MetaClassChangeLog.java): `METACLASS_CHANGE seq=<n>
//!   nanos=<System.nanoTime> class=<name> old=<mc> new=<mc> instance=<bool>`, printed from
//!   `MetaClassRegistryChangeEventListener.updateConstantMetaClass`.
//!
//! The log names no line: a site is its sender class and method name (two calls of one name
//! in one class are one site here). A site's first selection after a metaclass change is
//! attributed by order to the last change before it; later ones (a receiver change at a
//! polymorphic site) to nothing.

use super::fields::num;
use super::{At, Attribution, Builder, Cause, Invalidation, InvalidationKind, Line, Mutation, MutationKind, SiteKey};
use crate::fxhash::FxMap;

pub(super) const LISTENER_PREFIX: &str = "METACLASS_CHANGE ";

/// A selection being read.
#[derive(Default)]
struct Selection {
    method: Option<String>,
    sender: Option<String>,
    receiver: Option<String>,
    metaclass: Option<String>,
}

#[derive(Default)]
pub(super) struct GroovyReader {
    current: Option<Selection>,
    /// The line of each site's last selection.
    last: FxMap<u32, u64>,
    version_seen: bool,
}

impl GroovyReader {
    pub(super) fn line(&mut self, b: &mut Builder, n: u64, line: &str) -> Line {
        if !self.version_seen {
            self.version_seen = true;
            if b.trace.version.is_none() {
                b.trace.version = Some("Groovy indy, vmplugin.v7 (2.x)".to_string());
            }
        }
        if let Some(rest) = line.strip_prefix(LISTENER_PREFIX) {
            return self.change(b, n, rest).unwrap_or(Line::Unknown);
        }
        if let Some(msg) = line.strip_prefix("INFO: ") {
            return self.info(b, n, msg);
        }
        if let Some(detail) = line.strip_prefix('\t') {
            return self.detail(detail.trim_start_matches('\t'));
        }
        if line.contains(" org.codehaus.groovy.vmplugin.") {
            return Line::Ignored;
        }
        Line::Unknown
    }

    fn detail(&mut self, d: &str) -> Line {
        let Some(s) = self.current.as_mut() else { return Line::Unknown };
        if let Some(m) = d.strip_prefix("invocation of method '") {
            s.method = m.strip_suffix('\'').map(str::to_string);
        } else if let Some(c) = d.strip_prefix("sender: ") {
            s.sender = Some(class_name(c).to_string());
        }
        Line::Ignored
    }

    fn info(&mut self, b: &mut Builder, n: u64, msg: &str) -> Line {
        if msg.starts_with("-----") {
            self.current = Some(Selection::default());
            return Line::Read;
        }
        let Some(s) = self.current.as_mut() else { return Line::Ignored };
        if let Some(mc) = msg.strip_prefix("meta class is ") {
            s.metaclass = Some(mc.split('@').next().unwrap_or(mc).rsplit('.').next().unwrap_or(mc).to_string());
            if s.receiver.is_none() {
                s.receiver = mc.split_once("[class ").and_then(|(_, c)| c.strip_suffix(']')).map(str::to_string);
            }
        } else if let Some(c) = msg.strip_prefix("selection base set to ") {
            s.receiver = Some(class_name(c).to_string());
        } else if msg.starts_with("call site target set") {
            return self.selected(b, n);
        }
        Line::Ignored
    }

    /// A selection finished: the site is linked, or relinked if it was before.
    fn selected(&mut self, b: &mut Builder, n: u64) -> Line {
        let Some(s) = self.current.take() else { return Line::Ignored };
        let (Some(method), Some(sender)) = (s.method, s.sender) else { return Line::Unknown };
        let member = Some(method.clone());
        let site = b.site(SiteKey::Sender { sender, method }, None, n);
        let st = &mut b.trace.sites[site as usize];
        st.member.clone_from(&member);
        st.selections += 1;
        if let Some(r) = &s.receiver {
            st.saw(r);
        }
        let Some(previous) = self.last.insert(site, n) else { return Line::Read };
        let last = b.trace.mutations.len().checked_sub(1);
        let cause = last.filter(|&m| b.trace.mutations[m].at.line > previous).map(|m| Cause { mutation: m as u32, attribution: Attribution::ByOrder });
        let kind = InvalidationKind::Relink { receiver: s.receiver.unwrap_or_default(), metaclass: s.metaclass.unwrap_or_default() };
        b.invalidation(Invalidation { at: At { line: n, clock_us: None }, kind, site: Some(site), unit: None, cause });
        Line::Read
    }

    fn change(&mut self, b: &mut Builder, n: u64, rest: &str) -> Option<Line> {
        let field = |k: &str| rest.split(' ').find_map(|kv| kv.strip_prefix(k)?.strip_prefix('='));
        let class = field("class")?.to_string();
        let clock_us = field("nanos").and_then(num::<u64>).map(|ns| ns / 1000);
        b.mutation(Mutation { at: At { line: n, clock_us }, kind: MutationKind::MetaClassChange, class, member: None, site: None });
        Some(Line::Read)
    }
}

/// `class X` / `interface X` -> `X`.
fn class_name(s: &str) -> &str {
    s.strip_prefix("class ").or_else(|| s.strip_prefix("interface ")).unwrap_or(s)
}
