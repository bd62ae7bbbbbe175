# shellcheck shell=bash
# Sourced by the other scripts (and usable by hand: `source scripts/env.sh`).
# Puts the project's tools on PATH and sets the variables the wasm test runner and
# Trunk need so that nothing is ever downloaded at build or test time.

BLAST_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

_blast_path_prepend() {
  case ":$PATH:" in
    *":$1:"*) ;;
    *) PATH="$1:$PATH" ;;
  esac
}
_blast_path_prepend "$BLAST_ROOT/tests/e2e/node_modules/.bin"   # wasm-opt (npm binaryen 132)
_blast_path_prepend "${CARGO_HOME:-$HOME/.cargo}/bin"           # cargo, trunk, wasm-bindgen
unset -f _blast_path_prepend
export PATH

export TRUNK_OFFLINE=true
export CHROMEDRIVER=/usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT=120
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="$BLAST_ROOT/web/webdriver.json"
