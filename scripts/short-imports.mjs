// Trunk's post-build hook (Trunk.toml), before minify-js.mjs: gives the wasm-bindgen imports of
// each staged module short names, and its long exports too, in the module and in its JavaScript
// glue alike.
//
// Why: wasm-bindgen names each import after its Rust binding plus a 16-hex-digit hash
// (`__wbg_readyState_3cedb2e12eb09077`), and the name is written twice, once in the module's
// import section and once as the glue's property that answers it. The hashes do not compress:
// the page's 236 imports cost 4.5 KiB of its .wasm and 2.8 KiB of its .js, gzipped. Renamed
// `a`, `b`, ... in both places, the module links to the same functions (an import is found by
// its module and name strings alone; nothing else in the module or the glue reads them). The
// closures' entry points are exported under their whole Rust paths (over 100 characters each);
// those exports (every export name longer than `LONG_EXPORT`) become `$a`, `$b`, ... where the
// glue calls them.
//
// The renaming refuses, and fails the build, rather than guess: each import's name must appear
// exactly once in the glue as a whole word, its module name exactly once as a quoted key, and
// each long export at least once as a whole word.
// A release build only; the JS carries no `integrity` attribute (Trunk.toml's preload pattern),
// so rewriting the staged files after Trunk's hashing is safe, as in minify-js.mjs.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Reads an unsigned LEB128 at `at`: [value, next offset]. */
function readLeb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (at >= bytes.length) throw new Error(`short-imports: a number runs past the module's end at byte ${at}`);
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, at];
    shift += 7;
    if (shift > 35) throw new Error(`short-imports: a number at byte ${at} is longer than 32 bits`);
  }
}

function leb(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

function name(text) {
  const bytes = utf8.encode(text);
  return [...leb(bytes.length), ...bytes];
}

/** The bytes an import's description takes after its kind byte, from `at`: the next offset. */
function skipDescription(bytes, kind, at) {
  switch (kind) {
    case 0: // a function: its type index
      return readLeb(bytes, at)[1];
    case 1: {
      // a table: its element type, then limits
      return skipLimits(bytes, at + 1);
    }
    case 2: // a memory: limits
      return skipLimits(bytes, at);
    case 3: // a global: value type, mutability
      return at + 2;
    case 4: // a tag: attribute, type index
      return readLeb(bytes, at + 1)[1];
    default:
      throw new Error(`short-imports: an import of unknown kind ${kind}`);
  }
}

function skipLimits(bytes, at) {
  const flags = bytes[at];
  let next = readLeb(bytes, at + 1)[1];
  if (flags & 1) next = readLeb(bytes, next)[1];
  return next;
}

/** The n-th short name: a, b, ..., z, A, ..., Z, aa, ab, ... (JavaScript identifiers). */
export function shortName(n) {
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  let out = "";
  do {
    out = letters[n % letters.length] + out;
    n = Math.floor(n / letters.length) - 1;
  } while (n >= 0);
  return out;
}

/** Exports with longer names are renamed (the glue's own entry points, such as
 * `__wbindgen_malloc`, are shorter and repeat, which gzip takes care of). */
export const LONG_EXPORT = 40;

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `text` as a whole word of the glue (not part of a longer identifier). */
function wholeWord(text, flags) {
  return new RegExp(`(?<![\\w$])${escapeRegExp(text)}(?![\\w$])`, flags);
}

/** The import section's body with every name shortened, and the glue that answers them. */
function shortenImportSection(body, js) {
  const [count, first] = readLeb(body, 0);
  const out = [...leb(count)];
  const modules = new Map();
  let p = first;
  for (let i = 0; i < count; i++) {
    const [moduleLength, moduleAt] = readLeb(body, p);
    const module = fromUtf8.decode(body.subarray(moduleAt, moduleAt + moduleLength));
    const [fieldLength, fieldAt] = readLeb(body, moduleAt + moduleLength);
    const field = fromUtf8.decode(body.subarray(fieldAt, fieldAt + fieldLength));
    const kind = body[fieldAt + fieldLength];
    const next = skipDescription(body, kind, fieldAt + fieldLength + 1);
    if (!modules.has(module)) modules.set(module, shortName(modules.size));
    const short = shortName(i);
    const uses = js.match(wholeWord(field, "g"))?.length ?? 0;
    if (uses !== 1) throw new Error(`short-imports: the import ${module} ${field} is named ${uses} times in the glue, not once`);
    js = js.replace(wholeWord(field), () => short);
    out.push(...name(modules.get(module)), ...name(short), kind, ...body.subarray(fieldAt + fieldLength + 1, next));
    p = next;
  }
  if (p !== body.length) throw new Error("short-imports: the import section's length does not match its imports");
  for (const [module, short] of modules) {
    const key = new RegExp(`(["'])${escapeRegExp(module)}\\1(?=\\s*:)`, "g");
    const uses = js.match(key)?.length ?? 0;
    if (uses !== 1) throw new Error(`short-imports: the import module ${module} is a key ${uses} times in the glue, not once`);
    js = js.replace(key, () => `"${short}"`);
  }
  return { body: Uint8Array.from(out), js, renamed: count };
}

/** The export section's body with its long names shortened, and the glue that calls them. */
function shortenExportSection(body, js) {
  const [count, first] = readLeb(body, 0);
  const out = [...leb(count)];
  let renamed = 0;
  let p = first;
  for (let i = 0; i < count; i++) {
    const [length, nameAt] = readLeb(body, p);
    const exported = fromUtf8.decode(body.subarray(nameAt, nameAt + length));
    const kind = body[nameAt + length];
    const next = readLeb(body, nameAt + length + 1)[1];
    let named = exported;
    if (exported.length > LONG_EXPORT) {
      named = `$${shortName(renamed++)}`;
      const word = wholeWord(exported, "g");
      if (!word.test(js)) throw new Error(`short-imports: the export ${exported} is not named in the glue`);
      js = js.replace(word, () => named);
    }
    out.push(...name(named), kind, ...body.subarray(nameAt + length + 1, next));
    p = next;
  }
  if (p !== body.length) throw new Error("short-imports: the export section's length does not match its exports");
  return { body: Uint8Array.from(out), js, renamed };
}

/** The sections renamed, by id; every other section is copied whole. */
const RENAMED_SECTIONS = new Map([
  [2, shortenImportSection],
  [7, shortenExportSection],
]);

/**
 * Renames the imports (and long exports) of `wasm`, a module's bytes, and the glue `js` that
 * answers and calls them. Returns the new bytes and text, and how many names were changed.
 */
export function shortenNames(wasm, js) {
  if (wasm.length < 8 || wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d) {
    throw new Error("short-imports: not a WebAssembly module");
  }
  const out = [wasm.subarray(0, 8)];
  let renamed = 0;
  let at = 8;
  while (at < wasm.length) {
    const id = wasm[at];
    const [size, start] = readLeb(wasm, at + 1);
    const end = start + size;
    if (end > wasm.length) throw new Error(`short-imports: section ${id} runs past the module's end`);
    const shorten = RENAMED_SECTIONS.get(id);
    if (shorten) {
      const section = shorten(wasm.subarray(start, end), js);
      js = section.js;
      renamed += section.renamed;
      out.push(Uint8Array.from([id, ...leb(section.body.length)]), section.body);
    } else {
      out.push(wasm.subarray(at, end));
    }
    at = end;
  }
  const bytes = new Uint8Array(out.reduce((n, piece) => n + piece.length, 0));
  out.reduce((offset, piece) => (bytes.set(piece, offset), offset + piece.length), 0);
  return { wasm: bytes, js, renamed };
}

async function main() {
  if (process.env.TRUNK_PROFILE !== "release") return;
  const staging = process.env.TRUNK_STAGING_DIR;
  if (!staging) throw new Error("short-imports: TRUNK_STAGING_DIR is not set (this script is Trunk's post_build hook)");
  const files = await readdir(staging);
  for (const wasmName of files.filter((n) => n.endsWith("_bg.wasm"))) {
    const jsName = wasmName.replace(/_bg\.wasm$/, ".js");
    if (!files.includes(jsName)) throw new Error(`short-imports: ${wasmName} has no glue ${jsName} beside it`);
    const wasm = await readFile(join(staging, wasmName));
    const js = await readFile(join(staging, jsName), "utf8");
    const shortened = shortenNames(new Uint8Array(wasm), js);
    await writeFile(join(staging, wasmName), shortened.wasm);
    await writeFile(join(staging, jsName), shortened.js);
    console.log(`short-imports: ${wasmName} ${shortened.renamed} names, ${wasm.length} -> ${shortened.wasm.length} bytes; ${jsName} ${js.length} -> ${shortened.js.length}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await main();
}
