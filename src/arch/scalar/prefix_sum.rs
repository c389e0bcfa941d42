//! The running sum of the delta decoders (`delta::decode_slice`, `select`,
//! `search`): sorted lists are stored as the varints of their gaps, and
//! value `i` is `previous + gap[0] + ... + gap[i]`, wrapping in the width
//! of `T` (as Masked VByte's `masked_vbyte_decode_delta` does).
//!
//! The sum is one chain of dependent adds, one per value (a load, an add
//! and a store per value, about one cycle each on Zen 3). A variant whose
//! chain took one add per two values (a pair's own sum off the chain) was
//! no faster there, and the SSE2 form (`x86_64::sse2::prefix_sum`) is
//! slower than this loop on `u64` lanes (4,096 1-byte gaps: 0.63 against
//! 0.36 ns per value; BENCHMARKS.md, "Delta-coded lists and short 1-byte
//! runs").

use crate::varint::VarInt;

/// Replaces each of `values` (gaps) with `previous` plus the gaps up to
/// and including it, wrapping in `T`; returns the last sum (`previous`
/// for no values), the `previous` of the values after them.
#[inline]
pub(crate) fn prefix_sum<T: VarInt>(values: &mut [T], previous: T) -> T {
    // A `u64` sum truncated to `T` is the sum wrapping in `T`.
    let mut sum = previous.to_u64();
    for value in values {
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
