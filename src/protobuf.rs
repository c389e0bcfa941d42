//! Protobuf's varint conventions, for code that reads and writes the wire
//! format by hand or implements a protobuf runtime.
//!
//! ## Scalar types
//! One module per varint-encoded scalar type, each with the same functions
//! (as in `prost::encoding`): [`encode`](int32::encode),
//! [`encoded_len`](int32::encoded_len), [`decode`](int32::decode), and for
//! packed repeated fields [`count_packed`](int32::count_packed),
//! [`encoded_len_packed`](int32::encoded_len_packed),
//! [`decode_packed`](int32::decode_packed) and
//! [`encode_packed`](int32::encode_packed) (the last two with feature
//! `alloc`).
//!
//! | module | Rust type | on the wire | reading |
//! |---|---|---|---|
//! | [`uint64`] | `u64` | varint | the varint |
//! | [`uint32`] | `u32` | varint | the varint's low 32 bits |
//! | [`int64`] | `i64` | two's complement as `u64`: negative values take 10 bytes | the varint as `i64` |
//! | [`int32`], [`enumeration`] | `i32` | sign-extended to 64 bits: negative values take 10 bytes | the varint's low 32 bits as `i32` |
//! | [`sint64`] | `i64` | zigzag | zigzag decode |
//! | [`sint32`] | `i32` | zigzag | zigzag decode of the low 32 bits |
//! | [`bool`](mod@bool) | `bool` | `0` or `1` | any non-zero varint is `true` |
//!
//! Every type reads a full 64-bit varint by the rules of
//! [`decode::<u64>`](crate::decode) (Go protowire's `ConsumeVarint`) and
//! then narrows **by truncation**, as protobuf parsers do (Go protowire,
//! upb, C++): an `int32` field written by a 64-bit `int64` writer, or a
//! `uint32` value above `u32::MAX`, still parses. That differs on purpose
//! from the crate's strict [`decode::<u32>`](crate::decode) and
//! [`decode_zigzag::<i32>`](crate::decode_zigzag), which reject varints
//! longer than 5 bytes and values above `u32::MAX` as
//! [`DecodeError::Overflow`]. Use those when the narrower type is the
//! format's own rule (Avro `int`, Minecraft `VarInt`).
//!
//! Packed repeated fields go through the bulk API
//! ([`decode_slice`](crate::decode_slice),
//! [`encode_slice_into`](crate::encode_slice_into)): `decode_packed`
//! decodes straight into the `Vec`'s spare capacity and counts the values
//! ([`count_varints`](crate::count_varints), which is
//! [`count_packed`](int32::count_packed)) only when the `Vec` must grow, so
//! it allocates at most one value per byte of payload; `encode_packed`
//! writes the values and then the length prefix in front of them, with no
//! sizing pass and no zero-fill.
//!
//! ## Field keys
//! Every field starts with a key, the varint `field_number << 3 |
//! wire_type`: see [`FieldKey`] and [`WireType`]. Length-delimited fields
//! (strings, bytes, submessages, packed fields) follow their key with a
//! varint byte count: [`decode_length_delimited`] splits one off.
//!
//! ```
//! use varint_turbo::protobuf::{self, FieldKey, WireType};
//!
//! // message M { int32 a = 1; repeated sint64 b = 2 [packed = true]; }
//! // with a = -1, b = [1, -2, 3].
//! let mut message = Vec::new();
//! let key = FieldKey::new(1, WireType::Varint).unwrap().encode();
//! message.extend_from_slice(&key.0[..usize::from(key.1)]);
//! let a = protobuf::int32::encode(-1);
//! message.extend_from_slice(&a.0[..usize::from(a.1)]);
//! let key = FieldKey::new(2, WireType::Len).unwrap().encode();
//! message.extend_from_slice(&key.0[..usize::from(key.1)]);
//! protobuf::sint64::encode_packed(&[1, -2, 3], &mut message);
//! assert_eq!(message.len(), 1 + 10 + 1 + 1 + 3);
//!
//! let (key, used) = FieldKey::decode(&message).unwrap();
//! assert_eq!((key.field_number(), key.wire_type()), (1, WireType::Varint));
//! let (a, len) = protobuf::int32::decode(&message[used..]).unwrap();
//! assert_eq!(a, -1);
//! let rest = &message[used + len..];
//! let (key, used) = FieldKey::decode(rest).unwrap();
//! assert_eq!((key.field_number(), key.wire_type()), (2, WireType::Len));
//! let (payload, _) = protobuf::decode_length_delimited(&rest[used..]).unwrap();
//! let mut b = Vec::new();
//! protobuf::sint64::decode_packed(payload, &mut b).unwrap();
//! assert_eq!(b, [1, -2, 3]);
//! ```

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::any::TypeId;
use core::fmt;
#[cfg(any(feature = "alloc", feature = "bytes"))]
use core::mem::MaybeUninit;

#[cfg(feature = "alloc")]
use crate::arch::scalar::decode_slice::{first_16_terminators, BYTEWISE_MAX_BYTES};
#[cfg(feature = "alloc")]
use crate::error::BulkDecodeError;
use crate::error::DecodeError;
#[cfg(any(feature = "alloc", feature = "bytes"))]
use crate::varint::SignExtended32;

/// How many values the packed helpers convert per bulk call (2 KiB of `u64`
/// on the stack).
#[cfg(any(feature = "alloc", feature = "bytes"))]
const PACKED_BATCH: usize = 256;

/// The wire type in the low 3 bits of a field key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum WireType {
    /// `int32`, `int64`, `uint32`, `uint64`, `sint32`, `sint64`, `bool`,
    /// `enum`: one varint.
    Varint = 0,
    /// `fixed64`, `sfixed64`, `double`: 8 bytes.
    I64 = 1,
    /// Strings, bytes, submessages, packed repeated fields: a varint byte
    /// count, then that many bytes.
    Len = 2,
    /// Start of a group (deprecated).
    SGroup = 3,
    /// End of a group (deprecated).
    EGroup = 4,
    /// `fixed32`, `sfixed32`, `float`: 4 bytes.
    I32 = 5,
}

impl WireType {
    /// The wire type with these low 3 bits; `None` for 6 and 7, which
    /// protobuf does not define (and for anything above 7).
    ///
    /// ```
    /// use varint_turbo::protobuf::WireType;
    /// assert_eq!(WireType::from_bits(2), Some(WireType::Len));
    /// assert_eq!(WireType::from_bits(6), None);
    /// ```
    pub const fn from_bits(bits: u8) -> Option<Self> {
        Some(match bits {
            0 => WireType::Varint,
            1 => WireType::I64,
            2 => WireType::Len,
            3 => WireType::SGroup,
            4 => WireType::EGroup,
            5 => WireType::I32,
            _ => return None,
        })
    }
}

/// A field key (a "tag"): field number and wire type, on the wire as the
/// varint `field_number << 3 | wire_type`.
///
/// Field numbers are `1..=`[`FieldKey::MAX_FIELD_NUMBER`] (`2^29 - 1`);
/// both constructors enforce it, so an existing `FieldKey` always encodes
/// to a valid key of 1 to 5 bytes.
///
/// ```
/// use varint_turbo::protobuf::{FieldKey, WireType};
///
/// let key = FieldKey::new(16, WireType::Len).unwrap();
/// let (bytes, len) = key.encode();
/// assert_eq!(&bytes[..usize::from(len)], &[0x82, 0x01]);
/// assert_eq!(FieldKey::decode(&bytes), Ok((key, 2)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FieldKey {
    field_number: u32,
    wire_type: WireType,
}

impl FieldKey {
    /// The largest field number protobuf allows: `2^29 - 1`.
    pub const MAX_FIELD_NUMBER: u32 = (1 << 29) - 1;

    /// A key for `field_number` and `wire_type`; fails with
    /// [`KeyError::FieldNumber`] unless `1 <= field_number <=`
    /// [`MAX_FIELD_NUMBER`](Self::MAX_FIELD_NUMBER).
    ///
    /// ```
    /// use varint_turbo::protobuf::{FieldKey, KeyError, WireType};
    /// assert!(FieldKey::new(1, WireType::Varint).is_ok());
    /// assert_eq!(FieldKey::new(0, WireType::Varint), Err(KeyError::FieldNumber(0)));
    /// assert!(FieldKey::new(1 << 29, WireType::I32).is_err());
    /// ```
    pub const fn new(field_number: u32, wire_type: WireType) -> Result<Self, KeyError> {
        if field_number == 0 || field_number > Self::MAX_FIELD_NUMBER {
            return Err(KeyError::FieldNumber(field_number as u64));
        }
        Ok(Self {
            field_number,
            wire_type,
        })
    }

    /// The field number, `1..=2^29 - 1`.
    ///
    /// ```
    /// use varint_turbo::protobuf::{FieldKey, WireType};
    /// assert_eq!(FieldKey::new(7, WireType::I64).unwrap().field_number(), 7);
    /// ```
    pub const fn field_number(self) -> u32 {
        self.field_number
    }

    /// The wire type.
    ///
    /// ```
    /// use varint_turbo::protobuf::{FieldKey, WireType};
    /// assert_eq!(FieldKey::new(7, WireType::I64).unwrap().wire_type(), WireType::I64);
    /// ```
    pub const fn wire_type(self) -> WireType {
        self.wire_type
    }

    /// The key's varint value, `field_number << 3 | wire_type`.
    const fn to_u32(self) -> u32 {
        self.field_number << 3 | self.wire_type as u32
    }

    /// Encodes the key as a varint, in the shape of [`crate::encode`].
    ///
    /// ```
    /// use varint_turbo::protobuf::{FieldKey, WireType};
    /// let (bytes, len) = FieldKey::new(1, WireType::Varint).unwrap().encode();
    /// assert_eq!(&bytes[..usize::from(len)], &[0x08]);
    /// ```
    #[must_use]
    pub fn encode(self) -> ([u8; 16], u8) {
        crate::encode::encode(self.to_u32())
    }

    /// The key's encoded length (1 for field numbers up to 15, at most 5).
    ///
    /// ```
    /// use varint_turbo::protobuf::{FieldKey, WireType};
    /// assert_eq!(FieldKey::new(15, WireType::Len).unwrap().encoded_len(), 1);
    /// assert_eq!(FieldKey::new(16, WireType::Len).unwrap().encoded_len(), 2);
    /// ```
    #[must_use]
    pub fn encoded_len(self) -> usize {
        crate::encode::encoded_len(self.to_u32())
    }

    /// Decodes a key from the start of `input`; returns it and its length.
    ///
    /// The varint follows [`decode::<u64>`](crate::decode); then the field
    /// number must be `1..=2^29 - 1` ([`KeyError::FieldNumber`]) and the
    /// wire type one of the six defined ([`KeyError::WireType`] for 6 and 7).
    ///
    /// ```
    /// use varint_turbo::protobuf::{FieldKey, KeyError, WireType};
    /// use varint_turbo::DecodeError;
    ///
    /// let (key, len) = FieldKey::decode(&[0x1a, 0x03]).unwrap();
    /// assert_eq!((key.field_number(), key.wire_type(), len), (3, WireType::Len, 1));
    /// assert_eq!(FieldKey::decode(&[0x02]), Err(KeyError::FieldNumber(0)));
    /// assert_eq!(FieldKey::decode(&[0x0e]), Err(KeyError::WireType(6)));
    /// assert_eq!(FieldKey::decode(&[0x8a]), Err(KeyError::Varint(DecodeError::Truncated)));
    /// ```
    pub fn decode(input: &[u8]) -> Result<(Self, usize), KeyError> {
        let (value, len) = crate::decode::decode::<u64>(input)?;
        let field_number = value >> 3;
        let bits = (value & 7) as u8;
        if field_number == 0 || field_number > u64::from(Self::MAX_FIELD_NUMBER) {
            return Err(KeyError::FieldNumber(field_number));
        }
        let Some(wire_type) = WireType::from_bits(bits) else {
            return Err(KeyError::WireType(bits));
        };
        Ok((
            Self {
                field_number: field_number as u32,
                wire_type,
            },
            len,
        ))
    }
}

/// Why a field key is invalid.
///
/// ```
/// use varint_turbo::protobuf::{FieldKey, KeyError};
/// let error = FieldKey::decode(&[0x0f]).unwrap_err();
/// assert_eq!(error, KeyError::WireType(7));
/// assert_eq!(error.to_string(), "protobuf field key: undefined wire type 7");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KeyError {
    /// The key's varint is truncated or overflows a `u64`.
    Varint(DecodeError),
    /// The field number is 0 or above [`FieldKey::MAX_FIELD_NUMBER`].
    FieldNumber(u64),
    /// The wire type is 6 or 7, which protobuf does not define.
    WireType(u8),
}

impl From<DecodeError> for KeyError {
    fn from(error: DecodeError) -> Self {
        KeyError::Varint(error)
    }
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Varint(error) => write!(f, "protobuf field key: {error}"),
            KeyError::FieldNumber(number) => write!(
                f,
                "protobuf field key: field number {number} outside 1..={}",
                FieldKey::MAX_FIELD_NUMBER
            ),
            KeyError::WireType(bits) => {
                write!(f, "protobuf field key: undefined wire type {bits}")
            }
        }
    }
}

impl core::error::Error for KeyError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            KeyError::Varint(error) => Some(error),
            _ => None,
        }
    }
}

/// Splits a length-delimited value (string, bytes, submessage, packed
/// field) off the start of `input`: a varint byte count, then that many
/// bytes. Returns the payload and the bytes used in all (prefix + payload).
///
/// [`DecodeError::Truncated`] if the count says more bytes than `input`
/// has (as Go protowire's `ConsumeBytes`), or the prefix is cut off;
/// [`DecodeError::Overflow`] if the prefix overflows a `u64`.
///
/// ```
/// use varint_turbo::{protobuf, DecodeError};
/// assert_eq!(protobuf::decode_length_delimited(&[0x02, 0x68, 0x69, 0x00]), Ok((&b"hi"[..], 3)));
/// assert_eq!(protobuf::decode_length_delimited(&[0x05, 0x68]), Err(DecodeError::Truncated));
/// ```
pub fn decode_length_delimited(input: &[u8]) -> Result<(&[u8], usize), DecodeError> {
    let (len, prefix) = crate::decode::decode::<u64>(input)?;
    let rest = &input[prefix..];
    match usize::try_from(len) {
        Ok(len) if len <= rest.len() => Ok((&rest[..len], prefix + len)),
        _ => Err(DecodeError::Truncated),
    }
}

/// Payloads up to this many bytes take [`decode_packed_short`], inline in
/// the caller, with no call into the general path (its loop, the
/// routing of `int32`s and its frame): callgrind, 16 one-byte `int32`s,
/// 295 instructions per call through the general path, 106 now against
/// 63 for `decode_slice::<u32>`; 256 of them, 547 and 492 against 403.
/// Longer payloads pay that once for many values.
#[cfg(feature = "alloc")]
const SHORT_PACKED_BYTES: usize = 256;

/// Decodes the packed varints of `payload` and appends them to `out`
/// through `from_wire`.
///
/// The values are decoded as `N`, an integer of `V`'s size, straight into
/// `out`'s spare capacity and converted in place: no staging buffer and no
/// second pass over the bytes when the capacity is there (a parser's
/// reused `Vec`). For a value that fits `N`, `from_wire` of it is what the
/// 64-bit reading gives. (Protobuf readers truncate what does not fit, and
/// a 10-byte negative `int32` does not fit `u32`.) At the first varint
/// `N`'s decoder rejects, the rest goes through the 64-bit batches of
/// [`decode_packed_wide`], which give the exact result; for 64-bit `N` its
/// error is the result.
///
/// `in_place`, where given (the zigzag types), converts the decoded `N`s
/// seen as `V`s instead of `from_wire` value by value: the bulk zigzag
/// step, in the detected backend's vector lanes as `decode_slice_zigzag`
/// has it. Only for integer `V`, whose slots any bits initialize.
///
/// `long_varints` (`int32`, `enum`: negative values take 10 bytes): a
/// payload whose first 32 bytes hold a varint of 6 bytes or more starts in
/// the 64-bit batches, since `N`'s decoder would reject it soon and its
/// error path costs more than the batches (`int32` with 10% negatives, 16
/// values: 0.32x `decode_slice::<u64>` that way). The other types keep
/// the narrow decoder (their long varints are rare: `int64` writers).
///
/// Room: the spare capacity is used as it is; when it is full (or there
/// is none) with bytes left, `count_varints` of those bytes is reserved,
/// the exact number of values left (at most one per byte).
///
/// A payload of at most [`SHORT_PACKED_BYTES`] (a short packed field)
/// takes [`decode_packed_short`], inline in the caller as `decode_slice`'s
/// byte loop is; the rest, [`decode_packed_long`]. A `bool` payload of
/// bytes 0 and 1 is copied as it is, whatever its length.
#[cfg(feature = "alloc")]
#[inline(always)]
fn decode_packed_with<V: 'static, N: crate::varint::VarInt>(
    payload: &[u8],
    out: &mut Vec<V>,
    from_wire: impl Fn(u64) -> V + Copy,
    in_place: Option<fn(&mut [V])>,
    long_varints: bool,
) -> Result<usize, BulkDecodeError> {
    const {
        assert!(
            size_of::<N>() == size_of::<V>() && align_of::<N>() == align_of::<V>(),
            "N is stored in V's slots"
        )
    };
    debug_assert!(in_place.is_none() || TypeId::of::<V>() != TypeId::of::<bool>());
    // `out` as a `Vec<bool>` when `V` is `bool` (decided at compile time).
    if let Some(bools) = (out as &mut dyn core::any::Any).downcast_mut::<Vec<bool>>() {
        // What writers emit for `bool` (bytes 0 and 1) is one varint per
        // byte: no decoder needed, whatever the field's length. One OR over
        // the bytes (vectorized) tells; any byte with its high bit set
        // (an overlong `bool`, or an error) takes the general path.
        let any = payload.iter().fold(0, |any, &byte| any | byte);
        if any <= 1 {
            // Bytes 0 and 1 are `false` and `true` as they are: a copy (the
            // conversion loop took 84 instructions for 16 bytes).
            // SAFETY: every byte of `payload` is 0 or 1 (checked above),
            // each a valid `bool`, which has `u8`'s size and alignment.
            let as_bools = unsafe {
                core::slice::from_raw_parts(payload.as_ptr().cast::<bool>(), payload.len())
            };
            bools.extend_from_slice(as_bools);
            return Ok(payload.len());
        }
        if any < 0x80 {
            bools.extend(payload.iter().map(|&byte| byte != 0));
            return Ok(payload.len());
        }
    }
    // Up to 16 bytes (at most one negative `int32`) the narrow decoder
    // tries first, without the test for long varints.
    let long_first = long_varints && payload.len() > BYTEWISE_MAX_BYTES && has_long_varint(payload);
    if payload.len() <= SHORT_PACKED_BYTES && !long_first {
        if let Some(values) = decode_packed_short::<V, N>(payload, out, from_wire, in_place) {
            return Ok(values);
        }
    }
    decode_packed_long::<V, N>(payload, out, from_wire, in_place, long_varints)
}

/// [`decode_packed_with`] of a payload of at most [`SHORT_PACKED_BYTES`]
/// that decodes whole as `N`: appends its values and returns how many.
/// `None` (with `out` as it was) for one that does not (an error, or a
/// varint `N` rejects), which [`decode_packed_long`] decides. Decodes into
/// the spare capacity as it is, and reserves the count of varint ends left
/// only when it is full (a reused `Vec`, as long as the field's last
/// count, needs no count).
#[cfg(feature = "alloc")]
#[inline(always)]
fn decode_packed_short<V, N: crate::varint::VarInt>(
    payload: &[u8],
    out: &mut Vec<V>,
    from_wire: impl Fn(u64) -> V + Copy,
    in_place: Option<fn(&mut [V])>,
) -> Option<usize> {
    let before = out.len();
    let (mut values, mut pos) = (0, 0);
    loop {
        let rest = &payload[pos..];
        if out.capacity() == out.len() {
            // The values left, exactly (none for a cut-off varint: then
            // no progress below, and the general path gives the error).
            out.reserve(rest.iter().filter(|&&byte| byte < 0x80).count());
        }
        let (appended, consumed, error) = decode_into_spare::<V, N>(rest, out, from_wire, in_place);
        values += appended;
        pos += consumed;
        if error.is_some() || appended == 0 {
            out.truncate(before);
            return None;
        }
        if pos >= payload.len() {
            return Some(values);
        }
    }
}

/// [`decode_packed_with`] past the short payloads, out of line.
#[cfg(feature = "alloc")]
#[inline(never)]
fn decode_packed_long<V: 'static, N: crate::varint::VarInt>(
    payload: &[u8],
    out: &mut Vec<V>,
    from_wire: impl Fn(u64) -> V + Copy,
    in_place: Option<fn(&mut [V])>,
    long_varints: bool,
) -> Result<usize, BulkDecodeError> {
    if long_varints && has_long_varint(payload) {
        return decode_packed_wide(payload, out, from_wire);
    }
    let (mut decoded, mut pos) = (0, 0);
    while pos < payload.len() {
        let rest = &payload[pos..];
        let (values, consumed, error) = if out.capacity() == out.len() {
            // The values left, exactly. None: a cut-off varint, whose
            // error the batches below give without a slot.
            match crate::bulk::count_varints(rest) {
                0 => (0, 0, None),
                values => {
                    out.reserve(values);
                    decode_into_spare::<V, N>(rest, out, from_wire, in_place)
                }
            }
        } else {
            decode_into_spare::<V, N>(rest, out, from_wire, in_place)
        };
        decoded += values;
        match error {
            // Every value of `N`'s width reads as the 64-bit reading would
            // have it: the error is the result.
            Some(error) if size_of::<N>() == 8 => {
                return Err(BulkDecodeError::new(
                    error.kind(),
                    decoded,
                    pos + error.offset(),
                ))
            }
            // A varint `N` rejects, a cut-off varint (or, never expected,
            // no progress): the 64-bit batches from its start decide.
            Some(_) => {}
            None if consumed > 0 => {
                pos += consumed;
                continue;
            }
            None => {}
        }
        pos += consumed;
        return match decode_packed_wide(&payload[pos..], out, from_wire) {
            Ok(values) => Ok(decoded + values),
            Err(error) => Err(BulkDecodeError::new(
                error.kind(),
                decoded + error.index(),
                pos + error.offset(),
            )),
        };
    }
    Ok(decoded)
}

/// Whether the first 32 bytes of `payload` hold a varint of 6 bytes or
/// more (five continuation bits in a row), which no `u32` decoder takes:
/// two SSE2 `pmovmskb` on x86-64. Payloads under 16 bytes answer no (the
/// byte loop takes them, and its error path is short).
#[cfg(feature = "alloc")]
#[inline(always)]
fn has_long_varint(payload: &[u8]) -> bool {
    let Some(ends) = first_16_terminators(payload) else {
        return false;
    };
    let more = payload
        .get(16..)
        .and_then(first_16_terminators)
        .unwrap_or(u16::MAX);
    let continues = !(u32::from(ends) | u32::from(more) << 16);
    continues & continues >> 1 & continues >> 2 & continues >> 3 & continues >> 4 != 0
}

/// One bulk decode of `input` as `N` into `out`'s spare capacity (as many
/// values as fit), each converted in place to `V` (by `in_place`, else
/// through `from_wire`); returns the values appended, the bytes they took
/// and the decoder's error (the values before it are appended).
#[cfg(feature = "alloc")]
#[inline(always)]
fn decode_into_spare<V, N: crate::varint::VarInt>(
    input: &[u8],
    out: &mut Vec<V>,
    from_wire: impl Fn(u64) -> V,
    in_place: Option<fn(&mut [V])>,
) -> (usize, usize, Option<BulkDecodeError>) {
    let spare = out.spare_capacity_mut();
    let slots = spare.len();
    // `N` and `V` have the same size and alignment (checked at compile
    // time by `decode_packed_with`, the only entry to its callers).
    // SAFETY: so the uninitialized slots are as many `N` slots.
    let narrow = unsafe {
        core::slice::from_raw_parts_mut(spare.as_mut_ptr().cast::<MaybeUninit<N>>(), slots)
    };
    // A few bytes: the byte loop inline, its 1-byte runs a word at a
    // time, as in `decode_slice`.
    let result = if input.len() <= BYTEWISE_MAX_BYTES {
        crate::bulk::short_values(input, narrow)
    } else {
        crate::bulk::decode_uninit(input, narrow)
    };
    let (values, consumed, error) = match result {
        Ok((values, consumed)) => (values, consumed, None),
        Err(error) => (error.index(), error.offset(), Some(error)),
    };
    // The decoder writes only inside the slice it was given; `min` keeps
    // the bound from resting on the count it reports.
    let values = values.min(slots);
    let base = spare.as_mut_ptr();
    if let Some(in_place) = in_place {
        // The first `values` slots were initialized as `N`s by the
        // decoder; `V` is an integer of `N`'s size (`in_place`'s contract).
        // SAFETY: so they are valid `V`s, converted in place.
        in_place(unsafe { core::slice::from_raw_parts_mut(base.cast::<V>(), values) });
    } else {
        // The first `values` slots are inside the spare capacity and were
        // initialized as `N`s by the decoder.
        // SAFETY: so, as `N` and `V` have one size and alignment (checked).
        unsafe { convert_slots::<V, N>(base, values, from_wire) };
    }
    // SAFETY: the first `values` spare slots now hold `V`s.
    unsafe { out.set_len(out.len() + values) };
    (values, consumed.min(input.len()), error)
}

/// Converts the first `values` slots at `base`, which hold `N`s, to `V`s
/// in place through `from_wire`.
///
/// # Safety
/// `base` must be valid for reads and writes of `values` slots, which
/// hold initialized `N`s, and `N` must have `V`'s size and alignment.
#[cfg(feature = "alloc")]
#[inline(always)]
unsafe fn convert_slots<V, N: crate::varint::VarInt>(
    base: *mut MaybeUninit<V>,
    values: usize,
    from_wire: impl Fn(u64) -> V,
) {
    for i in 0..values {
        // Slot i < values holds an `N` (the caller); it is read, then
        // overwritten by the `V` (for most types the same bits: the
        // compiler drops the loop).
        // SAFETY: hence the read and the write are valid (same size and alignment).
        unsafe {
            let n = base.add(i).cast::<N>().read();
            base.add(i).write(MaybeUninit::new(from_wire(n.to_u64())));
        }
    }
}

/// Decodes the packed varints of `payload` as `u64`s a batch at a time and
/// appends them to `out` through `from_wire` (what `decode_packed_with`
/// falls back to where a varint does not fit the narrow type: `int32`s
/// sign-extended to 10 bytes, values truncated by protobuf's rules).
/// Past one batch, 4-byte types take [`low_halves_in_spare`] instead
/// (one pass, no batches) wherever the backend has that decoder: all but
/// NEON.
#[cfg(feature = "alloc")]
fn decode_packed_wide<V>(
    payload: &[u8],
    out: &mut Vec<V>,
    from_wire: impl Fn(u64) -> V,
) -> Result<usize, BulkDecodeError> {
    // Past one stack batch (a payload of at most one batch is one bulk
    // call into the stack and a copy, which measured faster on 16 values:
    // 24 against 32-37 ns).
    let four_bytes = size_of::<V>() == size_of::<u32>() && align_of::<V>() == align_of::<u32>();
    if four_bytes && payload.len() > PACKED_BATCH {
        if let Some(result) = low_halves_in_spare(payload, out, &from_wire) {
            return result;
        }
    }
    let mut wire = [MaybeUninit::<u64>::uninit(); PACKED_BATCH];
    if payload.len() <= PACKED_BATCH {
        // At most one value per byte: one bulk call into an uninitialized
        // batch (zeroing 2 KiB would cost more than a short field's
        // decode), and `extend` reserves exactly what was decoded.
        let (result, decoded) = match crate::bulk::decode_uninit(payload, &mut wire) {
            Ok((values, _)) => (Ok(values), values),
            Err(error) => (Err(error), error.index()),
        };
        // The decoder writes only inside the slice it was given; `min`
        // keeps the bound from resting on the count it reports.
        let decoded = decoded.min(PACKED_BATCH);
        // SAFETY: the decoder initialized the first `decoded` slots (the
        // values written, or those before the error), all inside `wire`.
        let decoded = unsafe { core::slice::from_raw_parts(wire.as_ptr().cast::<u64>(), decoded) };
        out.extend(decoded.iter().map(|&w| from_wire(w)));
        return result;
    }
    // Room for the whole payload, unless the spare capacity has a slot per
    // byte (a payload of one stack batch or less, above, reserves exactly
    // as it is appended; `low_halves_in_spare` only when `out` is full).
    if out.capacity() - out.len() < payload.len() {
        out.reserve(crate::bulk::count_varints(payload));
    }
    // 4-byte values (`int32`, `enum`): first as `u64`s straight into the
    // spare capacity, narrowed in place.
    let (mut decoded, mut pos) = wide_in_spare(payload, out, &from_wire)?;
    // Batches through the stack, each decoded where the last one stopped
    // (the SIMD decoders stop where whole blocks no longer fit, instead of
    // finishing every batch with their scalar tail, and read the bytes
    // before the batch as their first window instead of a scalar head).
    // `out` grows by `extend`'s batches: `decode_packed_with` reserved
    // for the whole payload where it had to allocate.
    while pos < payload.len() {
        let (values, next, error) = match crate::bulk::decode_run_uninit(payload, pos, &mut wire) {
            Ok((values, next)) => (values, next, None),
            Err(error) => (error.index(), pos, Some(error)),
        };
        // The decoder writes only inside the slice it was given; `min`
        // keeps the bound from resting on the count it reports.
        let values = values.min(PACKED_BATCH);
        // SAFETY: the decoder initialized the first `values` slots (the
        // values written, or those before the error), all inside `wire`.
        let batch = unsafe { core::slice::from_raw_parts(wire.as_ptr().cast::<u64>(), values) };
        out.extend(batch.iter().map(|&w| from_wire(w)));
        if let Some(error) = error {
            // The offset already counts from the payload's start.
            return Err(BulkDecodeError::new(
                error.kind(),
                decoded + error.index(),
                error.offset(),
            ));
        }
        decoded += values;
        // Every call with bytes and room left decodes a value or fails.
        debug_assert!(next > pos);
        pos = next.min(payload.len());
    }
    Ok(decoded)
}

/// [`decode_packed_wide`] for 4-byte `V` in one pass where the detected
/// backend has a decoder that keeps the low 32 bits of `u64` varints
/// (`Backend::decode_low_halves_uninit`: all but NEON), straight into `out`'s
/// spare capacity; `None` elsewhere. `from_wire` of a 4-byte type reads
/// only the low 32 bits of the wire value (protobuf truncates), so it is
/// given those. Room: the spare capacity as it is; when it is full with
/// bytes left, the count of their varints is reserved (a reused `Vec`
/// needs no count: counting took 95 of 145 cycles of a 16-value call).
#[cfg(feature = "alloc")]
#[inline(never)]
fn low_halves_in_spare<V>(
    payload: &[u8],
    out: &mut Vec<V>,
    from_wire: &impl Fn(u64) -> V,
) -> Option<Result<usize, BulkDecodeError>> {
    let backend = crate::bulk::detected_backend();
    if !backend.has_low_halves_decoder() {
        return None;
    }
    let (mut decoded, mut pos) = (0, 0);
    while pos < payload.len() {
        let rest = &payload[pos..];
        if out.capacity() == out.len() {
            // The values left, exactly; none: `rest` is a cut-off varint.
            match crate::bulk::count_varints(rest) {
                0 => {
                    let kind = match crate::decode::decode::<u64>(rest) {
                        Err(kind) => kind,
                        // Unreachable (no varint ends in `rest`), but never
                        // claim success.
                        Ok(_) => DecodeError::Truncated,
                    };
                    return Some(Err(BulkDecodeError::new(kind, decoded, pos)));
                }
                values => out.reserve(values),
            }
        }
        let spare = out.spare_capacity_mut();
        let slots = spare.len();
        let base = spare.as_mut_ptr();
        // `V` has `u32`'s size and alignment (the caller checks).
        // SAFETY: so the uninitialized slots are as many `u32` slots.
        let halves =
            unsafe { core::slice::from_raw_parts_mut(base.cast::<MaybeUninit<u32>>(), slots) };
        let result = backend.decode_low_halves_uninit(rest, halves)?;
        let (values, consumed, error) = match result {
            Ok((values, consumed)) => (values, consumed, None),
            Err(error) => (error.index(), error.offset(), Some(error)),
        };
        // The decoder writes only inside the slice it was given; `min`
        // keeps the bound from resting on the count it reports.
        let values = values.min(slots);
        // The first `values` slots were initialized as `u32`s by the
        // decoder.
        // SAFETY: so, as `u32` and `V` have one size and alignment (checked).
        unsafe { convert_slots::<V, u32>(base, values, from_wire) };
        // SAFETY: the first `values` spare slots now hold `V`s.
        unsafe { out.set_len(out.len() + values) };
        if let Some(error) = error {
            return Some(Err(BulkDecodeError::new(
                error.kind(),
                decoded + error.index(),
                pos + error.offset(),
            )));
        }
        decoded += values;
        if consumed == 0 {
            // Never expected (a call with bytes and room decodes a value
            // or fails): one value by the reference, which decides.
            match crate::decode::decode::<u64>(rest) {
                Ok((wire, len)) => {
                    out.push(from_wire(wire));
                    decoded += 1;
                    pos += len;
                }
                Err(kind) => return Some(Err(BulkDecodeError::new(kind, decoded, pos))),
            }
            continue;
        }
        // Bounded by the bytes given: the next slice rests on it.
        pos += consumed.min(rest.len());
    }
    Some(Ok(decoded))
}

/// The spare capacity of a `Vec` of 4-byte values that [`wide_in_spare`]
/// still fills in place: below this many `u64` slots the stack batches of
/// [`decode_packed_wide`] take the rest (a bulk call per round costs more
/// than the batch there).
#[cfg(feature = "alloc")]
const WIDE_IN_SPARE_MIN_VALUES: usize = 256;

/// The first rounds of [`decode_packed_wide`] for a 4-byte `V` where the
/// backend has no low-halves decoder (NEON; the others take
/// [`low_halves_in_spare`], one pass: SSSE3 0.52 -> 0.97 of
/// `decode_slice::<u64>`'s speed, AVX2 0.71-0.84 -> 0.93, Zen 4): decodes
/// `u64`s with the run decoder (which stops before its scalar tail; the
/// whole-input decoder, with that tail in every round, was slower than the
/// stack batches: 0.42-0.58) into the spare capacity of
/// `out` seen as 8-byte slots (half as many values as it has slots), then
/// narrows them in place to the front of it, and again into what is left,
/// while at least [`WIDE_IN_SPARE_MIN_VALUES`] fit. `decode_packed_with`
/// reserved a slot per value: the rounds halve, and most values of a long
/// field are decoded in a few calls, with no copy through the stack and no
/// restart per 256 values (`int32` with 10% negatives, Zen 3, paired
/// rounds: from 0.65-0.67 of `decode_slice::<u64>`'s speed on the same
/// bytes to 0.74-0.78 at 4,096 and 1M values; callgrind, 4,096 values:
/// 5.1 instructions per value above `decode_slice`'s 12.8, now 2.6). Below
/// 512 values the stack batches alone take the field.
/// Returns the values appended and the bytes they took, or the error with
/// its index and offset in `payload`; other `V`s take none of it.
#[cfg(feature = "alloc")]
fn wide_in_spare<V>(
    payload: &[u8],
    out: &mut Vec<V>,
    from_wire: &impl Fn(u64) -> V,
) -> Result<(usize, usize), BulkDecodeError> {
    if size_of::<V>() != 4 || align_of::<V>() != 4 {
        return Ok((0, 0));
    }
    let (mut decoded, mut pos) = (0, 0);
    while pos < payload.len() {
        let spare = out.spare_capacity_mut();
        let base = spare.as_mut_ptr().cast::<u8>();
        // The first 8-byte boundary in the spare capacity: 0 or 4 bytes in
        // (the slots are 4-byte aligned), from the address itself
        // (`align_offset` may answer that it cannot tell).
        let skip = base.addr().wrapping_neg() % align_of::<u64>();
        let room = (spare.len() * 4).saturating_sub(skip) / 8;
        if room < WIDE_IN_SPARE_MIN_VALUES {
            break;
        }
        // `skip + 8 * room <= 4 * spare.len()` bytes from `base` are the
        // `Vec`'s spare capacity, owned and writable.
        // SAFETY: so, `base + skip` being 8-byte aligned, `room` u64 slots.
        let wide = unsafe {
            core::slice::from_raw_parts_mut(base.add(skip).cast::<MaybeUninit<u64>>(), room)
        };
        let (values, next, error) = match crate::bulk::decode_run_uninit(payload, pos, wide) {
            Ok((values, next)) => (values, next, None),
            Err(error) => (error.index(), pos, Some(error)),
        };
        // The decoder writes only inside the slice it was given; `min`
        // keeps the bound from resting on the count it reports.
        let values = values.min(room);
        // The first `values` 8-byte slots from `base + skip` hold the
        // decoded `u64`s; `values <= room` 4-byte slots fit from `base`.
        // SAFETY: so the bytes `narrow_in_place` reads and writes are there.
        unsafe { narrow_in_place(base, skip, values, from_wire) };
        // SAFETY: the first `values` spare slots now hold `V`s.
        unsafe { out.set_len(out.len() + values) };
        if let Some(error) = error {
            // The offset already counts from the payload's start.
            return Err(BulkDecodeError::new(
                error.kind(),
                decoded + error.index(),
                error.offset(),
            ));
        }
        decoded += values;
        if next <= pos {
            break;
        }
        pos = next.min(payload.len());
    }
    Ok((decoded, pos))
}

/// Converts the `values` `u64`s at `base + skip` (8-byte slots) to 4-byte
/// `V`s at `base` (4-byte slots), front to back, four at a time. Value
/// `i` is read from bytes `skip + 8i..` before it is written to `4i..`,
/// and every later read starts past that write: nothing unread is
/// overwritten.
///
/// # Safety
/// `base` must be valid for reads and writes of `skip + 8 * values`
/// bytes, `base + skip` 8-byte aligned and holding `values` initialized
/// `u64`s, and `base` aligned for `V`, a 4-byte type.
#[cfg(feature = "alloc")]
#[inline(always)]
unsafe fn narrow_in_place<V>(
    base: *mut u8,
    skip: usize,
    values: usize,
    from_wire: &impl Fn(u64) -> V,
) {
    // SAFETY: inside the bytes the caller vouches for.
    let wide = unsafe { base.add(skip) }.cast::<u64>();
    let narrow = base.cast::<V>();
    let mut i = 0;
    while i + 4 <= values {
        // Chunk `i..i + 4` is read whole (bytes `skip + 8i..skip + 8i +
        // 32`) before its 16 bytes at `4i` are written; the next chunk's
        // reads start at `skip + 8i + 32`, past them.
        // SAFETY: inside the caller's bytes; `wide + i` is 8-byte aligned
        // and holds initialized `u64`s, `narrow + i` is aligned for `V`.
        unsafe {
            let chunk = wide.add(i).cast::<[u64; 4]>().read();
            narrow.add(i).cast::<[V; 4]>().write(chunk.map(from_wire));
        }
        i += 4;
    }
    while i < values {
        // SAFETY: as above, one value.
        unsafe { narrow.add(i).write(from_wire(wide.add(i).read())) };
        i += 1;
    }
}

/// `values` as their bytes when `V` is `bool`. A `bool` is one byte
/// holding 0 or 1, which is also its whole varint: the packed body of
/// `bool`s is their bytes as they are. (`TypeId`s of known types compare
/// at compile time: no test is left in the code of any type.)
#[inline(always)]
fn bools_as_bytes<V: 'static>(values: &[V]) -> Option<&[u8]> {
    if TypeId::of::<V>() != TypeId::of::<bool>() {
        return None;
    }
    // SAFETY: `V` is `bool` (checked above), one byte holding 0 or 1: the
    // same memory is a valid `[u8]` of the same length.
    Some(unsafe { core::slice::from_raw_parts(values.as_ptr().cast::<u8>(), values.len()) })
}

/// The payload length of `values` as packed varints. The 32-bit types'
/// wire values are below 2^32 or sign-extended (`int32`, `enum`), which
/// the vectorized sum of `encoded_len_32_sum` takes; a `bool` is one byte.
/// In a build for AVX-512 CD every type takes the bit-length formula in a
/// loop inline, which the compiler vectorizes with `vplzcnt`, as prost's
/// own: the comparisons of `encoded_len_32_sum` were 1.1-1.5x slower than
/// that (the prost harness, `-C target-cpu=native`, Zen 5 host,
/// 2026-11-27), and the 64-bit formula behind the out-of-line 64-bit sum
/// 1.09-1.46x for the 32-bit types and 1.19-1.32x at 8 64-bit values
/// (Zen 4, 2 code layouts). The 32-bit types take the formula on the low
/// half (32-bit lanes; on the 64-bit wire value the compiler kept 64-bit
/// ones, where prost's loop on a `u32` got 32-bit ones): 0.94-1.05 of
/// prost's time on every packed type.
/// In a build with `LZCNT` (and without AVX-512 CD), fewer than
/// [`LZCNT_LEN_SUM_MAX_VALUES`] 64-bit values take the bit-length formula
/// inline, and the vector sums stay in a function of their own.
#[inline(always)]
fn encoded_len_packed_with<V: Copy + 'static>(values: &[V], to_wire: impl Fn(V) -> u64) -> usize {
    if let Some(bytes) = bools_as_bytes(values) {
        return bytes.len();
    }
    if cfg!(all(target_arch = "x86_64", target_feature = "avx512cd")) {
        if size_of::<V>() <= 4 {
            // The low half's length, plus 5 for a sign-extended negative
            // (its low half has bit 31 set: 5 bytes, 10 in all): the bit
            // scan in 32-bit lanes (`vplzcntd`, 16 per vector), where on
            // the 64-bit wire value the compiler scanned 64-bit ones.
            return values
                .iter()
                .map(|&value| {
                    let wire = to_wire(value);
                    let log2 = (wire as u32 | 1).ilog2();
                    ((log2 * 9 + 73) / 64) as usize + 5 * usize::from(wire >> 32 != 0)
                })
                .sum();
        }
        return values
            .iter()
            .map(|&value| crate::arch::scalar::encoded_len(to_wire(value)))
            .sum();
    }
    if size_of::<V>() <= 4 {
        return crate::arch::scalar::sizes::encoded_len_32_sum(values, to_wire);
    }
    if cfg!(all(
        target_arch = "x86_64",
        target_feature = "lzcnt",
        not(target_feature = "avx512cd")
    )) && values.len() < LZCNT_LEN_SUM_MAX_VALUES
    {
        return crate::arch::scalar::sizes::encoded_len_64_sum_by_fours(values, to_wire);
    }
    encoded_len_64_sum_apart(values, to_wire)
}

/// Where the vector sum of 64-bit lengths overtakes the `LZCNT` formula
/// one value at a time: inside prost (the prost harness, `-C
/// target-cpu=native`, Zen 3), a packed 64-bit field's `encoded_len` took
/// 1.21-1.40x prost's own `LZCNT` loop at 8 values through the vector sum
/// (its setup and the registers it saves at entry) and 0.84-0.97x at 64.
const LZCNT_LEN_SUM_MAX_VALUES: usize = 16;

/// [`crate::bulk::encoded_len_64_sum`] in a function of its own, so that
/// its setup stays off [`encoded_len_packed_with`]'s short path.
#[inline(never)]
fn encoded_len_64_sum_apart<V: Copy>(values: &[V], to_wire: impl Fn(V) -> u64) -> usize {
    crate::bulk::encoded_len_64_sum(values, to_wire)
}

/// Appends the byte count and the varints of `values`; returns the bytes
/// appended. `narrow`, `same_bits` and `low_bits`: see [`WireForm`].
///
/// One pass, no size pass and no zero-fill of the output. Short fields
/// ([`write_short_packed`]): the values from the second byte, then the
/// 1- or 2-byte prefix in front. Longer ones: the first batch's bytes per
/// value estimate the payload's length; room for its prefix is left, the
/// batches are appended, and the exact prefix is written in front (the
/// payload moved by a byte if the estimate's prefix length was off, which
/// takes a field whose length crosses a power of 128 past the first
/// batch). The estimate sizes the reservation too.
#[cfg(feature = "alloc")]
fn encode_packed_with<V: Copy + 'static, W: crate::varint::VarInt + Copy>(
    values: &[V],
    out: &mut Vec<u8>,
    to_wire: impl Fn(V) -> u64 + Copy,
    narrow: impl Fn(V) -> W + Copy,
    same_bits: bool,
    low_bits: bool,
) -> usize {
    let start = out.len();
    let form = WireForm {
        narrow,
        same_bits,
        low_bits,
    };
    if let Some(bytes) = bools_as_bytes(values) {
        let (prefix, prefix_len) = crate::encode::encode(bytes.len() as u64);
        out.extend_from_slice(&prefix[..usize::from(prefix_len)]);
        out.extend_from_slice(bytes);
        return out.len() - start;
    }
    if values.len() <= SHORT_PACKED_VALUES {
        let room = short_packed_room(values.len());
        if out.capacity() - out.len() >= room {
            // `write_short_packed` needs `room` writable bytes at `start`.
            // SAFETY: the spare capacity from `start` (= `out.len()`) has them.
            let written =
                unsafe { write_short_packed(out.as_mut_ptr().add(start), values, to_wire, form) };
            // `written <= room` (its contract), inside the capacity.
            // SAFETY: and it initialized the first `written` bytes from `start`.
            unsafe { out.set_len(start + written) };
            return written;
        }
        let mut staging = [MaybeUninit::<u8>::uninit(); SHORT_PACKED_ROOM];
        // SAFETY: `staging` has `SHORT_PACKED_ROOM >= room` bytes.
        let written =
            unsafe { write_short_packed(staging.as_mut_ptr().cast(), values, to_wire, form) };
        // SAFETY: the first `written` (<= `room`) bytes were written just above.
        let bytes = unsafe { core::slice::from_raw_parts(staging.as_ptr().cast::<u8>(), written) };
        if out.capacity() - out.len() < written {
            // Growing anyway: room for the direct path next time (a `Vec`
            // reused for the next message). A `Vec` with room for the
            // field but not the slack (sized exactly for a message) only
            // takes the copy.
            out.reserve(room);
        }
        out.extend_from_slice(bytes);
        return written;
    }
    // The payload goes after room for the longest prefix its values could
    // need; once the first batch is encoded, its bytes per value estimate
    // the payload and so the prefix's length, and the room shrinks to that
    // (moving at most one batch's bytes). Exact unless the field's length
    // crosses a power of 128 from there: then the payload moves once more.
    let mut room = crate::encode::encoded_len(values.len().saturating_mul(10) as u64);
    let first_values = values.len().min(PACKED_BATCH);
    out.reserve(room + first_values * 10 + ENCODE_SLACK);
    out.extend_from_slice(&[0; 10][..room]);
    encode_batches(&values[..first_values], form, &mut VecSink(out));
    let first_bytes = out.len() - start - room;
    let estimate = first_bytes.saturating_mul(values.len()) / first_values;
    let guess = crate::encode::encoded_len(estimate.max(values.len()) as u64);
    if guess < room {
        out.copy_within(start + room.., start + guess);
        out.truncate(start + guess + first_bytes);
        room = guess;
    }
    if values.len() > first_values {
        out.reserve(
            estimate
                .saturating_sub(first_bytes)
                .saturating_add(ENCODE_SLACK),
        );
        encode_batches(&values[first_values..], form, &mut VecSink(out));
    }
    let payload_len = out.len() - start - room;
    let (prefix, prefix_len) = crate::encode::encode(payload_len as u64);
    let prefix_len = usize::from(prefix_len);
    let payload = start + room..start + room + payload_len;
    if prefix_len > room {
        // The payload moves up.
        out.resize(start + prefix_len + payload_len, 0);
        out.copy_within(payload, start + prefix_len);
    } else if prefix_len < room {
        // The payload moves down.
        out.copy_within(payload, start + prefix_len);
        out.truncate(start + prefix_len + payload_len);
    }
    out[start..start + prefix_len].copy_from_slice(&prefix[..prefix_len]);
    out.len() - start
}

/// Extra room given to the bulk encoder past what it is asked to fill:
/// with it, its vector steps run to the last value that fits instead of
/// handing the last ones to the scalar encoder, as an exactly sized
/// output makes them (the AVX2 group encoder stops while a group's
/// longest encoding no longer fits).
#[cfg(any(feature = "alloc", feature = "bytes"))]
const ENCODE_SLACK: usize = 64;

/// The stack buffer the bulk encoder writes into where the output has no
/// room for it in place (a chunk of a `BufMut` too short for the next
/// varints), [`ENCODE_SLACK`] more.
#[cfg(any(feature = "alloc", feature = "bytes"))]
const ENCODE_STAGING: usize = PACKED_BATCH * 10;

/// Where the packed encoders write: room at the end of the output that may
/// be uninitialized, which the bulk encoder fills in place
/// ([`encode_slice_to_uninit`](crate::encode_slice_to_uninit)), and a copy
/// for when that room is too short.
#[cfg(any(feature = "alloc", feature = "bytes"))]
trait PackedSink {
    /// The writable room after what is written (may be empty).
    fn room(&mut self) -> &mut [MaybeUninit<u8>];
    /// Makes [`room`](Self::room) at least `bytes` long if the output can
    /// grow; false if it cannot (a `BufMut`'s next chunk is what it is).
    fn grow(&mut self, bytes: usize) -> bool;
    /// Counts the first `bytes` bytes of [`room`](Self::room) as written.
    ///
    /// # Safety
    /// They must have been initialized, and be at most the room's length.
    unsafe fn commit(&mut self, bytes: usize);
    /// Appends `bytes` (a copy, across chunks if need be).
    fn put(&mut self, bytes: &[u8]);
}

/// A `Vec`'s spare capacity.
#[cfg(feature = "alloc")]
struct VecSink<'a>(&'a mut Vec<u8>);

#[cfg(feature = "alloc")]
impl PackedSink for VecSink<'_> {
    #[inline(always)]
    fn room(&mut self) -> &mut [MaybeUninit<u8>] {
        self.0.spare_capacity_mut()
    }
    #[inline(always)]
    fn grow(&mut self, bytes: usize) -> bool {
        self.0.reserve(bytes);
        true
    }
    #[inline(always)]
    unsafe fn commit(&mut self, bytes: usize) {
        let len = self.0.len() + bytes;
        // The caller's contract: `bytes` initialized bytes of the spare
        // capacity.
        // SAFETY: so `len` is within the capacity and initialized.
        unsafe { self.0.set_len(len) };
    }
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

/// A `BufMut`'s current chunk (bounded by `remaining_mut`, which the
/// callers check first).
#[cfg(feature = "bytes")]
struct BufSink<'a, B: ?Sized>(&'a mut B);

#[cfg(feature = "bytes")]
impl<B: bytes::BufMut + ?Sized> PackedSink for BufSink<'_, B> {
    #[inline(always)]
    fn room(&mut self) -> &mut [MaybeUninit<u8>] {
        let chunk = self.0.chunk_mut();
        let (at, len) = (chunk.as_mut_ptr(), chunk.len());
        // The chunk's `len` bytes are writable, and are seen as
        // `MaybeUninit<u8>`, which the encoders only write initialized
        // bytes into (`UninitSlice`'s rule).
        // SAFETY: so the slice is valid for the chunk's borrow of `self`.
        unsafe { core::slice::from_raw_parts_mut(at.cast::<MaybeUninit<u8>>(), len) }
    }
    #[inline(always)]
    fn grow(&mut self, _bytes: usize) -> bool {
        false
    }
    #[inline(always)]
    unsafe fn commit(&mut self, bytes: usize) {
        // The caller's contract: `bytes` initialized bytes of the chunk.
        // SAFETY: so advancing over them is `advance_mut`'s requirement.
        unsafe { self.0.advance_mut(bytes) };
    }
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        self.0.put_slice(bytes);
    }
}

/// How a protobuf type's values become the bulk encoder's input.
#[cfg(any(feature = "alloc", feature = "bytes"))]
#[derive(Clone, Copy)]
struct WireForm<Narrow> {
    /// The wire value as `W`, the narrowest varint type that holds every
    /// wire value of the type (`u32` for `uint32` and `sint32`, else `u64`).
    narrow: Narrow,
    /// A value's bits are its `W` (`uint32`, `uint64`, `int64`): the values
    /// go to the bulk encoder as they are.
    same_bits: bool,
    /// The type is a 4-byte integer whose wire value is the value
    /// sign-extended to 64 bits (`int32`, `enum`): the values go to the
    /// bulk encoder as they are ([`int32_wire`]).
    low_bits: bool,
}

/// Writes the varints of `values` to `sink` with the bulk encoder: in one
/// run where their bits are the wire values, else a batch of at most
/// [`PACKED_BATCH`] wire values (converted on the stack) at a time.
#[cfg(any(feature = "alloc", feature = "bytes"))]
#[inline(always)]
fn encode_batches<V: Copy, W: crate::varint::VarInt + Copy>(
    values: &[V],
    form: WireForm<impl Fn(V) -> W>,
    sink: &mut impl PackedSink,
) {
    const {
        assert!(size_of::<W>() <= 8, "W is a varint type of at most 64 bits");
    }
    if form.same_bits && size_of::<V>() == size_of::<W>() && align_of::<V>() == align_of::<W>() {
        // `V` has `W`'s size and alignment (checked), and the caller says
        // its bits are the `W` wire value.
        // SAFETY: so (`V` is an integer: any bits are a valid `W`).
        let bits =
            unsafe { core::slice::from_raw_parts(values.as_ptr().cast::<W>(), values.len()) };
        encode_into_sink(bits, sink);
        return;
    }
    // `int32`/`enum`: the whole field in one run of the bulk encoder,
    // which sign-extends the negative values itself.
    match int32_wire(values, form.low_bits) {
        Some(Int32Wire::NonNegative(bits)) => return encode_into_sink(bits, sink),
        Some(Int32Wire::SignExtended(ints)) => return encode_into_sink(ints, sink),
        None => {}
    }
    let mut wire = [MaybeUninit::<W>::uninit(); PACKED_BATCH];
    for batch in values.chunks(PACKED_BATCH) {
        for (slot, &value) in wire.iter_mut().zip(batch) {
            slot.write((form.narrow)(value));
        }
        // SAFETY: the first `batch.len()` slots were written just above.
        let wire = unsafe { core::slice::from_raw_parts(wire.as_ptr().cast::<W>(), batch.len()) };
        encode_into_sink(wire, sink);
    }
}

/// `values` as the bulk encoders' input where `low_bits` says they are
/// `int32` or `enum` values (checked here to be 4-byte integers): as
/// [`SignExtended32`]s, whose varints are the values sign-extended to 64
/// bits, or as `u32`s (the same varints) where the backend's encoder is
/// faster on `u32`s and one vectorized pass finds no negative value.
#[cfg(any(feature = "alloc", feature = "bytes"))]
#[inline(always)]
fn int32_wire<V>(values: &[V], low_bits: bool) -> Option<Int32Wire<'_>> {
    if !(low_bits && size_of::<V>() == 4 && align_of::<V>() == 4) {
        return None;
    }
    // `V` is a 4-byte integer (the `low_bits` contract; size and alignment
    // checked above), so its bits are a `u32`.
    // SAFETY: so the slice is valid as `u32`s.
    let bits = unsafe { core::slice::from_raw_parts(values.as_ptr().cast::<u32>(), values.len()) };
    if !crate::bulk::detected_backend().encodes_sign_extended_as_fast() && !any_top_bit(bits) {
        return Some(Int32Wire::NonNegative(bits));
    }
    // And an `i32`, which is what a `repr(transparent)` `SignExtended32`
    // holds.
    // SAFETY: so the slice is valid as `SignExtended32`s.
    Some(Int32Wire::SignExtended(unsafe {
        core::slice::from_raw_parts(values.as_ptr().cast(), values.len())
    }))
}

/// An `int32`/`enum` field as the bulk encoders take it ([`int32_wire`]).
#[cfg(any(feature = "alloc", feature = "bytes"))]
enum Int32Wire<'a> {
    /// No value is negative: their bits are their wire values.
    NonNegative(&'a [u32]),
    /// Any values, whose varints the encoder sign-extends.
    SignExtended(&'a [SignExtended32]),
}

/// Whether any of `bits` has its top bit set (an `int32` field's negative
/// values): an OR of 16 lanes at a time, which the compiler keeps in
/// vector registers (four `por` with a memory operand per 64 bytes in the
/// baseline build), then the rest.
#[cfg(any(feature = "alloc", feature = "bytes"))]
#[inline(always)]
fn any_top_bit(bits: &[u32]) -> bool {
    let mut lanes = [0u32; 16];
    let chunks = bits.chunks_exact(16);
    let rest = chunks.remainder().iter().fold(0, |any, &b| any | b);
    for chunk in chunks {
        for (lane, &b) in lanes.iter_mut().zip(chunk) {
            *lane |= b;
        }
    }
    (lanes.iter().fold(rest, |any, &b| any | b)) >> 31 != 0
}

/// [`encode_slice_to_uninit`](crate::encode_slice_to_uninit) of the wire
/// values of a short field (at most [`SHORT_PACKED_VALUES`]) into `room`:
/// the values themselves where their bits are the wire values (or, for
/// `int32`, where none is negative), else their `W` forms from the stack.
#[cfg(any(feature = "alloc", feature = "bytes"))]
#[inline(always)]
fn encode_short_run<V: Copy, W: crate::varint::VarInt + Copy>(
    values: &[V],
    form: WireForm<impl Fn(V) -> W>,
    room: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    if form.same_bits && size_of::<V>() == size_of::<W>() && align_of::<V>() == align_of::<W>() {
        // `V` has `W`'s size and alignment (checked), and the caller says
        // its bits are the `W` wire value.
        // SAFETY: so (`V` is an integer: any bits are a valid `W`).
        let bits =
            unsafe { core::slice::from_raw_parts(values.as_ptr().cast::<W>(), values.len()) };
        return crate::bulk::encode_slice_to_uninit(bits, room);
    }
    match int32_wire(values, form.low_bits) {
        Some(Int32Wire::NonNegative(bits)) => {
            return crate::bulk::encode_slice_to_uninit(bits, room)
        }
        Some(Int32Wire::SignExtended(ints)) => {
            return crate::bulk::encode_slice_to_uninit(ints, room)
        }
        None => {}
    }
    let values = &values[..values.len().min(SHORT_PACKED_VALUES)];
    let mut wire = [MaybeUninit::<W>::uninit(); SHORT_PACKED_VALUES];
    for (slot, &value) in wire.iter_mut().zip(values) {
        slot.write((form.narrow)(value));
    }
    // SAFETY: the first `values.len()` slots were written just above.
    let wire = unsafe { core::slice::from_raw_parts(wire.as_ptr().cast::<W>(), values.len()) };
    crate::bulk::encode_slice_to_uninit(wire, room)
}

/// Encodes `values` into the sink's room in place, as many at a time as
/// fit, growing it where it can (by at least [`ENCODE_SLACK`] past the
/// longest varint, so the vector steps run to the last values); where it
/// cannot and its room takes no whole varint, a batch goes through a stack
/// buffer and a copy.
#[cfg(any(feature = "alloc", feature = "bytes"))]
#[inline(always)]
fn encode_into_sink<T: crate::varint::VarInt>(mut values: &[T], sink: &mut impl PackedSink) {
    while !values.is_empty() {
        let room = sink.room();
        if room.len() < T::MAX_LEN + ENCODE_SLACK
            && sink.grow(values.len().saturating_add(T::MAX_LEN + ENCODE_SLACK))
        {
            continue;
        }
        let room = sink.room();
        let room_len = room.len();
        let (encoded, written) = crate::bulk::encode_slice_to_uninit(values, room);
        // The encoder writes inside the slice it is given; checked, since
        // the commit relies on it.
        assert!(written <= room_len, "the bulk encoder wrote past its room");
        // SAFETY: the encoder initialized the first `written` bytes.
        unsafe { sink.commit(written) };
        values = &values[encoded..];
        if encoded == 0 {
            // The room takes no whole varint and cannot grow: through the
            // stack, where any varint fits.
            let mut staging = [MaybeUninit::<u8>::uninit(); ENCODE_STAGING + ENCODE_SLACK];
            let take = values.len().min(ENCODE_STAGING / 10);
            let (encoded, written) =
                crate::bulk::encode_slice_to_uninit(&values[..take], &mut staging);
            assert!(encoded > 0, "the bulk encoder made no progress");
            // `written <= staging.len()` (the encoder writes inside it).
            // SAFETY: and it initialized those bytes.
            let bytes = unsafe {
                core::slice::from_raw_parts(
                    staging.as_ptr().cast::<u8>(),
                    written.min(staging.len()),
                )
            };
            sink.put(bytes);
            values = &values[encoded..];
        }
    }
}

/// [`encode_packed_with`] into any `BufMut`: the byte count, then the
/// values, value by value for short fields (straight into the current
/// chunk when it has [`short_packed_room`] bytes, else through the stack),
/// else a bulk batch at a time through a stack buffer. Checks the room
/// first, so a panic writes nothing.
#[cfg(feature = "bytes")]
fn put_packed_with<
    V: Copy + 'static,
    W: crate::varint::VarInt + Copy,
    B: bytes::BufMut + ?Sized,
>(
    values: &[V],
    buf: &mut B,
    to_wire: impl Fn(V) -> u64 + Copy,
    narrow: impl Fn(V) -> W + Copy,
    same_bits: bool,
    low_bits: bool,
) -> usize {
    use crate::bytes_ext::BufMutVarint;
    let form = WireForm {
        narrow,
        same_bits,
        low_bits,
    };
    if let Some(bytes) = bools_as_bytes(values) {
        let total = crate::encode::encoded_len(bytes.len() as u64) + bytes.len();
        if buf.remaining_mut() < total {
            no_room_for_packed(total, buf.remaining_mut());
        }
        buf.put_varint(bytes.len() as u64);
        buf.put_slice(bytes);
        return total;
    }
    if values.len() <= SHORT_PACKED_VALUES {
        let room = short_packed_room(values.len());
        let chunk = buf.chunk_mut();
        if chunk.len() >= room {
            // The writes are bounded by the room checked here, from the
            // number of values, not by any computed length.
            // SAFETY: the chunk has `room` writable bytes.
            let written = unsafe { write_short_packed(chunk.as_mut_ptr(), values, to_wire, form) };
            // `written <= room <= chunk.len() <= remaining_mut()`.
            // SAFETY: `write_short_packed` initialized the first `written`
            // bytes of the current chunk.
            unsafe { buf.advance_mut(written) };
            return written;
        }
        // Little room left (a `Vec` sized exactly for the message, a
        // chained buffer): encode on the stack, then one copy.
        let mut staging = [MaybeUninit::<u8>::uninit(); SHORT_PACKED_ROOM];
        // SAFETY: `staging` has `SHORT_PACKED_ROOM >= room` bytes.
        let written =
            unsafe { write_short_packed(staging.as_mut_ptr().cast(), values, to_wire, form) };
        if buf.remaining_mut() < written {
            no_room_for_packed(written, buf.remaining_mut());
        }
        // SAFETY: the first `written` (<= `room`) bytes were written just above.
        let bytes = unsafe { core::slice::from_raw_parts(staging.as_ptr().cast::<u8>(), written) };
        buf.put_slice(bytes);
        return written;
    }
    // The prefix goes first, so the payload's length first: this total
    // bounds nothing (the encoders write inside the chunks `chunk_mut`
    // gives, and `put_slice` checks its writes); a wrong one would only
    // move the panic.
    let payload_len = encoded_len_packed_with(values, to_wire);
    let total = crate::encode::encoded_len(payload_len as u64) + payload_len;
    let before = buf.remaining_mut();
    if before < total {
        no_room_for_packed(total, before);
    }
    buf.put_varint(payload_len as u64);
    encode_batches(values, form, &mut BufSink(buf));
    before - buf.remaining_mut()
}

/// The most values a packed field has for [`write_short_packed`].
#[cfg(any(feature = "alloc", feature = "bytes"))]
const SHORT_PACKED_VALUES: usize = 32;

/// The bytes [`write_short_packed`] may write for `values` values: a
/// prefix byte, up to 10 per varint, and the second prefix byte the
/// payload may move up by.
#[cfg(any(feature = "alloc", feature = "bytes"))]
#[inline(always)]
const fn short_packed_room(values: usize) -> usize {
    10 * values + 2
}

/// [`short_packed_room`] of the longest short field: the stack buffer.
#[cfg(any(feature = "alloc", feature = "bytes"))]
const SHORT_PACKED_ROOM: usize = short_packed_room(SHORT_PACKED_VALUES);

/// Writes the packed field body of `values` (at most
/// [`SHORT_PACKED_VALUES`]) at `at` in one pass: the varints from
/// `at + 1`, then the length prefix in front (its second byte, for
/// payloads of 128 bytes or more, after moving the payload up by one);
/// returns the bytes written. A 1-byte value is one store, any other the
/// single-value kernel's two stores
/// ([`store_unchecked`](crate::encode::store_unchecked), 10 bytes).
///
/// # Safety
/// `values.len() <= SHORT_PACKED_VALUES`, and `at` must be valid for
/// writes of [`short_packed_room`]`(values.len())` bytes. Every write is
/// inside them whatever the values (the bound is from their number
/// alone), and the bytes returned are initialized.
#[cfg(any(feature = "alloc", feature = "bytes"))]
#[inline(always)]
unsafe fn write_short_packed<V: Copy, W: crate::varint::VarInt + Copy>(
    at: *mut u8,
    values: &[V],
    to_wire: impl Fn(V) -> u64,
    form: WireForm<impl Fn(V) -> W>,
) -> usize {
    const {
        // A 2-byte prefix holds any short field's length.
        assert!(short_packed_room(SHORT_PACKED_VALUES) < 1 << 14);
    }
    debug_assert!(values.len() <= SHORT_PACKED_VALUES);
    // One counting pass (vectorized) picks the loop: all 1-byte (bools,
    // enums, small counts) a plain narrowing copy; mostly 1-byte a store
    // per 1-byte value behind a predicted branch; else (on the mix that
    // branch mispredicts: 16 values 110 ns with it, against ~50 for
    // `encode_slice_into`) the bulk encoder from 8 values, the branch-free
    // kernel for fewer.
    // (A sum of 0/1, which the compiler vectorizes; `filter().count()`
    // it compiled to a compare and branch per value.)
    let long: usize = values
        .iter()
        .map(|&value| usize::from(to_wire(value) >= 0x80))
        .sum();
    let mut pos = 1;
    if long == 0 {
        for (i, &value) in values.iter().enumerate() {
            // SAFETY: byte `1 + i <= values.len()` is inside the room.
            unsafe { at.add(1 + i).write(to_wire(value) as u8) };
        }
        pos += values.len();
    } else if long * 8 <= values.len() {
        for &value in values {
            let wire = to_wire(value);
            // Value k (from 0) starts at `pos <= 1 + 10 * k` and its stores
            // end at `pos + 10 <= 1 + 10 * values.len()`, inside the room.
            // SAFETY: hence every store is inside the caller's bytes.
            unsafe {
                if wire < 0x80 {
                    at.add(pos).write(wire as u8);
                    pos += 1;
                } else {
                    pos += crate::encode::store_unchecked(wire, at.add(pos));
                }
            }
        }
    } else if values.len() >= 8 {
        // The bulk encoder's vector steps (from 8 values), in place, on
        // the type's own wire form (`u32` lanes where it has them).
        let payload_room = 10 * values.len();
        // Bytes `1..1 + payload_room` are inside the caller's room, and the
        // encoder writes only initialized bytes into them.
        // SAFETY: so they can be lent to it as possibly uninitialized bytes.
        let room = unsafe {
            core::slice::from_raw_parts_mut(at.add(1).cast::<MaybeUninit<u8>>(), payload_room)
        };
        let (encoded, written) = encode_short_run(values, form, room);
        debug_assert_eq!(encoded, values.len(), "10 bytes per value hold any varints");
        // The prefix's bound is the room, not the count the encoder reports.
        pos += written.min(payload_room);
    } else {
        for &value in values {
            // As above: every store is inside the room.
            // SAFETY: see the loop above.
            pos += unsafe { crate::encode::store_unchecked(to_wire(value), at.add(pos)) };
        }
    }
    let payload = pos - 1;
    if payload < 0x80 {
        // SAFETY: byte 0 is inside the room.
        unsafe { at.write(payload as u8) };
        return pos;
    }
    // The payload's `payload <= 10 * values.len()` bytes from 1 move to 2
    // and the prefix takes bytes 0 and 1 (`payload < 2^14`: two bytes).
    // SAFETY: all inside the room (`10 * values.len() + 2` bytes).
    unsafe {
        core::ptr::copy(at.add(1), at.add(2), payload);
        at.write(payload as u8 | 0x80);
        at.add(1).write((payload >> 7) as u8);
    }
    pos + 1
}

#[cfg(feature = "bytes")]
#[cold]
#[inline(never)]
#[track_caller]
fn no_room_for_packed(needed: usize, room: usize) -> ! {
    panic!("put_packed: the field needs {needed} bytes but the buffer has room for {room}")
}

/// [`decode_packed_with`] from a `bytes::Buf`, whose payload of `len` bytes
/// may span several chunks: [`BufVarint::get_varints`](crate::BufVarint::get_varints)
/// a batch at a time on the next `len` bytes.
#[cfg(all(feature = "bytes", feature = "alloc"))]
fn get_packed_with<V: 'static, N: crate::varint::VarInt, B: bytes::Buf + ?Sized>(
    buf: &mut B,
    len: usize,
    out: &mut Vec<V>,
    from_wire: impl Fn(u64) -> V + Copy,
    in_place: Option<fn(&mut [V])>,
    long_varints: bool,
) -> Result<usize, BulkDecodeError> {
    use crate::bytes_ext::BufVarint;
    use bytes::Buf;
    if buf.remaining() < len {
        return Err(BulkDecodeError::new(DecodeError::Truncated, 0, 0));
    }
    if let Some(payload) = buf.chunk().get(..len) {
        // All in the current chunk: the contiguous decoder.
        let result = decode_packed_with::<V, N>(payload, out, from_wire, in_place, long_varints);
        match &result {
            Ok(_) => buf.advance(len),
            Err(error) => buf.advance(error.offset()),
        }
        return result;
    }
    let mut payload = (&mut *buf).take(len);
    let mut wire = [0u64; PACKED_BATCH];
    let (mut decoded, mut consumed) = (0, 0);
    while payload.has_remaining() {
        let before = payload.remaining();
        match payload.get_varints(&mut wire) {
            Ok(values) => {
                out.extend(wire[..values].iter().map(|&w| from_wire(w)));
                decoded += values;
                consumed += before - payload.remaining();
            }
            Err(error) => {
                out.extend(wire[..error.index()].iter().map(|&w| from_wire(w)));
                return Err(BulkDecodeError::new(
                    error.kind(),
                    decoded + error.index(),
                    consumed + error.offset(),
                ));
            }
        }
    }
    Ok(decoded)
}

/// Generates a module of functions for one protobuf scalar type from its
/// conversions to and from the 64-bit varint value. (The helpers take the
/// conversions as `impl Fn`, not `fn` pointers, so they inline and the
/// loops vectorize.)
macro_rules! scalar_type {
    (
        $(#[$doc:meta])*
        $name:ident: $value:ty,
        to_wire: |$v:ident| $to_wire:expr,
        from_wire: |$w:ident| $from_wire:expr,
        narrow: $narrow:ty,
        in_place: $in_place:expr,
        wire: $wire:ty = |$x:ident| $to_narrow_wire:expr, same_bits: $same_bits:literal, low_bits: $low_bits:literal,
        example: $example:expr => [$($byte:literal),*],
    ) => {
        $(#[$doc])*
        pub mod $name {
            #[cfg(feature = "alloc")]
            use alloc::vec::Vec;

            #[cfg(feature = "alloc")]
            use crate::error::BulkDecodeError;
            use crate::error::DecodeError;

            #[inline(always)]
            fn to_wire($v: $value) -> u64 {
                $to_wire
            }

            #[inline(always)]
            fn from_wire($w: u64) -> $value {
                $from_wire
            }

            /// The wire value in the narrowest varint type holding every
            /// one of this type's (what the bulk encoder takes).
            #[allow(dead_code)]
            #[inline(always)]
            fn to_narrow_wire($x: $value) -> $wire {
                $to_narrow_wire
            }

            #[doc = concat!("Encodes a `", stringify!($name), "` in the shape of [`crate::encode`]: the bytes and their count.")]
            ///
            /// ```
            #[doc = concat!("use varint_turbo::protobuf::", stringify!($name), ";")]
            #[doc = concat!("let (bytes, len) = ", stringify!($name), "::encode(", stringify!($example), ");")]
            #[doc = concat!("assert_eq!(&bytes[..usize::from(len)], &[", stringify!($($byte),*), "]);")]
            /// ```
            #[inline]
            #[must_use]
            pub fn encode(value: $value) -> ([u8; 16], u8) {
                crate::encode::encode(to_wire(value))
            }

            #[doc = concat!("The encoded length of a `", stringify!($name), "` (1..=10).")]
            ///
            /// ```
            #[doc = concat!("use varint_turbo::protobuf::", stringify!($name), ";")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::encoded_len(", stringify!($example), "), [", stringify!($($byte),*), "].len());")]
            /// ```
            #[inline]
            #[must_use]
            pub fn encoded_len(value: $value) -> usize {
                crate::encode::encoded_len(to_wire(value))
            }

            #[doc = concat!("Decodes a `", stringify!($name), "` from the start of `input`: the value and the bytes used.")]
            ///
            /// Reads a 64-bit varint by the rules of [`decode::<u64>`](crate::decode)
            /// and converts it as the [module table](crate::protobuf) says.
            ///
            /// ```
            #[doc = concat!("use varint_turbo::protobuf::", stringify!($name), ";")]
            #[doc = concat!("let bytes = [", stringify!($($byte),*), "];")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::decode(&bytes), Ok((", stringify!($example), ", bytes.len())));")]
            #[doc = concat!("assert!(", stringify!($name), "::decode(&[0x80]).is_err());")]
            /// ```
            #[inline]
            pub fn decode(input: &[u8]) -> Result<($value, usize), DecodeError> {
                let (wire, len) = crate::decode::decode::<u64>(input)?;
                Ok((from_wire(wire), len))
            }

            /// The number of elements in a packed payload (without its
            /// length prefix), for sizing the output:
            /// [`count_varints`](crate::count_varints). It does not validate.
            ///
            /// ```
            #[doc = concat!("use varint_turbo::protobuf::", stringify!($name), ";")]
            #[doc = concat!("let one = [", stringify!($($byte),*), "];")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::count_packed(&[one, one, one].concat()), 3);")]
            /// ```
            #[inline]
            #[must_use]
            pub fn count_packed(payload: &[u8]) -> usize {
                crate::bulk::count_varints(payload)
            }

            /// The payload length of `values` as a packed field, without the
            /// length prefix.
            ///
            /// ```
            #[doc = concat!("use varint_turbo::protobuf::", stringify!($name), ";")]
            #[doc = concat!("let example = ", stringify!($example), ";")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::encoded_len_packed(&[example, example]), 2 * [", stringify!($($byte),*), "].len());")]
            /// ```
            #[inline]
            #[must_use]
            pub fn encoded_len_packed(values: &[$value]) -> usize {
                super::encoded_len_packed_with(values, to_wire)
            }

            /// Decodes a packed payload (the bytes after the length prefix:
            /// see [`decode_length_delimited`](super::decode_length_delimited))
            /// with the bulk decoder and appends the elements to `out`;
            /// returns how many. Protobuf concatenates a packed field that
            /// occurs more than once, so appending is what a parser needs.
            ///
            /// On error, `out` has gained the elements before the failing
            /// one; the error's index and offset count from the payload's
            /// start. Reserves at most one element per payload byte.
            ///
            /// ```
            #[doc = concat!("use varint_turbo::protobuf::", stringify!($name), ";")]
            #[doc = concat!("let one = [", stringify!($($byte),*), "];")]
            /// let mut out = Vec::new();
            #[doc = concat!("assert_eq!(", stringify!($name), "::decode_packed(&[one, one].concat(), &mut out), Ok(2));")]
            #[doc = concat!("assert_eq!(out, [", stringify!($example), "; 2]);")]
            #[doc = concat!("let error = ", stringify!($name), "::decode_packed(&[0x80], &mut out).unwrap_err();")]
            /// assert_eq!((error.index(), error.offset()), (0, 0));
            /// ```
            #[cfg(feature = "alloc")]
            #[inline]
            pub fn decode_packed(payload: &[u8], out: &mut Vec<$value>) -> Result<usize, BulkDecodeError> {
                super::decode_packed_with::<$value, $narrow>(payload, out, from_wire, $in_place, $low_bits)
            }

            /// Appends `values` as a packed field body: the varint byte
            /// count, then the elements' varints (the key is the caller's:
            /// [`FieldKey`](super::FieldKey) with [`WireType::Len`](super::WireType::Len)).
            /// Returns the bytes appended. Protobuf writers omit an empty
            /// packed field altogether; this writes the prefix `00` for it.
            ///
            /// ```
            #[doc = concat!("use varint_turbo::protobuf::", stringify!($name), ";")]
            #[doc = concat!("let one = [", stringify!($($byte),*), "];")]
            /// let mut out = Vec::new();
            #[doc = concat!("let written = ", stringify!($name), "::encode_packed(&[", stringify!($example), "; 2], &mut out);")]
            /// assert_eq!(written, 1 + 2 * one.len());
            /// assert_eq!(out, [&[2 * one.len() as u8][..], &one, &one].concat());
            /// ```
            #[cfg(feature = "alloc")]
            pub fn encode_packed(values: &[$value], out: &mut Vec<u8>) -> usize {
                super::encode_packed_with(values, out, to_wire, to_narrow_wire, $same_bits, $low_bits)
            }

            /// [`encode_packed`](self::encode_packed) into any
            /// [`bytes::BufMut`] (feature `bytes`): writes the varint byte
            /// count, then the elements' varints; returns the bytes
            /// written. What prost's `encode_packed` writes after the key.
            ///
            /// # Panics
            /// If `buf.remaining_mut()` is less than the bytes needed;
            /// nothing is written then (growable buffers always have room).
            ///
            /// ```
            #[doc = concat!("use varint_turbo::protobuf::", stringify!($name), ";")]
            #[doc = concat!("let one = [", stringify!($($byte),*), "];")]
            /// let mut out = bytes::BytesMut::new();
            #[doc = concat!("let written = ", stringify!($name), "::put_packed(&[", stringify!($example), "; 2], &mut out);")]
            /// assert_eq!(written, 1 + 2 * one.len());
            /// assert_eq!(&out[..], [&[2 * one.len() as u8][..], &one, &one].concat());
            /// ```
            #[cfg(feature = "bytes")]
            pub fn put_packed<B: bytes::BufMut + ?Sized>(values: &[$value], buf: &mut B) -> usize {
                super::put_packed_with(values, buf, to_wire, to_narrow_wire, $same_bits, $low_bits)
            }

            /// [`decode_packed`](self::decode_packed) from a
            /// [`bytes::Buf`] (features `bytes` and `alloc`): decodes the
            /// packed payload of `len` bytes at the buffer's position,
            /// which may span several chunks, appends the elements to
            /// `out` and advances past it; returns how many.
            ///
            /// Fails with [`Truncated`](crate::DecodeError::Truncated)
            /// (index and offset 0) without reading if fewer than `len`
            /// bytes remain. On a malformed element, `out` has gained the
            /// elements before it, the error's index and offset count from
            /// the payload's start, and the buffer is advanced past those
            /// elements (and, if the bad varint straddles a chunk seam,
            /// past the bytes examined, as
            /// [`BufVarint::get_varint`](crate::BufVarint::get_varint) does).
            ///
            /// ```
            /// use bytes::Buf;
            #[doc = concat!("use varint_turbo::protobuf::", stringify!($name), ";")]
            #[doc = concat!("let one = [", stringify!($($byte),*), "];")]
            /// let payload = [one, one].concat();
            /// // The payload split across two chunks, then one more byte.
            /// let (head, tail) = payload.split_at(1);
            /// let mut buf = head.chain(tail).chain(&[0x2a][..]);
            /// let mut out = Vec::new();
            #[doc = concat!("assert_eq!(", stringify!($name), "::get_packed(&mut buf, payload.len(), &mut out), Ok(2));")]
            #[doc = concat!("assert_eq!(out, [", stringify!($example), "; 2]);")]
            /// assert_eq!(buf.remaining(), 1);
            /// ```
            #[cfg(all(feature = "bytes", feature = "alloc"))]
            pub fn get_packed<B: bytes::Buf + ?Sized>(
                buf: &mut B,
                len: usize,
                out: &mut Vec<$value>,
            ) -> Result<usize, BulkDecodeError> {
                super::get_packed_with::<$value, $narrow, _>(buf, len, out, from_wire, $in_place, $low_bits)
            }
        }
    };
}

scalar_type! {
    /// Protobuf `int32`: negative values are sign-extended to 64 bits and
    /// take 10 bytes; reading keeps the low 32 bits of the 64-bit varint,
    /// so `int64` data reads as `int32` by truncation.
    ///
    /// ```
    /// use varint_turbo::protobuf::int32;
    /// // 2^32 + 5 written as an int64 reads as 5.
    /// assert_eq!(int32::decode(&[0x85, 0x80, 0x80, 0x80, 0x10]), Ok((5, 5)));
    /// ```
    int32: i32,
    to_wire: |value| value as i64 as u64,
    from_wire: |wire| wire as i32,
    narrow: u32,
    in_place: None,
    wire: u64 = |value| value as i64 as u64, same_bits: false, low_bits: true,
    example: -1 => [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
}

scalar_type! {
    /// Protobuf `int64`: two's complement as a 64-bit varint (negative
    /// values take 10 bytes).
    int64: i64,
    to_wire: |value| value as u64,
    from_wire: |wire| wire as i64,
    narrow: u64,
    in_place: None,
    wire: u64 = |value| value as u64, same_bits: true, low_bits: false,
    example: -2 => [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
}

scalar_type! {
    /// Protobuf `uint32`: reading keeps the low 32 bits of the 64-bit
    /// varint, as protobuf parsers do; [`decode::<u32>`](crate::decode)
    /// would reject such a value as [`Overflow`](crate::DecodeError::Overflow).
    ///
    /// ```
    /// use varint_turbo::protobuf::uint32;
    /// let too_big = [0x80, 0x80, 0x80, 0x80, 0x10]; // 2^32
    /// assert_eq!(uint32::decode(&too_big), Ok((0, 5)));
    /// assert!(varint_turbo::decode::<u32>(&too_big).is_err());
    /// ```
    uint32: u32,
    to_wire: |value| u64::from(value),
    from_wire: |wire| wire as u32,
    narrow: u32,
    in_place: None,
    wire: u32 = |value| value, same_bits: true, low_bits: false,
    example: 300 => [0xac, 0x02],
}

scalar_type! {
    /// Protobuf `uint64`: the varint itself.
    uint64: u64,
    to_wire: |value| value,
    from_wire: |wire| wire,
    narrow: u64,
    in_place: None,
    wire: u64 = |value| value, same_bits: true, low_bits: false,
    example: 150 => [0x96, 0x01],
}

scalar_type! {
    /// Protobuf `sint32`: zigzag, so small magnitudes of either sign are
    /// short. Reading zigzag-decodes the low 32 bits of the 64-bit varint
    /// (as Go protowire and upb do); [`decode_zigzag::<i32>`](crate::decode_zigzag)
    /// is the strict form.
    sint32: i32,
    to_wire: |value| u64::from(crate::zigzag::zigzag_encode_i32(value)),
    from_wire: |wire| crate::zigzag::zigzag_decode_i32(wire as u32),
    narrow: u32,
    in_place: Some(crate::bulk::zigzag_decode_in_place::<i32>),
    wire: u32 = |value| crate::zigzag::zigzag_encode_i32(value), same_bits: false, low_bits: false,
    example: -2 => [0x03],
}

scalar_type! {
    /// Protobuf `sint64`: zigzag over 64 bits.
    sint64: i64,
    to_wire: |value| crate::zigzag::zigzag_encode_i64(value),
    from_wire: |wire| crate::zigzag::zigzag_decode_i64(wire),
    narrow: u64,
    in_place: Some(crate::bulk::zigzag_decode_in_place::<i64>),
    wire: u64 = |value| crate::zigzag::zigzag_encode_i64(value), same_bits: false, low_bits: false,
    example: -64 => [0x7f],
}

scalar_type! {
    /// Protobuf `bool`: written as `0` or `1`; any non-zero varint reads as
    /// `true`, as protobuf parsers do.
    ///
    /// ```
    /// use varint_turbo::protobuf::bool;
    /// assert_eq!(bool::decode(&[0x02]), Ok((true, 1)));
    /// assert_eq!(bool::decode(&[0x80, 0x00]), Ok((false, 2)));
    /// ```
    bool: bool,
    to_wire: |value| u64::from(value),
    from_wire: |wire| wire != 0,
    narrow: u8,
    in_place: None,
    wire: u8 = |value| u8::from(value), same_bits: true, low_bits: false,
    example: true => [0x01],
}

scalar_type! {
    /// Protobuf `enum` values: on the wire exactly an [`int32`] (negative
    /// values take 10 bytes; unknown values are kept, as proto3 requires).
    enumeration: i32,
    to_wire: |value| value as i64 as u64,
    from_wire: |wire| wire as i32,
    narrow: u32,
    in_place: None,
    wire: u64 = |value| value as i64 as u64, same_bits: false, low_bits: true,
    example: 2 => [0x02],
}
