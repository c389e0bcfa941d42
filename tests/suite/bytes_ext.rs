//! The `bytes` extension traits (`BufVarint`, `BufMutVarint`) on contiguous
//! and chunked buffers: every vector split at every position must read as
//! the contiguous `decode`/`decode_slice` reads it, and an error must leave
//! the buffer where the module documentation says.
#![cfg(feature = "bytes")]

use crate::common;

use bytes::{Buf, BytesMut};
use common::*;
use proptest::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use varint_turbo::{BufMutVarint, BufVarint, BulkDecodeError, DecodeError};

/// A `Buf` over `data` whose chunks end at every multiple of `chunk_size`:
/// a varint can straddle several seams.
struct Chunked<'a> {
    data: &'a [u8],
    pos: usize,
    chunk_size: usize,
}

impl Buf for Chunked<'_> {
    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    fn chunk(&self) -> &[u8] {
        let end = (self.pos / self.chunk_size + 1) * self.chunk_size;
        &self.data[self.pos..end.min(self.data.len())]
    }
    fn advance(&mut self, cnt: usize) {
        assert!(cnt <= self.remaining(), "advance past the end");
        self.pos += cnt;
    }
}

/// Whether a chunk boundary lies strictly inside `start..start + len`, so
/// that a failing varint there went through the seam path (and was consumed).
fn seam_inside(boundaries: &[usize], start: usize, len: usize) -> bool {
    boundaries
        .iter()
        .any(|&boundary| start < boundary && boundary < start + len)
}

/// The chunk boundaries of a two-chunk chain split at `split` (none if a
/// side is empty: `Chain` then shows the other side whole).
fn chain_boundaries(split: usize, len: usize) -> Vec<usize> {
    if split == 0 || split == len {
        vec![]
    } else {
        vec![split]
    }
}

fn grid_boundaries(chunk_size: usize, len: usize) -> Vec<usize> {
    (1..)
        .map(|k| k * chunk_size)
        .take_while(|&b| b < len)
        .collect()
}

/// `get_varint::<T>` on `buf` (holding `input`, with chunk `boundaries`)
/// returns what `decode::<T>(input)` returns, and consumes the varint on
/// success, nothing on an error inside a chunk, the bytes examined on an
/// error across a seam.
fn check_get_varint<T: TestInt>(mut buf: impl Buf, input: &[u8], boundaries: &[usize]) {
    let expected = varint_turbo::decode::<T>(input);
    let got = buf.get_varint::<T>();
    let consumed = input.len() - buf.remaining();
    let expected_consumed = match expected {
        Ok((_, len)) => len,
        Err(_) => {
            let len = examined(input, T::REF_MAX_LEN);
            if seam_inside(boundaries, 0, len) {
                len
            } else {
                0
            }
        }
    };
    assert_eq!(
        (got, consumed),
        (expected.map(|(value, _)| value), expected_consumed),
        "get_varint::<{}> of {} with chunk boundaries {boundaries:?}",
        T::NAME,
        hex(input)
    );
}

fn check_get_varint_every_split<T: TestInt>(input: &[u8]) {
    for split in 0..=input.len() {
        let chain = (&input[..split]).chain(&input[split..]);
        check_get_varint::<T>(chain, input, &chain_boundaries(split, input.len()));
    }
    for chunk_size in 1..=3 {
        let buf = Chunked {
            data: input,
            pos: 0,
            chunk_size,
        };
        check_get_varint::<T>(buf, input, &grid_boundaries(chunk_size, input.len()));
    }
}

#[test]
fn single_vectors_split_at_every_position() {
    let rows = tsv_rows(include_str!("../data/single.tsv"), 3);
    assert!(rows.len() > 1000);
    for (_, fields) in rows {
        let input = unhex(fields[1]);
        for_each_unsigned!(check_get_varint_every_split(&input));
    }
}

#[test]
fn every_input_of_up_to_two_bytes_and_long_prefixes() {
    for a in 0..=255u8 {
        check_get_varint_every_split::<u64>(&[a]);
        for b in 0..=255u8 {
            for_each_unsigned!(check_get_varint_every_split(&[a, b]));
        }
    }
    // Runs of continuation bytes around every MAX_LEN, ended or not.
    for len in 1..=12 {
        let mut input = vec![0xffu8; len];
        for_each_unsigned!(check_get_varint_every_split(&input));
        *input.last_mut().unwrap() = 0x01;
        for_each_unsigned!(check_get_varint_every_split(&input));
    }
}

/// `get_varint`'s inline 2- and 3-byte paths, which need three bytes in
/// the chunk: every 2-byte input with a byte after it, and the last two
/// bytes of 3- and 4-byte varints after a few first bytes, every type
/// (`u8` and `u16` must still overflow), contiguous.
#[test]
fn two_and_three_byte_varints_with_bytes_after() {
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            for c in [0x00, 0x7f, 0x80, 0xff] {
                let input = [a, b, c];
                for_each_unsigned!(check_get_varint(&input[..], &input, &[]));
            }
        }
    }
    for a in [0x80, 0xac, 0xff] {
        for b in 0x80..=0xffu8 {
            for c in 0..=255u8 {
                let input = [a, b, c, 0x01];
                for_each_unsigned!(check_get_varint(&input[..], &input, &[]));
            }
        }
    }
}

#[test]
fn encode_vectors_put_and_get_across_seams() {
    let rows = encode_rows();
    assert!(rows.len() > 1000);
    for (line, kind, value, bytes) in rows {
        let mut out = BytesMut::new();
        let written = match kind {
            "u64" | "int32" => {
                let value = match kind {
                    "u64" => value.parse::<u64>().unwrap(),
                    _ => i64::from(value.parse::<i32>().unwrap()) as u64,
                };
                out.put_varint(value)
            }
            "sint32" | "avro_int" => out.put_varint_zigzag(value.parse::<i32>().unwrap()),
            "sint64" | "avro_long" => out.put_varint_zigzag(value.parse::<i64>().unwrap()),
            other => panic!("line {line}: unknown type {other}"),
        };
        assert_eq!(
            (&out[..], written),
            (&bytes[..], bytes.len()),
            "line {line}"
        );

        for split in 0..=bytes.len() {
            let mut chain = (&bytes[..split]).chain(&bytes[split..]);
            match kind {
                "u64" => assert_eq!(chain.get_varint::<u64>(), Ok(value.parse().unwrap())),
                "int32" => assert_eq!(
                    chain.get_varint::<u64>().map(|v| v as i64 as i32),
                    Ok(value.parse().unwrap())
                ),
                "sint32" | "avro_int" => {
                    assert_eq!(chain.get_varint_zigzag::<i32>(), Ok(value.parse().unwrap()))
                }
                _ => assert_eq!(chain.get_varint_zigzag::<i64>(), Ok(value.parse().unwrap())),
            }
            assert!(!chain.has_remaining(), "line {line}, split {split}");
        }
    }
}

#[test]
fn put_into_a_full_buffer_panics_without_writing() {
    let mut storage = [0xeeu8; 4];
    let mut room: &mut [u8] = &mut storage[..];
    assert_eq!(room.put_varint(300u32), 2);
    // Two bytes left: a 3-byte varint must not fit, and nothing is written.
    let result = catch_unwind(AssertUnwindSafe(move || {
        room.put_varint(1u32 << 14);
    }));
    assert!(result.is_err());
    assert_eq!(storage, [0xac, 0x02, 0xee, 0xee]);
    // One byte left: neither a 2-byte varint nor the kernel's is written.
    for value in [300u64, 1 << 14] {
        let mut storage = [0xeeu8; 3];
        let result = catch_unwind(AssertUnwindSafe(|| {
            let mut room: &mut [u8] = &mut storage[..];
            room.put_varint(5u8);
            room.put_varint(6u8);
            room.put_varint(value);
        }));
        assert!(result.is_err());
        assert_eq!(storage, [5, 6, 0xee]);
    }

    let mut storage = [0xeeu8; 5];
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut room: &mut [u8] = &mut storage[..];
        room.put_varints(&[1u64, 2, 3, 4, 300]);
    }));
    assert!(result.is_err());
    assert_eq!(storage, [0xee; 5]);
    let mut storage = [0xeeu8; 6];
    let mut room: &mut [u8] = &mut storage[..];
    assert_eq!(room.put_varints(&[1u64, 2, 3, 4, 300]), 6);
    assert_eq!(storage, [1, 2, 3, 4, 0xac, 0x02]);
}

/// Decodes a packed payload with `get_varints::<u64>` from `buf`, in
/// batches of `batch` values, and returns the values.
fn get_all_u64(mut buf: impl Buf, batch: usize) -> Vec<u64> {
    let mut values = Vec::new();
    let mut out = vec![0u64; batch];
    while buf.has_remaining() {
        let n = buf.get_varints(&mut out).expect("valid payload");
        assert!(n > 0);
        values.extend_from_slice(&out[..n]);
    }
    values
}

#[test]
fn packed_vectors_through_chunked_buffers() {
    let rows = packed_rows();
    assert!(rows.len() >= 60);
    for row in rows {
        let expected = varint_turbo::decode_all::<u64>(&row.payload).unwrap();
        assert_eq!(expected.len(), row.values.len(), "line {}", row.line);
        let len = row.payload.len();
        // Every split of short payloads; around the SIMD windows and a
        // spread of positions in long ones.
        let splits: Vec<usize> = if len <= 300 {
            (0..=len).collect()
        } else {
            (0..=130)
                .chain((0..len).step_by(len / 37))
                .chain(len - 20..=len)
                .collect()
        };
        for split in splits {
            let chain = (&row.payload[..split]).chain(&row.payload[split..]);
            assert_eq!(
                get_all_u64(chain, 4096),
                expected,
                "line {}, split {split}",
                row.line
            );
        }
        for (chunk_size, batch) in [(1, 7), (2, 4096), (3, 100), (7, 1), (64, 33), (1000, 4096)] {
            let buf = Chunked {
                data: &row.payload,
                pos: 0,
                chunk_size,
            };
            assert_eq!(
                get_all_u64(buf, batch),
                expected,
                "line {}, chunks of {chunk_size}",
                row.line
            );
        }
        // And the listed values, as protobuf reads each field type.
        let listed: Vec<String> = expected
            .iter()
            .map(|&v| match row.field {
                "uint64" | "uint32" => v.to_string(),
                "int64" => (v as i64).to_string(),
                "int32" => (v as i64 as i32).to_string(),
                "sint32" => varint_turbo::zigzag_decode_i32(v as u32).to_string(),
                "sint64" => varint_turbo::zigzag_decode_i64(v).to_string(),
                other => panic!("unknown field type {other}"),
            })
            .collect();
        assert_eq!(listed, row.values, "line {}", row.line);

        let mut out = Vec::new();
        assert_eq!(out.put_varints(&expected), len);
        assert_eq!(out, row.payload, "line {}: put_varints", row.line);
    }
}

/// `get_varints::<T>` over `buf` agrees with `decode_slice::<T>` on the
/// contiguous `input`: values, count, error, and the buffer's position.
fn check_get_varints<T: TestInt>(
    mut buf: impl Buf,
    input: &[u8],
    boundaries: &[usize],
    out_len: usize,
) {
    let mut expected_out = vec![T::default(); out_len];
    let expected = varint_turbo::decode_slice(input, &mut expected_out);
    let mut out = vec![T::default(); out_len];
    let got = buf.get_varints(&mut out);
    let consumed = input.len() - buf.remaining();
    let context = format!(
        "get_varints::<{}> of {} into {out_len} slots, chunk boundaries {boundaries:?}",
        T::NAME,
        hex(input)
    );
    match expected {
        Ok((values, bytes)) => {
            assert_eq!((got, consumed), (Ok(values), bytes), "{context}");
            assert_eq!(out[..values], expected_out[..values], "{context}");
        }
        Err(error) => {
            let start = error.offset();
            let len = examined(&input[start..], T::REF_MAX_LEN);
            let failing_consumed = if seam_inside(boundaries, start, len) {
                len
            } else {
                0
            };
            assert_eq!(
                (got, consumed),
                (
                    Err::<usize, BulkDecodeError>(error),
                    start + failing_consumed
                ),
                "{context}"
            );
            assert_eq!(
                out[..error.index()],
                expected_out[..error.index()],
                "{context}"
            );
        }
    }
}

fn check_get_varints_all_types(input: &[u8], split: usize, chunk_size: usize, out_len: usize) {
    fn both<T: TestInt>(input: &[u8], split: usize, chunk_size: usize, out_len: usize) {
        let chain = (&input[..split]).chain(&input[split..]);
        check_get_varints::<T>(chain, input, &chain_boundaries(split, input.len()), out_len);
        let buf = Chunked {
            data: input,
            pos: 0,
            chunk_size,
        };
        let boundaries = grid_boundaries(chunk_size, input.len());
        check_get_varints::<T>(buf, input, &boundaries, out_len);
    }
    both::<u8>(input, split, chunk_size, out_len);
    both::<u16>(input, split, chunk_size, out_len);
    both::<u32>(input, split, chunk_size, out_len);
    both::<u64>(input, split, chunk_size, out_len);
}

/// Byte strings that are mostly valid varints of mixed lengths, with the
/// occasional long run of continuation bytes or cut-off end.
fn varint_stream() -> impl Strategy<Value = Vec<u8>> {
    let varint = prop_oneof![
        4 => (0u64..128).prop_map(|v| vec![v as u8]),
        3 => any::<u64>().prop_map(|v| {
            let (bytes, len) = varint_turbo::encode(v >> (v % 57));
            bytes[..usize::from(len)].to_vec()
        }),
        1 => (1usize..12).prop_map(|n| vec![0x80u8; n]),
        1 => proptest::collection::vec(any::<u8>(), 1..4),
    ];
    proptest::collection::vec(varint, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn get_varints_agrees_with_decode_slice(
        input in varint_stream(),
        split_seed in any::<usize>(),
        chunk_size in 1usize..20,
        out_len in 0usize..50,
    ) {
        let split = split_seed % (input.len() + 1);
        check_get_varints_all_types(&input, split, chunk_size, out_len);
    }

    #[test]
    fn get_varint_agrees_with_decode(input in varint_stream(), chunk_size in 1usize..12) {
        let input = &input[..input.len().min(24)];
        for_each_unsigned!(check_get_varint_every_split(input));
        let buf = Chunked { data: input, pos: 0, chunk_size };
        check_get_varint::<u64>(buf, input, &grid_boundaries(chunk_size, input.len()));
    }
}

#[test]
fn get_varints_every_split_of_a_stream_with_errors() {
    // Valid values, then an overflowing u32 (6 bytes), then more values.
    let mut input = Vec::new();
    for v in [1u64, 300, 1 << 20, 5, 1 << 40] {
        input.extend_from_slice(&varint_turbo::encode(v).0[..varint_turbo::encoded_len(v)]);
    }
    input.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x07]);
    input.extend_from_slice(&[0x81, 0x82]); // and a cut-off end
    for split in 0..=input.len() {
        for out_len in [0, 1, 3, 5, 6, 7, 100] {
            check_get_varints_all_types(&input, split, 1 + split % 5, out_len);
        }
    }
}

#[test]
fn contiguous_errors_do_not_advance() {
    let mut buf = &[0xff, 0xff, 0xff, 0xff, 0xff, 0x0f][..];
    assert_eq!(buf.get_varint::<u32>(), Err(DecodeError::Overflow));
    assert_eq!(buf.remaining(), 6);
    assert_eq!(buf.get_varint::<u64>(), Ok((1 << 39) - 1));

    let mut empty = &[][..];
    assert_eq!(empty.get_varint::<u8>(), Err(DecodeError::Truncated));
    let mut out = [0u8; 4];
    assert_eq!(empty.get_varints(&mut out), Ok(0));

    let mut buf = &[0x05, 0x06, 0xac, 0x02][..];
    let error = buf.get_varints(&mut out).unwrap_err();
    assert_eq!(
        (error.kind(), error.index(), error.offset()),
        (DecodeError::Overflow, 2, 2)
    );
    assert_eq!((buf, &out[..2]), (&[0xac, 0x02][..], &[5, 6][..]));
}

/// `put_varint` takes three paths (a 1-byte push, the in-place kernel when
/// the current chunk has room for its stores, a byte loop or a copy
/// otherwise): each writes exactly `encode`'s bytes and nothing else,
/// whatever room is left in a `Vec`, a `BytesMut`, a `&mut [u8]` or a chain
/// of two slices; with less room than the kernel's stores (10 bytes for
/// `u64`, 8 for `u32`), nothing past the varint.
#[test]
fn put_varint_every_length_and_every_room() {
    let values: Vec<u64> = (0..64)
        .flat_map(|bits| {
            let top = 1u64 << bits;
            [top - 1, top, top | 1, top.wrapping_mul(3) >> 1]
        })
        .chain([u64::MAX])
        .collect();
    for &value in &values {
        put_varint_every_room(value, 10);
        put_varint_every_room(value as u32, 8);
    }
}

fn put_varint_every_room<T: varint_turbo::VarInt + std::fmt::Debug>(
    value: T,
    kernel_stores: usize,
) {
    use bytes::BufMut;
    let (bytes, len) = varint_turbo::encode(value);
    let expected = &bytes[..usize::from(len)];
    for filled in 0..24usize {
        // A Vec with `filled` bytes and capacity 24 (spare room 24 - filled).
        let mut vec = Vec::with_capacity(24);
        vec.resize(filled, 0x77u8);
        let room = vec.capacity() - filled;
        assert_eq!(vec.put_varint(value), expected.len(), "Vec, {room} spare");
        assert_eq!(&vec[..filled], &[0x77; 24][..filled]);
        assert_eq!(
            &vec[filled..],
            expected,
            "Vec, value {value:?}, {room} spare"
        );

        let mut bytes_mut = bytes::BytesMut::with_capacity(24);
        bytes_mut.resize(filled, 0x77);
        bytes_mut.put_varint(value);
        assert_eq!(&bytes_mut[filled..], expected, "BytesMut, value {value:?}");

        // A slice with `filled` bytes of room, inside sentinels.
        let mut storage = [0x5au8; 48];
        if filled >= expected.len() {
            let mut room: &mut [u8] = &mut storage[8..8 + filled];
            assert_eq!(room.put_varint(value), expected.len());
            assert_eq!(room.len(), filled - expected.len());
            assert_eq!(&storage[8..8 + expected.len()], expected);
            if filled < kernel_stores {
                // Less room than the kernel's stores: exactly the varint's
                // bytes are written.
                assert!(
                    storage[8 + expected.len()..8 + filled]
                        .iter()
                        .all(|&b| b == 0x5a),
                    "&mut [u8] of {filled}: wrote past the varint {value:?}"
                );
            }
            assert!(
                storage[..8]
                    .iter()
                    .chain(&storage[8 + filled..])
                    .all(|&b| b == 0x5a),
                "&mut [u8] of {filled}: wrote outside the slice ({value:?})"
            );
        }

        // Two chained slices, the seam `filled` bytes in.
        let (mut first, mut second) = ([0u8; 24], [0u8; 24]);
        let mut chain = (&mut first[..filled]).chain_mut(&mut second[..]);
        assert_eq!(chain.put_varint(value), expected.len());
        let mut joined = first[..filled].to_vec();
        joined.extend_from_slice(&second);
        assert_eq!(
            &joined[..expected.len()],
            expected,
            "chain split at {filled} ({value:?})"
        );
    }
}
