#!/usr/bin/env bash
# Every x86-64 kernel's `#[target_feature]` list covers the intrinsics its
# body and its `#[inline(always)]` helpers use: builds a release binary that
# calls every kernel of every backend for every type (the probe,
# scripts/check-target-features/main.rs; generic kernels exist only where
# they are instantiated, so the library's rlib alone would not show them)
# and fails if its symbols name a `core::core_arch` function. An intrinsic
# needs its own target features; where the caller lacks one of them LLVM
# cannot inline it, and it stays an out-of-line function in `core_arch`,
# called (with its vectors through memory, and a `vzeroupper`) on every
# use: the AVX-512 length sum of u8/u16 without `avx512vl` ran 3.2x and
# 1.2x slower than the scalar sum on Zen 4 (issue 43). Also checks that the
# single-value routines in assembly (naked functions) have call-frame
# records, so that debuggers and profilers unwind through them.
#
# Usage: scripts/check-target-features.sh   (x86-64 hosts only; about 20 s)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ $(uname -m) != x86_64 ]]; then
    echo "check-target-features: x86-64 only; skipped on $(uname -m)"
    exit 0
fi

# Its own package and target dir (a release build of the crate and cfg-if
# only), the repository's lockfile.
dir=target/check-target-features
mkdir -p "$dir/src"
cp scripts/check-target-features/main.rs "$dir/src/main.rs"
cp Cargo.lock "$dir/Cargo.lock"
cat >"$dir/Cargo.toml" <<TOML
[package]
name = "kernel-symbols"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
varint-turbo = { path = "$PWD" }

[workspace]
TOML
# The default build (the baseline x86-64 target: every kernel dispatched at
# run time) is what users get; the environment's flags do not apply.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS
cargo build --quiet --release --manifest-path "$dir/Cargo.toml" --target-dir "$dir/target"
binary=$dir/target/release/kernel-symbols

# Every call (or tail jump) into a `core_arch` function, with its caller.
# The standard library's own (std_detect's `_xgetbv`, compiled into the
# prebuilt std) are not this crate's.
objdump -d -C --no-show-raw-insn "$binary" | awk '
    /^[0-9a-f]+ <.*>:$/ { caller = $0; sub(/^[0-9a-f]+ </, "", caller); sub(/>:$/, "", caller) }
    /(call|jmp).*<core::core_arch::/ {
        callee = $0; sub(/.*</, "", callee); sub(/>.*/, "", callee)
        print caller " -> " callee
    }' | sort -u >"$dir/calls.txt"
# Sanity: the kernels are in the binary (a probe that called nothing would
# pass vacuously).
nm -C "$binary" >"$dir/symbols.txt"
kernels=(avx2::decode_slice::decode_slice ssse3::encode_slice::encode_slice_into
    avx2::sizes::count_varints ssse3::single::decode bmi2::encode)
if grep -q varint_turbo_avx512 <(cargo rustc --quiet --release --manifest-path "$dir/Cargo.toml" \
    --target-dir "$dir/target" -p varint-turbo -- --print cfg 2>/dev/null); then
    kernels+=(avx512::sizes::encoded_len_sum avx512::decode_slice::decode avx512::decode_slice::short_input
        avx512::encode_slice::encode_slice_into avx512::zigzag::zigzag_decode_in_place)
fi
for kernel in "${kernels[@]}"; do
    if ! grep -q "varint_turbo::arch::x86_64::$kernel" "$dir/symbols.txt"; then
        echo "check-target-features: the probe has no $kernel: it does not call every kernel" >&2
        exit 1
    fi
done
if grep -v '^std_detect::' "$dir/calls.txt" >"$dir/out-of-line.txt"; then
    echo "check-target-features: intrinsics called out of line (the caller's #[target_feature] list lacks one of their features):" >&2
    sed 's/^/    /' "$dir/out-of-line.txt" >&2
    exit 1
fi
# The single-value routines in assembly (`longer_call.rs`, naked functions
# from rustc 1.88) carry their own call-frame records: without one, a
# debugger or profiler cannot unwind from inside them. Each routine's
# address must start a frame description entry.
routines=$(nm "$binary" | awk '/longer_call.*routine_(32|64)/ { print $1 }')
if grep -q varint_turbo_naked <(cargo rustc --quiet --release --manifest-path "$dir/Cargo.toml" \
    --target-dir "$dir/target" -p varint-turbo -- --print cfg 2>/dev/null) && [[ -z $routines ]]; then
    echo "check-target-features: the probe has no longer_call routine" >&2
    exit 1
fi
# FDE starts and routine addresses without leading zeros, to compare.
readelf --debug-dump=frames "$binary" | grep -o 'pc=[0-9a-f]*' | sed 's/^pc=0*//' >"$dir/fde-starts.txt"
for address in $routines; do
    if ! grep -qx "$(sed 's/^0*//' <<<"$address")" "$dir/fde-starts.txt"; then
        echo "check-target-features: no call-frame record (FDE) starts at the routine at 0x$address" >&2
        exit 1
    fi
done
echo "check-target-features: no kernel calls a core_arch intrinsic out of line in $binary ($(grep -c ' varint_turbo::arch::x86_64::' "$dir/symbols.txt") kernel symbols: ${#kernels[@]} checked by name; $(wc -w <<<"$routines") routines with call-frame records)"
