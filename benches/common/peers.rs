//! The peers: other crates' varint code, each called through its public
//! API the way its users call it, and a textbook byte loop as the floor.
//! Both benches run the same functions: the single-value bench over batches
//! of 1,024 varints, the bulk bench over a whole 1M-value buffer.
//! (varint-simd, generic over the output type and x86-64 only, has its own
//! loops in each bench.)
//!
//! Every function is `#[inline(always)]`, so each call site (the benches'
//! `#[inline(never)]` contender loops) gets its own copy with the per-value
//! closure inlined, as for varint-turbo's loops.
//!
//! - Decoders read `count` varints from the start of `bytes`, hand each
//!   `(value, length)` to `each`, and return the bytes consumed, or `None`
//!   at a decode error. Stateful readers (leb128's `io::Read`,
//!   quick-protobuf's `BytesReader`, protobuf's `CodedInputStream`) are
//!   created once per call, as a message parser creates one per message.
//! - Encoders write `values` back to back from the start of `out` and
//!   return the bytes written.
//! - `*_len` functions give one value's encoded length.

use integer_encoding::VarInt as _;

use super::encode_each;

/// Runs a stateless per-value decoder over `count` varints.
#[inline(always)]
fn decode_each(
    bytes: &[u8],
    count: usize,
    mut each: impl FnMut(u64, usize),
    mut decode: impl FnMut(&[u8]) -> Option<(u64, usize)>,
) -> Option<usize> {
    let mut pos = 0;
    for _ in 0..count {
        let (value, len) = decode(bytes.get(pos..)?)?;
        each(value, len);
        pos += len;
    }
    Some(pos)
}

// ---------------------------------------------------------------------------
// Decoders.

/// The floor: one byte per loop turn, at most 10 bytes, no overflow check
/// of the 10th byte (what a first implementation looks like).
#[inline(always)]
pub fn byte_loop_decode(bytes: &[u8], count: usize, each: impl FnMut(u64, usize)) -> Option<usize> {
    decode_each(bytes, count, each, |rest| {
        let mut value = 0u64;
        for (i, &byte) in rest.iter().take(10).enumerate() {
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte < 0x80 {
                return Some((value, i + 1));
            }
        }
        None
    })
}

/// prost 0.13: `encoding::decode_varint` on a `&[u8]` `Buf` (how prost
/// decodes every integer field, as `u64`).
#[inline(always)]
pub fn prost_decode(bytes: &[u8], count: usize, each: impl FnMut(u64, usize)) -> Option<usize> {
    decode_each(bytes, count, each, |rest| {
        let mut cursor = rest;
        let value = prost::encoding::decode_varint(&mut cursor).ok()?;
        Some((value, rest.len() - cursor.len()))
    })
}

/// integer-encoding 4: `VarInt::decode_var` on `u64`.
#[inline(always)]
pub fn integer_encoding_decode(
    bytes: &[u8],
    count: usize,
    each: impl FnMut(u64, usize),
) -> Option<usize> {
    decode_each(bytes, count, each, u64::decode_var)
}

/// leb128 0.2: `read::unsigned` on a `&[u8]` reader (`std::io::Read`).
#[inline(always)]
pub fn leb128_decode(
    bytes: &[u8],
    count: usize,
    mut each: impl FnMut(u64, usize),
) -> Option<usize> {
    let mut reader = bytes;
    for _ in 0..count {
        let before = reader.len();
        let value = leb128::read::unsigned(&mut reader).ok()?;
        each(value, before - reader.len());
    }
    Some(bytes.len() - reader.len())
}

/// unsigned-varint 0.8: `decode::u64`, which returns the rest of the input.
#[inline(always)]
pub fn unsigned_varint_decode(
    bytes: &[u8],
    count: usize,
    each: impl FnMut(u64, usize),
) -> Option<usize> {
    decode_each(bytes, count, each, |rest| {
        let (value, tail) = unsigned_varint::decode::u64(rest).ok()?;
        Some((value, rest.len() - tail.len()))
    })
}

/// quick-protobuf 0.8: `BytesReader::read_varint64`, one reader per call.
#[inline(always)]
pub fn quick_protobuf_decode(
    bytes: &[u8],
    count: usize,
    mut each: impl FnMut(u64, usize),
) -> Option<usize> {
    let mut reader = quick_protobuf::BytesReader::from_bytes(bytes);
    let mut left = reader.len();
    for _ in 0..count {
        let value = reader.read_varint64(bytes).ok()?;
        each(value, left - reader.len());
        left = reader.len();
    }
    Some(bytes.len() - left)
}

/// protobuf 3 (rust-protobuf): `CodedInputStream::read_raw_varint64`, one
/// stream per call.
#[inline(always)]
pub fn protobuf_decode(
    bytes: &[u8],
    count: usize,
    mut each: impl FnMut(u64, usize),
) -> Option<usize> {
    let mut stream = protobuf::CodedInputStream::from_bytes(bytes);
    let mut at = 0;
    for _ in 0..count {
        let value = stream.read_raw_varint64().ok()?;
        let now = stream.pos() as usize;
        each(value, now - at);
        at = now;
    }
    Some(at)
}

// ---------------------------------------------------------------------------
// Encoders.

/// The floor: one byte per loop turn.
#[inline(always)]
pub fn byte_loop_encode<T: Copy + Into<u64>>(values: &[T], out: &mut [u8]) -> usize {
    encode_each(values, out, |value, out| {
        let mut value: u64 = value.into();
        let mut len = 0;
        while value >= 0x80 {
            out[len] = value as u8 | 0x80;
            value >>= 7;
            len += 1;
        }
        out[len] = value as u8;
        len + 1
    })
}

/// prost 0.13: `encoding::encode_varint` into a `&mut [u8]` `BufMut`.
#[inline(always)]
pub fn prost_encode<T: Copy + Into<u64>>(values: &[T], out: &mut [u8]) -> usize {
    encode_each(values, out, |value, mut rest| {
        let before = rest.len();
        prost::encoding::encode_varint(value.into(), &mut rest);
        before - rest.len()
    })
}

/// integer-encoding 4: `VarInt::encode_var` on `u64`.
#[inline(always)]
pub fn integer_encoding_encode<T: Copy + Into<u64>>(values: &[T], out: &mut [u8]) -> usize {
    encode_each(values, out, |value, rest| value.into().encode_var(rest))
}

/// leb128 0.2: `write::unsigned` on a `&mut [u8]` writer (`std::io::Write`).
#[inline(always)]
pub fn leb128_encode<T: Copy + Into<u64>>(values: &[T], out: &mut [u8]) -> usize {
    encode_each(values, out, |value, mut rest| {
        leb128::write::unsigned(&mut rest, value.into()).expect("room for a varint")
    })
}

/// unsigned-varint 0.8: `encode::u64` into its 10-byte buffer, copied out.
#[inline(always)]
pub fn unsigned_varint_encode<T: Copy + Into<u64>>(values: &[T], out: &mut [u8]) -> usize {
    encode_each(values, out, |value, rest| {
        let mut buffer = unsigned_varint::encode::u64_buffer();
        let encoded = unsigned_varint::encode::u64(value.into(), &mut buffer);
        rest[..encoded.len()].copy_from_slice(encoded);
        encoded.len()
    })
}

/// protobuf 3: `CodedOutputStream::write_raw_varint64` on a stream over
/// `out` (one stream per call).
#[inline(always)]
pub fn protobuf_encode<T: Copy + Into<u64>>(values: &[T], out: &mut [u8]) -> usize {
    let mut stream = protobuf::CodedOutputStream::bytes(out);
    for &value in values {
        stream
            .write_raw_varint64(value.into())
            .expect("room for a varint");
    }
    stream.flush().expect("a slice stream flushes");
    stream.total_bytes_written() as usize
}

// ---------------------------------------------------------------------------
// Encoded lengths.

/// The floor: one shift per byte.
#[inline(always)]
pub fn byte_loop_len(mut value: u64) -> usize {
    let mut len = 1;
    while value >= 0x80 {
        value >>= 7;
        len += 1;
    }
    len
}

#[inline(always)]
pub fn prost_len(value: u64) -> usize {
    prost::encoding::encoded_len_varint(value)
}

#[inline(always)]
pub fn integer_encoding_len(value: u64) -> usize {
    value.required_space()
}

#[inline(always)]
pub fn leb128_len(value: u64) -> usize {
    leb128::write::unsigned_len(value)
}

#[inline(always)]
pub fn quick_protobuf_len(value: u64) -> usize {
    quick_protobuf::sizeofs::sizeof_varint(value)
}

#[inline(always)]
pub fn protobuf_len(value: u64) -> usize {
    protobuf::rt::compute_raw_varint64_size(value) as usize
}
