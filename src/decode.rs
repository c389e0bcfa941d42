//! The single-value decoders of the public API: the compile-time choice of
//! kernel (`arch::selected`) on a 16-byte window (`arch::window`: the
//! first 16 bytes of the input, or a zero-padded copy of a shorter input).

use crate::arch::selected;
use crate::arch::window::decode_with;
use crate::error::DecodeError;
use crate::varint::VarInt;
use crate::zigzag::ZigZag;

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
///
/// Varints of 1, 2 and 3 bytes are returned by predicted branches before
/// the branch-free kernel runs: real messages are mostly such varints
/// (every tag, bools, enums, small counts, lengths, deltas) and each
/// field's length repeats from message to message, so the branches are
/// nearly always predicted, and the next varint's load need not wait for
/// the kernel's length (BENCHMARKS.md, "The 1-byte path"). For parsers of
/// random-length data, [`decode_unchecked`] is the kernel alone.
#[inline(always)]
pub fn decode<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    if let Some(&byte) = input.first() {
        if byte < 0x80 {
            // Seven bits fit every `VarInt` type.
            return Ok((T::from_u64_unchecked(u64::from(byte)), 1));
        }
    }
    decode_longer(input)
}

/// [`decode`] past its 1-byte test: the 2- and 3-byte tests, then the
/// kernel; kept apart so that the 1-byte test is always inlined into the
/// caller's loop and the rest is left to the inliner.
#[inline]
fn decode_longer<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    if let Some(&[low, high]) = input.first_chunk::<2>() {
        if high < 0x80 {
            // A 2-byte varint (lengths, small counts and deltas): 14 bits,
            // which only `u8` can find too many.
            let value = u64::from(low & 0x7f) | u64::from(high) << 7;
            return crate::varint::narrow::<T>(value, 2);
        }
        if let Some(&top) = input.get(2) {
            if top < 0x80 {
                // A 3-byte varint (timestamp deltas, offsets): 21 bits.
                let value =
                    u64::from(low & 0x7f) | u64::from(high & 0x7f) << 7 | u64::from(top) << 14;
                return crate::varint::narrow::<T>(value, 3);
            }
        }
    }
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
/// For a valid varint it returns exactly what [`decode`] returns. It is the
/// branch-free kernel alone, without [`decode`]'s 1-byte branch: the same
/// cost for every length, which wins where lengths are random. For a
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
