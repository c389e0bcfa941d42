//! SSE2 (in every x86-64 CPU, so chosen at compile time, with no run-time
//! check): the summed encoded lengths of 64-bit values, four at a time in
//! 32-bit lanes ([`encoded_len_64_sum`]), and the running sum of the delta
//! decoders ([`prefix_sum`]).
//!
//! The portable sum takes a bit scan per value, and a 64-bit value's bit
//! length has no vector form before AVX-512 (no `lzcnt`, and SSE2 has no
//! 64-bit comparison). On the Zen 1 development host the portable sum runs
//! at about 4 cycles per value (1.6-1.7 ns, with `bsr` in the default
//! build and with `lzcnt` in the native one), and prost's packed
//! `int64`/`uint64`/`sint64` encodes count every field
//! twice (`Message::encoded_len`, then the length prefix). Here, with `hi`
//! and `lo` a value's 32-bit halves: the length is 1 plus one for each of
//! the thresholds 2^7, 2^14, ..., 2^63 the value reaches. If `hi` is zero
//! only 2^7..2^28 can be reached, which are `lo >> 4` reaching 2^3, 2^10,
//! 2^17, 2^24; otherwise 2^7..2^28 all are, and 2^35..2^63 are `hi`
//! reaching 2^3, 2^10, 2^17, 2^24, 2^31. So with
//! `s = if hi == 0 { lo >> 4 } else { hi }` the length is
//! `1 + 4 * (hi != 0) + #{t in [2^3, 2^10, 2^17, 2^24, 2^31] : s >= t}`,
//! five comparisons of 32-bit lanes. SSE2 compares signed, so the kernel
//! compares `s >> 1` (below 2^31) with the halved thresholds. 0.78 ns per
//! value on 1,000 mixed `u64`s where the portable sum takes 1.6 (2.1x;
//! zigzag `sint64`: 0.95 against 2.15), default build, Zen 1 host. On a
//! Zen 5, where a bit scan takes one cycle, prost's value-by-value loop
//! was 1.14-1.30x faster than this kernel: where the detected bulk backend
//! is AVX-512, `bulk::encoded_len_64_sum` takes
//! `avx512::sizes::encoded_len_64_sum` instead.

use core::arch::x86_64::*;

use crate::arch::scalar;
use crate::varint::VarInt;

/// The sum of `scalar::encoded_len(wire(value))` over `values`.
#[inline(always)]
// The SSE2 intrinsics are `unsafe` before Rust 1.87 even though SSE2 is
// part of the x86-64 baseline (MSRV 1.85); newer compilers call the
// blocks unused.
#[allow(unused_unsafe)]
pub(crate) fn encoded_len_64_sum<V: Copy>(values: &[V], wire: impl Fn(V) -> u64) -> usize {
    let mut total = 0usize;
    // Each 32-bit lane sums at most 5 per value for a quarter of a chunk:
    // 2^16 values keep every lane far from wrapping.
    for chunk in values.chunks(1 << 16) {
        let mut quads = chunk.chunks_exact(4);
        // SAFETY: SSE2 is part of the x86-64 baseline; these intrinsics
        // work on registers only (no memory is read or written).
        let lanes = unsafe {
            // `s >> 1` is compared signed with t/2 - 1 for each threshold t.
            let halved_thresholds_less_one = [
                _mm_set1_epi32((1 << 2) - 1),
                _mm_set1_epi32((1 << 9) - 1),
                _mm_set1_epi32((1 << 16) - 1),
                _mm_set1_epi32((1 << 23) - 1),
                _mm_set1_epi32((1 << 30) - 1),
            ];
            let [t3, t10, t17, t24, t31] = halved_thresholds_less_one;
            let mut sums = _mm_setzero_si128();
            for quad in &mut quads {
                let first = _mm_set_epi64x(wire(quad[1]) as i64, wire(quad[0]) as i64);
                let second = _mm_set_epi64x(wire(quad[3]) as i64, wire(quad[2]) as i64);
                let (first, second) = (_mm_castsi128_ps(first), _mm_castsi128_ps(second));
                // Dwords 0 and 2 of each (the low halves), then 1 and 3.
                let lo = _mm_castps_si128(_mm_shuffle_ps::<0b10_00_10_00>(first, second));
                let hi = _mm_castps_si128(_mm_shuffle_ps::<0b11_01_11_01>(first, second));
                let hi_is_zero = _mm_cmpeq_epi32(hi, _mm_setzero_si128());
                // `hi >> 1` is zero where `hi` is, so an OR selects.
                let halved_s = _mm_or_si128(
                    _mm_srli_epi32::<1>(hi),
                    _mm_and_si128(_mm_srli_epi32::<5>(lo), hi_is_zero),
                );
                // The lanes start from 5 per value (added below): -4 where
                // `hi` is zero, then +1 per threshold reached (a true
                // comparison is -1, subtracted).
                sums = _mm_add_epi32(sums, _mm_slli_epi32::<2>(hi_is_zero));
                let reached = _mm_add_epi32(
                    _mm_add_epi32(
                        _mm_cmpgt_epi32(halved_s, t3),
                        _mm_cmpgt_epi32(halved_s, t10),
                    ),
                    _mm_add_epi32(
                        _mm_add_epi32(
                            _mm_cmpgt_epi32(halved_s, t17),
                            _mm_cmpgt_epi32(halved_s, t24),
                        ),
                        _mm_cmpgt_epi32(halved_s, t31),
                    ),
                );
                sums = _mm_sub_epi32(sums, reached);
            }
            let mut lanes = [0i32; 4];
            _mm_storeu_si128(lanes.as_mut_ptr().cast(), sums);
            lanes
        };
        let whole = chunk.len() - quads.remainder().len();
        let lanes_sum: i64 = lanes.iter().map(|&lane| i64::from(lane)).sum();
        // 5 per value, less 4 for each value with `hi` zero: never below
        // one per value, so the sum is positive.
        total += (5 * whole as i64 + lanes_sum) as usize;
        total += quads
            .remainder()
            .iter()
            .map(|&value| scalar::encoded_len(wire(value)))
            .sum::<usize>();
    }
    total
}

/// [`scalar::prefix_sum::prefix_sum`] in SSE2 lanes for `u32` (other
/// widths: the portable sum; on `u64` two lanes measured slower than it).
///
/// A vector's own running sum takes two shift-and-add steps (`pslldq`,
/// `paddd`), which no other vector waits for; the sum carried from the
/// values before it is then one add, and the carry moves by the total of
/// two vectors (their sum's last lane, broadcast by `pshufd`): the chain
/// from one step to the next is a single `paddd` per 8 values, where the
/// portable sum's is an add per value. Six shuffles per 8 values (two
/// shifts and a broadcast per vector), on two shuffle ports on Zen 3.
#[inline(always)]
// The SSE2 intrinsics are `unsafe` before Rust 1.87 even though SSE2 is
// part of the x86-64 baseline (MSRV 1.85); newer compilers call the
// blocks unused.
#[allow(unused_unsafe)]
// With `--cfg varint_turbo_force_scalar` the portable sum is selected.
#[cfg_attr(varint_turbo_force_scalar, allow(dead_code))]
pub(crate) fn prefix_sum<T: VarInt>(values: &mut [T], previous: T) -> T {
    if core::mem::size_of::<T>() != 4 {
        return scalar::prefix_sum::prefix_sum(values, previous);
    }
    // Two vectors of 4 `u32`s per step.
    let steps = values.len() / 8;
    let ptr = values.as_mut_ptr().cast::<__m128i>();
    // Step `i` reads and writes the 32 bytes of values[8 * i..8 * (i + 1)]
    // (`T` is 4 bytes), inside `values` for i < steps (unaligned accesses).
    // SAFETY: so every access is inside `values`; SSE2 is x86-64 baseline.
    let carry = unsafe {
        let mut carry = _mm_set1_epi32(previous.to_u64() as i32);
        let scan = |v: __m128i| {
            let v = _mm_add_epi32(v, _mm_slli_si128::<4>(v));
            _mm_add_epi32(v, _mm_slli_si128::<8>(v))
        };
        for i in 0..steps {
            let at = ptr.add(2 * i);
            let x = scan(_mm_loadu_si128(at));
            let y = scan(_mm_loadu_si128(at.add(1)));
            let x_total = _mm_shuffle_epi32::<0xff>(x);
            _mm_storeu_si128(at, _mm_add_epi32(x, carry));
            _mm_storeu_si128(at.add(1), _mm_add_epi32(_mm_add_epi32(y, x_total), carry));
            carry = _mm_add_epi32(carry, _mm_shuffle_epi32::<0xff>(_mm_add_epi32(y, x_total)));
        }
        _mm_cvtsi128_si32(carry) as u32
    };
    let carry = T::from_u64_unchecked(u64::from(carry));
    scalar::prefix_sum::prefix_sum(&mut values[steps * 8..], carry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::scalar::sizes::encoded_len_64_sum_portable;
    use alloc::vec;

    fn zigzag(value: u64) -> u64 {
        let value = value as i64;
        ((value << 1) ^ (value >> 63)) as u64
    }

    /// Every bit length's edges, in every lane position, plain and zigzag,
    /// against the value-by-value sum.
    #[test]
    fn agrees_with_the_portable_sum_at_every_bit_length() {
        let mut edges = vec![0u64, u64::MAX];
        for bits in 1..64 {
            edges.extend([(1u64 << bits) - 1, 1 << bits, (1 << bits) + 1]);
            edges.extend([((1u64 << bits) - 1) | (1 << 63), !(1u64 << bits)]);
        }
        for offset in 0..4 {
            for len in [0, 1, 3, 4, 5, 8, 9, edges.len() - offset] {
                let values = &edges[offset..offset + len];
                assert_eq!(
                    encoded_len_64_sum(values, |value| value),
                    encoded_len_64_sum_portable(values, |value| value),
                    "{values:x?}"
                );
                assert_eq!(
                    encoded_len_64_sum(values, zigzag),
                    encoded_len_64_sum_portable(values, zigzag),
                    "{values:x?}"
                );
            }
        }
        for &value in &edges {
            for lane in 0..4 {
                let mut quad = [0u64; 4];
                quad[lane] = value;
                assert_eq!(
                    encoded_len_64_sum(&quad, |value| value),
                    3 + scalar::encoded_len(value),
                    "{value:#x} in lane {lane}"
                );
            }
        }
    }

    /// More than one chunk of 2^16 values, all 10 bytes long.
    #[test]
    fn sums_past_one_chunk() {
        let values = vec![u64::MAX; (1 << 16) + 7];
        assert_eq!(
            encoded_len_64_sum(&values, |value| value),
            10 * values.len()
        );
    }

    /// Every length from 0 to 40 and a long one, `u32` and `u64`, values
    /// near the top of the type (so that the sums wrap) and small ones,
    /// against the portable sum.
    #[test]
    fn prefix_sum_agrees_with_the_portable_sum() {
        // Fibonacci hashing of the index: spread-out 64-bit values.
        let hash = |i: u64| i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for len in (0..40).chain([1000]) {
            for shift in [0, 20, 33, 57] {
                let gaps: alloc::vec::Vec<u64> = (0..len).map(|i| hash(i + len) >> shift).collect();
                let previous = hash(len + shift);
                let mut want = gaps.clone();
                let want_last = scalar::prefix_sum::prefix_sum(&mut want, previous);
                let mut got = gaps.clone();
                assert_eq!(prefix_sum(&mut got, previous), want_last);
                assert_eq!(got, want, "u64, {len} values");
                let gaps: alloc::vec::Vec<u32> = gaps.iter().map(|&g| g as u32).collect();
                let mut want = gaps.clone();
                let want_last = scalar::prefix_sum::prefix_sum(&mut want, previous as u32);
                let mut got = gaps.clone();
                assert_eq!(prefix_sum(&mut got, previous as u32), want_last);
                assert_eq!(got, want, "u32, {len} values");
            }
        }
    }
}
