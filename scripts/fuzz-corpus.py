#!/usr/bin/env python3
"""Writes the fuzz seed corpus, fuzz/corpus/<target>/seed-*, from the
real-peer vectors in tests/data/ (see tests/data/README.md).

* decode_single, decode_unchecked: every input of single.tsv (Go protowire),
  in file order, GROUP at a time per seed, each behind its length byte: the
  targets split their input into such length-prefixed cases
  (length_prefixed_cases in tests/common/differential.rs).
* decode_bulk, round_trip, sleb128: every distinct packed payload of packed.tsv
  (Python protobuf/upb), behind the control byte 0x80 that the targets read
  first (decode_bulk: out.len() = values + 8; round_trip: room for every
  value + 8 bytes; see fuzzer_chosen_len in tests/common/differential.rs).
* delta: every distinct packed payload behind the 11 control bytes of
  tests/common/delta.rs (out.len(), index, key, previous).
* slice_reader: the same seeds as decode_bulk (the control byte seeds
  the target's choice of reads: see slice_reader in
  tests/common/differential.rs).
* ecosystem: every distinct packed payload behind two control bytes (chunk
  size; out.len()/room as above, 0x80), and then the same values again as
  an Avro array of longs (two blocks, the second with its byte size, and
  the zero count), with the chunk size cycling through 1..=32 (see
  tests/common/ecosystem.rs).

Usage: scripts/fuzz-corpus.py   (from anywhere; rewrites the seed-* files,
leaves other corpus files alone). Deterministic: rerunning it changes nothing.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data")
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
GROUP = 20
CONTROL_ROOM_FOR_ALL = b"\x80"


def rows(name, columns):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != columns:
                sys.exit(f"{name}: expected {columns} columns: {line!r}")
            yield fields


def write_seeds(target, seeds):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old.startswith("seed-"):
            os.remove(os.path.join(folder, old))
    for index, seed in enumerate(seeds):
        with open(os.path.join(folder, f"seed-{index:03}"), "wb") as f:
            f.write(seed)
    print(f"{target}: {len(seeds)} seeds, {sum(map(len, seeds))} bytes")


def main():
    singles = [bytes.fromhex(hex_input) for _type, hex_input, _expected in rows("single.tsv", 3)]
    cases = [bytes([len(single)]) + single for single in singles]
    groups = [b"".join(cases[i : i + GROUP]) for i in range(0, len(cases), GROUP)]
    print(f"single.tsv: {len(singles)} inputs in {len(groups)} groups of up to {GROUP}")
    write_seeds("decode_single", groups)
    write_seeds("decode_unchecked", groups)

    payloads = []
    for _field_type, hex_payload, _values in rows("packed.tsv", 3):
        payload = bytes.fromhex(hex_payload)
        if payload not in payloads:
            payloads.append(payload)
    print(f"packed.tsv: {len(payloads)} distinct payloads")
    seeds = [CONTROL_ROOM_FOR_ALL + payload for payload in payloads]
    write_seeds("decode_bulk", seeds)
    write_seeds("round_trip", seeds)
    # Read as signed LEB128 (negative int32s are 10-byte varints: too long
    # for i32, a bad 10th byte for i64), and as the values of the encoders.
    write_seeds("sleb128", seeds)
    # delta: out.len() and select's index = values + 8, search's key the
    # value at that index minus 1, previous cycling through 0, 2^32 - 1 and
    # 2^64 - 1 (wrapping sums).
    previous = [bytes(8), (2**32 - 1).to_bytes(8, "little"), b"\xff" * 8]
    write_seeds(
        "delta",
        [b"\x80\x80\x00" + previous[i % 3] + payload for i, payload in enumerate(payloads)],
    )
    # slice_reader: the control byte seeds the choice of reads.
    write_seeds("slice_reader", seeds)

    eco = []
    index = 0
    for _field_type, hex_payload, values in rows("packed.tsv", 3):
        payload = bytes.fromhex(hex_payload)
        numbers = [int(v) for v in values.split(",")] if values else []
        step = bytes([index % 32])
        index += 1
        eco.append(step + CONTROL_ROOM_FOR_ALL + payload)
        longs = [to_i64(n) for n in numbers]
        eco.append(step + CONTROL_ROOM_FOR_ALL + avro_long_array(longs))
    unique = []
    for seed in eco:
        if seed not in unique:
            unique.append(seed)
    write_seeds("ecosystem", unique)


def to_i64(n):
    n &= (1 << 64) - 1
    return n - (1 << 64) if n >= 1 << 63 else n


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def avro_long(n):
    return varint(((n << 1) ^ (n >> 63)) & ((1 << 64) - 1))


def avro_long_array(longs):
    """Two blocks (plain; negated count + byte size), then the zero count."""
    half = len(longs) // 2
    out = bytearray()
    first, second = longs[:half], longs[half:]
    if first:
        out += avro_long(len(first)) + b"".join(map(avro_long, first))
    if second:
        items = b"".join(map(avro_long, second))
        out += avro_long(-len(second)) + avro_long(len(items)) + items
    return bytes(out + avro_long(0))


if __name__ == "__main__":
    main()
