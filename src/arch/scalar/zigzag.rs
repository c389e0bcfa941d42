//! The zigzag step of the bulk zigzag decoders (`decode_slice_zigzag`,
//! `decode_all_zigzag`): the varints are decoded as unsigned integers
//! into the output slots, then each slot's bits are turned into the signed
//! value in place. `T::zigzag_decode` is three operations (`>> 1`, `& 1`,
//! negate and `xor`), which the compiler vectorizes; the SIMD backends
//! compile this same loop with their target features, so that a default
//! build gets 256- or 512-bit lanes instead of SSE2's 128 (4,096 `i32`s,
//! Zen 5: about 390 ns in SSE2 lanes, a third of the whole decode of
//! near-zero `sint32`s).

use crate::zigzag::ZigZag;

/// Replaces every value of `values`, which holds the bits of a zigzag
/// varint's unsigned value, with the signed value it stands for.
#[inline(always)]
pub(crate) fn zigzag_decode_in_place<T: ZigZag>(values: &mut [T]) {
    for value in values {
        *value = T::zigzag_decode(value.to_unsigned_bits());
    }
}
