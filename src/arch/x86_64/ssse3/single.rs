//! SSSE3 backend (also compiled with AVX2's VEX encoding when the build
//! enables it): one 16-byte vector holds any varint whole.
//!
//! **Decode.** `pmovmskb` gathers the 16 continuation bits; the lowest clear
//! bit is the last byte, so the length of even a 10-byte varint comes from
//! one `tzcnt`, with no second load and no per-byte branch. A compare
//! against the lane index zeroes the bytes after the varint, `pmaddubsw`
//! merges byte pairs (`b0 + 128 * b1`, 14 bits in each 16-bit lane) and
//! `pmaddwd` merges pairs of those (`p0 + 2^14 * p1`, 28 bits in each 32-bit
//! lane); two 28-bit halves and the 9th/10th bytes' 14 bits are then
//! combined in general registers. This is the method of varint-simd's
//! SSSE3 path with the validation folded into the same mask.
//!
//! **Encode.** `pshufb` gives each output byte `i` a 16-bit lane holding the
//! two input bytes that contain bits `7i..7i+7`; `pmullw` by `2^(8 - 7i mod 8)`
//! aligns them so that the lane's high byte is the group; a shift, mask and
//! `packuswb` leave the 8 low groups in 8 bytes. The 9th and 10th bytes
//! (values >= 2^56, rare) come from general registers.
//!
//! Measured on this project's benches, the scalar backend is as fast or
//! faster for single values (see README); this backend is the selection only
//! where it wins, and exists so the bulk API of later work can share its
//! kernels. It is always tested against the scalar reference.

use core::arch::x86_64::*;

use crate::arch::scalar::encoded_len;
use crate::error::DecodeError;
use crate::varint::{narrow, VarInt, CONTINUATION_BITS};

/// The varint's payload as (bits 0..56, bits 56..70) and its length
/// (1..=17, 17 meaning "no last byte among the 16").
#[inline(always)]
unsafe fn payload_and_len(window: &[u8; 16]) -> (u64, u64, usize) {
    // SAFETY (whole body): `window` is 16 readable bytes; the intrinsics need
    // SSSE3, which every caller's `#[target_feature]` provides.
    unsafe {
        let bytes = _mm_loadu_si128(window.as_ptr().cast());
        // bit i = continuation bit of byte i; bits 16.. of `!` are ones, so
        // the trailing-zero count is at most 16.
        let continuation = _mm_movemask_epi8(bytes) as u32;
        let len = (!continuation).trailing_zeros() as usize + 1;
        let lane_index = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let in_varint = _mm_cmpgt_epi8(_mm_set1_epi8(len as i8), lane_index);
        let groups = _mm_and_si128(_mm_and_si128(bytes, in_varint), _mm_set1_epi8(0x7f));
        // pmaddubsw: unsigned bytes of the first operand times signed bytes of
        // the second, adjacent products summed: 1 * b0 + 128 * b1 (max 16383).
        let pairs = _mm_maddubs_epi16(_mm_set1_epi16(0x8001u16 as i16), groups);
        // pmaddwd: p0 * 1 + p1 * 2^14 in each 32-bit lane (max 2^28 - 1).
        let quads = _mm_madd_epi16(pairs, _mm_set1_epi32(1 | (1 << 14) << 16));
        let low = _mm_cvtsi128_si64(quads) as u64;
        let high = _mm_cvtsi128_si64(_mm_unpackhi_epi64(quads, quads)) as u64;
        // low = q0 | q1 << 32 with 28 bits each; the 9th and 10th bytes are
        // the low 14 bits of `high` (bytes 10.. are zero or make len > 10).
        let low56 = (low & 0x0fff_ffff) | (low >> 32) << 28;
        (low56, high & 0x3fff, len)
    }
}

/// Decodes the varint at the start of `window` (zero-padded input).
///
/// # Safety
/// The CPU must support SSSE3.
///
/// ```
/// #[cfg(target_arch = "x86_64")]
/// if std::is_x86_feature_detected!("ssse3") {
///     use varint_turbo::arch::x86_64::ssse3;
///     let mut window = [0u8; 16];
///     window[..2].copy_from_slice(&[0xac, 0x02]);
///     // SAFETY: the CPU has SSSE3 (checked above).
///     assert_eq!(unsafe { ssse3::decode::<u32>(&window) }, Ok((300, 2)));
/// }
/// ```
#[target_feature(enable = "ssse3")]
#[inline]
pub unsafe fn decode<T: VarInt>(window: &[u8; 16]) -> Result<(T, usize), DecodeError> {
    // SAFETY: SSSE3 is enabled for this function.
    let (low, high, len) = unsafe { payload_and_len(window) };
    // Bits 56.. may hold at most 8 bits (10th byte 0x00/0x01, Go protowire).
    if len > T::MAX_LEN || high > 0xff {
        return Err(DecodeError::Overflow);
    }
    narrow(low | high << 56, len)
}

/// Decodes without validation: for a valid varint the same as [`decode`];
/// otherwise an unspecified value and a length in `1..=T::MAX_LEN`.
///
/// # Safety
/// The CPU must support SSSE3.
///
/// ```
/// #[cfg(target_arch = "x86_64")]
/// if std::is_x86_feature_detected!("ssse3") {
///     use varint_turbo::arch::x86_64::ssse3;
///     let mut window = [0u8; 16];
///     window[..2].copy_from_slice(&[0xac, 0x02]);
///     // SAFETY: the CPU has SSSE3 (checked above).
///     assert_eq!(unsafe { ssse3::decode_unchecked::<u32>(&window) }, (300, 2));
/// }
/// ```
#[target_feature(enable = "ssse3")]
#[inline]
pub unsafe fn decode_unchecked<T: VarInt>(window: &[u8; 16]) -> (T, usize) {
    // SAFETY: SSSE3 is enabled for this function.
    let (low, high, len) = unsafe { payload_and_len(window) };
    (T::from_u64_unchecked(low | high << 56), len.min(T::MAX_LEN))
}

/// Encodes `value` into the start of `out`; returns the length.
///
/// # Safety
/// The CPU must support SSSE3.
///
/// ```
/// #[cfg(target_arch = "x86_64")]
/// if std::is_x86_feature_detected!("ssse3") {
///     use varint_turbo::arch::x86_64::ssse3;
///     let mut window = [0u8; 16];
///     // SAFETY: the CPU has SSSE3 (checked above).
///     assert_eq!(unsafe { ssse3::encode(300u32, &mut window) }, 2);
///     assert_eq!(window[..2], [0xac, 0x02]);
/// }
/// ```
#[target_feature(enable = "ssse3")]
#[inline]
// Intrinsic calls are `unsafe` before Rust 1.87 even under their target
// feature (MSRV 1.85); newer compilers call that block unused.
#[allow(unused_unsafe)]
pub unsafe fn encode<T: VarInt>(value: T, out: &mut [u8; 16]) -> usize {
    let value = value.to_u64();
    if value < 0x80 {
        out[0] = value as u8;
        return 1;
    }
    let len = encoded_len(value);
    // Output byte i takes bits 7i..7i+7, found in input bytes k = 7i / 8 and
    // k + 1 at shift s = 7i mod 8: i = 0..8 -> k = 0,0,1,2,3,4,5,6; s = 0,7,6,5,4,3,2,1.
    // SAFETY: register-only SSE2/SSSE3 intrinsics; this function's caller
    // guarantees SSSE3.
    let groups = unsafe {
        let x = _mm_cvtsi64_si128(value as i64);
        let pairs = _mm_shuffle_epi8(
            x,
            _mm_setr_epi8(0, 1, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7),
        );
        // Multiplying by 2^(8 - s) moves bit s to bit 8: the high byte of
        // each lane is then the group (plus one stray bit, masked below).
        let aligned = _mm_mullo_epi16(pairs, _mm_setr_epi16(256, 2, 4, 8, 16, 32, 64, 128));
        let high_bytes = _mm_and_si128(_mm_srli_epi16(aligned, 8), _mm_set1_epi16(0x7f));
        _mm_cvtsi128_si64(_mm_packus_epi16(high_bytes, high_bytes)) as u64
    };
    if len <= 8 {
        let continuation = CONTINUATION_BITS & ((1u64 << (8 * (len - 1))) - 1);
        out[..8].copy_from_slice(&(groups | continuation).to_le_bytes());
    } else {
        out[..8].copy_from_slice(&(groups | CONTINUATION_BITS).to_le_bytes());
        // As in the scalar backend: bit 7 of the top byte is byte 8's
        // continuation bit exactly when a 10th byte follows.
        let high = value >> 56;
        out[8] = high as u8;
        out[9] = (high >> 7) as u8;
    }
    len
}
