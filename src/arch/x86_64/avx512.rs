//! AVX-512 (VBMI + VBMI2) bulk decoder: a whole 64-byte window per step.
//!
//! Per window, `vpmovb2m` gives the 64 continuation bits; the clear ones are
//! the varints' last bytes. `vpcompressb` of a 0..63 index vector under that
//! mask lists every end position at once, and under `(mask << 1) | 1` every
//! start position: no per-value scan and no lookup table (Masked VByte needs
//! a 4096-entry one for 12 bytes). Then, 8 varints at a time, one `vpermb`
//! gathers each varint's bytes into its own 64-bit lane (byte `k` of lane `j`
//! is input byte `start_j + k` when that is `<= end_j`, else zero),
//! `pmaddubsw`/`pmaddwd` and a shift merge the 7-bit groups, and one masked
//! store writes the 8 values. The input pointer then jumps to the byte after
//! the window's last complete varint, so the loop-carried dependency is one
//! per 64 bytes, not one per value.
//!
//! Varints of 9 or 10 bytes, varints that do not fit `T`, and windows
//! without a complete varint are handed to the scalar decoder, value by
//! value, so that errors carry the exact index and offset.

use core::arch::x86_64::*;

use crate::arch::scalar;
use crate::bulk::{scalar_values, BulkDecodeError};
use crate::varint::VarInt;

/// Decodes varints from `input` into `out` until either is exhausted.
///
/// # Safety
/// The CPU must support AVX-512 F, BW, VBMI and VBMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt,bmi1,bmi2")]
pub unsafe fn decode_slice<T: VarInt>(
    input: &[u8],
    out: &mut [T],
) -> Result<(usize, usize), BulkDecodeError> {
    let mut pos = 0usize;
    let mut written = 0usize;
    let iota = _mm512_set_epi8(
        63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41,
        40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
        17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
    );
    // Byte (j, k) of the gather index: lane j selects varint j of the group.
    let lane_of_byte = _mm512_set_epi64(
        0x0707_0707_0707_0707,
        0x0606_0606_0606_0606,
        0x0505_0505_0505_0505,
        0x0404_0404_0404_0404,
        0x0303_0303_0303_0303,
        0x0202_0202_0202_0202,
        0x0101_0101_0101_0101,
        0,
    );
    // k, the byte's position inside its lane.
    let byte_in_lane = _mm512_set1_epi64(0x0706_0504_0302_0100);
    while input.len() - pos >= 64 && written < out.len() {
        // SAFETY: 64 bytes from `pos` are inside `input` (loop condition).
        let data = unsafe { _mm512_loadu_si512(input.as_ptr().add(pos).cast()) };
        let ends_mask = !_mm512_movepi8_mask(data);
        if ends_mask == 0 {
            // No varint ends in 64 bytes: longer than any MAX_LEN.
            return Err(BulkDecodeError::new(
                crate::DecodeError::Overflow,
                written,
                pos,
            ));
        }
        let room = out.len() - written;
        if ends_mask == u64::MAX && room >= 64 {
            // 64 one-byte varints (common in real data: small enums, bools,
            // counts): widen the bytes, no gathering needed.
            // SAFETY: 64 values fit in `out` after `written`; 64 input bytes
            // from `pos` are in bounds (loop condition).
            unsafe {
                store_one_byte_values::<T>(out.as_mut_ptr().add(written), input.as_ptr().add(pos))
            };
            written += 64;
            pos += 64;
            continue;
        }
        let total = ends_mask.count_ones() as usize;
        let count = total.min(room);
        let ends = _mm512_maskz_compress_epi8(ends_mask, iota);
        let starts = _mm512_maskz_compress_epi8((ends_mask << 1) | 1, iota);
        let mut group = 0usize;
        let mut fallback = false;
        while group < count {
            let select = _mm512_add_epi8(lane_of_byte, _mm512_set1_epi8(group as i8));
            let start = _mm512_permutexvar_epi8(select, starts);
            let end = _mm512_permutexvar_epi8(select, ends);
            let source = _mm512_add_epi8(start, byte_in_lane);
            let in_varint = _mm512_cmple_epu8_mask(source, end);
            let bytes = _mm512_maskz_permutexvar_epi8(in_varint, source, data);
            let lanes = (count - group).min(8);
            let lane_mask = u8::MAX >> (8 - lanes);
            // len - 1 = end - start per lane (byte 0 of each lane).
            let len_minus_1 =
                _mm512_and_si512(_mm512_sub_epi8(end, start), _mm512_set1_epi64(0xff));
            let too_long = _mm512_mask_cmpgt_epu64_mask(
                lane_mask,
                len_minus_1,
                _mm512_set1_epi64((T::MAX_LEN - 1) as i64),
            );
            // SAFETY: this function enables AVX-512 F/BW.
            let mut values = unsafe { pack_lanes(bytes) };
            let too_big = if T::MAX_LEN > 8 {
                // u64: bytes 8 and 9 of each varint (values >= 2^56, 5% of
                // a protobuf-like mix) come from a second gather, so they
                // stay on the vector path. Source indices past 63 wrap in
                // `vpermb` but are masked off: they are beyond every end.
                let source_high = _mm512_add_epi8(source, _mm512_set1_epi8(8));
                let in_varint_high = _mm512_cmple_epu8_mask(source_high, end);
                let bytes_high = _mm512_maskz_permutexvar_epi8(in_varint_high, source_high, data);
                // b8 + 128 * b9: at most 8 bits fit above bit 56 (Go
                // protowire: a 10th byte above 0x01 overflows).
                // SAFETY: as above.
                let high = unsafe { pack_lanes(bytes_high) };
                values = _mm512_or_si512(values, _mm512_slli_epi64(high, 56));
                _mm512_mask_cmpgt_epu64_mask(lane_mask, high, _mm512_set1_epi64(0xff))
            } else if T::MAX_U64 >= (1 << 56) - 1 {
                0
            } else {
                _mm512_mask_cmpgt_epu64_mask(
                    lane_mask,
                    values,
                    _mm512_set1_epi64(T::MAX_U64 as i64),
                )
            };
            if too_long | too_big != 0 {
                fallback = true;
                break;
            }
            // SAFETY: `lanes` values fit in `out` after `written` (count <= room).
            unsafe { store::<T>(out.as_mut_ptr().add(written), lane_mask, values) };
            written += lanes;
            group += 8;
        }
        if fallback {
            // Decode the failing group's values one by one from their start.
            let group_start = pos + start_of(starts, group);
            let (n, consumed) = scalar_values(input, group_start, out, written, 8)?;
            written += n;
            pos = group_start + consumed;
        } else {
            // Jump past the last varint decoded: the highest end bit, or the
            // count-th one when `out` filled up first (PDEP selects it).
            let last_end = if count == total {
                63 - ends_mask.leading_zeros() as usize
            } else {
                _pdep_u64(1 << (count - 1), ends_mask).trailing_zeros() as usize
            };
            pos += last_end + 1;
        }
    }
    let (n, consumed) = scalar_values(input, pos, out, written, usize::MAX)?;
    Ok((written + n, pos + consumed))
}

/// Packs the 7-bit groups of each 64-bit lane (varint bytes, zero-padded)
/// into its low 56 bits: `pmaddubsw` merges byte pairs (`b0 + 128 * b1`),
/// `pmaddwd` pairs of those (`p0 + 2^14 * p1`), a shift the two 28-bit halves.
///
/// # Safety
/// The CPU must support AVX-512 F/BW.
#[inline(always)]
unsafe fn pack_lanes(bytes: __m512i) -> __m512i {
    // SAFETY: the caller guarantees AVX-512 F/BW; no memory is touched.
    unsafe {
        let groups = _mm512_and_si512(bytes, _mm512_set1_epi8(0x7f));
        let pairs = _mm512_maddubs_epi16(_mm512_set1_epi16(0x8001u16 as i16), groups);
        let quads = _mm512_madd_epi16(pairs, _mm512_set1_epi32(1 | (1 << 14) << 16));
        _mm512_or_si512(
            _mm512_and_si512(quads, _mm512_set1_epi64(0x0fff_ffff)),
            _mm512_slli_epi64(_mm512_srli_epi64(quads, 32), 28),
        )
    }
}

/// Byte `index` of a compressed position vector (only on the rare fallback path).
#[inline(always)]
fn start_of(positions: __m512i, index: usize) -> usize {
    let mut bytes = [0u8; 64];
    // SAFETY: `bytes` is 64 writable bytes.
    unsafe { _mm512_storeu_si512(bytes.as_mut_ptr().cast(), positions) };
    bytes[index] as usize
}

/// Stores the masked 64-bit lanes of `values`, narrowed to `T`.
///
/// # Safety
/// `dest` must be valid for writing as many `T` as `mask` has (low) bits;
/// the CPU must have AVX-512 F/BW/VL.
#[inline(always)]
unsafe fn store<T: VarInt>(dest: *mut T, mask: u8, values: __m512i) {
    // SAFETY: the caller guarantees room for the masked lanes; masked stores
    // touch only those.
    unsafe {
        match core::mem::size_of::<T>() {
            8 => _mm512_mask_storeu_epi64(dest.cast(), mask, values),
            4 => _mm256_mask_storeu_epi32(dest.cast(), mask, _mm512_cvtepi64_epi32(values)),
            2 => _mm_mask_storeu_epi16(dest.cast(), mask, _mm512_cvtepi64_epi16(values)),
            _ => _mm_mask_storeu_epi8(dest.cast(), u16::from(mask), _mm512_cvtepi64_epi8(values)),
        }
    }
}

/// Writes the 64 bytes at `src` (all below 0x80) as 64 values of `T`.
///
/// # Safety
/// `src` must be valid for reading 64 bytes and `dest` for writing 64 `T`;
/// the CPU must have AVX-512 F/BW.
#[inline(always)]
unsafe fn store_one_byte_values<T: VarInt>(dest: *mut T, src: *const u8) {
    // SAFETY: the caller guarantees 64 readable bytes at `src`, 64 writable
    // `T` at `dest` and the CPU features; every access below is inside them.
    unsafe {
        match core::mem::size_of::<T>() {
            8 => {
                for i in 0..8 {
                    let bytes = _mm_loadl_epi64(src.add(8 * i).cast());
                    _mm512_storeu_si512(
                        dest.cast::<u64>().add(8 * i).cast(),
                        _mm512_cvtepu8_epi64(bytes),
                    );
                }
            }
            4 => {
                for i in 0..4 {
                    let bytes = _mm_loadu_si128(src.add(16 * i).cast());
                    _mm512_storeu_si512(
                        dest.cast::<u32>().add(16 * i).cast(),
                        _mm512_cvtepu8_epi32(bytes),
                    );
                }
            }
            2 => {
                for i in 0..2 {
                    let bytes = _mm256_loadu_si256(src.add(32 * i).cast());
                    _mm512_storeu_si512(
                        dest.cast::<u16>().add(32 * i).cast(),
                        _mm512_cvtepu8_epi16(bytes),
                    );
                }
            }
            _ => core::ptr::copy_nonoverlapping(src, dest.cast::<u8>(), 64),
        }
    }
}

/// Encodes `values` into `out`, which must have room for all of them
/// (`out.len() >= encoded_len_sum(values)`); returns the bytes written.
///
/// Each value goes to its own lane (16 bytes for `u64`: 4 values per step;
/// 8 bytes for narrower types: 8 per step). `vpmultishiftqb` pulls bit
/// groups `7i..7i+7` into byte `i` in one instruction (VBMI); the length is
/// Go's `(9 * bit_length + 64) / 64` with `vplzcntq`; a masked add sets the
/// continuation bits below it; `vpcompressb` squeezes the lanes' used bytes
/// together for one masked store, which never writes past them.
///
/// # Safety
/// The CPU must support AVX-512 F/BW/VL/CD/VBMI/VBMI2, and `out` must hold
/// at least the encoded length of `values`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512cd,avx512vbmi,avx512vbmi2,popcnt")]
pub unsafe fn encode_slice<T: VarInt>(values: &[T], out: &mut [u8]) -> usize {
    let wide_lanes = T::MAX_LEN > 8;
    let per_step = if wide_lanes { 4 } else { 8 };
    // set4_epi64 lists qwords high to low and repeats per 128-bit lane.
    let (byte_index, shifts, payload, len_spread) = if wide_lanes {
        (
            _mm512_set4_epi64(
                0x0f0e_0d0c_0b0a_0908,
                0x0706_0504_0302_0100,
                0x0f0e_0d0c_0b0a_0908,
                0x0706_0504_0302_0100,
            ),
            // Output byte i starts at bit 7i (mod 64): 0, 7, ..., 49 | 56, 63.
            _mm512_set4_epi64(0x3f38, 0x312a_231c_150e_0700, 0x3f38, 0x312a_231c_150e_0700),
            // Byte 9 holds only bit 63; `vpmultishiftqb` wraps around the
            // qword, so its other bits are masked off.
            _mm512_set4_epi64(0x017f, 0x7f7f_7f7f_7f7f_7f7f, 0x017f, 0x7f7f_7f7f_7f7f_7f7f),
            // Both qwords of a lane hold the value: take byte 0's length.
            _mm512_setzero_si512(),
        )
    } else {
        (
            _mm512_set1_epi64(0x0706_0504_0302_0100),
            _mm512_set1_epi64(0x312a_231c_150e_0700),
            _mm512_set1_epi64(0x7f7f_7f7f_7f7f_7f7f),
            _mm512_set4_epi64(0x0808_0808_0808_0808, 0, 0x0808_0808_0808_0808, 0),
        )
    };
    let mut pos = 0usize;
    let mut index = 0usize;
    while values.len() - index >= per_step {
        // SAFETY: `per_step` values from `index` are in bounds.
        let wide = unsafe { load_widened(values.as_ptr().add(index)) };
        let groups = _mm512_and_si512(_mm512_multishift_epi64_epi8(shifts, wide), payload);
        let bits = _mm512_sub_epi64(
            _mm512_set1_epi64(64),
            _mm512_lzcnt_epi64(_mm512_or_si512(wide, _mm512_set1_epi64(1))),
        );
        // (9 * bits + 64) / 64, with 9 * bits as (bits << 3) + bits.
        let len = _mm512_srli_epi64::<6>(_mm512_add_epi64(
            _mm512_add_epi64(_mm512_slli_epi64::<3>(bits), bits),
            _mm512_set1_epi64(64),
        ));
        let len_bytes = _mm512_shuffle_epi8(len, len_spread);
        let in_varint = _mm512_cmplt_epu8_mask(byte_index, len_bytes);
        let continues =
            _mm512_cmplt_epu8_mask(_mm512_add_epi8(byte_index, _mm512_set1_epi8(1)), len_bytes);
        let bytes = _mm512_mask_add_epi8(groups, continues, groups, _mm512_set1_epi8(0x80u8 as i8));
        let packed = _mm512_maskz_compress_epi8(in_varint, bytes);
        let total = in_varint.count_ones() as usize;
        // These `total` bytes encode values `index..index + per_step`.
        // SAFETY: `out` has room for them (caller); the masked store writes only them.
        unsafe {
            _mm512_mask_storeu_epi8(
                out.as_mut_ptr().add(pos).cast(),
                (1u64 << total) - 1,
                packed,
            )
        };
        pos += total;
        index += per_step;
    }
    for &value in &values[index..] {
        let mut window = [0u8; 16];
        let len = scalar::encode(value, &mut window);
        out[pos..pos + len].copy_from_slice(&window[..len]);
        pos += len;
    }
    pos
}

/// Loads one step's values, one per lane: 4 `u64` each duplicated into both
/// qwords of a 16-byte lane, or 8 narrower values zero-extended to qwords.
///
/// # Safety
/// 4 (for `MAX_LEN > 8`) or 8 values must be readable at `src`; the CPU must
/// support AVX-512 F.
#[inline(always)]
unsafe fn load_widened<T: VarInt>(src: *const T) -> __m512i {
    // SAFETY: the caller guarantees the reads and the CPU features.
    unsafe {
        match core::mem::size_of::<T>() {
            8 => _mm512_permutexvar_epi64(
                _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0),
                _mm512_castsi256_si512(_mm256_loadu_si256(src.cast())),
            ),
            4 => _mm512_cvtepu32_epi64(_mm256_loadu_si256(src.cast())),
            2 => _mm512_cvtepu16_epi64(_mm_loadu_si128(src.cast())),
            _ => _mm512_cvtepu8_epi64(_mm_loadl_epi64(src.cast())),
        }
    }
}
