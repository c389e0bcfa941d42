#!/usr/bin/env bash
# Runs the test suite on several x86-64 CPU models, to prove that every
# backend a CPU supports is exercised and that run-time detection
# (`Ssse3::new`, `Bmi2::new`, `pdep_is_fast`) answers right on each.
#
# Part 1: one baseline (x86-64, no target-cpu) build of every test binary
#   (lib unit tests, tests/suite/ (most integration tests, one binary),
#   tests/*.rs and tests/peers/; doctests are left out: rustdoc runs them
#   itself and they cannot be pointed at qemu this way): the build of
#   `cargo test --all-features`, reused (see Cargo.toml's test profile), run
#     * under qemu-user  -cpu qemu64     SSE2 only          -> scalar
#     * under qemu-user  -cpu Nehalem    SSSE3, no BMI2     -> scalar,ssse3
#     * under qemu-user  -cpu Haswell    BMI2, fast PDEP    -> scalar,ssse3,bmi2
#     * under qemu-user  -cpu EPYC-Rome  BMI2, AMD fam 0x17 -> scalar,ssse3,bmi2, PDEP slow
#     * natively, expectations read from /proc/cpuinfo.
#   Each run gets VARINT_TURBO_EXPECT_BACKENDS / _PDEP_FAST / _SINGLE_BACKEND /
#   _BULK_BACKEND (checked by tests/suite/backends_ran.rs and tests/suite/bulk.rs),
#   which tests/suite/backends_ran.rs checks. Before each run a tiny probe program
#   (compiled here with plain rustc, independent of the crate) checks that
#   the CPU model really reports the vendor/family/features we expect, so a
#   qemu surprise is told apart from a bug in the crate.
# Part 2 (the native-opt row, built as part 3's rows are): -C target-cpu=native
#   and --features native-optimizations, the whole suite natively (doctests
#   included), expecting single_value_backend() == "bmi2" iff PDEP is fast
#   here, with VARINT_TURBO_EXHAUSTIVE=full (tests/suite/exhaustive.rs checks all
#   3-byte inputs, not the debug subset). This is also the matrix's `-C
#   target-cpu=native` build: on this machine native-optimizations adds no
#   cfg unless PDEP is microcoded.
# Part 3: the other target-cpu builds and the portable build, with the same
#   profile and every feature but native-optimizations (it would make
#   build.rs read this machine's CPUID), whose test binaries (doctests:
#   force-scalar and native-opt only) run natively with pinned
#   expectations. A row's flags go to this crate's own crates
#   only (a RUSTC_WRAPPER; the dependencies are part 1's build, copied once
#   to <target>/cpu-rows), plus the cfgs its build script emits when it
#   sees the flags in RUSTFLAGS (see "part 3" below):
#     x86-64      the baseline build of part 1 (rustc's default target-cpu
#                 for x86_64-unknown-linux-gnu; checked, not rebuilt)
#     x86-64-v2   SSE4.2/POPCNT                       -> single scalar
#     x86-64-v3   AVX2/BMI2                           -> single bmi2 where PDEP is
#                                                        fast, else scalar (chosen
#                                                        at run time); also run
#                                                        under qemu EPYC-Rome
#                                                        (scalar) and Haswell (bmi2)
#     x86-64-v4   AVX-512 (runs only natively here)   -> as x86-64-v3
#     znver2      BMI2, but build.rs marks PDEP slow  -> single scalar
#     force-scalar  --cfg varint_turbo_force_scalar: every SIMD path compiled
#                 out (`cargo test`, doctests included) -> scalar everywhere,
#                 bulk included
#   The bulk backend is chosen at run time, so it stays the native one
#   except in force-scalar. A row whose CPU features /proc/cpuinfo lacks is
#   reported as skipped (its binaries would die of SIGILL).
#
# Usage: scripts/cpu-matrix.sh            (from anywhere in the repo)
# Environment:
#   CPU_MATRIX_PROFILE=test|release  how the test binaries are built:
#       test (default): Cargo.toml's test profile, `cargo test`'s own:
#           debug assertions and overflow checks on (the tests keep their
#           debug-sized workloads), opt-level 2 for this crate, its tests
#           and the test-time generators (proptest, quickcheck, rand).
#           qemu-user runs code about 10x slower than the host, and
#           unoptimized code is another 10x: with unoptimized binaries the
#           four qemu rows took ~20 min of CPU, with these ~2. After
#           `cargo test --all-features`, part 1 builds nothing.
#       release: `--release`; tests/suite/exhaustive.rs then checks its full
#           3-byte input space (much slower under qemu).
#   CPU_MATRIX_TIMEOUT=SECONDS        per test binary and CPU (default 900)
#   CPU_MATRIX_ALL_QEMU=1             the x86-64-v3 row also under qemu Haswell
#                                     where PDEP is fast natively (see part 3)
#   CPU_MATRIX_CPUS="qemu64 Haswell"  only these rows (names as in the table;
#                                     "native", "native-opt" and the part 3
#                                     rows included)
#   CARGO_TARGET_DIR                  honoured (default: target/)
# Needs: cargo, rustc, timeout (coreutils); installs qemu-user with apt-get
# if qemu-x86_64 is missing. Exits non-zero if any row fails.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

PROFILE=${CPU_MATRIX_PROFILE:-test}
TIMEOUT=${CPU_MATRIX_TIMEOUT:-900}
ONLY=${CPU_MATRIX_CPUS:-}
TARGET_DIR=${CARGO_TARGET_DIR:-target}
WORK=$TARGET_DIR/cpu-matrix-logs
LOGS=$WORK

# Part 1 builds with every feature, as `cargo test --all-features` does (so
# that it is that build, reused); part 3's rows with every feature but
# native-optimizations (which makes build.rs read this machine's CPUID:
# not what a row of another CPU means), except the native-opt row.
PART1_FEATURES=--all-features
ROW_FEATURES=--features=bytes
case $PROFILE in
test) PROFILE_ARGS=() PROFILE_DIR=debug ;;
release) PROFILE_ARGS=(--release) PROFILE_DIR=release ;;
*) echo "CPU_MATRIX_PROFILE must be test or release, not '$PROFILE'" >&2; exit 2 ;;
esac

if [[ $(uname -m) != x86_64 ]]; then
    echo "cpu-matrix: host is $(uname -m), not x86_64: nothing to do (the matrix covers x86-64 CPU models)"
    exit 0
fi

now_ms() { echo $(($(date +%s%N) / 1000000)); }
secs() { printf '%d.%01d' $(($1 / 1000)) $((($1 % 1000) / 100)); }
wanted() { [[ -z $ONLY ]] || [[ " $ONLY " == *" $1 "* ]]; }
hr() { printf '%*s\n' 100 '' | tr ' ' '-'; }

T_START=$(now_ms)
mkdir -p "$LOGS"
rm -f "$LOGS"/*.log

# The baseline part must be a baseline build: a target-cpu=native binary
# would die of SIGILL under the older emulated CPUs.
for var in RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_ENCODED_RUSTFLAGS; do
    if [[ -n ${!var:-} ]]; then
        echo "cpu-matrix: ignoring $var='${!var}' (part 1 must be an x86-64 baseline build)"
    fi
    unset "$var"
done

# ---- qemu -----------------------------------------------------------------------

find_qemu() {
    local candidate
    for candidate in qemu-x86_64 qemu-x86_64-static; do
        if command -v "$candidate" >/dev/null 2>&1; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

if ! QEMU=$(find_qemu); then
    echo "==> qemu-x86_64 not found: installing qemu-user with apt-get"
    SUDO=()
    if [[ $(id -u) -ne 0 ]]; then SUDO=(sudo); fi
    export DEBIAN_FRONTEND=noninteractive
    for attempt in 1 2 3 4; do
        if "${SUDO[@]}" apt-get update -q; then break; fi
        [[ $attempt -eq 4 ]] && { echo "apt-get update failed" >&2; exit 1; }
        sleep $((attempt * 10))
    done
    for attempt in 1 2 3; do
        if "${SUDO[@]}" apt-get install -y -q --no-install-recommends qemu-user; then break; fi
        if "${SUDO[@]}" apt-get install -y -q --no-install-recommends qemu-user-static; then break; fi
        [[ $attempt -eq 3 ]] && { echo "apt-get install qemu-user failed" >&2; exit 1; }
        sleep $((attempt * 10))
    done
    QEMU=$(find_qemu) || { echo "qemu-x86_64 still missing after the install" >&2; exit 1; }
fi
echo "==> qemu: $QEMU ($("$QEMU" --version | head -n1))"

# ---- probe: what does the (emulated) CPU report? ----------------------------------

PROBE_SRC=$WORK/probe.rs
PROBE=$WORK/probe
cat >"$PROBE_SRC" <<'EOF'
// Written by scripts/cpu-matrix.sh. Prints what CPUID says, and the
// expectations derived from it with the crate's rule (PDEP/PEXT are
// microcoded on AMD family 0x17 and Hygon family 0x18).
use std::arch::x86_64::__cpuid;
fn main() {
    let leaf0 = __cpuid(0);
    let mut vendor = Vec::new();
    for reg in [leaf0.ebx, leaf0.edx, leaf0.ecx] {
        vendor.extend_from_slice(&reg.to_le_bytes());
    }
    let vendor = String::from_utf8_lossy(&vendor).into_owned();
    let eax = __cpuid(1).eax;
    let base = (eax >> 8) & 0xf;
    let family = if base == 0xf { base + ((eax >> 20) & 0xff) } else { base };
    let ssse3 = std::is_x86_feature_detected!("ssse3");
    let bmi2 = std::is_x86_feature_detected!("bmi2");
    let microcoded = matches!((vendor.as_str(), family), ("AuthenticAMD", 0x17) | ("HygonGenuine", 0x18));
    let mut backends = vec!["scalar"];
    if ssse3 { backends.push("ssse3"); }
    if bmi2 { backends.push("bmi2"); }
    println!("vendor={vendor} family={family} backends={} pdep_fast={}", backends.join(","), bmi2 && !microcoded);
}
EOF
rustc --edition 2021 -O -o "$PROBE" "$PROBE_SRC"

# ---- expectations -----------------------------------------------------------------

# The native row's expectation comes from /proc/cpuinfo, not from CPUID, so
# that it is an independent check.
cpuinfo_field() { sed -n "s/^$1[[:space:]]*: *//p" /proc/cpuinfo | head -n1; }
NATIVE_FLAGS=" $(cpuinfo_field flags) "
NATIVE_VENDOR=$(cpuinfo_field vendor_id)
NATIVE_FAMILY=$(cpuinfo_field 'cpu family')
NATIVE_MODEL=$(cpuinfo_field 'model name')
NATIVE_BACKENDS=scalar
[[ $NATIVE_FLAGS == *" ssse3 "* ]] && NATIVE_BACKENDS+=,ssse3
NATIVE_PDEP=false
if [[ $NATIVE_FLAGS == *" bmi2 "* ]]; then
    NATIVE_BACKENDS+=,bmi2
    case "$NATIVE_VENDOR/$NATIVE_FAMILY" in
    AuthenticAMD/23 | HygonGenuine/24) NATIVE_PDEP=false ;;
    *) NATIVE_PDEP=true ;;
    esac
fi
NATIVE_SINGLE=scalar
[[ $NATIVE_PDEP == true ]] && NATIVE_SINGLE=bmi2
# The bulk API's run-time choice (varint_turbo::detected_backend()): the
# fastest backend whose features /proc/cpuinfo lists.
has_flags() { local f; for f in "$@"; do [[ $NATIVE_FLAGS == *" $f "* ]] || return 1; done; }
NATIVE_BULK=scalar
has_flags ssse3 popcnt && NATIVE_BULK=ssse3
has_flags avx2 bmi1 bmi2 abm popcnt && NATIVE_BULK=avx2
has_flags avx512f avx512bw avx512vl avx512cd avx512vbmi avx512_vbmi2 bmi1 bmi2 popcnt && NATIVE_BULK=avx512-vbmi2

# row name | qemu -cpu model ("-" = native) | vendor | family | backends | pdep fast | bulk backend
ROWS=(
    "qemu64|qemu64|AuthenticAMD|15|scalar|false|scalar"
    "Nehalem|Nehalem|GenuineIntel|6|scalar,ssse3|false|ssse3"
    "Haswell|Haswell|GenuineIntel|6|scalar,ssse3,bmi2|true|avx2"
    "EPYC-Rome|EPYC-Rome|AuthenticAMD|23|scalar,ssse3,bmi2|false|avx2"
    "native|-|$NATIVE_VENDOR|$NATIVE_FAMILY|$NATIVE_BACKENDS|$NATIVE_PDEP|$NATIVE_BULK"
)
echo "==> native cpu: $NATIVE_MODEL ($NATIVE_VENDOR family $NATIVE_FAMILY): expecting backends $NATIVE_BACKENDS, pdep fast $NATIVE_PDEP"

# ---- part 1: build the test binaries once -------------------------------------------

# Builds the test binaries with `cargo test --no-run ARGS...` and sets BINS to
# them: the lib's unit tests and every integration test (examples and the
# lib itself have "test":false). The JSON messages go to $1.
build_test_binaries() {
    local json=$1
    shift
    cargo test --no-run --message-format=json "$@" >"$json"
    mapfile -t BINS < <(grep '"reason":"compiler-artifact"' "$json" |
        grep '"profile":{[^}]*"test":true' |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | sort -u)
    if [[ ${#BINS[@]} -eq 0 ]]; then
        echo "cpu-matrix: cargo built no test binary ($*)" >&2
        return 1
    fi
}

echo "==> building the test binaries ($PROFILE profile, baseline x86-64): cargo test --no-run $PART1_FEATURES ${PROFILE_ARGS[*]}"
T0=$(now_ms)
build_test_binaries "$WORK/build.json" "$PART1_FEATURES" "${PROFILE_ARGS[@]}"
BUILD_MS=$(($(now_ms) - T0))
BASELINE_BINS=("${BINS[@]}")
echo "    built in $(secs $BUILD_MS) s: ${#BINS[@]} test binaries:"
for bin in "${BINS[@]}"; do echo "      $bin"; done

# ---- running ------------------------------------------------------------------------

TOTAL_PASSED=0
TOTAL_FAILED=0
# Extra environment for a row's test runs (the native-opt row's).
ROW_ENV=()
FAILED_ROWS=()
SUMMARY=()

# Sums "test result: ... N passed; M failed; K ignored" lines of a log.
count_results() {
    local log=$1 passed=0 failed=0 ignored=0 p f i
    while read -r p f i; do
        passed=$((passed + p)) failed=$((failed + f)) ignored=$((ignored + i))
    done < <(sed -n 's/^test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed; \([0-9]*\) ignored.*/\1 \2 \3/p' "$log")
    echo "$passed $failed $ignored"
}

# The line tests/suite/backends_ran.rs writes: "available [...] ... pdep_is_fast() = X".
reported_backends() {
    local line
    # Not anchored: libtest may have printed "test name ... " before it on the line.
    line=$(grep -h 'varint-turbo backends: available' "$@" 2>/dev/null | head -n1 || true)
    [[ -z $line ]] && { echo "?"; return; }
    local avail pdep
    avail=$(sed -n 's/.*available \[\([^]]*\)\].*/\1/p' <<<"$line" | tr -d '" ' | sed 's/^api,//')
    pdep=$(sed -n 's/.*pdep_is_fast() = \([a-z]*\).*/\1/p' <<<"$line")
    echo "$avail/$pdep"
}

show_failure() {
    local log=$1
    echo "    ---- $log (last 40 lines, without qemu's TCG feature warnings) ----"
    grep -v "^qemu-x86_64: warning: TCG doesn't support requested feature" "$log" | tail -n 40 | sed 's/^/    | /'
    echo "    ----"
}

# Runs BINS on one CPU model ("-" = natively). The probe must report
# vendor/family/backends/pdep; the tests are told to expect those backends
# (or $9, for a build that compiles some out), the bulk backend $7 and the
# single-value backend $8 (default scalar).
run_row() {
    local name=$1 model=$2 vendor=$3 family=$4 backends=$5 pdep=$6 bulk=$7
    local single=${8:-scalar} test_backends=${9:-$5}
    local runner=() result=ok note="" t0 ms passed=0 failed=0 ignored=0
    [[ $model != - ]] && runner=("$QEMU" -cpu "$model")
    local label=$name
    [[ $model != - ]] && label="qemu -cpu $model"
    echo "==> $label: expecting backends $test_backends, pdep fast $pdep, bulk $bulk, single $single"
    t0=$(now_ms)

    local probe got want="vendor=$vendor family=$family backends=$backends pdep_fast=$pdep"
    probe=$LOGS/$name-probe.log
    if ! "${runner[@]}" "$PROBE" >"$probe" 2>&1; then
        result=FAIL note="probe did not run"
        show_failure "$probe"
    else
        got=$(grep '^vendor=' "$probe" || true)
        echo "    probe: $got"
        if [[ $got != "$want" ]]; then
            result=FAIL note="cpu model reports '$got', expected '$want'"
            echo "    PROBE MISMATCH: expected $want"
        fi
    fi

    # The native row also runs the #[ignore]d tests (tests/big_inputs.rs:
    # gigabytes of memory, too slow under qemu).
    local extra=()
    [[ $name == native ]] && extra=(--include-ignored)
    local bin base log rc p f i
    for bin in "${BINS[@]}"; do
        base=$(basename "$bin")
        base=${base%-*}
        log=$LOGS/$name-$base.log
        # tests/page_guard.rs forks a child that must die of SIGSEGV; a
        # child that qemu-user forks while other guest threads run can
        # deadlock in qemu (it hung for 15 minutes once, under -cpu
        # Nehalem, on 2026-11-26), so that binary runs on one test thread
        # under qemu (it takes under a second).
        local threads=()
        [[ $base == page_guard && ${#runner[@]} -gt 0 ]] && threads=(--test-threads=1)
        local bt0
        bt0=$(now_ms)
        rc=0
        env "${ROW_ENV[@]}" VARINT_TURBO_EXPECT_BACKENDS="$test_backends" \
            VARINT_TURBO_EXPECT_PDEP_FAST="$pdep" \
            VARINT_TURBO_EXPECT_SINGLE_BACKEND="$single" \
            VARINT_TURBO_EXPECT_BULK_BACKEND="$bulk" \
            CARGO_MANIFEST_DIR="$PWD" \
            timeout --kill-after=30 "$TIMEOUT" "${runner[@]}" "$bin" "${extra[@]}" "${threads[@]}" >"$log" 2>&1 || rc=$?
        read -r p f i < <(count_results "$log")
        passed=$((passed + p)) failed=$((failed + f)) ignored=$((ignored + i))
        printf '    %-28s %4d passed %3d failed %3d ignored %7s s%s\n' "$base" "$p" "$f" "$i" \
            "$(secs $(($(now_ms) - bt0)))" "$([[ $rc -ne 0 ]] && echo "   EXIT $rc$([[ $rc -eq 124 || $rc -eq 137 ]] && echo ' (timeout)')")"
        if [[ $rc -ne 0 ]]; then
            result=FAIL
            [[ $f -eq 0 ]] && failed=$((failed + 1)) # crashed or timed out: count it
            note+="${note:+; }$base exit $rc"
            show_failure "$log"
        fi
    done
    ms=$(($(now_ms) - t0))
    TOTAL_PASSED=$((TOTAL_PASSED + passed))
    TOTAL_FAILED=$((TOTAL_FAILED + failed))
    [[ $result == ok ]] || FAILED_ROWS+=("$name")
    SUMMARY+=("$(printf '%-20s %-20s %-6s %-24s %-6s %4d/%-4d %7s  %s' \
        "$label" "$test_backends" "$pdep" "$(reported_backends "$LOGS/$name"-*.log)" "$result" \
        "$passed" "$((passed + failed))" "$(secs "$ms")" "single $single; bulk $bulk${note:+; $note}")")
}

for row in "${ROWS[@]}"; do
    IFS='|' read -r name model vendor family backends pdep bulk <<<"$row"
    wanted "$name" || continue
    run_row "$name" "$model" "$vendor" "$family" "$backends" "$pdep" "$bulk"
done
PART1_MS=$(($(now_ms) - T_START))

# ---- part 3: other target-cpu builds, and every SIMD path compiled out ---------------

# The baseline build is the x86-64 row: check that rustc agrees.
if wanted x86-64; then
    if [[ $(rustc --print cfg) == "$(rustc --print cfg -C target-cpu=x86-64)" ]]; then
        echo "==> x86-64: -C target-cpu=x86-64 is the baseline build (same cfgs): its rows are part 1's"
        SUMMARY+=("$(printf '%-20s %-20s %-6s %-24s %-6s %9s %7s  %s' "target-cpu=x86-64" "(part 1)" "" "" ok "" "" \
            "same cfgs as the baseline build: tested by every part 1 row")")
    else
        echo "cpu-matrix: rustc's default target-cpu is not x86-64: add a build for it" >&2
        FAILED_ROWS+=(x86-64)
    fi
fi

# name | RUSTFLAGS | /proc/cpuinfo flags it needs | single backend | bulk | backends | doctests | features
PART3_ROWS=(
    # Part 2: -C target-cpu=native + native-optimizations, the whole suite
    # (doctests included) with VARINT_TURBO_EXHAUSTIVE=full (tests/suite/exhaustive.rs
    # checks all 2^24 3-byte inputs, not the debug subset): single_value_backend()
    # is "bmi2" iff PDEP is fast here.
    "native-opt|-C target-cpu=native||$NATIVE_SINGLE|$NATIVE_BULK|$NATIVE_BACKENDS|yes|--features=bytes,native-optimizations"
    "x86-64-v2|-C target-cpu=x86-64-v2|ssse3 sse4_1 sse4_2 popcnt cx16|scalar|$NATIVE_BULK|$NATIVE_BACKENDS|no|$ROW_FEATURES"
    # BMI2 for an unknown CPU: the single-value kernel is chosen at run time
    # (bmi2 where PDEP is fast); x86-64-v3's binaries also run under qemu
    # as EPYC-Rome (Zen 2: scalar) and Haswell (bmi2) below.
    "x86-64-v3|-C target-cpu=x86-64-v3|avx2 bmi1 bmi2 fma movbe abm f16c|$NATIVE_SINGLE|$NATIVE_BULK|$NATIVE_BACKENDS|no|$ROW_FEATURES"
    "x86-64-v4|-C target-cpu=x86-64-v4|avx2 bmi2 avx512f avx512bw avx512cd avx512dq avx512vl|$NATIVE_SINGLE|$NATIVE_BULK|$NATIVE_BACKENDS|no|$ROW_FEATURES"
    # znver2 also enables SSE4a and CLZERO, which LLVM emits only for their
    # intrinsics (this crate uses neither); VMs often hide both flags.
    "znver2|-C target-cpu=znver2|avx2 bmi2 fma movbe adx rdseed sha_ni|scalar|$NATIVE_BULK|$NATIVE_BACKENDS|no|$ROW_FEATURES"
    "force-scalar|--cfg varint_turbo_force_scalar||scalar|scalar|scalar|yes|$ROW_FEATURES"
)
wanted_part3() {
    local row
    for row in "${PART3_ROWS[@]}"; do wanted "${row%%|*}" && return 0; done
    return 1
}
# Only varint-turbo's own crates (lib, tests, doctests) get a row's flags:
# RUSTFLAGS would rebuild every dev-dependency (criterion, proptest, prost,
# protobuf, ...) once per row, for nothing: they are not what a row tests.
# So every row shares one target dir, <target>/cpu-rows, seeded with a
# copy of part 1's build (same profile, same dependencies: cargo rebuilds
# none of them), and a RUSTC_WRAPPER appends the row's flags to rustc's
# command line when cargo compiles a crate of package varint-turbo (the
# lib and its test crates, where generic code is monomorphised; not its
# build script, a host program). Cargo does not see the wrapper's flags
# (nor the wrapper: it is not part of its fingerprints), so each row's
# build starts by deleting varint-turbo's fingerprints.
# build.rs must see the real flags (it reads CARGO_ENCODED_RUSTFLAGS: the
# znver2 row's varint_turbo_slow_pdep), so each row first runs it for real:
# `RUSTFLAGS=<flags> cargo check --lib` in <target>/cpu-buildrs (the lib
# and cfg-if only, a few seconds), and the cfgs it emits go to the wrapper
# along with the flags.
ROWS_TARGET=$TARGET_DIR/cpu-rows
if [[ ! -d $ROWS_TARGET/$PROFILE_DIR && -d $TARGET_DIR/$PROFILE_DIR ]] && wanted_part3; then
    echo "==> seeding $ROWS_TARGET with a copy of $TARGET_DIR/$PROFILE_DIR (part 1's dependency builds)"
    mkdir -p "$ROWS_TARGET/$PROFILE_DIR"
    # Not the dev profile's incremental caches (clippy's, a developer's
    # builds): no row uses them.
    for entry in "$TARGET_DIR/$PROFILE_DIR"/* "$TARGET_DIR/$PROFILE_DIR"/.[!.]*; do
        [[ -e $entry && $(basename "$entry") != incremental ]] || continue
        cp -a --reflink=auto "$entry" "$ROWS_TARGET/$PROFILE_DIR/"
    done
fi
WRAPPER=$PWD/$WORK/rustc-wrapper.sh
[[ $WORK == /* ]] && WRAPPER=$WORK/rustc-wrapper.sh
cat >"$WRAPPER" <<'EOF'
#!/usr/bin/env bash
# Written by scripts/cpu-matrix.sh: cargo's RUSTC_WRAPPER for the part 3
# rows. $1 is rustc; appends $CPU_MATRIX_CRATE_FLAGS when compiling a crate
# of package varint-turbo other than its build script.
rustc=$1
shift
if [[ ${CARGO_PKG_NAME:-} == varint-turbo && " $* " != *" --crate-name build_script_build "* ]]; then
    read -ra extra <<<"${CPU_MATRIX_CRATE_FLAGS:-}"
    exec "$rustc" "$@" "${extra[@]}"
fi
exec "$rustc" "$@"
EOF
chmod +x "$WRAPPER"

# Prints the cfgs build.rs emits under RUSTFLAGS=$1 and features $3 as
# `--cfg NAME` words ($2: the row, for file names).
build_script_cfgs() {
    local json=$WORK/buildrs-$2.json
    RUSTFLAGS=$1 cargo check --lib $3 --message-format=json --target-dir "$TARGET_DIR/cpu-buildrs" \
        >"$json" 2>"$LOGS/$2-buildrs.log" || return 1
    grep '"reason":"build-script-executed"' "$json" | grep '"package_id":"[^"]*varint-turbo' |
        sed -n 's/.*"cfgs":\[\([^]]*\)\].*/\1/p' | tr -d '"' | tr ',' '\n' |
        sed -n 's/^\(..*\)$/--cfg \1/p' | tr '\n' ' ' | sed 's/ $//'
}

for row in "${PART3_ROWS[@]}"; do
    IFS='|' read -r name flags needs single bulk test_backends doctests features <<<"$row"
    wanted "$name" || continue
    missing=""
    for flag in $needs; do [[ $NATIVE_FLAGS == *" $flag "* ]] || missing+=" $flag"; done
    if [[ -n $missing ]]; then
        echo "==> $name: SKIPPED: this CPU lacks$missing"
        SUMMARY+=("$(printf '%-20s %-20s %-6s %-24s %-6s %9s %7s  %s' "$name" "" "" "" SKIP "" "" "CPU lacks$missing")")
        continue
    fi
    T0=$(now_ms)
    if ! cfgs=$(build_script_cfgs "$flags" "$name" "$features"); then
        show_failure "$LOGS/$name-buildrs.log"
        FAILED_ROWS+=("$name")
        TOTAL_FAILED=$((TOTAL_FAILED + 1))
        SUMMARY+=("$(printf '%-20s %-20s %-6s %-24s %-6s %9s %7s  %s' "$name" "" "" "" FAIL "" "" "build.rs run failed")")
        continue
    fi
    crate_flags="$flags${cfgs:+ $cfgs}"
    echo "==> $name: build.rs under RUSTFLAGS='$flags' emits: ${cfgs:-no cfg}"
    echo "    cargo test --no-run $features --target-dir $ROWS_TARGET ($PROFILE profile); varint-turbo's crates get: $crate_flags"
    # Forget varint-turbo's units (not `cargo clean -p varint-turbo`: that
    # also deletes the registry crate `protobuf`, whose name one of our
    # test targets shares), so that cargo rebuilds them with this row's
    # flags; the check after the build makes sure it did.
    rm -rf "$ROWS_TARGET/$PROFILE_DIR/.fingerprint/varint-turbo-"*
    if ! RUSTC_WRAPPER=$WRAPPER CPU_MATRIX_CRATE_FLAGS=$crate_flags build_test_binaries \
        "$WORK/build-$name.json" "$features" --target-dir "$ROWS_TARGET" "${PROFILE_ARGS[@]}" 2>"$LOGS/$name-build.log"; then
        show_failure "$LOGS/$name-build.log"
        FAILED_ROWS+=("$name")
        TOTAL_FAILED=$((TOTAL_FAILED + 1))
        SUMMARY+=("$(printf '%-20s %-20s %-6s %-24s %-6s %9s %7s  %s' "$name" "" "" "" FAIL "" "" "build failed")")
        continue
    fi
    # Every artifact of varint-turbo must be fresh from this build: one that
    # cargo reused may carry another row's flags.
    if grep '"reason":"compiler-artifact"' "$WORK/build-$name.json" | grep '"package_id":"[^"]*varint-turbo' |
        grep -q '"fresh":true'; then
        echo "    cargo reused a varint-turbo artifact built before this row (see $WORK/build-$name.json)"
        FAILED_ROWS+=("$name")
        TOTAL_FAILED=$((TOTAL_FAILED + 1))
        SUMMARY+=("$(printf '%-20s %-20s %-6s %-24s %-6s %9s %7s  %s' "$name" "" "" "" FAIL "" "" "stale artifacts")")
        continue
    fi
    echo "    built in $(secs $(($(now_ms) - T0))) s: ${#BINS[@]} test binaries"
    ROW_ENV=()
    [[ $name == native-opt ]] && ROW_ENV=(VARINT_TURBO_EXHAUSTIVE=full)
    run_row "$name" - "$NATIVE_VENDOR" "$NATIVE_FAMILY" "$NATIVE_BACKENDS" "$NATIVE_PDEP" \
        "$bulk" "$single" "$test_backends"
    ROW_ENV=()
    if [[ $name == x86-64-v3 ]]; then
        # The same BMI2 binaries on a Zen 2 (microcoded PDEP: the portable
        # single-value kernel must run) and on a Haswell (BMI2 kernel). Where
        # PDEP is fast here, the native run just above ran the BMI2 kernel
        # (what the Haswell row checks), so that row is left out unless
        # CPU_MATRIX_ALL_QEMU=1 (.ci/run --extended): 2 minutes of qemu.
        run_row "$name@EPYC-Rome" EPYC-Rome AuthenticAMD 23 scalar,ssse3,bmi2 false avx2 scalar
        if [[ $NATIVE_PDEP == false || ${CPU_MATRIX_ALL_QEMU:-} == 1 ]]; then
            run_row "$name@Haswell" Haswell GenuineIntel 6 scalar,ssse3,bmi2 true avx2 bmi2
        else
            echo "==> $name@Haswell: left out: the native run above ran the BMI2 kernel (PDEP is fast here; CPU_MATRIX_ALL_QEMU=1 runs it)"
            SUMMARY+=("$(printf '%-20s %-20s %-6s %-24s %-6s %9s %7s  %s' "qemu -cpu Haswell" "" "" "" skip "" "" \
                "x86-64-v3's native run had fast PDEP: the same kernels")")
        fi
    fi
    if [[ $doctests == yes ]]; then
        log=$LOGS/$name-doctests.log
        rc=0
        # rustdoc compiles the doctests (RUSTDOCFLAGS) against the lib the
        # wrapper built.
        RUSTC_WRAPPER=$WRAPPER CPU_MATRIX_CRATE_FLAGS=$crate_flags RUSTDOCFLAGS=$crate_flags \
            cargo test --doc "$features" --target-dir "$ROWS_TARGET" "${PROFILE_ARGS[@]}" >"$log" 2>&1 || rc=$?
        read -r p f i < <(count_results "$log")
        echo "    doctests: $p passed, $f failed, $i ignored$([[ $rc -ne 0 ]] && echo "   EXIT $rc")"
        TOTAL_PASSED=$((TOTAL_PASSED + p))
        TOTAL_FAILED=$((TOTAL_FAILED + f))
        if [[ $rc -ne 0 ]]; then
            [[ $f -eq 0 ]] && TOTAL_FAILED=$((TOTAL_FAILED + 1))
            FAILED_ROWS+=("$name-doctests")
            show_failure "$log"
        fi
    fi
done
BINS=("${BASELINE_BINS[@]}")

# ---- summary -------------------------------------------------------------------------

TOTAL_MS=$(($(now_ms) - T_START))
echo
echo "CPU matrix ($PROFILE profile; logs in $LOGS)"
hr
printf '%-20s %-20s %-6s %-24s %-6s %9s %7s  %s\n' cpu "expected backends" pdep "reported backends/pdep" result "tests" seconds notes
hr
for line in "${SUMMARY[@]}"; do echo "$line"; done
hr
echo "build of the baseline test binaries: $(secs $BUILD_MS) s; part 1 total: $(secs $PART1_MS) s; everything: $(secs $TOTAL_MS) s"
echo "cpu-matrix: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
if [[ ${#FAILED_ROWS[@]} -gt 0 ]]; then
    echo "cpu-matrix: FAILED on: ${FAILED_ROWS[*]}" >&2
    exit 1
fi
