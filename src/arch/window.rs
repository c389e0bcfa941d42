//! The 16-byte window every single-value kernel works on, and the two
//! wrappers that give the kernels one: decoding takes the first 16 bytes of
//! the input, or copies a shorter input into a zero-padded window (the
//! tail of a buffer); encoding writes straight into the output when 16
//! bytes of room remain, else through a local window and an exact copy.
//!
//! A zero pad byte ends the varint, so a truncated input shows up as a
//! length past the input's end: one comparison separates it from success,
//! and the kernels never read outside the slice.

use crate::error::DecodeError;
use crate::varint::VarInt;

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
#[inline(never)]
#[cold]
fn decode_short<T: VarInt>(
    input: &[u8],
    kernel: impl FnOnce(&[u8; 16]) -> Result<(T, usize), DecodeError>,
) -> Result<(T, usize), DecodeError> {
    if input.is_empty() {
        return Err(DecodeError::Truncated);
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
