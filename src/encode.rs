//! The single-value encoders of the public API.
//!
//! Every kernel encodes branch-free into a 16-byte window: the length comes
//! from [`encoded_len`] (Go protobuf's `SizeVarint` formula), the low 56
//! bits are spread into 7-bit groups (shifts and masks in the scalar
//! backend, one `PDEP` in the BMI2 one), the continuation bits for that
//! length come from a table, and bytes 0..10 are written as one 8-byte and
//! one 2-byte store (zeros past the varint). A caller's slice shorter than
//! 16 bytes goes through a local window and a copy of `len` bytes
//! (`arch::window`). The backend is chosen at compile time, as for
//! decoding.

use crate::arch::window::encode_to_slice_with;
use crate::arch::{scalar, selected};
use crate::varint::VarInt;
use crate::zigzag::ZigZag;

/// Encodes `value` as a varint: returns a 16-byte array whose first `len`
/// bytes are the varint, and `len` (1..=10). Bytes past `len` are zero.
///
/// The same shape as `varint_simd::encode`, for an easy migration.
///
/// ```
/// let (bytes, len) = varint_turbo::encode(300u32);
/// assert_eq!(&bytes[..len as usize], &[0xac, 0x02]);
/// ```
#[inline]
#[must_use]
pub fn encode<T: VarInt>(value: T) -> ([u8; 16], u8) {
    // Assembled from the varint's two words rather than through the
    // `&mut [u8; 16]` kernel: the caller's copy of the array is then two
    // 8-byte stores, not four (8 + 2 bytes of varint, 4 + 2 bytes of zeros).
    // Past the varint the words are zero (the spread of a value has no bits
    // there), so the padding is zero.
    let (low, high, len) = selected::encode_words(value);
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&low.to_le_bytes());
    out[8..].copy_from_slice(&u64::from(high).to_le_bytes());
    (out, len as u8)
}

/// Encodes a zigzag varint (protobuf `sint32`/`sint64`, Avro `int`/`long`).
///
/// ```
/// let (bytes, len) = varint_turbo::encode_zigzag(-2i64);
/// assert_eq!(&bytes[..len as usize], &[0x03]);
/// ```
#[inline]
#[must_use]
pub fn encode_zigzag<T: ZigZag>(value: T) -> ([u8; 16], u8) {
    encode(value.zigzag_encode())
}

/// Encodes `value` into the start of `out` and returns the number of bytes
/// written (1..=10). To store whole words, it may also set bytes of `out`
/// after the varint to zero, but never past index 10 (nor past `out`'s end).
///
/// # Panics
/// If `out` is shorter than [`encoded_len(value)`](encoded_len), like
/// [`char::encode_utf8`].
///
/// ```
/// let mut buf = [0u8; 10];
/// let len = varint_turbo::encode_to_slice(150u64, &mut buf);
/// assert_eq!(&buf[..len], &[0x96, 0x01]);
/// ```
#[inline]
pub fn encode_to_slice<T: VarInt>(value: T, out: &mut [u8]) -> usize {
    encode_to_slice_with(out, |window| selected::encode(value, window))
}

/// [`encode_to_slice`] for a zigzag varint.
///
/// ```
/// let mut buf = [0u8; 10];
/// let len = varint_turbo::encode_zigzag_to_slice(-1i32, &mut buf);
/// assert_eq!(&buf[..len], &[0x01]);
/// ```
#[inline]
pub fn encode_zigzag_to_slice<T: ZigZag>(value: T, out: &mut [u8]) -> usize {
    encode_to_slice(value.zigzag_encode(), out)
}

/// The number of bytes the varint of `value` takes (1..=10), without
/// encoding it: Go protobuf's branch-free `SizeVarint` formula.
///
/// ```
/// assert_eq!(varint_turbo::encoded_len(0u64), 1);
/// assert_eq!(varint_turbo::encoded_len(300u32), 2);
/// assert_eq!(varint_turbo::encoded_len(u64::MAX), 10);
/// ```
///
/// The pure functions of this crate are `#[must_use]`: dropping their
/// result is a mistake the compiler points out.
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// varint_turbo::encoded_len(300u32);
/// ```
#[inline]
#[must_use]
pub fn encoded_len<T: VarInt>(value: T) -> usize {
    scalar::encoded_len(value.to_u64())
}
