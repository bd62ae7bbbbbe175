//! V8's log (`--log-deopt --log-ic --log-maps --log-code`), one comma-separated event per line.
//! Line shapes as written by src/logging/log.cc (V8 11.3, Node 20):
//! - `v8-version,major,minor,build,patch,embedder,candidate` (`V8FileLogger::LogVersion`)
//! - `code-creation,tag,kind,time,start,size,name[,sfi,marker]`, a JS function's name being
//!   `fn file:line:col` and its marker the tier (`~` Ignition, `^` Sparkplug, `+` Maglev, `*`
//!   TurboFan; `ComputeMarker`, `V8FileLogger::CodeCreateEvent`)
//! - `code-move,from,to` (`V8FileLogger::CodeMoveEvent`)
//! - `code-deopt,time,size,start,inlining_id,script_offset,kind,<file:line:col>,reason`
//!   (`V8FileLogger::ProcessDeoptEvent`); kind `dependency-change` comes from
//!   `CodeDependencyChangeEvent`, whose position is the function's start, not a site
//! - `LoadIC,pc,time,line,col,old,new,map,key,modifier,slow_reason` and the other ICs
//!   (`V8FileLogger::ICEvent`; states from src/ic/ic.cc `TransitionMarkFromState`: `X` no
//!   feedback, `0` uninitialized, `1` monomorphic, `^` recompute handler, `P` polymorphic,
//!   `N` megamorphic, `D` megadom, `G` generic)
//! - `map,type,time,from,to,pc,line,col,reason,name` (`V8FileLogger::MapEvent`) and
//!   `map-details,time,map,text` (`V8FileLogger::MapDetails`, the map's printout with `\n`
//!   escaped, which says ` - prototype_map` and names the constructor; Node 20 writes it empty
//!   unless `--log-maps-details`). A prototype's map is known from `init class prototype`
//!   (named by the `init class constructor` line before it), `...AsPrototype` reasons, the
//!   printout, and every map a prototype map changes into.
//!
//! A prototype write is a map event leaving a map known to be a prototype's (not V8's own
//! `...AsPrototype` re-layouts). V8 deoptimizes the code depending on that map inside the write
//! (`DependentCode::DeoptimizeDependencyGroups`), so the write's `dependency-change` deopts are
//! logged just *before* its map event: those with only map lines between are attributed to it
//! exactly. An IC found with a stale handler (old state `^`) is attributed by order to the last
//! prototype write before it, once per site.

use std::collections::BTreeMap;

use super::fields::{hex, num, position};
use super::{At, Attribution, Builder, Cause, CodeUnit, Invalidation, InvalidationKind, Line, Mutation, MutationKind, SiteId, SiteKey, UnitId};
use crate::fxhash::{FxMap, FxSet};

/// Events V8 logs that say nothing about invalidation (log.cc and log-file.cc).
const IGNORED: &[&str] = &[
    "v8-platform",
    "new",
    "delete",
    "heap-capacity",
    "heap-available",
    "code-source-info",
    "code-disassemble",
    "code-disable-optimization",
    "script-source",
    "script-details",
    "script",
    "sfi-move",
    "shared-library",
    "shared-library-end",
    "tick",
    "timer-event",
    "timer-event-start",
    "timer-event-end",
    "current-time",
    "feedback-vector",
    "profiler",
    "snapshot-code-name",
    "compilation-cache",
    "function",
    "map-create",
    "code-line-pos-info",
    "suspect-read",
    "heap-sample-begin",
    "heap-sample-end",
    "heap-sample-item",
];

#[derive(Default)]
pub(super) struct V8Reader {
    /// Code objects by start address: end and unit, for an IC's pc.
    code: BTreeMap<u64, (u64, UnitId)>,
    /// Maps known to belong to a prototype object, with the constructor's name when known.
    proto_maps: FxMap<u64, Option<String>>,
    /// Instance maps and their class, for an IC's receiver.
    instances: FxMap<u64, String>,
    /// The class whose constructor's initial map was logged last.
    last_constructor: Option<String>,
    /// dependency-change deopts logged since the last line that was not a map line.
    pending: Vec<usize>,
    /// Each site's last IC event's line, and which mutation it last attributed to.
    last_ic: FxMap<SiteId, u64>,
    attributed: FxSet<(SiteId, u32)>,
    /// Each code unit's dependency-change deopt's mutation, for its lazy deopts after.
    unit_cause: FxMap<UnitId, u32>,
}

impl V8Reader {
    pub(super) fn line(&mut self, b: &mut Builder, n: u64, line: &str) -> Line {
        let (event, rest) = line.split_once(',').unwrap_or((line, ""));
        let outcome = match event {
            "v8-version" => self.version(b, rest),
            "code-creation" => self.code_creation(b, n, rest),
            "code-move" => self.code_move(rest),
            "code-deopt" => self.deopt(b, n, rest),
            "map" => self.map(b, n, rest),
            "map-details" => self.map_details(b, rest),
            e if e.ends_with("IC") => self.ic(b, n, e, rest),
            e if IGNORED.contains(&e) => Some(Line::Ignored),
            _ => None,
        };
        if !matches!(event, "map" | "map-details" | "map-create" | "code-deopt") {
            self.pending.clear();
        }
        outcome.unwrap_or(Line::Unknown)
    }

    /// Lazy deopts of code whose dependency-change was attributed follow that mutation.
    pub(super) fn finish(&mut self, b: &mut Builder) {
        for inv in &mut b.trace.invalidations {
            if inv.cause.is_some() {
                continue;
            }
            if let (InvalidationKind::Deopt { kind, .. }, Some(u)) = (&inv.kind, inv.unit) {
                if kind == "deopt-lazy" {
                    if let Some(&m) = self.unit_cause.get(&u) {
                        if b.trace.mutations[m as usize].at < inv.at {
                            inv.cause = Some(Cause { mutation: m, attribution: Attribution::ByOrder });
                        }
                    }
                }
            }
        }
    }

    fn version(&mut self, b: &mut Builder, rest: &str) -> Option<Line> {
        let f: Vec<&str> = rest.split(',').collect();
        if f.len() < 4 || f[..4].iter().any(|x| num::<u32>(x).is_none()) {
            return None;
        }
        let embedder = f.get(4).copied().unwrap_or("");
        b.trace.version = Some(format!("V8 {}.{}.{}.{}{embedder}", f[0], f[1], f[2], f[3]));
        Some(Line::Read)
    }

    fn code_creation(&mut self, b: &mut Builder, n: u64, rest: &str) -> Option<Line> {
        let mut f = rest.splitn(7, ',');
        let (tag, _kind, time, start, size, tail) = (f.next()?, f.next()?, f.next()?, f.next()?, f.next()?, f.next()?);
        let (time, start, size) = (num::<u64>(time)?, hex(start)?, num::<u64>(size)?);
        let sfi_marker = f.next();
        // A JS function: `name file:line:col,sfi,marker` (CodeCreateEvent with a script).
        let Some(sm) = sfi_marker.filter(|_| matches!(tag, "JS" | "Function" | "LazyCompile" | "Script" | "Eval")) else {
            return Some(Line::Ignored);
        };
        let marker = sm.rsplit_once(',').map(|(_, m)| m).unwrap_or("");
        let (name, pos) = tail.rsplit_once(' ').unwrap_or(("", tail));
        if position(pos).is_none() {
            return Some(Line::Ignored);
        }
        let name = if name.is_empty() { "(anonymous)" } else { name };
        let unit = b.unit(CodeUnit {
            at: At { line: n, clock_us: Some(time) },
            name: name.to_string(),
            source: pos.to_string(),
            tier: marker.to_string(),
            compile_id: None,
            deps: Vec::new(),
        });
        self.code.insert(start, (start.saturating_add(size), unit));
        Some(Line::Read)
    }

    fn code_move(&mut self, rest: &str) -> Option<Line> {
        let (from, to) = rest.split_once(',')?;
        let (from, to) = (hex(from)?, hex(to.split(',').next()?)?);
        if let Some((end, unit)) = self.code.remove(&from) {
            self.code.insert(to, (to.saturating_add(end - from), unit));
        }
        Some(Line::Read)
    }

    /// The code object holding `pc`.
    fn unit_at(&self, pc: u64) -> Option<UnitId> {
        let (_, &(end, unit)) = self.code.range(..=pc).next_back()?;
        (pc < end).then_some(unit)
    }

    /// A site at `line:col` of the function holding `pc`.
    fn site(&self, b: &mut Builder, n: u64, pc: u64, line: u32, col: u32) -> SiteId {
        let unit = self.unit_at(pc).map(|u| &b.trace.units[u as usize]);
        let file = unit.and_then(|u| position(&u.source)).map(|(f, _, _)| f.to_string()).unwrap_or_else(|| "?".to_string());
        let function = unit.map(|u| u.name.clone());
        b.site(SiteKey::Source { file, line, col }, function.as_deref(), n)
    }

    fn deopt(&mut self, b: &mut Builder, n: u64, rest: &str) -> Option<Line> {
        let f: Vec<&str> = rest.splitn(8, ',').collect();
        let [time, _size, start, _inlining, _offset, kind, pos, reason] = f[..] else { return None };
        let (time, start) = (num::<u64>(time)?, hex(start)?);
        let pos = pos.strip_prefix('<')?.strip_suffix('>')?;
        let unit = self.code.get(&start).map(|&(_, u)| u);
        let dependency = kind == "dependency-change";
        let site = match (dependency, position(pos)) {
            (false, Some((file, line, col))) => {
                let function = unit.map(|u| b.trace.units[u as usize].name.clone());
                Some(b.site(SiteKey::Source { file: file.to_string(), line, col }, function.as_deref(), n))
            }
            _ => None,
        };
        let at = At { line: n, clock_us: Some(time) };
        let i =
            b.invalidation(Invalidation { at, kind: InvalidationKind::Deopt { kind: kind.to_string(), reason: reason.to_string() }, site, unit, cause: None });
        if dependency {
            self.pending.push(i);
        }
        Some(Line::Read)
    }

    fn ic(&mut self, b: &mut Builder, n: u64, ic: &str, rest: &str) -> Option<Line> {
        let f: Vec<&str> = rest.splitn(10, ',').collect();
        let [pc, time, line, col, old, new, map, key, ..] = f[..] else { return None };
        let (pc, time, line, col) = (hex(pc)?, num::<u64>(time)?, num::<u32>(line)?, num::<u32>(col)?);
        let (old, new) = (one_char(old)?, one_char(new)?);
        let site = self.site(b, n, pc, line, col);
        let st = &mut b.trace.sites[site as usize];
        st.selections += 1;
        if st.member.is_none() {
            st.member = Some(key.to_string());
        }
        if let Some(class) = hex(map).and_then(|m| self.instances.get(&m)) {
            st.saw(class);
        }
        let previous = self.last_ic.insert(site, n);
        // X (no feedback) and 0 (uninitialized): a first link, not an invalidation.
        if matches!(old, 'X' | '0') {
            return Some(Line::Read);
        }
        let mut cause = None;
        if old == '^' {
            let last = b.trace.mutations.len().checked_sub(1).map(|m| m as u32);
            if let (Some(m), Some(p)) = (last, previous) {
                if b.trace.mutations[m as usize].at.line > p && self.attributed.insert((site, m)) {
                    cause = Some(Cause { mutation: m, attribution: Attribution::ByOrder });
                }
            }
        }
        let at = At { line: n, clock_us: Some(time) };
        let kind = InvalidationKind::IcChange { ic: ic.to_string(), old, new, map: map.to_string(), key: key.to_string() };
        // The IC's function is the site's; its code is not invalidated by a relink.
        b.invalidation(Invalidation { at, kind, site: Some(site), unit: None, cause });
        Some(Line::Read)
    }

    fn map(&mut self, b: &mut Builder, n: u64, rest: &str) -> Option<Line> {
        let f: Vec<&str> = rest.splitn(9, ',').collect();
        let [_type, time, from, to, pc, line, col, reason, name] = f[..] else { return None };
        let (time, from, to) = (num::<u64>(time)?, hex(from)?, hex(to)?);
        // A class's maps are logged constructor first, then prototype (`init class
        // constructor,Name` then `init class prototype,`: Factory::NewJSClass... via
        // `Map::SetInitialMap`'s log in objects/map.cc), so the name carries over.
        if reason == "init class constructor" {
            self.last_constructor = (!name.is_empty()).then(|| name.to_string());
            return Some(Line::Read);
        }
        if reason == "init class prototype" {
            self.proto_maps.insert(to, self.last_constructor.take());
            return Some(Line::Read);
        }
        // An instance map of a class: `map,InitialMap,...,,Name` (JSFunction::SetInitialMap),
        // and every map it changes into (field transitions).
        if reason.is_empty() && from == 0 && !name.is_empty() {
            self.instances.insert(to, name.to_string());
            return Some(Line::Read);
        }
        if let Some(class) = self.instances.get(&from).cloned() {
            self.instances.insert(to, class);
            self.pending.clear();
            return Some(Line::Read);
        }
        if reason.contains("AsPrototype") {
            // V8 re-laying out an object that became a prototype (JSObject::OptimizeAsPrototype).
            let class = self.proto_maps.get(&from).cloned().flatten();
            self.proto_maps.insert(to, class);
            return Some(Line::Read);
        }
        let Some(class) = self.proto_maps.get(&from).cloned() else {
            self.pending.clear();
            return Some(Line::Read);
        };
        let known = self.proto_maps.entry(to).or_insert(None);
        if known.is_none() {
            known.clone_from(&class);
        }
        let site = match (hex(pc), num::<u32>(line), num::<u32>(col)) {
            (Some(pc), Some(line), Some(col)) if pc != 0 => Some(self.site(b, n, pc, line, col)),
            _ => None,
        };
        let member = (!name.is_empty()).then(|| name.to_string());
        let at = At { line: n, clock_us: Some(time) };
        let m = b.mutation(Mutation { at, kind: MutationKind::PrototypeWrite, class: class.unwrap_or_else(|| "?".to_string()), member, site });
        for i in std::mem::take(&mut self.pending) {
            let inv = &mut b.trace.invalidations[i];
            inv.cause = Some(Cause { mutation: m, attribution: Attribution::Exact });
            if let Some(u) = inv.unit {
                self.unit_cause.insert(u, m);
            }
        }
        Some(Line::Read)
    }

    /// Learn prototype maps, their constructors and the class hierarchy from the map's
    /// printout (`Map::MapPrint`: ` - prototype_map`, ` - prototype: 0x.. <Parent map = 0x..>`,
    /// ` - constructor: 0x.. <JSFunction Name (sfi = ..)>`): a class's prototype object has
    /// its parent class's prototype as prototype.
    fn map_details(&mut self, b: &mut Builder, rest: &str) -> Option<Line> {
        let mut f = rest.splitn(3, ',');
        let (_time, map, text) = (f.next()?, hex(f.next()?)?, f.next()?);
        if text.contains("\\n - prototype_map") {
            let constructor = text.split_once(" - constructor: ").and_then(|(_, c)| c.split_once("<JSFunction ")).and_then(|(_, c)| c.split([' ', '>']).next());
            let parent = text.split_once(" - prototype: ").and_then(|(_, p)| p.split_once('<')).and_then(|(_, p)| p.split_once(" map = ")).map(|(p, _)| p);
            let entry = self.proto_maps.entry(map).or_insert(None);
            if let Some(c) = constructor.filter(|c| !c.is_empty()) {
                *entry = Some(c.to_string());
                if let Some(p) = parent.filter(|p| !p.is_empty() && *p != c && *p != "Object" && !p.contains(' ')) {
                    if !b.trace.parents.iter().any(|(x, _)| x == c) {
                        b.trace.parents.push((c.to_string(), p.to_string()));
                    }
                }
            }
        }
        Some(Line::Read)
    }
}

fn one_char(s: &str) -> Option<char> {
    let mut c = s.chars();
    let first = c.next()?;
    c.next().is_none().then_some(first)
}
