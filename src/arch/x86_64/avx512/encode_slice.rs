//! The AVX-512 (VBMI + VBMI2) bulk encoder behind
//! [`Backend::Avx512Vbmi2`](crate::Backend::Avx512Vbmi2): one value per lane,
//! `vpmultishiftqb` to spread, `vpcompressb` to squeeze (see
//! [`encode_slice_into`]).

use core::arch::x86_64::*;

use crate::arch::scalar::encode_slice::encode_slice_into_scalar;
use crate::varint::VarInt;
use core::mem::MaybeUninit;

/// Encodes as many of `values` as fit, whole, into `out`; returns (values
/// encoded, bytes written), exactly as the scalar reference
/// (`scalar::encode_slice::encode_slice_into_scalar`) does.
///
/// Each value goes to its own lane: 8 bytes (8 values per step) when every
/// value fits 8 varint bytes (< 2^56), else 16 bytes (4 `u64` per step).
/// `vpmultishiftqb` pulls bit groups `7i..7i+7` into byte `i` in one
/// instruction (VBMI); the length is Go's `(9 * bit_length + 64) / 64` with
/// `vplzcntq`; a masked add sets the continuation bits below it;
/// `vpcompressb` squeezes the lanes' used bytes together for one masked
/// store, which never writes past them. `u64` input (and protobuf `int32`
/// as [`SignExtended32`](crate::varint::SignExtended32), sign-extended as it
/// is loaded) goes in blocks of 32: a block without a value of 2^56 or more
/// (one `vptestmq` of their OR) takes the 8-lane steps.
///
/// The vector steps run only while `out` has room for their values' longest
/// encoding (`MAX_LEN` bytes each), counted from `out.len()`, never from a
/// computed total; the rest goes to the bounds-checked scalar encoder. So
/// `out` may be of any length: a wrong `encoded_len_sum` (which sized it)
/// can cost values, never memory safety. `out` may be uninitialized: only
/// computed bytes are stored.
///
/// # Safety
/// The CPU must support AVX-512 F/BW/VL/CD/VBMI/VBMI2 and POPCNT.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512cd,avx512vbmi,avx512vbmi2,popcnt")]
pub unsafe fn encode_slice_into<T: VarInt>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    // SAFETY: this function enables AVX-512 F.
    let (narrow, wide) = unsafe { (EncodeLanes::narrow(), EncodeLanes::wide()) };
    let mut pos = 0usize;
    let mut index = 0usize;
    let dst = out.as_mut_ptr().cast::<u8>();
    if T::MAX_LEN > 8 {
        const BLOCK: usize = 32;
        while values.len() - index >= BLOCK && out.len() - pos >= BLOCK * T::MAX_LEN {
            let src = values[index..].as_ptr();
            // SAFETY: 32 values from `index`, and room for 32 longest varints at
            // `pos` (loop condition); each step writes exactly its values' bytes.
            unsafe {
                let load = |i: usize| load_qwords(src.add(8 * i));
                let any = _mm512_or_si512(
                    _mm512_or_si512(load(0), load(1)),
                    _mm512_or_si512(load(2), load(3)),
                );
                let top_byte = _mm512_set1_epi64(0xff00_0000_0000_0000u64 as i64);
                if _mm512_test_epi64_mask(any, top_byte) == 0 {
                    for i in 0..4 {
                        pos += encode_step(&narrow, load(i), dst.add(pos));
                    }
                } else {
                    for i in 0..8 {
                        let pairs = duplicate_qwords(src.add(4 * i));
                        pos += encode_step(&wide, pairs, dst.add(pos));
                    }
                }
            }
            index += BLOCK;
        }
    }
    // A sign-extended `int32` rest (after the blocks, or shorter than
    // one) with no negative value is encoded as `u32`s would be: 8-lane
    // steps, each needing room for 8 varints of at most
    // `NON_NEGATIVE_I32_MAX_LEN` bytes, not 10 (a `BufMut` chunk sized for
    // the field leaves no more: at 10 the steps stopped at its start and
    // the scalar encoder did the field, 0.55 -> 0.81 of prost's time on
    // 64 enums). One test over the values the room can take (a varint
    // has at least one byte), so a field written chunk by chunk is not
    // read again per chunk.
    let reach = index + (values.len() - index).min(out.len() - pos);
    let narrow_rest = T::SIGN_EXTENDED
        && values[index..reach]
            .iter()
            .fold(0, |any, value| any | value.to_u64())
            >> 31
            == 0;
    let (lanes, per_step, longest) = if narrow_rest {
        (&narrow, 8, NON_NEGATIVE_I32_MAX_LEN)
    } else if T::MAX_LEN > 8 {
        (&wide, 4, T::MAX_LEN)
    } else {
        (&narrow, 8, T::MAX_LEN)
    };
    let end = if narrow_rest { reach } else { values.len() };
    while end - index >= per_step && out.len() - pos >= per_step * longest {
        // With `narrow_rest` every value from `index` to `end` is a
        // non-negative `i32`, whose varint has at most
        // `NON_NEGATIVE_I32_MAX_LEN` bytes (`longest`).
        // SAFETY: so `per_step` values from `index` are in bounds and
        // `out[pos..]` has room for their longest encoding (loop condition).
        unsafe {
            let src = values.as_ptr().add(index);
            let in_lanes = if narrow_rest {
                load_qwords(src)
            } else if T::MAX_LEN > 8 {
                duplicate_qwords(src)
            } else {
                load_widened(src)
            };
            pos += encode_step(lanes, in_lanes, dst.add(pos));
        }
        index += per_step;
    }
    if narrow_rest && size_of::<T>() == 4 {
        // The last non-negative `int32`s through the scalar encoder as
        // `u32`s, which it encodes with its 5-byte form (the 10-byte one
        // took 1.26-1.36x the time): the same varints. Values past `end`
        // would not fit the room anyway (at least a byte each).
        // `T` is a 4-byte sign-extended type, an `i32` (`SignExtended32`,
        // the only one), and its values from `index` to `end` are
        // non-negative (`narrow_rest`).
        // SAFETY: so they are readable as `u32`s of the same values.
        let rest = unsafe {
            core::slice::from_raw_parts(values.as_ptr().add(index).cast::<u32>(), end - index)
        };
        let (encoded, written) = encode_slice_into_scalar(rest, &mut out[pos..]);
        return (index + encoded, pos + written);
    }
    let (encoded, written) = encode_slice_into_scalar(&values[index..], &mut out[pos..]);
    (index + encoded, pos + written)
}

/// The longest varint of a non-negative `i32` (below 2^31): 5 bytes.
const NON_NEGATIVE_I32_MAX_LEN: usize = 5;

/// The constants of an encoding step for one lane width.
struct EncodeLanes {
    /// Each byte's index inside its lane.
    byte_index: __m512i,
    /// `vpmultishiftqb` controls: output byte i takes bits 7i.. (mod 64).
    shifts: __m512i,
    /// The payload bits of each output byte.
    payload: __m512i,
    /// `vpshufb` control that copies each lane's length to all its bytes.
    len_spread: __m512i,
}

impl EncodeLanes {
    /// 8-byte lanes: one value (< 2^56) per qword.
    ///
    /// # Safety
    /// The CPU must support AVX-512 F.
    #[inline(always)]
    unsafe fn narrow() -> Self {
        // SAFETY: only constants; the caller guarantees AVX-512 F.
        unsafe {
            EncodeLanes {
                byte_index: _mm512_set1_epi64(0x0706_0504_0302_0100),
                shifts: _mm512_set1_epi64(0x312a_231c_150e_0700),
                payload: _mm512_set1_epi64(0x7f7f_7f7f_7f7f_7f7f),
                // set4_epi64 lists qwords high to low and repeats per 128-bit lane.
                len_spread: _mm512_set4_epi64(0x0808_0808_0808_0808, 0, 0x0808_0808_0808_0808, 0),
            }
        }
    }

    /// 16-byte lanes: one `u64` in both qwords of each 128-bit lane.
    ///
    /// # Safety
    /// The CPU must support AVX-512 F.
    #[inline(always)]
    unsafe fn wide() -> Self {
        // SAFETY: only constants; the caller guarantees AVX-512 F.
        unsafe {
            EncodeLanes {
                byte_index: _mm512_set4_epi64(
                    0x0f0e_0d0c_0b0a_0908,
                    0x0706_0504_0302_0100,
                    0x0f0e_0d0c_0b0a_0908,
                    0x0706_0504_0302_0100,
                ),
                // Output byte i starts at bit 7i (mod 64): 0, 7, ..., 49 | 56, 63.
                shifts: _mm512_set4_epi64(
                    0x3f38,
                    0x312a_231c_150e_0700,
                    0x3f38,
                    0x312a_231c_150e_0700,
                ),
                // Byte 9 holds only bit 63; `vpmultishiftqb` wraps around the
                // qword, so its other bits are masked off.
                payload: _mm512_set4_epi64(
                    0x017f,
                    0x7f7f_7f7f_7f7f_7f7f,
                    0x017f,
                    0x7f7f_7f7f_7f7f_7f7f,
                ),
                // Both qwords of a lane hold the value: take byte 0's length.
                len_spread: _mm512_setzero_si512(),
            }
        }
    }
}

/// Encodes the values in the lanes of `values` (see [`EncodeLanes`]) to
/// `dst`; returns the bytes written (exactly their encodings).
///
/// # Safety
/// `dst` must be valid for writing the encoded length of the lanes' values;
/// the CPU must support AVX-512 F/BW/CD/VBMI/VBMI2.
#[inline(always)]
unsafe fn encode_step(lanes: &EncodeLanes, values: __m512i, dst: *mut u8) -> usize {
    // SAFETY: the caller guarantees the CPU features and room at `dst`; the
    // masked store writes only the `total` bytes.
    unsafe {
        let groups = _mm512_and_si512(
            _mm512_multishift_epi64_epi8(lanes.shifts, values),
            lanes.payload,
        );
        let bits = _mm512_sub_epi64(
            _mm512_set1_epi64(64),
            _mm512_lzcnt_epi64(_mm512_or_si512(values, _mm512_set1_epi64(1))),
        );
        // (9 * bits + 64) / 64, with 9 * bits as (bits << 3) + bits.
        let len = _mm512_srli_epi64::<6>(_mm512_add_epi64(
            _mm512_add_epi64(_mm512_slli_epi64::<3>(bits), bits),
            _mm512_set1_epi64(64),
        ));
        let len_bytes = _mm512_shuffle_epi8(len, lanes.len_spread);
        let in_varint = _mm512_cmplt_epu8_mask(lanes.byte_index, len_bytes);
        let continues = _mm512_cmplt_epu8_mask(
            _mm512_add_epi8(lanes.byte_index, _mm512_set1_epi8(1)),
            len_bytes,
        );
        let bytes = _mm512_mask_add_epi8(groups, continues, groups, _mm512_set1_epi8(0x80u8 as i8));
        let packed = _mm512_maskz_compress_epi8(in_varint, bytes);
        let total = in_varint.count_ones() as usize;
        _mm512_mask_storeu_epi8(dst.cast(), u64::MAX >> (64 - total), packed);
        total
    }
}

/// Loads 8 values of a type whose varints run to 10 bytes as qwords:
/// 8-byte values as they are, else a sign-extended 4-byte type
/// ([`SignExtended32`](crate::varint::SignExtended32)) widened with its
/// sign (the only other such type).
///
/// # Safety
/// 8 values must be readable at `src`; the CPU must support AVX-512 F.
#[inline(always)]
unsafe fn load_qwords<T: VarInt>(src: *const T) -> __m512i {
    // SAFETY: the caller guarantees the reads and the CPU features.
    unsafe {
        if size_of::<T>() == 8 {
            _mm512_loadu_si512(src.cast())
        } else {
            _mm512_cvtepi32_epi64(_mm256_loadu_si256(src.cast()))
        }
    }
}

/// Loads 4 values of a type whose varints run to 10 bytes (as
/// [`load_qwords`]), each duplicated into both qwords of a 16-byte lane.
///
/// # Safety
/// 4 values must be readable at `src`; the CPU must support AVX-512 F.
#[inline(always)]
unsafe fn duplicate_qwords<T: VarInt>(src: *const T) -> __m512i {
    // SAFETY: the caller guarantees the reads and the CPU features.
    unsafe {
        let qwords = if size_of::<T>() == 8 {
            _mm256_loadu_si256(src.cast())
        } else {
            _mm256_cvtepi32_epi64(_mm_loadu_si128(src.cast()))
        };
        _mm512_permutexvar_epi64(
            _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0),
            _mm512_castsi256_si512(qwords),
        )
    }
}

/// Loads 8 values of a type of at most 4 bytes, zero-extended to qwords.
///
/// # Safety
/// 8 values must be readable at `src`; the CPU must support AVX-512 F.
#[inline(always)]
unsafe fn load_widened<T: VarInt>(src: *const T) -> __m512i {
    // SAFETY: the caller guarantees the reads and the CPU features.
    unsafe {
        match core::mem::size_of::<T>() {
            4 => _mm512_cvtepu32_epi64(_mm256_loadu_si256(src.cast())),
            2 => _mm512_cvtepu16_epi64(_mm_loadu_si128(src.cast())),
            _ => _mm512_cvtepu8_epi64(_mm_loadl_epi64(src.cast())),
        }
    }
}
