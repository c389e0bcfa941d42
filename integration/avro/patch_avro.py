#!/usr/bin/env python3
"""Makes the four copies of apache-avro 0.22.0 that the harness builds.

    patch_avro.py AVRO_SRC_DIR OUT_DIR

AVRO_SRC_DIR is the unpacked crate from the cargo registry
(~/.cargo/registry/src/*/apache-avro-0.22.0). Each variant is a copy under
OUT_DIR/<package name> with its own package name (the library keeps the
name `apache_avro`, so avro's own tests build unchanged):

    apache-avro-upstream  apache-avro as published
    apache-avro-control   the same source under another package name: the
                          spread of a copy that changes nothing
    apache-avro-vt        the varint reader and writer (`zag_i64`,
                          `encode_variable`) call varint-turbo's
                          single-value API; the reading API takes
                          `R: BufRead` instead of `R: Read`, so that the
                          reader sees the bytes in memory (README.md)
    apache-avro-vt-bulk   apache-avro-vt plus array blocks of `long`/`int`
                          through varint-turbo's bulk zigzag decoder
                          (`decode_slice_zigzag`), and arrays of
                          `Value::Long`/`Value::Int` written with its bulk
                          encoder (`encode_slice_zigzag_into`)

Every edit is an exact text replacement that must match the stated number
of times (once, unless said); if one does not (another avro version, a
changed file), the script stops and names the edit. Files are written only
when their content changes, so a second run does not make cargo rebuild
anything.
"""

import os
import sys

VERSION = "0.22.0"

# The copies live in integration/avro/target-src/<name>; the crate's root
# is four levels up.
VARINT_TURBO_DEP = """
[dependencies.varint-turbo]
path = "../../../.."
"""


class EditError(Exception):
    pass


def replace(text, old, new, what, count=1):
    found = text.count(old)
    if found != count:
        raise EditError(f"edit '{what}': expected {count} match(es), found {found}")
    return text.replace(old, new)


# --- Cargo.toml -------------------------------------------------------------

def manifest_edits(name, uses_varint_turbo):
    edits = [
        ("package name", 'name = "apache-avro"\nversion = "0.22.0"', f'name = "{name}"\nversion = "0.22.0"'),
        # avro's criterion benchmarks and examples are not part of its test
        # suite (`cargo test --features derive --lib --tests`); dropping the
        # benchmarks keeps criterion 0.8 out of the harness's build.
        ("drop [[bench]] serde", '[[bench]]\nname = "serde"\npath = "benches/serde.rs"\nharness = false\n\n', ""),
        ("drop [[bench]] single", '[[bench]]\nname = "single"\npath = "benches/single.rs"\nharness = false\n\n', ""),
        ("drop criterion dev-dependency", '[dev-dependencies.criterion]\nversion = "0.8.2"\ndefault-features = false\n\n', ""),
    ]
    for example in ["benchmark", "generate_interop_data", "specific_single_object",
                    "test_interop_data", "test_interop_single_object_encoding", "to_value"]:
        edits.append((f"drop [[example]] {example}",
                      f'[[example]]\nname = "{example}"\npath = "examples/{example}.rs"\n\n', ""))
    if uses_varint_turbo:
        edits.append(
            (
                "varint-turbo dependency",
                '[dependencies.uuid]\n',
                VARINT_TURBO_DEP.lstrip("\n") + '\n[dependencies.uuid]\n',
            )
        )
    return edits


# --- the reading API: R: Read -> R: BufRead -----------------------------------
#
# avro reads every varint through `R: Read`, a byte at a time (`read_exact`
# of one byte). varint-turbo decodes from a slice; the generic reader hides
# it. A `BufRead` bound exposes the bytes already in memory (`fill_buf`):
# `&[u8]`, `io::Cursor` and `BufReader` are `BufRead`, and a `Read` that is
# not becomes one with `BufReader::new`. (file, what, old, new, count)
BUFREAD_EDITS = [
    ("src/util.rs", "BufRead import", "    io::{Read, Write},\n", "    io::{BufRead, Read, Write},\n", 1),
    ("src/util.rs", "read_usize bound", "pub(crate) fn read_usize<R: Read>(", "pub(crate) fn read_usize<R: BufRead>(", 1),
    ("src/util.rs", "zag_i32 bound", "pub(crate) fn zag_i32<R: Read>(", "pub(crate) fn zag_i32<R: BufRead>(", 1),
    ("src/decode.rs", "BufRead import", "    io::{ErrorKind, Read},\n", "    io::{BufRead, ErrorKind},\n", 1),
    ("src/decode.rs", "bounds", "<R: Read", "<R: BufRead", 6),
    ("src/reader/datum.rs", "BufRead import", "use std::{io::Read, marker::PhantomData};", "use std::{io::BufRead, marker::PhantomData};", 1),
    ("src/reader/datum.rs", "bounds", "<R: Read>(", "<R: BufRead>(", 5),
    ("src/reader/datum.rs", "read_deser bound", "reader: &mut impl Read)", "reader: &mut impl BufRead)", 1),
    ("src/reader/single_object.rs", "BufRead import", "use std::{io::Read, marker::PhantomData};", "use std::{\n    io::{BufRead, Read},\n    marker::PhantomData,\n};", 1),
    ("src/reader/single_object.rs", "bounds", "<R: Read>(", "<R: BufRead>(", 3),
    ("src/reader/single_object.rs", "read_deser bound",
     "pub fn read_deser<T: DeserializeOwned>(&self, reader: &mut impl Read)",
     "pub fn read_deser<T: DeserializeOwned>(&self, reader: &mut impl BufRead)", 1),
    ("src/reader/mod.rs", "BufRead import", "use std::{collections::HashMap, io::Read, marker::PhantomData};",
     "use std::{collections::HashMap, io::BufRead, marker::PhantomData};", 1),
    ("src/reader/mod.rs", "bounds", "R: Read", "R: BufRead", 3),
    ("src/reader/mod.rs", "doc: BufRead",
     "    /// Creates a `Reader` given something implementing the `io::Read` trait to read from.\n",
     "    /// Creates a `Reader` given something implementing the `io::BufRead` trait to read from\n"
     "    /// (wrap a plain `io::Read` in an `io::BufReader`).\n", 2),
    ("src/reader/block.rs", "BufRead import", "    io::{ErrorKind, Read},\n", "    io::{BufRead, ErrorKind},\n", 1),
    ("src/reader/block.rs", "bounds", "<'r, R: Read>", "<'r, R: BufRead>", 1),
]
for f in ["block", "enums", "record", "tuple"]:
    BUFREAD_EDITS.append((f"src/serde/deser_schema/{f}.rs", "BufRead import",
                          "use std::{borrow::Borrow, io::Read};", "use std::{borrow::Borrow, io::BufRead};", 1))
BUFREAD_EDITS += [
    ("src/serde/deser_schema/block.rs", "bounds", "R: Read,", "R: BufRead,", 4),
    ("src/serde/deser_schema/enums.rs", "bounds", "R: Read", "R: BufRead", 10),
    ("src/serde/deser_schema/record.rs", "bounds", "R: Read,", "R: BufRead,", 3),
    ("src/serde/deser_schema/tuple.rs", "bounds", "R: Read,", "R: BufRead,", 6),
    ("src/serde/deser_schema/mod.rs", "BufRead import", "use std::{borrow::Borrow, collections::HashMap, io::Read};",
     "use std::{borrow::Borrow, collections::HashMap, io::BufRead};", 1),
    ("src/serde/deser_schema/mod.rs", "bounds", "R: Read,", "R: BufRead,", 3),
]

# --- src/util.rs: the varint reader and writer ------------------------------

ZAG_I64_OLD = """/// Decode a zigzagged varint from the reader.
pub(crate) fn zag_i64<R: Read>(reader: &mut R) -> AvroResult<i64> {
    let z = decode_variable(reader)?;
"""

# The reader: varint-turbo's `decode_zigzag_wrapping` (avro's rule: at most
# 10 bytes, the low 64 bits kept) on the bytes the reader holds; avro's own
# byte loop, out of line, where the buffer ends inside the varint or is
# empty (the varint may go on after a refill, or the stream ends there and
# avro's `UnexpectedEof`, which its callers match on, is the error) or the
# reader fails. The result and the bytes consumed are avro's in every case
# (tests/differential.rs).
ZAG_I64_NEW = """/// Decode a zigzagged varint from the reader.
#[inline]
pub(crate) fn zag_i64<R: BufRead>(reader: &mut R) -> AvroResult<i64> {
    // [avro-harness vt] varint-turbo's `decode_zigzag_wrapping` on the bytes
    // the reader holds. Everything else (an overflow, bytes that end inside
    // the varint, a failing reader) goes to `zag_i64_slow`, out of line:
    // avro's error values (a 0x148-byte stack frame and four saved
    // registers) then stay out of this path, which `zag_i32` and the serde
    // deserializer inline.
    let overflow = match reader.fill_buf() {
        Ok(bytes) => match ::varint_turbo::decode_zigzag_wrapping::<i64>(bytes) {
            Ok((value, len)) => {
                reader.consume(len);
                return Ok(value);
            }
            Err(error) => error == ::varint_turbo::DecodeError::Overflow,
        },
        Err(_) => false,
    };
    zag_i64_slow(reader, overflow)
}

/// [avro-harness vt] `zag_i64` past the reader's buffered bytes: ten bytes
/// with the continuation bit (`overflow`), which avro reads, then fails on;
/// else avro's own loop below.
#[cold]
#[inline(never)]
fn zag_i64_slow<R: BufRead>(reader: &mut R, overflow: bool) -> AvroResult<i64> {
    if overflow {
        reader.consume(10);
        return Err(Details::IntegerOverflow.into());
    }
    zag_i64_read(reader)
}

/// [avro-harness vt] avro's own reader, a byte at a time through `Read`,
/// for a varint that the reader's buffer does not hold whole (it may go on
/// after a refill, or the stream ends inside it) or a failing reader.
#[cold]
#[inline(never)]
fn zag_i64_read<R: Read>(reader: &mut R) -> AvroResult<i64> {
    let z = decode_variable(reader)?;
"""

# `zag_i32` with avro's out-of-range error built out of line: with
# `zag_i64`'s fast path inlined into it, the inline `map_err` kept avro's
# error value (and its stack frame) in the serde deserializer's `i32` path.
ZAG_I32_OLD = """pub(crate) fn zag_i32<R: BufRead>(reader: &mut R) -> AvroResult<i32> {
    let i = zag_i64(reader)?;
    i32::try_from(i).map_err(|e| Details::ZagI32(e, i).into())
}
"""

ZAG_I32_NEW = """#[inline]
pub(crate) fn zag_i32<R: BufRead>(reader: &mut R) -> AvroResult<i32> {
    // [avro-harness vt] avro's error for a value outside `i32` is built
    // out of line (`zag_i32_error`), as `zag_i64`'s are.
    let i = zag_i64(reader)?;
    match i32::try_from(i) {
        Ok(value) => Ok(value),
        Err(error) => Err(zag_i32_error(error, i)),
    }
}

/// [avro-harness vt] `zag_i32`'s error for a value outside `i32`.
#[cold]
#[inline(never)]
fn zag_i32_error(error: std::num::TryFromIntError, i: i64) -> crate::Error {
    Details::ZagI32(error, i).into()
}
"""

ENCODE_VARIABLE_OLD = """fn encode_variable<W: Write>(mut zigzagged: u64, mut writer: W) -> AvroResult<usize> {
    // Ensure the number is little endian for the varint encoding (no-op on LE systems)
    zigzagged = zigzagged.to_le();
    // Encode the number as a varint
    let mut buffer = [0u8; 10];
    let mut i: usize = 0;
    loop {
        if zigzagged <= 0x7F {
            buffer[i] = (zigzagged & 0x7F) as u8;
            i += 1;
            break;
        } else {
            buffer[i] = (0x80 | (zigzagged & 0x7F)) as u8;
            i += 1;
            zigzagged >>= 7;
        }
    }
    writer
        .write_all(&buffer[..i])
        .map_err(Details::WriteBytes)?;
    Ok(i)
}
"""

ENCODE_VARIABLE_NEW = """fn encode_variable<W: Write>(zigzagged: u64, mut writer: W) -> AvroResult<usize> {
    // [avro-harness vt] varint-turbo's `WriteVarint::write_varint`: the
    // varint's bytes, one `write_all`.
    ::varint_turbo::WriteVarint::write_varint(&mut writer, zigzagged)
        .map_err(|e| Details::WriteBytes(e).into())
}
"""

# --- vt-bulk: array blocks of long/int ----------------------------------------

ARRAY_DECODE_OLD = """                items.reserve_exact(len);
                for _ in 0..len {
                    items.push(decode_internal(
                        &inner.items,
                        names,
                        enclosing_namespace,
                        reader,
                    )?);
                }
"""

ARRAY_DECODE_NEW = """                items.reserve_exact(len);
                // [avro-harness vt-bulk] the items that the reader's buffer
                // holds go through varint-turbo's bulk decoder (longs and
                // ints); avro's item-by-item decode takes the next one.
                let mut left = len;
                while left > 0 {
                    left -= decode_int_items(&inner.items, reader, left, &mut items);
                    if left > 0 {
                        items.push(decode_internal(
                            &inner.items,
                            names,
                            enclosing_namespace,
                            reader,
                        )?);
                        left -= 1;
                    }
                }
"""

DECODE_INT_ITEMS = """
/// [avro-harness vt-bulk] Decodes up to `count` items of an array of
/// `long` or `int` (any other item schema: none) with varint-turbo's bulk
/// zigzag decoder, from the bytes the reader holds, and appends them to
/// `items`; returns how many. It stops where the buffer ends, and before an
/// item the bulk decoder does not take (a varint cut off by the buffer's
/// end, a 10-byte varint whose last byte is above 0x01, an `int` out of
/// range or longer than 5 bytes): avro's own decode reads that one, with
/// avro's rules and errors.
fn decode_int_items<R: BufRead>(
    schema: &Schema,
    reader: &mut R,
    count: usize,
    items: &mut Vec<Value>,
) -> usize {
    // The decoder's batch on the stack, zeroed per call: 32 items for a
    // short block (a record's array of a few items), 256 (2 KiB of longs)
    // for a longer one.
    fn run<T: ::varint_turbo::ZigZag + Default + Copy, R: BufRead, const BATCH: usize>(
        reader: &mut R,
        count: usize,
        items: &mut Vec<Value>,
        wrap: fn(T) -> Value,
    ) -> usize {
        let mut batch = [T::default(); BATCH];
        let mut done = 0;
        while done < count {
            let Ok(bytes) = reader.fill_buf() else {
                break;
            };
            let want = (count - done).min(BATCH);
            let (decoded, used) =
                match ::varint_turbo::decode_slice_zigzag(bytes, &mut batch[..want]) {
                    Ok(run) => run,
                    Err(error) => (error.index(), error.offset()),
                };
            reader.consume(used);
            items.extend(batch[..decoded].iter().map(|&value| wrap(value)));
            done += decoded;
            if decoded < want {
                break;
            }
        }
        done
    }
    match (schema, count <= 32) {
        (Schema::Long, true) => run::<i64, R, 32>(reader, count, items, Value::Long),
        (Schema::Long, false) => run::<i64, R, 256>(reader, count, items, Value::Long),
        (Schema::Int, true) => run::<i32, R, 32>(reader, count, items, Value::Int),
        (Schema::Int, false) => run::<i32, R, 256>(reader, count, items, Value::Int),
        _ => 0,
    }
}

/// Decode a `Value` from avro format given its `Schema`.
"""

ARRAY_ENCODE_OLD = """                if !items.is_empty() {
                    encode_long(items.len() as i64, &mut *writer)?;
                    for item in items.iter() {
                        encode_internal(
                            item,
                            &inner.items,
                            names,
                            enclosing_namespace,
                            &mut *writer,
                        )?;
                    }
                }
"""

ARRAY_ENCODE_NEW = """                if !items.is_empty() {
                    encode_long(items.len() as i64, &mut *writer)?;
                    // [avro-harness vt-bulk] runs of `Value::Long` or
                    // `Value::Int` items through varint-turbo's bulk encoder
                    // (the bytes avro writes item by item); avro's
                    // `encode_internal` for any other item.
                    let mut rest = &items[..];
                    while !rest.is_empty() {
                        rest = &rest[encode_int_items(rest, &mut *writer)?..];
                        if let Some((item, tail)) = rest.split_first() {
                            encode_internal(
                                item,
                                &inner.items,
                                names,
                                enclosing_namespace,
                                &mut *writer,
                            )?;
                            rest = tail;
                        }
                    }
                }
"""

ENCODE_INT_ITEMS = """
/// [avro-harness vt-bulk] Writes the leading run of `Value::Long` (or of
/// `Value::Int`) items of `items` with varint-turbo's bulk zigzag encoder,
/// a batch at a time; returns how many items it wrote (0 if the first item
/// is neither).
fn encode_int_items<W: Write>(items: &[Value], writer: &mut W) -> AvroResult<usize> {
    // The batch on the stack, zeroed per call: 16 items for a short array
    // (a record's few items: zeroing the 4.6 KiB of a 256-item batch for
    // them took the records' writes to 1.07-1.08 of avro's time), 256 for
    // a longer one.
    // `BYTES`: 10 per item at most.
    fn run<T: ::varint_turbo::ZigZag + Default + Copy, W: Write, const BATCH: usize, const BYTES: usize>(
        items: &[Value],
        writer: &mut W,
        unwrap: fn(&Value) -> Option<T>,
    ) -> AvroResult<usize> {
        let mut values = [T::default(); BATCH];
        let mut bytes = [0u8; BYTES];
        let mut done = 0;
        loop {
            let mut n = 0;
            for item in &items[done..] {
                let Some(value) = unwrap(item) else { break };
                values[n] = value;
                n += 1;
                if n == BATCH {
                    break;
                }
            }
            if n == 0 {
                return Ok(done);
            }
            let (encoded, len) = ::varint_turbo::encode_slice_zigzag_into(&values[..n], &mut bytes);
            debug_assert_eq!(encoded, n);
            writer
                .write_all(&bytes[..len])
                .map_err(Details::WriteBytes)?;
            done += n;
        }
    }
    fn long(item: &Value) -> Option<i64> {
        match item {
            Value::Long(value) => Some(*value),
            _ => None,
        }
    }
    fn int(item: &Value) -> Option<i32> {
        match item {
            Value::Int(value) => Some(*value),
            _ => None,
        }
    }
    match (items.first(), items.len() <= 16) {
        (Some(Value::Long(_)), true) => run::<i64, W, 16, 160>(items, writer, long),
        (Some(Value::Long(_)), false) => run::<i64, W, 256, 2560>(items, writer, long),
        (Some(Value::Int(_)), true) => run::<i32, W, 16, 160>(items, writer, int),
        (Some(Value::Int(_)), false) => run::<i32, W, 256, 2560>(items, writer, int),
        _ => Ok(0),
    }
}

pub(crate) fn encode_internal<W: Write, S: Borrow<Schema>>(
"""


def source_edits(variant):
    """(file, what, old, new, count) for a variant."""
    edits = []
    if variant in ("vt", "vt-bulk"):
        edits += BUFREAD_EDITS
        edits += [
            ("src/util.rs", "vt: zag_i64", ZAG_I64_OLD, ZAG_I64_NEW, 1),
            ("src/util.rs", "vt: zag_i32", ZAG_I32_OLD, ZAG_I32_NEW, 1),
            ("src/util.rs", "vt: encode_variable", ENCODE_VARIABLE_OLD, ENCODE_VARIABLE_NEW, 1),
        ]
    if variant == "vt-bulk":
        edits += [
            ("src/decode.rs", "vt-bulk: array items", ARRAY_DECODE_OLD, ARRAY_DECODE_NEW, 1),
            ("src/decode.rs", "vt-bulk: decode_int_items",
             "\n/// Decode a `Value` from avro format given its `Schema`.\n", DECODE_INT_ITEMS, 1),
            ("src/encode.rs", "vt-bulk: array items", ARRAY_ENCODE_OLD, ARRAY_ENCODE_NEW, 1),
            ("src/encode.rs", "vt-bulk: encode_int_items",
             "\npub(crate) fn encode_internal<W: Write, S: Borrow<Schema>>(\n", ENCODE_INT_ITEMS, 1),
        ]
    return edits


VARIANTS = ["upstream", "control", "vt", "vt-bulk"]

# Not part of a copy: avro's benchmarks and examples (dropped from its
# Cargo.toml above) and cargo's packaging files.
SKIPPED = ("benches", "examples")
SKIPPED_FILES = ("Cargo.toml.orig", "Cargo.lock", ".cargo_vcs_info.json", ".cargo-ok")


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
    name = f"apache-avro-{variant}"
    files = {}
    for root, _dirs, names in os.walk(src):
        for n in names:
            full = os.path.join(root, n)
            rel = os.path.relpath(full, src)
            if rel.split(os.sep)[0] in SKIPPED or rel in SKIPPED_FILES:
                continue
            with open(full, "rb") as f:
                files[rel] = f.read()

    manifest = files["Cargo.toml"].decode()
    for what, old, new in manifest_edits(name, variant in ("vt", "vt-bulk")):
        manifest = replace(manifest, old, new, f"{name}: Cargo.toml: {what}")
    files["Cargo.toml"] = manifest.encode()

    for rel, what, old, new, count in source_edits(variant):
        text = files[rel].decode()
        files[rel] = replace(text, old, new, f"{name}: {rel}: {what}", count).encode()
    return files


def write_variant(out_dir, variant, files):
    dest = os.path.join(out_dir, f"apache-avro-{variant}")
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
        if f'name = "apache-avro"\nversion = "{VERSION}"' not in f.read():
            sys.exit(f"patch_avro.py: {manifest} is not apache-avro {VERSION}")
    # Every edit is checked before any copy is written.
    try:
        variants = {variant: make_variant(src, variant) for variant in VARIANTS}
    except EditError as e:
        sys.exit(f"patch_avro.py: {e} (apache-avro {VERSION} from {src}); the copies were not updated")
    for variant, files in variants.items():
        write_variant(out_dir, variant, files)


if __name__ == "__main__":
    main()
