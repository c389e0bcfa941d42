//! The portable bulk decoder behind [`Backend::Scalar`](crate::Backend::Scalar)
//! (see [`decode_slice_scalar`]): a terminator bitmap per 64-byte block,
//! then one independent 8-byte word step per value, so that no value's
//! load waits for the previous value's length.

use core::mem::MaybeUninit;

use crate::arch::scalar::{self, scalar_values};
use crate::arch::selected;
use crate::error::BulkDecodeError;
use crate::varint::{self, VarInt, PAYLOAD_BITS};

/// The portable bulk decoder: a terminator bitmap per 64-byte block, then
/// one independent word step per value.
///
/// Decoding value by value, each length must be known before the next
/// value's load can start: a chain of load, mask, `tzcnt` and add of about
/// 12 cycles per value. This decoder breaks the chain the way the SIMD
/// backends do: for each [`BLOCK`]-byte block it first computes the bitmap
/// of the bytes without a continuation bit ([`terminator_mask`]: four
/// SSE2 `pmovmskb` on x86-64, a multiply-gather per word elsewhere). The
/// varints' ends are the set bits of that bitmap, in order, so finding the
/// next one is a `tzcnt` and a clear-lowest-bit (`blsr`), one cycle of
/// chain per value, and the next value starts after it. Each value
/// ([`word_step`]) is then an 8-byte little-endian load at its start that
/// nothing later waits for, its payload bits selected by a mask indexed by
/// its length and packed (one `PEXT` where the build has BMI2 and it is
/// fast, see `arch::selected::pack_masked`; three shift-and-mask steps
/// otherwise).
/// The loop is bound by throughput, not by a latency chain: x86-64 with
/// BMI2, 13 instructions per value (`tzcnt` and `PEXT` both on port 1),
/// which `llvm-mca -mcpu=icelake-server` puts at 2.8 cycles per value
/// without mispredicts. This replaced four interleaved streams of the
/// chained step (and the `count_varints` pass that placed their outputs).
///
/// Varints of 9 or 10 bytes take a branch. It mispredicts on the mix's 5%
/// of 10-byte values, but its condition comes from the bitmap, not from a
/// load, so it resolves soon after it issues. Computing bytes 8 and 9 for
/// every value instead (a table-masked 2-byte pack: 5 more instructions,
/// one more on port 1) measured slower on the mix (one A/B, native build:
/// 475 against 505 M values/s). The other data-dependent branch is the end
/// of each block's loop (one mispredict per block). Those mispredicts are
/// most of the gap between the 2.8 cycles above and the ~5 measured.
///
/// Blocks with at least [`PAIRS_MIN`] values (the mix has ~32, full-width
/// u32s ~13) take [`pair_values`] instead: their lengths are checked once
/// on the bitmap, then the values are decoded two per iteration, with the
/// overflow checks accumulated per block (native build, in-process A/B,
/// 50k-value buffers: mix 1.09-1.13x, uniform u32 1.08x; sparser blocks,
/// like uniform u64s, keep the loop above: 0.95x there).
///
/// A block whose 64 bytes all end a varint, with no varint carried into it
/// from the previous block, holds 64 one-byte values: they are widened
/// without the value loop (a vector loop; native build, uniform 1-byte
/// values: 1.4-1.6x, default build 10x). The test costs one predictable
/// branch per block elsewhere.
///
/// A value longer than `T::MAX_LEN` or above `T::MAX`, and a block with
/// more values than `out` has room for, stop the blocks; the rest of the
/// input (at least the last [`BLOCK_SLACK`] bytes) goes to
/// [`scalar_values`], so results and errors are exactly those of the
/// value-by-value reference.
pub(crate) fn decode_slice_scalar<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    if input.len() < BLOCK + BLOCK_SLACK {
        // No whole block with its slack.
        return tail_values(input, 0, out, 0, usize::MAX);
    }
    // One run-time check per call where the build has BMI2 but cannot know
    // whether `PEXT` is fast (`arch::selected`); none in other builds.
    let (written, pos) = if selected::pext_is_fast() {
        decode_blocks::<T, true>(input, out)
    } else {
        decode_blocks::<T, false>(input, out)
    };
    let (n, consumed) = tail_values(input, pos, out, written, usize::MAX)?;
    Ok((written + n, pos + consumed))
}

/// A few bytes' worth of varints (at most [`BYTEWISE_MAX_BYTES`]), decoded
/// as a protobuf runtime's loop does: a predicted 1-byte test, else the
/// varint byte by byte. At this size the loop costs less than any set-up
/// (measured: BENCHMARKS.md, "Short inputs"). A varint it does not finish
/// (longer than `T::MAX_LEN`, above `T::MAX` or a 10th byte above 1, cut off)
/// is left, with the rest, to [`scalar_values`], so results and errors are
/// the reference's. Always inlined: at one to a few values the call and
/// its result through memory cost as much as the decoding.
#[inline(always)]
pub(crate) fn bytewise_values<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    let mut at = 0;
    let mut n = 0;
    'values: while let (Some(&byte), Some(slot)) = (input.get(at), out.get_mut(n)) {
        if byte < 0x80 {
            slot.write(T::from_u64_unchecked(u64::from(byte)));
            at += 1;
            n += 1;
            continue;
        }
        let mut value = u64::from(byte & 0x7f);
        let mut len = 1;
        loop {
            if len >= T::MAX_LEN {
                break 'values;
            }
            let Some(&next) = input.get(at + len) else {
                break 'values;
            };
            // A 10th byte carries bit 63 only: above 1 it overflows.
            if len == 9 && next > 1 {
                break 'values;
            }
            value |= u64::from(next & 0x7f) << (7 * len);
            len += 1;
            if next < 0x80 {
                break;
            }
        }
        let Ok((value, _)) = varint::narrow::<T>(value, len) else {
            break;
        };
        slot.write(value);
        at += len;
        n += 1;
    }
    if at == input.len() || n == out.len() {
        return Ok((n, at));
    }
    let (m, consumed) = scalar_values(input, at, out, n, usize::MAX)?;
    Ok((n + m, at + consumed))
}

/// The leading part of a short input (8 bytes or more) of mostly 1-byte
/// varints (a packed field of enums, bools or small counts), decoded a
/// word at a time: returns (values, bytes) decoded, which the caller's
/// byte loop ([`bytewise_values`]) continues from; (0, 0) if the first
/// word does not look so (more than one continuation byte in its first
/// or last 8 bytes), so that other shapes pay one test.
///
/// Each step loads 8 bytes. If the rest is 8 to 16 bytes of 1-byte
/// varints (the first and the last 8 bytes, overlapping, have no
/// continuation bit) both words are widened into the values, the last
/// one ending with the rest: a packed field of 9 to 16 enums is one test
/// and four stores. Otherwise the word is widened into 8 slots (where
/// `out` has them) and the step keeps its leading run of 1-byte varints;
/// a varint of 2 to 8 bytes after it is packed from the 8 bytes at its
/// start. The byte loop, one predicted branch per value, took 14 ns for
/// 16 enums where a prost loop took 23 (Zen 3, loaded host); see
/// BENCHMARKS.md, "Delta-coded lists and short 1-byte runs".
#[inline(always)]
pub(crate) fn one_byte_words<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> (usize, usize) {
    const CONTINUES: u64 = varint::CONTINUATION_BITS;
    let (Some(first), Some(last)) = (input.first_chunk::<8>(), input.last_chunk::<8>()) else {
        return (0, 0);
    };
    let (first, last) = (
        u64::from_le_bytes(*first) & CONTINUES,
        u64::from_le_bytes(*last) & CONTINUES,
    );
    // At most one continuation byte in each (`x & (x - 1)` clears the lowest).
    if first & first.wrapping_sub(1) != 0 || last & last.wrapping_sub(1) != 0 {
        return (0, 0);
    }
    let (mut pos, mut n) = (0, 0);
    loop {
        let rest = &input[pos..];
        let slots = &mut out[n..];
        let (Some(word), Some(last)) = (rest.first_chunk::<8>(), rest.last_chunk::<8>()) else {
            return (n, pos);
        };
        let (word, last) = (u64::from_le_bytes(*word), u64::from_le_bytes(*last));
        if rest.len() <= 16 && (word | last) & CONTINUES == 0 && slots.len() >= rest.len() {
            let tail = rest.len() - 8;
            widen_word(word, &mut slots[..8]);
            widen_word(last, &mut slots[tail..tail + 8]);
            return (n + rest.len(), pos + rest.len());
        }
        let Some(slots) = slots.get_mut(..8) else {
            return (n, pos);
        };
        widen_word(word, slots);
        let continues = word & CONTINUES;
        if continues == 0 {
            pos += 8;
            n += 8;
            continue;
        }
        // The 1-byte varints before the first continuation byte.
        let run = continues.trailing_zeros() as usize / 8;
        let Some(long) = rest.get(run..).and_then(|long| long.first_chunk::<8>()) else {
            return (n + run, pos + run);
        };
        let long = u64::from_le_bytes(*long);
        let ends = !long & CONTINUES;
        let len = ends.trailing_zeros() as usize / 8 + 1;
        // No end in the 8 bytes (a longer varint) gives len 9: left to
        // the byte loop, as are errors.
        if len > 8 {
            return (n + run, pos + run);
        }
        let packed = selected::pack_masked::<false>(long, LOW_PAYLOAD[len]);
        let Ok((value, _)) = varint::narrow::<T>(packed, len) else {
            return (n + run, pos + run);
        };
        slots[run].write(value);
        n += run + 1;
        pos += run + len;
    }
}

/// Writes the 8 bytes of `word` (each below 0x80: 1-byte varints) as the
/// values of the 8 `slots`: on x86-64 SSE2 unpacks against zero and one
/// to four stores.
#[inline(always)]
fn widen_word<T: VarInt>(word: u64, slots: &mut [MaybeUninit<T>]) {
    assert!(slots.len() >= 8);
    #[cfg(all(target_arch = "x86_64", not(varint_turbo_force_scalar)))]
    {
        use core::arch::x86_64::*;
        let dst = slots.as_mut_ptr().cast::<T>();
        // SAFETY: SSE2 is in the x86-64 baseline; the stores write the 8
        // `T` of `slots[..8]` (checked above), unaligned.
        unsafe {
            let zero = _mm_setzero_si128();
            let bytes = _mm_cvtsi64_si128(word as i64);
            let words = _mm_unpacklo_epi8(bytes, zero);
            match core::mem::size_of::<T>() {
                1 => dst.cast::<u64>().write_unaligned(word),
                2 => _mm_storeu_si128(dst.cast(), words),
                4 => {
                    _mm_storeu_si128(dst.cast(), _mm_unpacklo_epi16(words, zero));
                    _mm_storeu_si128(dst.add(4).cast(), _mm_unpackhi_epi16(words, zero));
                }
                _ => {
                    let low = _mm_unpacklo_epi16(words, zero);
                    let high = _mm_unpackhi_epi16(words, zero);
                    _mm_storeu_si128(dst.cast(), _mm_unpacklo_epi32(low, zero));
                    _mm_storeu_si128(dst.add(2).cast(), _mm_unpackhi_epi32(low, zero));
                    _mm_storeu_si128(dst.add(4).cast(), _mm_unpacklo_epi32(high, zero));
                    _mm_storeu_si128(dst.add(6).cast(), _mm_unpackhi_epi32(high, zero));
                }
            }
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(varint_turbo_force_scalar))))]
    for (i, slot) in slots[..8].iter_mut().enumerate() {
        slot.write(T::from_u64_unchecked(word >> (8 * i) & 0xff));
    }
}

/// The largest input [`bytewise_values`] takes for the API's bulk decoders
/// (measured against the block path: BENCHMARKS.md, "Short inputs").
pub(crate) const BYTEWISE_MAX_BYTES: usize = 16;

/// Decodes up to `limit` values from `input[pos..]` into `out[written..]`
/// (until `out` is full or the input ends), exactly as [`scalar_values`]
/// does, for the parts of an input that no block loop takes: a short input
/// whole (a packed field of a few values), the tail of every bulk decoder,
/// the head of the SIMD ones. Returns (values, bytes) decoded by this call.
///
/// [`scalar_values`] takes each value's length from its own load (the
/// branch-free kernel, about 40 instructions and a 12-cycle chain per
/// value, so 63 one-byte values cost ~2,800 instructions). Here up to 64
/// bytes at a time are copied into a zero-padded block; its terminator
/// bitmap, cut at the real bytes, gives every value's end, and the values
/// are [`word_step`]s from the block (no chain from one to the next), with
/// runs of 1-byte varints widened 8 at a time ([`run_values`]), or all at
/// once when every byte is a 1-byte varint; the last 16 bytes or fewer
/// are decoded in a register ([`tiny_values`]). What it cannot
/// take (an error, a varint with no end among the real bytes, a block with
/// no end at all) is left to [`scalar_values`] from that value's start, so
/// results and errors are the reference's.
#[inline(never)]
pub(crate) fn tail_values<T: VarInt>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    limit: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    let end = out.len().min(written.saturating_add(limit));
    let (n, at) = if selected::pext_is_fast() {
        padded_blocks::<T, true>(input, pos, &mut out[..end], written)
    } else {
        padded_blocks::<T, false>(input, pos, &mut out[..end], written)
    };
    if at >= input.len() || written + n >= end {
        // Everything taken, or `out` full: the common case.
        return Ok((n, at - pos));
    }
    let (m, consumed) = scalar_values(input, at, out, written + n, end - (written + n))?;
    Ok((n + m, at + consumed - pos))
}

/// The block part of [`tail_values`]: decodes from `input[pos..]` into
/// `out[written..]` (all of `out` is usable) up to the first value it does
/// not take; returns (values written, position of the next value).
#[inline(always)]
fn padded_blocks<T: VarInt, const PEXT: bool>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
) -> (usize, usize) {
    let out_len = out.len();
    let mut at = pos;
    let mut n = 0;
    loop {
        let rest = &input[at.min(input.len())..];
        let slots = &mut out[(written + n).min(out_len)..];
        if rest.is_empty() || slots.is_empty() {
            return (n, at);
        }
        if rest.len() <= 16 {
            let (values, bytes) = tiny_values::<T, PEXT>(rest, slots);
            return (n + values, at + bytes);
        }
        let bytes = rest.len().min(BLOCK);
        // A window of 16 bytes from any start in the block stays inside.
        let mut padded = [0u8; BLOCK + BLOCK_SLACK];
        padded[..bytes].copy_from_slice(&rest[..bytes]);
        let (block, _) = padded
            .split_first_chunk::<BLOCK>()
            .expect("BLOCK <= padded");
        // The real bytes' bits: `bytes` is 1..=64.
        let real = u64::MAX >> (BLOCK - bytes);
        let ends = terminator_mask(block) & real;
        if ends == real && slots.len() >= bytes {
            // Only 1-byte varints: the bytes are the values.
            for (slot, &byte) in slots.iter_mut().zip(&block[..bytes]) {
                slot.write(T::from_u64_unchecked(u64::from(byte)));
            }
            n += bytes;
            at += bytes;
            continue;
        }
        // Runs of 1-byte values pay for the run steps' spare stores only
        // where most values are 1-byte ones (counts, enums: 95% 1-byte,
        // W = 64: 279 -> 135 ns per call); on mixed lengths (the protobuf
        // mix, int32 with negatives, timestamps) one value per step is
        // 15-30% faster at W = 16-64. The cut: 7 of 8 real bytes end a
        // varint.
        let (values, start, stopped) = if 8 * ends.count_ones() as usize >= 7 * bytes {
            run_values::<T, PEXT>(&padded, ends, slots)
        } else {
            one_by_one::<T, PEXT>(&padded, ends, slots)
        };
        n += values;
        at += start;
        if stopped || start == 0 {
            // An error, `out` full, or no varint ends in the block.
            return (n, at);
        }
    }
}

/// The most 1-byte values [`run_values`] takes per step.
const RUN: usize = 8;

/// The values of `rest` whose ends are the bits of `ends` (at most 64
/// bytes' worth), while their 16-byte window lies inside `rest`, into
/// `slots` (the last [`RUN`] slots one value per step). Returns (values,
/// bytes, whether it stopped at an error, which the caller leaves to the
/// reference).
///
/// Branch-free per step, so that neither mixed lengths nor runs of 1-byte
/// values mispredict: each step widens the [`RUN`] bytes from the value's
/// start into the slots (right if they are 1-byte varints, overwritten
/// later if not) and writes the word step of the value itself over the
/// first; it then moves on by the run of 1-byte varints there (the run of
/// set bits of `ends`, at most [`RUN`]), or by one value if that value is
/// longer. A run of 1-byte values (most of a packed field of counts or
/// enums) costs one step per 8, where a branch per value mispredicts on
/// mixed lengths.
#[inline(always)]
fn run_values<T: VarInt, const PEXT: bool>(
    rest: &[u8],
    mut ends: u64,
    slots: &mut [MaybeUninit<T>],
) -> (usize, usize, bool) {
    let mut start = 0;
    let mut n = 0;
    while ends != 0 {
        // `ends` has no bit below `start`, so `start < 64` here.
        let end = ends.trailing_zeros() as usize;
        let len = end + 1 - start;
        // 1-byte varints from `start` on: 0 if the value there is longer.
        let run = ((!(ends >> start)).trailing_zeros() as usize).min(RUN);
        let Some(window) = rest.get(start..).and_then(|r| r.first_chunk::<16>()) else {
            // The last bytes: the caller's next round.
            return (n, start, false);
        };
        let Some(dst) = slots.get_mut(n..n + RUN) else {
            // Fewer than RUN slots left (`decode_slice` into an `out` of
            // exactly the values' count ends here): the rest one value
            // per step, without spare slots.
            let (values, bytes, stopped) =
                one_by_one::<T, PEXT>(&rest[start..], ends >> start, &mut slots[n..]);
            return (n + values, start + bytes, stopped);
        };
        for (slot, &byte) in dst.iter_mut().zip(&window[..RUN]) {
            slot.write(T::from_u64_unchecked(u64::from(byte)));
        }
        let Some(value) = word_step::<T, PEXT>(window, len) else {
            return (n, start, true);
        };
        dst[0].write(value);
        let (values, bytes) = if run > 0 { (run, run) } else { (1, len) };
        n += values;
        start += bytes;
        ends &= u64::MAX.checked_shl(start as u32).unwrap_or(0);
    }
    (n, start, false)
}

/// [`run_values`] without the spare slots: one word step per value.
#[inline(always)]
fn one_by_one<T: VarInt, const PEXT: bool>(
    rest: &[u8],
    mut ends: u64,
    slots: &mut [MaybeUninit<T>],
) -> (usize, usize, bool) {
    let mut start = 0;
    let mut n = 0;
    for slot in slots.iter_mut() {
        if ends == 0 {
            return (n, start, false);
        }
        let end = ends.trailing_zeros() as usize;
        ends &= ends - 1;
        let Some(window) = rest.get(start..).and_then(|r| r.first_chunk::<16>()) else {
            return (n, start, false);
        };
        let Some(value) = word_step::<T, PEXT>(window, end + 1 - start) else {
            return (n, start, true);
        };
        slot.write(value);
        start = end + 1;
        n += 1;
    }
    // `out` is full.
    (n, start, ends != 0)
}

/// [`padded_blocks`] for the last 16 bytes or fewer, in registers: the
/// bytes are loaded without a store (a copy into a zeroed buffer followed
/// by 16-byte loads of it stalls on store forwarding: 1-4 byte inputs took
/// 31 ns against 23 ns for 16 bytes), and each value's window is the
/// 128-bit word shifted to its start. Returns (values, bytes) decoded,
/// stopping where [`padded_blocks`] would.
#[inline(always)]
fn tiny_values<T: VarInt, const PEXT: bool>(
    rest: &[u8],
    slots: &mut [MaybeUninit<T>],
) -> (usize, usize) {
    let all = load_up_to_16(rest);
    // The real bytes' bits: `rest.len()` is 1..=16.
    let real = u64::MAX >> (64 - rest.len());
    let mut ends = !continuation_bits_16(all) & real;
    if ends == real && slots.len() >= rest.len() {
        // Only 1-byte varints: the bytes are the values.
        for (slot, &byte) in slots.iter_mut().zip(rest) {
            slot.write(T::from_u64_unchecked(u64::from(byte)));
        }
        return (rest.len(), rest.len());
    }
    let mut start = 0;
    let mut n = 0;
    for slot in slots.iter_mut() {
        if ends == 0 {
            break;
        }
        let end = ends.trailing_zeros() as usize;
        ends &= ends - 1;
        let len = end + 1 - start;
        // Bytes past the input are zero.
        let word = (all >> (8 * start)) as u64;
        let value = if len == 1 {
            T::from_u64_unchecked(word & 0x7f)
        } else if len <= 8 && len <= T::MAX_LEN {
            let packed = selected::pack_masked::<PEXT>(word, LOW_PAYLOAD[len]);
            let Ok((value, _)) = varint::narrow::<T>(packed, len) else {
                break;
            };
            value
        } else {
            // 9 and 10 bytes (or too long for `T`, which `word_step`
            // rejects): the word step on the bytes from `start`, zero past
            // the input.
            let window = (all >> (8 * start)).to_le_bytes();
            let Some(value) = word_step::<T, PEXT>(&window, len) else {
                break;
            };
            value
        };
        slot.write(value);
        start = end + 1;
        n += 1;
    }
    (n, start)
}

/// The bytes of `bytes` (at most 16) as a little-endian `u128`, zero past
/// them, from at most two overlapping loads: no byte loop, no store.
#[inline(always)]
fn load_up_to_16(bytes: &[u8]) -> u128 {
    let len = bytes.len();
    debug_assert!(len <= 16);
    if let (Some(low), Some(high)) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        // `high` holds bytes len - 8..len: its top `len - 8` bytes are the
        // ones above `low`.
        let low = u64::from_le_bytes(*low);
        let high = u64::from_le_bytes(*high)
            .checked_shr(8 * (16 - len) as u32)
            .unwrap_or(0);
        u128::from(low) | u128::from(high) << 64
    } else if let (Some(low), Some(high)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        // 4..=7 bytes: two overlapping loads agree where they overlap.
        let low = u64::from(u32::from_le_bytes(*low));
        let high = u64::from(u32::from_le_bytes(*high)) << (8 * (len - 4));
        u128::from(low | high)
    } else if let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) {
        // 1..=3 bytes: the first, the middle and the last.
        let middle = u64::from(bytes[len / 2]) << (8 * (len / 2));
        u128::from(u64::from(first) | middle | u64::from(last) << (8 * (len - 1)))
    } else {
        0
    }
}

/// Bit `i` set if byte `i` of `all` has its continuation bit.
#[inline(always)]
fn continuation_bits_16(all: u128) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(varint_turbo_force_scalar)))]
    {
        use core::arch::x86_64::{_mm_movemask_epi8, _mm_set_epi64x};
        // SAFETY: SSE2 is in the x86-64 baseline.
        let bits = unsafe { _mm_movemask_epi8(_mm_set_epi64x((all >> 64) as i64, all as i64)) };
        u64::from(bits as u16)
    }
    #[cfg(not(all(target_arch = "x86_64", not(varint_turbo_force_scalar))))]
    {
        // Each byte's top bit moved to bit 0, then gathered into the top
        // byte by one multiplication (byte i lands on bit 56 + i).
        let gather = |word: u64| {
            ((word >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56
        };
        gather(all as u64) | gather((all >> 64) as u64) << 8
    }
}

/// Bytes per terminator bitmap of [`decode_slice_scalar`]: one `u64`.
pub(crate) const BLOCK: usize = 64;
/// Readable bytes the blocks need after their end: a varint ending in a
/// block starts at most 9 bytes before its end, and [`word_step`] reads
/// the 16 bytes from its start (8 for the word, 2 more for a long varint;
/// a whole window keeps the bounds checks out of the loop).
pub(crate) const BLOCK_SLACK: usize = 16;

/// The block part of [`decode_slice_scalar`]: decodes every value that
/// ends inside a whole block followed by [`BLOCK_SLACK`] readable bytes,
/// until a value it cannot decode (an error, which the caller reports) or
/// a block with more values than `out` has room for. Returns (values
/// written, input position of the next value): everything before both is
/// exactly what the reference decodes. Slots after the values written may
/// have been overwritten ([`pair_values`]' spare slot).
#[inline(always)]
fn decode_blocks<T: VarInt, const PEXT: bool>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> (usize, usize) {
    let mut written = 0;
    // Start of the next varint; it may lie in an earlier block than its end.
    let mut start = 0;
    let mut block_at = 0;
    while let Some(blocks) = input.get(block_at..block_at + BLOCK + BLOCK_SLACK) {
        let Some(block) = blocks.first_chunk::<BLOCK>() else {
            break;
        };
        let mut ends = terminator_mask(block);
        let count = ends.count_ones() as usize;
        let Some(slots) = out.get_mut(written..written + count) else {
            break;
        };
        if let (u64::MAX, true, Some(slots)) =
            (ends, start == block_at, slots.first_chunk_mut::<BLOCK>())
        {
            widen_block(block, slots);
            written += BLOCK;
            block_at += BLOCK;
            start = block_at;
            continue;
        }
        if count >= PAIRS_MIN && longest_run_ok::<T>(ends, block_at - start) {
            // Room for the pair loop's spare slot too.
            if let Some(slots) = out.get_mut(written..written + count + 1) {
                let Some(next) = pair_values::<T, PEXT>(input, block_at, start, ends, slots) else {
                    // An overflow: the caller decodes the block again.
                    return (written, start);
                };
                written += count;
                start = next;
                block_at += BLOCK;
                continue;
            }
        }
        let Some(slots) = out.get_mut(written..written + count) else {
            break;
        };
        for (i, slot) in slots.iter_mut().enumerate() {
            // `ends` has `count` set bits, one per slot: never 0 here.
            let Some(lowest) = lowest_bit(ends) else {
                return (written + i, start);
            };
            let end = block_at + lowest;
            ends &= ends.wrapping_sub(1);
            let next = end + 1;
            debug_assert!(start <= end && end + BLOCK_SLACK < input.len());
            // `start <= end`: `start` follows the previous end, and `end`
            // is the first terminator after it. `end < block_at + BLOCK`
            // and `block_at + BLOCK + BLOCK_SLACK <= input.len()` (the
            // `get` above), so `start + 16 <= input.len()`.
            // SAFETY: hence `input[start..start + 16]` is in bounds.
            let window = unsafe { &*input.as_ptr().add(start).cast::<[u8; 16]>() };
            let Some(value) = word_step::<T, PEXT>(window, next - start) else {
                return (written + i, start);
            };
            slot.write(value);
            start = next;
        }
        written += count;
        block_at += BLOCK;
    }
    (written, start)
}

/// 64 one-byte varints: the bytes (below 128, so they fit every `T`) are
/// the values, widened by a vector loop. Out of line, so that the value
/// loops keep their registers.
#[inline(never)]
fn widen_block<T: VarInt>(block: &[u8; BLOCK], slots: &mut [MaybeUninit<T>; BLOCK]) {
    for (slot, &byte) in slots.iter_mut().zip(block) {
        slot.write(T::from_u64_unchecked(u64::from(byte)));
    }
}

/// Blocks with at least this many values take [`pair_values`]; sparser
/// ones (full-width u64s: ~6.5 values per block) the value-by-value loop,
/// for which the pair loop's per-block checks and spare value cost more
/// than its saved loop overhead (uniform u64: 0.88-0.93x).
const PAIRS_MIN: usize = 8;

/// The values of a block of [`decode_blocks`] whose `ends` has at least
/// [`PAIRS_MIN`] bits and passed [`longest_run_ok`], from `start`, into
/// `slots` (`count + 1` of them): the start of the next value, or `None`
/// on an overflow (the caller then leaves the block to the reference).
///
/// The lengths are checked on the bitmap, so the loop has no length test
/// and indexes [`LOW_PAYLOAD`] unchecked. The values are decoded in pairs
/// (two `tzcnt`/`blsr` on the same bitmap), `ceil(count / 2)` iterations:
/// for an odd count the last pair's second value is a spare one, decoded
/// from `tzcnt(0)` = 64 into the slot after the block's values (which the
/// next block overwrites), and the next value's start comes from the
/// bitmap's highest bit instead. A value above `T::MAX` (or a 10th byte
/// above 1) only sets bits in an accumulator, checked once per block.
#[inline(never)]
fn pair_values<T: VarInt, const PEXT: bool>(
    input: &[u8],
    block_at: usize,
    start: usize,
    ends: u64,
    slots: &mut [MaybeUninit<T>],
) -> Option<usize> {
    let dst = slots.as_mut_ptr();
    // `next = base + tzcnt`: the position after a terminator.
    let base = block_at + 1;
    let mut bits = ends;
    let mut from = start;
    let mut i = 0;
    let mut over = 0u64;
    loop {
        let next0 = base + trailing_zeros(bits);
        bits &= bits.wrapping_sub(1);
        // May be the spare value (`bits` was 0: `next1 = block_at + 65`).
        let next1 = base + trailing_zeros(bits);
        bits &= bits.wrapping_sub(1);
        let value0 = block_value::<T, PEXT>(input, from, next0, &mut over);
        let value1 = block_value::<T, PEXT>(input, next0, next1, &mut over);
        // `i + 1 < count + 1 = slots.len()`: the loop runs
        // `ceil(count / 2)` times (`bits` loses two set bits per pass).
        // SAFETY: hence slots `i` and `i + 1` are in `slots`.
        unsafe {
            (*dst.add(i)).write(value0);
            (*dst.add(i + 1)).write(value1);
        }
        from = next1;
        i += 2;
        if bits == 0 {
            break;
        }
    }
    let overflow = if T::MAX_U64 == u64::MAX {
        over != 0
    } else {
        over > T::MAX_U64
    };
    if overflow {
        return None;
    }
    // After the block's last terminator (`ends != 0`).
    Some(block_at + BLOCK - ends.leading_zeros() as usize)
}

/// Whether every varint that ends in a block with terminator bitmap
/// `ends`, the first of which began `carry` bytes before the block, is at
/// most `T::MAX_LEN` bytes long, and no run of continuation bytes in the
/// block (one that runs off its end included) reaches `T::MAX_LEN` bytes.
/// False for a block without terminators.
///
/// Such a run is an error wherever it ends, so [`decode_blocks`] can stop
/// at the block that holds it; together with the first varint's length
/// this bounds every length the block's loop computes (its spare value's
/// included: that one runs from the last terminator to the block's end)
/// by `T::MAX_LEN`. The run test is a logarithmic AND of shifted copies
/// of the continuation bitmap: bit `i` of `runs_k` is set if bytes
/// `i..i + k` all continue.
#[inline(always)]
fn longest_run_ok<T: VarInt>(ends: u64, carry: usize) -> bool {
    let first = carry + ends.trailing_zeros() as usize;
    let continues = !ends;
    let runs_2 = continues & continues >> 1;
    let long_run = match T::MAX_LEN {
        2 => runs_2,
        3 => runs_2 & continues >> 2,
        5 => {
            let runs_4 = runs_2 & runs_2 >> 2;
            runs_4 & continues >> 4
        }
        10 => {
            let runs_4 = runs_2 & runs_2 >> 2;
            let runs_8 = runs_4 & runs_4 >> 4;
            runs_8 & runs_2 >> 8
        }
        // Not a width of u8..u64 (or usize): one shift per byte.
        _ => (1..T::MAX_LEN).fold(continues, |runs, k| runs & continues >> k),
    };
    first < T::MAX_LEN && long_run == 0
}

/// `trailing_zeros`, 64 for 0, in one instruction where it can be: `tzcnt`
/// with BMI1; else `bsf`, which is undefined for 0, on `bits | 1 << 63`
/// (63 for 0, which [`decode_blocks`]'s spare value takes as well as 64).
#[inline(always)]
fn trailing_zeros(bits: u64) -> usize {
    if cfg!(target_feature = "bmi1") {
        bits.trailing_zeros() as usize
    } else {
        (bits | 1 << 63).trailing_zeros() as usize
    }
}

/// The index of the lowest set bit of `bits` (64 or `None` if it is 0,
/// which the caller rules out).
#[inline(always)]
fn lowest_bit(bits: u64) -> Option<usize> {
    if cfg!(target_feature = "bmi1") {
        // `tzcnt`, defined for 0: no test.
        Some(bits.trailing_zeros() as usize)
    } else {
        // `bsf` is undefined for 0, so the compiler would add a `cmov` of
        // 64 (or, for `(bits | 1 << 63)`, a 10-byte constant and an `or`
        // in the loop); a test that never fails is one fused uop.
        core::num::NonZeroU64::new(bits).map(|bits| bits.trailing_zeros() as usize)
    }
}

/// Bit `i` set if `input[i]` ends a varint, for its first 16 bytes; `None`
/// if `input` is shorter: the sample from which the bulk dispatch guesses
/// the lengths of an input's varints. One SSE2 `pmovmskb` on x86-64 (a
/// 64-byte sample cost 7 ns more per call on Zen 1, touching the input's
/// later cache lines before the kernel does).
#[inline(always)]
pub(crate) fn first_16_terminators(input: &[u8]) -> Option<u16> {
    let first = input.first_chunk::<16>()?;
    #[cfg(all(target_arch = "x86_64", not(varint_turbo_force_scalar)))]
    {
        use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8};
        // SAFETY: 16 readable bytes, no alignment needed; SSE2 is baseline.
        let continues =
            unsafe { _mm_movemask_epi8(_mm_loadu_si128(first.as_ptr().cast::<__m128i>())) };
        Some(!(continues as u16))
    }
    #[cfg(not(all(target_arch = "x86_64", not(varint_turbo_force_scalar))))]
    {
        Some(
            first
                .iter()
                .enumerate()
                .fold(0u16, |mask, (i, &byte)| mask | u16::from(byte < 0x80) << i),
        )
    }
}

/// Bit `i` set if `block[i]` has no continuation bit (ends a varint).
///
/// x86-64: four SSE2 `pmovmskb` (SSE2 is in the x86-64 baseline), about 15
/// instructions per block; elsewhere [`terminator_mask_portable`].
#[inline(always)]
pub(crate) fn terminator_mask(block: &[u8; BLOCK]) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(varint_turbo_force_scalar)))]
    {
        use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8};
        let mut continues = 0u64;
        for (i, chunk) in block.chunks_exact(16).enumerate() {
            let bytes = chunk.as_ptr().cast::<__m128i>();
            // SAFETY: 16 readable bytes, no alignment needed; SSE2 is baseline.
            let bits = unsafe { _mm_movemask_epi8(_mm_loadu_si128(bytes)) };
            continues |= u64::from(bits as u16) << (16 * i);
        }
        !continues
    }
    #[cfg(not(all(target_arch = "x86_64", not(varint_turbo_force_scalar))))]
    {
        terminator_mask_portable(block)
    }
}

/// [`terminator_mask`] without SIMD: per 8-byte word, the bytes without a
/// continuation bit (`!word & 0x80..80`) are gathered into 8 bits by one
/// multiplication (see inside).
#[cfg_attr(
    all(target_arch = "x86_64", not(varint_turbo_force_scalar)),
    allow(dead_code)
)]
#[inline(always)]
fn terminator_mask_portable(block: &[u8; BLOCK]) -> u64 {
    let mut mask = 0u64;
    for (i, chunk) in block.chunks_exact(8).enumerate() {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(chunk);
        // Bit 8i set if byte i ends a varint.
        let stops = (!u64::from_le_bytes(bytes) & varint::CONTINUATION_BITS) >> 7;
        // Times the sum of 2^(56 - 7j), j = 0..8: the product of bit 8i
        // and term j is bit 56 + 8i - 7j, which is in 56..64 only for
        // i = j (bit 56 + i); no two products share a bit (8(i - i') =
        // 7(j - j') has no other solution in 0..8), so nothing carries.
        let gathered = stops.wrapping_mul(0x0102_0408_1020_4080) >> 56;
        mask |= gathered << (8 * i);
    }
    mask
}

/// `LOW_PAYLOAD[len]`: the payload bits of bytes `0..len` of a word (all
/// 8 for `len` >= 8). `HIGH_PAYLOAD[len]`: those of bytes `8..len` of a
/// 16-byte window, as a little-endian `u16` (none for `len` <= 8).
/// Indexed by lengths `0..=10`.
pub(crate) const LOW_PAYLOAD: [u64; 11] = {
    let mut masks = [PAYLOAD_BITS; 11];
    let mut len = 0;
    while len < 8 {
        masks[len] = PAYLOAD_BITS & ((1 << (8 * len)) - 1);
        len += 1;
    }
    masks
};
const HIGH_PAYLOAD: [u64; 11] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 0x7f7f];

/// Decodes the varint of `len` bytes at the start of `window` (its last
/// byte, and only that one, has no continuation bit: the bitmap says so)
/// as [`scalar::decode`] does, or `None` on an error (the caller's
/// fallback then reports it): longer than `T::MAX_LEN`, above `T::MAX`,
/// or a 10th byte above 1.
#[inline(always)]
fn word_step<T: VarInt, const PEXT: bool>(window: &[u8; 16], len: usize) -> Option<T> {
    if len > T::MAX_LEN {
        return None;
    }
    let word = scalar::single::first_word(window);
    let low = selected::pack_masked::<PEXT>(word, LOW_PAYLOAD[len]);
    if T::MAX_LEN <= 8 || len <= 8 {
        return varint::narrow::<T>(low, len).ok().map(|(v, _)| v);
    }
    let top = u64::from(u16::from_le_bytes([window[8], window[9]]));
    // The 7-bit groups of bytes 8 and 9: 8 bits at most are valid (a 10th
    // byte above 1 overflows, as in `scalar::decode_long`).
    let high = pack_two::<PEXT>(top, HIGH_PAYLOAD[len]);
    if high > 0xff {
        return None;
    }
    varint::narrow::<T>(low | high << 56, len)
        .ok()
        .map(|(v, _)| v)
}

/// `pack_masked` for a `mask` within the low 2 bytes.
#[inline(always)]
fn pack_two<const PEXT: bool>(x: u64, mask: u64) -> u64 {
    if PEXT {
        selected::pack_masked::<PEXT>(x, mask)
    } else {
        let x = x & mask;
        (x & 0x7f) | (x >> 1 & 0x3f80)
    }
}

/// Decodes the varint `input[from..next]` for [`decode_blocks`], which
/// has checked (on the bitmap) that `next - from <= T::MAX_LEN` and that
/// only its last byte has no continuation bit; `input[from..from + 16]`
/// must be readable. An overflow sets bits of `over` (above `T::MAX`, or
/// any bit for `u64`) instead of returning an error.
///
/// One 8-byte load, the payload bits of its first `len` bytes packed
/// (`PEXT` where the build has fast BMI2, see `arch::selected::pack_masked`;
/// three shift-and-mask steps otherwise). Varints of 9 or 10 bytes take a
/// branch to add bytes 8 and 9. It mispredicts on the mix's 5% of long
/// values, but its condition comes from the bitmap, not from a load, so it
/// resolves soon after it issues. Computing bytes 8 and 9 for every value
/// instead (a table-masked 2-byte pack: 5 more instructions, one more on
/// port 1) measured slower on the mix (one A/B, native build: 475 against
/// 505 M values/s).
#[inline(always)]
fn block_value<T: VarInt, const PEXT: bool>(
    input: &[u8],
    from: usize,
    next: usize,
    over: &mut u64,
) -> T {
    let len = next - from;
    debug_assert!(len <= T::MAX_LEN && from + BLOCK_SLACK <= input.len());
    // SAFETY: `from + 16 <= input.len()` (the caller's block check).
    let window = unsafe { &*input.as_ptr().add(from).cast::<[u8; 16]>() };
    let word = scalar::single::first_word(window);
    // SAFETY: `len <= T::MAX_LEN <= 10` (`longest_run_ok`), within the table.
    let mask = unsafe { *LOW_PAYLOAD.get_unchecked(len) };
    let mut value = selected::pack_masked::<PEXT>(word, mask);
    if T::MAX_LEN > 8 && len > 8 {
        // Bytes 8 and 9 (the 10th only for `len == 10`): 8 payload bits at
        // most are valid; a 10th byte above 1 overflows, as in
        // `scalar::decode_long`.
        let top = u64::from(u16::from_le_bytes([window[8], window[9]]));
        // SAFETY: `len <= 10`, as above.
        let high = pack_two::<PEXT>(top, unsafe { *HIGH_PAYLOAD.get_unchecked(len) });
        *over |= high >> 8;
        value |= high << 56;
    }
    if T::MAX_U64 != u64::MAX {
        *over |= value;
    }
    T::from_u64_unchecked(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both terminator bitmaps against a byte loop, on blocks of bytes
    /// from a xorshift generator with each byte's top bit drawn with
    /// probability 1/2 (and blocks of all-terminators, all-continuations).
    #[test]
    fn terminator_masks_match_a_byte_loop() {
        let naive = |block: &[u8; BLOCK]| {
            (0..BLOCK).fold(0u64, |mask, i| mask | u64::from(block[i] < 0x80) << i)
        };
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..10_000 {
            let mut block = [0u8; BLOCK];
            for byte in &mut block {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *byte = match round {
                    0 => 0x7f,
                    1 => 0x80,
                    _ => (seed >> 24) as u8,
                };
            }
            assert_eq!(terminator_mask(&block), naive(&block), "{block:?}");
            assert_eq!(terminator_mask_portable(&block), naive(&block), "{block:?}");
        }
    }
}
