//! NEON bulk decoder: a table-driven gather in the manner of Masked VByte
//! (Plaisance, Kurz and Lemire, "Vectorized VByte Decoding", 2015) with
//! `tbl` (`vqtbl1q_u8`) as the shuffle, on a **fixed grid** of 8-byte chunks
//! as in the x86-64 AVX2 decoder.
//!
//! # One step
//!
//! Step `c` looks at the chunk `[q, q + 8)`, `q = q0 + 8c` whatever the
//! data, and decodes exactly the varints whose **last byte** lies in it.
//! The steps do not wait for each other: the only values carried from one
//! to the next are the output count and `carry`, the number of bytes of the
//! varint that enters the chunk from before it. (Masked VByte proper
//! advances by the bytes each step consumed, a chain of load, mask, table
//! load and add per step.)
//!
//! * The chunk's 8 continuation bits come from one 8-byte general-register
//!   load: `((word >> 7) & 0x0101..01) * 0x0102_0408_1020_4080 >> 56` (NEON
//!   has no `pmovmskb`; this is one `and` with a shifted operand, one `mul`,
//!   one shift). They index a 256-entry table (48 bytes each, 12 KiB) that
//!   holds the number `n` of varints ending in the chunk, where the first
//!   ends, the bytes after the last end (the next `carry`), the longest of
//!   varints `1..n`, and `tbl` controls that put varint `j`'s bytes into
//!   32-bit lane `j` of two vectors (index `0xff` makes a zero byte).
//! * Varint 0 ends at `e_0` and started `carry` bytes before the chunk:
//!   `L = carry + e_0 + 1`. Its control (lane 0) is computed in a general
//!   register, `0x0302_0100 + 0x0101_0101 * (8 - carry)` with the bytes
//!   from `L` on set to `0xff`, and inserted into the first vector.
//! * Two `tbl` on the 16-byte window `[q - 8, q + 8)` (continuation bits
//!   cleared) gather 8 varints of up to 4 bytes; two `ushr` + `sli` pairs
//!   per vector merge the 7-bit groups into 28-bit values (`b0 | b1 << 7`
//!   per halfword, then `p0 | p1 << 14` per word). The 8 lanes are stored
//!   (widened with `uxtl` for `u64`, narrowed with `xtn` for `u16`/`u8`) and
//!   `n` of them kept, so a step needs room for 8 values.
//!
//! # Long varints, validation and fallback
//!
//! Only varints of at most `min(4, T::MAX_LEN)` bytes take the vector lanes;
//! their values have at most 28 bits, so for `u32`/`u64` no value check is
//! needed, and for `u8`/`u16` one `umaxv` across the lanes compares with
//! `T::MAX`. A longer varint 0 (values of 2^28 and more, e.g. the 5% of full
//! `u64` in a protobuf-like mix; it can span several chunks) is decoded by
//! the scalar single-value kernel, inlined, while the other varints of the
//! chunk stay on the vector path. A chunk whose varints `1..n` are too
//! long, or a value too large for `T`, goes entirely to the scalar bulk
//! loop (`bulk::scalar_values`). Every error therefore comes from the
//! scalar single-value kernel, with the index and byte offset of the
//! failing varint, exactly as in the scalar bulk decoder. A chunk without a
//! varint end stores nothing and adds 8 to `carry`.
//!
//! Every 32 steps the number of values the vector lanes decoded is
//! checked: under two per step (most varints 5 bytes or longer: uniform
//! `u32` or `u64`, timestamps) a step costs more than the scalar loop would
//! for its values, so the scalar loop takes the next 1024 values.
//!
//! The first 8 varints (so that the first window starts at or after byte
//! 0), the varints whose window would cross the end of `input`, and those
//! for which fewer than 8 output slots remain are decoded by the scalar
//! decoder: no load leaves `input`, no store leaves `out`.

use core::arch::aarch64::*;
use core::mem::MaybeUninit;

use super::single::merge_7bit_groups_u32;
use crate::arch::scalar::{self, scalar_values, tail_values};
use crate::arch::window::decode_with;
use crate::error::BulkDecodeError;
use crate::varint::VarInt;

/// Bytes per step: the chunk whose varint ends are decoded.
const CHUNK: usize = 8;
/// Window bytes before the chunk (the window is `[q - 8, q + 8)`).
const BEFORE: usize = 16 - CHUNK;
/// Longest varint a 32-bit lane takes.
const LANE_BYTES: usize = 4;
/// Output slots a step may write (two vectors of four 32-bit lanes).
const LANES: usize = 8;
/// Chunks per block; after each, the number of values the vector lanes
/// decoded decides whether the data has too many long varints (5 bytes
/// and more) for the vector path.
const BLOCK: usize = 32;
/// Fewer vector-decoded values than this in a block (under two per step:
/// a step costs about as many instructions as two values of the scalar
/// loop) switch to the scalar decoder.
const SPARSE: usize = 2 * BLOCK;
/// Values decoded by the scalar decoder before the vector steps resume;
/// doubled (up to [`MAX_SCALAR_STRETCH`]) after each sparse block in a row,
/// so that long runs of long varints rarely pay for a vector block.
const SCALAR_STRETCH: usize = 1024;
/// The longest scalar stretch.
const MAX_SCALAR_STRETCH: usize = 64 * 1024;
/// A `tbl` index that produces a zero byte (any index >= 16 does).
const ZERO: u8 = 0xff;

/// The decoding recipe for one chunk, indexed by its 8 continuation bits.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Entry {
    /// `tbl` controls: 32-bit lane `j` (bytes `4j..4j + 4`) gathers varint
    /// `j` for `j` in `1..n`; lane 0 and lanes from `n` on are `ZERO`.
    control: [u8; 32],
    /// Number of varints that end in the chunk.
    n: u8,
    /// Position of the first end in the chunk (0 if there is none).
    first: u8,
    /// Bytes after the chunk's last end: the next chunk's `carry`.
    tail: u8,
    /// Length of the longest of varints `1..n` (0 if none).
    max_rest: u8,
    _pad: [u8; 12],
}

const fn entry(continuation: usize) -> Entry {
    let mut e = Entry {
        control: [ZERO; 32],
        n: 0,
        first: 0,
        tail: CHUNK as u8,
        max_rest: 0,
        _pad: [0; 12],
    };
    let mut start = 0;
    let mut lane = 0;
    let mut i = 0;
    while i < CHUNK {
        if (continuation >> i) & 1 == 0 {
            if lane == 0 {
                e.first = i as u8;
            } else {
                let len = i + 1 - start;
                if len > e.max_rest as usize {
                    e.max_rest = len as u8;
                }
                // Longer varints never use their lane (`max_rest` sends the
                // chunk to the scalar decoder).
                let mut k = 0;
                while k < len && k < LANE_BYTES {
                    e.control[lane * LANE_BYTES + k] = (BEFORE + start + k) as u8;
                    k += 1;
                }
            }
            lane += 1;
            start = i + 1;
        }
        i += 1;
    }
    e.n = lane as u8;
    e.tail = (CHUNK - start) as u8;
    e
}

/// The chunk recipes, built at compile time (256 x 48 bytes).
static TABLE: [Entry; 1 << CHUNK] = {
    let mut table = [entry(0); 1 << CHUNK];
    let mut continuation = 0;
    while continuation < 1 << CHUNK {
        table[continuation] = entry(continuation);
        continuation += 1;
    }
    table
};

/// The continuation bits of the 8 bytes of `word` (bit `i` = byte `i`):
/// bit 7 of byte `i` moves to bit `56 + i` under the multiplication, and no
/// two partial products share a bit position, so nothing carries.
#[inline(always)]
fn continuation_bits(word: u64) -> u8 {
    (((word >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// The `tbl` control of lane 0 for varint 0 of `len` bytes, `carry` of them
/// before the chunk: window bytes `8 - carry ..` into bytes `0..len`, zeros
/// after. Only for `len <= 4` (then `carry <= 3`).
#[inline(always)]
fn lane0_control(carry: usize, len: usize) -> u32 {
    let first = (BEFORE - carry) as u32;
    let indices = 0x0302_0100 + 0x0101_0101 * first;
    indices | (u64::MAX << (8 * len)) as u32
}

/// Stores the 8 lanes of `a` and `b` (values that fit `T`) as 8 `T` at `dst`.
///
/// # Safety
/// `dst` must be valid for writing 8 `T`.
#[inline(always)]
unsafe fn store_8<T: VarInt>(dst: *mut T, a: uint32x4_t, b: uint32x4_t) {
    // `T` is an unsigned integer, so the casts below only pick the store width.
    // SAFETY: 8 writable `T` at `dst` (caller); each branch writes exactly those.
    unsafe {
        match core::mem::size_of::<T>() {
            8 => {
                let dst = dst.cast::<u64>();
                vst1q_u64(dst, vmovl_u32(vget_low_u32(a)));
                vst1q_u64(dst.add(2), vmovl_high_u32(a));
                vst1q_u64(dst.add(4), vmovl_u32(vget_low_u32(b)));
                vst1q_u64(dst.add(6), vmovl_high_u32(b));
            }
            4 => {
                let dst = dst.cast::<u32>();
                vst1q_u32(dst, a);
                vst1q_u32(dst.add(4), b);
            }
            2 => vst1q_u16(dst.cast(), vcombine_u16(vmovn_u32(a), vmovn_u32(b))),
            _ => vst1_u8(
                dst.cast(),
                vmovn_u16(vcombine_u16(vmovn_u32(a), vmovn_u32(b))),
            ),
        }
    }
}

/// Decodes varints from the start of `input` into `out` until either is
/// exhausted; returns (values written, bytes consumed). Same results and
/// errors as the scalar bulk decoder. NEON is part of the aarch64 baseline,
/// so this needs no run-time check.
pub(crate) fn decode_slice<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    let len = input.len();
    let out_len = out.len();
    // 8 values one by one: after them at least 8 bytes precede the position,
    // so the first window [q - 8, q + 8) starts inside `input`.
    let (mut written, mut q) = tail_values(input, 0, out, 0, BEFORE)?;
    // Bytes of the varint in progress before `q`; the next value starts at
    // `q - carry`.
    let mut carry = 0usize;
    // Varints this long or shorter take a vector lane.
    let lane_max = T::MAX_LEN.min(LANE_BYTES);
    // u8/u16: 4-byte (even 2- or 3-byte) varints may not fit.
    let check_values = T::MAX_U64 < (1 << (7 * LANE_BYTES)) - 1;
    let mut stretch = SCALAR_STRETCH;
    let src = input.as_ptr();
    // Output pointers are taken from `out` at each store, not once before
    // the loop: the scalar steps also write through `out`, which (under
    // Rust's aliasing rules, Stacked and Tree Borrows) would invalidate a
    // pointer derived from it earlier.
    'outer: while q >= BEFORE {
        // Steps that fit: windows inside `input`, 8 free output slots each.
        let by_input = if q + CHUNK <= len {
            (len - q - CHUNK) / CHUNK + 1
        } else {
            0
        };
        let steps = by_input.min((out_len - written) / LANES).min(BLOCK);
        if steps == 0 {
            break;
        }
        // Values the vector lanes decoded in this block.
        let mut vector_values = 0;
        for _ in 0..steps {
            // SAFETY: q >= BEFORE and q + CHUNK <= len (steps bound): the
            // 8 bytes at q and the 16 at q - 8 are inside `input`.
            let (word, window) = unsafe {
                (
                    src.add(q).cast::<u64>().read_unaligned(),
                    vld1q_u8(src.add(q - BEFORE)),
                )
            };
            let continuation = continuation_bits(u64::from_le(word));
            if continuation == 0 && carry == 0 && one_byte_run(input, out, &mut q, &mut written) {
                // The step count is stale: start a new block.
                continue 'outer;
            }
            let entry = &TABLE[usize::from(continuation)];
            if entry.n == 0 {
                carry += CHUNK;
                q += CHUNK;
                continue;
            }
            let first_len = carry + entry.first as usize + 1;
            if entry.max_rest as usize > lane_max {
                written = scalar_chunk(input, out, q - carry, written, entry.n)?;
            } else {
                let lane0 = if first_len <= lane_max {
                    lane0_control(carry, first_len)
                } else {
                    u32::MAX
                };
                // SAFETY: register operations and 16-byte loads from the
                // 32-byte control array; NEON is baseline on aarch64.
                let (a, b) = unsafe {
                    let groups = vandq_u8(window, vdupq_n_u8(0x7f));
                    let control = entry.control.as_ptr();
                    let control_a = vsetq_lane_u32::<0>(lane0, vld1q_u32(control.cast()));
                    let control_b = vld1q_u8(control.add(16));
                    (
                        merge_7bit_groups_u32(vqtbl1q_u8(groups, vreinterpretq_u8_u32(control_a))),
                        merge_7bit_groups_u32(vqtbl1q_u8(groups, control_b)),
                    )
                };
                // SAFETY: register operations; NEON is baseline on aarch64.
                let too_big =
                    check_values && u64::from(unsafe { vmaxvq_u32(vmaxq_u32(a, b)) }) > T::MAX_U64;
                if too_big {
                    written = scalar_chunk(input, out, q - carry, written, entry.n)?;
                } else {
                    // SAFETY: written + 8 <= out_len (steps bound).
                    unsafe { store_8(out.as_mut_ptr().cast::<T>().add(written), a, b) };
                    let mut lanes_used = entry.n as usize;
                    if first_len > lane_max {
                        // Varint 0 is long (or malformed): the scalar
                        // single-value kernel, inlined, writes it over
                        // lane 0 or reports it (index `written`, offset
                        // `q - carry`, as the scalar bulk loop would).
                        let start = q - carry;
                        match decode_with(&input[start..], scalar::decode::<T>) {
                            Ok((value, bytes)) => {
                                debug_assert_eq!(bytes, first_len);
                                out[written].write(value);
                            }
                            Err(kind) => return Err(BulkDecodeError::new(kind, written, start)),
                        }
                        lanes_used -= 1;
                    }
                    vector_values += lanes_used;
                    written += entry.n as usize;
                }
            }
            carry = entry.tail as usize;
            q += CHUNK;
        }
        if steps == BLOCK && vector_values >= SPARSE {
            stretch = SCALAR_STRETCH;
        } else if steps == BLOCK {
            // Long varints (under two per chunk on the vector lanes): the
            // scalar decoder is cheaper per value there. Decode a stretch,
            // then try again.
            let pos = q - carry;
            let (n, consumed) = scalar_values(input, pos, out, written, stretch)?;
            stretch = (2 * stretch).min(MAX_SCALAR_STRETCH);
            written += n;
            q = pos + consumed;
            carry = 0;
        }
    }
    let pos = q - carry;
    let (n, consumed) = tail_values(input, pos, out, written, usize::MAX)?;
    Ok((written + n, pos + consumed))
}

/// A run of 1-byte varints (small enums, booleans, counts): while the 16
/// bytes at `q` have no continuation bit, widens them to 16 values without
/// any table or merge (`uxtl` to 32 bits, then the stores of [`store_8`]).
/// Returns whether it decoded anything; advances `q` and `written`.
#[inline(always)]
fn one_byte_run<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    q: &mut usize,
    written: &mut usize,
) -> bool {
    let start = *q;
    while let (Some(bytes), Some(dst)) = (
        input.get(*q..).and_then(|rest| rest.first_chunk::<16>()),
        out.get_mut(*written..)
            .and_then(|rest| rest.first_chunk_mut::<16>()),
    ) {
        // SAFETY: `bytes` is 16 readable bytes, `dst` 16 writable `T` (two stores
        // of 8); the rest are register operations; NEON is aarch64 baseline.
        unsafe {
            let bytes = vld1q_u8(bytes.as_ptr());
            if vmaxvq_u8(bytes) >= 0x80 {
                break;
            }
            let halves = [vmovl_u8(vget_low_u8(bytes)), vmovl_high_u8(bytes)];
            for (i, half) in halves.into_iter().enumerate() {
                let (a, b) = (vmovl_u16(vget_low_u16(half)), vmovl_high_u16(half));
                store_8(dst.as_mut_ptr().cast::<T>().add(8 * i), a, b);
            }
        }
        *q += 16;
        *written += 16;
    }
    *q != start
}

/// A chunk the vector lanes do not take: decodes its `n` varints, from
/// `pos` on, with the scalar decoder (which reports the exact error) and
/// returns the new output count.
#[cold]
#[inline(never)]
fn scalar_chunk<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    pos: usize,
    written: usize,
    n: u8,
) -> Result<usize, BulkDecodeError> {
    let (decoded, _) = scalar_values(input, pos, out, written, usize::from(n))?;
    debug_assert_eq!(decoded, usize::from(n));
    Ok(written + decoded)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(feature = "alloc")]
    use crate::arch::as_uninit;
    use crate::arch::scalar::decode_slice::decode_slice_scalar;
    #[cfg(feature = "alloc")]
    use alloc::vec::Vec;

    #[cfg(feature = "alloc")]
    /// Runs of 1-byte values, protobuf-like mixes and 10-byte values, each
    /// long enough (hundreds of chunks) to switch between the one-byte run,
    /// the vector steps and the scalar stretches several times.
    fn runs_stream(seed: u64) -> Vec<u8> {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state ^ (state >> 29)
        };
        let mut bytes = Vec::new();
        for run in 0..12 {
            let count = 200 + next() % 3000;
            for _ in 0..count {
                let r = next();
                let value = match run % 3 {
                    0 => r & 0x7f,
                    // Every length from 1 to 10 bytes.
                    1 => r >> (r % 64),
                    _ => r | 1 << 63,
                };
                let mut window = [0u8; 16];
                let len = scalar::encode(value, &mut window);
                bytes.extend_from_slice(&window[..len]);
            }
        }
        bytes
    }

    #[cfg(feature = "alloc")]
    fn agrees_with_scalar<T: VarInt>(input: &[u8], out_len: usize) {
        let mut want = alloc::vec![T::default(); out_len];
        let mut got = alloc::vec![T::default(); out_len];
        let expected = decode_slice_scalar(input, as_uninit(&mut want));
        let result = decode_slice(input, as_uninit(&mut got));
        assert_eq!(result, expected, "len {} out {out_len}", input.len());
        let valid = match expected {
            Ok((written, _)) => written,
            Err(error) => error.index(),
        };
        assert_eq!(got[..valid], want[..valid]);
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn long_runs_switch_paths_and_agree_with_scalar() {
        for seed in 0..4 {
            let mut input = runs_stream(seed);
            for out_len in [input.len(), 5000, 77] {
                agrees_with_scalar::<u64>(&input, out_len);
                agrees_with_scalar::<u32>(&input, out_len);
                agrees_with_scalar::<u16>(&input, out_len);
                agrees_with_scalar::<u8>(&input, out_len);
            }
            // Errors deep inside: an overlong varint, then a cut-off end.
            let middle = input.len() / 2;
            input.splice(middle..middle, [0xff; 11]);
            agrees_with_scalar::<u64>(&input, input.len());
            input.truncate(middle);
            input.push(0x80);
            agrees_with_scalar::<u64>(&input, input.len());
        }
    }

    #[test]
    fn continuation_bits_pick_bit_7_of_each_byte() {
        for byte in 0..8 {
            for other in [0x00u64, 0x7f7f_7f7f_7f7f_7f7f] {
                let word = other | 0x80 << (8 * byte);
                assert_eq!(continuation_bits(word), 1 << byte);
            }
        }
        assert_eq!(continuation_bits(u64::MAX), 0xff);
        assert_eq!(continuation_bits(0x7f7f_7f7f_7f7f_7f7f), 0);
        assert_eq!(continuation_bits(0x0080_8000_0080_0080), 0b0110_0101);
    }

    #[test]
    fn table_entries_describe_their_chunk() {
        // 1, 2, 1, 3 and a 1-byte tail: ends at 0, 2, 3, 6; continuation
        // bits at 1, 4, 5, 7.
        let e = &TABLE[0b1011_0010];
        assert_eq!((e.n, e.first, e.tail, e.max_rest), (4, 0, 1, 3));
        assert_eq!(e.control[..4], [ZERO; 4]);
        assert_eq!(e.control[4..8], [9, 10, ZERO, ZERO]);
        assert_eq!(e.control[8..12], [11, ZERO, ZERO, ZERO]);
        assert_eq!(e.control[12..16], [12, 13, 14, ZERO]);
        assert_eq!(e.control[16..], [ZERO; 16]);
        let none = &TABLE[0xff];
        assert_eq!((none.n, none.tail), (0, 8));
    }

    #[test]
    fn lane0_control_takes_the_bytes_before_the_chunk() {
        assert_eq!(lane0_control(0, 1), 0xffff_ff08);
        assert_eq!(lane0_control(2, 3), 0xff08_0706);
        assert_eq!(lane0_control(3, 4), 0x0807_0605);
    }
}
