#!/usr/bin/env bash
# Measures the Groovy 2.4 sweeps (probes/groovy/sweeps.groovy) and writes them, with the
# machine's facts, as the reference table crates/engine/data/groovy24_sweeps.csv.
#
#   bash scripts/groovy-sweeps.sh [--install] [--forks N] [--reps N] [--warmup N] [--out FILE] [SWEEP..]
#
# --install: install groovy from apt first (scripts/install-runtimes.sh). Each sweep runs in
# `forks` fresh JVMs (default 3); a row's min / median / max are taken over every timed op of
# every fork. Each JVM gets a 6-minute budget, so a sweep takes minutes, not hours.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

forks=3 reps=15 warmup=15 out=crates/engine/data/groovy24_sweeps.csv install=0
sweeps=()
while [ $# -gt 0 ]; do
  case $1 in
    --install) install=1 ;;
    --forks) forks=$2; shift ;;
    --reps) reps=$2; shift ;;
    --warmup) warmup=$2; shift ;;
    --out) out=$2; shift ;;
    density|sites|burst|body|poly|length) sweeps+=("$1") ;;
    *) echo "usage: bash scripts/groovy-sweeps.sh [--install] [--forks N] [--reps N] [--warmup N] [--out FILE] [density|sites|burst|body|poly|length..]" >&2; exit 2 ;;
  esac
  shift
done
[ ${#sweeps[@]} -gt 0 ] || sweeps=(density sites burst body poly length)
if [ "$install" = 1 ]; then bash scripts/install-runtimes.sh; fi
command -v groovy >/dev/null || { echo "groovy-sweeps: groovy is not installed (--install installs it)" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
for s in "${sweeps[@]}"; do
  for f in $(seq 1 "$forks"); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    echo "groovy-sweeps: $s fork $f/$forks (load $load)" >&2
    timeout 360 groovy --indy probes/groovy/sweeps.groovy "$s" --reps "$reps" --warmup "$warmup" --times >"$tmp/$s.$f.json"
    echo "$load" >"$tmp/$s.$f.load"
  done
done
seconds=$(($(date +%s) - start))

python3 - "$tmp" "$out" "$seconds" "$forks" "${sweeps[@]}" <<'PY'
import glob, json, os, platform, statistics, sys
tmp, out, seconds, forks, sweeps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
rows, version, command, loads = [], None, None, []
for s in sweeps:
    docs = [json.load(open(p)) for p in sorted(glob.glob(f"{tmp}/{s}.*.json"))]
    loads += [float(open(p).read()) for p in sorted(glob.glob(f"{tmp}/{s}.*.load"))]
    version, command = docs[0]["version"], docs[0]["command"]
    for k, row in enumerate(docs[0]["rows"]):
        times = sorted(t for d in docs for t in d["rows"][k]["times_ns"])
        q = statistics.quantiles(times, n=4)
        med = statistics.median(times)
        rows.append((s, row["param"], row["iterations"], len(docs), len(times), row["warmup"], times[0], med, times[-1], round((q[2] - q[0]) / med, 4)))
with open(out, "w") as f:
    f.write("# Source: measured on this project's build machine with probes/groovy/sweeps.groovy, run by\n")
    f.write("# `bash scripts/groovy-sweeps.sh`. Groovy 2.4 with --indy.\n")
    template = " ".join("SWEEP" if w in sweeps else w for w in command.split())
    f.write(f"# Runtime: {version}. Command per fork: {template}.\n")
    f.write(f"# Machine: {os.cpu_count()} CPUs, {model}, {platform.system()} {platform.release()};\n")
    f.write(f"# shared with other jobs: 1-min load average {min(loads):.2f}..{max(loads):.2f} at the forks' starts. {seconds} s in all.\n")
    f.write("# Times are ns per op (one loop of `iterations` iterations), over every timed op of every fork\n")
    f.write("# (fresh JVM each); iqr_rel = interquartile range / median.\n")
    f.write("sweep,param,iterations,forks,reps,warmup,min_ns,median_ns,max_ns,iqr_rel\n")
    for r in rows:
        f.write(",".join(str(x) for x in r) + "\n")
print(f"groovy-sweeps: wrote {out} ({len(rows)} rows, {seconds} s)", file=sys.stderr)
PY
