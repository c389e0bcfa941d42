//! The error types: [`DecodeError`] (one varint) and [`BulkDecodeError`]
//! (which varint of a buffer, where, and why). Every kernel under `arch`
//! reports through them, so they sit below both the kernels and the API.

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
///
/// `#[non_exhaustive]`: a later version may tell more cases apart, so a
/// `match` outside this crate needs a wildcard arm.
///
/// With or without `std`, it implements `core::error::Error` (which is
/// `std::error::Error`), like every error type of this crate:
///
/// ```
/// fn takes_error(_: &dyn core::error::Error) {}
/// takes_error(&varint_turbo::DecodeError::Truncated);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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

impl core::error::Error for DecodeError {}

/// A bulk decode failed: which value, where, and why. The values before it
/// have been written to the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BulkDecodeError {
    kind: DecodeError,
    index: usize,
    offset: usize,
}

impl BulkDecodeError {
    pub(crate) fn new(kind: DecodeError, index: usize, offset: usize) -> Self {
        Self {
            kind,
            index,
            offset,
        }
    }
    /// Why the value could not be decoded.
    ///
    /// ```
    /// use varint_turbo::{decode_slice, DecodeError};
    /// let mut out = [0u8; 4];
    /// // 300 does not fit a u8.
    /// let error = decode_slice(&[0x01, 0x02, 0xac, 0x02], &mut out).unwrap_err();
    /// assert_eq!(error.kind(), DecodeError::Overflow);
    /// ```
    pub fn kind(&self) -> DecodeError {
        self.kind
    }
    /// The index of the failing value (= number of values decoded before it).
    ///
    /// ```
    /// use varint_turbo::{decode_slice, DecodeError};
    /// let mut out = [0u8; 4];
    /// // 300 does not fit a u8.
    /// let error = decode_slice(&[0x01, 0x02, 0xac, 0x02], &mut out).unwrap_err();
    /// assert_eq!(error.index(), 2);
    /// assert_eq!(out[..2], [1, 2]);
    /// ```
    pub fn index(&self) -> usize {
        self.index
    }
    /// The byte offset in the input where the failing varint starts.
    ///
    /// ```
    /// use varint_turbo::{decode_slice, DecodeError};
    /// let mut out = [0u8; 4];
    /// // 300 does not fit a u8.
    /// let error = decode_slice(&[0x01, 0x02, 0xac, 0x02], &mut out).unwrap_err();
    /// assert_eq!(error.offset(), 2);
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for BulkDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (value {} at byte offset {})",
            self.kind, self.index, self.offset
        )
    }
}

impl core::error::Error for BulkDecodeError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.kind)
    }
}
