//! Signed LEB128 (WebAssembly's `s32`/`s64`, DWARF's SLEB128) on the
//! scalar backend: the reference of the [`sleb128`](crate::sleb128) module.
//!
//! A signed varint is the unsigned one of its two's complement, cut to
//! `7 * len` bits: its value is the unsigned payload sign-extended from bit
//! `7 * len - 1`, which is bit 6 of its last byte. So every decoder here
//! finds the length as the unsigned ones do (the first byte without a
//! continuation bit of an 8-byte word, or of a terminator bitmap), packs
//! the 7-bit groups the same way (`PEXT` where it is fast, three
//! shift-and-mask steps otherwise) and sign-extends with one left shift and
//! one arithmetic right shift by `64 - 7 * len`.
//!
//! WebAssembly's rules (gimli's too): an `i32` has at most 5 bytes, an
//! `i64` at most 10, and in the last byte the bits beyond the type's width
//! must all equal the sign bit. For `i32` that is "the 35-bit value
//! sign-extended fits `i32`"; for `i64` the 10th byte is `0x00` or `0x7f`.
//!
//! * [`decode`]: one value from a slice, without a copy (fewer than 8 bytes
//!   are read as a zero-padded word, as `window` does for unsigned ones).
//! * [`encode_words`]: the shortest encoding, branch-free up to 8 bytes;
//!   its length is the unsigned length of the zigzag form (one sign bit
//!   more than the magnitude's bits, rounded up to 7-bit groups).
//! * [`decode_values`]: the value-by-value bulk reference, which reports
//!   every bulk error.
//! * [`decode_slice`]: the scalar bulk decoder: a terminator bitmap per
//!   64-byte block and one independent word step per value, as
//!   `decode_slice_scalar` does for unsigned varints.
//! * [`sign_values`]: the step that turns the unsigned decode of signed
//!   varints into their values, for the SIMD backends, whose unsigned
//!   kernels find the varints (see the `sleb128` module).

use core::mem::MaybeUninit;

use crate::arch::scalar::decode_slice::{terminator_mask, BLOCK, BLOCK_SLACK, LOW_PAYLOAD};
use crate::arch::scalar::single::{first_word, spread_low_56_bits, stop_bits};
use crate::arch::selected;
use crate::arch::window::word_of_short;
use crate::error::{BulkDecodeError, DecodeError};
use crate::sleb128_int::SignedLeb128;
use crate::varint::{Sealed as _, CONTINUATION_BITS, PAYLOAD_BITS};

/// The continuation bits of bytes 0..5 of a word: where an `i32`'s varint
/// must end.
const FIVE_BYTE_STOPS: u64 = 0x80_8080_8080;

/// The low `7 * len` bits of `raw` (`len` in 1..=9), sign-extended from
/// bit `7 * len - 1`.
#[inline(always)]
pub(crate) fn sign_extend(raw: u64, len: usize) -> i64 {
    let shift = 64 - 7 * len as u32;
    ((raw << shift) as i64) >> shift
}

/// The value of a varint of `len` bytes (1..=8) whose bytes are the low
/// `len` bytes of `word` (higher bytes are ignored), or `None` if it does
/// not fit `T` (only a 5-byte `i32` can fail).
#[inline(always)]
fn short_value<T: SignedLeb128, const PEXT: bool>(word: u64, len: usize) -> Option<T> {
    let raw = selected::pack_masked::<PEXT>(word, LOW_PAYLOAD[len]);
    let value = sign_extend(raw, len);
    if T::MAX_LEN == 5 && !T::fits(value) {
        return None;
    }
    Some(T::from_i64_unchecked(value))
}

/// The value of a varint whose first 8 bytes all continue, from their
/// packed payload `low` and bytes 8 and 9 (zero past the input): 9 bytes
/// (63 bits, sign-extended) or 10 (the 10th byte must be `0x00` or `0x7f`,
/// the sign of bit 63 repeated). Only for `i64`: an `i32` ends by byte 5.
#[inline(always)]
fn long_value<T: SignedLeb128>(
    low: u64,
    byte_8: u8,
    byte_9: u8,
) -> Result<(T, usize), DecodeError> {
    if T::MAX_LEN <= 8 {
        return Err(DecodeError::Overflow);
    }
    if byte_8 < 0x80 {
        let raw = low | u64::from(byte_8) << 56;
        return Ok((T::from_i64_unchecked(sign_extend(raw, 9)), 9));
    }
    if byte_9 != 0x00 && byte_9 != 0x7f {
        return Err(DecodeError::Overflow);
    }
    let raw = low | u64::from(byte_8 & 0x7f) << 56 | u64::from(byte_9 & 1) << 63;
    Ok((T::from_i64_unchecked(raw as i64), 10))
}

/// Decodes the varint whose first 8 bytes are `word` (zero past the input)
/// and whose bytes 8 and 9 `high` returns; the length may exceed the input,
/// which the caller reports as [`DecodeError::Truncated`] (a zero pad byte
/// ends a varint as a positive value: it never makes one overflow).
#[inline(always)]
fn decode_word<T: SignedLeb128, const PEXT: bool>(
    word: u64,
    high: impl FnOnce() -> (u8, u8),
) -> Result<(T, usize), DecodeError> {
    let mut stops = stop_bits(word);
    if T::MAX_LEN == 5 {
        stops &= FIVE_BYTE_STOPS;
    }
    if stops != 0 {
        let len = stops.trailing_zeros() as usize / 8 + 1;
        return match short_value::<T, PEXT>(word, len) {
            Some(value) => Ok((value, len)),
            None => Err(DecodeError::Overflow),
        };
    }
    let (byte_8, byte_9) = high();
    long_value(
        selected::pack_masked::<PEXT>(word, PAYLOAD_BITS),
        byte_8,
        byte_9,
    )
}

/// Decodes one signed varint from the start of `input` (the rules of the
/// `sleb128` module); never reads outside `input`.
#[inline]
pub(crate) fn decode<T: SignedLeb128>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    if selected::pext_is_fast() {
        decode_input::<T, true>(input)
    } else {
        decode_input::<T, false>(input)
    }
}

/// [`decode`] with the packing chosen.
#[inline(always)]
fn decode_input<T: SignedLeb128, const PEXT: bool>(
    input: &[u8],
) -> Result<(T, usize), DecodeError> {
    let word = match input.first_chunk::<8>() {
        Some(first) => u64::from_le_bytes(*first),
        None => word_of_short(input),
    };
    let byte = |i: usize| input.get(i).copied().unwrap_or(0);
    match decode_word::<T, PEXT>(word, || (byte(8), byte(9))) {
        Ok((_, len)) if len > input.len() => Err(DecodeError::Truncated),
        result => result,
    }
}

/// `PAYLOAD_BY_LEN[len]`: the payload bits of bytes `0..len` of a word.
/// `CONTINUATION_BY_LEN[len]`: the continuation bits of bytes `0..len - 1`
/// (all 8 for 9 and 10 bytes). Indexed by lengths `0..=10`.
const CONTINUATION_BY_LEN: [u64; 11] = {
    let mut masks = [CONTINUATION_BITS; 11];
    let mut len = 1;
    while len <= 8 {
        masks[len] = CONTINUATION_BITS & ((1u64 << (8 * (len - 1))) - 1);
        len += 1;
    }
    masks
};

/// The number of bytes of the shortest signed varint of `value` (1..=10):
/// the bits of its magnitude (`value ^ (value >> 63)`) plus a sign bit,
/// rounded up to 7-bit groups, which is the unsigned length of its zigzag
/// form `(value << 1) ^ (value >> 63)` (Go protobuf's branch-free
/// `SizeVarint`).
#[inline(always)]
pub(crate) const fn encoded_len(value: i64) -> usize {
    crate::arch::scalar::encoded_len(((value << 1) ^ (value >> 63)) as u64)
}

/// The shortest signed varint of `value` as words: bytes 0..8
/// (little-endian, zero past the varint), bytes 8 and 9 (zero unless it
/// has 9 or 10 bytes) and the length (1..=10). Bytes `0..len` of the two's
/// complement's 7-bit groups (spread as the unsigned encoder does), the
/// continuation bits of all but the last: its bit 6 is the sign, since the
/// length leaves room for one.
#[inline(always)]
pub(crate) fn encode_words<T: SignedLeb128>(value: T) -> (u64, u16, usize) {
    let value = value.to_i64();
    let len = encoded_len(value);
    let bits = value as u64;
    let low = spread_low_56_bits(bits) & LOW_PAYLOAD[len] | CONTINUATION_BY_LEN[len];
    let high = if T::MAX_LEN > 8 && len > 8 {
        // Byte 8: bits 56..63 (with a continuation bit for a 10th byte);
        // byte 9: bit 63 and the six copies of it that end the 70 bits.
        let byte_8 = (bits >> 56) as u16 & 0x7f;
        if len == 10 {
            byte_8 | 0x80 | ((value >> 63) as u16 & 0x7f) << 8
        } else {
            byte_8
        }
    } else {
        0
    };
    (low, high, len)
}

/// [`encode_words`] into a bulk encoder's window, which may be
/// uninitialized.
#[inline(always)]
pub(crate) fn encode_uninit<T: SignedLeb128>(
    value: T,
    out: &mut crate::arch::scalar::single::UninitWindow,
) -> usize {
    let (low, high, len) = encode_words(value);
    crate::arch::scalar::single::store_words(out, low, high, T::MAX_LEN > 8);
    len
}

/// [`encode_words`] into a 16-byte window: writes bytes 0..10 (8 for
/// `i32`), zeros past the varint; returns its length.
#[inline(always)]
pub(crate) fn encode<T: SignedLeb128>(value: T, out: &mut [u8; 16]) -> usize {
    let (low, high, len) = encode_words(value);
    out[..8].copy_from_slice(&low.to_le_bytes());
    if T::MAX_LEN > 8 {
        out[8..10].copy_from_slice(&high.to_le_bytes());
    }
    len
}

/// The value-by-value bulk reference: decodes from `input[pos..]` into
/// `out[written..]` until `out` is full or the input ends; errors carry
/// the index (from `out`'s start) and the offset (from `input`'s start).
/// Returns (values, bytes) decoded by this call. Every bulk decoder leaves
/// what it cannot decode to this, so all errors come from one place.
#[inline]
pub(crate) fn decode_values<T: SignedLeb128>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    decode_values_before(input, pos, out, written, usize::MAX)
}

/// [`decode_values`] that also stops once the next varint would start at
/// or after byte `stop` of `input` (the end of a SIMD window).
#[inline(never)]
pub(crate) fn decode_values_before<T: SignedLeb128>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    stop: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    values_with(input, pos, out, written, stop, decode::<T>)
}

/// The loop of [`decode_values_before`] around `decode`, a decoder with
/// the reference's results (the `sleb128` module's short inputs take the
/// single-value API's, whose 1-3-byte branches come first).
#[inline(always)]
pub(crate) fn values_with<T: SignedLeb128>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    stop: usize,
    decode: impl Fn(&[u8]) -> Result<(T, usize), DecodeError>,
) -> Result<(usize, usize), BulkDecodeError> {
    let mut at = pos;
    let mut n = written;
    while let (Some(rest), Some(slot)) = (input.get(at..), out.get_mut(n)) {
        if rest.is_empty() || at >= stop {
            break;
        }
        match decode(rest) {
            Ok((value, len)) => {
                slot.write(value);
                at += len;
                n += 1;
            }
            Err(kind) => return Err(BulkDecodeError::new(kind, n, at)),
        }
    }
    Ok((n - written, at - pos))
}

/// The scalar bulk decoder: [`decode_blocks`] while whole 64-byte blocks
/// (and their 16 bytes of slack) remain, then [`decode_values`], which
/// also reports any error. Returns (values written, bytes consumed).
pub(crate) fn decode_slice<T: SignedLeb128>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    let (written, pos) = if selected::pext_is_fast() {
        decode_blocks::<T, true>(input, out)
    } else {
        decode_blocks::<T, false>(input, out)
    };
    let (n, consumed) = decode_values(input, pos, out, written)?;
    Ok((written + n, pos + consumed))
}

/// The block part of [`decode_slice`]: for each 64-byte block followed by
/// 16 readable bytes, the bitmap of its bytes without a continuation bit
/// (SSE2 `pmovmskb` on x86-64); each set bit ends a value, whose length is
/// the distance from the previous end, so each value is an 8-byte load at
/// its start that no later value waits for, packed and sign-extended by
/// that length. A block of 64 one-byte varints (and no varint carried into
/// it) is sign-extended byte by byte, a loop the compiler vectorizes.
/// Stops before a value it cannot decode (an error, or a 9-10-byte value
/// whose last bytes are not in the window) and before a block with more
/// values than `out` has room for. Returns (values written, position of
/// the next value).
#[inline(always)]
fn decode_blocks<T: SignedLeb128, const PEXT: bool>(
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
        if ends == u64::MAX && start == block_at {
            for (slot, &byte) in slots.iter_mut().zip(block) {
                slot.write(T::from_i64_unchecked(sign_extend(u64::from(byte), 1)));
            }
            start = block_at + BLOCK;
        } else {
            for (i, slot) in slots.iter_mut().enumerate() {
                let end = block_at + ends.trailing_zeros() as usize;
                ends &= ends.wrapping_sub(1);
                let len = end + 1 - start;
                // `start <= end < block_at + BLOCK`: 16 bytes from `start`
                // are inside `blocks`' slack (checked, never failing).
                let Some(window) = input.get(start..).and_then(|rest| rest.first_chunk::<16>())
                else {
                    return (written + i, start);
                };
                let value = if len > T::MAX_LEN {
                    // Longer than the type allows (an `i32` of 6-8 bytes
                    // too, whose value may fit): overflow, as `decode`.
                    None
                } else if len <= 8 {
                    short_value::<T, PEXT>(first_word(window), len)
                } else {
                    let low = selected::pack_masked::<PEXT>(first_word(window), PAYLOAD_BITS);
                    long_value::<T>(low, window[8], window[9])
                        .ok()
                        .map(|(value, _)| value)
                };
                let Some(value) = value else {
                    return (written + i, start);
                };
                slot.write(value);
                start = end + 1;
            }
        }
        written += count;
        block_at += BLOCK;
    }
    (written, start)
}

/// Turns `values`, the unsigned decodes (as `T::Bits`) of the signed
/// varints of `input` (which holds exactly those varints, back to back),
/// into the signed values' bits, in place. Each varint's sign is bit 6 of
/// its last byte; a negative one is its unsigned value with every bit
/// above the payload's top set: that top bit is the sign bit itself, the
/// highest set bit of the value, so the extension is
/// `!0 << (63 - leading_zeros)` and needs no length. Returns the index and
/// byte offset of the first value whose last byte's unused bits differ
/// from its sign, if any: the unsigned kernels accept those where the
/// type's top bit is set and the sign bit is not (an `i32` ending in
/// `0x08..=0x0f`, an `i64` in `0x01`); they reject the other invalid ones
/// themselves.
///
/// Portable: per 64-byte block, the terminator bitmap, and for each set
/// bit the byte's bit 6.
#[inline(always)]
pub(crate) fn sign_values<T: SignedLeb128>(
    input: &[u8],
    values: &mut [T::Bits],
) -> Result<(), (usize, usize)> {
    // The type's top bit: set in the unsigned value only by a last byte
    // that holds it (a 5-byte `i32`, a 10-byte `i64`).
    let top = (T::Bits::MAX_U64 >> 1) + 1;
    let mut j = 0;
    let mut start = 0;
    for (b, chunk) in input.chunks(BLOCK).enumerate() {
        // The last bytes: padded with continuation bytes, which end nothing.
        let mut padded = [0x80u8; BLOCK];
        let block = match chunk.first_chunk::<BLOCK>() {
            Some(block) => block,
            None => {
                padded[..chunk.len()].copy_from_slice(chunk);
                &padded
            }
        };
        let mut ends = terminator_mask(block);
        while ends != 0 {
            let at = ends.trailing_zeros() as usize;
            ends &= ends - 1;
            let Some(slot) = values.get_mut(j) else {
                return Ok(());
            };
            let bits = slot.to_u64();
            let negative = u64::from(block[at] >> 6 & 1).wrapping_neg();
            if bits & top & !negative != 0 {
                return Err((j, start));
            }
            // `bits | 1`: a zero (never negative) shifts by 0, masked off.
            let extension = u64::MAX << (63 - (bits | 1).leading_zeros());
            *slot = T::Bits::from_u64_unchecked(bits | extension & negative);
            j += 1;
            start = b * BLOCK + at + 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `encode_words` and `decode` agree on every boundary of every
    /// length, both signs, both types.
    #[test]
    fn encode_then_decode_at_every_length_boundary() {
        for bits in 0..64 {
            for value in [
                (1i64 << bits).wrapping_sub(1),
                1i64 << bits,
                (1i64 << bits).wrapping_neg(),
                (1i64 << bits).wrapping_neg().wrapping_sub(1),
            ] {
                let (low, high, len) = encode_words(value);
                let mut bytes = [0u8; 16];
                bytes[..8].copy_from_slice(&low.to_le_bytes());
                bytes[8..10].copy_from_slice(&high.to_le_bytes());
                assert_eq!(decode::<i64>(&bytes[..len]), Ok((value, len)), "{value}");
                if let Ok(narrow) = i32::try_from(value) {
                    let (low, _, len32) = encode_words(narrow);
                    assert_eq!(len32, len);
                    assert_eq!(low.to_le_bytes()[..len], bytes[..len]);
                    assert_eq!(decode::<i32>(&bytes[..len]), Ok((narrow, len)));
                }
            }
        }
    }
}
