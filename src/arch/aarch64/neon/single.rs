//! NEON single-value kernels: one 16-byte vector holds any varint whole.
//!
//! **Decode.** NEON has no `pmovmskb`; `shrn #4` of the "byte has no
//! continuation bit" compare narrows the 16 byte flags to 16 nibbles of one
//! 64-bit word, whose trailing-zero count / 4 is the index of the last byte.
//! A compare against the lane index keeps the varint's bytes, and three
//! `ushr` + `sli` (shift right, then shift left and insert) pairs merge the
//! 7-bit groups: bytes to 14-bit halfwords, those to 28-bit words, those to
//! 56-bit doublewords. Lane 0 then holds bytes 0..8, lane 1 bytes 8..10.
//!
//! **Encode.** The scalar backend's encoder with a NEON spread step: `tbl` gives each output byte `i` a 16-bit lane holding the two
//! input bytes that contain bits `7i..7i+7`; `ushl` by `-(7i mod 8)` aligns
//! the group at bit 0, and `xtn` keeps the low byte of each lane. Length,
//! continuation bits and the 9th and 10th bytes (values >= 2^56) come from
//! general registers, as in the scalar backend.
//!
//! **Not selected for the single-value API.** These kernels exist so the
//! choice is tested, not assumed; the compile-time selection on aarch64 is
//! the scalar backend (see [`super`] for the instruction counts and the
//! public latency figures behind that choice). Both are tested against the
//! scalar reference on every aarch64 run.

use core::arch::aarch64::*;

use crate::arch::scalar;
use crate::error::DecodeError;
use crate::varint::{narrow, VarInt};

/// The varint's payload as (bits 0..56, bits 56..70) and its length
/// (1..=17, 17 meaning "no last byte among the 16").
#[inline(always)]
fn payload_and_len(window: &[u8; 16]) -> (u64, u64, usize) {
    // SAFETY: `window` is 16 readable bytes; NEON is part of the aarch64
    // baseline (every aarch64 Rust target enables it).
    unsafe {
        let bytes = vld1q_u8(window.as_ptr());
        // 0xff in the lanes whose byte ends a varint (bit 7 clear).
        let ends = vcgezq_s8(vreinterpretq_s8_u8(bytes));
        // One nibble per byte: 0xf where the byte ends a varint.
        let nibbles = vget_lane_u64::<0>(vreinterpret_u64_u8(vshrn_n_u16::<4>(
            vreinterpretq_u16_u8(ends),
        )));
        // 64 trailing zeros (no end among the 16 bytes) gives 17.
        let len = nibbles.trailing_zeros() as usize / 4 + 1;
        let lane_index: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
        let in_varint = vcltq_u8(vld1q_u8(lane_index.as_ptr()), vdupq_n_u8(len as u8));
        let groups = vandq_u8(vandq_u8(bytes, in_varint), vdupq_n_u8(0x7f));
        let merged = merge_7bit_groups_u64(groups);
        let low = vgetq_lane_u64::<0>(merged);
        // Bytes 8 and 9 are the low 14 bits of lane 1 (bytes 10.. are zero
        // or make len > 10).
        let high = vgetq_lane_u64::<1>(merged) & 0x3fff;
        (low, high, len)
    }
}

/// Merges the 7-bit groups of each 4-byte quarter of `groups` (bit 7 of
/// every byte clear) into one 28-bit value per 32-bit lane:
/// `b0 + 2^7 b1 + 2^14 b2 + 2^21 b3`. Two `ushr` + `sli` pairs.
#[inline(always)]
pub(super) fn merge_7bit_groups_u32(groups: uint8x16_t) -> uint32x4_t {
    // SAFETY: register-only NEON operations (baseline on aarch64).
    unsafe {
        let pairs = vreinterpretq_u16_u8(groups);
        // b0 | b1 << 7 in each halfword (b0 has bit 7 clear, so `sli` keeps it).
        let pairs = vsliq_n_u16::<7>(pairs, vshrq_n_u16::<8>(pairs));
        let quads = vreinterpretq_u32_u16(pairs);
        // p0 | p1 << 14 in each word.
        vsliq_n_u32::<14>(quads, vshrq_n_u32::<16>(quads))
    }
}

/// [`merge_7bit_groups_u32`] and one more step: a 56-bit value per 64-bit
/// lane from each 8-byte half.
#[inline(always)]
fn merge_7bit_groups_u64(groups: uint8x16_t) -> uint64x2_t {
    // SAFETY: register-only NEON operations (baseline on aarch64).
    unsafe {
        let octets = vreinterpretq_u64_u32(merge_7bit_groups_u32(groups));
        // q0 | q1 << 28 in each doubleword.
        vsliq_n_u64::<28>(octets, vshrq_n_u64::<32>(octets))
    }
}

/// Decodes the varint at the start of `window` (zero-padded input).
///
/// # Safety
/// None beyond the signature: NEON is part of the aarch64 baseline. The
/// function is `unsafe` to match the other backends' kernels.
#[inline]
pub unsafe fn decode<T: VarInt>(window: &[u8; 16]) -> Result<(T, usize), DecodeError> {
    let (low, high, len) = payload_and_len(window);
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
/// None beyond the signature, as for [`decode`].
#[inline]
pub unsafe fn decode_unchecked<T: VarInt>(window: &[u8; 16]) -> (T, usize) {
    let (low, high, len) = payload_and_len(window);
    (T::from_u64_unchecked(low | high << 56), len.min(T::MAX_LEN))
}

/// Encodes `value` into the start of `out`; returns the length. Writes
/// bytes 0..10 (zeros past the varint).
///
/// # Safety
/// None beyond the signature, as for [`decode`].
#[inline]
pub unsafe fn encode<T: VarInt>(value: T, out: &mut [u8; 16]) -> usize {
    scalar::single::encode_with::<T>(value.to_u64(), out, spread_7bit_groups)
}

/// Puts bits `7i..7i+7` of `value` (below 2^56) into byte `i`.
#[inline(always)]
fn spread_7bit_groups(value: u64) -> u64 {
    // Output byte i takes bits 7i..7i+7, found in input bytes k = 7i / 8 and
    // k + 1 at shift s = 7i mod 8: i = 0..8 -> k = 0,0,1,2,3,4,5,6; s = 0,7,6,5,4,3,2,1.
    let pair_bytes: [u8; 16] = [0, 1, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7];
    let shifts: [i16; 8] = [0, -7, -6, -5, -4, -3, -2, -1];
    // SAFETY: the arrays are 16 readable bytes each; NEON is baseline.
    unsafe {
        let x = vreinterpretq_u8_u64(vdupq_n_u64(value));
        let pairs = vreinterpretq_u16_u8(vqtbl1q_u8(x, vld1q_u8(pair_bytes.as_ptr())));
        let aligned = vshlq_u16(pairs, vld1q_s16(shifts.as_ptr()));
        let low_bytes = vmovn_u16(vandq_u16(aligned, vdupq_n_u16(0x7f)));
        vget_lane_u64::<0>(vreinterpret_u64_u8(low_bytes))
    }
}
