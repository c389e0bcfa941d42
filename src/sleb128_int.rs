//! The sealed [`SignedLeb128`] trait: the signed integer types a signed
//! LEB128 varint (WebAssembly, DWARF) decodes into, `i32` and `i64`.
//!
//! Like [`VarInt`](crate::VarInt) for the unsigned varints, it sits below
//! both the kernels under `arch` and the public [`sleb128`](crate::sleb128)
//! module. Every kernel works on `i64` (a signed varint of at most 10 bytes
//! carries at most 64 bits of two's complement) and narrows at the end.

use crate::varint::VarInt;

mod sealed {
    /// Internal conversions; not nameable outside the crate, so the trait
    /// stays closed to new implementations.
    pub trait Sealed: Copy + Default + Eq + Ord + core::fmt::Debug + core::hash::Hash {
        /// The unsigned type of the same width, whose bulk kernels find the
        /// varints of the signed bulk decoder.
        type Bits: crate::varint::VarInt;
        /// Widens (sign-extends).
        fn to_i64(self) -> i64;
        /// Narrows; only called after the value was checked to fit.
        fn from_i64_unchecked(value: i64) -> Self;
        /// Whether `value` fits the type.
        fn fits(value: i64) -> bool;
        /// The same bits as the unsigned type (an `as` cast).
        fn from_bits(bits: Self::Bits) -> Self;
    }
}
pub(crate) use sealed::Sealed;

/// A signed integer type that signed LEB128 varints decode into and encode
/// from: `i32` (at most 5 bytes) and `i64` (at most 10), with the rules of
/// WebAssembly's `s32`/`s64` (see the [`sleb128`](crate::sleb128) module).
///
/// This trait is sealed: it cannot be implemented outside this crate.
///
/// ```
/// use varint_turbo::sleb128::SignedLeb128;
/// assert_eq!(<i32 as SignedLeb128>::MAX_LEN, 5);
/// assert_eq!(<i64 as SignedLeb128>::MAX_LEN, 10);
/// ```
pub trait SignedLeb128: Sealed {
    /// The longest varint that decodes into this type: `ceil(bits / 7)`
    /// (5 for `i32`, 10 for `i64`). Longer varints are rejected with
    /// [`DecodeError::Overflow`](crate::DecodeError::Overflow), even when
    /// they are a padded small value.
    const MAX_LEN: usize;
}

macro_rules! impl_signed_leb128 {
    ($($ty:ty => $bits:ty),*) => {$(
        impl Sealed for $ty {
            type Bits = $bits;
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64_unchecked(value: i64) -> Self {
                value as $ty
            }
            #[inline(always)]
            fn fits(value: i64) -> bool {
                value == value as $ty as i64
            }
            #[inline(always)]
            fn from_bits(bits: $bits) -> Self {
                bits as $ty
            }
        }
        impl SignedLeb128 for $ty {
            // ceil(bits / 7): each byte carries 7 bits of payload.
            const MAX_LEN: usize = (<$ty>::BITS as usize).div_ceil(7);
        }
        // The bulk decoder reuses the unsigned kernels of the same width,
        // whose length limit must be the signed one.
        const _: () = assert!(<$ty as SignedLeb128>::MAX_LEN == <$bits as VarInt>::MAX_LEN);
    )*};
}
impl_signed_leb128!(i32 => u32, i64 => u64);
