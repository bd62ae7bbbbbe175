// A small realistic program (Node.js / V8): a shape library with a visitor and a plugin registry.
//
// Three shape classes share a base class Shape; two visitors (area, perimeter) walk a scene of
// mixed shapes, so several call sites see one, two or three receiver maps. Plugins are loaded
// while the program runs: each plugin patches a prototype (Shape.prototype for a method every
// shape inherits, Rect.prototype for one only rectangles get), the way libraries add methods to
// classes they do not own. The log shows which optimized functions each patch threw away
// (`code-deopt,...,dependency-change`), the lazy deopts of frames on the stack (`deopt-lazy`)
// and the IC transitions of the sites as they see new maps (`LoadIC`/`StoreIC`).
// Fixed counts, no randomness.
'use strict';

const ROUNDS = 3000;       // visits of the whole scene
const PLUGIN_EVERY = 500;  // rounds between plugin loads (first at round 1000)

class Shape {
  constructor(name) { this.name = name; }
  accept(v) { return v.visitShape(this); }
  label() { return this.name; }
}
class Circle extends Shape {
  constructor(r) { super('circle'); this.r = r; }
  accept(v) { return v.visitCircle(this); }
}
class Rect extends Shape {
  constructor(w, h) { super('rect'); this.w = w; this.h = h; }
  accept(v) { return v.visitRect(this); }
}
class Triangle extends Shape {
  constructor(a, b, c) { super('triangle'); this.a = a; this.b = b; this.c = c; }
  accept(v) { return v.visitTriangle(this); }
}

class AreaVisitor {
  visitShape() { return 0; }
  visitCircle(s) { return 3 * s.r * s.r; }
  visitRect(s) { return s.w * s.h; }
  visitTriangle(s) { return (s.a * s.b) >> 1; }
}
class PerimeterVisitor {
  visitShape() { return 0; }
  visitCircle(s) { return 6 * s.r; }
  visitRect(s) { return 2 * (s.w + s.h); }
  visitTriangle(s) { return s.a + s.b + s.c; }
}

// The plugin registry: each plugin is a function that patches classes it does not own.
const plugins = [
  function tagPlugin() { Shape.prototype.tag = function () { return this.name.length; }; },
  function diagonalPlugin() { Rect.prototype.diagonal = function () { return this.w + this.h; }; },
  function versionPlugin() { Shape.prototype.version = function () { return 2; }; },
  function squarePlugin() { Rect.prototype.isSquare = function () { return this.w === this.h; }; },
];
let loaded = 0;
function loadNextPlugin() {
  if (loaded < plugins.length) plugins[loaded++]();
}

function buildScene() {
  const scene = [];
  for (let i = 0; i < 12; i++) {
    if (i % 3 === 0) scene.push(new Circle(1 + (i & 3)));
    else if (i % 3 === 1) scene.push(new Rect(2 + (i & 1), 3));
    else scene.push(new Triangle(3, 4, 5));
  }
  return scene;
}

function totalArea(scene, v) {
  let sum = 0;
  for (let i = 0; i < scene.length; i++) sum += scene[i].accept(v);
  return sum;
}
function labelsLength(scene) {
  let n = 0;
  for (let i = 0; i < scene.length; i++) n += scene[i].label().length;
  return n;
}
function rectCount(scene) {
  let n = 0;
  for (let i = 0; i < scene.length; i++) if (scene[i] instanceof Rect) n++;
  return n;
}

function main() {
  const scene = buildScene();
  const area = new AreaVisitor();
  const perimeter = new PerimeterVisitor();
  let acc = 0;
  for (let round = 0; round < ROUNDS; round++) {
    if (round >= 1000 && round % PLUGIN_EVERY === 0) loadNextPlugin();
    acc += totalArea(scene, area) + totalArea(scene, perimeter);
    acc += labelsLength(scene) + rectCount(scene);
    acc &= 0xfffffff;
  }
  return acc;
}

// The classes, for the class tree (class-tree.js requires this file without running it).
module.exports = { classes: [Shape, Circle, Rect, Triangle, AreaVisitor, PerimeterVisitor] };
// fs.writeSync, not console.log: console loads the stream modules, whose sources would fill the log.
if (require.main === module) require('fs').writeSync(1, `shapes-plugins: acc=${main()} plugins=${loaded}\n`);
