#!/usr/bin/env bash
# Where the page's main thread spends its time while it opens a big scenario file, by function:
#   bash scripts/profile-open.sh [SITES]        (default 1000000: the 38.6 MB file of e2e `scale`)
# Builds the page as a release build does but keeps the function names (wasm-opt -g) into
# target/profile-dist, then opens a generated SITES-site file in headless Chromium with V8's
# sampling profiler on, from the pick until the aggregated view is drawn, and prints the
# functions with the most self time and the most total time (tests/e2e/profile-open.mjs).
# Needs the tools of scripts/install-tools.sh and the e2e's node_modules.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/env.sh
source "$ROOT/scripts/env.sh"
cd "$ROOT"
SITES="${1:-1000000}"
DIST="$ROOT/target/profile-dist"
# Trunk reads the page from an HTML file beside web/ and assets/: a copy whose page module keeps
# its names, removed afterwards.
HTML="$ROOT/.profile-index.html"
trap 'rm -f "$HTML"' EXIT
sed 's/data-bin="blast-web" \(.*\)data-wasm-opt-params="\([^"]*\)"/data-bin="blast-web" \1data-wasm-opt-params="\2 -g"/' index.html > "$HTML"
grep -q -- '-g"' "$HTML" || { echo "index.html's page module has no data-wasm-opt-params to add -g to"; exit 1; }
blast_release_flags
trunk build "$HTML" --release --offline --public-url /blast-radius/ --dist "$DIST"
PROFILE_DIST="$DIST" PROFILE_SITES="$SITES" node tests/e2e/profile-open.mjs
