#!/usr/bin/env python3
"""Removes the benches' dev-dependencies from a copy of Cargo.toml.

Usage: scripts/drop-bench-deps.py PATH/Cargo.toml   (edits it in place)

The MSRV step (scripts/msrv.sh) and the big-endian step
(scripts/cross-s390x.sh) build the library, its tests and examples in a
copy of the working tree with Debian's rustc 1.85. Cargo builds every
dev-dependency for any test target, and eight of them serve only the
benches (criterion and the peers the benches compare with: prost,
protobuf, quick-protobuf, integer-encoding, leb128, unsigned-varint,
varint-simd): with them, the MSRV step's `cargo test` took 101 s on the
2-core host from an empty target dir, without them 79 s (2026-11-26).
The benches are built and run by the main toolchain's steps (bench-check,
bench-paired) and are not part of what users compile, so the copies leave
their dependencies out. (`cargo test` does not build bench targets unless
asked to, so the [[bench]] tables can stay.)

Each removal must match exactly once; anything else stops the script with a
message, so a renamed or re-versioned dependency is noticed here instead of
silently being built again. A test or example that starts using one of these
crates fails to compile in those steps: move the crate out of BENCH_ONLY.
"""

import re
import sys

# The exact lines in [dev-dependencies] (and the x86-64-only table)
BENCH_ONLY = [
    'criterion = { version = "0.5", default-features = false, features = ["cargo_bench_support"] }',
    'prost = "0.13"',
    'integer-encoding = "4.1"',
    'leb128 = "0.2.7"',
    'unsigned-varint = "0.8"',
    'quick-protobuf = "0.8.1"',
    'protobuf = "3.7"',
    'varint-simd = "0.4.1"',
    # Signed LEB128 peers (the sleb128 bench and the peer test below);
    # both need rustc 1.88.
    'gimli = { version = "0.34", default-features = false, features = ["read-core"] }',
    'wasmparser = { version = "0.263", default-features = false }',
]
# The tests that compare with those peers (tests/peers/*.rs, not found by
# cargo's auto-discovery): their [[test]] tables go too.
PEER_TESTS = [
    ("sleb128_peers", "tests/peers/sleb128.rs"),
    ("wrapping_peers", "tests/peers/wrapping.rs"),
]
# The x86-64-only table holds only varint-simd; its header goes too.
TARGET_TABLE = "[target.'cfg(target_arch = \"x86_64\")'.dev-dependencies]"


def fail(message):
    sys.exit(f"drop-bench-deps: {message}")


def main():
    if len(sys.argv) != 2:
        fail("usage: drop-bench-deps.py PATH/Cargo.toml")
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")

    for wanted in BENCH_ONLY + [TARGET_TABLE]:
        count = sum(1 for line in lines if line == wanted)
        if count != 1:
            fail(f"expected exactly one line {wanted!r} in {path}, found {count}")
    drop = set(BENCH_ONLY) | {TARGET_TABLE}
    text = "\n".join(line for line in lines if line not in drop)
    for name, test_path in PEER_TESTS:
        table = f'[[test]]\nname = "{name}"\npath = "{test_path}"\n'
        count = text.count(table)
        if count != 1:
            fail(f"expected exactly one [[test]] table {name!r} in {path}, found {count}")
        text = text.replace(table, "")

    text = re.sub(r"\n{3,}", "\n\n", text)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"drop-bench-deps: {path}: {len(BENCH_ONLY)} bench-only dev-dependencies removed")


if __name__ == "__main__":
    main()
