#!/usr/bin/env python3
"""Charts and tables from criterion's estimates (the second half of scripts/bench-report).

Usage: scripts/bench-report.py REPORT_DIR

REPORT_DIR (target/bench-report) holds one directory per build mode
(`default`, `native`) with:
  criterion/<group>/<bench>/new/{benchmark,estimates}.json  criterion's output
  criterion/varint-workloads/{single,bulk}-<workload>.json  bytes per varint
  run.txt                                                   CPU, date, commands
  paired.txt, short.txt       the paired tables of benches/single.rs and
                              benches/bulk.rs (target pairs; short inputs)
Writes, relative to the repository root:
  images/headline.png, images/<build>-<operation>.png,
  images/<build>-bulk_short.png                          (needs matplotlib)
  benchmarks/results.md                                  every table
  README.md                                              the block between the
                                                         bench-report markers
Every number is a criterion median (per iteration) turned into values/s with
the group's `Elements` throughput, and into bytes/s with the workload's mean
varint length, which the benches write; nothing is typed in by hand.
"""
import json
import os
import re
import sys

BUILDS = ["default", "native"]
BUILD_TITLES = {
    "default": "default build (no RUSTFLAGS)",
    "native": "-C target-cpu=native + native-optimizations",
}
WORKLOADS = [
    "u8", "u16", "u32", "u64", "mix", "1byte", "95x1+5x2",
    "5byte", "10byte", "go-mix", "zigzag-i32", "zigzag-i64",
]
# varint-turbo's rows, in table order; the first present one of each
# operation is the "what users call" row the ratios use.
TURBO = [
    "api", "auto", "decode_all", "encode_slice", "encoded_len_sum", "count_varints",
    "scalar", "ssse3", "bmi2", "avx2", "avx512-vbmi2", "neon",
]
PEERS = [
    "varint-simd", "prost", "integer-encoding", "leb128",
    "unsigned-varint", "quick-protobuf", "protobuf", "byte-loop",
]
# (criterion group prefix, output type or None, file stem, title)
OPERATIONS = [
    ("decode", None, "decode", "single-value decode (safe)"),
    ("decode_unchecked", None, "decode_unchecked", "single-value decode (unchecked, 16 readable bytes)"),
    ("encode_to_slice", None, "encode_to_slice", "single-value encode into a slice"),
    ("encode+store16", None, "encode_store16", "single-value encode to a 16-byte array + 16-byte store"),
    ("encoded_len", None, "encoded_len", "encoded length of one value"),
    ("bulk_decode", "u64", "bulk_decode_u64", "bulk decode, 1,000,000 varints to u64"),
    ("bulk_decode", "u32", "bulk_decode_u32", "bulk decode, 1,000,000 varints to u32"),
    ("bulk_decode", "u8", "bulk_decode_u8", "bulk decode, 1,000,000 varints to u8 (packed bools, small enums)"),
    ("bulk_encode", "u64", "bulk_encode", "bulk encode, 1,000,000 u64 values"),
    ("bulk_sizes", None, "bulk_sizes", "bulk encoded length sum / varint count, 1,000,000 values"),
]
MAIN_ROW = {"decode": "api", "decode_unchecked": "api", "encode_to_slice": "api",
            "encode+store16": "api", "encoded_len": "api", "bulk_decode": "auto",
            "bulk_encode": "auto", "bulk_sizes": "encoded_len_sum"}


# The report directory (main() sets it): where each build's paired.txt is.
REPORT_DIR = "."


def read_run(build_dir):
    info = {}
    path = os.path.join(build_dir, "run.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition("=")
                info[key] = value
    return info


PAIRED_LINE = re.compile(r"^(\S+) vs (\S+)/(\w+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x$")


def read_paired(build_dir):
    """The alternating-rounds table of benches/single.rs (`paired.txt`):
    {(operation, workload): (peer, ours ns/value, peer ns/value, speedup)}, and its header line."""
    path = os.path.join(build_dir, "paired.txt")
    rows, header = {}, ""
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("paired rounds:"):
                    header = line[len("paired rounds:"):].strip()
                m = PAIRED_LINE.match(line)
                if m:
                    op, peer, workload, ours, theirs, speedup = m.groups()
                    rows[(op, workload)] = (peer, float(ours), float(theirs), float(speedup))
    return rows, header


def paired_table(rows):
    workloads = sorted({w for _, w in rows}, key=lambda w: ["mix", "u32", "u64"].index(w) if w in ("mix", "u32", "u64") else 9)
    ops = list(dict.fromkeys(op for op, _ in rows))
    out = ["| operation | peer | " + " | ".join(workloads) + " |", "|---|---|" + "---:|" * len(workloads)]
    for op in ops:
        peer = next(rows[(op, w)][0] for w in workloads if (op, w) in rows)
        cells = [f"{rows[(op, w)][3]:.2f}×" if (op, w) in rows else "–" for w in workloads]
        out.append(f"| {op} | {peer} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def read_short(build_dir):
    """The short-input table of benches/bulk.rs (`short.txt`, from
    `VARINT_BENCH_PAIRED=short`): its header line, its markdown lines as
    printed, and the rows as {column: cell} in order."""
    path = os.path.join(build_dir, "short.txt")
    header, table_lines, rows = "", [], []
    if not os.path.exists(path):
        return header, table_lines, rows
    columns = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("bulk_short paired:"):
                header = line[len("bulk_short paired:"):].strip()
            if not line.startswith("|"):
                continue
            table_lines.append(line)
            cells = [c.strip() for c in line.strip("|").split("|")]
            if columns is None:
                columns = cells
            elif not set(line) <= set("|-: "):
                rows.append(dict(zip(columns, cells)))
    return header, table_lines, rows


def speedup(cell):
    """"2.80x" -> 2.8; None for "-"."""
    return float(cell.rstrip("x")) if cell and cell != "-" else None


# The sizes (values per call) of the README's short-input table.
SHORT_SUMMARY_SIZES = [1, 8, 16, 64, 256, 4096]


def short_summary(rows):
    """Shapes down, sizes across: `auto` (decode_slice) against the prost
    loop on the same bytes."""
    shapes = list(dict.fromkeys(r["field/op"] for r in rows))
    cell = {(r["field/op"], int(r["W"])): r["auto vs prost"] for r in rows}
    sizes = [w for w in SHORT_SUMMARY_SIZES if any((sh, w) in cell for sh in shapes)]
    out = ["| field shape / output | " + " | ".join(f"{w} values" for w in sizes) + " |",
           "|---|" + "---:|" * len(sizes)]
    for shape in shapes:
        out.append(f"| {shape} | " + " | ".join(cell.get((shape, w), "–") for w in sizes) + " |")
    return "\n".join(out)


def load_build(build_dir):
    """{(op, workload, out): {contender: values_per_second}}, {bench_workload: bytes/value}."""
    root = os.path.join(build_dir, "criterion")
    rates = {}
    for dirpath, _dirs, files in os.walk(root):
        if os.path.basename(dirpath) != "new" or "benchmark.json" not in files:
            continue
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            bench = json.load(f)
        with open(os.path.join(dirpath, "estimates.json")) as f:
            median_ns = json.load(f)["median"]["point_estimate"]
        elements = (bench.get("throughput") or {}).get("Elements")
        if not elements:
            continue
        parts = bench["group_id"].split("/")
        op, workload = parts[0], parts[1]
        out = parts[2] if len(parts) > 2 else None
        rates.setdefault((op, workload, out), {})[bench["function_id"]] = elements / median_ns * 1e9
    bytes_per_value = {}
    notes = os.path.join(root, "varint-workloads")
    if os.path.isdir(notes):
        for name in os.listdir(notes):
            with open(os.path.join(notes, name)) as f:
                note = json.load(f)
            # single-<workload>.json, bulk-<workload>.json
            kind, workload = note["workload"].split("-", 1)
            bytes_per_value[(kind, workload)] = note["bytes_per_value"]
    return rates, bytes_per_value


def bench_kind(op):
    return "bulk" if op.startswith("bulk_") else "single"


def contenders_of(groups):
    present = set()
    for row in groups.values():
        present.update(row)
    order = TURBO + PEERS
    return [c for c in order if c in present] + sorted(present - set(order))


def fmt_rate(rate):
    """Values/s (or bytes/s) in millions, 3 significant digits."""
    m = rate / 1e6
    if m >= 100:
        return f"{m:,.0f}"
    if m >= 10:
        return f"{m:.1f}"
    return f"{m:.2f}"


def best_peer(row):
    peers = [(rate, name) for name, rate in row.items() if name in PEERS]
    return max(peers) if peers else None


def operation_groups(rates, op, out):
    groups = {}
    for workload in WORKLOADS:
        row = rates.get((op, workload, out))
        if row:
            groups[workload] = row
    return groups


def table(groups, op, bytes_per_value, unit):
    """A Markdown table: one row per workload, one column per contender."""
    names = contenders_of(groups)
    main = MAIN_ROW[op]
    lines = [
        "| workload | B/value | " + " | ".join(names) + f" | {main} ÷ best peer |",
        "|---|---:|" + "---:|" * len(names) + "---|",
    ]
    for workload, row in groups.items():
        bpv = bytes_per_value.get((bench_kind(op), workload))
        scale = bpv if unit == "bytes" and bpv else 1.0
        cells = [fmt_rate(row[n] * scale) if n in row else "–" for n in names]
        best = best_peer(row)
        ratio = f"{row[main] / best[0]:.2f}× ({best[1]})" if best and main in row else "–"
        bpv_text = f"{bpv:.2f}" if bpv else "–"
        lines.append(f"| {workload} | {bpv_text} | " + " | ".join(cells) + f" | {ratio} |")
    return "\n".join(lines)


def caption(info, build):
    return (f"{BUILD_TITLES[build]} · {info.get('cpu', 'CPU unknown')} · {info.get('date', '')} · "
            f"{info.get('rustc', '')} · commit {info.get('commit', '?')} · {info.get('mode', '?')} mode, "
            f"clock: {'thread CPU time' if info.get('clock', 'cpu') == 'cpu' else 'wall time'}")


def write_results(builds, path):
    lines = [
        "# Benchmark results",
        "",
        "Generated by `scripts/bench-report` (see [BENCHMARKS.md](../BENCHMARKS.md) for the workloads, "
        "the method and how to reproduce); do not edit by hand.",
        "",
        "Cells are millions of values per second (criterion medians); `B/value` is the workload's mean "
        "varint length, and the folded tables give the same numbers in millions of varint bytes per "
        "second (MB/s). The last column divides varint-turbo's public function (`api`: the "
        "single-value functions; `auto`: the run-time dispatched bulk functions) by the fastest peer "
        "of that row. `–`: not measured (the output type does not fit, or the contender has no such "
        "function).",
    ]
    for build, (rates, bpv, info) in builds.items():
        lines += ["", f"## {BUILD_TITLES[build]}", "",
                  f"- CPU: {info.get('cpu', '?')}",
                  f"- date {info.get('date', '?')}, {info.get('rustc', '?')}, commit `{info.get('commit', '?')}`, "
                  f"{info.get('mode', '?')} mode, measured in {info.get('seconds', '?')} s",
                  f"- backends: single-value `api` = {info.get('single_backend', '?')}, "
                  f"bulk `auto` = {info.get('bulk_backend', '?')}",
                  f"- command: `{info.get('command', '?')}`"]
        paired, header = read_paired(os.path.join(REPORT_DIR, build))
        if paired:
            lines += ["", "### target pairs in alternating rounds", "",
                      "The issues' target pairs measured in one process, both contenders in turn, the "
                      f"order alternating ({header}; bulk: one whole 1M-value buffer per contender per "
                      "round); speedup of varint-turbo (the public function, or the bulk backend named) "
                      "over the peer, median time against median time (`VARINT_BENCH_PAIRED=1`, "
                      "benches/single.rs and benches/bulk.rs). Less sensitive to this shared machine's "
                      "swings than the criterion tables below, whose contenders are measured one after "
                      "another.", "",
                      paired_table(paired)]
        short_header, short_lines, _rows = read_short(os.path.join(REPORT_DIR, build))
        if short_lines:
            lines += ["", "### short inputs: real field shapes, 1-4,096 values per call", "",
                      f"![short inputs, {build} build](../images/{build}-bulk_short.png)", "",
                      "`bulk_short` in alternating rounds (`VARINT_BENCH_PAIRED=short`, "
                      f"benches/bulk.rs; {short_header}): windows of W values drawn in turn from a "
                      "1M-value pool of each field shape (BENCHMARKS.md, \"Short inputs and real "
                      "field shapes\"), every contender on the same windows. Medians in ns per call; "
                      "`x` columns are speedups over the prost `decode_varint` loop (or the byte loop) "
                      "of the same rounds.", ""] + short_lines
        for op, out, stem, title in OPERATIONS:
            groups = operation_groups(rates, op, out)
            if not groups:
                continue
            chart = f"../images/{build}-{stem}.png"
            lines += ["", f"### {title}", "", f"![{title}, {build} build]({chart})", "",
                      table(groups, op, bpv, "values"), "",
                      "<details><summary>MB/s of varint bytes</summary>", "",
                      table(groups, op, bpv, "bytes"), "", "</details>"]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# (operation, output type, title, workload or None for the summary's own).
SUMMARY_ROWS = [
    ("decode", None, "decode (one value)"),
    # The trade-off of decode's predicted branches: the mix's random lengths
    # mispredict them, runs of 1-byte varints (real messages' tags, bools,
    # enums, small counts) take them for free.
    ("decode", None, "decode (one value), all 1-byte values", "1byte"),
    ("decode_unchecked", None, "decode_unchecked (one value)"),
    ("encode_to_slice", None, "encode_to_slice (one value)"),
    ("encode+store16", None, "encode + 16-byte store (one value)"),
    ("encoded_len", None, "encoded_len (one value)"),
    ("bulk_decode", "u64", "bulk decode to u64 (1M values)"),
    ("bulk_encode", "u64", "bulk encode (1M values)"),
]


def summary(builds, workload="mix"):
    """README block: the default build (the other build's tables are in
    benchmarks/results.md), the protobuf-like mix, varint-turbo against the
    peers, and single-value decode on all 1-byte values too."""
    lines = []
    shown = {b: v for b, v in builds.items() if b == "default"} or dict(list(builds.items())[:1])
    for build, (rates, _bpv, info) in shown.items():
        lines += [f"**{BUILD_TITLES[build]}**, protobuf-like mix, millions of values/s "
                  f"({info.get('cpu', '?')}, {info.get('date', '?')}, {info.get('mode', '?')} mode):", "",
                  "| operation | varint-turbo | varint-simd | prost | fastest other peer | ÷ varint-simd | ÷ fastest peer |",
                  "|---|---:|---:|---:|---|---:|---:|"]
        for op, out, title, *row_workload in SUMMARY_ROWS:
            row = rates.get((op, row_workload[0] if row_workload else workload, out))
            if not row or MAIN_ROW[op] not in row:
                continue
            main = row[MAIN_ROW[op]]
            others = [(r, n) for n, r in row.items() if n in PEERS and n not in ("varint-simd", "prost")]
            other = max(others) if others else None
            best = best_peer(row)
            cell = lambda n: fmt_rate(row[n]) if n in row else "–"
            vs_simd = f"{main / row['varint-simd']:.2f}×" if "varint-simd" in row else "–"
            lines.append(f"| {title} | {fmt_rate(main)} | {cell('varint-simd')} | {cell('prost')} | "
                         + (f"{fmt_rate(other[0])} ({other[1]})" if other else "–")
                         + f" | {vs_simd} | {main / best[0]:.2f}× |")
        paired, _ = read_paired(os.path.join(REPORT_DIR, build))
        if paired:
            cells = [f"{op} {rows[3]:.2f}× ({rows[0]})" for (op, w), rows in paired.items() if w == workload]
            lines += ["", "Alternating rounds (same windows, both contenders in turn; see benchmarks/results.md), "
                      f"{workload}: " + ", ".join(cells) + "."]
        _header, _lines, short_rows = read_short(os.path.join(REPORT_DIR, build))
        if short_rows:
            lines += ["", "Short inputs of real field shapes (bulk decode, `decode_slice`): speedup over "
                      "a loop of prost's `decode_varint` on the same bytes, alternating rounds "
                      "(every size and contender: benchmarks/results.md):", "",
                      short_summary(short_rows)]
        lines.append("")
    return "\n".join(lines)


def update_readme(path, block):
    start, end = "<!-- bench-report:start -->", "<!-- bench-report:end -->"
    with open(path) as f:
        text = f.read()
    if start not in text or end not in text:
        print(f"bench-report: no {start} / {end} markers in {path}; README not updated", file=sys.stderr)
        return
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(head + start + "\n" + block + end + tail)


# ---------------------------------------------------------------------------
# Charts.

# Peers in distinct warm/neutral colours; varint-turbo's rows in blues and greens.
PEER_COLOURS = {
    "varint-simd": "#d62728", "prost": "#8c564b", "integer-encoding": "#9467bd",
    "leb128": "#e377c2", "unsigned-varint": "#bcbd22", "quick-protobuf": "#ff7f0e",
    "protobuf": "#f2b701", "byte-loop": "#555555",
}


def colours(names):
    import matplotlib
    turbo = matplotlib.colormaps["winter"]
    ours = [n for n in names if n not in PEER_COLOURS]
    out = {n: turbo(i / max(1, len(ours) - 1)) for i, n in enumerate(ours)}
    out.update({n: PEER_COLOURS[n] for n in names if n in PEER_COLOURS})
    return out


def plain_log_axis(axis):
    """Log-scale ticks at 1, 2, 5 x 10^k, written as plain numbers."""
    import matplotlib.ticker as ticker
    axis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


def use_log(values):
    values = [v for v in values if v > 0]
    return bool(values) and max(values) / min(values) >= 10


def rate_axis(ax, which, values, note=""):
    """Labels the throughput axis ("x" or "y"), log-scaled when the values
    span 10x or more."""
    label = "million values per second"
    if use_log(values):
        (ax.set_xscale if which == "x" else ax.set_yscale)("log")
        plain_log_axis(ax.xaxis if which == "x" else ax.yaxis)
        label += " (log scale)"
    (ax.set_xlabel if which == "x" else ax.set_ylabel)(label + note)


def chart(groups, title, info, build, path):
    import matplotlib.pyplot as plt

    names = contenders_of(groups)
    workloads = list(groups)
    colour = colours(names)
    width = 0.85 / len(names)
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(workloads) * max(1, len(names) / 6) + 2), 5.2))
    all_values = []
    for i, name in enumerate(names):
        xs, ys = [], []
        for j, workload in enumerate(workloads):
            if name in groups[workload]:
                xs.append(j - 0.425 + width * (i + 0.5))
                ys.append(groups[workload][name] / 1e6)
        all_values += ys
        ax.bar(xs, ys, width, label=name, color=colour[name],
               edgecolor="black" if name in TURBO else "none", linewidth=0.4)
    rate_axis(ax, "y", all_values)
    ax.set_xticks(range(len(workloads)), workloads)
    ax.set_xlabel("workload (see BENCHMARKS.md); higher is better")
    ax.set_title(f"{title} — {build} build")
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=min(len(names), 7), loc="upper center", bbox_to_anchor=(0.5, -0.16))
    fig.text(0.01, 0.01, caption(info, build), fontsize=7, color="#444444")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def short_chart(rows, info, build, path):
    """One line per field shape: `auto`'s speedup over the prost loop
    against the values per call, both axes logarithmic."""
    import matplotlib.pyplot as plt

    shapes = list(dict.fromkeys(r["field/op"] for r in rows))
    cmap = plt.get_cmap("tab20")
    fig, ax = plt.subplots(figsize=(11, 6))
    for i, shape in enumerate(shapes):
        points = sorted((int(r["W"]), speedup(r["auto vs prost"])) for r in rows if r["field/op"] == shape)
        points = [(w, x) for w, x in points if x]
        ax.plot([w for w, _ in points], [x for _, x in points], marker="o", markersize=3,
                label=shape, color=cmap(i % 20), linewidth=1.2)
    ax.axhline(1.0, color="#8c564b", linestyle="--", linewidth=1, label="prost loop (1x)")
    ax.axhline(2.0, color="#555555", linestyle=":", linewidth=1, label="2x")
    ax.set_xscale("log", base=2)
    sizes = sorted({int(r["W"]) for r in rows})
    ax.set_xticks(sizes, [f"{w:,}" for w in sizes])
    ax.xaxis.set_minor_locator(plt.NullLocator())
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis)
    ax.set_xlabel("values per call (W)")
    ax.set_ylabel("speedup of decode_slice over the prost loop (log scale; higher is better)")
    ax.set_title(f"short inputs of real field shapes — {build} build")
    ax.grid(which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    fig.text(0.01, 0.01, caption(info, build) + " · alternating rounds", fontsize=6, color="#444444")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def headline(builds, path, workload="mix"):
    """Two panels (one value at a time, whole buffers) on the protobuf-like mix:
    every contender, one bar per build mode."""
    import matplotlib.pyplot as plt

    panels = [("decode", None, "decode one value at a time (batches of 1,024)"),
              ("bulk_decode", "u64", "decode a whole buffer (1,000,000 varints to u64)")]
    fig, axes = plt.subplots(1, 2, figsize=(13, 6.2))

    for ax, (op, out, title) in zip(axes, panels):
        rows = {b: rates.get((op, workload, out), {}) for b, (rates, _bpv, _info) in builds.items()}
        names = contenders_of(rows)
        # The public function and the peers (the forced backends are in the detailed charts).
        names = [n for n in names if n in PEERS or n == MAIN_ROW[op]]
        names.sort(key=lambda n: -max(rows[b].get(n, 0) for b in rows))
        height = 0.8 / max(1, len(rows))
        values = []
        for k, (build, row) in enumerate(rows.items()):
            ys = [i - 0.4 + height * (k + 0.5) for i in range(len(names))]
            xs = [row.get(n, 0) / 1e6 for n in names]
            values += [x for x in xs if x > 0]
            ax.barh(ys, xs, height, label=BUILD_TITLES[build],
                    color=["#1f77b4", "#2ca02c"][k % 2], alpha=0.9)
            for y, x in zip(ys, xs):
                if x > 0:
                    ax.text(x * 1.03, y, f"{x:,.0f}", va="center", fontsize=7)
        labels = [("varint-turbo" if n == MAIN_ROW[op] else n) for n in names]
        ax.set_yticks(range(len(names)), labels)
        ax.invert_yaxis()
        rate_axis(ax, "x", values, "; higher is better")
        ax.set_xlim(right=max(values) * 2.5 if use_log(values) else max(values) * 1.15)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="x", which="both", alpha=0.3)
    # The caption: the first build mode whose run notes exist.
    info = next((info for _rates, _bpv, info in builds.values() if info), {})
    fig.suptitle("varint-turbo and its peers on the protobuf-like varint mix", fontsize=12)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=8,
               bbox_to_anchor=(0.5, 0.95), frameon=False)
    fig.text(0.01, 0.01, f"{info.get('cpu', '?')} · {info.get('date', '?')} · {info.get('rustc', '?')} · "
             f"commit {info.get('commit', '?')} · criterion medians, {info.get('mode', '?')} mode · "
             "scripts/bench-report", fontsize=7, color="#444444")
    fig.tight_layout(rect=(0, 0.03, 1, 0.92))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    report = argv[0]
    global REPORT_DIR
    REPORT_DIR = report
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    builds = {}
    for build in BUILDS:
        build_dir = os.path.join(report, build)
        if os.path.isdir(os.path.join(build_dir, "criterion")):
            rates, bpv = load_build(build_dir)
            builds[build] = (rates, bpv, read_run(build_dir))
    if not builds:
        sys.exit(f"bench-report: no criterion results under {report}/{{default,native}}/criterion")

    results = os.path.join(repo, "benchmarks", "results.md")
    write_results(builds, results)
    print(f"wrote {results}")
    update_readme(os.path.join(repo, "README.md"), summary(builds))

    images = os.path.join(repo, "images")
    os.makedirs(images, exist_ok=True)
    for build, (rates, _bpv, info) in builds.items():
        for op, out, stem, title in OPERATIONS:
            groups = operation_groups(rates, op, out)
            if groups:
                chart(groups, title, info, build, os.path.join(images, f"{build}-{stem}.png"))
        _header, _lines, short_rows = read_short(os.path.join(report, build))
        if short_rows:
            short_chart(short_rows, info, build, os.path.join(images, f"{build}-bulk_short.png"))
    headline(builds, os.path.join(images, "headline.png"))
    print(f"wrote {images}/*.png")


if __name__ == "__main__":
    main(sys.argv[1:])
