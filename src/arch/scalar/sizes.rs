//! The portable sizing kernels of the bulk API: how many varints a buffer
//! holds ([`count_varints_portable`]) and how many bytes values encode to
//! ([`encoded_len_sum_portable`]). Plain loops that the compiler
//! vectorizes; the SIMD backends use them for their tails.

use crate::arch::scalar;
use crate::varint::VarInt;

/// [`count_varints`](crate::count_varints) without SIMD intrinsics: byte counters that the
/// compiler vectorizes (SSE2 on the x86-64 baseline), summed every 255
/// blocks before they can wrap.
#[inline(always)]
pub(crate) fn count_varints_portable(input: &[u8]) -> usize {
    const LANES: usize = 16;
    let mut total = 0usize;
    for chunk in input.chunks(LANES * 255) {
        let mut counts = [0u8; LANES];
        let mut blocks = chunk.chunks_exact(LANES);
        for block in &mut blocks {
            for (count, &byte) in counts.iter_mut().zip(block) {
                *count += u8::from(byte < 0x80);
            }
        }
        total += counts
            .iter()
            .map(|&count| usize::from(count))
            .sum::<usize>();
        total += blocks
            .remainder()
            .iter()
            .filter(|&&byte| byte < 0x80)
            .count();
    }
    total
}

/// [`encoded_len_sum`](crate::encoded_len_sum) one value at a time (Go's branch-free formula).
#[inline(always)]
pub(crate) fn encoded_len_sum_portable<T: VarInt>(values: &[T]) -> usize {
    values
        .iter()
        .map(|&value| scalar::encoded_len(value.to_u64()))
        .sum()
}
