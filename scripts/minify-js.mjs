// Trunk's post-build hook (Trunk.toml): minifies the staged JavaScript of a release build with
// terser (npm, installed in tests/e2e by scripts/install-tools.sh, beside wasm-opt's binaryen).
//
// Why not Trunk's own minifier (`minify = "on_release"`, which still does the CSS and HTML):
// its JS minifier fails on wasm-bindgen's page module (`Failed to minify JS:
// RequiredTokenNotFound(Identifier)` at `export default`) and leaves it whole. Terser reads it:
// the page's glue goes from 10.3 to 8.2 KiB gzipped. The wasm-bindgen imports are object
// properties and the module's exports are kept, so nothing the wasm or the page names changes
// (terser mangles local names only). The JS files carry no `integrity` attribute (Trunk.toml's
// preload pattern), so rewriting them after Trunk's hashing is safe; their names keep the hash of
// the unminified text, which still changes whenever the text does.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

if (process.env.TRUNK_PROFILE !== "release") process.exit(0);

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "tests/e2e/package.json"));
let minify;
try {
  ({ minify } = require("terser"));
} catch {
  console.error("minify-js: terser is not installed in tests/e2e: run `bash scripts/install-tools.sh`");
  process.exit(1);
}

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) {
  console.error("minify-js: TRUNK_STAGING_DIR is not set (this script is Trunk's post_build hook)");
  process.exit(1);
}

for (const name of (await readdir(staging)).filter((n) => n.endsWith(".js"))) {
  const path = join(staging, name);
  const text = await readFile(path, "utf8");
  // The page's glue is an ES module (wasm-bindgen --target web); the worker's is a classic
  // script (--target no-modules) whose top-level `wasm_bindgen` the loader calls by name.
  const module = /^\s*export\s/m.test(text);
  const out = await minify(text, { module, compress: true, mangle: true, toplevel: module });
  if (!out.code) throw new Error(`minify-js: terser gave nothing for ${name}`);
  await writeFile(path, out.code);
  console.log(`minify-js: ${name} ${text.length} -> ${out.code.length} bytes`);
}
