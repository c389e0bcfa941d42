# Sourced by scripts/msrv.sh and scripts/cross-s390x.sh: Debian bookworm's
# Rust 1.85 (the crate's MSRV, and the newest rustc with an s390x std in
# Debian's archive), unpacked privately so it does not clash with the
# installed toolchains.
#
#   debian_rust_185 DIR [ARCH...]
#
# makes DIR hold rustc, rustdoc and cargo 1.85 with the amd64 std, plus the
# std of each Debian architecture ARCH (e.g. s390x). The packages (rustc-web,
# cargo-web, libstd-rust-web-1.85, libstd-rust-web-dev[:ARCH] at
# $DEBIAN_RUST_185_VERSION, libllvm19, and libpcre3 and libhttp-parser2.9,
# which Debian's cargo links and hosts without them lack) are fetched with `apt-get download` and
# unpacked with `dpkg-deb -x`; only what DIR lacks is fetched (~100 MB
# compressed for the host part, ~40 MB per extra std). The installed
# system is left alone, except `dpkg --add-architecture ARCH` and
# `apt-get update` when a package cannot be found (these need root or sudo).
#
# Afterwards: $DIR/usr/bin/{rustc,rustdoc,cargo}; the function exports
# LD_LIBRARY_PATH with the unpacked libraries first.

DEBIAN_RUST_185_VERSION=1.85.0+dfsg3-1~deb12u3

debian_rust_185() {
    local dir=$1
    shift
    local host_triple=x86_64-unknown-linux-gnu
    local pkgs=() arch triple
    if [[ ! -x $dir/usr/bin/rustc || ! -x $dir/usr/bin/cargo ||
        ! -d $dir/usr/lib/rustlib/$host_triple/lib || ! -e $dir/lib/x86_64-linux-gnu/libpcre.so.3 ||
        ! -e $dir/usr/lib/x86_64-linux-gnu/libhttp_parser.so.2.9 ]]; then
        pkgs+=("rustc-web=$DEBIAN_RUST_185_VERSION" "cargo-web=$DEBIAN_RUST_185_VERSION"
            "libstd-rust-web-1.85=$DEBIAN_RUST_185_VERSION"
            "libstd-rust-web-dev=$DEBIAN_RUST_185_VERSION" libllvm19 libpcre3 libhttp-parser2.9)
    fi
    for arch in "$@"; do
        case $arch in
        s390x) triple=s390x-unknown-linux-gnu ;;
        arm64) triple=aarch64-unknown-linux-gnu ;;
        *)
            echo "debian_rust_185: unknown architecture $arch" >&2
            return 1
            ;;
        esac
        [[ -d $dir/usr/lib/rustlib/$triple/lib ]] ||
            pkgs+=("libstd-rust-web-dev:$arch=$DEBIAN_RUST_185_VERSION")
    done
    if [[ ${#pkgs[@]} -gt 0 ]]; then
        echo "==> unpacking Debian Rust $DEBIAN_RUST_185_VERSION into $dir: ${pkgs[*]}"
        local sudo=()
        if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null; then sudo=(sudo); fi
        local debs updated=0
        debs=$(mktemp -d "${TMPDIR:-/tmp}/debian-rust-1.85.XXXXXX")
        chmod 777 "$debs" # apt-get downloads as user _apt when run as root
        for arch in "$@"; do
            if ! dpkg --print-foreign-architectures | grep -qx "$arch" &&
                [[ $arch != "$(dpkg --print-architecture)" ]]; then
                "${sudo[@]}" dpkg --add-architecture "$arch"
                "${sudo[@]}" apt-get update -qq || true
                updated=1
            fi
        done
        # apt-get download writes to the current folder; retried once after
        # an `apt-get update` (fresh machines have no package lists).
        if ! (cd "$debs" && apt-get download -qq "${pkgs[@]}"); then
            if [[ $updated == 0 ]]; then
                "${sudo[@]}" apt-get update -qq || { sleep 10; "${sudo[@]}" apt-get update -qq; } || true
            fi
            (cd "$debs" && apt-get download -qq "${pkgs[@]}") || { rm -rf "$debs"; return 1; }
        fi
        mkdir -p "$dir"
        local deb
        for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$dir"; done
        rm -rf "$debs"
    fi
    export LD_LIBRARY_PATH=$dir/usr/lib/x86_64-linux-gnu:$dir/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    # A library the host lacks shows up here, by name, rather than as a
    # failed cargo run later.
    local tool missing
    for tool in rustc rustdoc cargo; do
        missing=$(ldd "$dir/usr/bin/$tool" 2>/dev/null | sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/\1/p' | tr '\n' ' ')
        if [[ -n $missing ]]; then
            echo "debian_rust_185: $dir/usr/bin/$tool needs ${missing}which this host lacks; add its Debian package to scripts/debian-rust-1.85.sh" >&2
            return 1
        fi
    done
}
