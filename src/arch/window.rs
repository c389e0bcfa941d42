//! The 16-byte window every single-value kernel works on, and the two
//! wrappers that give the kernels one: decoding takes the first 16 bytes of
//! the input; a shorter input (the tail of a buffer) is decoded from one
//! word of its bytes, zero above its end, and copied into a zero-padded
//! window only for a varint whose first 8 bytes continue; encoding writes
//! straight into the output when 16 bytes of room remain, else through a
//! local window and an exact copy.
//!
//! A zero pad byte ends the varint, so a truncated input shows up as a
//! length past the input's end: one comparison separates it from success,
//! and the kernels never read outside the slice.

use crate::arch::scalar::single::pack_7bit_groups;
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
        decode_short(input, kernel)
    }
}

/// The tail of a buffer: fewer than 16 bytes. Kept out of line so the hot
/// path stays small.
///
/// Every varint in a buffer's last 15 bytes comes here (the tail of every
/// small message, a `Buf` chunk's end), so it decodes the varint from one
/// word as the scalar kernel does, where the word can be had without
/// reading past the input: the first 8 bytes, or all of an input of fewer
/// than 8 read in two overlapping pieces, zero above its end (a zero byte
/// ends a varint, as the pad of a window does). Only a varint whose first
/// 8 bytes all continue (9 or 10 bytes, or an error) takes the padded
/// window and `kernel`. Copying the rest into the window for every value,
/// as this did before, cost about 10 ns a value (a variable-length
/// `memcpy`), more than the decode (BENCHMARKS.md, "`get_varint` on small
/// messages").
#[inline(never)]
#[cold]
fn decode_short<T: VarInt>(
    input: &[u8],
    kernel: impl FnOnce(&[u8; 16]) -> Result<(T, usize), DecodeError>,
) -> Result<(T, usize), DecodeError> {
    if let Some(result) = decode_short_from_word(input) {
        return result;
    }
    let mut window = [0u8; 16];
    window[..input.len()].copy_from_slice(input);
    // A prefix shorter than MAX_LEN cannot overflow (it carries at most
    // 7 * (MAX_LEN - 1) bits), so an Overflow from the kernel is final and
    // a length past the input means it was cut off.
    match kernel(&window) {
        Ok((_, len)) if len > input.len() => Err(DecodeError::Truncated),
        result => result,
    }
}

/// [`decode_short`]'s word path, for an input of fewer than 16 bytes: the
/// result, or `None` if the first 8 bytes all continue (a 9- or 10-byte
/// varint, or an error), which needs the padded window.
#[inline(always)]
pub(crate) fn decode_short_from_word<T: VarInt>(
    input: &[u8],
) -> Option<Result<(T, usize), DecodeError>> {
    let word = if let Some(first) = input.first_chunk::<8>() {
        u64::from_le_bytes(*first)
    } else {
        word_of_short(input)
    };
    let stops = !word & CONTINUATION_BITS;
    if stops == 0 {
        return None;
    }
    // `stops ^ (stops - 1)` keeps the varint's bytes (scalar kernel).
    let len = stops.trailing_zeros() as usize / 8 + 1;
    Some(
        match narrow::<T>(
            pack_7bit_groups(word & (stops ^ (stops - 1)) & PAYLOAD_BITS),
            len,
        ) {
            // The stop was a zero above the input's end: cut off. (An
            // Overflow stands: it needs more than `MAX_LEN` bytes, or a
            // value beyond `T`, which no zero byte can give.)
            Ok((_, len)) if len > input.len() => Err(DecodeError::Truncated),
            result => result,
        },
    )
}

/// The bytes of an input of fewer than 8 bytes as a little-endian word,
/// zero above its end, without a byte loop or a copy: two overlapping
/// 4-byte loads for 4..=7 bytes, three single bytes (first, middle, last)
/// for 1..=3, as `memcpy` implementations do for short lengths.
#[inline(always)]
fn word_of_short(input: &[u8]) -> u64 {
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
fn too_short(needed: usize, got: usize) -> ! {
    panic!("encode_to_slice: the varint needs {needed} bytes but the buffer has {got}")
}
