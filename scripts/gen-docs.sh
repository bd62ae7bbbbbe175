#!/usr/bin/env bash
# Regenerates the generated docs (never edit them by hand): docs/CALIBRATION.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run -q -p blast-cli -- calibrate --format markdown > docs/CALIBRATION.md
echo "wrote docs/CALIBRATION.md"
