//! The SSSE3 bulk decoder behind [`Backend::Ssse3`](crate::Backend::Ssse3):
//! the fixed-grid decoder of `x86_64::grid_decode` with 16-byte registers
//! (vectors A and B of a step are two registers each).

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use crate::arch::x86_64::grid_decode::{
    decode_delta_with, decode_short_with, decode_signed_with, decode_slice_with, signed_bytes,
    store_u32x4, sum_in_place, Kernel, Running, PAIRS, QUADS, ZERO,
};
use crate::error::BulkDecodeError;
use crate::varint::VarInt;

/// SSSE3: vectors A and B are two registers each.
struct Ssse3;

impl Kernel for Ssse3 {
    const MASK_AHEAD: bool = false;
    type Window = __m128i;
    type Quad = [__m128i; 2];
    type Control = [__m128i; 2];

    #[inline(always)]
    unsafe fn window<const SIGNED: bool>(src: *const u8) -> __m128i {
        // SAFETY: 16 readable bytes at `src` (caller); SSE2 (caller).
        unsafe {
            let bytes = _mm_loadu_si128(src.cast());
            if SIGNED {
                signed_bytes(bytes)
            } else {
                _mm_and_si128(bytes, _mm_set1_epi8(0x7f))
            }
        }
    }

    #[inline(always)]
    unsafe fn mask64(src: *const u8) -> u64 {
        // SAFETY: 64 readable bytes at `src` (caller), four loads of 16
        // inside them; SSE2 (caller).
        unsafe {
            let mut mask = 0u64;
            for i in 0..4 {
                let bytes = _mm_loadu_si128(src.add(16 * i).cast());
                mask |= u64::from(_mm_movemask_epi8(bytes) as u32) << (16 * i);
            }
            mask
        }
    }

    #[inline(always)]
    unsafe fn zero() -> [__m128i; 2] {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe { [_mm_setzero_si128(); 2] }
    }

    #[inline(always)]
    unsafe fn or(x: [__m128i; 2], y: [__m128i; 2]) -> [__m128i; 2] {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe { [_mm_or_si128(x[0], y[0]), _mm_or_si128(x[1], y[1])] }
    }

    #[inline(always)]
    unsafe fn control_a(lane0: *const u8, rest: *const u8) -> [__m128i; 2] {
        // SAFETY: 16 readable bytes at each pointer (caller); SSE2 (caller).
        unsafe { [_mm_loadu_si128(lane0.cast()), _mm_loadu_si128(rest.cast())] }
    }

    #[inline(always)]
    unsafe fn control_b(control: *const u8) -> [__m128i; 2] {
        // SAFETY: 32 readable bytes at `control` (caller); SSE2 (caller).
        unsafe {
            [
                _mm_loadu_si128(control.cast()),
                _mm_loadu_si128(control.add(16).cast()),
            ]
        }
    }

    #[inline(always)]
    unsafe fn shuffle(window: __m128i, control: [__m128i; 2]) -> [__m128i; 2] {
        // SAFETY: SSSE3 (caller); no memory access.
        unsafe {
            [
                _mm_shuffle_epi8(window, control[0]),
                _mm_shuffle_epi8(window, control[1]),
            ]
        }
    }

    #[inline(always)]
    unsafe fn pack28(x: [__m128i; 2]) -> [__m128i; 2] {
        // SAFETY: SSSE3 (caller); no memory access.
        unsafe {
            let pairs = _mm_set1_epi16(PAIRS);
            let quads = _mm_set1_epi32(QUADS);
            [
                _mm_madd_epi16(_mm_maddubs_epi16(pairs, x[0]), quads),
                _mm_madd_epi16(_mm_maddubs_epi16(pairs, x[1]), quads),
            ]
        }
    }

    #[inline(always)]
    unsafe fn pack56(x: [__m128i; 2], extra: [__m128i; 2]) -> [__m128i; 2] {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe {
            let low = _mm_set1_epi64x(0x0fff_ffff);
            let pack = |x, extra| {
                let high = _mm_or_si128(_mm_srli_epi64::<4>(x), extra);
                _mm_or_si128(_mm_and_si128(x, low), _mm_andnot_si128(low, high))
            };
            [pack(x[0], extra[0]), pack(x[1], extra[1])]
        }
    }

    #[inline(always)]
    unsafe fn pack56_signed(x: [__m128i; 2], extra: [__m128i; 2]) -> [__m128i; 2] {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe {
            // No `pmuldq` (SSE4.1) nor 64-bit arithmetic shift: with each
            // half's sign bit flipped, its zero extension is its sign
            // extension plus 2^31, so `lo' + (hi' << 28)` (the unsigned
            // join, with `hi'` at bits 28..60) is the value plus 2^31 +
            // 2^59, subtracted from `extra` (a constant for the second
            // register, whose `extra` is zero).
            let flip = _mm_set1_epi32(i32::MIN);
            let low32 = _mm_set1_epi64x(0xffff_ffff);
            let high = _mm_set1_epi64x(!0x0fff_ffff);
            let offset = _mm_set1_epi64x((1 << 31) + (1 << 59));
            let pack = |x, extra| {
                let x = _mm_xor_si128(x, flip);
                let joined = _mm_add_epi64(
                    _mm_and_si128(x, low32),
                    _mm_and_si128(_mm_srli_epi64::<4>(x), high),
                );
                _mm_add_epi64(joined, _mm_sub_epi64(extra, offset))
            };
            [pack(x[0], extra[0]), pack(x[1], extra[1])]
        }
    }

    #[inline(always)]
    unsafe fn pack32_signed(x: [__m128i; 2]) -> [__m128i; 2] {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe {
            let pack = |x| _mm_add_epi32(x, _mm_slli_epi32::<28>(_mm_srli_epi64::<32>(x)));
            [pack(x[0]), pack(x[1])]
        }
    }

    #[inline(always)]
    unsafe fn extend_low(x: [__m128i; 2]) -> [__m128i; 2] {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe {
            // The high halves are zero: flipping bit 31 makes the zero
            // extension the sign extension plus 2^31.
            let flip = _mm_set1_epi64x(1 << 31);
            let extend = |x| _mm_sub_epi64(_mm_xor_si128(x, flip), flip);
            [extend(x[0]), extend(x[1])]
        }
    }

    #[inline(always)]
    unsafe fn add32(x: [__m128i; 2], y: [__m128i; 2]) -> [__m128i; 2] {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe { [_mm_add_epi32(x[0], y[0]), _mm_add_epi32(x[1], y[1])] }
    }

    #[inline(always)]
    unsafe fn quad(lanes: [u64; 4]) -> [__m128i; 2] {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe {
            [
                _mm_set_epi64x(lanes[1] as i64, lanes[0] as i64),
                _mm_set_epi64x(lanes[3] as i64, lanes[2] as i64),
            ]
        }
    }

    #[inline(always)]
    unsafe fn any_common(x: [__m128i; 2], mask: [__m128i; 2]) -> bool {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe {
            let common = _mm_or_si128(_mm_and_si128(x[0], mask[0]), _mm_and_si128(x[1], mask[1]));
            _mm_movemask_epi8(_mm_cmpeq_epi8(common, _mm_setzero_si128())) != 0xffff
        }
    }

    #[inline(always)]
    unsafe fn lane1_at_56(x: [__m128i; 2]) -> [__m128i; 2] {
        // SAFETY: SSSE3 (caller); no memory access.
        unsafe {
            const Z: i8 = ZERO as i8;
            let byte8_to_7 = _mm_setr_epi8(Z, Z, Z, Z, Z, Z, Z, 8, Z, Z, Z, Z, Z, Z, Z, Z);
            [_mm_shuffle_epi8(x[0], byte8_to_7), _mm_setzero_si128()]
        }
    }

    #[inline(always)]
    unsafe fn tenth_byte_overflows(a: [__m128i; 2]) -> bool {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe {
            let high = _mm_and_si128(a[0], _mm_set_epi64x(!0xff, 0));
            _mm_movemask_epi8(_mm_cmpeq_epi8(high, _mm_setzero_si128())) != 0xffff
        }
    }

    #[inline(always)]
    unsafe fn exceeds(x: [__m128i; 2], bits: u32) -> bool {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe {
            let all = _mm_or_si128(x[0], x[1]);
            let above = _mm_srl_epi64(all, _mm_cvtsi32_si128(bits as i32));
            _mm_movemask_epi8(_mm_cmpeq_epi32(above, _mm_setzero_si128())) != 0xffff
        }
    }

    #[inline(always)]
    unsafe fn store<T: VarInt>(dst: *mut T, a: [__m128i; 2], b: [__m128i; 2]) {
        // SAFETY: 7 writable `T` at `dst` (caller); every store below
        // writes inside `dst[0..7]`; SSE2 (caller).
        unsafe {
            if core::mem::size_of::<T>() == 8 {
                _mm_storel_epi64(dst.cast(), a[0]);
                _mm_storeu_si128(dst.add(1).cast(), a[1]);
                _mm_storeu_si128(dst.add(3).cast(), b[0]);
                _mm_storeu_si128(dst.add(5).cast(), b[1]);
            } else {
                // Low dwords: [a0.0, a1.0, a1.2, a1.2] and [b0.0, b0.2, b1.0, b1.2].
                let a01 = _mm_castsi128_ps(_mm_unpacklo_epi64(a[0], a[1]));
                let a32 = _mm_shuffle_ps::<0b10_10_10_00>(a01, _mm_castsi128_ps(a[1]));
                let b32 =
                    _mm_shuffle_ps::<0b10_00_10_00>(_mm_castsi128_ps(b[0]), _mm_castsi128_ps(b[1]));
                store_u32x4::<T>(dst, _mm_castps_si128(a32));
                store_u32x4::<T>(dst.add(3), _mm_castps_si128(b32));
            }
        }
    }

    #[inline(always)]
    unsafe fn all_ends_32(src: *const u8) -> bool {
        // SAFETY: 32 readable bytes at `src` (caller); SSE2 (caller).
        unsafe {
            let low = _mm_loadu_si128(src.cast());
            let high = _mm_loadu_si128(src.add(16).cast());
            _mm_movemask_epi8(_mm_or_si128(low, high)) == 0
        }
    }

    #[inline(always)]
    unsafe fn widen_words<T: VarInt, const SIGNED: bool>(dst: *mut T, words: __m128i) {
        const { assert!(!SIGNED || size_of::<T>() == 4 || size_of::<T>() == 8) };
        // SAFETY: 8 writable `T` at `dst` (caller); every store below is
        // inside them; SSE2 (caller).
        unsafe {
            if SIGNED {
                store_extended_words::<T>(dst, words);
                return;
            }
            let zero = _mm_setzero_si128();
            match core::mem::size_of::<T>() {
                2 => _mm_storeu_si128(dst.cast(), words),
                4 => {
                    _mm_storeu_si128(dst.cast(), _mm_unpacklo_epi16(words, zero));
                    _mm_storeu_si128(dst.add(4).cast(), _mm_unpackhi_epi16(words, zero));
                }
                _ => {
                    let dwords = [
                        _mm_unpacklo_epi16(words, zero),
                        _mm_unpackhi_epi16(words, zero),
                    ];
                    for (i, &d) in dwords.iter().enumerate() {
                        _mm_storeu_si128(dst.add(4 * i).cast(), _mm_unpacklo_epi32(d, zero));
                        _mm_storeu_si128(dst.add(4 * i + 2).cast(), _mm_unpackhi_epi32(d, zero));
                    }
                }
            }
        }
    }

    #[inline(always)]
    unsafe fn widen_32<T: VarInt, const SIGNED: bool>(dst: *mut T, src: *const u8) {
        const { assert!(!SIGNED || size_of::<T>() == 4 || size_of::<T>() == 8) };
        // SAFETY: 32 readable bytes at `src`, 32 writable `T` at `dst`
        // (caller); every access below is inside them; SSE2 (caller).
        unsafe {
            if SIGNED {
                // One-byte signed varints: (b ^ 0x40) - 0x40 is the byte
                // sign-extended from bit 6; `punpck` of a byte with itself
                // and an arithmetic shift by 8 sign-extends it to a word.
                let bias = _mm_set1_epi8(0x40);
                for half in 0..2 {
                    let bytes = _mm_loadu_si128(src.add(16 * half).cast());
                    let bytes = _mm_sub_epi8(_mm_xor_si128(bytes, bias), bias);
                    let low = _mm_srai_epi16::<8>(_mm_unpacklo_epi8(bytes, bytes));
                    let high = _mm_srai_epi16::<8>(_mm_unpackhi_epi8(bytes, bytes));
                    store_extended_words::<T>(dst.add(16 * half), low);
                    store_extended_words::<T>(dst.add(16 * half + 8), high);
                }
                return;
            }
            let zero = _mm_setzero_si128();
            for half in 0..2 {
                let bytes = _mm_loadu_si128(src.add(16 * half).cast());
                let dst = dst.add(16 * half);
                if core::mem::size_of::<T>() == 1 {
                    _mm_storeu_si128(dst.cast(), bytes);
                    continue;
                }
                let words = [
                    _mm_unpacklo_epi8(bytes, zero),
                    _mm_unpackhi_epi8(bytes, zero),
                ];
                for (i, &w) in words.iter().enumerate() {
                    if core::mem::size_of::<T>() == 2 {
                        _mm_storeu_si128(dst.add(8 * i).cast(), w);
                        continue;
                    }
                    let dwords = [_mm_unpacklo_epi16(w, zero), _mm_unpackhi_epi16(w, zero)];
                    for (j, &d) in dwords.iter().enumerate() {
                        let at = dst.add(8 * i + 4 * j);
                        if core::mem::size_of::<T>() == 4 {
                            _mm_storeu_si128(at.cast(), d);
                        } else {
                            _mm_storeu_si128(at.cast(), _mm_unpacklo_epi32(d, zero));
                            _mm_storeu_si128(at.add(2).cast(), _mm_unpackhi_epi32(d, zero));
                        }
                    }
                }
            }
        }
    }

    type Sum = __m128i;

    #[inline(always)]
    unsafe fn sum_splat<T: VarInt>(sum: u64) -> __m128i {
        // SAFETY: SSE2 (caller); no memory access.
        unsafe {
            if size_of::<T>() == 8 {
                _mm_set1_epi64x(sum as i64)
            } else {
                _mm_set1_epi32(sum as i32)
            }
        }
    }

    #[inline(always)]
    unsafe fn sum_get<T: VarInt>(sum: __m128i) -> u64 {
        // SAFETY: SSE2 (caller); no memory access.
        let low = unsafe { _mm_cvtsi128_si64(sum) } as u64;
        if size_of::<T>() == 8 {
            low
        } else {
            u64::from(low as u32)
        }
    }

    #[inline(always)]
    unsafe fn widen_32_sum<T: VarInt>(dst: *mut T, src: *const u8, sum: __m128i) -> __m128i {
        // SAFETY: 32 readable bytes at `src`, 32 writable `T` at `dst`
        // (caller); every access below is inside them; SSSE3 (caller).
        unsafe {
            if size_of::<T>() != 4 && size_of::<T>() != 8 {
                Self::widen_32::<T, false>(dst, src);
                return Self::sum_splat::<T>(sum_in_place(dst, 32, Self::sum_get::<T>(sum)));
            }
            let zero = _mm_setzero_si128();
            // Word 3 into words 4..8, zeros into words 0..4.
            let word3_to_high = _mm_setr_epi8(
                -128, -128, -128, -128, -128, -128, -128, -128, 6, 7, 6, 7, 6, 7, 6, 7,
            );
            let mut sum = sum;
            for i in 0..4 {
                let bytes = _mm_loadu_si128(src.add(16 * (i / 2)).cast());
                let w = if i % 2 == 0 {
                    _mm_unpacklo_epi8(bytes, zero)
                } else {
                    _mm_unpackhi_epi8(bytes, zero)
                };
                // The running sum of the 8 words (at most 8 * 127):
                // shift-and-add within the 64-bit lanes, then word 3's
                // sum added to words 4..8.
                let w = _mm_add_epi16(w, _mm_slli_epi64::<16>(w));
                let w = _mm_add_epi16(w, _mm_slli_epi64::<32>(w));
                let w = _mm_add_epi16(w, _mm_shuffle_epi8(w, word3_to_high));
                sum = store_words_sum::<T>(dst.add(8 * i), w, sum);
            }
            sum
        }
    }

    #[inline(always)]
    unsafe fn widen_words_sum<T: VarInt>(dst: *mut T, words: __m128i, sum: __m128i) -> __m128i {
        // SAFETY: 8 writable `T` at `dst` (caller); SSSE3 (caller).
        unsafe {
            if size_of::<T>() != 4 && size_of::<T>() != 8 {
                Self::widen_words::<T, false>(dst, words);
                return Self::sum_splat::<T>(sum_in_place(dst, 8, Self::sum_get::<T>(sum)));
            }
            // The running sums of words 0..4 and of words 4..8 (at most
            // 4 * (2^14 - 1), which fits 16 bits); words 0..4's total is
            // added to the others after widening (8 sums need 17 bits).
            let w = _mm_add_epi16(words, _mm_slli_epi64::<16>(words));
            let w = _mm_add_epi16(w, _mm_slli_epi64::<32>(w));
            let zero = _mm_setzero_si128();
            let x = _mm_unpacklo_epi16(w, zero);
            let y = _mm_unpackhi_epi16(w, zero);
            let sum = store_dwords_sum::<T>(dst, x, sum);
            store_dwords_sum::<T>(dst.add(4), y, sum)
        }
    }
}

/// Stores the 8 words of `w`, each the running sum of the words up to it
/// (16 bits), widened to `T` (32 or 64 bits) plus `sum` at `dst`; returns
/// `sum` plus word 7.
///
/// # Safety
/// 8 writable `T` at `dst`; the CPU must have SSSE3.
#[inline(always)]
unsafe fn store_words_sum<T: VarInt>(dst: *mut T, w: __m128i, sum: __m128i) -> __m128i {
    // SAFETY: 8 writable `T` at `dst` (caller); SSE2.
    unsafe {
        let zero = _mm_setzero_si128();
        let x = _mm_unpacklo_epi16(w, zero);
        let y = _mm_unpackhi_epi16(w, zero);
        if size_of::<T>() == 4 {
            _mm_storeu_si128(dst.cast(), _mm_add_epi32(x, sum));
            _mm_storeu_si128(dst.add(4).cast(), _mm_add_epi32(y, sum));
            // Lane 3 of y: the 8 words' total.
            _mm_add_epi32(sum, _mm_shuffle_epi32::<0xff>(y))
        } else {
            for (i, d) in [x, y].into_iter().enumerate() {
                _mm_storeu_si128(
                    dst.add(4 * i).cast(),
                    _mm_add_epi64(_mm_unpacklo_epi32(d, zero), sum),
                );
                _mm_storeu_si128(
                    dst.add(4 * i + 2).cast(),
                    _mm_add_epi64(_mm_unpackhi_epi32(d, zero), sum),
                );
            }
            // Lane 1 of y's high half: the 8 words' total.
            _mm_add_epi64(sum, _mm_unpackhi_epi32(_mm_shuffle_epi32::<0xff>(y), zero))
        }
    }
}

/// Stores the 4 `u32` lanes of `d`, each the running sum of a group's
/// values up to it, widened to `T` (32 or 64 bits) plus `sum` at `dst`;
/// returns `sum` plus lane 3.
///
/// # Safety
/// 4 writable `T` at `dst`; the CPU must have SSSE3.
#[inline(always)]
unsafe fn store_dwords_sum<T: VarInt>(dst: *mut T, d: __m128i, sum: __m128i) -> __m128i {
    // SAFETY: 4 writable `T` at `dst` (caller); SSE2.
    unsafe {
        let total = _mm_shuffle_epi32::<0xff>(d);
        if size_of::<T>() == 4 {
            _mm_storeu_si128(dst.cast(), _mm_add_epi32(d, sum));
            _mm_add_epi32(sum, total)
        } else {
            let zero = _mm_setzero_si128();
            _mm_storeu_si128(dst.cast(), _mm_add_epi64(_mm_unpacklo_epi32(d, zero), sum));
            _mm_storeu_si128(
                dst.add(2).cast(),
                _mm_add_epi64(_mm_unpackhi_epi32(d, zero), sum),
            );
            _mm_add_epi64(sum, _mm_unpacklo_epi32(total, zero))
        }
    }
}

/// Stores the 8 signed words of `words` sign-extended to 8 `T` (32 or 64
/// bits) at `dst`: `punpck` of each with itself and an arithmetic shift
/// (SSSE3 has no `pmovsx`).
///
/// # Safety
/// 8 writable `T` at `dst`; the CPU must have SSE2.
#[inline(always)]
unsafe fn store_extended_words<T: VarInt>(dst: *mut T, words: __m128i) {
    // SAFETY: 8 writable `T` at `dst` (caller); every store below is
    // inside them; SSE2 (caller).
    unsafe {
        let dwords = [
            _mm_srai_epi32::<16>(_mm_unpacklo_epi16(words, words)),
            _mm_srai_epi32::<16>(_mm_unpackhi_epi16(words, words)),
        ];
        for (i, &d) in dwords.iter().enumerate() {
            if size_of::<T>() == 4 {
                _mm_storeu_si128(dst.add(4 * i).cast(), d);
            } else {
                let sign = _mm_srai_epi32::<31>(d);
                _mm_storeu_si128(dst.add(4 * i).cast(), _mm_unpacklo_epi32(d, sign));
                _mm_storeu_si128(dst.add(4 * i + 2).cast(), _mm_unpackhi_epi32(d, sign));
            }
        }
    }
}

/// The AVX2 decoder (`x86_64::avx2::decode_slice`) with 16-byte vectors.
///
/// # Safety
/// The CPU must support SSSE3 and POPCNT.
#[target_feature(enable = "ssse3,popcnt")]
pub unsafe fn decode_slice<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: this function enables every feature `Ssse3` uses.
    unsafe {
        decode_slice_with::<Ssse3, T, false, false, false>(input, 0, out, &mut Running::new(0))
    }
}

/// [`decode_slice`] of an input shorter than 128 bytes (a short packed
/// field): one or two blocks over a zero-padded copy, with no scalar head or tail
/// (see `grid_decode::decode_short_with`).
///
/// # Safety
/// `input.len() < SHORT_INPUT_BYTES` (128); the CPU must support SSSE3 and POPCNT.
#[target_feature(enable = "ssse3,popcnt")]
pub unsafe fn decode_short_input<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: `input.len() < SHORT_INPUT_BYTES` (caller); this function enables every
    // feature `Ssse3` uses.
    unsafe { decode_short_with::<Ssse3, T, false>(input, out) }
}

/// Decodes varints from `input[start..]` into `out` as one batch of a
/// longer decode: it may stop before either is exhausted (leaving the last
/// bytes or slots to the next call, which always makes progress) and it
/// may read the 9 bytes before `start`. Returns (values written, position
/// of the next varint); errors count their offset from `input`'s start.
///
/// # Safety
/// The CPU must support SSSE3 and POPCNT.
#[target_feature(enable = "ssse3,popcnt")]
pub unsafe fn decode_run<T: VarInt>(
    input: &[u8],
    start: usize,
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: this function enables every feature `Ssse3` uses.
    unsafe {
        decode_slice_with::<Ssse3, T, true, false, false>(input, start, out, &mut Running::new(0))
    }
}

/// [`decode_slice`] of delta-coded gaps (`delta::decode_slice`): each
/// value written is `*sum` plus the gaps up to it, wrapping in `T`, the
/// one- and two-byte runs summed in registers as they are widened (see
/// `grid_decode::decode_delta_with`); `*sum` becomes the last value
/// written (with an error, the last before its index).
///
/// # Safety
/// The CPU must support SSSE3 and POPCNT.
#[target_feature(enable = "ssse3,popcnt")]
pub unsafe fn decode_slice_delta<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    sum: &mut T,
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: this function enables every feature `Ssse3` uses.
    unsafe { decode_delta_with::<Ssse3, T, false>(input, 0, out, sum) }
}

/// [`decode_run`] of delta-coded gaps, summed as [`decode_slice_delta`]
/// sums them.
///
/// # Safety
/// The CPU must support SSSE3 and POPCNT.
#[target_feature(enable = "ssse3,popcnt")]
pub unsafe fn decode_run_delta<T: VarInt>(
    input: &[u8],
    start: usize,
    out: &mut [MaybeUninit<T>],
    sum: &mut T,
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: this function enables every feature `Ssse3` uses.
    unsafe { decode_delta_with::<Ssse3, T, true>(input, start, out, sum) }
}

/// Signed LEB128 (`sleb128::decode_slice`): decodes the signed varints of
/// `input` (WebAssembly's rules for `i32` where `T` is `u32`, `i64` where
/// it is `u64`) into `out` as their values' bits, with the sign extension
/// and the signed checks in the grid steps (see
/// `grid_decode::decode_signed_with`). Same results and errors as the
/// signed scalar decoder.
///
/// # Safety
/// The CPU must support SSSE3 and POPCNT.
#[target_feature(enable = "ssse3,popcnt")]
pub unsafe fn decode_slice_signed<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: this function enables every feature `Ssse3` uses.
    unsafe { decode_signed_with::<Ssse3, T>(input, out) }
}
