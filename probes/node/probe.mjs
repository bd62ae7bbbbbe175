// Blast Radius probe for Node.js (V8).
//
// Runs the probe workloads (probes/README.md) and prints one JSON document in the common
// probe schema; scripts/probe.sh runs it and adds the machine facts:
//
//     node probes/node/probe.mjs [--quick]
//
// Every workload is the same loop, generated with `new Function` so each call is a real call
// site with its own inline cache:
//
//     for (let i = 0; i < n; i++) {
//       if (i % period === 0) { <write> }   // nothing for the baseline
//       acc += <receiver>.<method>(i);   // a method that reads i, so no tier folds it away
//     }
//
// A write stores a function on a class's prototype. V8 keeps prototype maps in dictionary or
// fast mode and guards optimized code on "prototype validity cells"; a store into a prototype
// invalidates the cells of that prototype and of the maps that have it on their chain
// (src/objects/js-objects.cc, JSObject::InvalidatePrototypeChains), deoptimizing dependent code.

import { readFileSync } from 'node:fs';
import { execPath, argv, version, stdout } from 'node:process';

const PERIOD = 1000; // iterations between writes, as in ScopedInvalidationBench
const BURST = 50; // writes before the steady loop in `burst_then_steady`
const ROUNDS = 3; // passes over the workloads (see `measure`)
const LOW_WIDE = 0.1; // the fastest quarter of reps spread wider than this: the minimum is not readable
const DENSITIES = [10, 100, 1000, 10000];
const SITE_COUNTS = [1, 8, 64];

function dyn() {
  return 0;
}

/** Fresh classes for each workload, so one workload's writes cannot leak into the next. */
function world() {
  class Hot { compute(i) { return i & 1; } }
  class Unrelated {}
  class Parent { base(i) { return i & 2; } }
  class Child extends Parent { leaf(i) { return i & 3; } }
  return { Hot, Unrelated, Parent, Child, dyn };
}

/** The op: `n` iterations of `calls` (source lines), `write` every `period` iterations. The
 * branch also counts into `acc`, so that TurboFan keeps the period check (a modulo) in a
 * write-free baseline too: otherwise it drops the empty branch and every churn row pays for the
 * modulo, about 0.5 ns an iteration, as if it were the write. */
function loop(n, period, write, calls, scope) {
  const names = Object.keys(scope);
  const src = `return function op() {
    let acc = 0;
    for (let i = 0; i < ${n}; i++) {
      if (i % ${period} === 0) { acc += 1; ${write} }
      ${calls.map((c) => `acc += ${c};`).join('\n      ')}
    }
    return acc;
  };`;
  return new Function(...names, src)(...names.map((k) => scope[k]));
}

function workload(n, { period = PERIOD, write = '', receiver = 'Hot', method = 'compute' } = {}) {
  const scope = world();
  scope.o = new scope[receiver]();
  return loop(n, period, write, [`o.${method}(i)`], scope);
}

/** `sites` call sites on as many classes, with `write` every PERIOD iterations. */
function hotSites(n, sites, write) {
  const scope = world();
  for (let k = 0; k < sites; k++) {
    const C = class { m(i) { return (i + k) & 1; } };
    scope[`o${k}`] = new C();
  }
  const calls = Array.from({ length: sites }, (_, k) => `o${k}.m(i)`);
  return loop(Math.floor(n / sites), PERIOD, write, calls, scope);
}

/** The fanout workload (probes/workloads.json): `sites` subclasses of Root, each with its own
 * method m and one call site, and `write` (a class name, or null) every `period` iterations. */
function fanout(n, sites, period, write) {
  const scope = world();
  scope.Root = class Root { base(i) { return i & 2; } };
  scope.Other = class Other {};
  for (let k = 0; k < sites; k++) {
    scope[`L${k}`] = class extends scope.Root { m(i) { return (i + k) & 1; } };
    scope[`o${k}`] = new scope[`L${k}`]();
  }
  const calls = Array.from({ length: sites }, (_, k) => `o${k}.m(i)`);
  return loop(Math.floor(n / sites), period, write ? `${write}.prototype.dyn0 = dyn;` : '', calls, scope);
}

/** [workload, param, iterations, op] of every fanout row, in the shared definition's order. */
function fanoutPlan(n) {
  const spec = JSON.parse(readFileSync(new URL('../workloads.json', import.meta.url), 'utf8')).fanout;
  return spec.sites.flatMap((sites) => spec.rows.map((r) => [r.workload, sites, Math.floor(n / sites) * sites, fanout(n, sites, spec.period, r.write)]));
}

function burstThenSteady(n) {
  const scope = world();
  for (let k = 0; k < BURST; k++) scope.Unrelated.prototype[`dyn${k}`] = dyn;
  scope.o = new scope.Hot();
  return loop(n, PERIOD, '', ['o.compute(i)'], scope);
}

/** Times of `reps` runs of each op, taken in ROUNDS passes over the workloads. Within a pass each
 * workload runs its warm-up and then its timed reps back to back, so no other workload's write
 * lands between them (on a runtime with a global scope that would be crosstalk, not the
 * workload's own cost); the passes spread a slow spell of a shared machine over every workload. */
function measure(ops, reps, warmup) {
  const times = ops.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    const share = Math.floor(reps / ROUNDS) + (r < reps % ROUNDS ? 1 : 0);
    ops.forEach((op, k) => {
      for (let w = 0; w < warmup; w++) op();
      for (let i = 0; i < share; i++) {
        const t0 = process.hrtime.bigint();
        op();
        times[k].push(Number(process.hrtime.bigint() - t0));
      }
    });
  }
  return times.map((t) => t.sort((a, b) => a - b));
}

function quantile(values, q) {
  const k = (values.length - 1) * q;
  const lo = Math.floor(k);
  const hi = Math.min(lo + 1, values.length - 1);
  return values[lo] + (values[hi] - values[lo]) * (k - lo);
}

function row(workload, param, iterations, t, reps, warmup) {
  const median = quantile(t, 0.5);
  const iqr = median ? (quantile(t, 0.75) - quantile(t, 0.25)) / median : 0;
  const low = t[0] ? (quantile(t, 0.25) - t[0]) / t[0] : 0;
  return {
    workload, param, iterations, reps, warmup,
    min_ns: t[0], median_ns: median, max_ns: t[t.length - 1],
    iqr_rel: Math.round(iqr * 1e4) / 1e4, wide: iqr > 0.25,
    low_rel: Math.round(low * 1e4) / 1e4, low_wide: low > LOW_WIDE,
  };
}

const quick = argv.includes('--quick');
const n = quick ? 200_000 : 1_000_000;
// V8 tiers up (Ignition -> Sparkplug -> Maglev -> TurboFan) over the first ops: warm up longer.
// Many reps of short ops: on a shared machine a short op often runs undisturbed, and the
// fingerprint reads each row's fastest rep.
const [reps, warmup] = quick ? [15, 10] : [101, 30];
const plan = [
  ['baseline', null, n, workload(n)],
  ['unrelated_churn', PERIOD, n, workload(n, { write: 'Unrelated.prototype.dyn0 = dyn;' })],
  ['same_class_churn', PERIOD, n, workload(n, { write: 'Hot.prototype.dyn0 = dyn;' })],
  ['parent_churn', PERIOD, n, workload(n, { write: 'Parent.prototype.dyn0 = dyn;', receiver: 'Child', method: 'base' })],
  ['burst_then_steady', BURST, n, burstThenSteady(n)],
  ...DENSITIES.map((period) => ['density', period, n, workload(n, { period, write: 'Hot.prototype.dyn0 = dyn;' })]),
];
for (const sites of SITE_COUNTS) {
  const iterations = Math.floor(n / sites) * sites;
  plan.push(['hot_sites_baseline', sites, iterations, hotSites(n, sites, '')]);
  plan.push(['hot_sites', sites, iterations, hotSites(n, sites, 'Unrelated.prototype.dyn0 = dyn;')]);
}
plan.push(...fanoutPlan(n));
const times = measure(plan.map((p) => p[3]), reps, warmup);
const doc = {
  schema: 'blast-radius-probe/1',
  runtime: 'node',
  version: `Node.js ${version} (V8 ${process.versions.v8})`,
  command: [execPath, ...argv.slice(1)].join(' '),
  mode: quick ? 'quick' : 'full',
  rows: plan.map(([name, param, iterations], k) => row(name, param, iterations, times[k], reps, warmup)),
};
stdout.write(JSON.stringify(doc, null, 1) + '\n');
