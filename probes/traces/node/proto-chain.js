// A prototype write under a class hierarchy (Node.js / V8): which sites on the subclasses does
// a write to the base class's prototype throw away?
//
// Base has two subclasses, Left and Right; Other is unrelated but has a method of the same
// name. Six sites run in a hot loop, one function each: `kind()` on a Base (the method on the
// written prototype), `kind()` on a Left and on a Right (inherited through Base.prototype),
// Left's own prototype method `left()`, Left's own field `l`, and `kind()` on an Other. After a
// warm-up, one method is added to Base.prototype every 12,500 iterations (8 writes). The log
// shows which sites' ICs went stale (`^`) and which optimized functions were deoptimized
// (`dependency-change`) at each write; the capture's class tree (class-tree.js) gives the
// hierarchy, so the replay can set exact (the written class only) against hierarchy (its
// subclasses too). Fixed counts, no randomness.
'use strict';

const N = 200000;      // loop iterations
const WARMUP = 100000; // no writes before this: every site is optimized first
const PERIOD = 12500;  // iterations between prototype writes after the warm-up

class Base {
  constructor(v) { this.v = v; }
  kind() { return 1; }
}
class Left extends Base {
  constructor(v) { super(v); this.l = v + 1; }
  left() { return this.l + 1; }
}
class Right extends Base {
  constructor(v) { super(v); this.r = v + 2; }
  right() { return this.r + 2; }
}
class Other {
  constructor(v) { this.v = v; }
  kind() { return 3; }
}

function baseKind(o) { return o.kind(); }
function leftKind(o) { return o.kind(); }
function rightKind(o) { return o.kind(); }
function leftOwn(o) { return o.left(); }
function leftField(o) { return o.l; }
function otherKind(o) { return o.kind(); }

let writes = 0;
function writePrototype() {
  writes++;
  Base.prototype['extra' + writes] = function () { return writes; };
}

function run() {
  const b = new Base(1);
  const l = new Left(2);
  const r = new Right(3);
  const o = new Other(4);
  let acc = 0;
  for (let i = 0; i < N; i++) {
    if (i >= WARMUP && (i - WARMUP) % PERIOD === 0) writePrototype();
    acc += baseKind(b) + leftKind(l) + rightKind(r) + leftOwn(l) + leftField(l) + otherKind(o);
    acc &= 0xfffffff;
  }
  return acc;
}

// The classes, for the class tree (class-tree.js requires this file without running it).
module.exports = { classes: [Base, Left, Right, Other] };
// fs.writeSync, not console.log: console loads the stream modules, whose code would fill the log.
if (require.main === module) require('fs').writeSync(1, `proto-chain: acc=${run()} writes=${writes}\n`);
