//! The AVX-512 sizing kernels behind
//! [`Backend::Avx512Vbmi2`](crate::Backend::Avx512Vbmi2): `count_varints`
//! (`vpmovb2m` and `popcnt` per 64 bytes) and `encoded_len_sum` (`vplzcnt`
//! and one `vpermb` of a length table per 16 or 8 values).

use core::arch::x86_64::*;

use crate::varint::VarInt;

/// The number of bytes of `input` without a continuation bit: one
/// `vpmovb2m` and `popcnt` per 64 bytes, the tail with a masked load (which
/// does not touch the bytes it masks off).
///
/// # Safety
/// The CPU must support AVX-512 F and BW and POPCNT.
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub unsafe fn count_varints(input: &[u8]) -> usize {
    let mut total = 0usize;
    let mut chunks = input.chunks_exact(64);
    for chunk in &mut chunks {
        // SAFETY: `chunk` is 64 readable bytes.
        let bytes = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
        total += (!_mm512_movepi8_mask(bytes)).count_ones() as usize;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let present = u64::MAX >> (64 - rest.len());
        // SAFETY: the mask covers only the `rest.len()` bytes of `rest`;
        // masked-off bytes are not accessed (no fault, no read).
        let bytes = unsafe { _mm512_maskz_loadu_epi8(present, rest.as_ptr().cast()) };
        total += (!_mm512_movepi8_mask(bytes) & present).count_ones() as usize;
    }
    total
}

/// `LEN_BY_LZCNT_64[lz]`: the encoded length of a `u64` with `lz` leading
/// zeros (Go's `(9 * bit_length + 64) / 64`, `bit_length = 64 - lz`), for
/// `lz` in 0..64 (the value or-ed with 1 never has 64). One `vpermb` of this
/// table replaces the formula's four vector operations (shift, add, subtract,
/// shift), which bound the loop (see [`encoded_len_sum`]).
static LEN_BY_LZCNT_64: [u8; 64] = len_by_lzcnt(64);
/// The same for 32-bit lanes (`lz` in 0..32; the upper half is unused).
static LEN_BY_LZCNT_32: [u8; 64] = len_by_lzcnt(32);

const fn len_by_lzcnt(bits: usize) -> [u8; 64] {
    let mut table = [0u8; 64];
    let mut lz = 0;
    while lz < bits {
        table[lz] = ((9 * (bits - lz) + 64) / 64) as u8;
        lz += 1;
    }
    table
}

/// The sum of the encoded lengths of `values`: per lane Go's
/// `(9 * bit_length + 64) / 64` with `vplzcnt` (AVX-512 CD) and a table
/// lookup, 8 `u64` or 16 narrower values per step, summed in vector
/// accumulators. No software prefetch: on the Zen 4 host a `prefetcht0` 4 KiB
/// ahead cost 21% (1M-value mix: 9.6 against 7.9 G values/s, prost's
/// vectorised loop 8.2), although it had gained 7-10% on Sapphire Rapids.
/// The table lookup gained 10% on Zen 4 (7.2 to 7.9 G values/s, criterion).
///
/// `avx512vl` is enabled for the 128- and 256-bit masked loads of `u8` and
/// `u16` values (`load_as_u32_lanes`, AVX-512 BW+VL): without it LLVM could
/// not inline them, and every step of 16 values called them out of line
/// (Zen 4, 1M values of a mix against the scalar sum: `u8` 3.18x, `u16`
/// 1.24x the time; with it 0.45x and 0.32x; issue 43).
/// `scripts/check-target-features.sh` keeps every kernel's list complete.
///
/// # Safety
/// The CPU must support AVX-512 F, BW, VL, CD and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512cd,avx512vbmi")]
pub unsafe fn encoded_len_sum<T: VarInt>(values: &[T]) -> usize {
    if core::mem::size_of::<T>() == 8 {
        let mut sum = _mm512_setzero_si512();
        let mut chunks = values.chunks_exact(8);
        // SAFETY: the table is 64 readable bytes.
        let table = unsafe { _mm512_loadu_si512(LEN_BY_LZCNT_64.as_ptr().cast()) };
        let len_of = |wide: __m512i| {
            // `lz` is 0..=63 (the `or`): byte 0 of each lane indexes the
            // table, the lanes' other bytes are zeroed.
            let lz = _mm512_lzcnt_epi64(_mm512_or_si512(wide, _mm512_set1_epi64(1)));
            _mm512_maskz_permutexvar_epi8(0x0101_0101_0101_0101, lz, table)
        };
        for chunk in &mut chunks {
            // SAFETY: `chunk` is 8 readable 8-byte values.
            let wide = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
            sum = _mm512_add_epi64(sum, len_of(wide));
        }
        let rest = chunks.remainder();
        let present = (1u16 << rest.len()) as u8 - 1;
        // SAFETY: the mask covers the `rest.len()` values of `rest` only.
        let wide = unsafe { _mm512_maskz_loadu_epi64(present, rest.as_ptr().cast()) };
        sum = _mm512_mask_add_epi64(sum, present, sum, len_of(wide));
        return _mm512_reduce_add_epi64(sum) as usize;
    }
    // 16 values per step in 32-bit lanes: (9 * (32 - lz) + 64) / 64. A lane
    // gains at most 5 per step: each lane sums in 32 bits for 2^26 steps at
    // a time (at most 5 * 2^26 < 2^32), and the 16 lane sums of a block are
    // added in 64 bits (their total, up to 16 * 5 * 2^26 = 5.4e9, does not
    // fit 32 bits: 860M values of `u32::MAX` once summed to 5,032,704).
    let mut total = 0usize;
    for block in values.chunks(16 << 26) {
        let mut sum = _mm512_setzero_si512();
        // SAFETY: the table is 64 readable bytes.
        let table = unsafe { _mm512_loadu_si512(LEN_BY_LZCNT_32.as_ptr().cast()) };
        let len_of = |wide: __m512i| {
            // `lz` is 0..=31: byte 0 of each 32-bit lane indexes the table.
            let lz = _mm512_lzcnt_epi32(_mm512_or_si512(wide, _mm512_set1_epi32(1)));
            _mm512_maskz_permutexvar_epi8(0x1111_1111_1111_1111, lz, table)
        };
        let mut chunks = block.chunks_exact(16);
        for chunk in &mut chunks {
            // SAFETY: `chunk` is 16 readable values.
            let wide = unsafe { load_as_u32_lanes(chunk.as_ptr(), u16::MAX) };
            sum = _mm512_add_epi32(sum, len_of(wide));
        }
        let rest = chunks.remainder();
        let present = (1u32 << rest.len()) as u16 - 1;
        // SAFETY: only the `rest.len()` values of `rest` are read (masked).
        let wide = unsafe { load_as_u32_lanes(rest.as_ptr(), present) };
        sum = _mm512_mask_add_epi32(sum, present, sum, len_of(wide));
        // SAFETY: this function enables AVX-512 F.
        total += unsafe { sum_u32_lanes(sum) } as usize;
    }
    total
}

/// The sum of the encoded lengths of `wire(value)` over `values`: the 64-bit
/// step of [`encoded_len_sum`] on wire values made by `wire` (packed
/// protobuf `int64`, `uint64`, `sint64`: two's complement bits or zigzag),
/// 8 per step. `wire` is inlined here; for the plain casts the compiler
/// folds the 8 loads into one vector load, and zigzag is three vector
/// operations. The x86-64 baseline's form, `arch::x86_64::sse2`, compares
/// 32-bit halves, five comparisons per four values: on a Zen 5 host it
/// was slower than a bit scan per value (`bsr` is one cycle there), so
/// prost's own loop beat it by 1.14-1.30x on packed 64-bit fields of
/// 1,000 and 100,000 values (the prost harness, 2026-11-27).
///
/// # Safety
/// The CPU must support AVX-512 F, BW, CD and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512cd,avx512vbmi")]
// Builds for AVX-512 CD targets sum with the loop the compiler vectorizes
// (`arch::selected`) and leave this one to its tests.
#[cfg_attr(target_feature = "avx512cd", allow(dead_code))]
pub(crate) unsafe fn encoded_len_64_sum<V: Copy>(values: &[V], wire: impl Fn(V) -> u64) -> usize {
    let mut sum = _mm512_setzero_si512();
    // SAFETY: the table is 64 readable bytes.
    let table = unsafe { _mm512_loadu_si512(LEN_BY_LZCNT_64.as_ptr().cast()) };
    let mut chunks = values.chunks_exact(8);
    for chunk in &mut chunks {
        let lane = |i: usize| wire(chunk[i]) as i64;
        let wide = _mm512_set_epi64(
            lane(7),
            lane(6),
            lane(5),
            lane(4),
            lane(3),
            lane(2),
            lane(1),
            lane(0),
        );
        // As in `encoded_len_sum`: `lz` in 0..=63 indexes the table with
        // byte 0 of each lane.
        let lz = _mm512_lzcnt_epi64(_mm512_or_si512(wide, _mm512_set1_epi64(1)));
        sum = _mm512_add_epi64(
            sum,
            _mm512_maskz_permutexvar_epi8(0x0101_0101_0101_0101, lz, table),
        );
    }
    let rest: usize = chunks
        .remainder()
        .iter()
        .map(|&value| crate::arch::scalar::encoded_len(wire(value)))
        .sum();
    _mm512_reduce_add_epi64(sum) as usize + rest
}

/// The sum of the 16 unsigned 32-bit lanes of `x`, in 64 bits (so that it
/// cannot wrap).
///
/// # Safety
/// The CPU must support AVX-512 F.
#[inline(always)]
unsafe fn sum_u32_lanes(x: __m512i) -> u64 {
    // SAFETY: the caller guarantees AVX-512 F; register operations only.
    unsafe {
        let low = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(x));
        let high = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(x));
        _mm512_reduce_add_epi64(_mm512_add_epi64(low, high)) as u64
    }
}

/// Loads the values of `src` selected by `present` (low bits; up to 16) of
/// a type of at most 4 bytes, zero-extended to 32-bit lanes; the others are 0.
///
/// # Safety
/// The selected values must be readable; the CPU must support AVX-512 F/BW/VL.
#[inline(always)]
unsafe fn load_as_u32_lanes<T: VarInt>(src: *const T, present: u16) -> __m512i {
    // SAFETY: the caller guarantees that the selected values are readable;
    // masked-off elements are not accessed.
    unsafe {
        match core::mem::size_of::<T>() {
            4 => _mm512_maskz_loadu_epi32(present, src.cast()),
            2 => _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(present, src.cast())),
            _ => _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(present, src.cast())),
        }
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    extern crate std;
    use super::*;

    fn avx512() -> bool {
        std::is_x86_feature_detected!("avx512f")
    }

    /// `encoded_len_64_sum`: every bit length's edges, in every lane
    /// position and with every tail length, plain, zigzag and through an
    /// `i64` cast (packed `int64`), against the value-by-value sum.
    #[test]
    fn wire_sum_agrees_with_the_portable_sum() {
        use crate::arch::scalar::sizes::encoded_len_64_sum_portable;
        use std::vec::Vec;
        let features = ["avx512f", "avx512bw", "avx512cd", "avx512vbmi"];
        if !(std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512cd")
            && std::is_x86_feature_detected!("avx512vbmi"))
        {
            std::eprintln!(
                "no {features:?} on this CPU: wire_sum_agrees_with_the_portable_sum not run"
            );
            return;
        }
        let zigzag = |value: u64| (value << 1) ^ ((value as i64) >> 63) as u64;
        let mut edges = std::vec![0u64, u64::MAX];
        for bits in 1..64 {
            edges.extend([(1u64 << bits) - 1, 1 << bits, (1 << bits) + 1]);
            edges.extend([((1u64 << bits) - 1) | (1 << 63), !(1u64 << bits)]);
        }
        let signed: Vec<i64> = edges.iter().map(|&value| value as i64).collect();
        for offset in 0..8 {
            for len in (0..=24).chain([edges.len() - offset]) {
                let values = &edges[offset..offset + len];
                // SAFETY: the CPU has the kernel's features (checked above).
                let (plain, zigzagged, cast) = unsafe {
                    (
                        encoded_len_64_sum(values, |value| value),
                        encoded_len_64_sum(values, zigzag),
                        encoded_len_64_sum(&signed[offset..offset + len], |value| value as u64),
                    )
                };
                let expected = encoded_len_64_sum_portable(values, |value| value);
                assert_eq!(plain, expected, "{values:x?}");
                assert_eq!(cast, expected, "{values:x?}");
                assert_eq!(
                    zigzagged,
                    encoded_len_64_sum_portable(values, zigzag),
                    "{values:x?}"
                );
            }
        }
    }

    /// The lane sums of a block reach 16 * 5 * 2^26 > 2^32 with 2^30 values;
    /// their reduction must not wrap. Driven directly with lane sums of
    /// `u32::MAX` (their total is 2^36 - 16).
    #[test]
    fn lane_sums_add_in_64_bits() {
        if !avx512() {
            std::eprintln!("no AVX-512 F on this CPU: lane_sums_add_in_64_bits not run");
            return;
        }
        // SAFETY: the CPU has AVX-512 F (checked above).
        let total = unsafe { sum_u32_lanes(_mm512_set1_epi32(-1)) };
        assert_eq!(total, 16 * u64::from(u32::MAX));
        // SAFETY: as above.
        let mixed = unsafe {
            sum_u32_lanes(_mm512_setr_epi32(
                -1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, -2,
            ))
        };
        assert_eq!(
            mixed,
            u64::from(u32::MAX) + u64::from(u32::MAX - 1) + (1..=14).sum::<u64>()
        );
    }
}
