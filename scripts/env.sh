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

# The release bundles' size flags, set by the scripts that make a release
# build (`scripts/build.sh`, `scripts/serve.sh --release`), never for tests: they are unstable
# options of the stable toolchain, which RUSTC_BOOTSTRAP=1 unlocks for this build only.
# - build-std: the standard library compiled with the bundle's own profile (opt-level "z", LTO
#   across it) instead of the prebuilt one (opt-level 3): page -10.0 KiB gzipped, worker -3.8.
# - location-detail=none: panics carry no file, line and column (~780 of them): -10.7, -4.5.
# - panic=immediate-abort: a panic traps at once, with no message formatting: -10.6, -7.1.
#   A trap reaches the page as an uncaught WebAssembly.RuntimeError, which index.html's
#   script turns into the "internal error" banner (no panic is reachable from any input: the
#   fuzz targets and the hostile-input e2e checks look for them).
# - build-std-features=optimize_for_size: the standard library's small forms of its sorts,
#   integer printing, float reading and str counting (same results, fewer bytes, slower on big
#   inputs): page -3.4 KiB gzipped (`scripts/size-report.sh`, 400.3 -> 396.9).
# - fmt-debug=shallow: a derived `Debug` prints only the type's (or variant's) name. Nothing the
#   page or the worker shows is a derived `Debug` (`{:?}` is kept for tests, whose builds do not
#   take these flags; `str`'s own `Debug`, which serde's errors use to quote, is untouched):
#   page -0.8 KiB (396.9 -> 396.1).
# Measured on rustc 1.95.0, 2026-12-02: page 515,811 -> 483,843 B, worker 156,253 -> 140,672 B.
# The standard library's sources come from the rust-src component and its dependencies from
# crates.io (scripts/install-tools.sh fetches both).
blast_release_flags() {
  export RUSTC_BOOTSTRAP=1
  export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
  export CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zlocation-detail=none -Zunstable-options -Cpanic=immediate-abort -Zfmt-debug=shallow"
}
