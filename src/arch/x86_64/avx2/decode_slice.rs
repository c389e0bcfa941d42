//! The AVX2 bulk decoder behind [`Backend::Avx2`](crate::Backend::Avx2):
//! the fixed-grid decoder of `x86_64::grid_decode` with 32-byte registers
//! (vectors A and B of a step are one register each) and BMI2 `rorx` for
//! the table offsets.

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use crate::arch::x86_64::grid_decode::{
    decode_delta_with, decode_short_with, decode_signed_with, decode_slice_with, opaque,
    store_u32x4, sum_in_place, Kernel, Running, PAIRS, QUADS, ZERO,
};
use crate::error::BulkDecodeError;
use crate::varint::VarInt;

/// AVX2: vector A and B are one register each.
struct Avx2;

impl Kernel for Avx2 {
    const MASK_AHEAD: bool = true;
    type Window = __m256i;
    type Quad = __m256i;
    type Control = __m256i;

    /// BMI2 `rorx`: LLVM turns a rotate followed by a mask that keeps no
    /// wrapped bit back into `mov`, `shr` and `and`; `rorx` writes a new
    /// register, one micro-op less per chunk.
    #[inline(always)]
    fn rotate_right<const N: u32>(x: u64) -> u64 {
        let out: u64;
        // SAFETY: `rorx` only computes a register (no memory, stack or
        // flags); the kernel's callers enable BMI2 (`decode_slice`).
        unsafe {
            core::arch::asm!(
                "rorx {out}, {x}, {n}",
                out = lateout(reg) out,
                x = in(reg) x,
                n = const N,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        out
    }

    #[inline(always)]
    unsafe fn window<const SIGNED: bool>(src: *const u8) -> __m256i {
        // SAFETY: 16 readable bytes at `src` (caller); AVX2 (caller).
        unsafe {
            // A broadcast load (no shuffle port).
            let wide = _mm256_broadcastsi128_si256(_mm_loadu_si128(src.cast()));
            if SIGNED {
                // `grid_decode::signed_bytes` in 32 bytes.
                let at_least_0x40 = _mm256_adds_epu8(wide, _mm256_set1_epi8(0x40));
                let flip = _mm256_and_si256(at_least_0x40, _mm256_set1_epi8(0x80u8 as i8));
                _mm256_xor_si256(wide, flip)
            } else {
                _mm256_and_si256(wide, _mm256_set1_epi8(0x7f))
            }
        }
    }

    #[inline(always)]
    unsafe fn mask64(src: *const u8) -> u64 {
        // SAFETY: 64 readable bytes at `src` (caller); AVX2 (caller).
        unsafe {
            let low = _mm256_movemask_epi8(_mm256_loadu_si256(src.cast())) as u32;
            let high = _mm256_movemask_epi8(_mm256_loadu_si256(src.add(32).cast())) as u32;
            // Through `opaque`: where the build has AVX-512BW
            // (target-cpu=native), LLVM otherwise merges the two 32-byte
            // masks into one 512-bit compare (`vpcmpgtb zmm` into a mask
            // register), and while a 512-bit micro-op is in flight Intel
            // cores fuse ports 0 and 1 for vector work: port 1's vector
            // ALU, a third of what the steps' 256-bit work runs on, stops.
            // (Measured on Sapphire Rapids: 3-8% of the mix workload's
            // time, see the module docs.)
            u64::from(opaque(low as usize) as u32) | u64::from(high) << 32
        }
    }

    #[inline(always)]
    unsafe fn zero() -> __m256i {
        // SAFETY: AVX (caller); no memory access.
        unsafe { _mm256_setzero_si256() }
    }

    #[inline(always)]
    unsafe fn or(x: __m256i, y: __m256i) -> __m256i {
        // SAFETY: AVX2 (caller); no memory access.
        unsafe { _mm256_or_si256(x, y) }
    }

    #[inline(always)]
    unsafe fn control_a(lane0: *const u8, rest: *const u8) -> __m256i {
        // SAFETY: 16 readable bytes at each pointer (caller); AVX2 (caller).
        unsafe { _mm256_loadu2_m128i(rest.cast(), lane0.cast()) }
    }

    #[inline(always)]
    unsafe fn control_b(control: *const u8) -> __m256i {
        // SAFETY: 32 readable bytes at `control` (caller); AVX (caller).
        unsafe { _mm256_loadu_si256(control.cast()) }
    }

    #[inline(always)]
    unsafe fn shuffle(window: __m256i, control: __m256i) -> __m256i {
        // SAFETY: AVX2 (caller); no memory access.
        unsafe { _mm256_shuffle_epi8(window, control) }
    }

    #[inline(always)]
    unsafe fn pack28(x: __m256i) -> __m256i {
        // SAFETY: AVX2 (caller); no memory access.
        unsafe {
            let pairs = _mm256_maddubs_epi16(_mm256_set1_epi16(PAIRS), x);
            _mm256_madd_epi16(pairs, _mm256_set1_epi32(QUADS))
        }
    }

    #[inline(always)]
    // `_mm256_ternarylogic_epi64` (1.89) is compiled only with rustc 1.89+.
    #[allow(clippy::incompatible_msrv)]
    unsafe fn pack56(x: __m256i, extra: __m256i) -> __m256i {
        // SAFETY: AVX2 (caller); no memory access.
        unsafe {
            let low = _mm256_set1_epi64x(0x0fff_ffff);
            let high = _mm256_or_si256(_mm256_srli_epi64::<4>(x), extra);
            // Where the build has AVX-512VL (target-cpu=native on such a
            // CPU), the bit select as one `vpternlogq` (0xCA: `low ? x :
            // high`); LLVM otherwise spends two `and` and a three-way `or`.
            // The intrinsic is stable since rustc 1.89 (`varint_turbo_avx512`,
            // set by build.rs).
            #[cfg(all(target_feature = "avx512vl", varint_turbo_avx512))]
            {
                _mm256_ternarylogic_epi64::<0xCA>(low, x, high)
            }
            #[cfg(not(all(target_feature = "avx512vl", varint_turbo_avx512)))]
            {
                _mm256_or_si256(_mm256_and_si256(x, low), _mm256_andnot_si256(low, high))
            }
        }
    }

    #[inline(always)]
    unsafe fn pack56_signed(x: __m256i, extra: __m256i) -> __m256i {
        // SAFETY: AVX2 (caller); no memory access.
        unsafe {
            // As SSSE3 does (see there): with each half's sign bit flipped
            // its zero extension is its sign extension plus 2^31, so the
            // unsigned join is the value plus 2^31 + 2^59. Not `vpmuldq`
            // (sext(lo) = lo * 1, sext(hi) << 28 = hi * 2^28): one
            // instruction less, but on the multiply pipes of `pmaddubsw`
            // and `pmaddwd` (Zen 3: FP0 and FP3), and `dwarf-sdata` took
            // 1.16x the unsigned decoder's time with it against 1.06x
            // (medians of 8 alternating paired runs, Zen 3).
            let x = _mm256_xor_si256(x, _mm256_set1_epi32(i32::MIN));
            let joined = _mm256_add_epi64(
                _mm256_and_si256(x, _mm256_set1_epi64x(0xffff_ffff)),
                _mm256_and_si256(_mm256_srli_epi64::<4>(x), _mm256_set1_epi64x(!0x0fff_ffff)),
            );
            let offset = _mm256_set1_epi64x((1 << 31) + (1 << 59));
            _mm256_add_epi64(joined, _mm256_sub_epi64(extra, offset))
        }
    }

    #[inline(always)]
    unsafe fn pack32_signed(x: __m256i) -> __m256i {
        // SAFETY: AVX2 (caller); no memory access.
        unsafe { _mm256_add_epi32(x, _mm256_slli_epi32::<28>(_mm256_srli_epi64::<32>(x))) }
    }

    #[inline(always)]
    unsafe fn extend_low(x: __m256i) -> __m256i {
        // SAFETY: AVX2 (caller); no memory access.
        unsafe {
            // The high halves are zero: flipping bit 31 makes the zero
            // extension the sign extension plus 2^31 (not `vpmuldq`: see
            // `pack56_signed`).
            let flip = _mm256_set1_epi64x(1 << 31);
            _mm256_sub_epi64(_mm256_xor_si256(x, flip), flip)
        }
    }

    #[inline(always)]
    unsafe fn add32(x: __m256i, y: __m256i) -> __m256i {
        // SAFETY: AVX2 (caller); no memory access.
        unsafe { _mm256_add_epi32(x, y) }
    }

    #[inline(always)]
    unsafe fn quad(lanes: [u64; 4]) -> __m256i {
        // SAFETY: AVX (caller); no memory access.
        unsafe {
            _mm256_setr_epi64x(
                lanes[0] as i64,
                lanes[1] as i64,
                lanes[2] as i64,
                lanes[3] as i64,
            )
        }
    }

    #[inline(always)]
    unsafe fn any_common(x: __m256i, mask: __m256i) -> bool {
        // SAFETY: AVX (caller); no memory access.
        unsafe { _mm256_testz_si256(x, mask) == 0 }
    }

    #[inline(always)]
    unsafe fn lane1_at_56(x: __m256i) -> __m256i {
        // SAFETY: AVX2 (caller); no memory access.
        unsafe {
            const Z: i8 = ZERO as i8;
            #[rustfmt::skip]
            let byte8_to_7 = _mm256_setr_epi8(
                Z, Z, Z, Z, Z, Z, Z, 8, Z, Z, Z, Z, Z, Z, Z, Z,
                Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z,
            );
            _mm256_shuffle_epi8(x, byte8_to_7)
        }
    }

    #[inline(always)]
    unsafe fn tenth_byte_overflows(a: __m256i) -> bool {
        // SAFETY: AVX2 (caller); no memory access.
        unsafe { _mm256_testz_si256(a, _mm256_setr_epi64x(0, !0xff, 0, 0)) == 0 }
    }

    #[inline(always)]
    unsafe fn exceeds(x: __m256i, bits: u32) -> bool {
        // SAFETY: AVX2 (caller); no memory access.
        unsafe {
            let above = _mm256_srl_epi64(x, _mm_cvtsi32_si128(bits as i32));
            _mm256_testz_si256(above, above) == 0
        }
    }

    #[inline(always)]
    unsafe fn store<T: VarInt>(dst: *mut T, a: __m256i, b: __m256i) {
        // SAFETY: 7 writable `T` at `dst` (caller); every store below
        // writes inside `dst[0..7]`; AVX2 (caller).
        unsafe {
            if core::mem::size_of::<T>() == 8 {
                _mm_storel_epi64(dst.cast(), _mm256_castsi256_si128(a));
                _mm_storeu_si128(dst.add(1).cast(), _mm256_extracti128_si256::<1>(a));
                _mm256_storeu_si256(dst.add(3).cast(), b);
            } else {
                // The low 32 bits of lanes 0, 2, 3 of `a` and 0..4 of `b`.
                let a32 = _mm256_permutevar8x32_epi32(a, _mm256_setr_epi32(0, 4, 6, 6, 0, 0, 0, 0));
                let b32 = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0));
                store_u32x4::<T>(dst, _mm256_castsi256_si128(a32));
                store_u32x4::<T>(dst.add(3), _mm256_castsi256_si128(b32));
            }
        }
    }

    #[inline(always)]
    unsafe fn all_ends_32(src: *const u8) -> bool {
        // SAFETY: 32 readable bytes at `src` (caller); AVX2 (caller).
        unsafe { _mm256_movemask_epi8(_mm256_loadu_si256(src.cast())) == 0 }
    }

    #[inline(always)]
    unsafe fn widen_words<T: VarInt, const SIGNED: bool>(dst: *mut T, words: __m128i) {
        const { assert!(!SIGNED || size_of::<T>() == 4 || size_of::<T>() == 8) };
        // SAFETY: 8 writable `T` at `dst` (caller); every store below is
        // inside them; AVX2 (caller).
        unsafe {
            if SIGNED {
                if size_of::<T>() == 4 {
                    _mm256_storeu_si256(dst.cast(), _mm256_cvtepi16_epi32(words));
                } else {
                    _mm256_storeu_si256(dst.cast(), _mm256_cvtepi16_epi64(words));
                    let high = _mm_unpackhi_epi64(words, words);
                    _mm256_storeu_si256(dst.add(4).cast(), _mm256_cvtepi16_epi64(high));
                }
                return;
            }
            match core::mem::size_of::<T>() {
                2 => _mm_storeu_si128(dst.cast(), words),
                4 => _mm256_storeu_si256(dst.cast(), _mm256_cvtepu16_epi32(words)),
                _ => {
                    _mm256_storeu_si256(dst.cast(), _mm256_cvtepu16_epi64(words));
                    let high = _mm_unpackhi_epi64(words, words);
                    _mm256_storeu_si256(dst.add(4).cast(), _mm256_cvtepu16_epi64(high));
                }
            }
        }
    }

    #[inline(always)]
    unsafe fn widen_32<T: VarInt, const SIGNED: bool>(dst: *mut T, src: *const u8) {
        const { assert!(!SIGNED || size_of::<T>() == 4 || size_of::<T>() == 8) };
        // SAFETY: 32 readable bytes at `src`, 32 writable `T` at `dst`
        // (caller); every access below is inside them; AVX2 (caller).
        unsafe {
            if SIGNED {
                // One-byte signed varints: (b ^ 0x40) - 0x40 is the byte
                // sign-extended from bit 6, then sign-extending widens.
                let bias = _mm_set1_epi8(0x40);
                let signed = |b: __m128i| _mm_sub_epi8(_mm_xor_si128(b, bias), bias);
                if size_of::<T>() == 4 {
                    for i in 0..4 {
                        let bytes = signed(_mm_loadl_epi64(src.add(8 * i).cast()));
                        _mm256_storeu_si256(dst.add(8 * i).cast(), _mm256_cvtepi8_epi32(bytes));
                    }
                } else {
                    for i in 0..8 {
                        let bytes =
                            _mm_cvtsi32_si128(src.add(4 * i).cast::<i32>().read_unaligned());
                        let bytes = signed(bytes);
                        _mm256_storeu_si256(dst.add(4 * i).cast(), _mm256_cvtepi8_epi64(bytes));
                    }
                }
                return;
            }
            match core::mem::size_of::<T>() {
                8 => {
                    for i in 0..8 {
                        let bytes =
                            _mm_cvtsi32_si128(src.add(4 * i).cast::<i32>().read_unaligned());
                        _mm256_storeu_si256(dst.add(4 * i).cast(), _mm256_cvtepu8_epi64(bytes));
                    }
                }
                4 => {
                    for i in 0..4 {
                        let bytes = _mm_loadl_epi64(src.add(8 * i).cast());
                        _mm256_storeu_si256(dst.add(8 * i).cast(), _mm256_cvtepu8_epi32(bytes));
                    }
                }
                2 => {
                    for i in 0..2 {
                        let bytes = _mm_loadu_si128(src.add(16 * i).cast());
                        _mm256_storeu_si256(dst.add(16 * i).cast(), _mm256_cvtepu8_epi16(bytes));
                    }
                }
                _ => _mm256_storeu_si256(dst.cast(), _mm256_loadu_si256(src.cast())),
            }
        }
    }

    type Sum = __m256i;

    #[inline(always)]
    unsafe fn sum_splat<T: VarInt>(sum: u64) -> __m256i {
        // SAFETY: AVX (caller); no memory access.
        unsafe {
            if size_of::<T>() == 8 {
                _mm256_set1_epi64x(sum as i64)
            } else {
                _mm256_set1_epi32(sum as i32)
            }
        }
    }

    #[inline(always)]
    unsafe fn sum_get<T: VarInt>(sum: __m256i) -> u64 {
        // SAFETY: AVX (caller); no memory access.
        let low = unsafe { _mm_cvtsi128_si64(_mm256_castsi256_si128(sum)) } as u64;
        if size_of::<T>() == 8 {
            low
        } else {
            u64::from(low as u32)
        }
    }

    #[inline(always)]
    unsafe fn widen_32_sum<T: VarInt>(dst: *mut T, src: *const u8, sum: __m256i) -> __m256i {
        // SAFETY: 32 readable bytes at `src`, 32 writable `T` at `dst`
        // (caller); every access below is inside them; AVX2 (caller).
        unsafe {
            if size_of::<T>() != 4 && size_of::<T>() != 8 {
                Self::widen_32::<T, false>(dst, src);
                return Self::sum_splat::<T>(sum_in_place(dst, 32, Self::sum_get::<T>(sum)));
            }
            // Every shuffle but six (five for `u64`) stays inside its
            // 128-bit lane: lane-crossing ones (`vpmovzx`, `vpermq`)
            // made the first form of this step 2.5x plain `widen_32`
            // (callgrind 1.8 instructions per value against 0.74).
            let zero = _mm256_setzero_si256();
            let bytes = _mm256_loadu_si256(src.cast());
            // The running sum of each 8-byte group in 16-bit words (at
            // most 8 * 127): shift-and-add within the 64-bit lanes (no
            // shuffle), then word 3's sum added to words 4..8 (`pshufb`).
            let scan = |w: __m256i| {
                let w = _mm256_add_epi16(w, _mm256_slli_epi64::<16>(w));
                let w = _mm256_add_epi16(w, _mm256_slli_epi64::<32>(w));
                _mm256_add_epi16(w, _mm256_shuffle_epi8(w, word3_to_high()))
            };
            // Groups A, C (bytes 0..8, 16..24) and B, D (8..16, 24..32).
            let ac = scan(_mm256_unpacklo_epi8(bytes, zero));
            let bd = scan(_mm256_unpackhi_epi8(bytes, zero));
            // As 32-bit lanes: values 0..4 | 16..20, 4..8 | 20..24 (A | C),
            // 8..12 | 24..28, 12..16 | 28..32 (B | D), each the running
            // sum within its group.
            let a = _mm256_unpacklo_epi16(ac, zero);
            let b = _mm256_unpackhi_epi16(ac, zero);
            let c = _mm256_unpacklo_epi16(bd, zero);
            let d = _mm256_unpackhi_epi16(bd, zero);
            // The groups' totals, [A | C] and [B | D] in every lane.
            let t_ac = _mm256_shuffle_epi32::<0xff>(b);
            let t_bd = _mm256_shuffle_epi32::<0xff>(d);
            // [A + B | C + D]; the running sum of the 32 moves by their
            // total, off the chain (one add per 32 values).
            let pair = _mm256_add_epi32(t_ac, t_bd);
            let total = _mm256_add_epi32(pair, _mm256_permute2x128_si256::<0x01>(pair, pair));
            if size_of::<T>() == 4 {
                // The sums before each lane's values: [s | s + A + B] for
                // a and b, [s + A | s + A + B + C] for c and d.
                let before_ab =
                    _mm256_add_epi32(sum, _mm256_permute2x128_si256::<0x08>(pair, pair));
                let before_cd = _mm256_add_epi32(before_ab, t_ac);
                let a = _mm256_add_epi32(a, before_ab);
                let b = _mm256_add_epi32(b, before_ab);
                let c = _mm256_add_epi32(c, before_cd);
                let d = _mm256_add_epi32(d, before_cd);
                // Back in order: the low lanes are values 0..16, the high ones 16..32.
                _mm256_storeu_si256(dst.cast(), _mm256_permute2x128_si256::<0x20>(a, b));
                _mm256_storeu_si256(dst.add(8).cast(), _mm256_permute2x128_si256::<0x20>(c, d));
                _mm256_storeu_si256(dst.add(16).cast(), _mm256_permute2x128_si256::<0x31>(a, b));
                _mm256_storeu_si256(dst.add(24).cast(), _mm256_permute2x128_si256::<0x31>(c, d));
                _mm256_add_epi32(sum, total)
            } else {
                // The same in 64-bit lanes (totals below 2^12).
                let wide = |x: __m256i| _mm256_unpacklo_epi32(x, zero);
                let before_ab =
                    _mm256_add_epi64(sum, wide(_mm256_permute2x128_si256::<0x08>(pair, pair)));
                let before_cd = _mm256_add_epi64(before_ab, wide(t_ac));
                for (i, (x, before)) in [
                    (a, before_ab),
                    (b, before_ab),
                    (c, before_cd),
                    (d, before_cd),
                ]
                .into_iter()
                .enumerate()
                {
                    // Values 4i..4i + 2 | 16 + 4i.., and 4i + 2..4i + 4 | ...
                    let low = _mm256_add_epi64(_mm256_unpacklo_epi32(x, zero), before);
                    let high = _mm256_add_epi64(_mm256_unpackhi_epi32(x, zero), before);
                    let at = dst.add(4 * i);
                    _mm256_storeu_si256(at.cast(), _mm256_permute2x128_si256::<0x20>(low, high));
                    _mm256_storeu_si256(
                        at.add(16).cast(),
                        _mm256_permute2x128_si256::<0x31>(low, high),
                    );
                }
                _mm256_add_epi64(sum, wide(total))
            }
        }
    }

    #[inline(always)]
    unsafe fn widen_words_sum<T: VarInt>(dst: *mut T, words: __m128i, sum: __m256i) -> __m256i {
        // SAFETY: 8 writable `T` at `dst` (caller); every store below is
        // inside them; AVX2 (caller).
        unsafe {
            if size_of::<T>() != 4 && size_of::<T>() != 8 {
                Self::widen_words::<T, false>(dst, words);
                return Self::sum_splat::<T>(sum_in_place(dst, 8, Self::sum_get::<T>(sum)));
            }
            // The running sums of words 0..4 and of words 4..8, each in its
            // 64-bit lane (at most 4 * (2^14 - 1), which fits 16 bits).
            let w = _mm_add_epi16(words, _mm_slli_epi64::<16>(words));
            let w = _mm_add_epi16(w, _mm_slli_epi64::<32>(w));
            if size_of::<T>() == 4 {
                let x = _mm256_cvtepu16_epi32(w);
                // Lane 3 (words 0..4's total) added to lanes 4..8.
                let low_total = _mm256_blend_epi32::<0x0f>(
                    _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3)),
                    _mm256_setzero_si256(),
                );
                let x = _mm256_add_epi32(x, low_total);
                _mm256_storeu_si256(dst.cast(), _mm256_add_epi32(x, sum));
                _mm256_add_epi32(sum, _mm256_permutevar8x32_epi32(x, _mm256_set1_epi32(7)))
            } else {
                let x = _mm256_cvtepu16_epi64(w);
                let y = _mm256_cvtepu16_epi64(_mm_srli_si128::<8>(w));
                _mm256_storeu_si256(dst.cast(), _mm256_add_epi64(x, sum));
                let sum = _mm256_add_epi64(sum, _mm256_permute4x64_epi64::<0xff>(x));
                _mm256_storeu_si256(dst.add(4).cast(), _mm256_add_epi64(y, sum));
                _mm256_add_epi64(sum, _mm256_permute4x64_epi64::<0xff>(y))
            }
        }
    }
}

/// The `pshufb` control that puts word 3 of each 128-bit lane into its
/// words 4..8 and zeros into words 0..4: added to a lane whose 64-bit
/// halves hold their own running sums, it makes the running sum of all 8.
#[inline(always)]
fn word3_to_high() -> __m256i {
    let z = -128i8;
    // SAFETY: AVX (the kernel's callers); no memory access.
    unsafe {
        _mm256_setr_epi8(
            z, z, z, z, z, z, z, z, 6, 7, 6, 7, 6, 7, 6, 7, z, z, z, z, z, z, z, z, 6, 7, 6, 7, 6,
            7, 6, 7,
        )
    }
}

/// Decodes varints from the start of `input` into `out` until either is
/// exhausted; returns (values written, bytes consumed). Same results and
/// errors as the scalar bulk decoder.
///
/// # Safety
/// The CPU must support AVX2, BMI1, BMI2, POPCNT and LZCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
pub unsafe fn decode_slice<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: this function enables every feature `Avx2` uses.
    unsafe {
        decode_slice_with::<Avx2, T, false, false, false>(input, 0, out, &mut Running::new(0))
    }
}

/// [`decode_slice`] of an input shorter than 128 bytes (a short packed
/// field): one or two blocks over a zero-padded copy, with no scalar head or tail
/// (see `grid_decode::decode_short_with`).
///
/// # Safety
/// `input.len() < SHORT_INPUT_BYTES` (128); the CPU must support AVX2, BMI1, BMI2, POPCNT and LZCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
pub unsafe fn decode_short_input<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: `input.len() < SHORT_INPUT_BYTES` (caller); this function enables every
    // feature `Avx2` uses.
    unsafe { decode_short_with::<Avx2, T, false>(input, out) }
}

/// Decodes varints from `input[start..]` into `out` as one batch of a
/// longer decode: it may stop before either is exhausted (leaving the last
/// bytes or slots to the next call, which always makes progress) and it
/// may read the 9 bytes before `start`. Returns (values written, position
/// of the next varint); errors count their offset from `input`'s start.
///
/// # Safety
/// The CPU must support AVX2, BMI1, BMI2, POPCNT and LZCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
pub unsafe fn decode_run<T: VarInt>(
    input: &[u8],
    start: usize,
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: this function enables every feature `Avx2` uses.
    unsafe {
        decode_slice_with::<Avx2, T, true, false, false>(input, start, out, &mut Running::new(0))
    }
}

/// [`decode_slice`] of delta-coded gaps (`delta::decode_slice`): each
/// value written is `*sum` plus the gaps up to it, wrapping in `T`, the
/// one- and two-byte runs summed in registers as they are widened (see
/// `grid_decode::decode_delta_with`); `*sum` becomes the last value
/// written (with an error, the last before its index).
///
/// # Safety
/// The CPU must support AVX2, BMI1, BMI2, POPCNT and LZCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
pub unsafe fn decode_slice_delta<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    sum: &mut T,
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: this function enables every feature `Avx2` uses.
    unsafe { decode_delta_with::<Avx2, T, false>(input, 0, out, sum) }
}

/// [`decode_run`] of delta-coded gaps, summed as [`decode_slice_delta`]
/// sums them.
///
/// # Safety
/// The CPU must support AVX2, BMI1, BMI2, POPCNT and LZCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
pub unsafe fn decode_run_delta<T: VarInt>(
    input: &[u8],
    start: usize,
    out: &mut [MaybeUninit<T>],
    sum: &mut T,
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: this function enables every feature `Avx2` uses.
    unsafe { decode_delta_with::<Avx2, T, true>(input, start, out, sum) }
}

/// Signed LEB128 (`sleb128::decode_slice`): decodes the signed varints of
/// `input` (WebAssembly's rules for `i32` where `T` is `u32`, `i64` where
/// it is `u64`) into `out` as their values' bits, with the sign extension
/// and the signed checks in the grid steps (see
/// `grid_decode::decode_signed_with`). Same results and errors as the
/// signed scalar decoder.
///
/// # Safety
/// The CPU must support AVX2, BMI1, BMI2, POPCNT and LZCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
pub unsafe fn decode_slice_signed<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: this function enables every feature `Avx2` uses.
    unsafe { decode_signed_with::<Avx2, T>(input, out) }
}
