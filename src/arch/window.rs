//! The 16-byte window every single-value kernel works on, and the two
//! wrappers that give the kernels one: decoding takes the first 16 bytes of
//! the input; a shorter input (the tail of a buffer) is decoded by the
//! scalar kernel's steps from one word of its bytes, zero above its end,
//! as if it were padded with zeros; encoding writes straight into the
//! output when 16 bytes of room remain, else through a local window and an
//! exact copy.
//!
//! A zero pad byte ends the varint, so a truncated input shows up as a
//! length past the input's end: one comparison separates it from success,
//! and the kernels never read outside the slice.

use crate::arch::scalar::single::{decode_bytes_8_and_9, pack_7bit_groups};
use crate::error::DecodeError;
use crate::varint::{narrow, VarInt, CONTINUATION_BITS, PAYLOAD_BITS};

/// Runs `kernel` on the input's 16-byte window and turns a length past the
/// end into [`DecodeError::Truncated`]. Shared by the public functions and
/// every per-backend type.
#[inline(always)]
pub(crate) fn decode_with<T: VarInt>(
    input: &[u8],
    kernel: impl FnOnce(&[u8; 16]) -> Result<(T, usize), DecodeError>,
) -> Result<(T, usize), DecodeError> {
    if let Some(window) = input.first_chunk::<16>() {
        // 16 bytes hold any varint up to MAX_LEN: no truncation possible.
        kernel(window)
    } else {
        decode_short(input)
    }
}

/// The tail of a buffer: fewer than 16 bytes, left to the inliner. Out of
/// line (`#[cold]`, as it was until this note), every message's last
/// varints paid a call, and a caller reading a `bytes::Bytes` kept its
/// pointer and length in memory around it: 8 packed 6-byte `int64`s
/// decoded one by one from `Bytes` in prost took 1.15x (default build) and
/// 1.08x (native) prost's time; inline, 0.98 and 0.90, and the other
/// 8-element packed rows gained 0-0.12 (the prost harness, Zen 5 host,
/// 2026-11-27; `decode` on 1M values of the protobuf-like mix unchanged).
#[inline]
fn decode_short<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    decode_tail(input)
}

/// Decodes from an input of fewer than 16 bytes (every varint in a
/// buffer's last 15 bytes: the tail of every small message, a `Buf`
/// chunk's end) what the scalar kernel decodes from the input padded with
/// zeros, without the padded copy: the kernel's word is the first 8 bytes,
/// or all of an input of fewer than 8 read in two overlapping pieces, zero
/// above its end (a zero byte ends a varint, as the pad does); a varint
/// whose first 8 bytes continue takes bytes 8 and 9 as they are, or zero.
/// A stop in the zeros above the end means the input was cut off. Copying
/// the input into a padded window for every value, as this did before,
/// cost about 10 ns a value (a variable-length `memcpy`), more than the
/// decode (BENCHMARKS.md, "`get_varint` on small messages").
#[inline(always)]
fn decode_tail<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    let word = if let Some(first) = input.first_chunk::<8>() {
        u64::from_le_bytes(*first)
    } else {
        word_of_short(input)
    };
    let stops = !word & CONTINUATION_BITS;
    let result = if stops != 0 {
        // `stops ^ (stops - 1)` keeps the varint's bytes (scalar kernel).
        let len = stops.trailing_zeros() as usize / 8 + 1;
        narrow::<T>(
            pack_7bit_groups(word & (stops ^ (stops - 1)) & PAYLOAD_BITS),
            len,
        )
    } else {
        // Eight continuing bytes: the input has at least 8.
        let byte = |i: usize| input.get(i).copied().unwrap_or(0);
        decode_bytes_8_and_9::<T>(pack_7bit_groups(word & PAYLOAD_BITS), byte(8), byte(9))
    };
    match result {
        // An Overflow stands: it needs more than `MAX_LEN` bytes, or a
        // value beyond `T`, which no zero byte can give.
        Ok((_, len)) if len > input.len() => Err(DecodeError::Truncated),
        result => result,
    }
}

/// The bytes of an input of fewer than 8 bytes as a little-endian word,
/// zero above its end, without a byte loop or a copy: two overlapping
/// 4-byte loads for 4..=7 bytes, three single bytes (first, middle, last)
/// for 1..=3, as `memcpy` implementations do for short lengths.
#[inline(always)]
pub(crate) fn word_of_short(input: &[u8]) -> u64 {
    let len = input.len();
    debug_assert!(len < 8);
    if let (Some(low), Some(high)) = (input.first_chunk::<4>(), input.last_chunk::<4>()) {
        u64::from(u32::from_le_bytes(*low))
            | u64::from(u32::from_le_bytes(*high)) << (8 * (len - 4))
    } else if let (Some(&first), Some(&last)) = (input.first(), input.last()) {
        let middle = input[len / 2];
        u64::from(first) | u64::from(middle) << (8 * (len / 2)) | u64::from(last) << (8 * (len - 1))
    } else {
        0
    }
}

/// Writes the varint of `value` through `kernel` into `out`: directly when
/// `out` has 16 bytes (kernels store whole words), else through a local
/// buffer. Panics like `char::encode_utf8` if `out` is too short.
#[inline(always)]
pub(crate) fn encode_to_slice_with(
    out: &mut [u8],
    kernel: impl FnOnce(&mut [u8; 16]) -> usize,
) -> usize {
    if let Some(window) = out.first_chunk_mut::<16>() {
        kernel(window)
    } else {
        let mut buf = [0u8; 16];
        let len = kernel(&mut buf);
        let Some(dest) = out.get_mut(..len) else {
            too_short(len, out.len())
        };
        dest.copy_from_slice(&buf[..len]);
        len
    }
}

#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn too_short(needed: usize, got: usize) -> ! {
    panic!("encode_to_slice: the varint needs {needed} bytes but the buffer has {got}")
}
