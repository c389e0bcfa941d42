//! Zigzag mapping of signed integers to unsigned ones (protobuf `sint32` /
//! `sint64`, Avro `int` / `long`): 0, -1, 1, -2, ... map to 0, 1, 2, 3, ...
//! so that small magnitudes of either sign encode to short varints.
//!
//! `(n << 1) ^ (n >> (bits - 1))` encodes (arithmetic shift spreads the
//! sign), `(u >> 1) ^ -(u & 1)` decodes; both are branch-free.

use crate::varint::VarInt;

mod sealed {
    /// Marker that closes [`ZigZag`](super::ZigZag) to outside implementations.
    pub trait Sealed: Copy + Default + Eq + Ord + core::fmt::Debug + core::hash::Hash {}
}

/// A signed integer type with a zigzag varint encoding: `i8`, `i16`, `i32`,
/// `i64` and `isize`, each mapped to the unsigned type of the same width.
///
/// This trait is sealed: it cannot be implemented outside this crate.
pub trait ZigZag: sealed::Sealed {
    /// The unsigned type of the same width that carries the zigzag value.
    type Unsigned: VarInt;
    #[doc(hidden)]
    fn zigzag_encode(self) -> Self::Unsigned;
    #[doc(hidden)]
    fn zigzag_decode(value: Self::Unsigned) -> Self;
    /// The same bits as the unsigned type (an `as` cast).
    #[doc(hidden)]
    fn to_unsigned_bits(self) -> Self::Unsigned;
}

macro_rules! impl_zigzag {
    ($($signed:ty => $unsigned:ty, $enc:ident, $dec:ident;)*) => {$(
        impl sealed::Sealed for $signed {}
        impl ZigZag for $signed {
            type Unsigned = $unsigned;
            #[inline(always)]
            fn zigzag_encode(self) -> $unsigned {
                $enc(self)
            }
            #[inline(always)]
            fn zigzag_decode(value: $unsigned) -> Self {
                $dec(value)
            }
            #[inline(always)]
            fn to_unsigned_bits(self) -> $unsigned {
                self as $unsigned
            }
        }

        #[doc = concat!("Zigzag-encodes an `", stringify!($signed), "` (usable in `const` context).")]
        ///
        /// ```
        #[doc = concat!("assert_eq!(varint_turbo::", stringify!($enc), "(-1), 1);")]
        #[doc = concat!("assert_eq!(varint_turbo::", stringify!($enc), "(1), 2);")]
        /// ```
        #[inline(always)]
        #[must_use]
        pub const fn $enc(value: $signed) -> $unsigned {
            ((value << 1) ^ (value >> (<$signed>::BITS - 1))) as $unsigned
        }

        #[doc = concat!("Zigzag-decodes to an `", stringify!($signed), "` (usable in `const` context).")]
        ///
        /// ```
        #[doc = concat!("assert_eq!(varint_turbo::", stringify!($dec), "(3), -2);")]
        /// ```
        #[inline(always)]
        #[must_use]
        pub const fn $dec(value: $unsigned) -> $signed {
            ((value >> 1) as $signed) ^ -((value & 1) as $signed)
        }
    )*};
}
impl_zigzag! {
    i8 => u8, zigzag_encode_i8, zigzag_decode_i8;
    i16 => u16, zigzag_encode_i16, zigzag_decode_i16;
    i32 => u32, zigzag_encode_i32, zigzag_decode_i32;
    i64 => u64, zigzag_encode_i64, zigzag_decode_i64;
    isize => usize, zigzag_encode_isize, zigzag_decode_isize;
}

/// Zigzag-encodes any [`ZigZag`] type to its same-width unsigned type.
///
/// Generic functions cannot be `const` on stable Rust; the per-type
/// [`zigzag_encode_i64`] and friends are.
///
/// ```
/// use varint_turbo::zigzag_encode;
/// assert_eq!(zigzag_encode(0i32), 0u32);
/// assert_eq!(zigzag_encode(-1i64), 1u64);
/// assert_eq!(zigzag_encode(i32::MIN), u32::MAX);
/// ```
#[inline(always)]
#[must_use]
pub fn zigzag_encode<T: ZigZag>(value: T) -> <T as ZigZag>::Unsigned {
    value.zigzag_encode()
}

/// Inverse of [`zigzag_encode`].
///
/// ```
/// use varint_turbo::zigzag_decode;
/// assert_eq!(zigzag_decode::<i32>(u32::MAX), i32::MIN);
/// assert_eq!(zigzag_decode::<i64>(4), 2);
/// ```
#[inline(always)]
#[must_use]
pub fn zigzag_decode<T: ZigZag>(value: <T as ZigZag>::Unsigned) -> T {
    T::zigzag_decode(value)
}
