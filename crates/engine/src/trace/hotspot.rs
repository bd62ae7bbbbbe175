//! HotSpot's `-XX:+LogCompilation` XML, read line by line (HotSpot writes one element per line:
//! src/hotspot/share/utilities/xmlstream.cpp). The shapes read, as JDK 17 writes them:
//! - `<release>` text in `<vm_version>`: the JDK's version
//! - `<nmethod compile_id= compiler= level= method='Holder name (sig)' [compile_kind='osr']>`:
//!   a compiled unit installed (`nmethod::log_new_nmethod`, code/nmethod.cpp)
//! - `<dependency_failed type= ctxk= x= witness= stamp=>`: an assumption broken by a class
//!   load, one line per nmethod checked (`Dependencies::DepStream::log_dependency` with a
//!   witness, code/dependencies.cpp)
//! - `<make_not_entrant thread= compile_id= ... stamp=>` (`nmethod::log_state_change`)
//! - `<uncommon_trap thread= reason= action= compile_id=>` (`Deoptimization::uncommon_trap_inner`)
//!   and `<deoptimized thread= reason= compile_id=>` (`Deoptimization::fetch_unroll_info_helper`),
//!   both runtime/deoptimization.cpp: deoptimizations
//! - in each compiler thread's `<compilation_log>` (appended at exit; a crashed run lacks it):
//!   `<task compile_id=>` ... `<klass id= name=>`, `<method id= holder= name=>`, `<dependency
//!   type= ctxk= x=>` with ids local to the task (`ciEnv`'s log, `Dependencies::log_all_dependencies`).
//!
//! A `dependency_failed`'s witness is the class whose load broke it: one [`MutationKind::ClassLoad`]
//! per witness and stamp. A `make_not_entrant` is attributed to it exactly when the unit's
//! recorded dependencies include a failed (type, context class) pair and the unit was made not
//! entrant after the failure; when the compilation log is missing, a `make_not_entrant` right
//! after the failures (same thread, nothing else between) is attributed by order.
//! JITWatch reads the same elements (`LogCompilationUtil`, `TagProcessor`).

use super::fields::{attr, num, seconds_to_us, unescape};
use super::{At, Attribution, Builder, Cause, CodeUnit, Dependency, Invalidation, InvalidationKind, Line, Mutation, MutationKind, UnitId};
use crate::fxhash::FxMap;

#[derive(Default)]
pub(super) struct HotSpotReader {
    units: FxMap<u32, UnitId>,
    /// Inside `<release>`: the next text line is the JDK's version.
    in_release: bool,
    /// Inside an element whose lines are free text (`<vm_version>`, `<vm_arguments>`).
    in_text: u32,
    log_version: Option<String>,
    in_cdata: bool,
    /// The `<task>` being read in a compilation log: its unit, and its klass / method ids.
    task: Option<UnitId>,
    ids: TaskIds,
    /// The class-load mutation whose failures were the last events, for the make_not_entrant
    /// lines right after them.
    after_failure: Option<u32>,
    adjacent: Vec<(usize, u32)>,
    /// The failed (type, ctxk) pairs of each mutation.
    failed: Vec<(u32, String, String)>,
}

impl HotSpotReader {
    pub(super) fn line(&mut self, b: &mut Builder, n: u64, line: &str) -> Line {
        let t = line.trim_start();
        // `<fragment><![CDATA[ ... ]]>`: the part of a task a compiler thread had written when
        // the VM exited (CompileLog::finish_log_on_error); free text, not events.
        if self.in_cdata || t.starts_with("<![CDATA[") {
            self.in_cdata = !t.contains("]]>");
            return Line::Ignored;
        }
        let Some(body) = t.strip_prefix('<') else {
            return self.text(b, t);
        };
        // A closing tag's name keeps its `/`: `</task>` is `/task`.
        let name_end = body.char_indices().skip(1).find(|&(_, c)| matches!(c, ' ' | '>' | '/')).map_or(body.len(), |(i, _)| i);
        let name = &body[..name_end];
        if !t.ends_with('>') || name.is_empty() {
            return Line::Unknown;
        }
        let outcome = match name {
            "hotspot_log" => {
                self.log_version = attr(t, "version").map(str::to_string);
                Some(Line::Read)
            }
            "release" => {
                self.in_release = true;
                Some(Line::Ignored)
            }
            "vm_version" | "vm_arguments" => {
                self.in_text += 1;
                Some(Line::Ignored)
            }
            "/vm_version" | "/vm_arguments" => {
                self.in_text = self.in_text.saturating_sub(1);
                Some(Line::Ignored)
            }
            "nmethod" => self.nmethod(b, n, t),
            "task" => {
                self.task = attr(t, "compile_id").and_then(num::<u32>).and_then(|id| self.units.get(&id).copied());
                self.ids.clear();
                Some(Line::Read)
            }
            "/task" => {
                self.task = None;
                Some(Line::Read)
            }
            "klass" | "type" => {
                if let (Some(id), Some(nm)) = (attr(t, "id").and_then(num::<u32>), attr(t, "name")) {
                    self.ids.klass(id, &unescape(nm));
                }
                Some(Line::Read)
            }
            "method" if self.task.is_some() => {
                if let (Some(id), Some(holder), Some(nm)) = (attr(t, "id").and_then(num::<u32>), attr(t, "holder").and_then(num::<u32>), attr(t, "name")) {
                    self.ids.method(id, holder, &unescape(nm));
                }
                Some(Line::Read)
            }
            "dependency" => self.dependency(b, t),
            "dependency_failed" => self.dependency_failed(b, n, t),
            "make_not_entrant" => self.not_entrant(b, n, t),
            "uncommon_trap" | "deoptimized" if attr(t, "thread").is_some() => self.deopt(b, n, name, t),
            "writer" => return Line::Ignored,
            _ => Some(Line::Ignored),
        };
        if !matches!(name, "dependency_failed" | "make_not_entrant") {
            self.after_failure = None;
        }
        outcome.unwrap_or(Line::Unknown)
    }

    fn text(&mut self, b: &mut Builder, t: &str) -> Line {
        if self.in_release {
            self.in_release = false;
            let log = self.log_version.as_deref().map(|v| format!(" (LogCompilation {v})")).unwrap_or_default();
            b.trace.version = Some(format!("JDK {}{log}", t.trim()));
            return Line::Read;
        }
        if self.in_text > 0 {
            Line::Ignored
        } else {
            Line::Unknown
        }
    }

    fn at(n: u64, t: &str) -> At {
        At { line: n, clock_us: attr(t, "stamp").and_then(seconds_to_us) }
    }

    fn nmethod(&mut self, b: &mut Builder, n: u64, t: &str) -> Option<Line> {
        let id = num::<u32>(attr(t, "compile_id")?)?;
        let method = unescape(attr(t, "method")?).into_owned();
        let holder = method.split(' ').next().unwrap_or("").to_string();
        let level = attr(t, "level").unwrap_or(if attr(t, "compiler") == Some("c2") { "4" } else { "?" });
        let osr = if attr(t, "compile_kind") == Some("osr") { " osr" } else { "" };
        let unit = b.unit(CodeUnit { at: Self::at(n, t), name: method, source: holder, tier: format!("{level}{osr}"), compile_id: Some(id), deps: Vec::new() });
        self.units.insert(id, unit);
        Some(Line::Read)
    }

    fn name_of(&self, id: &str) -> String {
        num::<u32>(id).and_then(|i| self.ids.name(i)).unwrap_or_else(|| id.to_string())
    }

    fn dependency(&mut self, b: &mut Builder, t: &str) -> Option<Line> {
        let Some(unit) = self.task else { return Some(Line::Ignored) };
        let kind = attr(t, "type")?.to_string();
        let ctxk = attr(t, "ctxk").map(|c| self.name_of(c)).unwrap_or_default();
        let x = ["x", "x2", "x3", "x4"].iter().filter_map(|a| attr(t, a)).map(|x| self.name_of(x)).collect();
        let d = Dependency { kind, ctxk, x };
        let deps = &mut b.trace.units[unit as usize].deps;
        if !deps.contains(&d) {
            deps.push(d);
        }
        Some(Line::Read)
    }

    fn dependency_failed(&mut self, b: &mut Builder, n: u64, t: &str) -> Option<Line> {
        let dependency = attr(t, "type")?.to_string();
        // Class names come in internal form here (`java/util/Map`) and dotted in the tasks'
        // `<klass name=>`: one spelling, dotted.
        let ctxk = unescape(attr(t, "ctxk").unwrap_or("")).replace('/', ".");
        let witness = unescape(attr(t, "witness")?).replace('/', ".");
        let at = Self::at(n, t);
        // A failed `call_site_target_value` is a MethodHandle call site's target set
        // (CallSiteDepChange), not a class load (KlassDepChange): dependencies.cpp.
        let kind = if dependency == "call_site_target_value" { MutationKind::CallSiteTarget } else { MutationKind::ClassLoad };
        let same = b.trace.mutations.last().filter(|m| m.kind == kind && m.class == witness && m.at.clock_us == at.clock_us);
        let m = match same {
            Some(_) => (b.trace.mutations.len() - 1) as u32,
            None => b.mutation(Mutation { at, kind, class: witness.clone(), member: None, site: None }),
        };
        if !self.failed.iter().any(|(fm, d, c)| *fm == m && *d == dependency && *c == ctxk) {
            self.failed.push((m, dependency.clone(), ctxk.clone()));
        }
        let kind = InvalidationKind::DependencyFailed { dependency, ctxk, witness };
        b.invalidation(Invalidation { at, kind, site: None, unit: None, cause: Some(Cause { mutation: m, attribution: Attribution::Exact }) });
        self.after_failure = Some(m);
        Some(Line::Read)
    }

    fn not_entrant(&mut self, b: &mut Builder, n: u64, t: &str) -> Option<Line> {
        let id = num::<u32>(attr(t, "compile_id")?)?;
        let unit = self.units.get(&id).copied();
        let i = b.invalidation(Invalidation { at: Self::at(n, t), kind: InvalidationKind::NotEntrant, site: None, unit, cause: None });
        if let Some(m) = self.after_failure {
            self.adjacent.push((i, m));
        }
        Some(Line::Read)
    }

    fn deopt(&mut self, b: &mut Builder, n: u64, name: &str, t: &str) -> Option<Line> {
        let reason = attr(t, "reason").unwrap_or("").to_string();
        let reason = match attr(t, "action") {
            Some(a) => format!("{reason} ({a})"),
            None => reason,
        };
        let unit = attr(t, "compile_id").and_then(num::<u32>).and_then(|id| self.units.get(&id).copied());
        let kind = InvalidationKind::Deopt { kind: name.replace('_', "-"), reason };
        b.invalidation(Invalidation { at: Self::at(n, t), kind, site: None, unit, cause: None });
        Some(Line::Read)
    }

    /// Attribute `make_not_entrant` lines now that every task's dependencies are known.
    pub(super) fn finish(&mut self, b: &mut Builder) {
        let adjacent: FxMap<usize, u32> = self.adjacent.iter().copied().collect();
        let t = &mut b.trace;
        for (i, inv) in t.invalidations.iter_mut().enumerate() {
            if inv.kind != InvalidationKind::NotEntrant || inv.cause.is_some() {
                continue;
            }
            let Some(unit) = inv.unit.map(|u| &t.units[u as usize]) else { continue };
            let deps = &unit.deps;
            // Exact: compiled before the class load, on an assumption the load broke.
            let exact = self
                .failed
                .iter()
                .rev()
                .filter(|(m, _, _)| (unit.at..=inv.at).contains(&t.mutations[*m as usize].at))
                .find(|(_, kind, ctxk)| deps.iter().any(|d| d.kind == *kind && d.ctxk == *ctxk))
                .map(|(m, _, _)| *m);
            inv.cause = match (exact, adjacent.get(&i)) {
                (Some(m), _) => Some(Cause { mutation: m, attribution: Attribution::Exact }),
                (None, Some(&m)) => Some(Cause { mutation: m, attribution: Attribution::ByOrder }),
                (None, None) => None,
            };
        }
    }
}

/// A task's klass and method ids (`<klass id= name=>`, `<method id= holder= name=>`): every
/// compiled method's log has dozens, and only its few `<dependency>` lines read them, so the
/// names go into one buffer reused from task to task (no allocation per line).
#[derive(Default)]
struct TaskIds {
    buf: String,
    /// id -> (start, end) in `buf`, and for a method its holder's id.
    spans: FxMap<u32, (u32, u32, Option<u32>)>,
}

impl TaskIds {
    fn clear(&mut self) {
        self.buf.clear();
        self.spans.clear();
    }

    fn push(&mut self, id: u32, name: &str, holder: Option<u32>) {
        let start = self.buf.len() as u32;
        self.buf.push_str(name);
        self.spans.insert(id, (start, self.buf.len() as u32, holder));
    }

    fn klass(&mut self, id: u32, name: &str) {
        self.push(id, name, None);
    }

    fn method(&mut self, id: u32, holder: u32, name: &str) {
        self.push(id, name, Some(holder));
    }

    fn text(&self, id: u32) -> Option<(&str, Option<u32>)> {
        let &(a, b, holder) = self.spans.get(&id)?;
        Some((&self.buf[a as usize..b as usize], holder))
    }

    /// A klass's name, or a method's as `Holder::name`.
    fn name(&self, id: u32) -> Option<String> {
        let (name, holder) = self.text(id)?;
        Some(match holder {
            None => name.to_string(),
            Some(h) => match self.text(h) {
                Some((holder, _)) => format!("{holder}::{name}"),
                None => format!("{h}::{name}"),
            },
        })
    }
}
