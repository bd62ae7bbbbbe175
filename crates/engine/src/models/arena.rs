//! JDK-8335480: closing a shared arena marks it dead, then handshakes every thread. A thread
//! found using the arena gets an async exception; otherwise its top compiled frame may be
//! deoptimized, depending on the gate:
//! - `always`: any compiled top frame (before 8335480);
//! - `scoped-access`: frames whose compiled code has scoped memory access (8335480);
//! - `session-live`: only frames holding the closing session (the later follow-up);
//! - `no-deopt`: the experiment that removed deoptimization (unsafe in general).
//!
//! Threads run ops concurrently in virtual time. Each thread's op method is a compilation unit
//! of the shared JIT layer ([`crate::jit::Unit`], compiled before the measurement starts); the
//! handshake deoptimizes its top frame in place (`Unit::deoptimize_frame`: the code stays valid,
//! so no recompilation and no cutoff), and the frame finishes interpreted, which costs its op
//! `deopt_penalty_us`. Oracle: a deopt of a frame that holds
//! the closing session is necessary, any other deopt is collateral, and a frame that holds it
//! but is left compiled is missed (a use after close).

use serde::{Deserialize, Serialize};

use super::{check_variant, thin, Entity, EntityState, ModelError, ModelReport, OpPoint, MAX_MODEL_OPS};
use crate::jit::Unit;
use crate::report::RelinkTotals;

pub const VARIANTS: &[&str] = &["always", "scoped-access", "session-live", "no-deopt"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Creates and closes shared arenas in a loop.
    Closing,
    /// Sums a segment of a never-closed shared arena (compiled code with scoped access).
    SegmentAccess,
    /// Sums a byte[] (no scoped access).
    ArrayAccess,
    /// Sums a segment of the arena the closers close (holds the closing session).
    UsesClosingArena,
    /// Scaling run: shared segment access, then create and close its own arena.
    AccessAndClose,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArenaConfig {
    /// One entry per thread.
    pub threads: Vec<Role>,
    /// Ops each thread runs; the first `warmup_ops` are not measured.
    pub warmup_ops: u64,
    pub ops: u64,
    /// The role whose mean op time is the headline value.
    pub measure: Role,
}

/// Costs, fitted to `data/jdk_shared_arena_close.csv` and `data/jdk_shared_arena_scaling.csv` (both gates and the scaling
/// run together).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArenaParams {
    /// Creating and closing an arena, handshake excluded.
    pub arena_lifecycle_us: f64,
    /// The closer's cost per thread handshaken.
    pub handshake_per_thread_us: f64,
    /// The closer's extra work per frame it deoptimizes.
    pub deopt_mark_us: f64,
    /// What a handshaken thread pauses for.
    pub handshake_pause_us: f64,
    /// Interpreting a deoptimized frame until it is compiled again.
    pub deopt_penalty_us: f64,
    /// Summing 10 000 bytes of a segment in compiled code.
    pub segment_sum_us: f64,
    /// Summing 10 000 bytes of a byte[] in compiled code.
    pub array_sum_us: f64,
    /// Hardware threads of the machine the published figures come from (6 vCPUs): more
    /// runnable threads than this share the cores.
    pub cores: f64,
}

impl Default for ArenaParams {
    fn default() -> Self {
        ArenaParams {
            arena_lifecycle_us: 1.0,
            handshake_per_thread_us: 14.5,
            deopt_mark_us: 0.9,
            handshake_pause_us: 0.05,
            deopt_penalty_us: 38.0,
            segment_sum_us: 16.6,
            array_sum_us: 5.9,
            cores: 6.0,
        }
    }
}

impl Role {
    fn closes(self) -> bool {
        matches!(self, Role::Closing | Role::AccessAndClose)
    }
    fn scoped_access(self) -> bool {
        !matches!(self, Role::ArrayAccess | Role::Closing)
    }
    /// Its frames hold the session being closed (a deopt of one is necessary).
    pub fn holds_closing_session(self) -> bool {
        self == Role::UsesClosingArena
    }
    pub fn name(self) -> &'static str {
        match self {
            Role::Closing => "closing",
            Role::SegmentAccess => "memory-segment access",
            Role::ArrayAccess => "array access",
            Role::UsesClosingArena => "uses the closing arena",
            Role::AccessAndClose => "access + close",
        }
    }
}

struct Thread {
    role: Role,
    op_start: f64,
    op_end: f64,
    done: u64,
    measured_us: f64,
    /// The op method's compiled code; its stats count the frames deoptimized.
    code: Unit,
    handshakes: u64,
}

fn deopts(gate: &str, r: Role) -> bool {
    match gate {
        "always" => true,
        "scoped-access" => r.scoped_access(),
        "session-live" => r.holds_closing_session(),
        _ => false,
    }
}

pub fn run(c: &ArenaConfig, gate: &str, p: &ArenaParams) -> Result<ModelReport, ModelError> {
    check_variant("arena", gate, VARIANTS)?;
    let n = c.threads.len();
    let total = c.warmup_ops.saturating_add(c.ops);
    // Every close visits every thread, so the work grows with threads squared.
    if n == 0 || n > 256 || c.ops == 0 || total.saturating_mul(n as u64) > MAX_MODEL_OPS || total.saturating_mul((n * n) as u64) > 50_000_000 {
        return Err(ModelError::TooLarge { model: "arena", bounds: "1 to 256 threads, at most 2e6 thread-ops and 5e7 handshakes".into() });
    }
    if !c.threads.contains(&c.measure) {
        return Err(ModelError::NoMeasuredThread { role: c.measure.name() });
    }
    // Oversubscribed threads share the cores: every duration stretches.
    let stretch = (n as f64 / p.cores).max(1.0);
    let work = |r: Role| -> f64 {
        stretch
            * match r {
                Role::Closing => p.arena_lifecycle_us + n as f64 * p.handshake_per_thread_us,
                Role::SegmentAccess | Role::UsesClosingArena => p.segment_sum_us,
                Role::ArrayAccess => p.array_sum_us,
                Role::AccessAndClose => p.segment_sum_us + p.arena_lifecycle_us + n as f64 * p.handshake_per_thread_us,
            }
    };
    let mut threads: Vec<Thread> = c
        .threads
        .iter()
        .map(|&role| Thread { role, op_start: 0.0, op_end: work(role), done: 0, measured_us: 0.0, code: Unit::compiled(), handshakes: 0 })
        .collect();
    let mut verdicts = RelinkTotals::default();
    let mut timeline = Vec::new();
    // Every thread keeps running until all have finished their measured ops, so the
    // interference a measured op sees never stops early.
    while threads.iter().any(|t| t.done < total) {
        // The next op to finish (ties: lowest thread index, for determinism).
        let i = (0..n).min_by(|&a, &b| threads[a].op_end.total_cmp(&threads[b].op_end).then(a.cmp(&b))).unwrap_or(0);
        let now = threads[i].op_end;
        let before = verdicts;
        if threads[i].role.closes() {
            // Handshake every other thread; the gate decides which top frames to deoptimize.
            let mut marked = 0.0;
            for (j, t) in threads.iter_mut().enumerate() {
                if j == i {
                    continue;
                }
                t.handshakes += 1;
                t.op_end += stretch * p.handshake_pause_us;
                let holds = t.role.holds_closing_session();
                if deopts(gate, t.role) && t.code.deoptimize_frame() {
                    t.op_end += stretch * p.deopt_penalty_us;
                    marked += p.deopt_mark_us;
                    if holds {
                        verdicts.necessary += 1;
                    } else {
                        verdicts.collateral += 1;
                    }
                } else if holds {
                    verdicts.missed += 1;
                }
            }
            threads[i].op_end += stretch * marked;
        }
        let t = &mut threads[i];
        let end = t.op_end;
        let duration = end - t.op_start;
        if (c.warmup_ops..total).contains(&t.done) {
            t.measured_us += duration;
            if t.role == c.measure {
                timeline.push(OpPoint {
                    t_us: end,
                    value: duration,
                    necessary: verdicts.necessary - before.necessary,
                    collateral: verdicts.collateral - before.collateral,
                    missed: verdicts.missed - before.missed,
                });
            }
        }
        t.done += 1;
        t.op_start = end.max(now);
        t.op_end = t.op_start + work(t.role);
    }
    let mean = |r: Role| -> f64 {
        let ts: Vec<&Thread> = threads.iter().filter(|t| t.role == r).collect();
        ts.iter().map(|t| t.measured_us).sum::<f64>() / (ts.len() as f64 * c.ops as f64)
    };
    let mut roles: Vec<(String, f64)> = Vec::new();
    for t in &threads {
        if !roles.iter().any(|(name, _)| name == t.role.name()) {
            roles.push((t.role.name().to_string(), mean(t.role)));
        }
    }
    let entities = threads
        .iter()
        .enumerate()
        .map(|(i, t)| Entity {
            name: format!("thread {i}"),
            state: EntityState::Thread {
                role: t.role,
                scoped_access: t.role.scoped_access(),
                ops: t.done,
                handshakes: t.handshakes,
                deopts: t.code.stats.deopts,
            },
        })
        .collect();
    Ok(ModelReport {
        model: "arena".into(),
        variant: gate.into(),
        unit: "us/op".into(),
        value: mean(c.measure),
        roles,
        verdicts,
        entities,
        timeline: thin(timeline, 400),
    })
}
