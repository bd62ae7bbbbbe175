// Tests of short-imports.mjs (run by scripts/test.sh's release build step, before the build that
// uses it): `node --test scripts/short-imports.test.mjs`.
import test from "node:test";
import assert from "node:assert/strict";
import { shortenNames, shortName } from "./short-imports.mjs";

const utf8 = new TextEncoder();
const str = (s) => [utf8.encode(s).length, ...utf8.encode(s)];
const section = (id, body) => [id, body.length, ...body];

// A module importing two functions of type () -> i32 from `module` and a memory from `env`, exporting
// `sum` = first() + second(), also under a long name.
function module(moduleName, first, second) {
  const type = section(1, [1, 0x60, 0, 1, 0x7f]);
  const imports = section(2, [3, ...str(moduleName), ...str(first), 0, 0, ...str(moduleName), ...str(second), 0, 0, ...str("env"), ...str("memory_0123"), 2, 1, 1, 2]);
  const functions = section(3, [1, 0]);
  const exports = section(7, [2, ...str("sum"), 0, 2, ...str(LONG), 0, 2]);
  const body = [0, 0x10, 0, 0x10, 1, 0x6a, 0x0b];
  const code = section(10, [1, body.length, ...body]);
  return Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...type, ...imports, ...functions, ...exports, ...code]);
}

const LONG = "wasm_bindgen_0123456789abcde___convert__closures_____invoke_______true_";

const glue = `function call(wasm){return wasm.${LONG}()}
const e={__proto__:null,__wbg_first_0123456789abcdef:function(){return 40},__wbg_second_fedcba9876543210:()=>2};
const memory={memory_0123:new WebAssembly.Memory({initial:1,maximum:2})};
return {__proto__:null,"./m_bg.js":e,"env":memory};`;

test("the renamed module links to the renamed glue and calls the same functions", async () => {
  const wasm = module("./m_bg.js", "__wbg_first_0123456789abcdef", "__wbg_second_fedcba9876543210");
  const before = await WebAssembly.instantiate(wasm, new Function(glue)());
  const out = shortenNames(wasm, glue);
  assert.equal(out.renamed, 4);
  assert.ok(out.wasm.length < wasm.length, "the module is smaller");
  assert.ok(!out.js.includes("__wbg_") && !out.js.includes("./m_bg.js") && !out.js.includes(LONG), out.js);
  assert.ok(out.js.startsWith("function call(wasm){return wasm.$a()}"), out.js);
  assert.deepEqual(WebAssembly.Module.exports(new WebAssembly.Module(out.wasm)).map((e) => e.name), ["sum", "$a"], "a short export keeps its name");
  const names = WebAssembly.Module.imports(new WebAssembly.Module(out.wasm)).map((i) => `${i.module}.${i.name}`);
  assert.deepEqual(names, ["a.a", "a.b", "b.c"]);
  const after = await WebAssembly.instantiate(out.wasm, new Function(out.js)());
  assert.equal(after.instance.exports.sum(), before.instance.exports.sum());
  assert.equal(after.instance.exports.sum(), 42);
  assert.equal(after.instance.exports.$a(), 42);
});

test("an import the glue does not name once is refused, not guessed", () => {
  const missing = module("./m_bg.js", "__wbg_first_0123456789abcdef", "__wbg_third_0000000000000000");
  assert.throws(() => shortenNames(missing, glue), /__wbg_third_0000000000000000 is named 0 times in the glue, not once/);
  const twice = glue.replace("return 40", "return __wbg_first_0123456789abcdef");
  const wasm = module("./m_bg.js", "__wbg_first_0123456789abcdef", "__wbg_second_fedcba9876543210");
  assert.throws(() => shortenNames(wasm, twice), /named 2 times/);
  // A name that only contains another import's name is a different word.
  const longer = glue.replace("__wbg_second_fedcba9876543210:", "__wbg_second_fedcba9876543210_x:1,__wbg_second_fedcba9876543210:");
  assert.equal(shortenNames(wasm, longer).renamed, 4);
  // A long export the glue never calls: refused too.
  assert.throws(() => shortenNames(wasm, glue.replace(`wasm.${LONG}()`, "0")), /the export wasm_bindgen_0123456789abcde.* is not named in the glue/);
});

test("a module cut short or not a module is refused", () => {
  const wasm = module("./m_bg.js", "__wbg_first_0123456789abcdef", "__wbg_second_fedcba9876543210");
  assert.throws(() => shortenNames(wasm.subarray(0, 30), glue), /runs past the module's end/);
  assert.throws(() => shortenNames(utf8.encode("not wasm at all"), glue), /not a WebAssembly module/);
});

test("short names are distinct identifiers", () => {
  const names = Array.from({ length: 3000 }, (_, i) => shortName(i));
  assert.equal(new Set(names).size, names.length);
  assert.ok(names.every((n) => /^[A-Za-z]+$/.test(n)));
  assert.deepEqual([shortName(0), shortName(25), shortName(26), shortName(51), shortName(52), shortName(53)], ["a", "z", "A", "Z", "aa", "ab"]);
});
