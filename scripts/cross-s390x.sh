#!/usr/bin/env bash
# Big-endian check: builds the crate's unit and integration tests for
# s390x-unknown-linux-gnu (big-endian) and runs them under qemu-s390x. Only
# the portable (scalar) backends exist there, so this checks that every
# 8-byte load and store of the scalar path is endian-correct.
#
# Toolchain: Debian bookworm's rustc 1.85 (the crate's MSRV), the newest
# rustc with an s390x std in Debian's archive, unpacked with its amd64 and
# s390x std into target/debian-rust-1.85 by scripts/debian-rust-1.85.sh
# (shared with scripts/msrv.sh, which uses the same folder), so it does not
# clash with the installed rustc 1.96 (which scripts/cross-aarch64.sh
# uses); LD_LIBRARY_PATH points at the unpacked libraries. Cargo is
# Debian's 1.96 (/usr/bin/cargo).
#
# The dev-dependencies' newest releases need newer compilers, so this run
# tests a copy of the working tree (target/s390x/workspace) whose Cargo.lock
# is scripts/msrv.sh's .ci/msrv/Cargo.lock (resolved for 1.85; see there),
# used with --locked: the repository's Cargo.lock is never read or changed.
# Only `--lib --tests` run: doctests fail with this rustdoc/cargo mix.
#
# Usage: scripts/cross-s390x.sh [extra `cargo test` args]
# Environment: S390X_DIR (default target/s390x-*: toolchain, workspace, target)
# Needs root or sudo for the one-time install (~0.5 GB).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD

TARGET=s390x-unknown-linux-gnu
BASE=${S390X_DIR:-$REPO/target}
TOOLCHAIN=$BASE/debian-rust-1.85
WORKSPACE=$BASE/s390x/workspace
export CARGO_TARGET_DIR=$BASE/s390x/target

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "cross-s390x: need root or sudo to install packages" >&2; exit 1; }
    SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
apt_updated=0
apt_update() {
    [[ $apt_updated == 1 ]] && return
    "${SUDO[@]}" apt-get update -qq || { sleep 10; "${SUDO[@]}" apt-get update -qq; } || true
    apt_updated=1
}

# ---- 1. host tools: cargo 1.96, the s390x cross linker, qemu-s390x ----------------
if ! /usr/bin/cargo --version >/dev/null 2>&1 || ! command -v s390x-linux-gnu-gcc >/dev/null ||
    ! command -v qemu-s390x >/dev/null; then
    echo "==> installing cargo-web, gcc-s390x-linux-gnu, libc6-dev-s390x-cross, qemu-user"
    apt_update
    "${SUDO[@]}" apt-get install -y -qq --no-install-recommends \
        cargo-web gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user >/dev/null
fi

# ---- 2. rustc 1.85 with the s390x std, unpacked privately ----------------------------
# shellcheck source=scripts/debian-rust-1.85.sh
source "$REPO/scripts/debian-rust-1.85.sh"
debian_rust_185 "$TOOLCHAIN" s390x
export RUSTC=$TOOLCHAIN/usr/bin/rustc
export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER=s390x-linux-gnu-gcc
# Nothing :s390x is installed on the host, so the cross sysroot is the only
# s390x libc: qemu takes its loader and libraries from there.
export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUNNER="qemu-s390x -L /usr/s390x-linux-gnu"
export CC_s390x_unknown_linux_gnu=s390x-linux-gnu-gcc
unset RUSTFLAGS RUSTDOC

# What tests/suite/backends_ran.rs and tests/suite/bulk.rs must find there: only scalar.
export VARINT_TURBO_EXPECT_BACKENDS=scalar
export VARINT_TURBO_EXPECT_PDEP_FAST=false
export VARINT_TURBO_EXPECT_SINGLE_BACKEND=scalar
export VARINT_TURBO_EXPECT_BULK_BACKEND=scalar

echo "==> $("$RUSTC" --version) (s390x std), $(/usr/bin/cargo --version), $(qemu-s390x --version | head -n1)"

# ---- 3. the workspace copy, with the MSRV step's Cargo.lock ----------------------------
# Tracked and untracked-but-not-ignored files, mtimes kept (tar), so cargo
# rebuilds only what changed.
mkdir -p "$WORKSPACE"
find "$WORKSPACE" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
git ls-files -co --exclude-standard -z | grep -zv '^Cargo.lock$' |
    tar --null -T - -cf - | tar -xf - -C "$WORKSPACE"
cp -p "$REPO/.ci/msrv/Cargo.lock" "$WORKSPACE/Cargo.lock"
# The manifest the lockfile is for: without the benches' dev-dependencies
# (scripts/drop-bench-deps.py; the benches are not built here).
python3 "$REPO/scripts/drop-bench-deps.py" "$WORKSPACE/Cargo.toml"

# ---- 4. tests under qemu ----------------------------------------------------------------
cd "$WORKSPACE"
T0=$SECONDS
# opt-level 2 for this crate and the property-test generators (qemu-user
# runs unoptimized code very slowly); the other dependencies stay at 0.
PROFILE_ARGS=(--config 'profile.dev.debug=false' --config 'profile.dev.package.varint-turbo.opt-level=2')
for dep in proptest quickcheck rand rand_core rand_chacha rand_xorshift ppv-lite86; do
    PROFILE_ARGS+=(--config "profile.dev.package.$dep.opt-level=2")
done
/usr/bin/cargo test --locked --target "$TARGET" --lib --tests "${PROFILE_ARGS[@]}" "$@"
echo "==> s390x (big-endian) tests passed in $((SECONDS - T0)) s"
