#!/usr/bin/env python3
"""Where a wasm module's gzipped bytes go, by part of the code.

    python3 scripts/size_report.py MODULE.wasm

MODULE must keep its function names (a `name` section): `scripts/size-report.sh` builds the
page's module as the release build does, with `wasm-opt -g`. Each function body is put in one
group by its name: the first `blast_*` crate the name mentions (so `drop_in_place::<blast_engine::
..>` and Yew's `CompStateInner<blast_web::components::..>` count where their type lives), else
its first crate. Each group's bytes are gzipped on their own (-9), so the groups sum to somewhat
more than the whole module gzipped, which the last line prints for comparison.
"""

import gzip
import re
import sys

# (group, pattern on the part of the name that decides it); first match wins.
BLAST_GROUPS = [
    ("blast-web: component views", r"^blast_web::components::"),
    ("blast-web: charts (plot.rs, offscreen.rs)", r"^blast_web::(plot|offscreen|picture)"),
    ("blast-web: app, hooks, browser, store", r"^blast_web::"),
    ("engine: simulation (sim, world, policy, jit)", r"^blast_engine::(sim|world|policy|jit|oracle|vsum|prefetch|name_table|fxhash)\b"),
    ("engine: DSL, validate, model, names", r"^blast_engine::(dsl|validate|model|name|names)\b"),
    ("engine: models, expectations, fingerprint", r"^blast_engine::(models|expect|fingerprint)\b"),
    ("engine: presets, runtimes, reports, params", r"^blast_engine::"),
    ("playground: lanes, runner, codecs", r"^blast_playground::(runner|lanes|lane_wire|lane_host|wire|offload|fit_wire|rehearsal|compiled|model_runner)\b"),
    ("playground: state, editor, views", r"^blast_playground::"),
]
OTHER_GROUPS = [
    ("Yew runtime (yew, gloo, implicit_clone)", r"^(yew|gloo\w*|implicit_clone|prokio|slab|indexmap)$"),
    ("plotters", r"^plotters\w*$"),
    ("serde, serde_json", r"^serde\w*$"),
    ("wasm-bindgen, js-sys, web-sys", r"^(wasm_bindgen\w*|js_sys|web_sys)$"),
    ("std: core, alloc, hashbrown, allocator", r".*"),
]


def leb(data, i):
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def sections(data):
    if data[:4] != b"\0asm":
        sys.exit("not a wasm module")
    i = 8
    while i < len(data):
        sid = data[i]
        size, j = leb(data, i + 1)
        yield sid, data[j : j + size]
        i = j + size


def function_names(payload):
    """Function index -> name, from a `name` custom section's payload."""
    n, i = leb(payload, 0)
    i += n  # the section's own name, "name"
    names = {}
    while i < len(payload):
        kind = payload[i]
        size, i = leb(payload, i + 1)
        if kind == 1:
            count, k = leb(payload, i)
            for _ in range(count):
                index, k = leb(payload, k)
                length, k = leb(payload, k)
                names[index] = payload[k : k + length].decode("utf-8", "replace")
                k += length
        i += size
    return names


def imported_functions(payload):
    count, i = leb(payload, 0)
    functions = 0
    for _ in range(count):
        for _ in range(2):  # module, field
            length, i = leb(payload, i)
            i += length
        kind = payload[i]
        i += 1
        if kind == 0:  # function: type index
            _, i = leb(payload, i)
            functions += 1
        elif kind == 1:  # table: reftype, limits
            i += 1
            flags, i = leb(payload, i + 0)
            _, i = leb(payload, i)
            if flags & 1:
                _, i = leb(payload, i)
        elif kind == 2:  # memory: limits
            flags, i = leb(payload, i)
            _, i = leb(payload, i)
            if flags & 1:
                _, i = leb(payload, i)
        elif kind == 3:  # global: valtype, mutability
            i += 2
        else:
            sys.exit(f"unknown import kind {kind}")
    return functions


def bodies(payload):
    count, i = leb(payload, 0)
    for _ in range(count):
        size, j = leb(payload, i)
        yield payload[i : j + size]
        i = j + size


def group_of(name):
    name = re.sub(r"\[[0-9a-f]{16}\]", "", name)
    blast = re.search(r"blast_(web|engine|playground)::[\w:]*", name)
    if blast:
        for group, pattern in BLAST_GROUPS:
            if re.match(pattern, blast.group(0)):
                return group
    crate = re.search(r"([a-z_][a-z0-9_]*)::", name)
    crate = crate.group(1) if crate else ""
    for group, pattern in OTHER_GROUPS:
        if re.match(pattern, crate):
            return group
    return OTHER_GROUPS[-1][0]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    data = open(sys.argv[1], "rb").read()
    parts = list(sections(data))
    names = {}
    for sid, payload in parts:
        if sid == 0 and payload[1 : 1 + payload[0]] == b"name":
            names = function_names(payload)
    if not names:
        sys.exit("the module has no function names: build it with wasm-opt -g (scripts/size-report.sh)")
    imported = next((imported_functions(p) for sid, p in parts if sid == 2), 0)
    groups = {}
    kept = bytearray(data[:8])
    for sid, payload in parts:
        if sid == 0:
            continue
        kept += bytes([sid]) + payload  # the size field is left out: a few bytes per section
        if sid == 10:
            for k, body in enumerate(bodies(payload)):
                groups.setdefault(group_of(names.get(imported + k, "")), bytearray()).extend(body)
        elif sid == 11:
            groups.setdefault("data: strings, presets' texts, tables", bytearray()).extend(payload)
        else:
            groups.setdefault("module: types, imports, exports, tables", bytearray()).extend(payload)
    rows = sorted(((len(gzip.compress(bytes(b), 9)), len(b), g) for g, b in groups.items()), reverse=True)
    print(f"{'group':<48} {'raw KiB':>9} {'gzip KiB':>9}")
    for gz, raw, group in rows:
        print(f"{group:<48} {raw / 1024:9.1f} {gz / 1024:9.1f}")
    print(f"{'sum of the groups':<48} {sum(r for _, r, _ in rows) / 1024:9.1f} {sum(g for g, _, _ in rows) / 1024:9.1f}")
    print(f"{'the module without names, gzipped whole':<48} {len(kept) / 1024:9.1f} {len(gzip.compress(bytes(kept), 9)) / 1024:9.1f}")


if __name__ == "__main__":
    main()
