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

/// `Result<(T, usize), DecodeError>` in two machine words, for the
/// out-of-line parts of the single-value paths: the value widened to `u64`
/// and its length, a length of 0 marking an error whose kind is then the
/// first word.
///
/// Why: the `Result` is four scalars (tag, error, value, length), which a
/// function returns through memory; its inlined caller then loaded the
/// length back from the stack right where the next varint's position
/// waits for it, and merging it with the inline 1-byte path sent that
/// path's value through memory too (BENCHMARKS.md, "Session of 2026-11-26
/// (7)"). Two words come back in two registers.
#[derive(Clone, Copy)]
pub(crate) struct Decoded {
    value: u64,
    len: usize,
}

impl Decoded {
    #[inline(always)]
    pub(crate) fn ok(value: u64, len: usize) -> Self {
        debug_assert!(len != 0);
        Self { value, len }
    }

    #[inline(always)]
    pub(crate) fn err(error: DecodeError) -> Self {
        let code = match error {
            DecodeError::Truncated => 0,
            DecodeError::Overflow => 1,
        };
        Self {
            value: code,
            len: 0,
        }
    }

    /// The value, narrowed to `T` (the producer checked that it fits), and
    /// its length; or the error.
    #[inline(always)]
    pub(crate) fn into_result<T: crate::VarInt>(self) -> Result<(T, usize), DecodeError> {
        if self.len != 0 {
            Ok((T::from_u64_unchecked(self.value), self.len))
        } else if self.value == 0 {
            Err(DecodeError::Truncated)
        } else {
            Err(DecodeError::Overflow)
        }
    }
}

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
