//! Avro's variable-length integers and arrays of longs.
//!
//! Avro writes `int` and `long` as zigzag varints
//! ([Avro specification, binary encoding](https://avro.apache.org/docs/1.11.1/specification/#binary-encoding)):
//! [`encode_int`]/[`decode_int`] take at most 5 bytes and the `i32` range,
//! [`encode_long`]/[`decode_long`] at most 10 bytes and the `i64` range.
//! Anything longer, or out of range, is [`DecodeError::Overflow`]; a cut-off
//! varint is [`DecodeError::Truncated`]. These are
//! [`decode_zigzag::<i32>`](crate::decode_zigzag) and `::<i64>` with their
//! exact rules (for `long`, a 10th byte above `0x01` overflows, as in Go
//! protowire).
//!
//! ## Arrays of longs (feature `alloc`)
//! An Avro array is a series of blocks, each a `long` count followed by
//! that many items, and ends with a block of count 0. A negative count
//! means its absolute value, followed by a `long` byte size of the items,
//! so that readers can skip the block. The items of each block are one run
//! of zigzag varints, which [`decode_long_array`] hands to the bulk decoder
//! ([`decode_slice_zigzag`](crate::decode_slice_zigzag)) in one call.
//!
//! A count read from the input is never trusted for allocation: a block
//! reserves at most one `i64` per input byte left (each item takes at
//! least one byte), so a hostile count of `2^62` costs nothing.
//!
//! ```
//! use varint_turbo::avro;
//!
//! let mut bytes = Vec::new();
//! avro::encode_long_array(&[1, -2, 300], &mut bytes);
//! assert_eq!(bytes, [0x06, 0x02, 0x03, 0xd8, 0x04, 0x00]);
//!
//! let mut values = Vec::new();
//! assert_eq!(avro::decode_long_array(&bytes, &mut values), Ok(bytes.len()));
//! assert_eq!(values, [1, -2, 300]);
//! ```

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::fmt;

use crate::error::DecodeError;

/// Encodes an Avro `int` (zigzag, 1 to 5 bytes), in the shape of
/// [`crate::encode`].
///
/// ```
/// let (bytes, len) = varint_turbo::avro::encode_int(-3);
/// assert_eq!(&bytes[..usize::from(len)], &[0x05]);
/// ```
#[inline]
#[must_use]
pub fn encode_int(value: i32) -> ([u8; 16], u8) {
    crate::encode::encode_zigzag(value)
}

/// Encodes an Avro `long` (zigzag, 1 to 10 bytes), in the shape of
/// [`crate::encode`].
///
/// ```
/// let (bytes, len) = varint_turbo::avro::encode_long(i64::MIN);
/// assert_eq!(len, 10);
/// assert_eq!(&bytes[..2], &[0xff, 0xff]);
/// ```
#[inline]
#[must_use]
pub fn encode_long(value: i64) -> ([u8; 16], u8) {
    crate::encode::encode_zigzag(value)
}

/// Decodes an Avro `int` from the start of `input`: the value and the bytes
/// used. More than 5 bytes, or a value outside `i32`, is
/// [`DecodeError::Overflow`].
///
/// ```
/// use varint_turbo::{avro, DecodeError};
/// assert_eq!(avro::decode_int(&[0x05]), Ok((-3, 1)));
/// assert_eq!(avro::decode_int(&[0xff, 0xff, 0xff, 0xff, 0x0f]), Ok((i32::MIN, 5)));
/// assert_eq!(avro::decode_int(&[0xff, 0xff, 0xff, 0xff, 0x1f]), Err(DecodeError::Overflow));
/// assert_eq!(avro::decode_int(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]), Err(DecodeError::Overflow));
/// ```
#[inline(always)]
pub fn decode_int(input: &[u8]) -> Result<(i32, usize), DecodeError> {
    crate::decode::decode_zigzag::<i32>(input)
}

/// Decodes an Avro `long` from the start of `input`: the value and the
/// bytes used. More than 10 bytes, or a value outside `i64`, is
/// [`DecodeError::Overflow`].
///
/// ```
/// use varint_turbo::{avro, DecodeError};
/// assert_eq!(avro::decode_long(&[0xd8, 0x04]), Ok((300, 2)));
/// assert_eq!(avro::decode_long(&[0xd8]), Err(DecodeError::Truncated));
/// ```
#[inline(always)]
pub fn decode_long(input: &[u8]) -> Result<(i64, usize), DecodeError> {
    crate::decode::decode_zigzag::<i64>(input)
}

/// Why an Avro array could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlockErrorKind {
    /// The input ended inside the array: a count, byte size or item is cut
    /// off, a block claims more items or bytes than the input holds, or the
    /// final zero count is missing.
    Truncated,
    /// A count, byte size or item does not fit a `long` (see
    /// [`decode_long`]).
    Overflow,
    /// A block's byte size is negative or is not the size of its items.
    ByteSize,
}

/// An Avro array could not be decoded: why, and where.
///
/// ```
/// use varint_turbo::avro::{self, BlockErrorKind};
///
/// // A block of 2 items, but the input ends after one.
/// let error = avro::decode_long_array(&[0x04, 0x02], &mut Vec::new()).unwrap_err();
/// assert_eq!((error.kind(), error.offset()), (BlockErrorKind::Truncated, 2));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockError {
    kind: BlockErrorKind,
    offset: usize,
}

impl BlockError {
    #[cfg(feature = "alloc")]
    fn new(kind: impl Into<BlockErrorKind>, offset: usize) -> Self {
        Self {
            kind: kind.into(),
            offset,
        }
    }

    /// What went wrong.
    ///
    /// ```
    /// use varint_turbo::avro::{self, BlockErrorKind};
    /// let error = avro::decode_long_array(&[0x01, 0x01], &mut Vec::new()).unwrap_err();
    /// assert_eq!(error.kind(), BlockErrorKind::ByteSize); // count -1, size -1
    /// ```
    pub fn kind(&self) -> BlockErrorKind {
        self.kind
    }

    /// The byte offset in the input of the failing count, byte size or
    /// item; for [`BlockErrorKind::ByteSize`], of the byte size; for a block
    /// that claims more than the input holds, where the input ran out.
    ///
    /// ```
    /// use varint_turbo::avro;
    /// // One item, then an item that overflows a long.
    /// let input = [0x04, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
    /// let error = avro::decode_long_array(&input, &mut Vec::new()).unwrap_err();
    /// assert_eq!(error.offset(), 2);
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl From<DecodeError> for BlockErrorKind {
    fn from(error: DecodeError) -> Self {
        match error {
            DecodeError::Truncated => BlockErrorKind::Truncated,
            DecodeError::Overflow => BlockErrorKind::Overflow,
        }
    }
}

impl fmt::Display for BlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            BlockErrorKind::Truncated => "input ended inside the array",
            BlockErrorKind::Overflow => "long out of range",
            BlockErrorKind::ByteSize => "block byte size does not match its items",
        };
        write!(f, "Avro array: {what} (at byte offset {})", self.offset)
    }
}

impl core::error::Error for BlockError {}

/// Appends the zigzag varint of `value`; returns its length.
#[cfg(feature = "alloc")]
fn push_long(out: &mut Vec<u8>, value: i64) -> usize {
    let (bytes, len) = encode_long(value);
    out.extend_from_slice(&bytes[..usize::from(len)]);
    usize::from(len)
}

/// Appends one block: the count of `values`, then the values (with the bulk
/// encoder). Writes nothing for an empty slice, since a zero count would
/// end the array. Returns the bytes appended.
///
/// ```
/// let mut out = Vec::new();
/// assert_eq!(varint_turbo::avro::encode_long_block(&[-1, 1], &mut out), 3);
/// assert_eq!(out, [0x04, 0x01, 0x02]);
/// ```
#[cfg(feature = "alloc")]
pub fn encode_long_block(values: &[i64], out: &mut Vec<u8>) -> usize {
    if values.is_empty() {
        return 0;
    }
    push_long(out, values.len() as i64) + crate::bulk::encode_slice_zigzag(values, out)
}

/// Appends one block in the skippable form: the negated count, the items'
/// byte size, then the values. Writes nothing for an empty slice. Returns
/// the bytes appended.
///
/// ```
/// let mut out = Vec::new();
/// assert_eq!(varint_turbo::avro::encode_long_block_with_size(&[-1, 300], &mut out), 5);
/// assert_eq!(out, [0x03, 0x06, 0x01, 0xd8, 0x04]); // -2 items, 3 bytes
/// ```
#[cfg(feature = "alloc")]
pub fn encode_long_block_with_size(values: &[i64], out: &mut Vec<u8>) -> usize {
    if values.is_empty() {
        return 0;
    }
    let size: usize = values
        .iter()
        .map(|&value| crate::encode::encoded_len(crate::zigzag::zigzag_encode_i64(value)))
        .sum();
    push_long(out, -(values.len() as i64))
        + push_long(out, size as i64)
        + crate::bulk::encode_slice_zigzag(values, out)
}

/// Appends a whole array of longs: one block with `values` (none if empty)
/// and the final zero count. Returns the bytes appended.
///
/// ```
/// let mut out = Vec::new();
/// assert_eq!(varint_turbo::avro::encode_long_array(&[], &mut out), 1);
/// assert_eq!(out, [0x00]);
/// ```
#[cfg(feature = "alloc")]
pub fn encode_long_array(values: &[i64], out: &mut Vec<u8>) -> usize {
    encode_long_block(values, out) + push_long(out, 0)
}

/// Decodes an array of longs from the start of `input`: every block up to
/// and including the zero count, in either form (plain or with byte size).
/// Appends the items to `out` and returns the bytes used; whatever follows
/// the array is not read.
///
/// On error `out` has gained the items before the failing one. Allocation
/// is bounded by the input: at most one item per input byte.
///
/// ```
/// use varint_turbo::avro;
/// let mut out = Vec::new();
/// let mut input = Vec::new();
/// avro::encode_long_block(&[7, 8], &mut input);
/// avro::encode_long_block_with_size(&[-9], &mut input);
/// input.extend_from_slice(&[0x00, 0x42]); // end of the array, then the next field
/// assert_eq!(avro::decode_long_array(&input, &mut out), Ok(input.len() - 1));
/// assert_eq!(out, [7, 8, -9]);
/// ```
#[cfg(feature = "alloc")]
pub fn decode_long_array(input: &[u8], out: &mut Vec<i64>) -> Result<usize, BlockError> {
    let mut pos = 0;
    loop {
        let (count, len) =
            decode_long(&input[pos..]).map_err(|error| BlockError::new(error, pos))?;
        pos += len;
        if count == 0 {
            return Ok(pos);
        }
        let items = if count < 0 {
            let size_at = pos;
            let (size, len) =
                decode_long(&input[pos..]).map_err(|error| BlockError::new(error, pos))?;
            pos += len;
            let Ok(size) = usize::try_from(size) else {
                return Err(BlockError::new(BlockErrorKind::ByteSize, size_at));
            };
            if size > input.len() - pos {
                return Err(BlockError::new(BlockErrorKind::Truncated, input.len()));
            }
            let items = &input[pos..pos + size];
            // Running out of `items` means the size was too small: the
            // input itself goes on.
            let wrong_size = BlockError::new(BlockErrorKind::ByteSize, size_at);
            match decode_block_items(items, count.unsigned_abs(), pos, out) {
                Ok(read) if read == size => read,
                Ok(_) => return Err(wrong_size),
                Err(error) if error.kind == BlockErrorKind::Truncated => return Err(wrong_size),
                Err(error) => return Err(error),
            }
        } else {
            decode_block_items(&input[pos..], count.unsigned_abs(), pos, out)?
        };
        pos += items;
    }
}

/// Decodes `count` items from the start of `items` (which begins at byte
/// `base` of the whole input) onto `out`; returns the bytes they took.
/// Reserves at most one item per byte of `items`. Fewer than `count` items
/// in `items` is `Truncated` where `items` ends.
#[cfg(feature = "alloc")]
fn decode_block_items(
    items: &[u8],
    count: u64,
    base: usize,
    out: &mut Vec<i64>,
) -> Result<usize, BlockError> {
    let slots = usize::try_from(count).map_or(items.len(), |count| count.min(items.len()));
    let start = out.len();
    out.resize(start + slots, 0);
    match crate::bulk::decode_slice_zigzag(items, &mut out[start..]) {
        Ok((read, bytes)) if read as u64 == count => Ok(bytes),
        Ok((read, _)) => {
            out.truncate(start + read);
            Err(BlockError::new(
                BlockErrorKind::Truncated,
                base + items.len(),
            ))
        }
        Err(error) => {
            out.truncate(start + error.index());
            Err(BlockError::new(error.kind(), base + error.offset()))
        }
    }
}
