#!/usr/bin/env python3
"""Merges the tables of several runs of the prost harness, one per code
layout (scripts/prost-harness --layouts N), into one table.

Code layout alone moves a row's ratio by 5-10% on the machines measured
(issue 24; BENCHMARKS.md), more than the rounds' quartiles show. Each
layout's binary is the same code linked with LLD's
`--shuffle-sections=*=SEED`, so the spread over layouts is that noise.

Per row and copy: the median over the layouts of each layout's median
ratio, and in brackets the lowest and highest layout median. The prost
column: the median over the layouts of prost's ns per unit.

Usage: merge_layouts.py [--base NAME] RESULTS.md... > merged.md

--base: what the ratios are to, for the title (default: unpatched prost
0.14.6; scripts/avro-harness gives its own).
"""

import re
import statistics
import sys

CELL = re.compile(r"^([0-9.]+) \(([0-9.]+)-([0-9.]+)\)$")
BASE = re.compile(r"^([0-9.]+) (ns/\S+)$")


def rows(path):
    """(header lines, {row key: cells}, row order) of one results.md."""
    header, table, order = [], {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) < 4 or not BASE.match(cells[2]):
                header.append(line)
                continue
            key = (cells[0], cells[1])
            table[key] = cells
            order.append(key)
    return header, table, order


def main():
    paths = sys.argv[1:]
    base, first_column = "unpatched prost 0.14.6", "prost"
    if paths[:1] == ["--base"] and len(paths) > 1:
        base, first_column, paths = paths[1], "the first column", paths[2:]
    if not paths:
        sys.exit("usage: merge_layouts.py [--base NAME] RESULTS.md...")
    runs = [rows(p) for p in paths]
    _, first, order = runs[0]
    for path, (_, table, _) in zip(paths, runs):
        if set(table) != set(first):
            sys.exit(f"merge_layouts.py: {path} has other rows than {paths[0]}")
    print(
        f"Time ratio to {base} (< 1 is faster): the median over "
        f"{len(paths)} code layouts (LLD --shuffle-sections seeds 1..{len(paths)}) "
        "of each layout's median over its alternating rounds; in brackets the "
        f"lowest and highest layout median. {first_column[0].upper()}{first_column[1:]}: "
        "the median of its ns per unit."
    )
    header_seen = set()
    for key in order:
        cells = first[key]
        # The header of the table this row belongs to (the Kafka row has
        # its own), printed before its first row.
        header = table_header(runs[0][0], cells)
        if header not in header_seen:
            header_seen.add(header)
            print()
            print(header[0])
            print(header[1])
        bases = [float(BASE.match(t[key][2]).group(1)) for _, t, _ in runs]
        unit = BASE.match(cells[2]).group(2)
        out = [cells[0], cells[1], f"{statistics.median(bases):.1f} {unit}"]
        for column in range(3, len(cells)):
            medians = [float(CELL.match(t[key][column]).group(1)) for _, t, _ in runs]
            out.append(
                f"{statistics.median(medians):.2f} ({min(medians):.2f}-{max(medians):.2f})"
            )
        print("| " + " | ".join(out) + " |")


def table_header(header_lines, cells):
    """The (title, rule) lines of the table whose column count matches,
    the Kafka table's for its row."""
    pairs = [
        (header_lines[i], header_lines[i + 1])
        for i in range(0, len(header_lines) - 1)
        if header_lines[i + 1].startswith("|---")
    ]
    kafka = [p for p in pairs if "decode_varint" in p[0]]
    messages = [p for p in pairs if "decode_varint" not in p[0]]
    if cells[0].startswith("Kafka") and kafka:
        return kafka[0]
    return messages[0]


if __name__ == "__main__":
    main()
