#!/usr/bin/env bash
# Regenerates the generated docs (never edit them by hand): docs/CALIBRATION.md and its chart
# docs/groovy24_sweeps.png.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run -q -p blast-cli -- calibrate --format markdown --plot docs/groovy24_sweeps.png > docs/CALIBRATION.md
echo "wrote docs/CALIBRATION.md and docs/groovy24_sweeps.png"
