//! The bulk API: whole buffers of consecutive varints (protobuf packed
//! repeated fields, Avro blocks, posting lists), decoded a SIMD window at a
//! time and dispatched at run time to the best backend of this CPU.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::fmt;
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicU8, Ordering};

use crate::arch::scalar;
use crate::varint::VarInt;
use crate::zigzag::ZigZag;
use crate::DecodeError;

/// A bulk decode failed: which value, where, and why. The values before it
/// have been written to the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BulkDecodeError {
    kind: DecodeError,
    index: usize,
    offset: usize,
}

impl BulkDecodeError {
    pub(crate) fn new(kind: DecodeError, index: usize, offset: usize) -> Self {
        Self {
            kind,
            index,
            offset,
        }
    }
    /// Why the value could not be decoded.
    ///
    /// ```
    /// use varint_turbo::{decode_slice, DecodeError};
    /// let mut out = [0u8; 4];
    /// // 300 does not fit a u8.
    /// let error = decode_slice(&[0x01, 0x02, 0xac, 0x02], &mut out).unwrap_err();
    /// assert_eq!(error.kind(), DecodeError::Overflow);
    /// ```
    pub fn kind(&self) -> DecodeError {
        self.kind
    }
    /// The index of the failing value (= number of values decoded before it).
    ///
    /// ```
    /// use varint_turbo::{decode_slice, DecodeError};
    /// let mut out = [0u8; 4];
    /// // 300 does not fit a u8.
    /// let error = decode_slice(&[0x01, 0x02, 0xac, 0x02], &mut out).unwrap_err();
    /// assert_eq!(error.index(), 2);
    /// assert_eq!(out[..2], [1, 2]);
    /// ```
    pub fn index(&self) -> usize {
        self.index
    }
    /// The byte offset in the input where the failing varint starts.
    ///
    /// ```
    /// use varint_turbo::{decode_slice, DecodeError};
    /// let mut out = [0u8; 4];
    /// // 300 does not fit a u8.
    /// let error = decode_slice(&[0x01, 0x02, 0xac, 0x02], &mut out).unwrap_err();
    /// assert_eq!(error.offset(), 2);
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for BulkDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (value {} at byte offset {})",
            self.kind, self.index, self.offset
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for BulkDecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.kind)
    }
}

/// A bulk backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Portable code: a terminator bitmap per 64-byte block (SSE2
    /// `pmovmskb` on x86-64), then an 8-byte-word step per value.
    Scalar,
    /// SSSE3: the table-driven fixed-grid decoder on 16-byte vectors; a
    /// Stream-VByte-style encoder (four values per `pshufb` step).
    Ssse3,
    /// AVX2 (with BMI1/BMI2/LZCNT): the same decoder with 256-bit merges;
    /// the same encoder, with `PDEP` for values of 2^28 and more where
    /// [`pdep_is_fast`](crate::pdep_is_fast).
    Avx2,
    /// AVX-512 F/BW/VL/CD/VBMI/VBMI2: fixed 64-byte chunks, `vpcompressb`
    /// and `vpermb`/`vpermt2b` instead of tables.
    Avx512Vbmi2,
    /// aarch64 NEON: the table-driven fixed-grid decoder with `tbl` on
    /// 8-byte chunks, and a Stream-VByte-style encoder (four values per
    /// step, compacted by one `tbl`). NEON is part of the aarch64 baseline.
    Neon,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Scalar => "scalar",
            Backend::Ssse3 => "ssse3",
            Backend::Avx2 => "avx2",
            Backend::Avx512Vbmi2 => "avx512-vbmi2",
            Backend::Neon => "neon",
        })
    }
}

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
/// its length and packed (one `PEXT` where the build has fast BMI2, see
/// `arch::selected::pack_masked`; three shift-and-mask steps otherwise).
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
    let (written, pos) = decode_blocks(input, out);
    let (n, consumed) = scalar_values(input, pos, out, written, usize::MAX)?;
    Ok((written + n, pos + consumed))
}

/// Bytes per terminator bitmap of [`decode_slice_scalar`]: one `u64`.
const BLOCK: usize = 64;
/// Readable bytes the blocks need after their end: a varint ending in a
/// block starts at most 9 bytes before its end, and [`word_step`] reads
/// the 16 bytes from its start (8 for the word, 2 more for a long varint;
/// a whole window keeps the bounds checks out of the loop).
const BLOCK_SLACK: usize = 16;

/// The block part of [`decode_slice_scalar`]: decodes every value that
/// ends inside a whole block followed by [`BLOCK_SLACK`] readable bytes,
/// until a value it cannot decode (an error, which the caller reports) or
/// a block with more values than `out` has room for. Returns (values
/// written, input position of the next value): everything before both is
/// exactly what the reference decodes. Slots after the values written may
/// have been overwritten ([`pair_values`]' spare slot).
#[inline(always)]
fn decode_blocks<T: VarInt>(input: &[u8], out: &mut [MaybeUninit<T>]) -> (usize, usize) {
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
                let Some(next) = pair_values(input, block_at, start, ends, slots) else {
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
            let Some(value) = word_step::<T>(window, next - start) else {
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
fn pair_values<T: VarInt>(
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
        let value0 = block_value::<T>(input, from, next0, &mut over);
        let value1 = block_value::<T>(input, next0, next1, &mut over);
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

/// Bit `i` set if `block[i]` has no continuation bit (ends a varint).
///
/// x86-64: four SSE2 `pmovmskb` (SSE2 is in the x86-64 baseline), about 15
/// instructions per block; elsewhere [`terminator_mask_portable`].
#[inline(always)]
fn terminator_mask(block: &[u8; BLOCK]) -> u64 {
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
        let stops = (!u64::from_le_bytes(bytes) & scalar::CONTINUATION_BITS) >> 7;
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
const LOW_PAYLOAD: [u64; 11] = {
    let mut masks = [scalar::PAYLOAD_BITS; 11];
    let mut len = 0;
    while len < 8 {
        masks[len] = scalar::PAYLOAD_BITS & ((1 << (8 * len)) - 1);
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
fn word_step<T: VarInt>(window: &[u8; 16], len: usize) -> Option<T> {
    if len > T::MAX_LEN {
        return None;
    }
    let word = scalar::first_word(window);
    let low = crate::arch::selected::pack_masked(word, LOW_PAYLOAD[len]);
    if T::MAX_LEN <= 8 || len <= 8 {
        return crate::varint::narrow::<T>(low, len).ok().map(|(v, _)| v);
    }
    let top = u64::from(u16::from_le_bytes([window[8], window[9]]));
    // The 7-bit groups of bytes 8 and 9: 8 bits at most are valid (a 10th
    // byte above 1 overflows, as in `scalar::decode_long`).
    let high = pack_two(top, HIGH_PAYLOAD[len]);
    if high > 0xff {
        return None;
    }
    crate::varint::narrow::<T>(low | high << 56, len)
        .ok()
        .map(|(v, _)| v)
}

/// `pack_masked` for a `mask` within the low 2 bytes.
#[inline(always)]
fn pack_two(x: u64, mask: u64) -> u64 {
    if crate::arch::selected::PEXT {
        crate::arch::selected::pack_masked(x, mask)
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
fn block_value<T: VarInt>(input: &[u8], from: usize, next: usize, over: &mut u64) -> T {
    let len = next - from;
    debug_assert!(len <= T::MAX_LEN && from + BLOCK_SLACK <= input.len());
    // SAFETY: `from + 16 <= input.len()` (the caller's block check).
    let window = unsafe { &*input.as_ptr().add(from).cast::<[u8; 16]>() };
    let word = scalar::first_word(window);
    // SAFETY: `len <= T::MAX_LEN <= 10` (`longest_run_ok`), within the table.
    let mask = unsafe { *LOW_PAYLOAD.get_unchecked(len) };
    let mut value = crate::arch::selected::pack_masked(word, mask);
    if T::MAX_LEN > 8 && len > 8 {
        // Bytes 8 and 9 (the 10th only for `len == 10`): 8 payload bits at
        // most are valid; a 10th byte above 1 overflows, as in
        // `scalar::decode_long`.
        let top = u64::from(u16::from_le_bytes([window[8], window[9]]));
        // SAFETY: `len <= 10`, as above.
        let high = pack_two(top, unsafe { *HIGH_PAYLOAD.get_unchecked(len) });
        *over |= high >> 8;
        value |= high << 56;
    }
    if T::MAX_U64 != u64::MAX {
        *over |= value;
    }
    T::from_u64_unchecked(value)
}

/// Decodes up to `limit` values one at a time with the scalar kernel,
/// starting at `input[pos..]` and `out[written..]`, until `out` is full or
/// the input ends; errors carry the global index and offset. Returns
/// (values, bytes) decoded by this call. The SIMD backends use it for the
/// tail and for every window they do not handle, so that all errors come
/// from this one place.
#[inline(never)]
pub(crate) fn scalar_values<T: VarInt>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    limit: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    scalar_values_before(input, pos, out, written, limit, usize::MAX)
}

/// [`scalar_values`] that also stops once the next varint would start at
/// or after byte `stop` of `input` (the end of a SIMD window).
#[inline(never)]
pub(crate) fn scalar_values_before<T: VarInt>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    limit: usize,
    stop: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    let end = out.len().min(written.saturating_add(limit));
    let mut consumed = 0;
    let mut n = 0;
    for slot in &mut out[written..end] {
        if pos + consumed >= stop {
            break;
        }
        let rest = &input[pos + consumed..];
        if rest.is_empty() {
            break;
        }
        match crate::decode::decode_with(rest, scalar::decode::<T>) {
            Ok((value, len)) => {
                slot.write(value);
                consumed += len;
                n += 1;
            }
            Err(kind) => return Err(BulkDecodeError::new(kind, written + n, pos + consumed)),
        }
    }
    Ok((n, consumed))
}

impl Backend {
    /// Every bulk backend, slowest first (among those of one architecture).
    pub const ALL: [Backend; 5] = [
        Backend::Scalar,
        Backend::Ssse3,
        Backend::Avx2,
        Backend::Avx512Vbmi2,
        Backend::Neon,
    ];

    /// Whether the running CPU can run this backend.
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// assert!(Backend::Scalar.is_supported());
    /// assert!(varint_turbo::detected_backend().is_supported());
    /// for backend in Backend::ALL {
    ///     println!("{backend}: {}", backend.is_supported());
    /// }
    /// ```
    pub fn is_supported(self) -> bool {
        match self {
            Backend::Scalar => true,
            Backend::Ssse3 => cpu_has!("ssse3", "popcnt"),
            Backend::Avx2 => cpu_has!("avx2", "bmi1", "bmi2", "lzcnt", "popcnt"),
            Backend::Avx512Vbmi2 => cpu_has!(
                "avx2",
                "avx512f",
                "avx512bw",
                "avx512vl",
                "avx512cd",
                "avx512vbmi",
                "avx512vbmi2",
                "bmi1",
                "bmi2",
                "lzcnt",
                "popcnt"
            ),
            Backend::Neon => cfg!(all(
                target_arch = "aarch64",
                target_endian = "little",
                not(varint_turbo_force_scalar)
            )),
        }
    }

    /// [`decode_slice`](crate::decode_slice) on this backend.
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     let mut out = [0u32; 4];
    ///     assert_eq!(backend.decode_slice(&[0x03, 0x8e, 0x02], &mut out), Ok((2, 3)));
    ///     assert_eq!(out[..2], [3, 270]);
    /// }
    /// ```
    pub fn decode_slice<T: VarInt>(
        self,
        input: &[u8],
        out: &mut [T],
    ) -> Result<(usize, usize), BulkDecodeError> {
        self.decode_uninit(input, as_uninit(out))
    }

    /// [`decode_slice`](Self::decode_slice) into slots that need not be
    /// initialized: it writes initialized values only, the first
    /// `written` slots (or up to the error's index) and possibly slots
    /// after them.
    pub(crate) fn decode_uninit<T: VarInt>(
        self,
        input: &[u8],
        out: &mut [MaybeUninit<T>],
    ) -> Result<(usize, usize), BulkDecodeError> {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Ssse3 => unsafe { crate::arch::x86_64::avx2::decode_slice_ssse3(input, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx2 => unsafe { crate::arch::x86_64::avx2::decode_slice_avx2(input, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx512Vbmi2 => unsafe {
                crate::arch::x86_64::avx512::decode_slice(input, out)
            },
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon => crate::arch::aarch64::neon_bulk::decode_slice(input, out),
            _ => decode_slice_scalar(input, out),
        }
    }

    /// [`count_varints`](crate::count_varints) on this backend.
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     assert_eq!(backend.count_varints(&[0x03, 0x8e, 0x02]), 2);
    /// }
    /// ```
    pub fn count_varints(self, input: &[u8]) -> usize {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx2 => unsafe { crate::arch::x86_64::avx2::count_varints_avx2(input) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx512Vbmi2 => unsafe { crate::arch::x86_64::avx512::count_varints(input) },
            _ => count_varints_portable(input),
        }
    }

    /// [`encoded_len_sum`](crate::encoded_len_sum) on this backend.
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     assert_eq!(backend.encoded_len_sum(&[1u32, 300]), 3);
    /// }
    /// ```
    pub fn encoded_len_sum<T: VarInt>(self, values: &[T]) -> usize {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above), which
            // includes LZCNT.
            Backend::Avx2 => unsafe { crate::arch::x86_64::avx2::encoded_len_sum_lzcnt(values) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx512Vbmi2 => unsafe { crate::arch::x86_64::avx512::encoded_len_sum(values) },
            _ => encoded_len_sum_portable(values),
        }
    }

    /// [`encode_slice_into`](crate::encode_slice_into) on this backend.
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     let mut out = [0u8; 3];
    ///     assert_eq!(backend.encode_slice_into(&[1u32, 300], &mut out), (2, 3));
    ///     assert_eq!(out, [0x01, 0xac, 0x02]);
    /// }
    /// ```
    pub fn encode_slice_into<T: VarInt>(self, values: &[T], out: &mut [u8]) -> (usize, usize) {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        match self {
            // The SIMD kernel needs room for everything: the worst case
            // fits, or the exact total does.
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512Vbmi2
                if values.len().saturating_mul(T::MAX_LEN) <= out.len()
                    || self.encoded_len_sum(values) <= out.len() =>
            {
                // SAFETY: the CPU supports the backend (checked above) and
                // `out` holds the encoding of all `values` (the guard).
                let written = unsafe { crate::arch::x86_64::avx512::encode_slice(values, out) };
                (values.len(), written)
            }
            // Without room for the AVX-512 kernel, and on AVX2 CPUs: four
            // values per `pshufb` step, the word encoder (with `PDEP`
            // where it is fast) for values of 2^28 and more. Any room:
            // they stop exactly where the scalar encoder would.
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 | Backend::Avx512Vbmi2 => {
                // SAFETY: both backends require AVX2, BMI1, BMI2, LZCNT
                // and POPCNT, and the CPU supports this one (checked above).
                unsafe {
                    crate::arch::x86_64::ssse3_encode::encode_slice_into_avx2(
                        values,
                        out,
                        crate::pdep_is_fast(),
                    )
                }
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Ssse3 => {
                // SAFETY: the backend requires SSSE3 and POPCNT, and the
                // CPU supports it (checked above).
                unsafe { crate::arch::x86_64::ssse3_encode::encode_slice_into_ssse3(values, out) }
            }
            // Any room: the NEON kernel hands the last values to the
            // scalar encoder, so it stops exactly where that one would.
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon => crate::arch::aarch64::neon_encode::encode_slice_into(values, out),
            _ => encode_slice_into_scalar(values, out),
        }
    }
}

/// True if the running CPU has every listed feature: detected at run time
/// with `std`, otherwise known only from the build's target features; never
/// on other architectures or with `--cfg varint_turbo_force_scalar`.
macro_rules! cpu_has {
    ($($feature:tt),+) => {{
        #[cfg(all(target_arch = "x86_64", feature = "std", not(varint_turbo_force_scalar)))]
        {
            true $(&& std::is_x86_feature_detected!($feature))+
        }
        #[cfg(all(target_arch = "x86_64", not(feature = "std"), not(varint_turbo_force_scalar)))]
        {
            true $(&& cfg!(target_feature = $feature))+
        }
        #[cfg(any(not(target_arch = "x86_64"), varint_turbo_force_scalar))]
        {
            false
        }
    }};
}
use cpu_has;

/// Detected once, then cached: 0 = not yet, else `Backend as u8 + 1`.
static DETECTED: AtomicU8 = AtomicU8::new(0);

/// The backend the bulk functions use on this CPU: the fastest one it
/// supports, detected on first use and cached.
///
/// ```
/// let backend = varint_turbo::detected_backend();
/// assert!(backend.is_supported());
/// println!("bulk backend: {backend}");
/// ```
pub fn detected_backend() -> Backend {
    match DETECTED.load(Ordering::Relaxed) {
        1 => Backend::Scalar,
        2 => Backend::Ssse3,
        3 => Backend::Avx2,
        4 => Backend::Avx512Vbmi2,
        5 => Backend::Neon,
        _ => {
            let backend = Backend::ALL
                .into_iter()
                .rev()
                .find(|backend| backend.is_supported());
            let backend = backend.unwrap_or(Backend::Scalar);
            DETECTED.store(backend as u8 + 1, Ordering::Relaxed);
            backend
        }
    }
}

/// Inputs shorter than this go straight to the scalar loop: a few values
/// cost less than the dispatch and the SIMD set-up (one 64-byte window).
const SCALAR_CUTOFF_BYTES: usize = 64;

/// Decodes consecutive varints from the start of `input` into `out` until
/// `out` is full or `input` is exhausted; returns (values written, bytes
/// consumed).
///
/// A varint cut off by the end of `input` is an error
/// ([`DecodeError::Truncated`]), as is one that does not fit `T`
/// ([`DecodeError::Overflow`]), by the same rules as [`decode`](crate::decode);
/// the error gives the index and byte offset of that value, and every value
/// before it has been written to `out`. Slots of `out` past the values
/// written (or past the failing index) may be overwritten with unspecified
/// values: the SIMD backends store whole vectors.
///
/// ```
/// let packed = [0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05]; // 3, 270, 86942
/// let mut out = [0u32; 8];
/// assert_eq!(varint_turbo::decode_slice(&packed, &mut out), Ok((3, 6)));
/// assert_eq!(out[..3], [3, 270, 86942]);
///
/// let error = varint_turbo::decode_slice(&[0x01, 0x80], &mut out).unwrap_err();
/// assert_eq!((error.index(), error.offset()), (1, 1));
/// assert_eq!(error.kind(), varint_turbo::DecodeError::Truncated);
/// ```
pub fn decode_slice<T: VarInt>(
    input: &[u8],
    out: &mut [T],
) -> Result<(usize, usize), BulkDecodeError> {
    decode_uninit(input, as_uninit(out))
}

/// [`decode_slice`] into slots that need not be initialized (see
/// [`Backend::decode_uninit`]).
fn decode_uninit<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    if input.len() < SCALAR_CUTOFF_BYTES {
        return decode_slice_scalar(input, out);
    }
    detected_backend().decode_uninit(input, out)
}

/// Views initialized slots as possibly uninitialized ones, for the
/// decoders, which write only initialized values.
pub(crate) fn as_uninit<T>(out: &mut [T]) -> &mut [MaybeUninit<T>] {
    // Every decoder writes only initialized values (`MaybeUninit::write` or
    // stores of computed values), so the caller's `&mut [T]` stays initialized.
    // SAFETY: `MaybeUninit<T>` has the layout of `T`; see above.
    unsafe { core::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), out.len()) }
}

/// Decodes every varint of `input` (which must hold nothing else) into a
/// new `Vec`. Allocates at most one `T` per input byte (the count of
/// terminating bytes), whatever the input claims; the capacity is not
/// zeroed first, the decoder writes it.
///
/// ```
/// use varint_turbo::{decode_all, DecodeError};
/// let values = decode_all::<u32>(&[0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05]);
/// assert_eq!(values, Ok(vec![3, 270, 86942]));
/// let error = decode_all::<u64>(&[0x01, 0x96]).unwrap_err();
/// assert_eq!((error.kind(), error.index(), error.offset()), (DecodeError::Truncated, 1, 1));
/// ```
#[cfg(feature = "alloc")]
pub fn decode_all<T: VarInt>(input: &[u8]) -> Result<Vec<T>, BulkDecodeError> {
    let mut out = Vec::with_capacity(count_varints(input));
    let (written, consumed) = decode_uninit(input, out.spare_capacity_mut())?;
    check_rest::<T>(input, written, consumed)?;
    // SAFETY: the decoder initialized the first `written` slots, and
    // `written <= capacity` (it writes inside the slice it was given).
    unsafe { out.set_len(written) };
    Ok(out)
}

/// After `decode_all` filled one slot per terminating byte, anything left is
/// a varint without a last byte: `Truncated`, or `Overflow` if it already
/// runs longer than `T::MAX_LEN` (the single-value rules decide).
#[cfg(feature = "alloc")]
fn check_rest<T: VarInt>(
    input: &[u8],
    written: usize,
    consumed: usize,
) -> Result<(), BulkDecodeError> {
    if consumed == input.len() {
        return Ok(());
    }
    let kind = match crate::decode::<T>(&input[consumed..]) {
        Err(kind) => kind,
        // Unreachable (every terminator was used), but never claim success.
        Ok(_) => DecodeError::Truncated,
    };
    Err(BulkDecodeError::new(kind, written, consumed))
}

/// [`decode_slice`] for zigzag varints (protobuf `sint32`/`sint64`, Avro).
///
/// ```
/// let mut out = [0i32; 4];
/// assert_eq!(varint_turbo::decode_slice_zigzag(&[0x01, 0x02, 0x03], &mut out), Ok((3, 3)));
/// assert_eq!(out[..3], [-1, 1, -2]);
/// ```
pub fn decode_slice_zigzag<T: ZigZag>(
    input: &[u8],
    out: &mut [T],
) -> Result<(usize, usize), BulkDecodeError> {
    // `T`/`T::Unsigned` are iN/uN of one width (the sealed trait's only impls).
    // SAFETY: same size and alignment; every bit pattern is valid for both.
    let unsigned = unsafe {
        core::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<T::Unsigned>(), out.len())
    };
    let result = decode_slice(input, unsigned);
    let written = match result {
        Ok((written, _)) => written,
        Err(error) => error.index(),
    };
    for value in &mut out[..written] {
        // Reinterpret back: the slot holds the zigzag value's bits.
        *value = T::zigzag_decode(value.to_unsigned_bits());
    }
    result
}

/// [`decode_all`] for zigzag varints.
///
/// ```
/// assert_eq!(varint_turbo::decode_all_zigzag::<i64>(&[0x7f, 0x80, 0x01]), Ok(vec![-64, 64]));
/// ```
#[cfg(feature = "alloc")]
pub fn decode_all_zigzag<T: ZigZag>(input: &[u8]) -> Result<Vec<T>, BulkDecodeError> {
    let mut out: Vec<T> = Vec::with_capacity(count_varints(input));
    let spare = out.spare_capacity_mut();
    // `T`/`T::Unsigned` are iN/uN of one width (the sealed trait's only impls).
    // SAFETY: same size and alignment, and both are uninitialized slots.
    let unsigned = unsafe {
        core::slice::from_raw_parts_mut(
            spare.as_mut_ptr().cast::<MaybeUninit<T::Unsigned>>(),
            spare.len(),
        )
    };
    let (written, consumed) = decode_uninit(input, unsigned)?;
    check_rest::<T::Unsigned>(input, written, consumed)?;
    // SAFETY: the first `written` slots hold decoded unsigned values, whose
    // bits are valid `T`s.
    unsafe { out.set_len(written) };
    for value in &mut out {
        // Reinterpret back: the slot holds the zigzag value's bits.
        *value = T::zigzag_decode(value.to_unsigned_bits());
    }
    Ok(out)
}

/// The number of varints in `input`: its bytes without a continuation bit.
/// This is how protobuf sizes a packed repeated field before decoding it;
/// it does not validate (a cut-off last varint is not counted).
///
/// ```
/// // 3, 270, 86942 and the first byte of a cut-off varint.
/// assert_eq!(varint_turbo::count_varints(&[0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05, 0x80]), 3);
/// ```
pub fn count_varints(input: &[u8]) -> usize {
    if input.len() < SCALAR_CUTOFF_BYTES {
        return count_varints_portable(input);
    }
    detected_backend().count_varints(input)
}

/// [`count_varints`] without SIMD intrinsics: byte counters that the
/// compiler vectorizes (SSE2 on the x86-64 baseline), summed every 255
/// blocks before they can wrap.
#[inline(always)]
pub(crate) fn count_varints_portable(input: &[u8]) -> usize {
    const LANES: usize = 16;
    let mut total = 0usize;
    for chunk in input.chunks(LANES * 255) {
        let mut counts = [0u8; LANES];
        let mut blocks = chunk.chunks_exact(LANES);
        for block in &mut blocks {
            for (count, &byte) in counts.iter_mut().zip(block) {
                *count += u8::from(byte < 0x80);
            }
        }
        total += counts
            .iter()
            .map(|&count| usize::from(count))
            .sum::<usize>();
        total += blocks
            .remainder()
            .iter()
            .filter(|&&byte| byte < 0x80)
            .count();
    }
    total
}

/// The total number of bytes that [`encode_slice`] writes for `values`.
///
/// ```
/// assert_eq!(varint_turbo::encoded_len_sum(&[1u64, 300, u64::MAX]), 1 + 2 + 10);
/// ```
pub fn encoded_len_sum<T: VarInt>(values: &[T]) -> usize {
    if values.len() < 16 {
        return encoded_len_sum_portable(values);
    }
    detected_backend().encoded_len_sum(values)
}

/// [`encoded_len_sum`] one value at a time (Go's branch-free formula).
#[inline(always)]
pub(crate) fn encoded_len_sum_portable<T: VarInt>(values: &[T]) -> usize {
    values
        .iter()
        .map(|&value| scalar::encoded_len(value.to_u64()))
        .sum()
}

/// Appends the varints of `values` to `out`; returns the bytes written.
///
/// ```
/// let mut out = vec![0xff];
/// assert_eq!(varint_turbo::encode_slice(&[1u32, 300], &mut out), 3);
/// assert_eq!(out, [0xff, 0x01, 0xac, 0x02]);
/// ```
#[cfg(feature = "alloc")]
pub fn encode_slice<T: VarInt>(values: &[T], out: &mut Vec<u8>) -> usize {
    let total = encoded_len_sum(values);
    let start = out.len();
    out.resize(start + total, 0);
    let (encoded, written) = encode_slice_into(values, &mut out[start..]);
    debug_assert_eq!((encoded, written), (values.len(), total));
    written
}

/// Values converted to zigzag form per chunk by the zigzag encoders (a
/// stack buffer of at most 2 KiB), then encoded by the bulk encoder.
const ZIGZAG_CHUNK: usize = 256;

/// Calls `encode` with the zigzag forms of `values`, a chunk at a time, for
/// as long as it returns `true`.
#[inline(always)]
fn for_zigzag_chunks<T: ZigZag>(values: &[T], mut encode: impl FnMut(&[T::Unsigned]) -> bool) {
    let mut buffer = [T::Unsigned::default(); ZIGZAG_CHUNK];
    for chunk in values.chunks(ZIGZAG_CHUNK) {
        for (slot, &value) in buffer.iter_mut().zip(chunk) {
            *slot = value.zigzag_encode();
        }
        if !encode(&buffer[..chunk.len()]) {
            break;
        }
    }
}

/// [`encode_slice`] for zigzag varints (protobuf `sint32`/`sint64`, Avro).
///
/// ```
/// let mut out = Vec::new();
/// assert_eq!(varint_turbo::encode_slice_zigzag(&[0i32, -1, 1, -64, 64], &mut out), 6);
/// assert_eq!(out, [0x00, 0x01, 0x02, 0x7f, 0x80, 0x01]);
/// ```
#[cfg(feature = "alloc")]
pub fn encode_slice_zigzag<T: ZigZag>(values: &[T], out: &mut Vec<u8>) -> usize {
    let start = out.len();
    for_zigzag_chunks(values, |unsigned| {
        encode_slice(unsigned, out);
        true
    });
    out.len() - start
}

/// [`encode_slice_into`] for zigzag varints: encodes as many of `values`
/// as fit, whole, into `out`; returns (values encoded, bytes written).
///
/// ```
/// let mut out = [0u8; 4];
/// // -1000 and 1000 take 2 bytes each; the third value does not fit.
/// assert_eq!(varint_turbo::encode_slice_zigzag_into(&[-1000i64, 1000, 5], &mut out), (2, 4));
/// ```
pub fn encode_slice_zigzag_into<T: ZigZag>(values: &[T], out: &mut [u8]) -> (usize, usize) {
    let (mut encoded, mut written) = (0, 0);
    for_zigzag_chunks(values, |unsigned| {
        let (n, bytes) = encode_slice_into(unsigned, &mut out[written..]);
        encoded += n;
        written += bytes;
        n == unsigned.len()
    });
    (encoded, written)
}

/// Encodes as many of `values` as fit, whole, into `out`, without
/// allocating; returns (values encoded, bytes written).
///
/// ```
/// let mut out = [0u8; 4];
/// // 1 and 300 take 3 bytes; 16384 would need 3 more.
/// assert_eq!(varint_turbo::encode_slice_into(&[1u32, 300, 16384], &mut out), (2, 3));
/// assert_eq!(out[..3], [0x01, 0xac, 0x02]);
/// ```
pub fn encode_slice_into<T: VarInt>(values: &[T], out: &mut [u8]) -> (usize, usize) {
    if values.len() < 8 {
        return encode_slice_into_scalar(values, out);
    }
    detected_backend().encode_slice_into(values, out)
}

/// Scalar reference for the bulk encoders. Not inlined: the SIMD encoders
/// call it for their stretches and last values, and it keeps its own
/// registers.
#[inline(never)]
pub(crate) fn encode_slice_into_scalar<T: VarInt>(values: &[T], out: &mut [u8]) -> (usize, usize) {
    encode_slice_into_with(values, out, scalar::encode::<T>)
}

/// The value-by-value bulk encoder around a single-value kernel
/// `encode(value, window) -> len` (which may write all 16 bytes of
/// `window`): each value is encoded straight into `out` while 16 bytes of
/// room remain after its position, then through a stack window and an
/// exact copy, so that nothing past the last whole varint is touched.
/// Shared by the scalar reference and the BMI2 encoder.
#[inline(always)]
pub(crate) fn encode_slice_into_with<T: VarInt>(
    values: &[T],
    out: &mut [u8],
    encode: impl Fn(T, &mut [u8; 16]) -> usize,
) -> (usize, usize) {
    let mut pos = 0;
    for (index, &value) in values.iter().enumerate() {
        let rest = &mut out[pos..];
        let len = if let Some(window) = rest.first_chunk_mut::<16>() {
            encode(value, window)
        } else {
            let mut window = [0u8; 16];
            let len = encode(value, &mut window);
            let Some(dest) = rest.get_mut(..len) else {
                return (index, pos);
            };
            dest.copy_from_slice(&window[..len]);
            len
        };
        pos += len;
    }
    (values.len(), pos)
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
