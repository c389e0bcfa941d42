#!/usr/bin/env python3
"""Markdown tables from criterion's estimates.

Usage: scripts/bench-table.py CRITERION_DIR [GROUP_PREFIX ...] [--vs ID]

Reads CRITERION_DIR/<group>/<bench>/new/{estimates,benchmark}.json (what
`cargo bench` writes under target/criterion, or target/native/criterion for
`cargo bench-native`) and prints, per group, one row per benchmark: the
median time per iteration, the throughput it implies (criterion's
`Elements` throughput / median) and the ratio to the benchmark named by
--vs (default `varint-simd`) in the same group.
"""
import json
import os
import sys


def load(root):
    rows = {}
    for dirpath, _dirs, files in os.walk(root):
        if "benchmark.json" not in files or os.path.basename(dirpath) != "new":
            continue
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            bench = json.load(f)
        with open(os.path.join(dirpath, "estimates.json")) as f:
            est = json.load(f)
        elements = (bench.get("throughput") or {}).get("Elements")
        group, ident = bench["group_id"], bench["function_id"] or bench["value_str"]
        rows.setdefault(group, []).append((ident, est["median"]["point_estimate"], elements))
    return rows


def main(argv):
    vs = "varint-simd"
    if "--vs" in argv:
        i = argv.index("--vs")
        vs = argv[i + 1]
        del argv[i : i + 2]
    root, prefixes = argv[0], argv[1:]
    rows = load(root)
    for group in sorted(rows):
        if prefixes and not any(group.startswith(p) for p in prefixes):
            continue
        entries = rows[group]
        base = {ident: ns for ident, ns, _ in entries}.get(vs)
        print(f"\n**{group}**\n")
        print(f"| implementation | median | values/s | vs {vs} |")
        print("|---|---:|---:|---:|")
        for ident, ns, elements in entries:
            rate = f"{elements / ns * 1e3:,.0f} M" if elements else "-"
            ratio = f"{base / ns:.2f}x" if base else "-"
            time = f"{ns / 1e6:.3f} ms" if ns >= 1e5 else f"{ns:,.0f} ns"
            print(f"| {ident} | {time} | {rate} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1:])
