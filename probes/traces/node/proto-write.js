// A prototype write inside a hot loop (Node.js / V8).
//
// Two classes share nothing: Point's methods are called at three sites (pointNorm, pointSum,
// pointScale), Counter's at two (counterGet, counterBump). The loop runs long enough for V8 to
// optimize every site function and the loop itself; then, every PERIOD iterations, it adds one
// method to Point.prototype. Optimized code that inlined a Point method depends on the
// prototype's map being stable, so each write shows up in the log as
// `code-deopt,...,dependency-change,...` for that code and `deopt-lazy` lines; the Counter sites
// are not touched. Fixed counts, no randomness, so the log has the same shape run to run.
'use strict';

// Defaults give the committed sample (8 writes); `node proto-write.js N PERIOD` gives longer
// runs (scripts/capture-traces.sh --big uses it for the big log). `node proto-write.js N PERIOD
// M` also writes to Counter.prototype at the first M of those writes: the log of a second
// prototype growing (the 100 MB log of `--huge`; a prototype stops taking map transitions after
// about 1,016 properties, so one prototype's log stops growing at about 75 MB).
const N = Number(process.argv[2] || 200000);     // loop iterations
const WARMUP = 100000;                           // no writes before this: every site is optimized first
const PERIOD = Number(process.argv[3] || 12500); // iterations between prototype writes after the warm-up
const COUNTER_WRITES = Number(process.argv[4] || 0);

class Point {
  constructor(x, y) { this.x = x; this.y = y; }
  norm() { return this.x * this.x + this.y * this.y; }
  sum() { return this.x + this.y; }
  scale(k) { return this.x * k - this.y; }
}

class Counter {
  constructor(v) { this.v = v; }
  get() { return this.v; }
  bump(i) { this.v = (this.v + i) & 0xffff; return this.v; }
}

function pointNorm(p) { return p.norm(); }
function pointSum(p) { return p.sum(); }
function pointScale(p, k) { return p.scale(k); }
function counterGet(c) { return c.get(); }
function counterBump(c, i) { return c.bump(i); }

let writes = 0;
function writePrototype() {
  writes++;
  Point.prototype['extra' + writes] = function () { return writes; };
  if (writes <= COUNTER_WRITES) Counter.prototype['more' + writes] = function () { return writes; };
}

function run() {
  const p = new Point(3, 4);
  const c = new Counter(1);
  let acc = 0;
  for (let i = 0; i < N; i++) {
    if (i >= WARMUP && (i - WARMUP) % PERIOD === 0) writePrototype();
    p.x = i & 7;
    acc += pointNorm(p) + pointSum(p) + pointScale(p, i & 3);
    acc += counterGet(c) + counterBump(c, i & 15);
    acc &= 0xfffffff;
  }
  return acc;
}

// The classes, for the class tree (class-tree.js requires this file without running it).
module.exports = { classes: [Point, Counter] };
// fs.writeSync, not console.log: console loads the stream modules, whose sources would fill the log.
if (require.main === module) require('fs').writeSync(1, `proto-write: acc=${run()} writes=${writes}\n`);
