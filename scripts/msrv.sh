#!/usr/bin/env bash
# MSRV check: builds and runs `cargo test --all-features` (the lib, its unit
# tests, the integration tests, the examples and the doc tests) with a real
# Rust 1.85 toolchain, the crate's `rust-version`, on x86-64.
#
# Toolchain: Debian bookworm's rustc, rustdoc and cargo 1.85 with the amd64
# std (packages rustc-web, cargo-web, libstd-rust-web-* at
# 1.85.0+dfsg3-1~deb12u3), unpacked into target/debian-rust-1.85 by
# scripts/debian-rust-1.85.sh (shared with scripts/cross-s390x.sh); nothing
# is installed system-wide, the rustup toolchains are not touched.
#
# Dependencies: the dev-dependencies' newest releases need newer compilers,
# so this step has a lockfile of its own, .ci/msrv/Cargo.lock, resolved by
# cargo 1.85 with CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback (the
# newest versions whose rust-version is at most 1.85). It is committed, so
# a run does not re-resolve: a new release with a wrong or missing
# rust-version cannot break the step overnight, and the run is the same on
# every machine. It is the lockfile of the manifest without the benches'
# dev-dependencies (scripts/drop-bench-deps.py): the tests run in a copy of
# the working tree
# (target/msrv/workspace, mtimes kept, so cargo rebuilds only what changed)
# with that lockfile as its Cargo.lock and `--locked`; the repository's own
# Cargo.lock is never read or changed. After changing [dev-dependencies]
# (or to pick up newer 1.85-compatible versions), run
#     bash scripts/msrv.sh --update-lockfile
# which re-resolves, writes .ci/msrv/Cargo.lock and then tests.
#
# Then `cargo check --lib` of the other cfg paths with 1.85, warnings as
# errors: -C target-cpu=x86-64-v3 (BMI2 single-value kernels), x86-64-v4,
# --cfg varint_turbo_force_scalar, the two no_std builds, and aarch64 (NEON
# kernels; the arm64 std is unpacked too, after `dpkg --add-architecture
# arm64` if needed). These use feature `bytes`, not `native-optimizations`,
# whose verdict on a Zen 2 build machine would hide the BMI2 path.
#
# Built with rustc 1.85, the crate leaves the AVX-512 backend out (the
# build script's cfg `varint_turbo_avx512` needs rustc 1.89): the tests
# check that Backend::Avx512Vbmi2 is then unsupported (tests/suite/bulk.rs), and
# on an AVX-512 machine the bulk API runs AVX2.
#
# Cargo.toml's test profile: no debug info, and opt-level 2 for this crate
# and the property-test generators; debug assertions stay on. With
# --no-run (.ci/run's call) it builds everything unoptimized and runs only
# the tests of what the compiler version decides (see below). The benches are not built (the main toolchain's
# steps check them).
#
# Usage: scripts/msrv.sh [--update-lockfile] [extra `cargo test` args]
# Environment: MSRV_DIR (default target/: toolchain, workspace, target dir)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD

UPDATE_LOCKFILE=false
if [[ ${1:-} == --update-lockfile ]]; then
    UPDATE_LOCKFILE=true
    shift
fi

BASE=${MSRV_DIR:-$REPO/target}
TOOLCHAIN=$BASE/debian-rust-1.85
WORKSPACE=$BASE/msrv/workspace
LOCKFILE=$REPO/.ci/msrv/Cargo.lock
export CARGO_TARGET_DIR=$BASE/msrv/target

# shellcheck source=scripts/debian-rust-1.85.sh
source "$REPO/scripts/debian-rust-1.85.sh"
debian_rust_185 "$TOOLCHAIN" arm64
CARGO=$TOOLCHAIN/usr/bin/cargo
export RUSTC=$TOOLCHAIN/usr/bin/rustc
export RUSTDOC=$TOOLCHAIN/usr/bin/rustdoc
export CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback
# The default (x86-64 baseline) build, nothing inherited.
unset RUSTFLAGS RUSTDOCFLAGS CARGO_ENCODED_RUSTFLAGS RUSTC_WRAPPER RUSTC_WORKSPACE_WRAPPER

echo "==> $("$RUSTC" --version); $("$CARGO" --version); $("$RUSTDOC" --version)"
case $("$RUSTC" --version) in
"rustc 1.85."*) ;;
*)
    echo "msrv: expected rustc 1.85" >&2
    exit 1
    ;;
esac
grep -q '^rust-version = "1.85"$' Cargo.toml ||
    { echo "msrv: Cargo.toml's rust-version is not 1.85; update this script" >&2; exit 1; }

# ---- the workspace copy, with the step's own Cargo.lock -----------------------------
# Tracked and untracked-but-not-ignored files, mtimes kept (tar).
mkdir -p "$WORKSPACE"
find "$WORKSPACE" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
git ls-files -co --exclude-standard -z | grep -zv '^Cargo.lock$' |
    tar --null -T - -cf - | tar -xf - -C "$WORKSPACE"
cd "$WORKSPACE"
# Without the benches' dev-dependencies (criterion, the peers): the benches
# are not built here (101 s -> 79 s from an empty target dir).
python3 "$REPO/scripts/drop-bench-deps.py" Cargo.toml
if $UPDATE_LOCKFILE; then
    "$CARGO" generate-lockfile
    mkdir -p "$(dirname "$LOCKFILE")"
    cp Cargo.lock "$LOCKFILE"
    echo "==> wrote $LOCKFILE"
else
    [[ -f $LOCKFILE ]] ||
        { echo "msrv: $LOCKFILE missing; run: bash scripts/msrv.sh --update-lockfile" >&2; exit 1; }
    cp -p "$LOCKFILE" Cargo.lock
fi

# ---- cargo test with rustc 1.85 ----------------------------------------------------------
# Cargo.toml's test profile (opt-level 2 for this crate and the property
# tests' generators, no debug info); with --no-run (CI), unoptimized, which
# compiles faster, and then the tests of what the compiler version decides
# run: the unit tests, tests/suite/census.rs (AVX-512 compiled out before
# rustc 1.89), tests/suite/backends_ran.rs (both modules of the `suite`
# binary, picked by filter) and tests/build_script.rs.
PROFILE_ARGS=()
BUILD_ONLY=false
for arg in "$@"; do [[ $arg == --no-run ]] && BUILD_ONLY=true; done
$BUILD_ONLY && PROFILE_ARGS=(--config 'profile.test.opt-level=0')
T0=$SECONDS
if ! "$CARGO" test --all-features --locked "${PROFILE_ARGS[@]}" "$@" ||
    { $BUILD_ONLY && ! { "$CARGO" test --all-features --locked "${PROFILE_ARGS[@]}" \
        --lib --test build_script &&
        "$CARGO" test --all-features --locked "${PROFILE_ARGS[@]}" \
            --test suite -- census:: backends_ran::; }; }; then
    if ! "$CARGO" metadata --locked --format-version 1 >/dev/null 2>&1; then
        echo "msrv: .ci/msrv/Cargo.lock does not fit Cargo.toml; run: bash scripts/msrv.sh --update-lockfile" >&2
    fi
    exit 1
fi
echo "==> cargo test --all-features $*$($BUILD_ONLY && echo ' (then the unit, census, backends_ran and build_script tests)') passed with $("$RUSTC" --version) in $((SECONDS - T0)) s"

# ---- the other cfg paths, type-checked with rustc 1.85 (lib only, seconds) ---------------
# BMI2 single-value kernels (x86-64-v3), the AVX-512VL branch of the AVX2
# decoder (x86-64-v4: compiled out here too), everything compiled out
# (force-scalar), no_std, and the aarch64 NEON kernels. Warnings are errors.
# RUSTFLAGS with an explicit --target do not reach build scripts.
T1=$SECONDS
check() {
    local what=$1 flags=$2
    shift 2
    echo "==> cargo check --lib $* ($what) with rustc 1.85"
    RUSTFLAGS="-D warnings $flags" "$CARGO" check --locked --lib --target-dir "$CARGO_TARGET_DIR/check" "$@"
}
check x86-64-v3 "-C target-cpu=x86-64-v3" --features bytes --target x86_64-unknown-linux-gnu
check x86-64-v4 "-C target-cpu=x86-64-v4" --features bytes --target x86_64-unknown-linux-gnu
check force-scalar "--cfg varint_turbo_force_scalar" --features bytes --target x86_64-unknown-linux-gnu
check no_std "" --no-default-features --target x86_64-unknown-linux-gnu
check no_std+alloc "" --no-default-features --features alloc --target x86_64-unknown-linux-gnu
check aarch64 "" --features bytes --target aarch64-unknown-linux-gnu
echo "==> the cfg checks passed in $((SECONDS - T1)) s"
