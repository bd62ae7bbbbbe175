#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ (or the ones named) for SECONDS each, one at a time.
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]     default: 60 s per target, every target
#
# Each target starts from its committed seeds (fuzz/seeds/TARGET), the inputs of its past
# findings (fuzz/regressions/TARGET, replayed every run) and the corpus kept from earlier runs
# (fuzz/corpus/TARGET, not committed). A crash, a hang (> 10 s) or an input that
# takes over 2 GB fails the script; libFuzzer leaves the input in fuzz/artifacts/TARGET.
# The summary line per target: executions, seconds, coverage (cov/ft) and exit status.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/env.sh
source "$ROOT/scripts/env.sh"
cd "$ROOT"

SECONDS_PER_TARGET=${1:-60}
shift || true
# cargo-fuzz passes nightly-only flags (-Z, -C passes=sancov); stable accepts them for this
# build only. No sanitizer: the code is safe Rust, and without ASan it runs several times faster;
# debug assertions on, so that an arithmetic overflow is a finding too.
export RUSTC_BOOTSTRAP=1
FUZZ=(cargo fuzz run --sanitizer none --debug-assertions)

mapfile -t targets < <(if [ $# -gt 0 ]; then printf '%s\n' "$@"; else cargo fuzz list; fi)
cargo fuzz build --sanitizer none --debug-assertions

status=0
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t" "fuzz/seeds/$t" "fuzz/regressions/$t"
  log="fuzz/artifacts/$t.log"
  mkdir -p fuzz/artifacts
  t0=$(date +%s)
  set +e
  "${FUZZ[@]}" "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" "fuzz/regressions/$t" -- \
    -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
  printf '%-12s %12s execs %5s s  %-22s %s\n' "$t" "${execs:-?}" "$(($(date +%s) - t0))" "${cov:-?}" \
    "$([ "$rc" -eq 0 ] && echo ok || echo "FAILED (exit $rc, see $log)")"
  if [ "$rc" -ne 0 ]; then
    tail -n 40 "$log"
    status=1
  fi
done
exit "$status"
