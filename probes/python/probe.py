"""Blast Radius probe for Python runtimes (CPython, PyPy).

Runs the probe workloads (probes/README.md) on the running interpreter and prints one JSON
document in the common probe schema. scripts/probe.sh runs it, adds the machine facts and
checks the output:

    python3 probes/python/probe.py [--quick] [--runtime cpython|pypy]

Every workload is the same loop, generated as source so each call is a real call site:

    for i in range(n):
        if i % period == 0:
            <write>            # a no-op for the baseline
        acc += <receiver>.<method>(i)   # a method that reads i, so no JIT folds it away

and each op (one loop) is timed with a monotonic clock after untimed warm-up ops. A write
assigns a function to a class attribute; CPython's `type_setattro` then calls `PyType_Modified`
(Objects/typeobject.c), which clears the version tag of the class and, recursively, of its
subclasses, so specialized instructions guarded on those tags miss and re-specialize.
"""

import json
import os
import platform
import sys
import time

PERIOD = 1000  # iterations between writes, as in ScopedInvalidationBench
BURST = 50  # writes before the steady loop in `burst_then_steady`
ROUNDS = 3  # passes over the workloads (see `measure`)
LOW_WIDE = 0.10  # the fastest quarter of reps spread wider than this: the minimum is not readable
DENSITIES = (10, 100, 1000, 10000)
SITE_COUNTS = (1, 8, 64)


def dyn(_self, _i):
    return 0


def world():
    """Fresh classes for each workload, so one workload's writes cannot leak into the next."""

    class Hot:
        def compute(self, i):
            return i & 1

    class Unrelated:
        pass

    class Parent:
        def base(self, i):
            return i & 2

    class Child(Parent):
        def leaf(self, i):
            return i & 3

    return {"Hot": Hot, "Unrelated": Unrelated, "Parent": Parent, "Child": Child, "dyn": dyn}


def loop(name, n, period, write, calls, scope):
    """The op: `n` iterations of `calls` (source lines), `write` every `period` iterations. The
    branch also counts into `acc`, so that a JIT (PyPy) keeps the period check in a write-free
    baseline too, and a churn row does not pay for the modulo as if it were the write."""
    body = "\n".join(f"        acc += {c}" for c in calls)
    src = (
        "def op():\n"
        "    acc = 0\n"
        f"    for i in range({n}):\n"
        f"        if i % {period} == 0:\n"
        "            acc += 1\n"
        f"            {write}\n"
        f"{body}\n"
        "    return acc\n"
    )
    exec(compile(src, f"<{name}>", "exec"), scope)
    return scope["op"]


def workload(name, n, period=PERIOD, write="pass", receiver="Hot", method="compute"):
    scope = world()
    scope["o"] = scope[receiver]()
    return loop(name, n, period, write, [f"o.{method}(i)"], scope)


def hot_sites(n, sites, write):
    """`sites` call sites on as many classes, with `write` every PERIOD iterations: with an
    unrelated write against its no-write twin, does a write cost more when there are more
    sites it could have invalidated?"""
    scope = world()
    for k in range(sites):
        scope[f"o{k}"] = type(f"C{k}", (), {"m": lambda self, i, k=k: (i + k) & 1})()
    calls = [f"o{k}.m(i)" for k in range(sites)]
    return loop(f"hot_sites_{sites}", n // sites, PERIOD, write, calls, scope)


def fanout(n, sites, period, write):
    """The fanout workload (probes/workloads.json): `sites` subclasses of Root, each with its
    own method m and one call site, and `write` (a class name, or None) every `period`
    iterations."""
    scope = world()
    root = type("Root", (), {"base": lambda self, i: i & 2})
    scope["Root"], scope["Other"] = root, type("Other", (), {})
    for k in range(sites):
        leaf = type(f"L{k}", (root,), {"m": lambda self, i, k=k: (i + k) & 1})
        scope[f"L{k}"], scope[f"o{k}"] = leaf, leaf()
    statement = f"{write}.dyn0 = dyn" if write else "pass"
    return loop(f"fanout_{write}_{sites}", n // sites, period, statement, [f"o{k}.m(i)" for k in range(sites)], scope)


def fanout_plan(n):
    """(workload, param, iterations, op) of every fanout row, in the shared definition's order."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads.json")) as f:
        spec = json.load(f)["fanout"]
    return [
        (r["workload"], sites, (n // sites) * sites, fanout(n, sites, spec["period"], r["write"]))
        for sites in spec["sites"]
        for r in spec["rows"]
    ]


def burst_then_steady(n):
    scope = world()
    for k in range(BURST):
        setattr(scope["Unrelated"], f"dyn{k}", dyn)
    scope["o"] = scope["Hot"]()
    return loop("burst_then_steady", n, PERIOD, "pass", ["o.compute(i)"], scope)


def measure(ops, reps, warmup, rounds=ROUNDS):
    """Times of `reps` runs of each op, taken in `rounds` passes over the workloads. Within a
    pass each workload runs its warm-up and then its timed reps back to back, so no other
    workload's write lands between them (on a runtime with a global scope that would be
    crosstalk, not the workload's own cost); the passes spread a slow spell of a shared
    machine over every workload instead of one."""
    times = [[] for _ in ops]
    for r in range(rounds):
        share = reps // rounds + (1 if r < reps % rounds else 0)
        for k, op in enumerate(ops):
            for _ in range(warmup):
                op()
            for _ in range(share):
                t0 = time.perf_counter_ns()
                op()
                times[k].append(time.perf_counter_ns() - t0)
    return [sorted(t) for t in times]


def quantile(values, q):
    k = (len(values) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def row(workload_name, param, iterations, t, reps, warmup):
    median = quantile(t, 0.5)
    iqr = (quantile(t, 0.75) - quantile(t, 0.25)) / median if median else 0.0
    low = (quantile(t, 0.25) - t[0]) / t[0] if t[0] else 0.0
    return {
        "workload": workload_name,
        "param": param,
        "iterations": iterations,
        "reps": reps,
        "warmup": warmup,
        "min_ns": t[0],
        "median_ns": median,
        "max_ns": t[-1],
        "iqr_rel": round(iqr, 4),
        "wide": iqr > 0.25,
        "low_rel": round(low, 4),
        "low_wide": low > LOW_WIDE,
    }


def main(argv):
    quick = "--quick" in argv
    runtime = argv[argv.index("--runtime") + 1] if "--runtime" in argv else platform.python_implementation().lower()
    # Short ops and many reps: on a shared machine a short op often runs undisturbed, and the
    # fingerprint reads each row's fastest rep.
    n = 20_000
    reps, warmup = (21, 2) if quick else (101, 3)
    if hasattr(sys, "pypy_version_info"):
        warmup *= 4  # the tracing JIT compiles the loop, then recompiles bridges: let it settle
    plan = [
        ("baseline", None, n, workload("baseline", n)),
        ("unrelated_churn", PERIOD, n, workload("unrelated_churn", n, write="Unrelated.dyn0 = dyn")),
        ("same_class_churn", PERIOD, n, workload("same_class_churn", n, write="Hot.dyn0 = dyn")),
        ("parent_churn", PERIOD, n, workload("parent_churn", n, write="Parent.dyn0 = dyn", receiver="Child", method="base")),
        ("burst_then_steady", BURST, n, burst_then_steady(n)),
    ]
    plan += [("density", period, n, workload(f"density_{period}", n, period, write="Hot.dyn0 = dyn")) for period in DENSITIES]
    for sites in SITE_COUNTS:
        iterations = (n // sites) * sites
        plan.append(("hot_sites_baseline", sites, iterations, hot_sites(n, sites, "pass")))
        plan.append(("hot_sites", sites, iterations, hot_sites(n, sites, "Unrelated.dyn0 = dyn")))
    plan += fanout_plan(n)
    times = measure([op for *_, op in plan], reps, warmup)
    rows = [row(name, param, iterations, t, reps, warmup) for (name, param, iterations, _), t in zip(plan, times)]
    pypy = getattr(sys, "pypy_version_info", None)
    doc = {
        "schema": "blast-radius-probe/1",
        "runtime": runtime,
        "version": f"{platform.python_implementation()} {platform.python_version()}" + (f" (PyPy {pypy[0]}.{pypy[1]}.{pypy[2]})" if pypy else ""),
        "command": " ".join([sys.executable] + argv),
        "mode": "quick" if quick else "full",
        "rows": rows,
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
