#!/usr/bin/env bash
# Installs every tool the build and the tests need, from package registries only
# (crates.io, npm, Debian apt): nothing here downloads a prebuilt binary or a browser.
# Idempotent: prints nothing when everything is already present, and one line per
# thing it installs otherwise.
#
#   BLAST_NO_BROWSER=1  skip Chromium/chromedriver (build-only machines, e.g. deploy)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/env.sh
source "$ROOT/scripts/env.sh"
cd "$ROOT"

TRUNK_VERSION=0.21.14
CARGO_FUZZ_VERSION=0.13.2
# Release builds of the tools without fat LTO / one codegen unit: much faster to compile.
CARGO_INSTALL_ENV=(env CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16)

say() { echo "install-tools: $*"; }
die() { echo "install-tools: ERROR: $*" >&2; exit 1; }

SUDO=()
if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi

# --- Rust: wasm target ------------------------------------------------------------
command -v cargo >/dev/null || die "cargo not found (install Rust with rustup first)"
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

for component in rustfmt clippy rust-src; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
    say "adding rustup component $component"
    rustup component add "$component"
  fi
done

# The standard library's own dependencies, for release builds that compile it (env.sh's
# blast_release_flags; Trunk builds offline). Nothing to do once they are in cargo's cache.
STD_MANIFEST="$(rustc --print sysroot)/lib/rustlib/src/rust/library/Cargo.toml"
if ! RUSTC_BOOTSTRAP=1 cargo fetch --offline --manifest-path "$STD_MANIFEST" >/dev/null 2>&1; then
  say "fetching the standard library's dependencies (cargo fetch)"
  RUSTC_BOOTSTRAP=1 cargo fetch --manifest-path "$STD_MANIFEST"
fi

# --- Trunk ------------------------------------------------------------------------
if [ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (cargo install, takes several minutes)"
  "${CARGO_INSTALL_ENV[@]}" cargo install --locked --force "trunk@$TRUNK_VERSION"
fi

# --- cargo-fuzz (scripts/fuzz.sh and the short fuzz step of scripts/test.sh) --------
if [ "$(cargo fuzz --version 2>/dev/null || true)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
  say "installing cargo-fuzz $CARGO_FUZZ_VERSION (cargo install, takes a few minutes)"
  "${CARGO_INSTALL_ENV[@]}" cargo install --locked --force "cargo-fuzz@$CARGO_FUZZ_VERSION"
fi

# --- wasm-bindgen CLI: exactly the wasm-bindgen version in Cargo.lock -------------
WBG_VERSION="$(awk '
  $0 == "[[package]]" { name = "" }
  $1 == "name" && $3 == "\"wasm-bindgen\"" { name = "wasm-bindgen" }
  name == "wasm-bindgen" && $1 == "version" { gsub(/"/, "", $3); print $3; exit }
' Cargo.lock)"
[ -n "$WBG_VERSION" ] || die "no wasm-bindgen package found in Cargo.lock"
TRUNK_WBG="$(sed -n 's/^wasm_bindgen *= *"\([^"]*\)".*/\1/p' Trunk.toml)"
[ "$TRUNK_WBG" = "$WBG_VERSION" ] ||
  die "Trunk.toml [tools] wasm_bindgen = \"$TRUNK_WBG\" but Cargo.lock has wasm-bindgen $WBG_VERSION: make them equal"
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WBG_VERSION" ] ||
   [ "$(wasm-bindgen-test-runner --version 2>/dev/null || true)" != "wasm-bindgen-test-runner $WBG_VERSION" ]; then
  say "installing wasm-bindgen-cli $WBG_VERSION (cargo install, takes several minutes)"
  # No --locked: the crate's own lockfile names a version the registry does not serve.
  "${CARGO_INSTALL_ENV[@]}" cargo install --force "wasm-bindgen-cli@$WBG_VERSION"
fi

# --- Chromium + chromedriver (Debian packages) ------------------------------------
if [ "${BLAST_NO_BROWSER:-0}" != 1 ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; }; then
  say "installing chromium and chromium-driver (apt-get)"
  log="$(mktemp)"
  if ! { "${SUDO[@]}" apt-get update -q &&
         "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; } >"$log" 2>&1; then
    cat "$log" >&2
    die "apt-get install chromium chromium-driver failed"
  fi
  rm -f "$log"
fi

# --- The font the docs/RUNTIMES.md chart is drawn with (blast fingerprint --plot; its test
# redraws the committed PNG and compares the bytes) ----------------------------------
if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
  say "installing fonts-dejavu-core (apt-get)"
  log="$(mktemp)"
  if ! { "${SUDO[@]}" apt-get update -q &&
         "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q fonts-dejavu-core; } >"$log" 2>&1; then
    cat "$log" >&2
    die "apt-get install fonts-dejavu-core failed"
  fi
  rm -f "$log"
fi

# --- npm packages for the end-to-end test (playwright-core, binaryen/wasm-opt) ----
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  die "node and npm (Node.js >= 20) are required"
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || die "Node.js >= 20 is required (found $(node --version))"
E2E="$ROOT/tests/e2e"
stamp="$E2E/node_modules/.blast-install-stamp"
npm_state() { # what node_modules was installed from: manifest + lockfile + Node major
  local files=("$E2E/package.json")
  if [ -f "$E2E/package-lock.json" ]; then files+=("$E2E/package-lock.json"); fi
  cat "${files[@]}" | sha256sum | cut -d' ' -f1
  echo "node-$node_major"
}
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(npm_state)" ] ||
   [ ! -x "$E2E/node_modules/.bin/wasm-opt" ] || [ ! -f "$E2E/node_modules/playwright-core/package.json" ]; then
  if [ -f "$E2E/package-lock.json" ]; then
    say "installing npm packages in tests/e2e (npm ci)"
    (cd "$E2E" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  else
    say "installing npm packages in tests/e2e (npm install)"
    (cd "$E2E" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  fi
  npm_state >"$stamp"
fi

# --- crates for the later --offline builds ----------------------------------------
cargo fetch --quiet
# fuzz/ is its own workspace (libfuzzer-sys, arbitrary).
(cd fuzz && cargo fetch --quiet)
