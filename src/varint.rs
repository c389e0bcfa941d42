//! The sealed [`VarInt`] trait: the unsigned integer types a varint decodes into.
//!
//! Every backend works on `u64` internally (a varint of at most 10 bytes
//! carries at most 64 bits) and narrows at the end, after one range check
//! that the constants below make free for `u64`.

use crate::error::DecodeError;

/// The continuation bit of every byte of a `u64`.
pub(crate) const CONTINUATION_BITS: u64 = 0x8080_8080_8080_8080;
/// The 7 payload bits of every byte of a `u64`.
pub(crate) const PAYLOAD_BITS: u64 = 0x7f7f_7f7f_7f7f_7f7f;

mod sealed {
    /// Internal conversions; not nameable outside the crate, so the trait
    /// stays closed to new implementations.
    pub trait Sealed: Copy + Default + Eq + Ord + core::fmt::Debug + core::hash::Hash {
        /// The largest value of the type, widened.
        const MAX_U64: u64;
        /// Widens losslessly.
        fn to_u64(self) -> u64;
        /// Narrows; only called after the value was checked to fit.
        fn from_u64_unchecked(value: u64) -> Self;
        /// [`to_u64`](Self::to_u64) sign-extends (a 4-byte type whose
        /// varints run to 10 bytes): vector loads that widen must too.
        const SIGN_EXTENDED: bool = false;
    }
}
pub(crate) use sealed::Sealed;

/// An unsigned integer type that varints decode into and encode from:
/// `u8`, `u16`, `u32`, `u64` and `usize`.
///
/// This trait is sealed: it cannot be implemented outside this crate.
///
/// ```
/// use varint_turbo::VarInt;
/// assert_eq!(<u32 as VarInt>::MAX_LEN, 5);
/// assert_eq!(<u64 as VarInt>::MAX_LEN, 10);
/// ```
pub trait VarInt: Sealed {
    /// The longest varint that decodes into this type: `ceil(bits / 7)`
    /// (2, 3, 5, 10 for `u8`, `u16`, `u32`, `u64`; `usize` follows the
    /// pointer width). Longer varints are rejected with
    /// [`DecodeError::Overflow`], even when they are a padded small value.
    const MAX_LEN: usize;
}

macro_rules! impl_varint {
    ($($ty:ty),*) => {$(
        impl Sealed for $ty {
            const MAX_U64: u64 = <$ty>::MAX as u64;
            #[inline(always)]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn from_u64_unchecked(value: u64) -> Self {
                value as $ty
            }
        }
        impl VarInt for $ty {
            // ceil(bits / 7): each varint byte carries 7 bits of payload.
            const MAX_LEN: usize = (<$ty>::BITS as usize).div_ceil(7);
        }
    )*};
}
impl_varint!(u8, u16, u32, u64, usize);

/// A protobuf `int32` or `enum` value as the bulk encoders take it: its
/// varint is that of the value sign-extended to 64 bits, so a negative
/// value takes 10 bytes (the protobuf encoding). A `&[i32]` is a
/// `&[SignExtended32]` (`repr(transparent)`), so a packed `int32` field
/// goes to the bulk encoders in one call, with no pass that converts or
/// checks it first. Crate-private: only the encoders take it (its decode
/// would be that of a `u64` truncated, which is `decode_wrapping`'s job).
#[cfg(any(feature = "alloc", feature = "bytes"))]
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
#[repr(transparent)]
pub(crate) struct SignExtended32(pub(crate) i32);

#[cfg(any(feature = "alloc", feature = "bytes"))]
impl Sealed for SignExtended32 {
    const MAX_U64: u64 = u64::MAX;
    const SIGN_EXTENDED: bool = true;
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self.0 as i64 as u64
    }
    #[inline(always)]
    fn from_u64_unchecked(value: u64) -> Self {
        SignExtended32(value as i32)
    }
}

#[cfg(any(feature = "alloc", feature = "bytes"))]
impl VarInt for SignExtended32 {
    // A negative value sign-extended to 64 bits: 10 bytes.
    const MAX_LEN: usize = 10;
}

/// Turns a decoded `u64` and its length into the result for `T`: the one
/// place that applies the narrowing rules, shared by every backend.
///
/// Overflow when the varint is longer than `T::MAX_LEN` (also for padded
/// small values, as Go protowire does for u64) or the value exceeds `T::MAX`.
/// For `u64` both checks are constant-false and vanish.
#[inline(always)]
pub(crate) fn narrow<T: VarInt>(value: u64, len: usize) -> Result<(T, usize), DecodeError> {
    if (T::MAX_LEN < 10 && len > T::MAX_LEN) || (T::MAX_U64 != u64::MAX && value > T::MAX_U64) {
        Err(DecodeError::Overflow)
    } else {
        Ok((T::from_u64_unchecked(value), len))
    }
}

/// A protobuf `int32` or `enum` slot as the bulk decoders fill it: the
/// varint is decoded under `u64`'s rules (up to 10 bytes, a 10th byte of 0
/// or 1) and the slot keeps the value's low 32 bits, which is the `int32`
/// of a sign-extended negative value. A `Vec<i32>`'s spare capacity is a
/// `[MaybeUninit<LowHalf32>]` (`repr(transparent)`), so a packed field
/// decodes into it in one pass, with no `u64` buffer and no narrowing
/// pass. The SSSE3/AVX2 grid decoders and the scalar ones take it through
/// their generic code: their rules follow `MAX_LEN` and `MAX_U64` (those
/// of `u64`), their stores the slot's size (the low halves of their
/// 64-bit lanes). Crate-private.
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
#[repr(transparent)]
pub(crate) struct LowHalf32(pub(crate) u32);

#[cfg(feature = "alloc")]
impl Sealed for LowHalf32 {
    const MAX_U64: u64 = u64::MAX;
    #[inline(always)]
    fn to_u64(self) -> u64 {
        u64::from(self.0)
    }
    #[inline(always)]
    fn from_u64_unchecked(value: u64) -> Self {
        // The low half: what the slot keeps.
        LowHalf32(value as u32)
    }
}

#[cfg(feature = "alloc")]
impl VarInt for LowHalf32 {
    // `u64`'s rules.
    const MAX_LEN: usize = 10;
}
