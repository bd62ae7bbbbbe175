#!/usr/bin/env bash
# Serves the playground with live reload on http://127.0.0.1:8080 (installs what is missing).
# Extra arguments go to `trunk serve` (e.g. --release, --port 9000).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/install-tools.sh"
# shellcheck source=scripts/env.sh
source "$ROOT/scripts/env.sh"
cd "$ROOT"
# A release build gets the bundles' size flags (env.sh); a debug build does not need them.
case " $* " in *" --release "*) blast_release_flags ;; esac
exec trunk serve --offline --address 127.0.0.1 --port 8080 "$@"
