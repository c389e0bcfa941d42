#!/usr/bin/env bash
# Cross-builds the crate for aarch64-unknown-linux-gnu on an x86-64 Debian
# bookworm host, lints it for that target (clippy, so the aarch64-only NEON
# code is checked too), runs the whole test suite (unit, integration,
# doctests) under qemu-user, then the criterion benches once in test mode.
# It pins the backends the tests must find there (NEON single-value and
# bulk backends).
#
# Toolchain: Debian's rustc-web/cargo-web 1.96 from bookworm-security, not
# rustup's: rustup cannot download the aarch64 std here, and rustup's rustc
# cannot load Debian's 1.96-built std (E0514). Debian installs it as
# /usr/bin/{rustc,rustdoc,cargo}; rustup's ~/.cargo/bin comes first in PATH,
# so those are named explicitly below.
#
# Usage: scripts/cross-aarch64.sh [extra `cargo test` args, e.g. -- --nocapture]
# Environment:
#   CARGO_TARGET_DIR  default target/cross-aarch64 (kept apart from the
#                     rustup build: a different rustc rebuilds everything)
#   CROSS_AARCH64_SKIP_BENCHES=1  only the tests (.ci/run: clippy --all-targets
#                     has compiled the benches for aarch64 already)
# Needs root or sudo for the one-time install (~1 GB, about a minute).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

TARGET=aarch64-unknown-linux-gnu
DEBIAN_RUSTC=/usr/bin/rustc
DEBIAN_CARGO=/usr/bin/cargo

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "cross-aarch64: need root or sudo to install packages" >&2; exit 1; }
    SUDO=(sudo)
fi

# ---- 1. install what is missing (idempotent) -----------------------------------
need_install=0
"$DEBIAN_RUSTC" --version 2>/dev/null | grep -q '^rustc 1\.96' || need_install=1
[[ -d /usr/lib/rustlib/$TARGET/lib ]] || need_install=1
command -v aarch64-linux-gnu-gcc >/dev/null || need_install=1
command -v qemu-aarch64 >/dev/null || need_install=1
[[ -x /usr/bin/clippy-driver ]] || need_install=1
if [[ $need_install == 1 ]]; then
    echo "==> installing the aarch64 cross toolchain (Debian rustc 1.96, gcc, qemu-user)"
    export DEBIAN_FRONTEND=noninteractive
    dpkg --print-foreign-architectures | grep -qx arm64 || "${SUDO[@]}" dpkg --add-architecture arm64
    # A mirror in mid-sync can fail one index: retry, then go on with what we have.
    "${SUDO[@]}" apt-get update -qq || { sleep 10; "${SUDO[@]}" apt-get update -qq; } || true
    # rustc-web/cargo-web: rustc and cargo 1.96 (amd64) in /usr/bin.
    # libstd-rust-web-dev:arm64: the aarch64 std in /usr/lib/rustlib/$TARGET.
    # gcc-aarch64-linux-gnu, libc6-dev-arm64-cross: linker, crt files, libc.
    # qemu-user: qemu-aarch64 (cargo's runner calls it; binfmt not needed).
    # rust-web-clippy: clippy 1.96 matching that rustc.
    "${SUDO[@]}" apt-get install -y -qq --no-install-recommends \
        rustc-web cargo-web rust-web-clippy libstd-rust-web-dev:arm64 \
        gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user >/dev/null
fi

# ---- 2. environment ----------------------------------------------------------------
export RUSTC=$DEBIAN_RUSTC
export RUSTDOC=/usr/bin/rustdoc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
# "-L /" (the host's multiarch root), NOT "-L /usr/aarch64-linux-gnu": the
# arm64 std package pulls in libc6:arm64 under /lib/aarch64-linux-gnu, which
# the host's ld.so.cache lists; with the cross sysroot's older ld.so that
# newer libc makes every pthread_create spin forever (every test hangs).
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /"
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target/cross-aarch64}
unset RUSTFLAGS

# What tests/suite/backends_ran.rs and tests/suite/bulk.rs must find on aarch64.
export VARINT_TURBO_EXPECT_BACKENDS=scalar,neon
export VARINT_TURBO_EXPECT_PDEP_FAST=false
export VARINT_TURBO_EXPECT_SINGLE_BACKEND=scalar
export VARINT_TURBO_EXPECT_BULK_BACKEND=neon

echo "==> $($RUSTC --version); $($DEBIAN_CARGO --version); $(qemu-aarch64 --version | head -n1)"
echo "==> target dir $CARGO_TARGET_DIR"

# The test profile: the dev profile (debug assertions, overflow checks) at
# opt-level 2 for this crate and the property-test generators, since
# qemu-user runs unoptimized code very slowly. The other dependencies
# (criterion, the peers: built for the benches' targets, not run by the
# tests) stay at opt-level 0, which halves the build.
PROFILE_ARGS=(--config 'profile.dev.debug=false' --config 'profile.dev.package.varint-turbo.opt-level=2')
for dep in proptest quickcheck rand rand_core rand_chacha rand_xorshift ppv-lite86; do
    PROFILE_ARGS+=(--config "profile.dev.package.$dep.opt-level=2")
done

# ---- 3. clippy for aarch64 ---------------------------------------------------------
# Debian's cargo-clippy must come before rustup's proxy in PATH (rustup's
# clippy cannot load Debian's aarch64 std).
T0=$SECONDS
PATH=/usr/bin:$PATH "$DEBIAN_CARGO" clippy --target "$TARGET" --all-targets -- -D warnings
echo "==> aarch64 clippy clean in $((SECONDS - T0)) s"

# ---- 4. tests under qemu ---------------------------------------------------------
T0=$SECONDS
"$DEBIAN_CARGO" test --target "$TARGET" "${PROFILE_ARGS[@]}" "$@"
echo "==> aarch64 tests passed in $((SECONDS - T0)) s"

# ---- 5. benches, once each in test mode (they compile and their checksums hold) ----
if [[ ${CROSS_AARCH64_SKIP_BENCHES:-} != 1 ]]; then
    T0=$SECONDS
    "$DEBIAN_CARGO" bench --target "$TARGET" -- --test
    echo "==> aarch64 benches (test mode) passed in $((SECONDS - T0)) s"
fi
