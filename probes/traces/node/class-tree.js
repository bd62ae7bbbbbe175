// Records the class tree of a trace program for the replay (the format is in
// crates/engine/src/trace/classes.rs): Node 20's log names no prototype chain unless
// --log-maps-details, whose map printouts are 12.4 MB of a 14 MB log for proto-write.js.
//
//   node class-tree.js OUT.classes PROGRAM.js
//
// Run by scripts/capture-traces.sh right after the traced run, in a process of its own: it
// requires the program, which exports its classes (`module.exports.classes`) and runs only when
// it is the main module, and writes one line per class: its name, its parent class (from the
// prototype chain; Object is left out) and the methods its prototype declares. Sorted by name.
'use strict';
const fs = require('fs');
const path = require('path');

const [out, program] = process.argv.slice(2);
const { classes } = require(path.resolve(program));
const lines = classes.map((C) => {
  const parent = Object.getPrototypeOf(C.prototype).constructor;
  const methods = Object.getOwnPropertyNames(C.prototype)
    .filter((n) => n !== 'constructor' && typeof Object.getOwnPropertyDescriptor(C.prototype, n).value === 'function')
    .sort();
  let line = `class ${C.name}`;
  if (parent !== Object) line += ` extends ${parent.name}`;
  if (methods.length > 0) line += ` methods ${methods.join(',')}`;
  return line;
});
lines.sort();
fs.writeFileSync(out, `# class tree of ${path.basename(program)}, recorded by probes/traces/node/class-tree.js\n${lines.join('\n')}\n`);
