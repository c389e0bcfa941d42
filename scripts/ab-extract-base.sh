# Sourced by scripts/ab-bulk and scripts/ab-single: extract_base COMMIT DIR
# writes the crate as of COMMIT into DIR (replacing it), renamed
# varint-turbo-base so that a harness can depend on it beside the working
# tree's varint-turbo. With AB_BASE_CFG="name ..." the base build also gets
# those cfgs from its build script (e.g. varint_turbo_slow_pdep: the same
# source with the compile-time choice, against the working tree's run-time
# one).
extract_base() {
    local commit=$1 dir=$2
    rm -rf "$dir"
    mkdir -p "$dir"
    git archive "$commit" | tar -x -C "$dir"
    # The extracted files carry the commit's time, older than an earlier base
    # build's outputs, so cargo would take that build as up to date: touch them.
    find "$dir" -type f -exec touch {} +
    sed -i 's/^name = "varint-turbo"$/name = "varint-turbo-base"/' "$dir/Cargo.toml"
    # The extracted crate is not a member of this repository's workspace.
    printf '\n[workspace]\n' >>"$dir/Cargo.toml"
    local cfg
    for cfg in ${AB_BASE_CFG:-}; do
        grep -q '^fn main() {$' "$dir/build.rs" || { echo "AB_BASE_CFG: no 'fn main() {' in the base's build.rs" >&2; return 1; }
        sed -i "s/^fn main() {\$/fn main() {\n    println!(\"cargo:rustc-cfg=$cfg\");/" "$dir/build.rs"
    done
}
