#!/usr/bin/env python3
"""Makes the four copies of prost 0.14.6 that the harness builds.

    patch_prost.py PROST_SRC_DIR OUT_DIR

PROST_SRC_DIR is the unpacked crate from the cargo registry
(~/.cargo/registry/src/*/prost-0.14.6). Each variant is a copy under
OUT_DIR/<package name> with its own package name (the library keeps the
name `prost`, so prost's own tests and doc tests build unchanged):

    prost-upstream  prost as published
    prost-control   prost's own 1-byte test moved in front of its encode
                    loop (what prost can do without varint-turbo)
    prost-vt        decode_varint / encode_varint / encoded_len_varint call
                    varint-turbo's BufVarint::get_varint::<u64> /
                    BufMutVarint::put_varint / encoded_len_u64 (const); its
                    non-const callers (all but key_len) call
                    encoded_len_varint_fast (varint-turbo's encoded_len); packed
                    elements, keys and length prefixes are read with
                    decode::<u64> (decode_varint_compact)
    prost-vt-bulk   prost-vt plus packed varint fields through
                    varint_turbo::protobuf::*::{decode_packed, put_packed,
                    encoded_len_packed}

Every edit is an exact text replacement that must match exactly once; if
one does not (another prost version, a changed file), the script stops and
names the edit. Files are written only when their content changes, so a
second run does not make cargo rebuild anything.
"""

import os
import shutil
import sys

VERSION = "0.14.6"

# The copies live in integration/prost/target-src/<name>; the crate's root
# is four levels up.
VARINT_TURBO_DEP = """
[dependencies.varint-turbo]
path = "../../../.."
features = ["bytes"]
"""


class EditError(Exception):
    pass


def replace_once(text, old, new, what):
    count = text.count(old)
    if count != 1:
        raise EditError(f"edit '{what}': expected exactly one match, found {count}")
    return text.replace(old, new)


# --- Cargo.toml -------------------------------------------------------------

def manifest_edits(name, uses_varint_turbo):
    edits = [
        ("package name", 'name = "prost"\nversion = "0.14.6"', f'name = "{name}"\nversion = "0.14.6"'),
        # prost's criterion benchmark is not part of its test suite; dropping
        # it keeps criterion 0.8 out of the harness's build.
        ("drop [[bench]] varint", '[[bench]]\nname = "varint"\npath = "benches/varint.rs"\nharness = false\n', ""),
        ("drop criterion dev-dependency", '[dev-dependencies.criterion]\nversion = "0.8"\ndefault-features = false\n', ""),
    ]
    if uses_varint_turbo:
        edits.append(
            (
                "varint-turbo dependency",
                '[dependencies.prost-derive]\nversion = "0.14.6"\noptional = true\n',
                '[dependencies.prost-derive]\nversion = "0.14.6"\noptional = true\n' + VARINT_TURBO_DEP,
            )
        )
    return edits


# --- src/encoding/varint.rs -------------------------------------------------

ENCODE_LOOP = """pub fn encode_varint(mut value: u64, buf: &mut impl BufMut) {
    // Varints are never more than 10 bytes
    for _ in 0..10 {
        if value < 0x80 {
            buf.put_u8(value as u8);
            break;
        } else {
            buf.put_u8(((value & 0x7F) | 0x80) as u8);
            value >>= 7;
        }
    }
}
"""

CONTROL_ENCODE = """pub fn encode_varint(mut value: u64, buf: &mut impl BufMut) {
    // [prost-harness control] prost's own 1-byte test, in front of the loop.
    if value < 0x80 {
        buf.put_u8(value as u8);
        return;
    }
    // Varints are never more than 10 bytes
    for _ in 0..10 {
        if value < 0x80 {
            buf.put_u8(value as u8);
            break;
        } else {
            buf.put_u8(((value & 0x7F) | 0x80) as u8);
            value >>= 7;
        }
    }
}
"""

VT_ENCODE = """pub fn encode_varint(value: u64, buf: &mut impl BufMut) {
    // [prost-harness vt] varint-turbo's `BufMutVarint::put_varint`: a push
    // for a 1-byte value, else the in-place encoder in the buffer's spare
    // room. It panics as `put_u8` does when the buffer has no room.
    ::varint_turbo::BufMutVarint::put_varint(buf, value);
}
"""

ENCODED_LEN_OLD = """pub const fn encoded_len_varint(value: u64) -> usize {
    // Based on [VarintSize64][1].
    // [1]: https://github.com/protocolbuffers/protobuf/blob/v28.3/src/google/protobuf/io/coded_stream.h#L1744-L1756
    // Safety: value | 1 is non-zero.
    let log2value = unsafe { NonZeroU64::new_unchecked(value | 1) }.ilog2();
    ((log2value * 9 + (64 + 9)) / 64) as usize
}"""

ENCODED_LEN_NEW = """pub const fn encoded_len_varint(value: u64) -> usize {
    // [prost-harness vt] varint-turbo's `const fn encoded_len_u64` (prost's
    // formula): this function is public and `const`, so it stays both.
    ::varint_turbo::encoded_len_u64(value)
}

/// [prost-harness vt] The length of a varint for prost's own callers, which
/// need no constant: varint-turbo's `encoded_len` (in baseline x86-64
/// builds its leading-zero count comes from the `LZCNT` encoding, where the
/// `const fn` compiles to `BSR`).
#[inline]
pub fn encoded_len_varint_fast(value: u64) -> usize {
    ::varint_turbo::encoded_len(value)
}"""

# prost's non-`const` callers of `encoded_len_varint` (every one but
# `key_len`, a `const fn`) call `encoded_len_varint_fast` in vt and vt-bulk:
# file -> (how many calls the file has in vt, in vt-bulk). vt-bulk's own
# edits replace two of encoding.rs's packed sums. `key_len`'s call is put
# back by an exact edit afterwards.
FAST_LENGTH_CALLS = {
    "src/encoding.rs": (12, 10),
    "src/message.rs": (2, 2),
    "src/encoding/length_delimiter.rs": (2, 2),
}
KEY_LEN_FAST = "pub const fn key_len(tag: u32) -> usize {\n    encoded_len_varint_fast((tag << 3) as u64)\n}"
KEY_LEN_CONST = "pub const fn key_len(tag: u32) -> usize {\n    encoded_len_varint((tag << 3) as u64)\n}"

DECODE_OLD = """#[inline]
pub fn decode_varint(buf: &mut impl Buf) -> Result<u64, DecodeError> {
    let bytes = buf.chunk();
    let len = bytes.len();
    if len == 0 {
        return Err(DecodeErrorKind::InvalidVarint.into());
    }

    let byte = bytes[0];
    if byte < 0x80 {
        buf.advance(1);
        Ok(u64::from(byte))
    } else if len > 10 || bytes[len - 1] < 0x80 {
        let (value, advance) = decode_varint_slice(bytes)?;
        buf.advance(advance);
        Ok(value)
    } else {
        decode_varint_slow(buf)
    }
}
"""

# Two readers, each where it measured best (BENCHMARKS.md, "The readers
# in the patch"):
#
# * `decode_varint`, which prost's field parsers call for every varint field
#   value: varint-turbo's `BufVarint::get_varint::<u64>` (its own 1- to
#   3-byte tests, the kernel for longer varints, one `advance` for every
#   length), inlined into each parser, when the chunk has more than 10
#   bytes: the varint (at most 10 bytes) then lies in the chunk, so
#   `get_varint` never reads across a seam and, as prost's slice path, does
#   not advance the buffer on an error (mapped to prost's "invalid
#   varint"). A chunk of at most 10 bytes (a buffer's last bytes, a
#   chained buffer's seam) takes prost's own code, out of line. Telemetry
#   and tree decode went from 0.89-1.01 of prost's time to 0.78-0.97, and
#   the Kafka-style walk, whose reader stays out of line, to prost's fast
#   speed (one store pair for the buffer's pointer and length).
# * `decode_varint_compact`, which reads the elements of prost's packed loop
#   (`merge_repeated`), field keys (`decode_key`) and the length prefix of
#   `merge_loop`: a 1-byte test with its own `advance(1)` (as prost has),
#   else `decode` on the chunk, and prost's own logic, out of line and
#   cold, when that fails. It is small, so those loops stay tight: with
#   `get_varint` inlined there, packed 1-byte loops went from 0.45-0.54 of
#   prost's time to 0.75-1.37 and small packed messages from `Bytes` from
#   0.92 to 1.03-1.07. The length that `decode` returns is checked against
#   a fresh `chunk()` before `advance`, so that the compiler drops
#   `advance`'s own check (in `Bytes`, with an inline panic message;
#   BENCHMARKS.md, "The readers in the patch").
#
# The result, the error and the bytes consumed are prost's in every case:
# a varint that ends inside the chunk decodes to the same value on prost's
# slice and slow paths; where prost would take its slow path (a chunk of
# at most 10 bytes that ends inside a varint, which may continue in the
# next chunk) both readers take it; any other failure (an empty buffer,
# truncated, overflow) is prost's "invalid varint" and, as in prost's slice
# path, does not advance the buffer.
DECODE_NEW = """#[inline(always)]
pub fn decode_varint(buf: &mut impl Buf) -> Result<u64, DecodeError> {
    // [prost-harness vt] varint-turbo's `BufVarint::get_varint` where the
    // chunk has more than 10 bytes, so the varint (at most 10) lies in it
    // and an error leaves the buffer where it was, as in prost.
    if buf.chunk().len() > 10 {
        ::varint_turbo::BufVarint::get_varint::<u64>(buf)
            .map_err(|_| DecodeErrorKind::InvalidVarint.into())
    } else {
        decode_varint_short_chunk(buf)
    }
}
"""

# prost's own `decode_varint`, unchanged, for a chunk of at most 10 bytes.
DECODE_SHORT_CHUNK = DECODE_OLD.replace(
    "#[inline]\npub fn decode_varint(",
    "/// [prost-harness vt] prost's own `decode_varint` for a chunk of at most\n"
    "/// 10 bytes.\n#[inline(never)]\nfn decode_varint_short_chunk(",
)

DECODE_COMPACT = """/// [prost-harness vt] the reader of packed elements, keys and length
/// prefixes: varint-turbo's `decode` on the chunk, kept small.
#[inline]
pub fn decode_varint_compact(buf: &mut impl Buf) -> Result<u64, DecodeError> {
    let bytes = buf.chunk();
    if let Some(&byte) = bytes.first() {
        if byte < 0x80 {
            buf.advance(1);
            return Ok(u64::from(byte));
        }
    }
    match ::varint_turbo::decode::<u64>(bytes) {
        // `decode` never returns more than the chunk's length.
        Ok((value, advance)) if advance <= buf.chunk().len() => {
            buf.advance(advance);
            Ok(value)
        }
        _ => decode_varint_failed(buf),
    }
}

/// [prost-harness vt] where varint-turbo's `decode` failed on the chunk:
/// prost's slow path where prost would take it, else prost's error.
#[inline(never)]
#[cold]
fn decode_varint_failed(buf: &mut impl Buf) -> Result<u64, DecodeError> {
    let bytes = buf.chunk();
    let len = bytes.len();
    if len != 0 && len <= 10 && bytes[len - 1] >= 0x80 {
        decode_varint_slow(buf)
    } else {
        Err(DecodeErrorKind::InvalidVarint.into())
    }
}
"""

# --- src/encoding.rs ---------------------------------------------------------

MERGE_REPEATED_OLD = """            merge_repeated_numeric!($ty, WireType::Varint, merge, merge_repeated);
"""
# prost's `merge_repeated` for a packed varint type with its elements read
# by decode_varint_compact (small, so the loop stays tight); vt-bulk puts
# its bulk decoder where BULK_DECODE stands.
MERGE_REPEATED_COMPACT = """            fn merge_packed_element(value: &mut $ty, buf: &mut impl Buf) -> Result<(), DecodeError> {
                let $from_uint64_value = decode_varint_compact(buf)?;
                *value = $from_uint64;
                Ok(())
            }

            pub fn merge_repeated(
                wire_type: WireType,
                values: &mut Vec<$ty>,
                buf: &mut impl Buf,
                ctx: DecodeContext,
            ) -> Result<(), DecodeError> {
                if wire_type == WireType::LengthDelimited {
BULK_DECODE                    merge_loop(values, buf, ctx, |values, buf, _ctx| {
                        let mut value = Default::default();
                        merge_packed_element(&mut value, buf)?;
                        values.push(value);
                        Ok(())
                    })
                } else {
                    check_wire_type(WireType::Varint, wire_type)?;
                    let mut value = Default::default();
                    merge(wire_type, &mut value, buf, ctx)?;
                    values.push(value);
                    Ok(())
                }
            }
"""

MERGE_REPEATED_VT = """            // [prost-harness vt] the packed loop reads its elements with
            // decode_varint_compact (small, so the loop stays tight).
""" + MERGE_REPEATED_COMPACT.replace("BULK_DECODE", "")

MERGE_REPEATED_NEW = """            // [prost-harness vt-bulk] packed payloads through varint-turbo's
            // bulk decoder when the whole field is in the current chunk; prost's
            // loop otherwise, and again from the start if the bulk decoder
            // fails, so the errors and the buffer position are prost's. That
            // loop reads its elements with decode_varint_compact.
""" + MERGE_REPEATED_COMPACT.replace("BULK_DECODE", """                    let chunk = buf.chunk();
                    if let Ok((len, prefix)) = ::varint_turbo::decode::<u64>(chunk) {
                        let payload = usize::try_from(len)
                            .ok()
                            .and_then(|len| chunk[prefix..].get(..len));
                        if let Some(payload) = payload {
                            let start = values.len();
                            if ::varint_turbo::protobuf::$proto_ty::decode_packed(payload, values).is_ok() {
                                let advance = prefix + payload.len();
                                buf.advance(advance);
                                return Ok(());
                            }
                            values.truncate(start);
                        }
                    }
""")

ENCODE_PACKED_OLD = """                encode_key(tag, WireType::LengthDelimited, buf);
                let len: usize = values.iter().map(|$to_uint64_value| {
                    encoded_len_varint($to_uint64)
                }).sum();
                encode_varint(len as u64, buf);

                for $to_uint64_value in values {
                    encode_varint($to_uint64, buf);
                }
            }
"""
ENCODE_PACKED_NEW = """                encode_key(tag, WireType::LengthDelimited, buf);
                // [prost-harness vt-bulk] the length prefix and the elements
                // by varint-turbo's put_packed (value by value for a short
                // field, else the bulk encoder).
                ::varint_turbo::protobuf::$proto_ty::put_packed(values, buf);
            }
"""

ENCODED_LEN_PACKED_OLD = """                    let len = values.iter()
                                    .map(|$to_uint64_value| encoded_len_varint($to_uint64))
                                    .sum::<usize>();
"""
ENCODED_LEN_PACKED_NEW = """                    // [prost-harness vt-bulk] varint-turbo's packed payload
                    // length (a vectorized sum for the 32-bit types).
                    let len = ::varint_turbo::protobuf::$proto_ty::encoded_len_packed(values);
"""


def source_edits(variant):
    """(file, what, old, new) for a variant."""
    edits = []
    if variant == "control":
        edits.append(("src/encoding/varint.rs", "control: 1-byte test before the encode loop", ENCODE_LOOP, CONTROL_ENCODE))
    if variant in ("vt", "vt-bulk"):
        edits += [
            ("src/encoding/varint.rs", "vt: encode_varint", ENCODE_LOOP, VT_ENCODE),
            ("src/encoding/varint.rs", "vt: encoded_len_varint", ENCODED_LEN_OLD, ENCODED_LEN_NEW),
            # Its only user was prost's `encoded_len_varint`.
            ("src/encoding/varint.rs", "vt: NonZeroU64 import", "use core::num::NonZeroU64;\n", ""),
            ("src/encoding/varint.rs", "vt: decode_varint", DECODE_OLD,
             DECODE_NEW + "\n" + DECODE_SHORT_CHUNK + "\n" + DECODE_COMPACT),
            ("src/encoding.rs", "vt: decode_key through decode_varint_compact",
             "    let key = decode_varint(buf)?;\n    if key > u64::from(u32::MAX) {",
             "    let key = decode_varint_compact(buf)?;\n    if key > u64::from(u32::MAX) {"),
            ("src/encoding.rs", "vt: merge_loop's length through decode_varint_compact",
             "    let len = decode_varint(buf)?;\n    let remaining = buf.remaining();",
             "    let len = decode_varint_compact(buf)?;\n    let remaining = buf.remaining();"),
            ("src/encoding.rs", "vt: decode_varint_compact and encoded_len_varint_fast export",
             "pub use varint::{decode_varint, encode_varint, encoded_len_varint};",
             "pub use varint::{\n    decode_varint, decode_varint_compact, encode_varint, encoded_len_varint,\n    encoded_len_varint_fast,\n};"),
            ("src/message.rs", "vt: encoded_len_varint_fast import",
             "use crate::encoding::varint::{encode_varint, encoded_len_varint};",
             "use crate::encoding::varint::{encode_varint, encoded_len_varint_fast};"),
            ("src/encoding/length_delimiter.rs", "vt: encoded_len_varint_fast import",
             "use crate::encoding::varint::{decode_varint, encode_varint, encoded_len_varint};",
             "use crate::encoding::varint::{decode_varint, encode_varint, encoded_len_varint_fast};"),
        ]
    if variant == "vt":
        edits.append(("src/encoding.rs", "vt: packed merge_repeated", MERGE_REPEATED_OLD, MERGE_REPEATED_VT))
    if variant == "vt-bulk":
        edits += [
            ("src/encoding.rs", "vt-bulk: packed merge_repeated", MERGE_REPEATED_OLD, MERGE_REPEATED_NEW),
            ("src/encoding.rs", "vt-bulk: encode_packed", ENCODE_PACKED_OLD, ENCODE_PACKED_NEW),
            ("src/encoding.rs", "vt-bulk: encoded_len_packed", ENCODED_LEN_PACKED_OLD, ENCODED_LEN_PACKED_NEW),
        ]
    return edits


VARIANTS = ["upstream", "control", "vt", "vt-bulk"]


def write_if_changed(path, data):
    if os.path.exists(path):
        with open(path, "rb") as f:
            if f.read() == data:
                return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def make_variant(src, variant):
    """The files of a variant's copy: {relative path: bytes}."""
    name = f"prost-{variant}"
    files = {}
    for root, _dirs, names in os.walk(src):
        for n in names:
            full = os.path.join(root, n)
            rel = os.path.relpath(full, src)
            if rel.startswith("benches") or rel in ("Cargo.toml.orig", "Cargo.lock", ".cargo_vcs_info.json", ".cargo-ok"):
                continue
            with open(full, "rb") as f:
                files[rel] = f.read()

    manifest = files["Cargo.toml"].decode()
    for what, old, new in manifest_edits(name, variant in ("vt", "vt-bulk")):
        manifest = replace_once(manifest, old, new, f"{name}: Cargo.toml: {what}")
    files["Cargo.toml"] = manifest.encode()

    for rel, what, old, new in source_edits(variant):
        text = files[rel].decode()
        files[rel] = replace_once(text, old, new, f"{name}: {rel}: {what}").encode()
    if variant in ("vt", "vt-bulk"):
        for rel, counts in FAST_LENGTH_CALLS.items():
            text = files[rel].decode()
            want = counts[variant == "vt-bulk"]
            found = text.count("encoded_len_varint(")
            if found != want:
                raise EditError(f"edit '{name}: {rel}: calls of encoded_len_varint': expected {want}, found {found}")
            text = text.replace("encoded_len_varint(", "encoded_len_varint_fast(")
            if rel == "src/encoding.rs":
                text = replace_once(text, KEY_LEN_FAST, KEY_LEN_CONST, f"{name}: {rel}: key_len stays const")
            files[rel] = text.encode()
    return files


def write_variant(out_dir, variant, files):
    dest = os.path.join(out_dir, f"prost-{variant}")
    # Remove what is no longer part of the copy, then write what changed.
    if os.path.isdir(dest):
        for root, _dirs, names in os.walk(dest):
            for n in names:
                rel = os.path.relpath(os.path.join(root, n), dest)
                if rel not in files:
                    os.remove(os.path.join(root, n))
    for rel, data in files.items():
        write_if_changed(os.path.join(dest, rel), data)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    src, out_dir = sys.argv[1], sys.argv[2]
    manifest = os.path.join(src, "Cargo.toml")
    with open(manifest) as f:
        if f'version = "{VERSION}"' not in f.read():
            sys.exit(f"patch_prost.py: {manifest} is not prost {VERSION}")
    # Every edit is checked before any copy is written.
    try:
        variants = {variant: make_variant(src, variant) for variant in VARIANTS}
    except EditError as e:
        sys.exit(f"patch_prost.py: {e} (prost {VERSION} from {src}); the copies were not updated")
    for variant, files in variants.items():
        write_variant(out_dir, variant, files)


if __name__ == "__main__":
    main()
