#!/usr/bin/env bash
# The playground's release build into dist/ (installs what is missing):
#   bash scripts/build.sh [PUBLIC_URL]        e.g. /blast-radius/ (default /)
# Extra arguments go to `trunk build` (e.g. --dist DIR). A plain `trunk build --release` works
# too, but without the size flags of env.sh's blast_release_flags its bundles are ~31 KiB
# (page) and ~15 KiB (worker) bigger than the size step's budgets allow.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/install-tools.sh"
# shellcheck source=scripts/env.sh
source "$ROOT/scripts/env.sh"
cd "$ROOT"
PUBLIC_URL="${1:-/}"
shift || true
blast_release_flags
exec trunk build --release --offline --public-url "$PUBLIC_URL" "$@"
