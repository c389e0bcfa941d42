//! The running sum of the delta decoders (`delta::decode_slice`, `select`,
//! `search`): sorted lists are stored as the varints of their gaps, and
//! value `i` is `previous + gap[0] + ... + gap[i]`, wrapping in the width
//! of `T` (as Masked VByte's `masked_vbyte_decode_delta` does).
//!
//! The sum is one chain of dependent adds, one per value. Here the chain
//! takes one add per *two* values: a pair's own sum does not wait for the
//! running sum, so the running sum moves by the pair's sum, and the pair's
//! first value is the running sum plus its first gap off the chain.

use crate::varint::VarInt;

/// Replaces each of `values` (gaps) with `previous` plus the gaps up to
/// and including it, wrapping in `T`; returns the last sum (`previous`
/// for no values), the `previous` of the values after them.
#[inline]
pub(crate) fn prefix_sum<T: VarInt>(values: &mut [T], previous: T) -> T {
    // A `u64` sum truncated to `T` is the sum wrapping in `T`.
    let mut sum = previous.to_u64();
    let mut pairs = values.chunks_exact_mut(2);
    for pair in &mut pairs {
        let (first, second) = (pair[0].to_u64(), pair[1].to_u64());
        pair[0] = T::from_u64_unchecked(sum.wrapping_add(first));
        sum = sum.wrapping_add(first.wrapping_add(second));
        pair[1] = T::from_u64_unchecked(sum);
    }
    for value in pairs.into_remainder() {
        sum = sum.wrapping_add(value.to_u64());
        *value = T::from_u64_unchecked(sum);
    }
    T::from_u64_unchecked(sum)
}

/// The wrapping sum of `values` (gaps) and `previous`: the last value of
/// [`prefix_sum`], without writing the others (the delta `select`). A
/// plain reduction, which the compiler vectorizes.
#[inline]
pub(crate) fn wrapping_total<T: VarInt>(values: &[T], previous: T) -> T {
    let sum = values.iter().fold(previous.to_u64(), |sum, value| {
        sum.wrapping_add(value.to_u64())
    });
    T::from_u64_unchecked(sum)
}
