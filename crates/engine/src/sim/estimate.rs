//! The work estimate: how much a run may take at most, in the units the simulation counts
//! ([`crate::sim::Simulation::work_done`]), computed from the scenario before anything runs, so
//! no input can hang a run. Counted, never timed.
//!
//! Each event is charged what it can touch under the policy being run. Under `global`, and for
//! bulk events (`invalidate all`, `unattributed`, a category entered or left, a change into or
//! out of a custom metaclass) under any policy, that is the whole world. A class-attributed
//! event under the other policies reaches only the class's subtree: the classes it visits
//! and retires, the sites it re-resolves (`oracle::refresh_truth` takes the subtree's sites),
//! and the dependents it walks (each site registers with its receivers' domains, `policy::
//! domain_for`), plus one snapshot rebuild. So a write to a class with 10 of 10^6 sites costs
//! about 10 sites, not 10^6.

use crate::digits::thousands;
use crate::fxhash::{FxMap, FxSet};
use crate::policy::Policy;
use crate::scenario::{Block, Event, MetaKind, Scenario, Stmt};

/// One part of the estimate, with where it comes from in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    pub units: u64,
    pub what: String,
}

/// How much work a run under `policy` takes at most: one unit per event, per class visited, per
/// site re-resolved, per dependent walked, per domain retired, per snapshot entry, per loop entry
/// and exit call, per segment and per site run in a segment. The terms add up to the total.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Estimate {
    pub total: u64,
    pub policy: Policy,
    /// The nonzero terms, largest first.
    pub terms: Vec<Term>,
}

impl Estimate {
    /// The largest term, in words.
    pub fn dominant(&self) -> &str {
        self.terms.first().map_or("", |t| t.what.as_str())
    }

    /// Every term with its units, largest first (they add up to the total).
    pub fn breakdown(&self) -> String {
        let parts: Vec<String> = self.terms.iter().map(|t| format!("{} for {}", thousands(t.units), t.what)).collect();
        parts.join("; ")
    }
}

/// What one run of a block does, counted statically.
#[derive(Clone, Copy, Debug, Default)]
struct Tally<'a> {
    /// Event firings, and the units they are charged.
    events: u64,
    event_units: u64,
    /// The most one firing is charged, and by which event (`None`: a category entered or left).
    largest: Option<(u64, Option<&'a Event>)>,
    segments: u64,
    /// Sum over segments of the calls in their loop.
    segment_calls: u64,
    /// Sum over loop entries of the calls in the loop (each is entered and left once).
    loop_calls: u64,
}

impl<'a> Tally<'a> {
    fn fired(charge: u64, what: Option<&'a Event>, times: u64) -> Tally<'a> {
        Tally { events: times, event_units: charge.saturating_mul(times), largest: (times > 0).then_some((charge, what)), ..Tally::default() }
    }

    fn plus(self, o: Tally<'a>) -> Tally<'a> {
        let largest = match (self.largest, o.largest) {
            (Some(a), Some(b)) => Some(if b.0 > a.0 { b } else { a }),
            (a, b) => a.or(b),
        };
        Tally {
            events: self.events.saturating_add(o.events),
            event_units: self.event_units.saturating_add(o.event_units),
            largest,
            segments: self.segments.saturating_add(o.segments),
            segment_calls: self.segment_calls.saturating_add(o.segment_calls),
            loop_calls: self.loop_calls.saturating_add(o.loop_calls),
        }
    }

    fn times(self, k: u64) -> Tally<'a> {
        Tally {
            events: self.events.saturating_mul(k),
            event_units: self.event_units.saturating_mul(k),
            largest: self.largest.filter(|_| k > 0),
            segments: self.segments.saturating_mul(k),
            segment_calls: self.segment_calls.saturating_mul(k),
            loop_calls: self.loop_calls.saturating_mul(k),
        }
    }
}

/// What the scenario's world is, for the estimate: built once, asked per policy.
struct Analysis<'a> {
    classes: u64,
    sites: u64,
    /// Sum of all classes' inherited-method counts (the snapshots built at the start).
    snapshots: u64,
    /// What one event may cost when it reaches the whole world.
    world_event: u64,
    /// What a class-attributed event on a class costs at most when it reaches only its subtree.
    class_event: FxMap<&'a str, u64>,
    /// Classes that may have a custom metaclass (declared so, or replaced by one): events on
    /// them may be bulk.
    custom: FxSet<&'a str>,
    /// The work units of one run of a polymorphic site in a segment, by site name.
    poly_runs: FxMap<&'a str, u64>,
}

/// Per class, everything the estimate needs about it, by the class's position in `decls`.
struct Shape {
    parent: Option<usize>,
    declared: u64,
    /// Its methods at most: declared, plus one per write statement naming it.
    own: u64,
}

impl<'a> Analysis<'a> {
    fn of(s: &'a Scenario) -> Analysis<'a> {
        let mut names: Vec<&str> = s.classes.iter().map(|c| c.name.as_str()).collect();
        let mut parents: Vec<Option<&str>> = s.classes.iter().map(|c| c.parent.as_deref()).collect();
        let mut declared: Vec<u64> = s.classes.iter().map(|c| c.methods.len() as u64).collect();
        let mut writes_on: FxMap<&str, u64> = FxMap::default();
        let mut custom: FxSet<&str> = s.classes.iter().filter(|c| c.metaclass == MetaKind::Custom).map(|c| c.name.as_str()).collect();
        s.visit_events(|ev| match ev {
            Event::Load { class, parent, methods } => {
                names.push(class);
                parents.push(parent.as_deref());
                declared.push(methods.len() as u64);
            }
            Event::Write { class, .. } => *writes_on.entry(class).or_default() += 1,
            Event::Replace { class, kind: MetaKind::Custom } => {
                custom.insert(class);
            }
            _ => {}
        });
        let index: FxMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let shapes: Vec<Shape> = (0..names.len())
            .map(|i| Shape {
                parent: parents[i].and_then(|p| index.get(p).copied()),
                declared: declared[i],
                own: declared[i].saturating_add(writes_on.get(names[i]).copied().unwrap_or(0)),
            })
            .collect();
        let up = ancestry(&shapes);
        let snapshots = up.iter().fold(0u64, |a, u| a.saturating_add(u.inherited));
        // One snapshot rebuild: the ancestors and their methods (`World::rebuild_view`), plus
        // the class's declared methods when its metaclass is rebuilt (`Simulation::install`).
        let rebuild = |i: usize| up[i].rebuild.saturating_add(shapes[i].declared);
        let rebuild_max = (0..shapes.len()).map(rebuild).max().unwrap_or(0);
        let sites = s.sites.len() as u64;
        let others: u64 = s.sites.iter().map(|x| x.others().len() as u64).sum();
        // Itself, two class walks, the bulk domain list (pending + class per class), the sites
        // re-resolved, the dependents walked (at most two registrations per site), one
        // snapshot rebuild; a polymorphic site re-resolves, and may be registered with, each
        // of its receivers.
        let world_event = 1u64
            .saturating_add((shapes.len() as u64).saturating_mul(4))
            .saturating_add(sites.saturating_mul(3))
            .saturating_add(others.saturating_mul(2))
            .saturating_add(rebuild_max);
        let class_event =
            if s.blocks().iter().any(|(_, b)| !b.is_empty()) { subtree_charges(s, &names, &index, &shapes, &up, rebuild) } else { FxMap::default() };
        let poly_runs =
            s.sites.iter().filter(|x| x.is_polymorphic()).map(|x| (x.name.as_str(), 4 * x.weights().iter().map(|&w| u64::from(w)).sum::<u64>())).collect();
        Analysis { classes: shapes.len() as u64, sites, snapshots, world_event, class_event, custom, poly_runs }
    }

    /// What one firing of `ev` may cost under `policy`.
    fn charge(&self, ev: &Event, policy: Policy) -> u64 {
        let class = match ev {
            Event::InvalidateAll | Event::Unattributed => return self.world_event,
            Event::Write { class, .. } | Event::Replace { class, .. } | Event::Remove { class } | Event::PerInstance { class } | Event::Load { class, .. } => {
                class
            }
        };
        if policy == Policy::Global {
            return self.world_event;
        }
        let subtree = self.class_event.get(class.as_str()).copied().unwrap_or(self.world_event);
        // Into or out of a custom metaclass (`policy::replace_scope`): every class domain as
        // well as the class's own scope.
        let bulk = match ev {
            Event::Replace { kind: MetaKind::Custom, .. } => true,
            Event::Write { .. } | Event::Replace { .. } | Event::Remove { .. } => self.custom.contains(class.as_str()),
            _ => false,
        };
        if bulk {
            self.world_event.saturating_add(subtree)
        } else {
            subtree
        }
    }

    fn tally(&self, block: &'a [Stmt], policy: Policy) -> Tally<'a> {
        let runs = |site: &str| 1 + self.poly_runs.get(site).copied().unwrap_or(0);
        // Recursion once per level: validation bounded nesting before this runs.
        block.iter().fold(Tally::default(), |t, st| {
            let here = match st {
                Stmt::Event(ev) => Tally::fired(self.charge(ev, policy), Some(ev), 1),
                // Entering and leaving the category: two bulk events.
                Stmt::Use(u) => Tally::fired(self.world_event, None, 2).plus(self.tally(&u.body, policy)),
                Stmt::Repeat(r) => self.tally(&r.body, policy).times(r.count),
                Stmt::Loop(l) => {
                    let count = l.count;
                    let calls = l.body.iter().filter_map(|b| if let Stmt::Call { site } = b { Some(runs(site)) } else { None }).fold(0u64, u64::saturating_add);
                    // Segments end at firing iterations: at most one more than the firings.
                    let mut boundaries = 1u64;
                    let mut fired = Tally::default();
                    for b in &l.body {
                        match b {
                            Stmt::Every(e) => {
                                let firings = count / e.period + 1;
                                boundaries = boundaries.saturating_add(firings);
                                for st in &e.body {
                                    if let Stmt::Event(ev) = st {
                                        fired = fired.plus(Tally::fired(self.charge(ev, policy), Some(ev), firings));
                                    }
                                }
                            }
                            Stmt::Event(ev) => {
                                boundaries = boundaries.saturating_add(count);
                                fired = fired.plus(Tally::fired(self.charge(ev, policy), Some(ev), count));
                            }
                            _ => {}
                        }
                    }
                    Tally { segments: boundaries, segment_calls: boundaries.saturating_mul(calls), loop_calls: 2 * calls, ..fired }
                }
                Stmt::Call { .. } | Stmt::Every { .. } => Tally::default(),
            };
            t.plus(here)
        })
    }

    fn estimate(&self, s: &'a Scenario, policy: Policy) -> Estimate {
        let ops = u64::from(s.measure.warmup_ops) + u64::from(s.measure.ops);
        let blocks = [(Block::Setup, 1), (Block::BeforeOp, ops), (Block::Op, ops)].map(|(b, k)| (b, k, self.tally(s.block(b), policy).times(k)));
        let mut terms = vec![Term {
            units: self.classes.saturating_add(self.sites).saturating_add(self.snapshots),
            what: format!(
                "the world ({} classes, {} sites, {} inherited-method snapshot entries)",
                thousands(self.classes),
                thousands(self.sites),
                thousands(self.snapshots)
            ),
        }];
        let mut loops = Tally::default();
        for (b, k, t) in blocks {
            let over = match k {
                _ if b == Block::Setup => String::new(),
                1 => " over 1 op".to_string(),
                k => format!(" over {} ops", thousands(k)),
            };
            let largest = match t.largest {
                Some((c, Some(ev))) => format!("; the largest, `{}`, {}", crate::dsl::event_text(ev), thousands(c)),
                Some((c, None)) => format!("; the largest, a category entered or left, {}", thousands(c)),
                None => String::new(),
            };
            terms.push(Term {
                units: t.event_units,
                what: format!("{} events in `{}`{over}, each charged what it can reach under {policy}{largest}", thousands(t.events), b.keyword()),
            });
            loops = loops.plus(Tally { events: 0, event_units: 0, largest: None, ..t });
        }
        terms.push(Term {
            units: loops.segment_calls.saturating_add(loops.segments),
            what: format!("{} loop segments and their {} site runs", thousands(loops.segments), thousands(loops.segment_calls)),
        });
        terms.push(Term { units: loops.loop_calls, what: format!("entering and leaving loops ({} calls)", thousands(loops.loop_calls)) });
        terms.retain(|t| t.units > 0);
        terms.sort_by_key(|t| std::cmp::Reverse(t.units));
        let total = terms.iter().fold(0u64, |a, t| a.saturating_add(t.units));
        Estimate { total, policy, terms }
    }
}

/// Per class: its depth, the methods it inherits from its declared ancestors (its first
/// snapshot), and what re-taking its snapshot visits (`World::rebuild_view`: each ancestor and
/// its methods, written ones included).
#[derive(Clone, Copy, Default)]
struct Up {
    depth: u64,
    inherited: u64,
    rebuild: u64,
}

/// [`Up`] for every class, parents first, without recursion.
fn ancestry(shapes: &[Shape]) -> Vec<Up> {
    let mut memo: Vec<Option<Up>> = vec![None; shapes.len()];
    for i in 0..shapes.len() {
        let mut chain = vec![i];
        while let Some(p) = shapes[*chain.last().expect("non-empty")].parent {
            if memo[p].is_some() || chain.len() > shapes.len() {
                break;
            }
            chain.push(p);
        }
        for &c in chain.iter().rev() {
            let up = shapes[c].parent.map_or(Up::default(), |p| {
                let u = memo[p].unwrap_or_default();
                Up {
                    depth: u.depth + 1,
                    inherited: u.inherited.saturating_add(shapes[p].declared),
                    rebuild: u.rebuild.saturating_add(1).saturating_add(shapes[p].own),
                }
            });
            memo[c] = Some(up);
        }
    }
    memo.into_iter().map(Option::unwrap_or_default).collect()
}

/// What a class-attributed event on each class costs at most under a class-scoped policy
/// (exact, hierarchy, hierarchy-v3, ideal), from the same index the engine walks:
/// - visiting and retiring: the write's install scope and class scope each visit the subtree
///   under fan-out and retire both domains of each class (`policy::class_scope`): 4 per class;
/// - re-resolving: the subtree's classes and the sites listed under them, a polymorphic site
///   once per receiver (`oracle::refresh_truth`): 1 per class, `|receivers|` per listing;
/// - walking dependents: a site is registered at most twice with each receiver's domain
///   (pending and class; `policy::domain_for`), or under `ideal` once per receiver with its own;
/// - one snapshot rebuild of the class, and the event itself.
fn subtree_charges<'a>(
    s: &'a Scenario,
    names: &[&'a str],
    index: &FxMap<&str, usize>,
    shapes: &[Shape],
    up: &[Up],
    rebuild: impl Fn(usize) -> u64,
) -> FxMap<&'a str, u64> {
    let n = shapes.len();
    // Per class: the listings of sites under it, each weighed by its site's receivers.
    let mut weight = vec![0u64; n];
    // Sites usually come grouped by class, in class order: try the last class and the next.
    let mut last = 0usize;
    for site in &s.sites {
        let k = 1 + site.others().len() as u64;
        for r in site.receivers() {
            let near = [last, last + 1].into_iter().find(|&c| names.get(c) == Some(&r));
            if let Some(c) = near.or_else(|| index.get(r).copied()) {
                weight[c] = weight[c].saturating_add(k);
                last = c;
            }
        }
    }
    // Subtree sums, deepest classes first, each added to its parent.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by_key(|&i| std::cmp::Reverse(up[i].depth));
    let mut classes = vec![1u64; n];
    let mut listings = weight;
    for &i in &order {
        if let Some(p) = shapes[i].parent {
            classes[p] = classes[p].saturating_add(classes[i]);
            listings[p] = listings[p].saturating_add(listings[i]);
        }
    }
    (0..n)
        .map(|i| {
            let charge = 2u64.saturating_add(classes[i].saturating_mul(6)).saturating_add(listings[i].saturating_mul(4)).saturating_add(rebuild(i));
            (names[i], charge)
        })
        .collect()
}

/// The estimate of a run under `policy`.
pub fn estimate_for(s: &Scenario, policy: Policy) -> Estimate {
    Analysis::of(s).estimate(s, policy)
}

/// The largest estimate over `policies` (the first of equals), the world analysed once.
pub fn estimate_largest(s: &Scenario, policies: &[Policy]) -> Option<Estimate> {
    let a = Analysis::of(s);
    policies.iter().map(|&p| a.estimate(s, p)).reduce(|best, e| if e.total > best.total { e } else { best })
}

/// Bound the work of a whole run under any policy and any parameters: the largest of the
/// policies' estimates.
pub fn estimate(s: &Scenario) -> Estimate {
    estimate_largest(s, &Policy::ALL).expect("there are policies")
}

/// [`estimate`]'s total.
pub fn estimate_work(s: &Scenario) -> u64 {
    estimate(s).total
}
