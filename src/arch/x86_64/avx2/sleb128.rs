//! The signed LEB128 sign step (`arch::scalar::sleb128::sign_values`) in
//! 256-bit lanes, for the bulk decoder of the AVX-512 backend (the SSSE3
//! and AVX2 ones sign-extend in their grid steps: `grid_decode`).
//!
//! Per 64 input bytes, two `vpmovmskb` give the bytes that end a varint
//! (no continuation bit) and two more, of the bytes doubled, their bit 6
//! (the sign of the varint they end); `PEXT` of the signs under the ends
//! (where it is fast; a loop over the ends elsewhere) packs one sign bit
//! per value, in order. Then 8 `u32` (4 `u64`) values per step: the sign
//! bits become lane masks, the value's bits are smeared right (`x | x >> 1
//! | x >> 2 ...`: every bit below its highest) and a negative value gets
//! every bit above its highest set, which is its sign bit. A value whose
//! type's top bit is set with a positive sign breaks the signed rules;
//! those are `or`ed into a vector tested once per 4,096 bytes, and the
//! scalar code then finds the first.

use core::arch::x86_64::*;

use crate::arch::scalar::sleb128::value_start;
use crate::sleb128_int::SignedLeb128;
use crate::varint::Sealed;

/// Input bytes per round of sign bits: 64 blocks of 64, at most 4,096
/// values, whose sign bits fit [`SIGN_WORDS`] words on the stack.
const ROUND_BYTES: usize = 4096;
const SIGN_WORDS: usize = ROUND_BYTES / 64;

/// [`sign_values`](crate::arch::scalar::sleb128::sign_values) in AVX2
/// lanes: `input` holds exactly the varints whose unsigned decodes are
/// `values`; each becomes its signed value's bits, or the index and
/// offset of the first that breaks the signed rules come back. `pext`:
/// whether `PEXT` is fast on this CPU.
///
/// # Safety
/// The CPU must support AVX2, BMI1, BMI2, LZCNT and POPCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub unsafe fn sign_values<T: SignedLeb128>(
    input: &[u8],
    values: &mut [T::Bits],
    pext: bool,
) -> Result<(), (usize, usize)> {
    let mut done = 0;
    for round in input.chunks(ROUND_BYTES) {
        let mut signs = [0u64; SIGN_WORDS];
        // SAFETY: AVX2 and BMI2 (caller).
        let count = unsafe { sign_bits(round, &mut signs, pext) }.min(values.len() - done);
        let slots = &mut values[done..done + count];
        // SAFETY: AVX2 (caller).
        let bad = unsafe { extend::<T>(slots, &signs) };
        if bad {
            let top = (T::Bits::MAX_U64 >> 1) + 1;
            let first = slots
                .iter()
                .enumerate()
                .position(|(j, value)| {
                    value.to_u64() & top != 0 && signs[j / 64] >> (j % 64) & 1 == 0
                })
                .unwrap_or(0);
            let index = done + first;
            return Err((index, value_start(input, index)));
        }
        done += count;
    }
    Ok(())
}

/// The sign bits of the varints that end in `round` (at most 4,096
/// bytes), packed in order into `signs`; returns how many.
#[inline(always)]
unsafe fn sign_bits(round: &[u8], signs: &mut [u64; SIGN_WORDS], pext: bool) -> usize {
    let mut count = 0;
    for chunk in round.chunks(64) {
        // The last bytes: padded with continuation bytes, which end nothing.
        let mut padded = [0x80u8; 64];
        let block = match chunk.first_chunk::<64>() {
            Some(block) => block,
            None => {
                padded[..chunk.len()].copy_from_slice(chunk);
                &padded
            }
        };
        // SAFETY: 64 readable bytes at `block`; AVX2 (caller).
        let (ends, negative) = unsafe { ends_and_signs(block) };
        let bits = if pext {
            // SAFETY: BMI2 (caller).
            unsafe { _pext_u64(negative, ends) }
        } else {
            let mut bits = 0;
            let mut rest = ends;
            let mut k = 0;
            while rest != 0 {
                bits |= (negative >> rest.trailing_zeros() & 1) << k;
                rest &= rest - 1;
                k += 1;
            }
            bits
        };
        let n = ends.count_ones() as usize;
        // `count + n <= 4096`: one end per byte at most.
        let (word, shift) = (count / 64, count % 64);
        signs[word] |= bits << shift;
        if shift != 0 && word + 1 < SIGN_WORDS {
            signs[word + 1] |= bits >> (64 - shift);
        }
        count += n;
    }
    count
}

/// The bytes of `block` without a continuation bit, and those with bit 6.
#[inline(always)]
unsafe fn ends_and_signs(block: &[u8; 64]) -> (u64, u64) {
    let ptr = block.as_ptr().cast::<__m256i>();
    // SAFETY: 64 readable bytes (caller), unaligned loads; AVX2 (caller).
    unsafe {
        let low = _mm256_loadu_si256(ptr);
        let high = _mm256_loadu_si256(ptr.add(1));
        let continues = u64::from(_mm256_movemask_epi8(low) as u32)
            | u64::from(_mm256_movemask_epi8(high) as u32) << 32;
        let sixth = u64::from(_mm256_movemask_epi8(_mm256_add_epi8(low, low)) as u32)
            | u64::from(_mm256_movemask_epi8(_mm256_add_epi8(high, high)) as u32) << 32;
        (!continues, sixth)
    }
}

/// Sign-extends `slots` by `signs` (bit `j`: value `j` is negative) in
/// 256-bit lanes; returns whether a value has its type's top bit set and
/// a positive sign.
#[inline(always)]
unsafe fn extend<T: SignedLeb128>(slots: &mut [T::Bits], signs: &[u64; SIGN_WORDS]) -> bool {
    let wide = T::Bits::MAX_U64 == u64::MAX;
    let lanes = if wide { 4 } else { 8 };
    let ptr = slots.as_mut_ptr().cast::<__m256i>();
    let whole = slots.len() / lanes;
    // SAFETY: AVX2 (caller); vector `i` covers slots `lanes * i..lanes *
    // (i + 1)`, inside `slots` for `i < whole`, unaligned.
    let (mut bad, top) = unsafe {
        (
            _mm256_setzero_si256(),
            if wide {
                _mm256_set1_epi64x(i64::MIN)
            } else {
                _mm256_set1_epi32(i32::MIN)
            },
        )
    };
    for i in 0..whole {
        let first = lanes * i;
        // `lanes` divides 64: a group's bits never cross a word.
        let group = (signs[first / 64] >> (first % 64)) as i32;
        // SAFETY: see above.
        unsafe {
            let value = _mm256_loadu_si256(ptr.add(i));
            let (negative, below_top) = if wide {
                let lane_bits = _mm256_set_epi64x(8, 4, 2, 1);
                let negative = _mm256_cmpeq_epi64(
                    _mm256_and_si256(_mm256_set1_epi64x(i64::from(group)), lane_bits),
                    lane_bits,
                );
                let mut x = _mm256_or_si256(value, _mm256_srli_epi64::<1>(value));
                x = _mm256_or_si256(x, _mm256_srli_epi64::<2>(x));
                x = _mm256_or_si256(x, _mm256_srli_epi64::<4>(x));
                x = _mm256_or_si256(x, _mm256_srli_epi64::<8>(x));
                x = _mm256_or_si256(x, _mm256_srli_epi64::<16>(x));
                x = _mm256_or_si256(x, _mm256_srli_epi64::<32>(x));
                (negative, x)
            } else {
                let lane_bits = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
                let negative = _mm256_cmpeq_epi32(
                    _mm256_and_si256(_mm256_set1_epi32(group), lane_bits),
                    lane_bits,
                );
                let mut x = _mm256_or_si256(value, _mm256_srli_epi32::<1>(value));
                x = _mm256_or_si256(x, _mm256_srli_epi32::<2>(x));
                x = _mm256_or_si256(x, _mm256_srli_epi32::<4>(x));
                x = _mm256_or_si256(x, _mm256_srli_epi32::<8>(x));
                x = _mm256_or_si256(x, _mm256_srli_epi32::<16>(x));
                (negative, x)
            };
            // Every bit above the highest, for the negative lanes.
            let extension = _mm256_andnot_si256(below_top, negative);
            bad = _mm256_or_si256(bad, _mm256_andnot_si256(negative, value));
            _mm256_storeu_si256(ptr.add(i), _mm256_or_si256(value, extension));
        }
    }
    // SAFETY: AVX2 (caller).
    let mut found = unsafe { _mm256_testz_si256(bad, top) } == 0;
    let top = (T::Bits::MAX_U64 >> 1) + 1;
    for j in lanes * whole..slots.len() {
        let bits = slots[j].to_u64();
        let negative = (signs[j / 64] >> (j % 64) & 1).wrapping_neg();
        found |= bits & top & !negative != 0;
        let extension = u64::MAX << (63 - (bits | 1).leading_zeros());
        slots[j] = T::Bits::from_u64_unchecked(bits | extension & negative);
    }
    found
}
