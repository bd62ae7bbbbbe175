#!/usr/bin/env bash
# The runtime lab: runs every probe in full mode on this machine, keeps the results in
# probes/results/, and regenerates the fingerprint tables in docs/RUNTIMES.md and its chart
# (docs/runtimes.png) from them, and the observed-scope table of the committed trace samples.
#
#   bash scripts/lab.sh            # all six runtimes (installs the missing ones first)
#   bash scripts/lab.sh --docs     # only regenerate docs/RUNTIMES.md and the chart from the kept results
#
# Measure on a quiet machine: every result records the load average it was taken under.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
RUNTIMES=(cpython pypy node ruby jruby groovy)
RESULTS=probes/results

if [ "${1:-}" != "--docs" ]; then
  bash scripts/install-runtimes.sh
  mkdir -p "$RESULTS"
  for r in "${RUNTIMES[@]}"; do
    echo "lab: probing $r"
    bash scripts/probe.sh "$r" --out "$RESULTS/$r.json"
  done
fi

files=()
for r in "${RUNTIMES[@]}"; do
  if [ -f "$RESULTS/$r.json" ]; then files+=("$RESULTS/$r.json"); fi
done
[ ${#files[@]} -gt 0 ] || { echo "lab: no results in $RESULTS" >&2; exit 1; }
table="$(mktemp)"
trap 'rm -f "$table"' EXIT

# splice NAME: puts the text in $table between docs/RUNTIMES.md's `<!-- NAME:begin -->` and
# `<!-- NAME:end -->` markers.
splice() {
  python3 - docs/RUNTIMES.md "$table" "$1" <<'PY'
import sys
doc_path, table_path, name = sys.argv[1], sys.argv[2], sys.argv[3]
begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
doc = open(doc_path).read()
head, rest = doc.split(begin, 1)
_, tail = rest.split(end, 1)
open(doc_path, "w").write(head + begin + "\n" + open(table_path).read() + end + tail)
PY
}

cargo run -q -p blast-cli -- fingerprint "${files[@]}" --format markdown --plot docs/runtimes.png >"$table"
splice fingerprint
# The observed scope of the committed trace samples (docs/TRACES.md).
cargo run -q -p blast-cli -- trace probes/traces/logs/*.log --replay --format markdown >"$table"
splice traces
echo "lab: wrote docs/RUNTIMES.md and docs/runtimes.png"
