# Sourced by scripts/ab-bulk and scripts/ab-single: extract_base COMMIT DIR
# writes the crate as of COMMIT into DIR (replacing it), renamed
# varint-turbo-base so that a harness can depend on it beside the working
# tree's varint-turbo.
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
}
