#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets/) for a bounded time and
# reports, per target, libFuzzer's final statistics: executions, exec/s,
# coverage (edges "cov" and features "ft"), corpus growth, peak RSS.
# Fails if a target crashes (a panic in the differential oracle,
# AddressSanitizer, a timeout or running out of memory); the crashing input
# is left in fuzz/artifacts/<target>/.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET ...]
#   SECONDS_PER_TARGET  default 60 (.ci/run: 10, 60 with --extended); TARGETs default: all.
# Environment:
#   FUZZ_NICE=N         run the fuzzers under `nice -n N` (default 0)
#   FUZZ_JOBS=N         targets fuzzed at once (default: the number of CPUs;
#                       each libFuzzer run is one process on one core)
# Needs rustup's nightly toolchain; installs cargo-fuzz from crates.io
# (`cargo install cargo-fuzz --locked`) if it is missing.
#
# The fuzzers build with AddressSanitizer (cargo-fuzz's default) and debug
# assertions (-a), read the committed seeds of fuzz/corpus/<target>/ (see
# scripts/fuzz-corpus.py) and write what they find to a scratch corpus,
# fuzz/target/fuzz-work/<target>/, which later runs on this machine reuse;
# the committed corpus is never modified.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

SECONDS_PER_TARGET=${1:-60}
shift || true
ALL_TARGETS=(decode_single decode_unchecked decode_bulk round_trip ecosystem sleb128 delta slice_reader)
TARGETS=("$@")
[[ ${#TARGETS[@]} -eq 0 ]] && TARGETS=("${ALL_TARGETS[@]}")
NICE=${FUZZ_NICE:-0}

# Longest input the fuzzer may make, per target. The single-value targets
# split their input into cases of at most 255 bytes; the bulk ones need a
# few 64-byte SIMD windows, not more (their oracle costs time per byte).
max_len() {
    case $1 in
    decode_single | decode_unchecked) echo 256 ;;
    decode_bulk) echo 1024 ;;
    # A control byte, then a stream of signed varints (bulk on every
    # backend needs a few 64-byte windows).
    sleb128) echo 1024 ;;
    round_trip) echo 512 ;;
    # Two control bytes, then a stream that every module walks varint by
    # varint (ecosystem: bytes_ext, io, protobuf, avro).
    ecosystem) echo 256 ;;
    # 11 control bytes (out.len(), index, key, previous), then the gaps.
    delta) echo 1024 ;;
    # A control byte, then a stream the reader walks read by read.
    slice_reader) echo 512 ;;
    *) echo "unknown fuzz target '$1' (known: ${ALL_TARGETS[*]})" >&2; return 1 ;;
    esac
}
for target in "${TARGETS[@]}"; do max_len "$target" >/dev/null; done

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "fuzz: the nightly toolchain is missing (rustup toolchain install nightly)" >&2
    exit 2
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "==> cargo-fuzz not found: cargo install cargo-fuzz --locked"
    cargo +nightly install cargo-fuzz --locked
fi
echo "==> $(cargo +nightly fuzz --version); $(rustc +nightly --version)"

# -a: debug assertions (overflow checks) in the crate and the oracle.
FUZZ_FLAGS=(-a)
t0=$SECONDS
# Without a target name, cargo fuzz builds them all.
cargo +nightly fuzz build "${FUZZ_FLAGS[@]}"
echo "==> built in $((SECONDS - t0)) s"

WORK=fuzz/target/fuzz-work
# One of libFuzzer's -print_final_stats=1 lines: stat::NAME: VALUE.
final_stat() { sed -n "s/^stat::$2: *//p" "$1" | tail -n1; }
JOBS=${FUZZ_JOBS:-$(nproc)}
# Fuzzes one target; its summary line goes to $WORK/<target>.summary, and
# <target>.failed exists if it crashed. Run in the background, JOBS at once.
fuzz_one() {
    local target=$1 log=$WORK/$1.log t0=$SECONDS rc=0
    rm -f "$WORK/$target.failed" "$WORK/$target.summary"
    nice -n "$NICE" cargo +nightly fuzz run "${FUZZ_FLAGS[@]}" "$target" \
        "$WORK/$target" "fuzz/corpus/$target" -- \
        -max_total_time="$SECONDS_PER_TARGET" \
        -max_len="$(max_len "$target")" \
        -timeout=20 \
        -rss_limit_mb=3072 \
        -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$target/" >"$log" 2>&1 || rc=$?
    local dt=$((SECONDS - t0)) cov edges features corpus result=ok
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n1 | tr -dc '0-9 ' | tr -s ' ' || true)
    read -r edges features corpus <<<"${cov:-? ? ?}"
    if [[ $rc -ne 0 ]]; then
        result="CRASH (exit $rc)"
        : >"$WORK/$target.failed"
    fi
    printf '%-18s %-18s %6d s %12s %8s %7s %8s %7s %6s MB\n' "$target" "$result" "$dt" \
        "$(final_stat "$log" number_of_executed_units)" "$(final_stat "$log" average_exec_per_sec)" "$edges" "$features" \
        "$corpus" "$(final_stat "$log" peak_rss_mb)" >"$WORK/$target.summary"
}
echo
echo "==> fuzzing ${#TARGETS[@]} targets, ${SECONDS_PER_TARGET} s each, $JOBS at once"
for target in "${TARGETS[@]}"; do
    mkdir -p "$WORK/$target" "fuzz/artifacts/$target"
    while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
    echo "==> $target: ${SECONDS_PER_TARGET} s, -max_len=$(max_len "$target")"
    fuzz_one "$target" &
done
wait
SUMMARY=()
FAILED=()
for target in "${TARGETS[@]}"; do
    log=$WORK/$target.log
    if [[ -e $WORK/$target.failed || ! -s $WORK/$target.summary ]]; then
        FAILED+=("$target")
        echo "    ---- $target: $log (last 60 lines) ----"
        tail -n 60 "$log" | sed 's/^/    | /'
        echo "    ---- artifacts: $(ls "fuzz/artifacts/$target" | tr '\n' ' ')"
    fi
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$log" | sed "s/^/    $target: /" || true
    SUMMARY+=("$(cat "$WORK/$target.summary" 2>/dev/null || echo "$target: no summary")")
done
echo
echo "fuzz summary (${SECONDS_PER_TARGET} s per target; logs in $WORK/)"
printf '%-18s %-18s %8s %12s %8s %7s %8s %7s %9s\n' target result time execs "exec/s" cov ft corpus "peak rss"
for line in "${SUMMARY[@]}"; do echo "$line"; done
if [[ ${#FAILED[@]} -gt 0 ]]; then
    echo "fuzz: CRASHED: ${FAILED[*]} (inputs in fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzz: no crashes"
