#!/usr/bin/env bash
# Where the Groovy 2.4 profile's compile parameters come from: runs the `length` sweep
# (probes/groovy/sweeps.groovy length --starts: 8 fresh worlds a JVM, each op's start printed)
# in JVMS JVMs under -XX:+LogCompilation, and prints the medians over every world: the interpreted and
# C1 cost of an iteration, the C1 and C2 OSR compile latencies (`task_queued` to `nmethod`), the
# back-edge at which the loop asked for C2 (scaled by C2's queue: `threshold_scale`), and the ops.
#
#   bash scripts/length-compiles.sh [JVMS] [--keep DIR]
#
# Timing: run it on an idle machine, or at a scheduler priority over other jobs (as root:
# `echo -20 > /proc/self/autogroup; nice -n -20 bash scripts/length-compiles.sh`).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
jvms=${1:-7}
dir="$(mktemp -d)"
if [ "${2:-}" = --keep ] && [ -n "${3:-}" ]; then dir=$3; mkdir -p "$dir"; else trap 'rm -rf "$dir"' EXIT; fi
command -v groovy >/dev/null || { echo "length-compiles: groovy is not installed (scripts/install-runtimes.sh)" >&2; exit 1; }
for j in $(seq 1 "$jvms"); do
  echo "length-compiles: JVM $j/$jvms (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile=$dir/$j.log" \
    timeout 300 groovy --indy probes/groovy/sweeps.groovy length --reps 8 --warmup 15 --starts 2>"$dir/$j.ops" >/dev/null
done
python3 - "$dir" "$jvms" <<'PY'
import re, statistics as st, sys
d, jvms = sys.argv[1], int(sys.argv[2])
LOOP = "_run_closure1 doCall"
rows, ops = [], []
for j in range(1, jvms + 1):
    events = []
    for m in re.finditer(r"<(task_queued|nmethod) ([^>]*)>", open(f"{d}/{j}.log", errors="replace").read()):
        a = dict(re.findall(r"(\w+)='([^']*)'", m.group(2)))
        if LOOP not in a.get("method", "") or "$_closure" in a["method"] or a.get("compile_kind") != "osr":
            continue
        level = int(a.get("level", 4)) if m.group(1) == "task_queued" else (3 if a.get("compiler") == "c1" else 4)
        events.append((m.group(1), level, float(a["stamp"]) * 1e3, int(a.get("backedge_count", 0))))
    for line in open(f"{d}/{j}.ops"):
        if not line.startswith("world "):
            continue
        world = [tuple(map(float, x.split("+"))) for x in line.split()[1:]]
        ops.append([t for _, t in world])
        t0, t1 = world[0][0], world[-1][0] + world[-1][1]
        ev = {(k, lv): (t, be) for k, lv, t, be in reversed(events) if t0 - 1 <= t <= t1 + 1}
        need = [("task_queued", 3), ("nmethod", 3), ("task_queued", 4), ("nmethod", 4)]
        if not all(k in ev for k in need):
            continue
        (q3, _), (n3, b3), (q4, b4), (n4, _) = (ev[k] for k in need)
        rows.append({"interpreted ns an iteration (to the C1 request)": (q3 - t0) / 60416 * 1e6,
                     "C1 OSR compile, ms": n3 - q3,
                     "C1 ns an iteration (C1 install to the C2 request)": (q4 - n3) / max(b4 - b3, 1) * 1e6,
                     "C2 requested at back-edge": b4,
                     "C2 threshold scale ((back-edge - 60416) / 40960)": (b4 - 60416) / 40960,
                     "C2 OSR compile, ms": n4 - q4})
print(f"{len(rows)} of {len(ops)} worlds with every compile logged; median (quartiles):")
for k in rows[0]:
    v = [r[k] for r in rows]
    q = st.quantiles(v, n=4)
    print(f"  {k}: {st.median(v):.2f} ({q[0]:.2f}, {q[2]:.2f})")
print("ops 1, 2, 4, 11, 31 (median ms): " + " / ".join(f"{st.median(o[i] for o in ops):.2f}" for i in (0, 1, 3, 10, 30)))
PY
