#!/usr/bin/env python3
"""The README's "Inside prost" table from two results files of the harness.

Usage: integration/prost/readme_table.py DEFAULT.md NATIVE.md

DEFAULT.md and NATIVE.md are `scripts/prost-harness --layouts 3` tables
(integration/prost/target/{default,native}/results.md, copied to
integration/prost/results/). Prints the markdown table: per row the median
ratio (before the bracketed spread) of the vt and vt-bulk columns of each
build; for the Kafka row the vt column is prost's `decode_varint` in the vt
copy and the vt-bulk column varint-turbo's `BufVarint`.
"""

import re
import sys

# (workload, operation) pairs, in the README's order.
ROWS = [
    ("telemetry batch (1,000 records)", "decode &[u8]"),
    ("telemetry batch (1,000 records)", "decode Bytes"),
    ("telemetry batch (1,000 records)", "encode reused Vec"),
    ("telemetry batch (1,000 records)", "encode_to_vec"),
    ("tree (1,500 nodes)", "decode &[u8]"),
    ("tree (1,500 nodes)", "encode reused Vec"),
    ("one telemetry message (48 bytes)", "decode &[u8]"),
    ("one telemetry message (48 bytes)", "encode reused Vec"),
    ("packed int32 small ×8", "decode &[u8]"),
    ("packed int32 small ×8", "encode reused Vec"),
    ("packed int32 small ×1000", "decode &[u8]"),
    ("packed int32 small ×1000", "encode reused Vec"),
    ("packed int32 small ×100000", "decode &[u8]"),
    ("packed int32 small ×100000", "encode reused Vec"),
    ("packed uint64 mix ×1000", "decode &[u8]"),
    ("packed uint64 mix ×1000", "encode reused Vec"),
    ("packed uint64 mix ×1000", "encoded_len"),
    ("packed uint64 mix ×100000", "decode &[u8]"),
    ("packed uint64 mix ×100000", "encode reused Vec"),
    ("packed sint32 near 0 ×1000", "decode &[u8]"),
    ("packed sint32 near 0 ×1000", "encode reused Vec"),
    ("packed int32 10% neg ×1000", "decode &[u8]"),
    ("packed int32 10% neg ×1000", "encode reused Vec"),
    ("packed int32 10% neg ×100000", "decode &[u8]"),
    ("packed int32 10% neg ×100000", "encode reused Vec"),
    ("packed int64 timestamps ×1000", "decode &[u8]"),
    ("packed int64 timestamps ×1000", "encode reused Vec"),
    ("packed uint32 mix ×1000", "decode &[u8]"),
    ("packed uint32 mix ×1000", "encode reused Vec"),
    ("packed sint64 deltas ×1000", "decode &[u8]"),
    ("packed sint64 deltas ×1000", "encode reused Vec"),
    ("packed bool ×1000", "decode &[u8]"),
    ("packed bool ×1000", "encode reused Vec"),
    ("packed enum ×1000", "decode &[u8]"),
    ("packed enum ×1000", "encode reused Vec"),
]
KAFKA = "Kafka-style records via bytes::Buf"


def read(path):
    """{(workload, operation): [vt, vt-bulk]} (medians, as printed)."""
    rows = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 6 or not re.match(r"[\d.]+ ", cells[4]):
                continue
            rows[(cells[0], cells[1])] = [cells[4].split()[0], cells[5].split()[0]]
    return rows


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: readme_table.py DEFAULT.md NATIVE.md")
    default, native = read(sys.argv[1]), read(sys.argv[2])
    print("| workload | operation | vt, default | vt-bulk, default | vt, native | vt-bulk, native |")
    print("|---|---|---:|---:|---:|---:|")
    for key in ROWS:
        if key not in default or key not in native:
            sys.exit(f"readme_table: row {key} missing")
        print(f"| {key[0]} | {key[1]} | " + " | ".join(default[key] + native[key]) + " |")
    kafka = [k for k in default if k[0] == KAFKA]
    if len(kafka) != 1 or kafka[0] not in native:
        sys.exit("readme_table: the Kafka row is missing")
    print(
        "| Kafka-style records through `bytes::Buf` | vt: prost's `decode_varint`; "
        "vt-bulk column: varint-turbo's `BufVarint` | "
        + " | ".join(default[kafka[0]] + native[kafka[0]])
        + " |"
    )


if __name__ == "__main__":
    main()
