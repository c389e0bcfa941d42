//! The AVX-512 (VBMI + VBMI2) bulk decoder behind
//! [`Backend::Avx512Vbmi2`](crate::Backend::Avx512Vbmi2).
//!
//! **Decoder: fixed 64-byte chunks.** Step `c` decodes every varint that
//! *starts* in bytes `64c..64c + 64` of the input, taking its bytes from
//! that chunk and the next (a varint that starts at byte 63 ends by byte
//! 72). The input advances by exactly 64 bytes per step whatever the data,
//! so nothing but the output count (`+= count`) and one carry bit (did the
//! chunk end with a terminator) passes from one step to the next: the
//! steps overlap in the out-of-order core. (An earlier version started
//! each 64-byte window at the first varint not yet decoded; its
//! load -> mask -> popcount -> PDEP -> TZCNT -> next address chain, about
//! 30 cycles, bounded it at about 1.3 billion values/s on the
//! protobuf-like mix.)
//!
//! Per chunk, `vpmovb2m` gives the 64 continuation bits; `vpcompressb` of a
//! 0..63 index vector under "byte after a terminator" lists every start at
//! once (no 4096-entry table as Masked VByte needs for 12 bytes). Then, 8
//! varints at a time, `vpermb` broadcasts each start into its own 64-bit
//! lane and `vpermt2b` gathers the 8 bytes from there out of the two
//! chunks. Inside a lane the terminator is the lowest byte with its top bit
//! clear: with `t = !bytes & 0x80..80`, `t - 1` keeps exactly the bits
//! below its top bit. `vpmaddubsw` merges byte pairs (`b0 + 128 b1`),
//! `vpmaddwd` pairs of those, a shift and a blend the two 28-bit halves:
//! bits 0..55 of every value. About 13 vector instructions per 8 values,
//! no branch per value.
//!
//! Bits 56..63 (varints of 9 or 10 bytes: 5% of the protobuf-like mix, all
//! negative `int64`s) are computed once per chunk for all 64 positions
//! from two loads of the chunk at offsets 8 and 9, and rotated by 7 bytes so
//! that a group finds each varint's top byte at byte 7 of its gather indices:
//! one `vpermb` and an `or` per group instead of a third gather and four
//! more instructions. (Loads rather than shuffles of the two chunks, and no
//! `vpcompressb` into slot order, because the shuffle unit is the busiest:
//! on Intel's port 5 `vpermt2b` and `vpcompressb` take 2 cycles each
//! (Sapphire Rapids, where this was tuned); on the Zen 4 host `vpermt2b`
//! issues one per cycle and `vpcompressb` one per ~1.6 cycles.)
//!
//! **32-bit lanes for types of at most 32 bits.** A 64-bit group costs
//! about 12 vector operations per 8 values. Into `u32` (and `u16`, `u8`)
//! every valid varint has at most 5 bytes, so the chunks take 16 values
//! per group in 32-bit lanes instead (`decode_chunk_dword_groups`): the
//! first 4 bytes of each varint, `vpmaddubsw` + `vpmaddwd` give bits
//! 0..27 with no shift or merge, and only chunks with a 5-byte varint
//! gather the 5th byte: about 9 operations per 16 values. Zen 5, default
//! build, 4,096 values into `u32`: the u32 mix 1,158 -> 731 ns (3.5 -> 5.6
//! G values/s), values uniform in bit width 1-32 1,674 -> 1,091, 3-byte
//! timestamp deltas 1,780 -> 1,077. Into `u64` the 64-bit groups stay: a
//! varint of 5 bytes there can carry 35 bits, and the protobuf-like mix
//! has 10-byte varints in 80% of its chunks; on Zen 4 (2026-11-23)
//! rewriting those afterwards cost more than the lanes saved (mix
//! 0.72-0.86x), and switching per chunk between the two kinds of lanes
//! slowed data that never took the 32-bit path (uniform u32 values into
//! `u64`: 0.63-0.66x).
//!
//! Into types of at most 8 bytes the chunk loop runs while a whole chunk
//! is left: the last chunk's `next` is loaded under a mask, its bytes past
//! the input's end counted as continuation bytes (a varint that runs into
//! them fails validation and goes to the reference, which reports the
//! truncation); into 64-bit types, whose top-byte step reads 128 bytes
//! from each chunk, it stops where two are left. The rest of 64 bytes or
//! more, and the values once `out` has room for fewer than 64 more, go
//! through windows that start at the next varint (the earlier design, at
//! most 32 values each). (Zen 5, default build: the last chunk of `u32`
//! decodes in the chunk loop instead of the windows took 4,096 values
//! uniform in bit width 1-32 from 1,059-1,091 to 904-1,022 ns, 1,024
//! 95% 1-byte counts from 108 to 91.) The last 1..63
//! bytes (all of an input shorter than 64 bytes: most packed fields) are
//! one more chunk, loaded under a mask (zeros past the input's end; the
//! masked-off bytes are not read, so no page past the input is touched)
//! and stored under masks: 6-15 ns whatever the varints' lengths, where
//! the scalar blocks took 20-60 ns. Errors (a varint cut off by the end,
//! too long, too big) go to the scalar reference for the exact index and
//! offset.
//!
//! **Validation.** The scalar reference accepts a varint of at most
//! `MAX_LEN` bytes whose value fits `T` (for `u64`: a 10th byte of 0 or 1,
//! as Go protowire). For `u64` in a chunk, only the varints of 9 or more
//! bytes can break that, and the top-byte step above already has their
//! bytes 8 and 9: one masked compare finds those whose 9th byte continues
//! and whose 10th is above 1. For narrower types (and in the windows), a
//! few scalar instructions on the continuation masks (a chunk's and the
//! next one's, as a `u128`): a run of `MAX_LEN` continuation bytes is too
//! long, and a run of `MAX_LEN - 1` followed by a last byte above the
//! type's limit overflows. A chunk or window with either is decoded by the
//! scalar reference value by value, so errors carry the exact index and
//! offset.
//!
//! A chunk or window of 64 one-byte varints (small enums, bools, counts)
//! just widens the bytes, and so do the input's leading runs of them,
//! before the chunk loop's set-up. A chunk whose varints all have 1 or 2
//! bytes (into types of at most 32 bits; in the last chunk into any type)
//! skips the groups: two `vpcompressb` list each varint's first byte and
//! the byte after it, and 32 values at a time are joined in 16-bit lanes.
//!
//! **Signed varints** (`decode_slice_signed`, the `sleb128` module's bulk
//! decoder on this backend): the same paths with `SIGNED`, in one pass.
//! A signed LEB128 value is the unsigned payload sign-extended from bit
//! `7 len - 1`, so each path shifts its lanes left and arithmetically
//! right by `W - 7 len` for `W`-bit lanes, the count coming from the mask
//! it already has: in 64-bit lanes one `vpsadbw` of `below_stop & 7`
//! against 8 (1 per byte of the varint, 8 per byte past it), in 32-bit
//! lanes the same sum by `vpmaddubsw` + `vpmaddwd`, in the 16-bit lanes of
//! the 1-2-byte chunks a blend of 9 and 2; one-byte runs become
//! `(b ^ 0x40) - 0x40` before a sign-extending widening. 9- and 10-byte
//! `i64`s take bit 63 from their last byte: bit 6 of byte 8 (counting
//! from 0) or bit 0 of byte 9. The
//! last-byte checks test the signed rule (`beyond_last_byte`, and a 10th
//! byte of `0x00` or `0x7f`), and the fallbacks are the signed scalar
//! reference (`arch::scalar::fallback`). About 4 more vector operations
//! per 8 values in 64-bit lanes, 5 per 16 in 32-bit ones: the sign step
//! after the unsigned kernel that this replaced read the input a second
//! time, and the unsigned validation rejected every negative 5-byte `i32`
//! and 10-byte `i64`.
//!
//! **Low halves** (`decode_slice_low_halves`, protobuf `int32`/`enum`
//! packed fields, whose negative values are 10-byte varints): the `u64`
//! decode (its paths, validation and errors), stored into `u32` slots as
//! the low halves of its 64-bit lanes (`vpmovqd` before the masked store),
//! where the caller decoded `u64`s and narrowed them in a second pass.

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use crate::arch::scalar::fallback::{
    fallback_tail, fallback_values_before, low_bits_tail, low_bits_values_before,
};
use crate::error::BulkDecodeError;
use crate::varint::VarInt;

/// Bytes per load.
const WINDOW: usize = 64;
/// The decoder's modes (its `MODE` parameter): unsigned varints into `T`;
/// signed LEB128 varints into the bits of `i32`/`i64` (`T` = `u32`/`u64`);
/// unsigned varints under `u64`'s rules, of which `T` (`u32`) keeps the
/// low 32 bits (protobuf `int32`: a negative value is a 10-byte varint).
const UNSIGNED: u8 = 0;
const SIGNED: u8 = 1;
const LOW_HALVES: u8 = 2;

/// The longest varint the mode accepts: `T`'s, or `u64`'s for
/// [`LOW_HALVES`].
#[inline(always)]
const fn max_len<T: VarInt, const MODE: u8>() -> usize {
    if MODE == LOW_HALVES {
        u64::MAX_LEN
    } else {
        T::MAX_LEN
    }
}

/// The largest value the mode accepts: `T`'s, or `u64`'s for
/// [`LOW_HALVES`].
#[inline(always)]
const fn max_u64<T: VarInt, const MODE: u8>() -> u64 {
    if MODE == LOW_HALVES {
        u64::MAX
    } else {
        T::MAX_U64
    }
}

/// The mode's scalar reference, value by value from `input[pos..]` into
/// `out[written..]` until a varint would start at or after `stop`: every
/// window or chunk the vector steps do not take (see
/// `arch::scalar::fallback`).
#[inline(always)]
fn values_before<T: VarInt, const MODE: u8>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    limit: usize,
    stop: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    match MODE {
        SIGNED => fallback_values_before::<T, true>(input, pos, out, written, limit, stop),
        LOW_HALVES => low_bits_values_before(input, pos, out, written, limit, stop),
        _ => fallback_values_before::<T, false>(input, pos, out, written, limit, stop),
    }
}

/// The mode's scalar tail from `input[pos..]` (the last bytes, and the
/// exact error of a varint the vector steps stopped at).
#[inline(always)]
fn tail<T: VarInt, const MODE: u8>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    limit: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    match MODE {
        SIGNED => fallback_tail::<T, true>(input, pos, out, written, limit),
        LOW_HALVES => low_bits_tail(input, pos, out, written, limit),
        _ => fallback_tail::<T, false>(input, pos, out, written, limit),
    }
}

/// The most varints decoded per window (4 groups of 8): enough for the
/// protobuf-like mix (about 32 per 64 bytes); bounding it keeps the number
/// of groups per window steady, so the loop over them is predicted.
const MAX_PER_WINDOW: usize = 32;

/// Decodes varints from `input` into `out` until either is exhausted.
///
/// # Safety
/// The CPU must support AVX-512 F, BW, VL, VBMI and VBMI2, POPCNT, LZCNT,
/// BMI1 and BMI2.
#[inline]
pub unsafe fn decode_slice<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: the caller guarantees the CPU features `decode` enables.
    unsafe { decode::<T, UNSIGNED>(input, out) }
}

/// [`decode_slice`] of signed LEB128 varints (the `sleb128` module's
/// rules) into the bits of `i32` (`T` = `u32`) or `i64` (`T` = `u64`), in
/// one pass: see the module docs, "Signed varints".
///
/// # Safety
/// As [`decode_slice`].
#[inline]
pub unsafe fn decode_slice_signed<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8) };
    // SAFETY: the caller guarantees the CPU features `decode` enables.
    unsafe { decode::<T, SIGNED>(input, out) }
}

/// [`decode_slice`] of unsigned varints under `u64`'s rules into `u32`
/// slots that keep their low 32 bits, as protobuf's `int32` reads them
/// (a negative `int32` is a 10-byte varint): the 64-bit lanes of the
/// `u64` decode, narrowed as they are stored. Errors are `u64`'s.
///
/// # Safety
/// As [`decode_slice`].
#[cfg(feature = "alloc")]
#[inline]
pub unsafe fn decode_slice_low_halves(
    input: &[u8],
    out: &mut [MaybeUninit<u32>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: the caller guarantees the CPU features `decode` enables.
    unsafe { decode::<u32, LOW_HALVES>(input, out) }
}

/// The body of [`decode_slice`] ([`UNSIGNED`]), [`decode_slice_signed`]
/// ([`SIGNED`]) and [`decode_slice_low_halves`] ([`LOW_HALVES`]).
///
/// # Safety
/// As [`decode_slice`].
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt,lzcnt,bmi1,bmi2"
)]
unsafe fn decode<T: VarInt, const MODE: u8>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // 0, 1, ..., 63: compressed into the positions where varints start.
    let iota = byte_positions();
    // Leading 64-byte runs of one-byte varints (packed bools and enums):
    // widened without the chunk loop's set-up and per-chunk masks, which
    // made inputs of 128-256 such bytes 1.2-1.3x slower than the AVX2
    // backend's runs.
    let (mut pos, mut written) = (0, 0);
    while input.len() - pos >= WINDOW && out.len() - written >= WINDOW {
        // SAFETY: 64 bytes from `pos` are inside `input` (loop condition);
        // this function enables AVX-512 BW.
        let data = unsafe { _mm512_loadu_si512(input.as_ptr().add(pos).cast()) };
        if _mm512_movepi8_mask(data) != 0 {
            break;
        }
        // SAFETY: 64 values fit in `out` after `written` and the 64 bytes
        // from `pos` are in bounds (loop condition).
        unsafe { store_one_byte_chunk::<T, MODE>(out, written, input, pos, data) };
        pos += WINDOW;
        written += WINDOW;
    }
    // SAFETY: this function enables the features `decode_chunks` needs;
    // a varint starts at `pos`.
    (pos, written) = unsafe { decode_chunks::<T, MODE>(input, out, pos, written, iota)? };
    // The last 64..127 bytes, or the values that no longer fit a whole
    // chunk's worth of room: windows that start at the next varint.
    while input.len() - pos >= WINDOW && written < out.len() {
        // SAFETY: 64 bytes from `pos` are inside `input` (loop condition).
        let data = unsafe { _mm512_loadu_si512(input.as_ptr().add(pos).cast()) };
        let ends = !_mm512_movepi8_mask(data);
        let continues = !ends;
        let run = continuation_runs(continues, max_len::<T, MODE>() - 1);
        let too_long = run & (continues >> (max_len::<T, MODE>() - 1));
        // SAFETY: this function enables AVX-512 F and BW.
        let beyond = unsafe { beyond_last_byte::<T, MODE>(data) };
        let too_big = (run << (max_len::<T, MODE>() - 1)) & ends & beyond;
        if too_long | too_big != 0 {
            // Value by value to the end of the window: exact errors. (A
            // window without any terminator has a run that is too long.)
            let (n, consumed) =
                values_before::<T, MODE>(input, pos, out, written, usize::MAX, pos + WINDOW)?;
            written += n;
            pos += consumed;
            continue;
        }
        let room = out.len() - written;
        if ends == u64::MAX && room >= WINDOW {
            // 64 one-byte varints (small enums, bools, counts): widen, and
            // keep widening while the next 64 bytes are the same.
            loop {
                // SAFETY: 64 values fit in `out` after `written`; the 64
                // bytes from `pos` are in bounds (checked before each turn).
                unsafe {
                    store_one_byte_values::<T, MODE>(
                        out.as_mut_ptr().cast::<T>().add(written),
                        input.as_ptr().add(pos),
                        WINDOW,
                    )
                };
                written += WINDOW;
                pos += WINDOW;
                if input.len() - pos < WINDOW || out.len() - written < WINDOW {
                    break;
                }
                // SAFETY: 64 bytes from `pos` are inside `input` (just checked).
                let next = unsafe { _mm512_loadu_si512(input.as_ptr().add(pos).cast()) };
                if _mm512_movepi8_mask(next) != 0 {
                    break;
                }
            }
            continue;
        }
        let total = ends.count_ones() as usize;
        let count = total.min(MAX_PER_WINDOW).min(room);
        let starts = _mm512_maskz_compress_epi8((ends << 1) | 1, iota);
        // SAFETY: `count` values fit in `out` after `written` (count <=
        // room); this function enables the features the groups use.
        unsafe {
            let dest = out.as_mut_ptr().cast::<T>().add(written);
            // Varints of 9 or 10 bytes need a third gather per group; most
            // windows of small values have none (a predictable branch).
            if max_len::<T, MODE>() > 8 && continuation_runs(continues, 8) != 0 {
                decode_groups::<T, true, MODE>(data, starts, count, dest);
            } else {
                decode_groups::<T, false, MODE>(data, starts, count, dest);
            }
        }
        written += count;
        // Continue after the count-th varint: the highest terminator, or
        // the count-th one (PDEP selects it) when the window holds more.
        // Both are computed so that the choice is a conditional move.
        let after_all = WINDOW - ends.leading_zeros() as usize;
        let after_count = _pdep_u64(1 << (count - 1), ends).trailing_zeros() as usize + 1;
        pos += if count == total {
            after_all
        } else {
            after_count
        };
    }
    // The last 0..63 bytes: one chunk of them, loaded under a mask. The
    // loops above keep `pos <= input.len()` and `written <= out.len()`.
    // SAFETY: so, and this function enables `decode_last_chunk`'s features.
    let (n, consumed) = unsafe { decode_last_chunk::<T, MODE>(input, pos, out, written) };
    (pos, written) = (pos + consumed, written + n);
    if pos == input.len() || written == out.len() {
        return Ok((written, pos));
    }
    // A varint cut off by the end of the input, one too long or too big:
    // the reference's error, at its index and offset.
    let (n, consumed) = tail::<T, MODE>(input, pos, out, written, usize::MAX)?;
    Ok((written + n, pos + consumed))
}

/// The varints of `input[pos..]` (fewer than 64 bytes) into
/// `out[written..]`, as one chunk: a masked load gives the bytes (zeros
/// past the input's end, which no value counts: only the varints that end
/// among the real bytes are decoded), and the paths of the chunk loop
/// decode them with masked stores. A short packed field (17-63 bytes) and
/// the tail of every longer input take it; it replaces the scalar blocks
/// there (Zen 5, default build: see BENCHMARKS.md, "Short inputs:
/// the paths below 128 bytes"). Returns (values, bytes) decoded: it stops before the first
/// varint that is cut off by the input's end, too long or too big (the
/// caller leaves those to the reference, for the exact error), and when
/// `out` is full.
///
/// # Safety
/// `pos <= input.len()` and `written <= out.len()`; the CPU must support
/// AVX-512 F, BW, VL, VBMI and VBMI2, POPCNT, LZCNT, BMI1 and BMI2.
// Out of line, with its own target features, and no vector arguments
// (the Rust ABI passes them through memory, which made `decode_slice`
// realign its stack and spill in the chunk loop): inlined into
// `decode_slice`, its constants and three decoders took registers from
// the chunk loop, and the u32 mix into `u64` slots decoded 1.3x slower
// at 4,096 values (1,110-1,190 -> 1,490 ns).
#[inline(never)]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt,lzcnt,bmi1,bmi2"
)]
unsafe fn decode_last_chunk<T: VarInt, const MODE: u8>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
) -> (usize, usize) {
    // SAFETY: the caller's guarantees are `last_chunk`'s; this function
    // enables its features.
    unsafe { last_chunk::<T, MODE>(input, pos, out, written) }
}

/// [`decode_slice`] of an input shorter than 64 bytes (a short packed
/// field): [`decode_last_chunk`]'s one masked chunk without the chunk
/// loop's entry and set-up, then the reference for an error.
///
/// # Safety
/// The CPU must support AVX-512 F, BW, VL, VBMI and VBMI2, POPCNT, LZCNT,
/// BMI1 and BMI2.
#[inline]
pub unsafe fn decode_short_input<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: the caller guarantees the CPU features `short_input` enables.
    unsafe { short_input::<T, UNSIGNED>(input, out) }
}

/// [`decode_short_input`] of signed LEB128 varints, as
/// [`decode_slice_signed`].
///
/// # Safety
/// As [`decode_short_input`].
#[inline]
pub unsafe fn decode_short_input_signed<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    const { assert!(size_of::<T>() == 4 || size_of::<T>() == 8) };
    // SAFETY: the caller guarantees the CPU features `short_input` enables.
    unsafe { short_input::<T, SIGNED>(input, out) }
}

/// [`decode_short_input`] under `u64`'s rules into `u32` slots that keep
/// the low 32 bits, as [`decode_slice_low_halves`].
///
/// # Safety
/// As [`decode_short_input`].
#[cfg(feature = "alloc")]
#[inline]
pub unsafe fn decode_short_input_low_halves(
    input: &[u8],
    out: &mut [MaybeUninit<u32>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: the caller guarantees the CPU features `short_input` enables.
    unsafe { short_input::<u32, LOW_HALVES>(input, out) }
}

/// The body of [`decode_short_input`] and its signed and low-halves forms.
///
/// # Safety
/// As [`decode_short_input`].
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt,lzcnt,bmi1,bmi2"
)]
unsafe fn short_input<T: VarInt, const MODE: u8>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: `0 <= input.len()`, `0 <= out.len()`; this function enables
    // the features.
    let (written, pos) = unsafe { last_chunk::<T, MODE>(input, 0, out, 0) };
    if pos == input.len() || written == out.len() {
        return Ok((written, pos));
    }
    let (n, consumed) = tail::<T, MODE>(input, pos, out, written, usize::MAX)?;
    Ok((written + n, pos + consumed))
}

/// The body of [`decode_last_chunk`] (see there).
///
/// # Safety
/// As [`decode_last_chunk`]; the caller enables its features.
#[inline(always)]
unsafe fn last_chunk<T: VarInt, const MODE: u8>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
) -> (usize, usize) {
    let iota = byte_positions();
    let len = input.len() - pos;
    let room = out.len() - written;
    if len == 0 || len >= WINDOW || room == 0 {
        return (0, 0);
    }
    // Bit i: byte pos + i is part of the input (len is 1..=63).
    let real = u64::MAX >> (64 - len);
    // AVX-512 masked loads do not touch, or fault on, masked-off bytes.
    // SAFETY: the masked load reads only the `len` bytes from `pos`, inside
    // `input`; the mask instructions touch no memory; CPU features: caller.
    let (data, continues, above_limit) = unsafe {
        let data = _mm512_maskz_loadu_epi8(real, input.as_ptr().add(pos).cast());
        (
            data,
            _mm512_movepi8_mask(data),
            beyond_last_byte::<T, MODE>(data),
        )
    };
    // The zeros past the end end "varints" too: `ends` keeps the real ones.
    let ends = !continues & real;
    let run = continuation_runs(continues, max_len::<T, MODE>() - 1);
    let too_long = run & (continues >> (max_len::<T, MODE>() - 1));
    let too_big = (run << (max_len::<T, MODE>() - 1)) & ends & above_limit;
    let total = ends.count_ones() as usize;
    // A varint that is too long or too big: the reference from the chunk's
    // start, for the exact error (rare: corrupt input). No end: nothing
    // to decode here.
    if too_long | too_big != 0 || total == 0 {
        return (0, 0);
    }
    let count = total.min(room);
    let starts_mask = ((ends << 1) | 1) & real;
    // Bit i: slot i gets a value (count is 1..=63).
    let slots = u64::MAX >> (64 - count);
    // Every decoded varint ends among the real bytes: the gathers take the
    // zeros past them, or wrap around modulo 64, only past a varint's end.
    // SAFETY: the stores write only the slots in `slots`, the first `count
    // <= room` from `written`; the shuffles touch no memory; CPU: caller.
    unsafe {
        let dest = out.as_mut_ptr().cast::<T>().add(written);
        let zeros = _mm512_setzero_si512();
        if starts_mask & continues & (continues >> 1) == 0 {
            // Varints of 1 and 2 bytes.
            decode_short_varint_chunk::<T, MODE>(
                data,
                zeros,
                starts_mask,
                continues,
                count,
                slots,
                dest,
            );
        } else {
            let starts = _mm512_maskz_compress_epi8(starts_mask, iota);
            let runs_of_4 = continuation_runs(continues, 4) & starts_mask & real;
            if max_len::<T, MODE>() <= 5 && runs_of_4 != 0 {
                decode_chunk_dword_groups::<T, true, MODE>(data, zeros, starts, count, slots, dest);
            } else if max_len::<T, MODE>() <= 5 || runs_of_4 == 0 {
                // Into 64-bit slots too where every varint has at most 4
                // bytes (28 bits).
                decode_chunk_dword_groups::<T, false, MODE>(
                    data, zeros, starts, count, slots, dest,
                );
            } else if max_len::<T, MODE>() > 8 && continuation_runs(continues, 8) != 0 {
                decode_groups::<T, true, MODE>(data, starts, count, dest);
            } else {
                decode_groups::<T, false, MODE>(data, starts, count, dest);
            }
        }
    }
    let consumed = if count == total {
        WINDOW - ends.leading_zeros() as usize
    } else {
        // SAFETY: the caller enables BMI2.
        unsafe { _pdep_u64(1 << (count - 1), ends).trailing_zeros() as usize + 1 }
    };
    (count, consumed)
}

/// The main loop of [`decode_slice`]: fixed 64-byte chunks (see the module
/// docs) from `input[pos..]` (a varint starts there) into
/// `out[written..]`, while a chunk (into types of at most 8 bytes; else a
/// chunk and the next one) is inside `input` and `out` has room for 64
/// more values. Returns where the first varint not
/// decoded starts and how many values are in `out` (`written` included).
///
/// # Safety
/// `pos <= input.len()` and `written <= out.len()`; the CPU must support
/// AVX-512 F, BW, VL, VBMI and VBMI2, POPCNT and LZCNT.
#[inline(always)]
unsafe fn decode_chunks<T: VarInt, const MODE: u8>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    mut pos: usize,
    mut written: usize,
    iota: __m512i,
) -> Result<(usize, usize), BulkDecodeError> {
    // The last chunk's `next` may be cut off by the input's end for types
    // of at most 8 bytes (masked load below); 64-bit types read 128 bytes
    // from each chunk (`chunk_top_bytes`).
    let min_rest = if max_len::<T, MODE>() <= 8 {
        WINDOW
    } else {
        2 * WINDOW
    };
    if input.len() - pos < min_rest || out.len() - written < WINDOW {
        return Ok((pos, written));
    }
    // Byte `pos` starts a varint; afterwards: byte 63 of the previous chunk ended one.
    let mut carry = 1u64;
    let mut base = pos;
    // SAFETY: 64 bytes from `pos` are inside `input` (checked above).
    let mut data = unsafe { _mm512_loadu_si512(input.as_ptr().add(pos).cast()) };
    let (mut continues, mut above_limit) =
        // SAFETY (this and the other mask instructions): the caller enables
        // AVX-512 BW; they touch no memory.
        unsafe { (_mm512_movepi8_mask(data), beyond_last_byte::<T, MODE>(data)) };
    while input.len() - base >= min_rest && out.len() - written >= WINDOW {
        let rest = input.len() - base - WINDOW;
        // Masked-off bytes of a masked load are not accessed.
        // SAFETY: 64 bytes from `base` are in `input` (loop condition), the
        // next 64 if `rest >= 64`, else the mask takes the `rest` left.
        let (mut next, mut next_continues) = unsafe {
            if rest >= WINDOW {
                let next = _mm512_loadu_si512(input.as_ptr().add(base + WINDOW).cast());
                (next, _mm512_movepi8_mask(next))
            } else {
                // Bytes past the end read as zeros, and count as
                // continuation bytes: a varint that runs into them has no
                // end among the real bytes, a run the validation below
                // sends to the reference (an exact `Truncated`).
                let real = (1u64 << rest) - 1;
                let next = _mm512_maskz_loadu_epi8(real, input.as_ptr().add(base + WINDOW).cast());
                (next, _mm512_movepi8_mask(next) | !real)
            }
        };
        let ends = !continues;
        // Bit i: a varint starts at byte i of the chunk.
        let starts_mask = (ends << 1) | carry;
        // The continuation bits of the chunk and the next (bit 64 + i: byte
        // i of the next chunk).
        let both = u128::from(continues) | u128::from(next_continues) << 64;
        // Validation of the varints that start in this chunk. A run that
        // starts here but not at a varint start belongs to a longer varint,
        // which the previous chunk's check already sent to the fallback.
        let mut next_above_limit = 0;
        let mut invalid = false;
        if max_len::<T, MODE>() <= 8 {
            // SAFETY: as above.
            next_above_limit = unsafe { beyond_last_byte::<T, MODE>(next) };
            let run = continuation_runs(both, max_len::<T, MODE>() - 1) & u128::from(u64::MAX);
            let too_long = run & (both >> (max_len::<T, MODE>() - 1));
            let above = u128::from(above_limit) | u128::from(next_above_limit) << 64;
            let too_big = (run << (max_len::<T, MODE>() - 1)) & !both & above;
            invalid = too_long | too_big != 0;
        }
        // 64-bit values: the varints of 9 or more bytes (8 continuation bytes
        // from a start), checked with their bits 56..63 (none: nothing to check).
        let long_starts = if max_len::<T, MODE>() > 8 {
            continuation_runs(both, 8) as u64 & starts_mask
        } else {
            0
        };
        // Computed for every chunk of 64-bit values, long varints or not: on
        // the protobuf-like mix (5% of 10-byte varints, ~32 per chunk) about
        // 80% of the chunks have one, a branch that no predictor learns on
        // real data, and skipping the work saved less than the mispredicts
        // cost (A/B, Zen 4, 1M values: mix 1.05-1.08x, 2-byte 1.07-1.11x,
        // uniform u32 1.30x, u64 1.03-1.07x, 1-byte equal).
        // SAFETY: the caller enables the features; no memory is touched.
        let tops = unsafe {
            if max_len::<T, MODE>() > 8 {
                // SAFETY: 128 bytes from `base` are inside `input` (loop
                // condition), as `chunk_top_bytes` requires.
                let (tops, too_long_or_big) =
                    chunk_top_bytes::<MODE>(input.as_ptr().add(base), iota, long_starts);
                invalid = too_long_or_big != 0;
                tops
            } else {
                _mm512_setzero_si512()
            }
        };
        if invalid {
            // Value by value through the chunk: the reference reports the
            // exact error. (Without one, which cannot happen, the windows
            // after the loop take over from where it stopped.)
            let (n, consumed) =
                values_before::<T, MODE>(input, pos, out, written, usize::MAX, base + WINDOW)?;
            return Ok((pos + consumed, written + n));
        }
        let count = starts_mask.count_ones() as usize;
        if starts_mask & ends == u64::MAX {
            // 64 one-byte varints (small enums, bools, counts): widen.
            // SAFETY: 64 values fit in `out` after `written` and the 64
            // bytes from `base` are in bounds (loop condition).
            unsafe { store_one_byte_chunk::<T, MODE>(out, written, input, base, data) };
            // While the next chunk is 64 more (byte 63 of this one ended a
            // varint, so the next one starts at its byte 0), widen it too
            // and take it as this one, without the general step's masks and
            // checks (a one-byte varint is always valid): runs of them go at
            // the speed of the stores (1-byte values to `u8`: 2x). Here and
            // not at the top of the loop, where the test cost the
            // protobuf-like mix 4-5%.
            while next_continues == 0
                && input.len() - base >= 3 * WINDOW
                && out.len() - written >= 2 * WINDOW
            {
                // SAFETY: 64 more values fit in `out` after `written + 64`
                // and the next chunk is in `input` (loop condition).
                unsafe {
                    store_one_byte_chunk::<T, MODE>(
                        out,
                        written + WINDOW,
                        input,
                        base + WINDOW,
                        next,
                    )
                };
                written += WINDOW;
                base += WINDOW;
                // SAFETY: the chunk after the new `base`'s is in bounds (192
                // bytes were from the old one); masks touch no memory.
                unsafe {
                    next = _mm512_loadu_si512(input.as_ptr().add(base + WINDOW).cast());
                    next_continues = _mm512_movepi8_mask(next);
                    if max_len::<T, MODE>() <= 8 {
                        next_above_limit = beyond_last_byte::<T, MODE>(next);
                    }
                }
            }
        } else if max_len::<T, MODE>() <= 8 && starts_mask & continues & (both >> 1) as u64 == 0 {
            // Every varint that starts here has 1 or 2 bytes (no start
            // whose first two bytes both continue): small counts, sint32
            // near zero, enums above 127. 2.2x the 64-bit groups' speed on
            // 95% 1-byte counts, 2x on sint32 near zero, and 1.3x and 1.4x
            // the 32-bit ones below (4,096 values into `u32`, Zen 5: 406-414
            // against 518-556 ns, 496-498 against 697-753). Not for 64-bit
            // values: with the path in their loop, never taken, 8-10-byte
            // ids decoded 12% slower.
            // SAFETY: 64 values fit in `out` after `written` (loop
            // condition); this function's caller enables the features.
            unsafe {
                let dest = out.as_mut_ptr().cast::<T>().add(written);
                decode_short_varint_chunk::<T, MODE>(
                    data,
                    next,
                    starts_mask,
                    continues,
                    count,
                    u64::MAX,
                    dest,
                );
            }
        } else if max_len::<T, MODE>() <= 5 {
            // Types of at most 32 bits: every varint has at most 5 bytes
            // (validation sent longer ones to the fallback), 16 per group
            // in 32-bit lanes. `count >= 1`: this chunk is not all
            // continuation bytes (validation again).
            // SAFETY: 64 values fit in `out` after `written` (loop
            // condition); this function's caller enables the features.
            unsafe {
                let starts = _mm512_maskz_compress_epi8(starts_mask, iota);
                let dest = out.as_mut_ptr().cast::<T>().add(written);
                // Varints of 5 bytes (4 continuation bytes from a start).
                let slots = u64::MAX;
                if max_len::<T, MODE>() == 5 && continuation_runs(both, 4) as u64 & starts_mask != 0
                {
                    decode_chunk_dword_groups::<T, true, MODE>(
                        data, next, starts, count, slots, dest,
                    );
                } else {
                    decode_chunk_dword_groups::<T, false, MODE>(
                        data, next, starts, count, slots, dest,
                    );
                }
            }
        } else if count != 0 {
            // SAFETY: `count <= 64` values fit in `out` after `written`
            // (loop condition); this function's caller enables the features.
            unsafe {
                let starts = _mm512_maskz_compress_epi8(starts_mask, iota);
                let dest = out.as_mut_ptr().cast::<T>().add(written);
                if max_len::<T, MODE>() > 8 {
                    decode_chunk_groups::<T, true, MODE>(data, next, starts, tops, count, dest);
                } else {
                    decode_chunk_groups::<T, false, MODE>(data, next, starts, tops, count, dest);
                }
            }
        }
        carry = ends >> 63;
        // The next varint starts at the next chunk's first byte if this one
        // ends with a terminator, else after the next chunk's first
        // terminator (validation put one within its first 9 bytes, among
        // the real ones when `next` was cut off).
        let next_pos = base + WINDOW + ((!next_continues << 1) | carry).trailing_zeros() as usize;
        if next_pos > input.len() {
            // Never taken with the validation above; checked rather than
            // assumed, since every later step subtracts from `input.len()`:
            // the windows and the reference decode this chunk again.
            return Ok((pos, written));
        }
        written += count;
        pos = next_pos;
        base += WINDOW;
        (data, continues, above_limit) = (next, next_continues, next_above_limit);
    }
    Ok((pos, written))
}

/// [`decode_groups`] for a chunk: the first `count` (1 to 64) varints
/// listed in `starts` (positions in `data`; their bytes continue into
/// `next`), 8 per group, stored at `dest`; `tops`: see [`decode_group2`].
///
/// Only the last group can reach into `next`: every varint of an earlier
/// one ends before the next varint of the chunk starts. So the earlier
/// groups gather from `data` alone (`vpermb`, one cycle on the shuffle
/// port), and only the last from both chunks (`vpermt2b`, two cycles on the
/// development machine); its store is masked to the slots below `count`.
///
/// # Safety
/// `dest` must be valid for writing `count` values; the CPU must support
/// AVX-512 F, BW, VL and VBMI.
#[inline(always)]
unsafe fn decode_chunk_groups<T: VarInt, const LONG: bool, const MODE: u8>(
    data: __m512i,
    next: __m512i,
    starts: __m512i,
    tops: __m512i,
    count: usize,
    dest: *mut T,
) {
    // The groups followed by another varint of the chunk.
    let inside = (count - 1) / 8 * 8;
    let mut group = 0usize;
    while group < inside {
        // SAFETY: CPU features and writable `count` slots (caller); the
        // group's 8 slots are below `inside < count`.
        unsafe {
            let values = decode_group2::<LONG, false, MODE>(data, next, starts, tops, group);
            store::<T>(dest.add(group), u8::MAX, values);
        }
        group += 8;
    }
    // SAFETY: as above; the masked store writes only the 1 to 8 slots from
    // `inside` below `count`.
    unsafe {
        let values = decode_group2::<LONG, true, MODE>(data, next, starts, tops, group);
        store::<T>(dest.add(group), u8::MAX >> (8 - (count - group)), values);
    }
}

/// The first `count` (1 to 64) varints listed in `starts` (positions in
/// `data`; their bytes continue into `next`), all of at most 5 bytes, 16
/// per group in 32-bit lanes, stored at `dest`: a lane gathers a varint's
/// first 4 bytes, and `vpmaddubsw` + `vpmaddwd` pack their 7-bit groups
/// into bits 0..27 with no shift or merge (the 64-bit lanes of
/// [`decode_group2`] need both), about 9 vector operations per 16 values
/// against 12 per 8. `FIVE`: some varints have 5 bytes; their 5th byte
/// (bits 28..31, at most 15 after validation) comes from a second gather.
///
/// Writes the slots of whole groups of 16 (at most 64 from `dest`) that
/// `slots` has (bit `i`: slot `i`): the slots past `count` get garbage,
/// which the next chunk overwrites.
///
/// # Safety
/// `dest` must be valid for writing the slots in `slots`; every listed
/// varint has at most 5 bytes, the 5th one at most 15, and fits 32 bits
/// (only 4 bytes where `T` is 64 bits wide); the CPU must support AVX-512
/// F, BW, VL and VBMI.
#[inline(always)]
unsafe fn decode_chunk_dword_groups<T: VarInt, const FIVE: bool, const MODE: u8>(
    data: __m512i,
    next: __m512i,
    starts: __m512i,
    count: usize,
    slots: u64,
    dest: *mut T,
) {
    // SAFETY: CPU features and the writable slots of `slots` (caller); each
    // store writes only those among its 16 from `group < 64`.
    unsafe {
        let mut group = 0usize;
        loop {
            // 64 bytes at a multiple of 64 (`GroupSelect`'s alignment).
            let select = DWORD_GROUP_SELECT.0[(group / 16) % 4].as_ptr();
            let select = _mm512_load_si512(select.cast());
            let source = _mm512_add_epi8(
                _mm512_permutexvar_epi8(select, starts),
                _mm512_set1_epi32(0x0302_0100),
            );
            // Indices 64..127 select from `next`: a varint that starts at
            // byte 63 ends by byte 67.
            let bytes = _mm512_permutex2var_epi8(data, source, next);
            // The lowest clear top bit of the lane marks its last byte.
            let stops = _mm512_andnot_si512(bytes, _mm512_set1_epi8(0x80u8 as i8));
            let below_stop = _mm512_sub_epi32(stops, _mm512_set1_epi32(1));
            // bytes & below_stop & 0x7f..7f (ternary-logic table of A & B & C).
            let groups =
                _mm512_ternarylogic_epi32::<0x80>(bytes, below_stop, _mm512_set1_epi8(0x7f));
            // Byte pairs `b0 + 128 b1`, then `p0 + 2^14 p1`: bits 0..27.
            let pairs = _mm512_maddubs_epi16(_mm512_set1_epi16(0x8001u16 as i16), groups);
            let unsigned = _mm512_madd_epi16(pairs, _mm512_set1_epi32(1 | (1 << 14) << 16));
            let mut values = unsigned;
            if MODE == SIGNED {
                // Sign-extended from bit 7 len - 1 by a shift left and an
                // arithmetic one right by 32 - 7 len: the sum over the
                // lane's 4 bytes of 1 for each byte of the varint (set in
                // `below_stop`) and 8 for each past it. (A lane with no
                // stop gets 4, a 5-byte varint's lane: replaced below.)
                let per_byte = _mm512_ternarylogic_epi32::<0xca>(
                    below_stop,
                    _mm512_set1_epi8(1),
                    _mm512_set1_epi8(8),
                );
                let shift = _mm512_madd_epi16(
                    _mm512_maddubs_epi16(per_byte, _mm512_set1_epi8(1)),
                    _mm512_set1_epi16(1),
                );
                values = _mm512_srav_epi32(_mm512_sllv_epi32(unsigned, shift), shift);
            }
            if FIVE {
                // No stop among the first 4 bytes: the 5th byte, gathered
                // into the lane's low byte, gives bits 28..31 (the shift
                // drops the lane's other bytes; validation kept only those
                // whose bit 3, the sign of a signed one, is copied above).
                let long = _mm512_testn_epi32_mask(stops, stops);
                let fifth = _mm512_permutex2var_epi8(
                    data,
                    _mm512_add_epi8(source, _mm512_set1_epi8(4)),
                    next,
                );
                values =
                    _mm512_mask_or_epi32(values, long, unsigned, _mm512_slli_epi32::<28>(fifth));
            }
            store_16_dwords::<T, MODE>(dest.add(group), (slots >> group) as u16, values);
            group += 16;
            if group >= count {
                break;
            }
        }
    }
}

/// `vpermb` controls that broadcast starts `group..group + 16` of a chunk,
/// one per 32-bit lane (see [`GROUP_SELECT`]).
static DWORD_GROUP_SELECT: GroupSelect<4> = GroupSelect::new();

/// Stores the 16 32-bit lanes of `values` that `mask` has (bit `i`: lane
/// `i`) as values of `T` (narrowed for `u8` and `u16`: the caller's values
/// fit `T`; widened for 64-bit types).
///
/// # Safety
/// `dest` must be valid for writing the slots in `mask`; the CPU must have
/// AVX-512 F/BW/VL.
#[inline(always)]
unsafe fn store_16_dwords<T: VarInt, const MODE: u8>(dest: *mut T, mask: u16, values: __m512i) {
    // SAFETY: the slots in `mask` are writable and the CPU has the features
    // (caller); masked stores touch only those slots.
    unsafe {
        match core::mem::size_of::<T>() {
            1 => _mm_mask_storeu_epi8(dest.cast(), mask, _mm512_cvtepi32_epi8(values)),
            2 => _mm256_mask_storeu_epi16(dest.cast(), mask, _mm512_cvtepi32_epi16(values)),
            4 => _mm512_mask_storeu_epi32(dest.cast(), mask, values),
            _ => {
                let dest = dest.cast::<i64>();
                let widen = |half| {
                    if MODE == SIGNED {
                        _mm512_cvtepi32_epi64(half)
                    } else {
                        _mm512_cvtepu32_epi64(half)
                    }
                };
                let low = widen(_mm512_castsi512_si256(values));
                let high = widen(_mm512_extracti64x4_epi64::<1>(values));
                _mm512_mask_storeu_epi64(dest, mask as u8, low);
                _mm512_mask_storeu_epi64(dest.add(8), (mask >> 8) as u8, high);
            }
        }
    }
}

/// The varints of a chunk in which every varint that starts has 1 or 2
/// bytes (`count` of them, 1 to 64, starting where `starts_mask` has a
/// bit; a 2-byte one that starts at byte 63 ends in `next`), stored at
/// `dest`. Two `vpcompressb` list each varint's first byte and the byte
/// after it (zeroed where the first byte ends the varint), and 32 values at
/// a time are widened to 16 bits and joined, `(first & 0x7f) | second << 7`:
/// about 20 vector operations for the up to 64 values of a chunk, where the
/// 8-value groups of the general step take about 12 for every 8.
///
/// Writes the slots that `slots` has (bit `i`: slot `i`) among the first
/// 64 from `dest` when `count > 32` (else among the first 32): the slots
/// past `count` get garbage, which the next chunk overwrites.
///
/// # Safety
/// `dest` must be valid for writing the slots in `slots`; the CPU must
/// support AVX-512 F, BW, VL, VBMI and VBMI2.
#[inline(always)]
unsafe fn decode_short_varint_chunk<T: VarInt, const MODE: u8>(
    data: __m512i,
    next: __m512i,
    starts_mask: u64,
    continues: u64,
    count: usize,
    slots: u64,
    dest: *mut T,
) {
    // SAFETY: the caller guarantees the CPU features and the writable slots
    // in `slots` at `dest`; the stores below write only those.
    unsafe {
        // Byte p: byte p + 1 of the chunk (byte 0 of `next` for p = 63)
        // where byte p continues, else zero.
        let after = _mm512_add_epi8(byte_positions(), _mm512_set1_epi8(1));
        let second = _mm512_maskz_permutex2var_epi8(continues, data, after, next);
        let first = _mm512_maskz_compress_epi8(starts_mask, data);
        let second = _mm512_maskz_compress_epi8(starts_mask, second);
        let low_7_bits = _mm512_set1_epi16(0x7f);
        // Bit i: the i-th varint has 2 bytes (its first byte continues).
        let two_bytes = if MODE == SIGNED {
            _mm512_movepi8_mask(first)
        } else {
            0
        };
        let values_from = |half: __m256i, second_half: __m256i, two_bytes: u32| {
            // (A & C) | B: ternary-logic table 0xec.
            let values = _mm512_ternarylogic_epi32::<0xec>(
                _mm512_cvtepu8_epi16(half),
                _mm512_slli_epi16::<7>(_mm512_cvtepu8_epi16(second_half)),
                low_7_bits,
            );
            if MODE == SIGNED {
                // Sign-extended from bit 6 or 13: shifts by 16 - 7 len.
                let shift =
                    _mm512_mask_blend_epi16(two_bytes, _mm512_set1_epi16(9), _mm512_set1_epi16(2));
                _mm512_srav_epi16(_mm512_sllv_epi16(values, shift), shift)
            } else {
                values
            }
        };
        store_32_words::<T, MODE>(
            dest,
            slots as u32,
            values_from(
                _mm512_castsi512_si256(first),
                _mm512_castsi512_si256(second),
                two_bytes as u32,
            ),
        );
        if count > 32 {
            store_32_words::<T, MODE>(
                dest.add(32),
                (slots >> 32) as u32,
                values_from(
                    _mm512_extracti64x4_epi64::<1>(first),
                    _mm512_extracti64x4_epi64::<1>(second),
                    (two_bytes >> 32) as u32,
                ),
            );
        }
    }
}

/// Stores the 32 16-bit lanes of `values` that `mask` has (bit `i`: lane
/// `i`) as values of `T` (narrowed for `u8`: the caller's values fit `T`).
///
/// # Safety
/// `dest` must be valid for writing the slots in `mask`; the CPU must have
/// AVX-512 F/BW/VL.
#[inline(always)]
unsafe fn store_32_words<T: VarInt, const MODE: u8>(dest: *mut T, mask: u32, values: __m512i) {
    // SAFETY: the slots in `mask` are writable and the CPU has the features
    // (caller); masked stores touch only those slots.
    unsafe {
        match core::mem::size_of::<T>() {
            8 => {
                let dest = dest.cast::<i64>();
                let widen = |quarter| {
                    if MODE == SIGNED {
                        _mm512_cvtepi16_epi64(quarter)
                    } else {
                        _mm512_cvtepu16_epi64(quarter)
                    }
                };
                _mm512_mask_storeu_epi64(
                    dest,
                    mask as u8,
                    widen(_mm512_extracti32x4_epi32::<0>(values)),
                );
                _mm512_mask_storeu_epi64(
                    dest.add(8),
                    (mask >> 8) as u8,
                    widen(_mm512_extracti32x4_epi32::<1>(values)),
                );
                _mm512_mask_storeu_epi64(
                    dest.add(16),
                    (mask >> 16) as u8,
                    widen(_mm512_extracti32x4_epi32::<2>(values)),
                );
                _mm512_mask_storeu_epi64(
                    dest.add(24),
                    (mask >> 24) as u8,
                    widen(_mm512_extracti32x4_epi32::<3>(values)),
                );
            }
            4 => {
                let dest = dest.cast::<i32>();
                let widen = |half| {
                    if MODE == SIGNED {
                        _mm512_cvtepi16_epi32(half)
                    } else {
                        _mm512_cvtepu16_epi32(half)
                    }
                };
                _mm512_mask_storeu_epi32(dest, mask as u16, widen(_mm512_castsi512_si256(values)));
                _mm512_mask_storeu_epi32(
                    dest.add(16),
                    (mask >> 16) as u16,
                    widen(_mm512_extracti64x4_epi64::<1>(values)),
                );
            }
            2 => _mm512_mask_storeu_epi16(dest.cast(), mask, values),
            _ => _mm256_mask_storeu_epi8(dest.cast(), mask, _mm512_cvtepi16_epi8(values)),
        }
    }
}

/// 0, 1, ..., 63: byte `p` holds `p`.
#[inline(always)]
fn byte_positions() -> __m512i {
    // SAFETY: `_mm512_set_epi8` needs AVX-512 F, which every caller (the
    // functions of this module) enables; it only builds a constant.
    unsafe {
        _mm512_set_epi8(
            63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
            41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
            19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
        )
    }
}

/// Bit `p` of the result: bits `p..p + n` of `continues` are all set (`n`
/// consecutive continuation bytes start at byte `p`). Doubling steps, so
/// `n = 9` (u64) takes 4 shifts; `n >= 1`.
#[inline(always)]
fn continuation_runs<M>(continues: M, n: usize) -> M
where
    M: Copy + core::ops::BitAnd<Output = M> + core::ops::Shr<usize, Output = M>,
{
    let mut run = continues;
    let mut len = 1;
    while len * 2 <= n {
        run = run & (run >> len);
        len *= 2;
    }
    if len < n {
        run = run & (run >> (n - len));
    }
    run
}

/// Bit `p`: byte `p` of `bytes`, read as the last byte of a `MAX_LEN`-byte
/// varint, breaks the rules of `T` (only meaningful for bytes without the
/// continuation bit). Unsigned: its payload is above the bits of `T` left
/// for it (for `u32` above 15, for `u64` above 1). `SIGNED`: the bits past
/// `T`'s width do not all copy its sign bit (for `i32` the byte is not in
/// `0x00..=0x07` or `0x78..=0x7f`, for `i64` not `0x00` or `0x7f`): adding
/// half the limit's range maps the valid ones to `0..=limit` and
/// `0x80..`, which are not above `limit` as signed bytes.
///
/// # Safety
/// The CPU must support AVX-512 F and BW.
#[inline(always)]
unsafe fn beyond_last_byte<T: VarInt, const MODE: u8>(bytes: __m512i) -> u64 {
    // The largest payload of a `MAX_LEN`-th byte that still fits unsigned
    // `T`: 2^k - 1 for the k bits of `T` left for that byte.
    let limit = (max_u64::<T, MODE>() >> (7 * (max_len::<T, MODE>() - 1))) as i8;
    // SAFETY: the caller guarantees the CPU features; no memory is touched.
    unsafe {
        if MODE == SIGNED {
            let half = _mm512_set1_epi8((limit >> 1) + 1);
            _mm512_cmpgt_epi8_mask(_mm512_add_epi8(bytes, half), _mm512_set1_epi8(limit))
        } else {
            _mm512_cmpgt_epu8_mask(bytes, _mm512_set1_epi8(limit))
        }
    }
}

/// Decodes the first `count` (1 to 64; at most 32 in a window, up to 63
/// in the last chunk) varints listed in `starts`, which all end inside
/// `data`, and stores them at `dest`, 8 per group (the last one masked).
/// `LONG`: some of them have 9 or 10 bytes (only possible when `T` is 64
/// bits wide).
///
/// # Safety
/// `dest` must be valid for writing `count` values; the CPU must support
/// AVX-512 F, BW, VL and VBMI.
#[inline(always)]
unsafe fn decode_groups<T: VarInt, const LONG: bool, const MODE: u8>(
    data: __m512i,
    starts: __m512i,
    count: usize,
    dest: *mut T,
) {
    // Bit i: slot i gets a value.
    let slots = u64::MAX >> (64 - count);
    let mut group = 0usize;
    while group < count {
        // SAFETY: CPU features and writable `slots` (caller); the masked store
        // writes only those slots.
        unsafe {
            let values = decode_group::<LONG, MODE>(data, starts, group);
            store::<T>(dest.add(group), (slots >> group) as u8, values);
        }
        group += 8;
    }
}

/// `vpermb` controls that broadcast starts `group..group + 8` of a chunk,
/// one per 64-bit lane: byte `k` of lane `j` of entry `group / 8` is
/// `group + j`. Loaded rather than built (a broadcast of `group` and an
/// add): a load takes no vector ALU slot, and the groups are bound by those
/// (Zen 4 runs each 512-bit operation in two halves; A/B below in
/// [`lane_sources`]).
#[repr(align(64))]
struct GroupSelect<const ENTRIES: usize>([[u8; 64]; ENTRIES]);

impl<const ENTRIES: usize> GroupSelect<ENTRIES> {
    /// One entry per group of a chunk's 64 starts: `64 / ENTRIES` lanes
    /// per group, each `ENTRIES` bytes wide; byte `k` of entry `e` is
    /// `e * lanes + k / ENTRIES` (64-bit lanes: `8e + k / 8`; 32-bit lanes:
    /// `16e + k / 4`).
    const fn new() -> Self {
        let lane_bytes = ENTRIES;
        let lanes = 64 / ENTRIES;
        let mut table = [[0u8; 64]; ENTRIES];
        let mut entry = 0;
        while entry < ENTRIES {
            let mut byte = 0;
            while byte < 64 {
                table[entry][byte] = (lanes * entry + byte / lane_bytes) as u8;
                byte += 1;
            }
            entry += 1;
        }
        GroupSelect(table)
    }
}

static GROUP_SELECT: GroupSelect<8> = GroupSelect::new();

/// Where the bytes of the varints that start at bytes `group..group + 8` of
/// `starts` are (`group` a multiple of 8 below 64): byte `k` of lane `j` is
/// `starts[group + j] + k`. The control comes from [`GROUP_SELECT`]
/// (A/B on the Zen 4 host, 1M values: mix 1.05-1.09x native, 1.05x default
/// build; uniform u32, u64 and 2-byte varints equal).
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[inline(always)]
unsafe fn lane_sources(starts: __m512i, group: usize) -> __m512i {
    let select = &GROUP_SELECT.0[(group / 8) % 8];
    // `select` is 64 bytes at a multiple of 64 (`GroupSelect`'s alignment).
    // SAFETY: the caller guarantees the CPU features; `select` as above.
    unsafe {
        let select = _mm512_load_si512(select.as_ptr().cast());
        let byte_in_lane = _mm512_set1_epi64(0x0706_0504_0302_0100);
        _mm512_add_epi8(_mm512_permutexvar_epi8(select, starts), byte_in_lane)
    }
}

/// The values of the varints whose first 8 bytes are in the 64-bit lanes
/// of `bytes` (bits 0..55: the payload up to the lane's lowest byte without
/// the continuation bit), and the stop bits of each lane (the top bit of
/// every byte without the continuation bit; zero when all 8 bytes
/// continue). `SIGNED`: the values of lanes with a stop are sign-extended
/// from bit `7 len - 1`; without `LONG` every lane has one (else, lanes
/// without a stop are left as they are: a 9- or 10-byte varint's top bits
/// come from elsewhere).
///
/// # Safety
/// The CPU must support AVX-512 F and BW.
#[inline(always)]
unsafe fn lane_values<const LONG: bool, const MODE: u8>(bytes: __m512i) -> (__m512i, __m512i) {
    // SAFETY: the caller guarantees the CPU features; no memory is touched.
    unsafe {
        // The lowest clear top bit of the lane marks its last byte.
        let stops = _mm512_andnot_si512(bytes, _mm512_set1_epi8(0x80u8 as i8));
        // Every bit below the lowest stop: the terminator's 7 payload bits
        // and all bytes before it (all 64 bits when there is no stop).
        let below_stop = _mm512_sub_epi64(stops, _mm512_set1_epi64(1));
        // bytes & below_stop & 0x7f..7f (ternary-logic table of A & B & C).
        let groups = _mm512_ternarylogic_epi64::<0x80>(bytes, below_stop, _mm512_set1_epi8(0x7f));
        let mut values = pack_lanes(groups);
        if MODE == SIGNED {
            // Shifts by 64 - 7 len, left then arithmetic right: `vpsadbw`
            // against 8 of the bytes of `below_stop & 7` (7 for each byte
            // of the varint, 0 past it) sums |7 - 8| = 1 per byte of the
            // varint and 8 per byte past it. (All 8 bytes continue: 8,
            // hence the mask.)
            let shift = _mm512_sad_epu8(
                _mm512_and_si512(below_stop, _mm512_set1_epi8(7)),
                _mm512_set1_epi8(8),
            );
            let up = _mm512_sllv_epi64(values, shift);
            values = if LONG {
                let ends_in_lane = _mm512_test_epi64_mask(stops, stops);
                _mm512_mask_srav_epi64(values, ends_in_lane, up, shift)
            } else {
                _mm512_srav_epi64(up, shift)
            };
        }
        (values, stops)
    }
}

/// Decodes the varints that start at bytes `group..group + 8` of `starts`
/// (positions in `data`, which holds their whole encoding), one per 64-bit
/// lane. Lanes past the window's last varint hold garbage. Without `LONG`
/// only the first 8 bytes of each varint count (bits 0..56).
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[inline(always)]
unsafe fn decode_group<const LONG: bool, const MODE: u8>(
    data: __m512i,
    starts: __m512i,
    group: usize,
) -> __m512i {
    // SAFETY: the caller guarantees the CPU features; no memory is touched.
    unsafe {
        let source = lane_sources(starts, group);
        // `vpermb` uses the low 6 bits of an index: bytes past 63 wrap
        // around, but they lie beyond the lane's terminator.
        let (values, stops) = lane_values::<LONG, MODE>(_mm512_permutexvar_epi8(source, data));
        if !LONG {
            return values;
        }
        // Varints of 9 or 10 bytes: no stop among the first 8 bytes.
        let long = _mm512_testn_epi64_mask(stops, stops);
        // Byte 8 gives bits 56..62, bit 0 of byte 9 gives bit 63, if byte 8
        // continues (validation allowed nothing above 0x01 there).
        let high = _mm512_permutexvar_epi8(_mm512_add_epi8(source, _mm512_set1_epi8(8)), data);
        let top_byte = if MODE == SIGNED {
            // Bit 63 is bit 0 of byte 9 if byte 8 continues, else the sign
            // of a 9-byte varint, bit 6 of byte 8: per bit, A ? B : C
            // (ternary-logic table 0xca) with A = `high` gives bit 7 of the
            // lane's byte 0; then C ? A : B with C = 0x80 takes only it.
            let bit63 = _mm512_ternarylogic_epi64::<0xca>(
                high,
                _mm512_srli_epi64::<1>(high),
                _mm512_slli_epi64::<1>(high),
            );
            _mm512_ternarylogic_epi64::<0xca>(_mm512_set1_epi8(0x80u8 as i8), bit63, high)
        } else {
            // Per byte: C ? (A & B) : B, with C = 0x80: bit 7 becomes
            // (byte 9 bit 0) & (byte 8 bit 7); bits 0..6 stay byte 8's.
            _mm512_ternarylogic_epi64::<0xc4>(
                _mm512_srli_epi64::<1>(high),
                high,
                _mm512_set1_epi8(0x80u8 as i8),
            )
        };
        _mm512_mask_or_epi64(values, long, values, _mm512_slli_epi64::<56>(top_byte))
    }
}

/// [`decode_group`] for a chunk: the varints' bytes continue from `data`
/// into `next`, and `tops` (from [`chunk_top_bytes`]) holds bits 56..63 of
/// the value of the varint that starts at byte `p` in its byte
/// `(p + 7) % 64`, zero where that varint has fewer than 9 bytes. Without
/// `LONG` only the first 8 bytes of each varint count; without `SPANS` the
/// group's varints all end inside `data`.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[inline(always)]
unsafe fn decode_group2<const LONG: bool, const SPANS: bool, const MODE: u8>(
    data: __m512i,
    next: __m512i,
    starts: __m512i,
    tops: __m512i,
    group: usize,
) -> __m512i {
    // SAFETY: the caller guarantees the CPU features; no memory is touched.
    unsafe {
        let source = lane_sources(starts, group);
        let bytes = if SPANS {
            // Indices 64..127 select from `next` (`vpermt2b`): a varint
            // that starts at byte 63 ends by byte 72.
            _mm512_permutex2var_epi8(data, source, next)
        } else {
            // Every varint ends inside `data`; the indices that wrap around
            // (modulo 64) are past the lane's terminator.
            _mm512_permutexvar_epi8(source, data)
        };
        let (values, _) = lane_values::<LONG, MODE>(bytes);
        if !LONG {
            return values;
        }
        // Byte 7 of lane j of `source` is `start + 7` (`vpermb` takes it
        // modulo 64), where `tops` holds that varint's top byte: into byte 7
        // of the lane, zeros elsewhere.
        let top_of_lane = 0x8080_8080_8080_8080;
        _mm512_or_si512(
            values,
            _mm512_maskz_permutexvar_epi8(top_of_lane, source, tops),
        )
    }
}

/// Bits 56..63 of the value of every varint that starts in the chunk at
/// `chunk` (a varint that starts at byte `p` in byte `(p + 7) % 64`, where
/// [`decode_group2`] finds it with the gather indices it already has), zero
/// for varints of at most 8 bytes. For a varint that starts at byte `p`
/// they are bits 0..6 of byte `p + 8` and, if that byte continues, bit 0 of
/// byte `p + 9`: two loads from `chunk + 8` and `chunk + 9` give those bytes
/// for all 64 positions (loads, not shuffles: the shuffle port is the
/// busiest), and one `vpermb` rotates them into place. Also returns the
/// varints among `long_starts` (those with at least 9 bytes) that are too
/// long or overflow `u64`: byte `p + 8` continues and byte `p + 9` is above
/// 1 (a continuation byte, or a 10th byte that Go protowire rejects).
///
/// # Safety
/// `chunk` must be valid for reads of 128 bytes; the CPU must support
/// AVX-512 F, BW and VBMI.
#[inline(always)]
unsafe fn chunk_top_bytes<const MODE: u8>(
    chunk: *const u8,
    iota: __m512i,
    long_starts: u64,
) -> (__m512i, u64) {
    // SAFETY: the 64 bytes from `chunk + 8` and from `chunk + 9` are among
    // the 128 the caller guarantees; the CPU features are the caller's.
    unsafe {
        // Byte p: bytes p + 8 and p + 9 of the chunk.
        let byte8 = _mm512_loadu_si512(chunk.add(8).cast());
        let byte9 = _mm512_loadu_si512(chunk.add(9).cast());
        let tenth_byte_follows = long_starts & _mm512_movepi8_mask(byte8);
        // Bit 0 of each byte of `byte9` to its bit 7 (a 16-bit shift: the
        // bits that cross into the next byte are masked off below).
        let bit63 = _mm512_slli_epi16::<7>(byte9);
        let (invalid, top) = if MODE == SIGNED {
            // A 10th byte other than 0x00 and 0x7f (the sign copied into
            // the bits past 64) breaks the signed rules.
            let not_zero =
                _mm512_mask_cmpneq_epi8_mask(tenth_byte_follows, byte9, _mm512_setzero_si512());
            let invalid = _mm512_mask_cmpneq_epi8_mask(not_zero, byte9, _mm512_set1_epi8(0x7f));
            // Bit 7: byte 8 continues ? bit 0 of byte 9 : bit 6 of byte 8
            // (the sign of a 9-byte varint); per bit A ? B : C (0xca),
            // then C ? A : B with C = 0x80 keeps bits 0..6 of byte 8.
            let sign = _mm512_slli_epi16::<1>(byte8);
            let bit7 = _mm512_ternarylogic_epi32::<0xca>(byte8, bit63, sign);
            let top =
                _mm512_ternarylogic_epi32::<0xca>(_mm512_set1_epi8(0x80u8 as i8), bit7, byte8);
            (invalid, top)
        } else {
            let invalid =
                _mm512_mask_cmpgt_epu8_mask(tenth_byte_follows, byte9, _mm512_set1_epi8(1));
            // Per bit: C ? (A & B) : A with C = 0x80 in every byte.
            let top =
                _mm512_ternarylogic_epi32::<0xd0>(byte8, bit63, _mm512_set1_epi8(0x80u8 as i8));
            (invalid, top)
        };
        // Byte q takes byte (q - 7) % 64 of `top` if a long varint starts
        // there, else zero.
        let rotate_by_7 = _mm512_sub_epi8(iota, _mm512_set1_epi8(7));
        let tops = _mm512_maskz_permutexvar_epi8(long_starts.rotate_left(7), rotate_by_7, top);
        (tops, invalid)
    }
}

/// Packs the 7-bit groups of each 64-bit lane (varint bytes without their
/// top bits, zero past the last) into its low 56 bits: `vpmaddubsw` merges
/// byte pairs (`b0 + 128 b1`), `vpmaddwd` pairs of those (`p0 + 2^14 p1`),
/// and the high 28-bit half moves down 4 bits to join the low one.
///
/// # Safety
/// The CPU must support AVX-512 F/BW.
#[inline(always)]
unsafe fn pack_lanes(groups: __m512i) -> __m512i {
    // SAFETY: the caller guarantees AVX-512 F/BW; no memory is touched.
    unsafe {
        let pairs = _mm512_maddubs_epi16(_mm512_set1_epi16(0x8001u16 as i16), groups);
        let quads = _mm512_madd_epi16(pairs, _mm512_set1_epi32(1 | (1 << 14) << 16));
        // Bits 0..28 from `quads`, the rest from `quads >> 4` (C ? A : B).
        _mm512_ternarylogic_epi64::<0xe4>(
            quads,
            _mm512_srli_epi64::<4>(quads),
            _mm512_set1_epi64(0x0fff_ffff),
        )
    }
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

/// Writes the 64 one-byte varints of the chunk at `input[base..]` (held in
/// `data`) as `out[written..written + 64]`.
///
/// # Safety
/// `out` must have 64 slots from `written`, `input` 64 bytes from `base`;
/// the CPU must have AVX-512 F/BW/VL.
#[inline(always)]
unsafe fn store_one_byte_chunk<T: VarInt, const MODE: u8>(
    out: &mut [MaybeUninit<T>],
    written: usize,
    input: &[u8],
    base: usize,
    data: __m512i,
) {
    // SAFETY: the slots and bytes are in bounds and the CPU has the
    // features (caller).
    unsafe {
        let dest = out.as_mut_ptr().cast::<T>().add(written);
        if core::mem::size_of::<T>() == 1 && MODE != SIGNED {
            _mm512_storeu_si512(dest.cast(), data);
        } else {
            store_one_byte_values::<T, MODE>(dest, input.as_ptr().add(base), WINDOW);
        }
    }
}

/// Writes the `count` bytes at `src` (all below 0x80) as `count` values of
/// `T` (`SIGNED`: sign-extended from bit 6, into 32- or 64-bit `T`);
/// `count` is a multiple of 16.
///
/// # Safety
/// `src` must be valid for reading `count` bytes and `dest` for writing
/// `count` `T`; the CPU must have AVX-512 F/BW/VL.
#[inline(always)]
unsafe fn store_one_byte_values<T: VarInt, const MODE: u8>(
    dest: *mut T,
    src: *const u8,
    count: usize,
) {
    // SAFETY: `count` readable bytes at `src`, `count` writable `T` at `dest`
    // and the CPU features (caller); every access below is inside them.
    unsafe {
        for i in (0..count).step_by(16) {
            let mut bytes = _mm_loadu_si128(src.add(i).cast());
            if MODE == SIGNED {
                // (b ^ 0x40) - 0x40: b - 128 where bit 6 is set, else b;
                // the widening below copies bit 7.
                let bit6 = _mm_set1_epi8(0x40);
                bytes = _mm_sub_epi8(_mm_xor_si128(bytes, bit6), bit6);
            }
            match core::mem::size_of::<T>() {
                8 => {
                    let dest = dest.cast::<u64>().add(i);
                    let (low, high) = if MODE == SIGNED {
                        (
                            _mm512_cvtepi8_epi64(bytes),
                            _mm512_cvtepi8_epi64(_mm_srli_si128::<8>(bytes)),
                        )
                    } else {
                        (
                            _mm512_cvtepu8_epi64(bytes),
                            _mm512_cvtepu8_epi64(_mm_srli_si128::<8>(bytes)),
                        )
                    };
                    _mm512_storeu_si512(dest.cast(), low);
                    _mm512_storeu_si512(dest.add(8).cast(), high);
                }
                4 => _mm512_storeu_si512(
                    dest.cast::<u32>().add(i).cast(),
                    if MODE == SIGNED {
                        _mm512_cvtepi8_epi32(bytes)
                    } else {
                        _mm512_cvtepu8_epi32(bytes)
                    },
                ),
                2 => _mm256_storeu_si256(
                    dest.cast::<u16>().add(i).cast(),
                    _mm256_cvtepu8_epi16(bytes),
                ),
                _ => _mm_storeu_si128(dest.cast::<u8>().add(i).cast(), bytes),
            }
        }
    }
}
