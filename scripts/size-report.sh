#!/usr/bin/env bash
# Where the page's gzipped bytes go, by part of the code:
#   bash scripts/size-report.sh [blast-web|blast-worker]     (default: blast-web, the page)
# Builds the module as a release build does (the `wasm` profile with env.sh's release size
# flags, wasm-bindgen, wasm-opt -Oz with index.html's options) but keeps the function names
# (wasm-bindgen --keep-debug, wasm-opt -g), then groups the code by them
# (scripts/size_report.py). Its own target directory (target/size-report), so a normal build's
# cache is untouched. Needs the tools of scripts/install-tools.sh.
# The imports and exports keep wasm-bindgen's long names here (a release build shortens them,
# scripts/short-imports.mjs), so the "module" group reads about 3.5 KiB above the built page's.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/env.sh
source "$ROOT/scripts/env.sh"
cd "$ROOT"
BIN="${1:-blast-web}"
OUT="$ROOT/target/size-report"
blast_release_flags
CARGO_TARGET_DIR="$OUT" cargo build --quiet --profile wasm --target wasm32-unknown-unknown -p blast-web --bin "$BIN"
rm -rf "$OUT/bindgen"
wasm-bindgen --target web --keep-debug --out-dir "$OUT/bindgen" "$OUT/wasm32-unknown-unknown/wasm/$BIN.wasm"
# The options of index.html's data-wasm-opt-params, and the features rustc's wasm32 target enables.
wasm-opt "$OUT/bindgen/${BIN}_bg.wasm" -Oz --converge --low-memory-unused --zero-filled-memory -g \
  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-reference-types \
  --enable-multivalue --enable-mutable-globals -o "$OUT/$BIN.named.wasm"
python3 "$ROOT/scripts/size_report.py" "$OUT/$BIN.named.wasm"
