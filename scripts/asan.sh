#!/usr/bin/env bash
# Runs the whole test suite (lib unit tests, every integration test binary:
# tests/suite/ with the fuzz-corpus replay, the guarded-page tests of
# tests/page_guard.rs and the others; and the doctests) under
# AddressSanitizer:
#
#   RUSTFLAGS=-Zsanitizer=address cargo +nightly test --all-features --target x86_64-unknown-linux-gnu
#
# `--target` keeps build scripts and proc macros (built for the host)
# uninstrumented; the target dir is its own (<target>/asan) so that this
# build does not invalidate the default one. The std library itself is not
# instrumented (no -Zbuild-std); every heap allocation still gets ASan's
# red zones through its malloc, and every access in the crate and the tests
# is checked. The tests run with the same workloads as plain `cargo test`
# (the dev profile: debug assertions on), compiled at opt-level 1 with line
# tables only, which makes the instrumented suite several times faster
# than unoptimized code (ASan's own recommendation is -O1 or more).
#
# Usage: scripts/asan.sh [extra cargo test args, e.g. --test suite bulk::]
# Needs rustup's nightly toolchain; x86_64 Linux only.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

TARGET=x86_64-unknown-linux-gnu
if [[ $(uname -sm) != "Linux x86_64" ]]; then
    echo "asan: this script targets $TARGET; host is $(uname -sm): nothing to do"
    exit 0
fi
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "asan: the nightly toolchain is missing (rustup toolchain install nightly)" >&2
    exit 2
fi

export RUSTFLAGS="-Zsanitizer=address"
export RUSTDOCFLAGS="-Zsanitizer=address"
# detect_leaks: the tests leak nothing on purpose, so a leak is a finding
# too. Abort on the first error so that the test binary fails loudly.
# handle_segv/handle_sigbus=0: tests/page_guard.rs proves its guard page
# faults by letting a forked child die of SIGSEGV; ASan's handler would turn
# that into a report and an abort. Heap and stack checks are unaffected, and
# a stray access to a guard page still kills the test binary.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:handle_segv=0:handle_sigbus=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
echo "==> $(rustc +nightly --version); RUSTFLAGS=$RUSTFLAGS ASAN_OPTIONS=$ASAN_OPTIONS"
# --no-fail-fast: every test binary runs, and the doctests, even after a failure.
# opt-level 1 for this crate and the property-test generators (the tests'
# hot code); the other dependencies (criterion and the peers, built for the
# benches' targets but not run) stay at 0, which shortens the ASan build.
PROFILE_ARGS=(--config 'profile.dev.debug="line-tables-only"' --config 'profile.dev.package.varint-turbo.opt-level=1')
for dep in proptest quickcheck rand rand_core rand_chacha rand_xorshift ppv-lite86; do
    PROFILE_ARGS+=(--config "profile.dev.package.$dep.opt-level=1")
done
cargo +nightly test --target "$TARGET" --target-dir "${CARGO_TARGET_DIR:-target}/asan" \
    "${PROFILE_ARGS[@]}" --all-features --no-fail-fast "$@"
