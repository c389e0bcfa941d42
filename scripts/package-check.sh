#!/usr/bin/env bash
# Checks the package crates.io would get, as a user of it would:
#   1. `cargo package`: packages the crate (the `include` list of
#      Cargo.toml) into <target>/package/ and builds the packaged sources
#      (cargo's own verification);
#   2. `cargo publish --dry-run --no-verify`: every check of a real publish
#      except the upload (the build was verified by step 1);
#   3. unpacks step 1's .crate into a temporary folder, copies the repository's
#      Cargo.lock in (same dependency versions as the repository's tests)
#      and builds every test target there (`cargo test --all-features
#      --locked --no-run`: the unit and integration tests and the
#      examples), runs the unit tests, and checks that every file an
#      `include_str!`/`include_bytes!` of src/ or tests/ names (test data,
#      the README that the doc tests include) is in the package. The
#      integration and doc tests are not run again: they are step 1 of
#      .ci/run on the same sources, and no test reads a file at run time
#      but tests/suite/fuzz_corpus.rs, which replays fuzz/corpus/ (cargo
#      never packages the nested fuzz/ package; without it the replay says
#      so and checks nothing), so a package that builds them holds what
#      they need. Running them here
#      again took 4-8 minutes of a CI run that must stay under 30;
#   4. prints the package's file count and size.
# Both cargo runs share the repository's target directory, so the
# dependencies of the test step (`cargo test --all-features`) are reused,
# not rebuilt; only varint-turbo itself is compiled again, from the
# package's files. Two details make sure of that: cargo hashes a path
# package's artifacts without its location, so the package's test build
# gets a profile setting of its own (codegen-units = 255 instead of 256:
# new artifact names, nothing of the repository's build reused or
# overwritten); and the .crate stores every file with a fixed 2006 mtime,
# older than any earlier package build, so the files are unpacked with the
# current time (tar -m) and always rebuilt.
#
# A clean checkout is required, as for a real publish. Outside CI
# (CI != true) a dirty worktree is packaged anyway (--allow-dirty), with a
# notice: the package then holds the uncommitted files.
#
# Usage: scripts/package-check.sh   (from anywhere in the repository)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

target=${CARGO_TARGET_DIR:-$repo/target}
export CARGO_TARGET_DIR=$target

dirty=()
if [[ ${CI:-} != true && -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then
    echo "package-check: uncommitted changes; packaging them (--allow-dirty; CI never does)"
    dirty=(--allow-dirty)
fi

name=$(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
crate=$target/package/$name-$version.crate

echo "== cargo package ${dirty[*]}"
rm -f "$crate"
cargo package "${dirty[@]}"
[[ -f $crate ]] || {
    echo "package-check: $crate was not written" >&2
    exit 1
}

echo "== cargo publish --dry-run --no-verify ${dirty[*]}"
cargo publish --dry-run --no-verify "${dirty[@]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/varint-turbo-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -xmzf "$crate" -C "$work"
unpacked=$work/$name-$version
cp Cargo.lock "$unpacked/Cargo.lock"

# Nothing of the repository may leak into the package's tests: no fuzz/
# (a nested package, never packaged) and no scripts.
for absent in fuzz scripts benches .ci; do
    if [[ -e $unpacked/$absent ]]; then
        echo "package-check: $absent/ is in the package" >&2
        exit 1
    fi
done

# Every file named by an include_str!/include_bytes! in the package's
# sources, relative to the file that names it.
missing=0
while IFS=: read -r file path; do
    if [[ ! -f $(dirname "$unpacked/$file")/$path ]]; then
        echo "package-check: $file includes $path, which is not in the package" >&2
        missing=1
    fi
done < <(cd "$unpacked" && grep -roP --include='*.rs' 'include_(str|bytes)!\("\K[^"]+' src tests | sort -u)
[[ $missing -eq 0 ]] || exit 1

echo "== cargo test --all-features --locked --no-run, then the unit tests, in the unpacked $name-$version.crate ($unpacked)"
# Unoptimized (the test profile's opt-level 2 is for running the tests,
# which this step does not; the dependencies' overrides are unchanged, so
# their builds are the test step's).
config=(--config 'profile.test.package.varint-turbo.codegen-units=255' --config 'profile.test.opt-level=0')
(cd "$unpacked" && cargo test --all-features --locked "${config[@]}" --no-run &&
    cargo test --all-features --locked "${config[@]}" --lib)

files=$(tar -tzf "$crate" | grep -vc '/$')
bytes=$(stat -c %s "$crate")
unpacked_bytes=$(du -sb --exclude=Cargo.lock "$unpacked" | cut -f1)
echo "package-check: $name-$version.crate: $files files, $bytes bytes compressed, $unpacked_bytes bytes unpacked; its tests build, its unit tests pass"
