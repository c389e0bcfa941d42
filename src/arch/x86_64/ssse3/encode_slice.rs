//! SSSE3 bulk encoder, behind [`Backend::Ssse3`](crate::Backend::Ssse3) and
//! (with the `PDEP` word encoder, `avx2::encode_slice`)
//! [`Backend::Avx2`](crate::Backend::Avx2): four values per step in 32-bit
//! lanes, their varints squeezed together by one `pshufb` with a control
//! from a 256-entry table (Stream VByte's encoder with LEB128 bytes; the
//! table and the loop around the steps are shared with the NEON encoder,
//! see `arch::group_encode`).
//!
//! # One step (four values, each below 2^28, so at most 4 bytes)
//!
//! * **Spread**: bits 14..28 of each lane move to its upper halfword
//!   (`and`, `xor`, `pslld` by 2, `or`), then bits 7..14 of each halfword
//!   to its upper byte (the same on 16-bit lanes): one 7-bit group per
//!   byte, bit 7 clear. (NEON's `sli` does each move in two instructions;
//!   SSE needs four.)
//! * **Continuation bits**: byte `k` continues when a higher byte of its
//!   lane is not zero. Shifting the lane right by 8, 16 and 24 bits and
//!   `or`ing gives, at byte `k`, the `or` of the groups above it (at most
//!   0x7f); adding 0x7f to each byte sets bit 7 exactly where that is not
//!   zero (`paddb`, `pand` 0x80, `por` into the groups). There is no
//!   `lzcnt` on vector lanes before AVX-512, which is how NEON gets the
//!   lengths (`clz`).
//! * **Compaction**: `pmovmskb` of the result has the continuation bits,
//!   bits `4j..4j + 3` for lane `j` (`0`, `1`, `11` or `111`: the length
//!   minus one is their count). A 256-byte table turns each byte of that
//!   mask (two lanes) into two 2-bit codes; together they index the shared
//!   control table. One `pshufb`, one 16-byte store at the output position,
//!   which then advances by the entry's total length; the bytes the store
//!   writes past it are overwritten by the next step (or by the last
//!   values' loop), as the scalar encoder's 10-byte stores are.
//!
//! A step is 46 instructions for `u64` input (release build, from the
//! disassembly: 11.5 per value, 3 of them loop control and 3 reloads of the
//! tables' addresses, as the generic code is compiled in the caller's
//! crate), against 24 per value for the word encoder that `PDEP` makes
//! (`bmi2::encode`), the fallback for steps with a value of 2^28 or more and
//! for stretches of such values. AVX2 adds nothing to a 4-value step but the
//! VEX encoding, and 8 values per 256-bit step would fall back twice as
//! often on the protobuf-like mix (a full `u64` in 34% of groups of 8
//! against 19% of groups of 4).
//!
//! Measured (in-process A/B, default build, `AB_OP=encode scripts/ab-bulk`,
//! protobuf-like mix): `Backend::Avx2` 2.4x the value-by-value portable
//! encoder at 100,000 values and 1.07-1.37x the `PDEP` word loop (1M to
//! 10,000 values); `Backend::Ssse3` 1.8x the portable loop; uniform `u64`
//! (word-encoder stretches) level with the word loop.

use core::arch::x86_64::*;

use crate::arch::group_encode::{self, CONTROLS, GROUP, LANE_LIMIT, TOTALS};
use crate::arch::scalar;
use crate::arch::scalar::encode_slice::encode_slice_into_scalar;
use crate::arch::scalar::single::UninitWindow;
use crate::varint::VarInt;
use core::mem::MaybeUninit;

/// `PAIR_CODES[b]`: for one byte of the continuation mask (two lanes, a
/// nibble each, of the form `0`, `1`, `11` or `111`), the two lanes'
/// `len - 1` as 2-bit codes: bits 0..2 for the low nibble, 2..4 for the
/// high one.
static PAIR_CODES: [u8; 256] = {
    let mut codes = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        let low = (byte & 0x7) as u32;
        let high = ((byte >> 4) & 0x7) as u32;
        codes[byte] = (low.count_ones() | high.count_ones() << 2) as u8;
        byte += 1;
    }
    codes
};

/// log2 of [`LANE_LIMIT`]: a value fits a lane when no bit from here up is set.
const LANE_BITS: i32 = LANE_LIMIT.trailing_zeros() as i32;

/// Loads 4 values into the 32-bit lanes (truncated: only meaningful when
/// `fits` is true) and says whether all of them are below 2^28.
///
/// # Safety
/// 4 values must be readable at `src`; the CPU must have SSSE3.
#[inline(always)]
unsafe fn load_4<T: VarInt>(src: *const T) -> (__m128i, bool) {
    // `T` is an unsigned integer, so the size only picks the load width.
    // SAFETY: 4 readable `T` at `src` (caller); each branch reads exactly
    // those; SSE2 is baseline.
    unsafe {
        let zero = _mm_setzero_si128();
        match core::mem::size_of::<T>() {
            8 => {
                let a = _mm_loadu_si128(src.cast());
                let b = _mm_loadu_si128(src.cast::<u64>().add(2).cast());
                // All four below 2^28: their `or` shifted right by 28 is
                // zero in both 64-bit lanes.
                let high = _mm_srli_epi64::<LANE_BITS>(_mm_or_si128(a, b));
                let fits = _mm_movemask_epi8(_mm_cmpeq_epi32(high, zero)) == 0xffff;
                // The low 32 bits of each value: dwords 0 and 2 of each.
                let lanes = _mm_castps_si128(_mm_shuffle_ps::<0b10_00_10_00>(
                    _mm_castsi128_ps(a),
                    _mm_castsi128_ps(b),
                ));
                (lanes, fits)
            }
            4 => {
                let lanes = _mm_loadu_si128(src.cast());
                let high = _mm_srli_epi32::<LANE_BITS>(lanes);
                let fits = _mm_movemask_epi8(_mm_cmpeq_epi32(high, zero)) == 0xffff;
                (lanes, fits)
            }
            2 => {
                let words = _mm_loadl_epi64(src.cast());
                (_mm_unpacklo_epi16(words, zero), true)
            }
            _ => {
                let bytes = _mm_cvtsi32_si128(src.cast::<i32>().read_unaligned());
                let words = _mm_unpacklo_epi8(bytes, zero);
                (_mm_unpacklo_epi16(words, zero), true)
            }
        }
    }
}

/// Encodes the four values in `lanes` (each below 2^28) to `dst`; returns
/// the bytes of their varints. Writes 16 bytes at `dst`.
///
/// # Safety
/// `dst` must be valid for writing 16 bytes; the CPU must have SSSE3.
#[inline(always)]
unsafe fn encode_step(lanes: __m128i, dst: *mut u8) -> usize {
    // The index is below 256 (two 4-bit codes): inside the table.
    // SAFETY: register operations, a table load and a 16-byte store the
    // caller has room for; SSSE3 (caller).
    unsafe {
        // Bits 14..28 to bits 16..30: each 14-bit half in its halfword.
        let high14 = _mm_and_si128(lanes, _mm_set1_epi32(0x0fff_c000));
        let halves = _mm_or_si128(_mm_xor_si128(lanes, high14), _mm_slli_epi32::<2>(high14));
        // Bits 7..14 of each halfword to bits 8..15: a 7-bit group per byte.
        let high7 = _mm_and_si128(halves, _mm_set1_epi16(0x3f80));
        let groups = _mm_or_si128(_mm_xor_si128(halves, high7), _mm_slli_epi16::<1>(high7));
        // At byte k: the `or` of the groups above it in the lane (0..=0x7f).
        let above = _mm_or_si128(
            _mm_or_si128(_mm_srli_epi32::<8>(groups), _mm_srli_epi32::<16>(groups)),
            _mm_srli_epi32::<24>(groups),
        );
        // + 0x7f carries into bit 7 exactly when that is not zero (at most
        // 0x7f + 0x7f = 0xfe: no carry out of the byte).
        let continues = _mm_and_si128(
            _mm_add_epi8(above, _mm_set1_epi8(0x7f)),
            _mm_set1_epi8(0x80u8 as i8),
        );
        let bytes = _mm_or_si128(groups, continues);
        let mask = _mm_movemask_epi8(bytes) as u32;
        // Two 4-bit codes: below 256 (the `and` tells the compiler so, and
        // drops the bounds check on the tables).
        let index = (usize::from(PAIR_CODES[(mask & 0xff) as usize])
            | usize::from(PAIR_CODES[(mask >> 8) as usize]) << 4)
            & 0xff;
        let control = _mm_load_si128(CONTROLS.0[index].as_ptr().cast());
        _mm_storeu_si128(dst.cast(), _mm_shuffle_epi8(bytes, control));
        usize::from(TOTALS[index])
    }
}

/// The `step` of the shared loop (`group_encode::encode_slice_into`): the
/// four values of `group` into `window` if all are below 2^28.
///
/// # Safety
/// The CPU must have SSSE3.
#[inline(always)]
unsafe fn group_step<T: VarInt>(group: &[T; GROUP], window: &mut UninitWindow) -> Option<usize> {
    // SAFETY: `group` is 4 readable values and `window` 16 writable bytes;
    // SSSE3 (caller).
    unsafe {
        let (lanes, fits) = load_4(group.as_ptr());
        fits.then(|| encode_step(lanes, window.as_mut_ptr().cast()))
    }
}

/// The shared loop with this file's step and the given word encoder.
///
/// # Safety
/// The CPU must have SSSE3 and POPCNT, and whatever `encode_one` needs.
#[inline(always)]
pub(in crate::arch::x86_64) unsafe fn encode_groups<T: VarInt>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
    encode_one: impl Fn(T, &mut UninitWindow) -> usize,
    encode_rest: impl Fn(&[T], &mut [MaybeUninit<u8>]) -> (usize, usize),
) -> (usize, usize) {
    group_encode::encode_slice_into(
        values,
        out,
        // SAFETY: SSSE3 (caller).
        |group, window| unsafe { group_step(group, window) },
        encode_one,
        encode_rest,
    )
}

/// The [`Backend::Ssse3`](crate::Backend::Ssse3) bulk encoder: as
/// [`encode_slice_into`](crate::encode_slice_into), with the portable word
/// encoder for values of 2^28 and more.
///
/// # Safety
/// The CPU must have SSSE3 and POPCNT.
#[target_feature(enable = "ssse3,popcnt")]
pub(crate) unsafe fn encode_slice_into<T: VarInt>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    // SAFETY: this function's caller guarantees SSSE3 and POPCNT.
    unsafe { encode_groups_portable(values, out) }
}

/// [`encode_groups`] with the portable word encoder.
///
/// # Safety
/// The CPU must have SSSE3 and POPCNT.
#[inline(always)]
pub(in crate::arch::x86_64) unsafe fn encode_groups_portable<T: VarInt>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    // SAFETY: the caller guarantees SSSE3 and POPCNT; the portable word
    // encoder needs nothing.
    unsafe {
        encode_groups(
            values,
            out,
            scalar::single::encode_uninit::<T>,
            encode_slice_into_scalar::<T>,
        )
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    extern crate std;
    use super::*;

    fn ssse3() -> bool {
        std::is_x86_feature_detected!("ssse3") && std::is_x86_feature_detected!("popcnt")
    }

    #[test]
    fn pair_codes_count_each_nibble() {
        assert_eq!(PAIR_CODES[0x00], 0);
        assert_eq!(PAIR_CODES[0x01], 1);
        assert_eq!(PAIR_CODES[0x73], 2 | 3 << 2);
        assert_eq!(PAIR_CODES[0x17], 3 | 1 << 2);
    }

    #[test]
    fn one_step_matches_the_scalar_encoder() {
        if !ssse3() {
            return;
        }
        // SAFETY: the CPU has SSSE3 (checked above).
        group_encode::testing::steps_match_the_scalar_encoder(|quad, window| unsafe {
            group_step(quad, window)
        });
    }

    /// `load_4`'s lane-limit answer.
    fn fits<T: VarInt>(values: &[T; 4]) -> bool {
        // SAFETY: 4 readable values; the loads and the check are SSE2 (baseline).
        unsafe { load_4(values.as_ptr()).1 }
    }

    /// The SSSE3 encoder, on a CPU that `ssse3()` accepted.
    fn ssse3_encode<T: VarInt>(values: &[T], out: &mut [u8]) -> (usize, usize) {
        assert!(ssse3());
        // SAFETY: the CPU has SSSE3 and POPCNT (asserted above).
        unsafe { encode_slice_into(values, crate::arch::as_uninit(out)) }
    }

    #[test]
    fn load_4_checks_the_lane_limit() {
        group_encode::testing::lane_limit_cases(fits::<u64>, fits::<u32>);
        let bytes = [0xffu8, 0x80, 0x7f, 0];
        // SAFETY: 4 readable values.
        let (lanes, fits) = unsafe { load_4(bytes.as_ptr()) };
        assert!(fits);
        let mut lane_values = [0u32; 4];
        // SAFETY: a 16-byte store into a 16-byte array.
        unsafe { _mm_storeu_si128(lane_values.as_mut_ptr().cast(), lanes) };
        assert_eq!(lane_values, [0xff, 0x80, 0x7f, 0]);
    }

    #[test]
    fn long_runs_switch_paths_and_agree_with_scalar() {
        if ssse3() {
            group_encode::testing::long_runs_agree_with_scalar(
                ssse3_encode::<u64>,
                ssse3_encode::<u32>,
                ssse3_encode::<u16>,
                ssse3_encode::<u8>,
            );
        }
    }
}
