#!/usr/bin/env bash
# Big-endian check: builds the crate's unit and integration tests for
# s390x-unknown-linux-gnu (big-endian) and runs them under qemu-s390x. Only
# the portable (scalar) backends exist there, so this checks that every
# 8-byte load and store of the scalar path is endian-correct.
#
# Toolchain: Debian bookworm's rustc 1.85, the newest rustc with an s390x
# std in Debian's archive. Its packages (rustc-web, libstd-rust-web-1.85,
# libstd-rust-web-dev, libstd-rust-web-dev:s390x at 1.85.0+dfsg3-1~deb12u3,
# and libllvm19) are downloaded with apt-get and unpacked with dpkg-deb -x
# into target/s390x-toolchain, so they do not clash with the installed
# rustc 1.96 (which scripts/cross-aarch64.sh uses); LD_LIBRARY_PATH points
# at the unpacked libraries. Cargo is Debian's 1.96 (/usr/bin/cargo).
#
# The crate declares rust-version 1.89 (for the AVX-512 intrinsics, which
# are cfg'd to x86-64 and not compiled here). This run tests a copy of the
# working tree (target/s390x/workspace) whose Cargo.toml says
# rust-version = "1.85", so that
#   * cargo does not refuse rustc 1.85 for the package, and
#   * CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback picks dev-dependency
#     versions that build on 1.85, in the copy's own Cargo.lock: the
#     repository's Cargo.lock is never read or changed.
# Only `--lib --tests` run: doctests fail with this rustdoc/cargo mix.
#
# Usage: scripts/cross-s390x.sh [extra `cargo test` args]
# Environment: S390X_DIR (default target/s390x-*: toolchain, workspace, target)
# Needs root or sudo for the one-time install (~0.5 GB).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD

TARGET=s390x-unknown-linux-gnu
VERSION=1.85.0+dfsg3-1~deb12u3
BASE=${S390X_DIR:-$REPO/target}
TOOLCHAIN=$BASE/s390x-toolchain
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
if [[ ! -x $TOOLCHAIN/usr/bin/rustc || ! -d $TOOLCHAIN/usr/lib/rustlib/$TARGET/lib ]]; then
    echo "==> unpacking Debian rustc $VERSION (+ s390x std, libllvm19) into $TOOLCHAIN"
    dpkg --print-foreign-architectures | grep -qx s390x || {
        "${SUDO[@]}" dpkg --add-architecture s390x
        apt_updated=0
    }
    apt_update
    debs=$BASE/s390x-debs
    rm -rf "$debs" "$TOOLCHAIN"
    mkdir -p "$debs" "$TOOLCHAIN"
    # apt-get download runs as the invoking user and writes to the current folder.
    (cd "$debs" && apt-get download -qq \
        "rustc-web=$VERSION" "libstd-rust-web-1.85=$VERSION" \
        "libstd-rust-web-dev=$VERSION" "libstd-rust-web-dev:s390x=$VERSION" libllvm19)
    for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$TOOLCHAIN"; done
    rm -rf "$debs"
fi
RUSTC_185=$TOOLCHAIN/usr/bin/rustc
export LD_LIBRARY_PATH=$TOOLCHAIN/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export RUSTC=$RUSTC_185
export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER=s390x-linux-gnu-gcc
# Nothing :s390x is installed on the host, so the cross sysroot is the only
# s390x libc: qemu takes its loader and libraries from there.
export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUNNER="qemu-s390x -L /usr/s390x-linux-gnu"
export CC_s390x_unknown_linux_gnu=s390x-linux-gnu-gcc
export CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback
unset RUSTFLAGS RUSTDOC

# What tests/backends_ran.rs and tests/bulk.rs must find there: only scalar.
export VARINT_TURBO_EXPECT_BACKENDS=scalar
export VARINT_TURBO_EXPECT_PDEP_FAST=false
export VARINT_TURBO_EXPECT_SINGLE_BACKEND=scalar
export VARINT_TURBO_EXPECT_BULK_BACKEND=scalar

echo "==> $("$RUSTC" --version) (s390x std), $(/usr/bin/cargo --version), $(qemu-s390x --version | head -n1)"

# ---- 3. the workspace copy: rust-version 1.85, its own Cargo.lock ---------------------
# Tracked and untracked-but-not-ignored files, mtimes kept (tar), so cargo
# rebuilds only what changed. The copy's Cargo.lock survives between runs.
mkdir -p "$WORKSPACE"
find "$WORKSPACE" -mindepth 1 -maxdepth 1 ! -name Cargo.lock -exec rm -rf {} +
git ls-files -co --exclude-standard -z | grep -zv '^Cargo.lock$' |
    tar --null -T - -cf - | tar -xf - -C "$WORKSPACE"
sed -i 's/^rust-version = ".*"/rust-version = "1.85"/' "$WORKSPACE/Cargo.toml"
grep -q '^rust-version = "1.85"' "$WORKSPACE/Cargo.toml" ||
    { echo "cross-s390x: could not set rust-version in the copy" >&2; exit 1; }
touch -r "$REPO/Cargo.toml" "$WORKSPACE/Cargo.toml"

# ---- 4. tests under qemu ----------------------------------------------------------------
cd "$WORKSPACE"
T0=$SECONDS
# opt-level 2 for this crate and the property-test generators (qemu-user
# runs unoptimized code very slowly); the other dependencies (criterion and
# the peers, built for the benches' targets but not run) stay at 0, which
# halves the build.
PROFILE_ARGS=(--config 'profile.dev.debug=false' --config 'profile.dev.package.varint-turbo.opt-level=2')
for dep in proptest quickcheck rand rand_core rand_chacha rand_xorshift ppv-lite86; do
    PROFILE_ARGS+=(--config "profile.dev.package.$dep.opt-level=2")
done
/usr/bin/cargo test --target "$TARGET" --lib --tests "${PROFILE_ARGS[@]}" "$@"
echo "==> s390x (big-endian) tests passed in $((SECONDS - T0)) s"
