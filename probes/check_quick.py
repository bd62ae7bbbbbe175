"""Checks quick probe results (scripts/probe.sh RUNTIME --quick) against facts measured on
this project's 2-core machines, with margins wide enough for a noisy machine.

    python3 probes/check_quick.py RESULT.json [RESULT.json ...]

Ratios compare the fastest rep of a workload with the fastest rep of the baseline (per loop
iteration): the minimum is the statistic a busy machine disturbs least. Exits 1 if any check
fails, printing `ok - ...` / `not ok - ...` lines.
"""

import json
import os
import sys

WORKLOADS = {"baseline", "unrelated_churn", "same_class_churn", "parent_churn", "burst_then_steady", "density", "hot_sites", "hot_sites_baseline"} | {
    r["workload"] for r in json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "workloads.json")))["fanout"]["rows"]
}
# The no-write row each churn workload is compared with (same param); `baseline` for the rest.
BASELINES = {"hot_sites": "hot_sites_baseline", "fanout_other": "fanout_baseline", "fanout_leaf": "fanout_baseline", "fanout_root": "fanout_baseline"}

# (runtime, workload, low, high, why): min ns per iteration of `workload` over the baseline's.
FACTS = [
    ("cpython", "unrelated_churn", 0.6, 1.6, "a write to an unrelated class leaves the hot site's specialization alone"),
    ("cpython", "burst_then_steady", 0.6, 1.6, "writes before the loop cost the loop nothing"),
    ("node", "burst_then_steady", 0.6, 1.6, "writes before the loop cost the optimized loop nothing"),
    ("node", "unrelated_churn", 0.7, 1.5, "a prototype store every 1000 iterations costs V8's optimized loop little (1.04 measured at load 9)"),
    ("cpython", "fanout_root", 1.08, 2.0, "a write to the parent re-specializes every subclass's site (1.21-1.27 measured at load 9-11)"),
]


def per_iteration(row):
    return row["min_ns"] / row["iterations"]


def check_schema(doc):
    problems = []
    for key in ("schema", "runtime", "version", "command", "mode", "rows", "machine"):
        if key not in doc:
            problems.append(f"no `{key}`")
    rows = doc.get("rows", [])
    seen = {r.get("workload") for r in rows}
    if seen != WORKLOADS:
        problems.append(f"workloads {sorted(seen)} instead of {sorted(WORKLOADS)}")
    for r in rows:
        if not (0 < r["min_ns"] <= r["median_ns"] <= r["max_ns"]) or r["iterations"] <= 0 or r["reps"] <= 0:
            problems.append(f"row {r['workload']} {r['param']}: inconsistent times or counts")
    return problems


def main(paths):
    failed = 0
    passed = 0

    def report(ok, what):
        nonlocal failed, passed
        print(("ok - " if ok else "not ok - ") + what)
        passed += ok
        failed += not ok

    for path in paths:
        doc = json.load(open(path))
        runtime = doc.get("runtime", path)
        problems = check_schema(doc)
        report(not problems, f"{runtime}: the result has the probe schema" + (f" ({'; '.join(problems)})" if problems else ""))
        if problems:
            continue
        first = {}
        for r in doc["rows"]:
            first.setdefault(r["workload"], r)
        for rt, workload, low, high, why in FACTS:
            if rt != runtime:
                continue
            row = first[workload]
            base_name = BASELINES.get(workload, "baseline")
            base = next(r for r in doc["rows"] if r["workload"] == base_name and r["param"] == (row["param"] if base_name != "baseline" else None))
            ratio = per_iteration(row) / per_iteration(base)
            report(low <= ratio <= high, f"{runtime}: {workload} / baseline = {ratio:.2f}, expected {low}..{high}: {why}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
