//! The AVX2 sizing kernels behind [`Backend::Avx2`](crate::Backend::Avx2):
//! `count_varints` with `vpmovmskb` and `popcnt`, `encoded_len_sum` as the
//! portable loop compiled with LZCNT.

use core::arch::x86_64::*;

use crate::arch::scalar::sizes::{count_varints_portable, encoded_len_sum_portable};
use crate::varint::VarInt;

/// The number of bytes of `input` without a continuation bit: `vpmovmskb`
/// and `popcnt` per 32 bytes.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT.
#[target_feature(enable = "avx2,popcnt")]
// Intrinsic calls are `unsafe` before Rust 1.87 even under their target
// feature (MSRV 1.85); newer compilers call that block unused.
#[allow(unused_unsafe)]
pub unsafe fn count_varints(input: &[u8]) -> usize {
    let mut total = 0usize;
    let mut chunks = input.chunks_exact(32);
    for chunk in &mut chunks {
        // SAFETY: `chunk` is 32 readable bytes; this function's caller
        // guarantees AVX2.
        let mask = unsafe { _mm256_movemask_epi8(_mm256_loadu_si256(chunk.as_ptr().cast())) };
        total += (!(mask as u32)).count_ones() as usize;
    }
    total + count_varints_portable(chunks.remainder())
}

/// The portable sum of encoded lengths, compiled with `lzcnt` (one
/// instruction for the bit length instead of `bsr` and a fix-up).
///
/// # Safety
/// The CPU must support LZCNT.
#[target_feature(enable = "lzcnt")]
pub unsafe fn encoded_len_sum<T: VarInt>(values: &[T]) -> usize {
    encoded_len_sum_portable(values)
}
