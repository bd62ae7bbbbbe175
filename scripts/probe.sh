#!/usr/bin/env bash
# Runs one runtime's probe (probes/README.md) and prints its JSON result, with the machine's
# facts added, on stdout.
#
#   bash scripts/probe.sh RUNTIME [--quick] [--out FILE]
#
# RUNTIME: cpython, pypy, node, ruby, jruby, groovy. cpython and node are on every machine;
# `bash scripts/install-runtimes.sh` installs the other four from Debian packages.
# --quick: fewer iterations and reps (what the test command runs); --out: write to FILE.
# A probe that runs past its time budget (10 min, 3 min with --quick) is stopped.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

usage() { echo "usage: bash scripts/probe.sh cpython|pypy|node|ruby|jruby|groovy [--quick] [--out FILE]" >&2; exit 2; }
[ $# -ge 1 ] || usage
runtime=$1
shift
quick=()
out=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=(--quick) ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift ;;
    *) usage ;;
  esac
  shift
done

case $runtime in
  cpython) cmd=(python3 probes/python/probe.py --runtime cpython) ;;
  pypy) cmd=(pypy3 probes/python/probe.py --runtime pypy) ;;
  node) cmd=(node probes/node/probe.mjs) ;;
  ruby) cmd=(ruby probes/ruby/probe.rb --runtime ruby) ;;
  # invokedynamic call sites: the per-class invalidators (SwitchPoints) this probe is about.
  jruby) cmd=(jruby -Xcompile.invokedynamic=true probes/ruby/probe.rb --runtime jruby) ;;
  groovy) cmd=(groovy --indy probes/groovy/probe.groovy) ;;
  *) usage ;;
esac
if ! command -v "${cmd[0]}" >/dev/null; then
  echo "probe: ${cmd[0]} is not installed (bash scripts/install-runtimes.sh installs it)" >&2
  exit 1
fi
budget=600
if [ ${#quick[@]} -gt 0 ]; then budget=180; fi

raw="$(mktemp)"
trap 'rm -f "$raw"' EXIT
start=$(date +%s)
load_start=$(cut -d' ' -f1 /proc/loadavg)
if ! timeout "$budget" "${cmd[@]}" "${quick[@]}" >"$raw"; then
  echo "probe: ${cmd[*]} failed or ran past its ${budget} s budget" >&2
  exit 1
fi
seconds=$(($(date +%s) - start))

# Machine facts and the wall time, added to the probe's own document (and its schema checked).
python3 - "$raw" "$seconds" "$out" "$load_start" <<'PY'
import json, os, platform, sys

raw, seconds, out, load_start = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
doc = json.load(open(raw))
for key in ("schema", "runtime", "version", "command", "mode", "rows"):
    if key not in doc:
        sys.exit(f"probe: the probe's output has no `{key}`")
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
mem_kb = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
doc["machine"] = {
    "cpus": os.cpu_count(),
    "cpu_model": model,
    "memory_gib": round(mem_kb / 2**20, 1),
    "os": f"{platform.system()} {platform.release()}",
    # At the start and at the end of the run: other work on the machine slows some reps.
    "load_average_1min_start": load_start,
    "load_average_1min": round(os.getloadavg()[0], 2),
}
doc["wall_seconds"] = seconds
unreadable = [f"{r['workload']}@{r['param']}" for r in doc["rows"] if r.get("low_wide")]
if unreadable:
    # The probe marks each row; this says it where the person running the probe looks. The
    # fingerprint reads each row's fastest rep, so what matters is how far the fastest quarter
    # of the reps spread (`low_rel`), not the interquartile range a busy machine widens.
    print(f"probe: {len(unreadable)} of {len(doc['rows'])} rows too wide to read (fastest quarter of reps spread > 10%; rerun on a quieter machine): {' '.join(unreadable)}", file=sys.stderr)
text = json.dumps(doc, indent=1) + "\n"
if out:
    with open(out, "w") as f:
        f.write(text)
else:
    sys.stdout.write(text)
PY
