//! The single-value decoders of the public API.
//!
//! Every backend kernel works on a 16-byte window: the first 16 bytes of the
//! input, or the input copied into a zero-padded buffer when it is shorter
//! (the tail of a buffer). A zero pad byte ends the varint, so a truncated
//! input shows up as a length past the input's end: one comparison
//! separates it from success, and the kernels never read outside the slice.

use crate::arch::selected;
use crate::varint::VarInt;
use crate::zigzag::ZigZag;
use crate::DecodeError;

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

/// Decodes one varint from the start of `input` into `T`.
///
/// Returns the value and the number of bytes it took; bytes after the varint
/// are ignored. Fails with [`DecodeError::Truncated`] if `input` ends while a
/// continuation bit is set (or is empty), and with [`DecodeError::Overflow`]
/// if the value does not fit `T` or the varint is longer than
/// [`T::MAX_LEN`](VarInt::MAX_LEN) bytes. For `u64` these are exactly Go
/// protowire's `ConsumeVarint` rules: a 10th byte above `0x01` overflows.
/// Never reads past the end of `input`.
///
/// ```
/// use varint_turbo::{decode, DecodeError};
/// assert_eq!(decode::<u32>(&[0xac, 0x02, 0xff]), Ok((300, 2)));
/// assert_eq!(decode::<u8>(&[0xac, 0x02]), Err(DecodeError::Overflow));
/// assert_eq!(decode::<u64>(&[0xac]), Err(DecodeError::Truncated));
/// ```
#[inline]
pub fn decode<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    decode_with(input, selected::decode)
}

/// Decodes a zigzag varint (protobuf `sint32`/`sint64`, Avro `int`/`long`)
/// into the signed type `T`; same rules as [`decode`] on `T::Unsigned`.
///
/// ```
/// use varint_turbo::decode_zigzag;
/// assert_eq!(decode_zigzag::<i32>(&[0x03]), Ok((-2, 1)));
/// assert_eq!(decode_zigzag::<i64>(&[0xfe, 0x01]), Ok((127, 2)));
/// ```
#[inline]
pub fn decode_zigzag<T: ZigZag>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    let (value, len) = decode::<T::Unsigned>(input)?;
    Ok((T::zigzag_decode(value), len))
}

/// The length of the varint at the start of `input`, validated exactly as
/// [`decode`] validates it (truncation and overflow for `T` are errors).
///
/// ```
/// use varint_turbo::{decode_len, DecodeError};
/// assert_eq!(decode_len::<u64>(&[0x96, 0x01, 0x00]), Ok(2));
/// assert_eq!(decode_len::<u64>(&[0x96]), Err(DecodeError::Truncated));
/// ```
#[inline]
pub fn decode_len<T: VarInt>(input: &[u8]) -> Result<usize, DecodeError> {
    decode::<T>(input).map(|(_, len)| len)
}

/// Decodes one varint from `ptr` without bounds or validity checks.
///
/// For a valid varint it returns exactly what [`decode`] returns. For a
/// malformed one (longer than `T::MAX_LEN` bytes, or a value that does not
/// fit `T`) it returns an unspecified value and a length in
/// `1..=T::MAX_LEN`; this is not undefined behaviour and never reads more
/// than stated below.
///
/// # Safety
/// `ptr` must be valid for reads of **16 bytes** (the varint plus padding, as
/// varint-simd's `decode_unsafe` requires), all of them initialized. The
/// function reads exactly those 16 bytes (unaligned) and nothing else.
///
/// ```
/// let mut buf = [0u8; 16];
/// buf[..2].copy_from_slice(&[0xac, 0x02]);
/// // SAFETY: `buf` has 16 readable bytes.
/// let (value, len) = unsafe { varint_turbo::decode_unchecked::<u32>(buf.as_ptr()) };
/// assert_eq!((value, len), (300, 2));
/// ```
#[inline]
pub unsafe fn decode_unchecked<T: VarInt>(ptr: *const u8) -> (T, usize) {
    // Borrowing instead of copying lets the kernel do one 8-byte load.
    // SAFETY: 16 readable, initialized bytes at `ptr` (caller); alignment 1.
    let window = unsafe { &*ptr.cast::<[u8; 16]>() };
    selected::decode_unchecked(window)
}
