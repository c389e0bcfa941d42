//! The error type of the single-value decoders.

use core::fmt;

/// Why a varint could not be decoded.
///
/// The rules follow Go protowire's `ConsumeVarint`, generalised to every
/// output width (see the crate documentation for the exact table).
///
/// ```
/// use varint_turbo::{decode, DecodeError};
/// assert_eq!(decode::<u64>(&[0x80, 0x80]), Err(DecodeError::Truncated));
/// assert_eq!(decode::<u8>(&[0x80, 0x02]), Err(DecodeError::Overflow));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecodeError {
    /// The input ended while a continuation bit was still set (or was empty).
    Truncated,
    /// The value does not fit the output type, or the varint is longer than
    /// the type's [`VarInt::MAX_LEN`](crate::VarInt::MAX_LEN) bytes.
    Overflow,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DecodeError::Truncated => "varint truncated: input ended before its last byte",
            DecodeError::Overflow => "varint overflow: value too large for the target type",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for DecodeError {}
