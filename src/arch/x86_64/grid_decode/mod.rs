//! The fixed-grid bulk decoder shared by the SSSE3 and AVX2 backends
//! (`ssse3::decode_slice`, `avx2::decode_slice`: each implements [`Kernel`]
//! for its register width and is the `#[target_feature]` entry point): a
//! table-driven gather in the manner of
//! Masked VByte (Plaisance, Kurz and Lemire, "Vectorized VByte Decoding",
//! 2015), but on a **fixed grid** of 7-byte chunks.
//!
//! # Why a fixed grid
//!
//! Masked VByte advances the input by the number of bytes its table says a
//! step consumed, so each step waits for the previous step's load,
//! `pmovmskb` and table load (a chain of about 15 cycles). Here step `c`
//! looks at the chunk `[q, q + 7)`, `q = q0 + 7c` whatever the data, and
//! decodes exactly the varints whose **last byte** lies in the chunk. The
//! steps do not wait for each other: the only values carried from one to the
//! next are the output position (`+= n`) and `carry`, the number of bytes of
//! the varint that enters the chunk from before it (an `and` and an add,
//! both with an operand from the table). No serial `tzcnt` per value, no
//! `PDEP`/`PEXT` (microcoded on AMD before Zen 3).
//!
//! # Blocks of nine chunks
//!
//! The steps run in blocks of 9 chunks (63 bytes). A block loads the
//! continuation bits of its 64 bytes once (two `pmovmskb` for AVX2, four
//! for SSSE3) and each chunk takes its 7 bits from that `u64` with a
//! constant shift: the table index no longer waits for the chunk's own
//! window load and `pmovmskb` (9 to 10 cycles), which kept a step's
//! micro-ops waiting in the scheduler long enough to fill it (llvm-mca:
//! 11.5 cycles per step against 7 of port pressure). The block's 9 steps
//! are written out (no loop counter, constant shifts and offsets) with no
//! branch between them (all checks are `or`ed together and tested once at
//! the end), and software-pipelined: step `c + 1`'s table and window loads
//! come before step `c`'s arithmetic, which then finds its operands loaded
//! rather than waiting for them in the scheduler. An empty `asm!` fence
//! between steps keeps the compiler from hoisting the table work of all
//! nine steps to the top of the block (it then runs out of registers).
//! llvm-mca (Sapphire Rapids) on a block: 53 cycles, 5.9 per chunk (236
//! instructions, 26 per chunk). The AVX2 loop loads each block's mask one
//! block ahead (`Kernel::MASK_AHEAD`), so a block's first steps need not
//! wait for it either.
//!
//! The loop must stay free of 512-bit instructions where the build has
//! AVX-512 (target-cpu=native): while one is in flight, Intel cores fuse
//! ports 0 and 1 for vector work, and the steps' 256-bit work loses port
//! 1, a third of its vector ports. LLVM made one out of the block's two
//! 32-byte `vpmovmskb` (see `Avx2::mask64`), which cost the mix workload
//! 3-8% (medians of interleaved runs on a shared Sapphire Rapids VM; about
//! 10% on the best rounds).
//!
//! # One step
//!
//! The 16-byte window `[q - 9, q + 7)` is loaded (broadcast to both 128-bit
//! halves for AVX2). The chunk's 7 continuation bits (from the block's
//! mask) index the chunk table (2^7 = 128 entries of 64 bytes, one cache
//! line each: 8 KiB). With `e_0 < ... < e_{n-1}` the chunk's
//! varint ends (bytes without the continuation bit, `n <= 7`):
//!
//! * varints `1..n` start and end inside the chunk, so the entry alone
//!   knows their bytes: it holds `pshufb` controls that put varint `j`'s
//!   bytes into 64-bit lane `j` (control byte `0x80` makes a zero byte).
//!   They have at most 6 bytes; varints `3..n` at most 4, because three
//!   varints end before them in the chunk.
//! * varint 0 ends at `e_0` and starts `carry` bytes before the chunk, so
//!   it has `L = carry + e_0 + 1` bytes. Every varint of at most 10 bytes
//!   lies inside the window, whose 9 bytes before the chunk are the reason
//!   for the odd chunk size (16 - 9 = 7). Its control comes from a second table
//!   (indexed by `(L - 1, e_0)`, 8 rows of 16 bytes per length; the 80
//!   rows of lengths 1..=10, 1.25 KiB, are the ones valid input uses) and
//!   fills a whole 128-bit lane, bytes 0..L.
//!
//! The values are computed in two vectors of four 64-bit lanes, A = (varint
//! 0's bytes 0..8, its bytes 8..10, varints 1 and 2) and B = (varints 3..6,
//! unused). The window, continuation bits masked off, is shuffled by each
//! control. `pmaddubsw` by `[1, 128]` merges byte pairs into 14-bit groups
//! (`b0 + 128 * b1`), `pmaddwd` by `[1, 2^14]` pairs of those into 28 bits
//! per 32-bit lane. In A, `(x & (2^28 - 1)) | (x >> 32) << 28` joins the two
//! 28-bit halves of each 64-bit lane and varint 0's bytes 8 and 9 (14 bits
//! in lane 1) are added at bit 56. B's varints have at most 4 bytes, so its
//! 28-bit results already are 64-bit values. Seven values are stored
//! (lanes 0, 2, 3 of A at `out[0..3]`, B at `out[3..7]`, overlapping) and
//! `n` of them kept, so a step needs room for 7 values.
//!
//! # Validation and fallback
//!
//! The scalar decoder accepts a varint of at most `MAX_LEN` bytes whose
//! value fits `T` (for `u64`: a 10th byte of 0 or 1, as Go protowire).
//! The length of varint 0 comes with its control: byte 15 of each control
//! row (a zero byte for `pshufb`, never one of the 10 bytes) holds
//! `0x80 | too_long(L)`, one bit for each `MAX_LEN` (10, 5, 3, 2) that `L`
//! exceeds, and the steps `or` it into a byte tested once per block. The
//! table has rows for every `L` a block can meet (a carry of at most 10
//! bytes into the block, longer ones are clamped since they fail anyway, 7
//! more per chunk without an end: `L - 1 <= 72`, 584 rows of 16 bytes), so
//! no step needs a bounds check before its load; the rows beyond 10 bytes
//! are only read for invalid input. The value is checked on the vectors: for `u64`, lane
//! 1 of A holds `b8 + 128 * b9` (varint 0's bytes 8 and 9, zero when it is
//! shorter), which is below 256 exactly when the 10th byte is 0 or 1; for
//! narrower types the chunk's longest varint `1..n` must have at most
//! `MAX_LEN` bytes (`too_long` bits of a 128-byte table), and a vector
//! test compares the values with `T::MAX`. Varints `1..n` of a `u64` chunk
//! have at most 6 bytes and always fit. The value checks `or` the vectors
//! of the block's 9 steps together and test once. A block that fails either
//! goes, whole, to the
//! scalar single-value decoder, which decodes the varints that end in the
//! block (as many as its 63 bytes have bytes without the continuation bit)
//! from the start of the varint in progress, rewriting what the steps
//! stored, and reports the exact error, index and byte offset. A chunk
//! without a varint end stores nothing and adds 7 to `carry` (a varint
//! then longer than any `MAX_LEN` fails the length check of the chunk
//! where it ends, or of the next block).
//!
//! # Special cases
//!
//! * A block whose 64 bytes are all one-byte varints (and no varint in
//!   progress) switches to widening 32 bytes into 32 values per step while
//!   the next 32 bytes have no continuation bit (`ones_run`; also from
//!   byte 0, without the scalar head, when the input starts so).
//! * A block whose varints all have one or two bytes (no continuation byte
//!   after another: small counts, enums with the odd large value, zigzag
//!   near zero) switches to `twos_run`: 8 bytes per table lookup, `pshufb`
//!   and `pmaddubsw`, while the next 64 bytes are such too. On the Zen 1
//!   host, W = 4096 values from a 1M pool: 95% 1-byte + 5% 2-byte 0.96 ->
//!   2.9 G values/s, all 2-byte 1.5 G/s, the mix unchanged (its blocks
//!   hold 4-byte varints).
//! * A block whose varints all have at most three bytes, not all one or
//!   two (no three continuation bytes in a row, counting those carried
//!   into it: 3-byte offsets and deltas among shorter values), switches
//!   to `threes_run` for `u32` and `u64` (not the signed decode): 4 bytes
//!   per table lookup, `pshufb`, `pmaddubsw` and `pmaddwd` into 32-bit
//!   lanes, while the next 64 bytes are such too. Callgrind, AVX2, `u32`:
//!   4,096 varints of 3 bytes 18.8 -> 8.9 instructions per value, 60%
//!   1-byte / 30% 2-byte / 10% 3-byte 9.5 -> 4.6; the check costs the
//!   blocks it rejects about 0.4 per value (the u32 mix 10.9 -> 11.3).
//! * A delta decode (`delta::decode_slice` through `decode_delta_with`:
//!   each value the running sum of the gaps, wrapping) takes the same
//!   paths with `DELTA`: the one- and two-byte runs store their values
//!   summed, each vector's lanes prefix-summed in registers as they are
//!   widened (`Kernel::widen_32_sum`, `Kernel::widen_words_sum`: the chain
//!   from one step to the next is one add per 32 values), and the values
//!   of the other paths are summed by a second pass (`Running`) every
//!   [`DELTA_BLOCKS`] blocks, [`DELTA_LAG`] values behind the stores, and
//!   before each run and at the end. Where the varints are longer the
//!   steps cost several times that pass, which a fused sum in them would
//!   not repay (BENCHMARKS.md, "Delta-coded lists and short 1-byte runs").
//! * A signed LEB128 decode (`sleb128::decode_slice` through
//!   `decode_signed_with`, into the bits of `i32` or `i64`) takes the same
//!   paths with `SIGNED`, in one pass. A varint's value is `sum b_i *
//!   128^i` with its last byte read as a signed 7-bit group `(b ^ 0x40) -
//!   0x40`: each window gets bit 6 of the bytes without a continuation
//!   bit copied into bit 7 ([`signed_bytes`], three instructions), and as
//!   the window is the signed operand of `pmaddubsw`, the pairs and
//!   quads come out signed (the groups before the last byte unsigned,
//!   those after it zero). The halves of a lane are joined with sign
//!   extension (each half's sign bit flipped, the unsigned join, an
//!   offset subtracted), B's lanes sign-extended for `i64`. The signed rules are one
//!   add and one test on A's halves ([`signed_bias`]) beside the unsigned
//!   length checks (`i32` and `u32` both have at most 5 bytes, `i64` and
//!   `u64` 10); the one- and two-byte runs sign-extend as they widen; the
//!   scalar paths (head, tail, failing blocks, long varints) are the
//!   signed reference's, which reports the exact error.
//! * After each block the output count is checked: fewer than one value
//!   per chunk (8..10-byte varints: random `u64`, nanosecond timestamps)
//!   costs more per value than the scalar decoder, which then takes the
//!   next 1024 values.
//! * The first bytes (so that the first window starts at or after byte
//!   0), the last ones (fewer than 64 left for a block's mask), those for
//!   which fewer than 63 output slots remain, and whole inputs under 128
//!   bytes are decoded in pieces of under 128 bytes that end with a
//!   varint, each copied into a zeroed buffer with 9 zero bytes before it
//!   and padding after it, where one or two blocks cover it
//!   (`short_blocks`; the padding's zeros decode as values past the
//!   piece's, into a scratch buffer where `out` lacks the room). What a
//!   piece cannot take (under 16 bytes, an error, a truncated last
//!   varint, long varints, too few slots) goes to the scalar decoder. No
//!   load leaves `input`, no store leaves `out`.

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use crate::arch::scalar::fallback::{fallback_slice, fallback_tail, fallback_values};
use crate::arch::x86_64::sse2::prefix_sum;
use crate::error::BulkDecodeError;
use crate::varint::VarInt;

mod tables;

pub(super) use tables::ZERO;
use tables::{
    too_long_bit, Entry, Tables, ThreesEntry, BEFORE, BLOCK_BYTES, BLOCK_CHUNKS, CHUNK, LANE0_ROWS,
    MASK_BYTES, TABLES, THREES, TWOS,
};

/// Fewer values than this in a block (under one varint per chunk: mostly
/// 8-10-byte varints) switch to the scalar decoder, which costs less per
/// value than a chunk step when a step yields less than one value.
const SPARSE: usize = BLOCK_CHUNKS;
/// Values decoded by the scalar decoder before the vector steps resume.
const SCALAR_STRETCH: usize = 1024;
/// The vector operations of one step, for 32-byte (AVX2) and 16-byte
/// (SSSE3) registers. A "quad" is four 64-bit lanes.
pub(super) trait Kernel {
    /// The window, continuation bits cleared (broadcast to 32 bytes for AVX2).
    type Window: Copy;
    /// Four 64-bit lanes.
    type Quad: Copy;
    /// Whether the block loop loads the next block's [`Kernel::mask64`]
    /// one block ahead. AVX2: its chunks' table indices then need not
    /// wait for the mask's loads and `pmovmskb` (A/B, fastest rounds of
    /// alternating runs, mix: 1.02-1.2x, median about 1.035x); SSSE3,
    /// with four `pmovmskb` and half the registers: 0.95-1.0x, so no.
    const MASK_AHEAD: bool;

    /// Loads the 16 bytes at `src`, continuation bits cleared; with
    /// `SIGNED`, bytes without the continuation bit get bit 6 copied into
    /// bit 7 ([`signed_bytes`]: a varint's last byte as a signed 7-bit
    /// group for `pmaddubsw`).
    ///
    /// # Safety
    /// 16 bytes must be readable at `src`; the CPU must have the kernel's features.
    unsafe fn window<const SIGNED: bool>(src: *const u8) -> Self::Window;
    /// The continuation bits of the 64 bytes at `src` (bit `i`: byte `i`).
    ///
    /// # Safety
    /// 64 bytes must be readable at `src`; CPU features.
    unsafe fn mask64(src: *const u8) -> u64;
    /// A quad of zeros.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn zero() -> Self::Quad;
    /// The lane-wise `or` of `x` and `y`.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn or(x: Self::Quad, y: Self::Quad) -> Self::Quad;
    /// The `pshufb` controls of a quad.
    type Control: Copy;

    /// Vector A's control: `lane0` (16 bytes) for lanes 0-1, `rest` (16
    /// bytes) for lanes 2-3.
    ///
    /// # Safety
    /// 16 bytes must be readable at `lane0` and at `rest`; CPU features.
    unsafe fn control_a(lane0: *const u8, rest: *const u8) -> Self::Control;
    /// Vector B's control, the 32 bytes at `control`.
    ///
    /// # Safety
    /// 32 bytes must be readable at `control`; CPU features.
    unsafe fn control_b(control: *const u8) -> Self::Control;
    /// The window shuffled by `control` (`pshufb`).
    ///
    /// # Safety
    /// CPU features.
    unsafe fn shuffle(window: Self::Window, control: Self::Control) -> Self::Quad;
    /// `pmaddubsw` + `pmaddwd`: 28-bit values in each 32-bit lane.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn pack28(x: Self::Quad) -> Self::Quad;
    /// Joins the two 28-bit halves of each 64-bit lane, `extra` `or`ed
    /// in at bits 28..64 (bits 56..64 of lane 0 for varint 0's 9th and
    /// 10th bytes, see [`Kernel::lane1_at_56`], else zero): with `M` =
    /// `2^28 - 1` per lane, `x & M | (x >> 4 | extra) & !M`, one `vpternlog`
    /// bit select where AVX-512VL is enabled. Bits 28..32 of `x` are zero
    /// (28-bit halves), so `x >> 4` puts the high half at bits 28..56.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn pack56(x: Self::Quad, extra: Self::Quad) -> Self::Quad;
    /// [`Kernel::pack56`] of a signed decode into `i64` values: each
    /// 64-bit lane `sext(lo) + (sext(hi) << 28) + extra` for its 32-bit
    /// halves `lo`, `hi` (signed: the group holding a varint's last byte
    /// is negative when its sign bit is set, the groups before it are
    /// 28-bit payloads). `extra` as for [`Kernel::pack56`].
    ///
    /// # Safety
    /// CPU features.
    unsafe fn pack56_signed(x: Self::Quad, extra: Self::Quad) -> Self::Quad;
    /// [`Kernel::pack56_signed`] where only the low 32 bits of each lane
    /// are stored (an `i32` decode): `lo + (hi << 28)` in the low 32 bits,
    /// wrapping.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn pack32_signed(x: Self::Quad) -> Self::Quad;
    /// Each 64-bit lane sign-extended from its low 32 bits (whose high 32
    /// bits are zero): vector B of a signed `i64` decode.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn extend_low(x: Self::Quad) -> Self::Quad;
    /// The lanes of `x` and `y` added as 32-bit lanes.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn add32(x: Self::Quad, y: Self::Quad) -> Self::Quad;
    /// A quad of the four 64-bit `lanes`.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn quad(lanes: [u64; 4]) -> Self::Quad;
    /// Whether `x` and `mask` have a set bit in common.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn any_common(x: Self::Quad, mask: Self::Quad) -> bool;
    /// The low byte of lane 1 (varint 0's 9th and 10th bytes, `b8 + 128 *
    /// b9`, below 256 for a valid `u64`) at bits 56..64 of lane 0, zeros
    /// elsewhere: one `pshufb` (byte 8 to byte 7).
    ///
    /// # Safety
    /// CPU features.
    unsafe fn lane1_at_56(x: Self::Quad) -> Self::Quad;
    /// Whether lane 1 of A (after [`Kernel::pack56`]), `b8 + 128 * b9`
    /// for varint 0's bytes 8 and 9, is 256 or more: a 10th byte above 1,
    /// a value beyond `u64` (`a` may be the `or` of several such vectors).
    ///
    /// # Safety
    /// CPU features.
    unsafe fn tenth_byte_overflows(a: Self::Quad) -> bool;
    /// Whether any lane of `x` has a bit at or above `bits` set.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn exceeds(x: Self::Quad, bits: u32) -> bool;
    /// Stores lane 0 of `a` to `dst[0]`, lanes 2-3 to `dst[1..3]` and the
    /// lanes of `b` to `dst[3..7]`, narrowed to `T`.
    ///
    /// # Safety
    /// `dst` must be valid for writing 7 `T`; CPU features.
    unsafe fn store<T: VarInt>(dst: *mut T, a: Self::Quad, b: Self::Quad);
    /// Whether the 32 bytes at `src` all lack the continuation bit.
    ///
    /// # Safety
    /// 32 bytes must be readable at `src`; CPU features.
    unsafe fn all_ends_32(src: *const u8) -> bool;
    /// Widens the 32 bytes at `src` (all below 0x80) to 32 `T` at `dst`;
    /// with `SIGNED` (`T` of 32 or 64 bits), each byte is a one-byte
    /// signed varint, sign-extended from bit 6.
    ///
    /// # Safety
    /// 32 bytes readable at `src`, 32 `T` writable at `dst`; CPU features.
    unsafe fn widen_32<T: VarInt, const SIGNED: bool>(dst: *mut T, src: *const u8);
    /// Widens the 8 16-bit words of `words` to 8 `T` at `dst` (`T` of
    /// at least 16 bits); with `SIGNED` (`T` of 32 or 64 bits) the words
    /// are signed and sign-extended.
    ///
    /// # Safety
    /// 8 `T` writable at `dst`; CPU features.
    unsafe fn widen_words<T: VarInt, const SIGNED: bool>(dst: *mut T, words: __m128i);
    /// The running sum of a delta decode in a register: the sum in
    /// every lane of `T`'s width (`T` of 32 or 64 bits).
    type Sum: Copy;
    /// `sum` (wrapped to `T`) in every lane.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn sum_splat<T: VarInt>(sum: u64) -> Self::Sum;
    /// The running sum held by `sum`.
    ///
    /// # Safety
    /// CPU features.
    unsafe fn sum_get<T: VarInt>(sum: Self::Sum) -> u64;
    /// [`Kernel::widen_32`] fused with the running sum of a delta decode:
    /// stores at `dst` the 32 values `sum + b[0] + ... + b[i]` (wrapping in
    /// `T`, of 32 or 64 bits) of the 32 bytes `b` at `src` (all below
    /// 0x80) and returns the last one. The lanes are summed in registers
    /// as they are widened (shift-and-add within the vector, then the
    /// running sum added), so the values are stored once, summed; the
    /// chain from one call to the next is an add per vector of values or
    /// fewer (the vectors' own totals are computed off that chain).
    ///
    /// # Safety
    /// 32 bytes readable at `src`, 32 `T` writable at `dst`; CPU features.
    unsafe fn widen_32_sum<T: VarInt>(dst: *mut T, src: *const u8, sum: Self::Sum) -> Self::Sum;
    /// [`Kernel::widen_words`] fused with the running sum (as
    /// [`Kernel::widen_32_sum`]) for the words of a two-byte group, each
    /// below 2^14 (the words past the group's varints are zero, so the
    /// slots after its values all get the last sum): returns `sum` plus
    /// the group's total.
    ///
    /// # Safety
    /// 8 `T` writable at `dst`; CPU features.
    unsafe fn widen_words_sum<T: VarInt>(dst: *mut T, words: __m128i, sum: Self::Sum) -> Self::Sum;
    /// `x.rotate_right(N)`.
    #[inline(always)]
    fn rotate_right<const N: u32>(x: u64) -> u64 {
        x.rotate_right(N)
    }
}

/// `pmaddubsw` multipliers: byte pairs `b0 + 128 * b1`.
pub(super) const PAIRS: i16 = 0x8001u16 as i16;
/// `pmaddwd` multipliers: 14-bit pairs `p0 + 2^14 * p1`.
pub(super) const QUADS: i32 = 1 | (1 << 14) << 16;

/// The bytes of `x` (16 input bytes) as a signed decode's steps read
/// them: continuation bits cleared, and bit 6 copied into bit 7 of the
/// bytes without one, so that a varint's last byte is its signed 7-bit
/// group `(b ^ 0x40) - 0x40` to `pmaddubsw`, whose pair sums `b0 + 128 *
/// s1` (at most 8,191 in magnitude) and quad sums are then the signed
/// values of their groups. Bit 7 of the saturating `b + 0x40` is set
/// exactly for the bytes from 0x40 up: the continuation bytes, whose bit
/// 7 the `xor` clears, and the last bytes with bit 6 set, whose bit 7 it
/// sets.
///
/// # Safety
/// The CPU must have SSE2.
#[inline(always)]
pub(super) unsafe fn signed_bytes(x: __m128i) -> __m128i {
    // SAFETY: SSE2 (caller); no memory access.
    unsafe {
        let at_least_0x40 = _mm_adds_epu8(x, _mm_set1_epi8(0x40));
        _mm_xor_si128(x, _mm_and_si128(at_least_0x40, _mm_set1_epi8(0x80u8 as i8)))
    }
}

/// A one-byte varint's value as `T`: the byte, or with `SIGNED` the byte
/// sign-extended from bit 6 (as `T`'s bits).
#[inline(always)]
fn one_byte<T: VarInt, const SIGNED: bool>(byte: u8) -> T {
    if SIGNED {
        T::from_u64_unchecked((((byte << 1) as i8) >> 1) as i64 as u64)
    } else {
        T::from_u64_unchecked(u64::from(byte))
    }
}

/// Stores the four 32-bit lanes of `x` as four `T` (size 1, 2 or 4) at `dst`.
///
/// # Safety
/// 4 writable `T` at `dst`; the CPU must have SSSE3.
#[inline(always)]
pub(super) unsafe fn store_u32x4<T: VarInt>(dst: *mut T, x: __m128i) {
    // SAFETY: 4 writable `T` at `dst` (caller); the stores write 4 * size_of::<T>() bytes.
    unsafe {
        match core::mem::size_of::<T>() {
            4 => _mm_storeu_si128(dst.cast(), x),
            2 => {
                let words = _mm_shuffle_epi8(
                    x,
                    _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1),
                );
                _mm_storel_epi64(dst.cast(), words);
            }
            _ => {
                let bytes = _mm_shuffle_epi8(
                    x,
                    _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
                );
                dst.cast::<i32>().write_unaligned(_mm_cvtsi128_si32(bytes));
            }
        }
    }
}

/// The fused steps of a delta decode for `T` of 8 or 16 bits (never a
/// delta type, but the kernels are generic): the `n` values at `dst`,
/// already widened, are summed one by one from `sum`; returns the last.
///
/// # Safety
/// `n` initialized `T` at `dst`, writable.
#[inline(always)]
pub(super) unsafe fn sum_in_place<T: VarInt>(dst: *mut T, n: usize, sum: u64) -> u64 {
    let mut sum = sum;
    for i in 0..n {
        // SAFETY: `dst[i]` is initialized and writable (caller).
        unsafe {
            sum = sum.wrapping_add((*dst.add(i)).to_u64());
            dst.add(i).write(T::from_u64_unchecked(sum));
        }
    }
    sum
}

/// A reference to one of the decoder's tables whose address the compiler
/// keeps in a register instead of reloading it from the global offset
/// table at every use (through [`opaque`]).
#[inline(always)]
fn in_register<T>(table: &'static T) -> &'static T {
    // SAFETY: opaque(0) is 0: the same reference to the static.
    unsafe { &*(table as *const T).cast::<u8>().add(opaque(0)).cast::<T>() }
}

/// `x`, whose value the compiler no longer knows: an empty `asm!` block
/// returns it in the same register (no instruction is emitted).
///
/// Adding `opaque(0)` to a pointer keeps the compiler from relating it to
/// others: it would otherwise see that a block's 64-byte mask loads cover
/// its 16-byte windows and build each window from the mask registers
/// (moves to general registers, double shifts and back: about 15
/// instructions instead of one broadcast load), and it would reload the
/// tables' address from the global offset table at every use.
#[inline(always)]
pub(super) fn opaque(x: usize) -> usize {
    let out: usize;
    // SAFETY: an empty template: the register keeps its value; no memory,
    // stack or flags are touched.
    unsafe {
        core::arch::asm!("/* {0} */", inlateout(reg) x => out, options(pure, nomem, nostack, preserves_flags));
    }
    out
}

/// What the first half of a chunk step loads: the window and the controls
/// (see [`prepare`]).
struct Prepared<K: Kernel> {
    window: K::Window,
    a: K::Control,
    b: K::Control,
    /// The entry's `n_8`.
    n_8: u32,
}

/// The first half of the step of chunk `C` of the block at `at` (see
/// [`decode_block`]): its table entry, window and controls; updates
/// `carry_128` for the next chunk and `or`s into `too_long` the
/// [`too_long`] bits of varint 0 (and, for narrow `T`, of the chunk's
/// other varints). No branch: the block is one basic block, which keeps
/// each window one broadcast load.
///
/// # Safety
/// `at[7C - BEFORE..7C + CHUNK]` must be readable, `*carry_128` at most
/// `128 * (10 + 7C)`; the CPU must have `K`'s features.
#[inline(always)]
unsafe fn prepare<K: Kernel, T: VarInt, const SIGNED: bool, const C: usize, const ROTATE: u32>(
    tables: &'static Tables,
    at: *const u8,
    mask: u64,
    carry_128: &mut u32,
    too_long: &mut u8,
) -> Prepared<K> {
    let index = (mask >> (CHUNK * C)) as usize & ((1 << CHUNK) - 1);
    // The entry's byte offset, 64 * index, with one rotate (BMI2 `rorx`,
    // which leaves `mask` in place) and one `and`.
    let offset = K::rotate_right::<ROTATE>(mask) as usize & (127 << 6);
    const { assert!(ROTATE as usize == (CHUNK * C + 64 - 6) % 64) };
    debug_assert_eq!(offset, index * size_of::<Entry>());
    // SAFETY: offset = 64 * index, index < 128: an entry of `chunks`.
    let entry = unsafe {
        &*tables
            .chunks
            .as_ptr()
            .cast::<u8>()
            .add(offset)
            .cast::<Entry>()
    };
    // 128 * (L - 1) + 16 * first: row 8 * (L - 1) + first of `lane0`.
    let lane0_offset = (*carry_128 + entry.first_offset) as usize;
    debug_assert!(lane0_offset < 16 * LANE0_ROWS);
    if T::MAX_LEN < CHUNK - 1 {
        *too_long |= tables.rest_too_long[index];
    }
    // 32-bit arithmetic: the `and` and the add take their operands
    // straight from the entry (no separate loads).
    *carry_128 = (*carry_128 & entry.keep) + entry.tail_128;
    // Why the accesses below hold: carry <= 10 + 7C bytes (caller) and
    // first <= 6, so L - 1 <= LANE0_MAX_LEN_MINUS_1 and the lane0 row
    // exists; the entry's rows are 16 and 32 bytes.
    // SAFETY: the window at[7C - 9..7C + 7) is readable (caller); the rows
    // exist (above); CPU (caller).
    unsafe {
        let lane0 = tables.lane0.as_ptr().cast::<u8>().add(lane0_offset);
        *too_long |= *lane0.add(15);
        Prepared {
            window: K::window::<SIGNED>(at.add(CHUNK * C).sub(BEFORE)),
            a: K::control_a(lane0, entry.rest.as_ptr()),
            b: K::control_b(entry.b.as_ptr()),
            n_8: entry.n_8,
        }
    }
}

/// The second half of a chunk step: computes the values, stores them at
/// `start.byte_add(*offset)` and moves `*offset` (bytes) past them, and
/// `or`s the packed vectors into `seen` (with `SIGNED`, vector A's 28-bit
/// halves plus [`signed_bias`]).
///
/// # Safety
/// The 7 `T` at `start.byte_add(*offset)` must be writable; the CPU must
/// have `K`'s features.
#[inline(always)]
unsafe fn finish<K: Kernel, T: VarInt, const SIGNED: bool>(
    p: Prepared<K>,
    start: *mut T,
    offset: &mut u32,
    seen: &mut K::Quad,
    bias: K::Quad,
) {
    // SAFETY: (start + offset)[0..7] is writable (caller); CPU (caller).
    unsafe {
        let a = K::pack28(K::shuffle(p.window, p.a));
        let b = K::pack28(K::shuffle(p.window, p.b));
        if SIGNED {
            // Vector B's varints have at most 4 bytes: 28-bit signed
            // values, which fit both types; A's are checked.
            *seen = K::or(*seen, K::add32(a, bias));
            let (a, b) = if size_of::<T>() == 8 {
                (K::pack56_signed(a, K::lane1_at_56(a)), K::extend_low(b))
            } else {
                (K::pack32_signed(a), b)
            };
            K::store::<T>(start.byte_add(*offset as usize), a, b);
            *offset += p.n_8 >> (3 - size_of::<T>().trailing_zeros());
            return;
        }
        let a = if T::MAX_LEN > 4 {
            let extra = if T::MAX_LEN > 8 {
                K::lane1_at_56(a)
            } else {
                K::zero()
            };
            K::pack56(a, extra)
        } else {
            a
        };
        *seen = if T::MAX_U64 != u64::MAX {
            K::or(*seen, K::or(a, b))
        } else {
            K::or(*seen, a)
        };
        K::store::<T>(start.byte_add(*offset as usize), a, b);
        // n <= 7 values: the offset stays inside or one past the 7 slots
        // (caller). For `u64` one 32-bit add from memory: `n_8` is the
        // bytes to skip.
        *offset += p.n_8 >> (3 - size_of::<T>().trailing_zeros());
    }
}

/// The value check of a signed decode, on vector A's 32-bit halves
/// (after `pmaddubsw` and `pmaddwd` of the signed window), as a bias added
/// to them and the bits that must then be clear in every step's sum
/// (`or`ed over the block's steps: one test per block).
///
/// * `i32` (`T` = `u32`): a varint of 5 bytes has its low 28 bits in the
///   low half and its 5th byte, signed, in the high half `hi`; the value
///   `lo + 2^28 * hi` fits `i32` exactly when `hi` is in -8..=7 (a 5th
///   byte of `0x00..=0x07` or `0x78..=0x7f`), i.e. `hi + 8` below 16.
///   Shorter varints have `hi` = 0; longer ones fail the length check.
/// * `i64` (`T` = `u64`): lane 1 holds `b8 + 128 * s9` for varint 0's
///   9th byte and its signed 10th (a signed 9th byte alone when it has
///   9, zero when it is shorter), which is in -128..=127 exactly when the
///   10th byte is `0x00` or `0x7f`: plus 128, below 256.
///
/// Returns (bias, bits that must be clear), four 64-bit lanes each.
const fn signed_bias<T: VarInt>() -> ([u64; 4], [u64; 4]) {
    if size_of::<T>() == 8 {
        ([0, 128, 0, 0], [0, !0xff, 0, 0])
    } else {
        ([8 << 32; 4], [!0xf << 32; 4])
    }
}

/// A compiler scheduling fence: an empty `asm!` block that may touch
/// memory, so that no load or store moves across it. Without it, the
/// compiler hoists the table work of all 9 chunks of a block (a single
/// basic block) ahead of the vector work and runs out of registers.
#[inline(always)]
fn fence() {
    // SAFETY: an empty template: nothing is read or written.
    unsafe { core::arch::asm!("", options(nostack, preserves_flags)) }
}

/// Decodes the block of [`BLOCK_CHUNKS`] chunks at `at` (`at[-9..63]` is
/// the input; `mask` holds the continuation bits of `at[0..64]`) into
/// `dst`, whose varint 0 began `carry_128 / 128` bytes before `at`.
/// Returns the number of values stored and the next block's `carry_128`, or
/// `None` if the block needs the scalar decoder: a varint 0 longer than
/// `T::MAX_LEN`, a narrow `T`'s varint in a chunk longer than `T::MAX_LEN`,
/// or a value too large for `T`. Whatever it returns, it may have stored
/// anything into `dst[0..63]`.
///
/// # Safety
/// `at[-BEFORE..BLOCK_BYTES]` must be readable, `dst[0..BLOCK_BYTES]`
/// writable; the CPU must have `K`'s features.
#[inline(always)]
unsafe fn decode_block<K: Kernel, T: VarInt, const SIGNED: bool>(
    at: *const u8,
    mask: u64,
    dst: *mut T,
    carry_128: usize,
) -> Option<(usize, usize)> {
    let tables = in_register(&TABLES);
    let start = dst;
    // The bytes stored so far (at most 63 values): the next chunk's values
    // go to `start.byte_add(offset)`.
    let mut offset = 0u32;
    // At most 10 bytes (a longer varint fails anyway), which bounds the
    // varint-0 lengths the block can see (`LANE0_ROWS`); below 2^32, which
    // `keep` can mask.
    let mut carry_128 = carry_128.min(128 * 10) as u32;
    let mut too_long = 0u8;
    // The `or` of every packed vector that the value check looks at:
    // one test per block instead of one per chunk.
    // SAFETY: CPU (caller).
    let mut seen = unsafe { K::zero() };
    // SAFETY: CPU (caller); no memory access.
    let bias = unsafe {
        if SIGNED {
            K::quad(signed_bias::<T>().0)
        } else {
            K::zero()
        }
    };
    // The chunks written out (the compiler does not unroll a loop this
    // large), so that each takes its table index from `mask` with a
    // constant shift, and software-pipelined: chunk c + 1's loads are
    // issued before chunk c's arithmetic, which then finds its operands
    // loaded instead of waiting for them in the scheduler.
    // (c, (7c - 6) mod 64): the rotation that moves chunk c's bits to bits
    // 6..13, the byte offset of its 64-byte entry (checked in `prepare`).
    macro_rules! prepare {
        ($c:literal, $rotate:literal) => {
            // carry_128 started at most 128 * 10 and grew by at most 128 * 7 per chunk.
            // SAFETY: chunk c < 9 reads at[7c - 9..7c + 7], inside at[-9..63) (caller); CPU.
            unsafe {
                prepare::<K, T, SIGNED, $c, $rotate>(
                    tables,
                    at,
                    mask,
                    &mut carry_128,
                    &mut too_long,
                )
            }
        };
    }
    macro_rules! finish {
        ($prepared:expr) => {
            // At most 7 values per earlier chunk: the offset is at most
            // 7c values.
            // SAFETY: (start + offset)[0..7] is inside start[0..63] (caller); CPU (caller).
            unsafe { finish::<K, T, SIGNED>($prepared, start, &mut offset, &mut seen, bias) }
        };
    }
    let mut p = prepare!(0, 58);
    macro_rules! chunks {
        ($(($c:literal, $rotate:literal))*) => {$(
            let next = prepare!($c, $rotate);
            finish!(p);
            p = next;
            fence();
        )*};
    }
    chunks!((1, 1)(2, 8)(3, 15)(4, 22)(5, 29)(6, 36)(7, 43)(8, 50));
    finish!(p);
    const _: () = assert!(BLOCK_CHUNKS == 9 && size_of::<Entry>() == 64);
    // SAFETY: CPU (caller); no memory access.
    let overflows = unsafe {
        if SIGNED {
            K::any_common(seen, K::quad(signed_bias::<T>().1))
        } else if T::MAX_U64 != u64::MAX {
            K::exceeds(seen, T::MAX_U64.count_ones())
        } else {
            K::tenth_byte_overflows(seen)
        }
    };
    if overflows || too_long & too_long_bit(T::MAX_LEN) != 0 {
        None
    } else {
        let written = offset as usize / size_of::<T>();
        Some((written, carry_128 as usize))
    }
}

/// Why the vector blocks stopped.
enum Exit {
    /// The planned blocks are done.
    Done,
    /// A run of one-byte varints starts at the position.
    Ones,
    /// A run of varints of at most two bytes starts at the position (or
    /// one byte before it, `carry_128 == 128`).
    Twos,
    /// A run of varints of at most three bytes starts at the position (or
    /// up to two bytes before it, `carry_128`).
    Threes,
    /// The block at the position needs the scalar decoder; its mask.
    Slow(u64),
    /// The last block yielded fewer than [`SPARSE`] values.
    Sparse,
}

/// The decoder shared by both flavours; see the module documentation.
/// Decodes from `input[start..]` into `out`; returns (values, position of
/// the next varint in `input`), and errors with the index in `out` and the
/// offset in `input`. With `PARTIAL` (a caller that decodes a long input
/// a batch at a time: a packed field through a stack buffer), it stops
/// where whole blocks no longer fit, leaving the last bytes or slots to
/// the next call, and takes the bytes before `start` as the first
/// window's (no scalar head): the batches then run at the blocks' speed.
/// A call that decodes nothing that way decodes the rest as usual, so
/// every call makes progress.
///
/// # Safety
/// The CPU must support the features `K`'s operations use.
#[inline(always)]
pub(super) unsafe fn decode_slice_with<
    K: Kernel,
    T: VarInt,
    const PARTIAL: bool,
    const DELTA: bool,
    const SIGNED: bool,
>(
    input: &[u8],
    start: usize,
    out: &mut [MaybeUninit<T>],
    running: &mut Running,
) -> Result<(usize, usize), BulkDecodeError> {
    // A signed decode is into the bits of `i32` or `i64`, never summed.
    const { assert!(!SIGNED || (!DELTA && (size_of::<T>() == 4 || size_of::<T>() == 8))) };
    let len = input.len();
    let out_len = out.len();
    let src = input.as_ptr();
    debug_assert!(start <= len);
    let (written, q) = if len - start >= MASK_BYTES
        && out_len >= MASK_BYTES
        // SAFETY: 64 bytes are readable at `start` (checked first); CPU (caller).
        && unsafe { K::mask64(src.add(start)) } == 0
    {
        // A field of enums or bools: no scalar head (the one-byte steps
        // need no window before them).
        let (mut written, mut q) = (0, start);
        // SAFETY: 64 one-byte varints at q (the mask), 64 free slots; CPU (caller).
        unsafe { ones_run::<K, T, DELTA, SIGNED>(input, out, &mut q, &mut written, running) };
        (written, q)
    } else if PARTIAL && start >= BEFORE {
        // The window before the first chunk is in `input`.
        (0, start)
    // SAFETY: CPU (caller).
    } else if let Some((n, end)) = unsafe { head_piece::<K, T, SIGNED>(input, start, out) } {
        // The first bytes as blocks over a padded copy: the first window
        // after them, [end - 9, end + 7), starts inside `input`.
        (n, end)
    } else {
        // 9 values one by one: after them at least 9 bytes precede the
        // position, so the first window [q - 9, q + 7) starts inside `input`.
        let (n, consumed) = fallback_tail::<T, SIGNED>(input, start, out, 0, BEFORE)?;
        (n, start + consumed)
    };
    if q < BEFORE {
        // Either `out` or `input` ran out (or both).
        let (n, consumed) = fallback_tail::<T, SIGNED>(input, q, out, written, usize::MAX)?;
        return Ok((written + n, q + consumed));
    }
    // SAFETY: q >= BEFORE; CPU (caller).
    let (written, pos) =
        unsafe { block_loop::<K, T, DELTA, SIGNED>(input, out, q, written, running)? };
    if PARTIAL && written > 0 {
        // The caller's next call takes the rest, with a fresh `out`.
        return Ok((written, pos));
    }
    // The rest (under 64 bytes and the varint in progress, or more where
    // `out` ran short of a block's 63 free slots: an output of exactly
    // the values' size) in pieces of under 128 bytes that end with a
    // varint, each as blocks over a padded copy rather than value by
    // value (AVX2 forced, Zen 5, into an output of exactly the values'
    // size, with the padded head: `int32`s with 10% negatives at 64
    // values, 180 bytes, 223 -> 132 ns, the u32 mix at 96 values 183 ->
    // 143; BENCHMARKS.md, "Short inputs: the paths below 128 bytes").
    let (mut written, mut pos) = (written, pos);
    while len - pos >= 16 {
        let end = if len - pos < SHORT_INPUT_BYTES {
            len
        } else {
            // After the last varint end among the next 127 bytes.
            match input[pos..pos + SHORT_INPUT_BYTES - 1]
                .iter()
                .rposition(|&byte| byte < 0x80)
            {
                Some(last) if last >= 15 => pos + last + 1,
                _ => break,
            }
        };
        // SAFETY: end - pos < SHORT_INPUT_BYTES; CPU (caller).
        match unsafe { short_blocks::<K, T, SIGNED>(&input[pos..end], &mut out[written..]) } {
            Some(n) => {
                written += n;
                pos = end;
            }
            None => break,
        }
    }
    let (n, consumed) = fallback_tail::<T, SIGNED>(input, pos, out, written, usize::MAX)?;
    Ok((written + n, pos + consumed))
}

/// The head of [`decode_slice_with`] from `start`: the varints that end
/// among its next 127 bytes through [`short_blocks`], where they are at
/// least 16 bytes; returns (values, position after them). The 9 values
/// the blocks otherwise take one by one before the first window cost the
/// scalar blocks about 1,000 instructions (callgrind, AVX2, `int32`s with
/// 10% negatives at 64 values), more than the blocks after them.
///
/// # Safety
/// The CPU must support the features `K`'s operations use.
#[inline(always)]
unsafe fn head_piece<K: Kernel, T: VarInt, const SIGNED: bool>(
    input: &[u8],
    start: usize,
    out: &mut [MaybeUninit<T>],
) -> Option<(usize, usize)> {
    let piece = &input[start..input.len().min(start + SHORT_INPUT_BYTES - 1)];
    let last = piece.iter().rposition(|&byte| byte < 0x80)?;
    if last < 15 {
        return None;
    }
    // SAFETY: under SHORT_INPUT_BYTES bytes; CPU (caller).
    let n = unsafe { short_blocks::<K, T, SIGNED>(&piece[..=last], out) }?;
    Some((n, start + last + 1))
}

/// The blocks of [`decode_slice_with`] from `q` (a varint start at or
/// after [`BEFORE`], `written` values already in `out`) while whole
/// blocks fit `input` and `out`, with their one-byte, two-byte, slow and
/// sparse exits; returns (values written, position of the next varint).
///
/// # Safety
/// `q >= BEFORE`; the CPU must support the features `K`'s operations use.
#[inline(always)]
unsafe fn block_loop<K: Kernel, T: VarInt, const DELTA: bool, const SIGNED: bool>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    mut q: usize,
    mut written: usize,
    running: &mut Running,
) -> Result<(usize, usize), BulkDecodeError> {
    debug_assert!(q >= BEFORE);
    let len = input.len();
    let out_len = out.len();
    let src = input.as_ptr();
    // 128 times the bytes of the varint in progress before `q` (`carry`);
    // the next value starts at `q - carry`.
    let mut carry_128 = 0usize;
    loop {
        // Blocks whose mask bytes are inside `input` and that find 63
        // free output slots (7 per chunk) even if every earlier one wrote 63.
        let blocks = if q + MASK_BYTES <= len && out_len - written >= BLOCK_BYTES {
            ((len - q - MASK_BYTES) / BLOCK_BYTES + 1).min((out_len - written) / BLOCK_BYTES)
        } else {
            0
        };
        if blocks == 0 {
            break;
        }
        // A delta decode sums the blocks' values after at most
        // `DELTA_BLOCKS` of them, while they are in the L1 cache.
        let blocks = if DELTA {
            blocks.min(DELTA_BLOCKS)
        } else {
            blocks
        };
        // Pointers for the blocks (few registers in the loop). They are
        // taken from `out` here, not once before the loop: the scalar
        // steps also write through `out`, which (under Rust's aliasing
        // rules, Stacked and Tree Borrows) would invalidate a pointer
        // derived from it earlier.
        let base = out.as_mut_ptr().cast::<T>();
        // SAFETY: written <= out_len and q <= len.
        let (mut dst, mut at) = unsafe { (base.add(written), src.add(q)) };
        let mut exit = Exit::Done;
        // With `MASK_AHEAD`, the mask of the block after the current one.
        let mut next_mask = if K::MASK_AHEAD {
            // SAFETY: at + 64 <= src + len (`blocks` >= 1).
            // (Through an offset of opaque(0) == 0: see `opaque`.)
            unsafe { K::mask64(at.add(opaque(0))) }
        } else {
            0
        };
        for block in 0..blocks {
            let mask = if K::MASK_AHEAD {
                // The last block reloads its own: no load past `input`.
                let ahead = if block + 1 < blocks { BLOCK_BYTES } else { 0 };
                // SAFETY: at + ahead + 64 <= src + len (`blocks`).
                let ahead_mask = unsafe { K::mask64(at.add(ahead + opaque(0))) };
                core::mem::replace(&mut next_mask, ahead_mask)
            } else {
                // SAFETY: at + 64 <= src + len (`blocks`).
                unsafe { K::mask64(at.add(opaque(0))) }
            };
            if mask == 0 && carry_128 == 0 {
                exit = Exit::Ones;
                break;
            }
            // `twos_run` needs 64 free slots (a block here needs 63): with
            // fewer it would decode nothing and the loop would come back
            // to the same block.
            // SAFETY: dst is inside `out` or one past it, as is its end.
            if twos_start::<T>(mask, carry_128)
                && unsafe { base.add(out_len).offset_from(dst) } >= 64
            {
                exit = Exit::Twos;
                break;
            }
            // `threes_run` needs 64 free slots too.
            // SAFETY: as above.
            if threes_start::<T, SIGNED>(mask, carry_128)
                && unsafe { base.add(out_len).offset_from(dst) } >= 64
            {
                exit = Exit::Threes;
                break;
            }
            // at - src >= BEFORE and at + 64 <= src + len (`blocks`).
            // SAFETY: at[-9..63) is inside `input`, 63 slots from `dst` inside `out`; CPU.
            match unsafe { decode_block::<K, T, SIGNED>(at, mask, dst, carry_128) } {
                Some((n, carry)) => {
                    // SAFETY: n <= 63 slots and 63 bytes inside `out` and
                    // `input` (as above).
                    unsafe {
                        dst = dst.add(n);
                        at = at.add(BLOCK_BYTES);
                    }
                    carry_128 = carry;
                    if n < SPARSE {
                        exit = Exit::Sparse;
                        break;
                    }
                }
                None => {
                    exit = Exit::Slow(mask);
                    break;
                }
            }
        }
        // SAFETY: both pointers are derived from and inside their slices.
        unsafe {
            written = dst.offset_from(base) as usize;
            q = at.offset_from(src) as usize;
        }
        if DELTA {
            if matches!(exit, Exit::Ones | Exit::Twos)
                || (matches!(exit, Exit::Threes) && threes_sum_in_lanes::<T>())
            {
                // The blocks' values (and those of the scalar paths before
                // them), so that the run starts summed.
                running.catch_up(out, written);
            } else if written - running.summed >= 2 * DELTA_LAG {
                // All but the last `DELTA_LAG` values, whose stores may
                // still be in flight.
                running.catch_up(out, written - DELTA_LAG);
            }
        }
        match exit {
            Exit::Done => {}
            Exit::Ones => {
                // SAFETY: the block's mask covers 64 bytes of one-byte
                // varints at q and 63 slots are free (`blocks`); CPU (caller).
                unsafe {
                    ones_run::<K, T, DELTA, SIGNED>(input, out, &mut q, &mut written, running)
                };
            }
            Exit::Twos => {
                let q_before = q;
                // SAFETY: q >= BEFORE (the blocks start there); CPU (caller).
                carry_128 = unsafe {
                    twos_run::<K, T, DELTA, SIGNED>(
                        input,
                        out,
                        &mut q,
                        &mut written,
                        carry_128,
                        running,
                    )
                };
                debug_assert!(q > q_before, "a two-byte run decodes at least one block");
            }
            Exit::Threes => {
                let q_before = q;
                // SAFETY: q >= BEFORE (the blocks start there); CPU (caller).
                carry_128 = unsafe {
                    threes_run::<K, T, DELTA>(input, out, &mut q, &mut written, carry_128, running)
                };
                debug_assert!(q > q_before, "a three-byte run decodes at least one block");
            }
            Exit::Slow(mask) => {
                let written_before = written;
                (written, carry_128) =
                    slow_block::<T, SIGNED>(input, out, q, written, carry_128, mask)?;
                q += BLOCK_BYTES;
                if written - written_before < SPARSE {
                    carry_128 =
                        scalar_stretch::<T, SIGNED>(input, out, &mut q, &mut written, carry_128)?;
                }
            }
            Exit::Sparse => {
                carry_128 =
                    scalar_stretch::<T, SIGNED>(input, out, &mut q, &mut written, carry_128)?;
            }
        }
    }
    Ok((written, q - carry_128 / 128))
}

/// The free output slots a block needs: [`block_loop`] runs blocks while
/// this many are free (7 values stored per chunk), so a `PARTIAL` decode
/// into room for `k` values and this many more stops after at least `k`
/// values (unless the input or an exit ends it first).
pub(crate) const RUN_BLOCK_SLOTS: usize = BLOCK_BYTES;

/// Inputs shorter than this take [`decode_short_with`]: two blocks.
pub(crate) const SHORT_INPUT_BYTES: usize = 2 * MASK_BYTES;

/// The most blocks a delta decode takes before it sums their values
/// (`Running::catch_up`): at most 1,008 values, 4-8 KiB, still in the L1
/// cache when they are summed.
const DELTA_BLOCKS: usize = 16;

/// The values a delta decode leaves unsummed behind the blocks'
/// stores (2 KiB of `u64`s), so that the sum does not load values whose
/// vector stores may still be in the store buffer. (Summed right behind
/// them, `u64` mixed and 3-byte gaps at W = 4,096: decode-then-sum's
/// time over the fused decode's 0.88-0.92, the fused one slower; with
/// the lag 0.97-1.10. Zen 3, one paired run each on a loaded host: a
/// likely cause, not a measured one.)
const DELTA_LAG: usize = 256;

/// The running sum of a delta decode ([`decode_delta_with`]): the values
/// of `out` before `summed` hold their sums, those after it (up to the
/// decoder's count) their gaps. The one- and two-byte runs sum their
/// values in registers as they store them; the values of the other paths
/// (the grid blocks, the three-byte runs, the scalar and padded paths) are summed by
/// [`Running::catch_up`], a second pass after every [`DELTA_BLOCKS`]
/// blocks (up to [`DELTA_LAG`] values behind them), before a run and at
/// the end.
pub(super) struct Running {
    summed: usize,
    /// The sum of value `summed - 1` (the caller's `previous` before the
    /// first), wrapping in `u64` (its low bits are the sum in `T`).
    sum: u64,
}

impl Running {
    pub(super) fn new(previous: u64) -> Self {
        Running {
            summed: 0,
            sum: previous,
        }
    }

    /// Sums `out[summed..end]` (gaps the decoder wrote) in place. Not
    /// inlined: it runs once per [`DELTA_BLOCKS`] blocks at most, and the
    /// block loop it is called from stays as small as without it.
    #[inline(never)]
    fn catch_up<T: VarInt>(&mut self, out: &mut [MaybeUninit<T>], end: usize) {
        debug_assert!(self.summed <= end && end <= out.len());
        let gaps = &mut out[self.summed..end];
        // The decoder initialized the slots before `end` (the values it
        // counts, or those before its error's index).
        // SAFETY: so they hold `T`s (`MaybeUninit<T>` has `T`'s layout).
        let gaps =
            unsafe { core::slice::from_raw_parts_mut(gaps.as_mut_ptr().cast::<T>(), gaps.len()) };
        self.sum = if size_of::<T>() == 8 {
            prefix_sum_by_fours(gaps, self.sum)
        } else {
            prefix_sum(gaps, T::from_u64_unchecked(self.sum)).to_u64()
        };
        self.summed = end;
    }
}

/// The running sum of `values` from `sum` (see `scalar::prefix_sum`), four
/// values per step: their own sums first (off the chain), then `sum`
/// added to each, so the chain is one add per four values.
#[inline(always)]
fn prefix_sum_by_fours<T: VarInt>(values: &mut [T], sum: u64) -> u64 {
    let mut sum = sum;
    let mut fours = values.chunks_exact_mut(4);
    for four in &mut fours {
        let a = four[0].to_u64();
        let b = a.wrapping_add(four[1].to_u64());
        let c = b.wrapping_add(four[2].to_u64());
        let d = c.wrapping_add(four[3].to_u64());
        four[0] = T::from_u64_unchecked(sum.wrapping_add(a));
        four[1] = T::from_u64_unchecked(sum.wrapping_add(b));
        four[2] = T::from_u64_unchecked(sum.wrapping_add(c));
        four[3] = T::from_u64_unchecked(sum.wrapping_add(d));
        sum = sum.wrapping_add(d);
    }
    for value in fours.into_remainder() {
        sum = sum.wrapping_add(value.to_u64());
        *value = T::from_u64_unchecked(sum);
    }
    sum
}

/// The delta decode of [`decode_slice_with`] (issue 41's
/// `delta::decode_slice`): decodes the gaps from `input[start..]` into
/// `out` as it does (the same count, position and error) and replaces
/// each with `*sum` plus the gaps up to it, wrapping in `T`; `*sum`
/// becomes the last value written (with an error: the value before its
/// index). Inputs under [`SHORT_INPUT_BYTES`] (with `start` 0, not
/// `PARTIAL`) take [`decode_short_with`], then the sum.
///
/// # Safety
/// The CPU must support the features `K`'s operations use.
#[inline(always)]
pub(super) unsafe fn decode_delta_with<K: Kernel, T: VarInt, const PARTIAL: bool>(
    input: &[u8],
    start: usize,
    out: &mut [MaybeUninit<T>],
    sum: &mut T,
) -> Result<(usize, usize), BulkDecodeError> {
    let mut running = Running::new(sum.to_u64());
    let result = if !PARTIAL && start == 0 && input.len() < SHORT_INPUT_BYTES {
        // SAFETY: the length is checked; CPU (caller).
        unsafe { decode_short_with::<K, T, false>(input, out) }
    } else {
        // SAFETY: CPU (caller).
        unsafe { decode_slice_with::<K, T, PARTIAL, true, false>(input, start, out, &mut running) }
    };
    let end = match &result {
        Ok((n, _)) => *n,
        Err(error) => error.index(),
    };
    running.catch_up(out, end);
    *sum = T::from_u64_unchecked(running.sum);
    result
}

/// The signed LEB128 decode of [`decode_slice_with`] (`sleb128::decode_slice`,
/// issue 41): decodes the signed varints of `input` (WebAssembly's rules,
/// `T` = `u32` for `i32`, `u64` for `i64`) into `out` as their values'
/// bits, with the count, position and error of the signed scalar
/// reference. The same paths with `SIGNED`: each step's window has its
/// last bytes' bit 6 copied into bit 7 ([`signed_bytes`]), so the byte
/// pairs and quads come out signed and the lanes are joined with sign
/// extension ([`Kernel::pack56_signed`], [`Kernel::pack32_signed`],
/// [`Kernel::extend_low`]); the signed rules are a bias and a bit test
/// on vector A ([`signed_bias`]) next to the unsigned length checks; the
/// one- and two-byte runs sign-extend as they widen; every scalar path is
/// the signed reference's. Inputs under [`SHORT_INPUT_BYTES`] take
/// [`decode_short_with`].
///
/// # Safety
/// The CPU must support the features `K`'s operations use.
#[inline(always)]
pub(super) unsafe fn decode_signed_with<K: Kernel, T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    if input.len() < SHORT_INPUT_BYTES {
        // SAFETY: the length is checked; CPU (caller).
        unsafe { decode_short_with::<K, T, true>(input, out) }
    } else {
        // SAFETY: CPU (caller).
        unsafe {
            decode_slice_with::<K, T, false, false, true>(input, 0, out, &mut Running::new(0))
        }
    }
}

/// [`decode_slice_with`] of an input shorter than [`SHORT_INPUT_BYTES`]
/// (a short packed field): [`short_blocks`], else (an error, a truncated
/// last varint, too few slots in `out`, long varints) the scalar decoder,
/// whose results are the reference's.
///
/// # Safety
/// `input.len() < SHORT_INPUT_BYTES`; the CPU must support the features
/// `K`'s operations use.
#[inline(always)]
pub(super) unsafe fn decode_short_with<K: Kernel, T: VarInt, const SIGNED: bool>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    // SAFETY: as this function's (caller).
    match unsafe { short_blocks::<K, T, SIGNED>(input, out) } {
        Some(values) => Ok((values, input.len())),
        None => fallback_slice::<T, SIGNED>(input, out),
    }
}

/// Decodes all of `input` (shorter than [`SHORT_INPUT_BYTES`], a short
/// packed field or the last bytes of a longer one) into `out` and returns
/// the number of values, or `None` (having written anything into `out`)
/// where the caller's scalar path is the better or the exact one: under
/// 16 bytes, a last byte that continues (a truncated varint), more values
/// than `out` has slots, under one value per 7-byte chunk (8-10-byte ids:
/// the blocks' `SPARSE` case), or an error.
///
/// The input is copied into a zeroed buffer with [`BEFORE`] bytes in front
/// and padding behind, so that one block (two from 64 bytes), or a
/// one-byte or two-byte run, covers all of it: no scalar head (9 values)
/// and no scalar tail (up to 63 bytes), which cost about 22 instructions
/// per value (AVX2 forced, Zen 5: 95% 1-byte counts at 32 values 68 -> 24
/// ns; BENCHMARKS.md, "Short inputs: the paths below 128 bytes"). The
/// padding's zero
/// bytes decode as zeros after the input's values, into `out` when it has
/// the blocks' room (its slots past the values may be overwritten) or into
/// a scratch buffer. The input's byte masks give the number of values
/// first; inputs of 1-byte varints only are widened straight from the
/// input.
///
/// # Safety
/// `input.len() < SHORT_INPUT_BYTES`; the CPU must support the features
/// `K`'s operations use.
#[inline(always)]
unsafe fn short_blocks<K: Kernel, T: VarInt, const SIGNED: bool>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Option<usize> {
    let len = input.len();
    debug_assert!(len < SHORT_INPUT_BYTES);
    // The varints end with the input (so the padding cannot end one).
    if len < 16 || input[len - 1] >= 0x80 {
        return None;
    }
    let continues = continuation_bytes(input);
    let values = len - continues;
    if values > out.len() || values * CHUNK < len {
        return None;
    }
    if continues == 0 {
        // 1-byte varints only (enums, bools): widened 32 at a time from
        // the input, the last step ending with it (rewriting a few
        // values with the same ones); under 32 bytes one by one.
        if len < 32 {
            for (slot, &byte) in out.iter_mut().zip(input) {
                slot.write(one_byte::<T, SIGNED>(byte));
            }
            return Some(len);
        }
        let dst = out.as_mut_ptr().cast::<T>();
        let widen = |at: usize| {
            // SAFETY: at + 32 <= len bytes in `input`, len <= out.len()
            // slots at `dst`; CPU (caller).
            unsafe { K::widen_32::<T, SIGNED>(dst.add(at), input.as_ptr().add(at)) }
        };
        let mut at = 0;
        while at + 32 <= len {
            widen(at);
            at += 32;
        }
        if at < len {
            widen(len - 32);
        }
        return Some(len);
    }
    // The input at BEFORE (the first window's 9 bytes before it are
    // zeros, taken for the end of an earlier varint), zeros up to the 64
    // bytes the last block's mask reads.
    let mut padded = [0u8; BEFORE + SHORT_INPUT_BYTES];
    copy_short(input, &mut padded[BEFORE..]);
    let blocks = if len < MASK_BYTES { 1 } else { 2 };
    let padded = &padded[..BEFORE + blocks * MASK_BYTES];
    let mut scratch = [const { MaybeUninit::<T>::uninit() }; SHORT_INPUT_BYTES];
    let room = out.len() >= blocks * MASK_BYTES;
    let target: &mut [MaybeUninit<T>] = if room {
        out
    } else {
        &mut scratch[..blocks * MASK_BYTES]
    };
    // SAFETY: BEFORE bytes precede the start in `padded`; CPU (caller).
    let (written, _) = unsafe {
        block_loop::<K, T, false, SIGNED>(padded, target, BEFORE, 0, &mut Running::new(0))
    }
    .ok()?;
    // `written` counts the input's values first, then the padding's.
    if written < values {
        return None;
    }
    if !room {
        out[..values].copy_from_slice(&scratch[..values]);
    }
    Some(values)
}

/// The number of bytes of `input` (at least 16) with the continuation
/// bit: SSE2 byte masks of its 16-byte pieces, the last one overlapping
/// the one before (its bytes already counted shifted out).
#[inline(always)]
fn continuation_bytes(input: &[u8]) -> usize {
    let len = input.len();
    debug_assert!(len >= 16);
    let src = input.as_ptr();
    // SAFETY: each load reads 16 bytes inside `input` (at + 16 <= len,
    // and len >= 16 for the last); SSE2 is part of x86-64.
    unsafe {
        let piece = |at: usize| _mm_movemask_epi8(_mm_loadu_si128(src.add(at).cast())) as u32;
        let mut count = 0;
        let mut at = 0;
        while at + 16 <= len {
            count += piece(at).count_ones();
            at += 16;
        }
        if at < len {
            count += (piece(len - 16) >> (16 - (len - at))).count_ones();
        }
        count as usize
    }
}

/// Copies `input` (shorter than `dest`, which has at least 16 bytes) to
/// the start of `dest` in 16-byte pieces, the last one ending with the
/// input (overlapping the one before): a few loads and stores instead of
/// a call to `memcpy` for a length known only at run time.
#[inline(always)]
fn copy_short(input: &[u8], dest: &mut [u8]) {
    let len = input.len();
    if len < 16 {
        dest[..len].copy_from_slice(input);
        return;
    }
    let mut at = 0;
    while at + 16 < len {
        dest[at..at + 16].copy_from_slice(&input[at..at + 16]);
        at += 16;
    }
    dest[len - 16..len].copy_from_slice(&input[len - 16..]);
}

/// Decodes a run of one-byte varints (enums, bools, small counts) from
/// `q`: widens 32 bytes into 32 values per step while the next 32 bytes
/// have no continuation bit (with `DELTA`, summed as they are widened:
/// [`Kernel::widen_32_sum`], from `running`, which it updates). The first
/// step keeps only the values up to a 32-byte boundary of `out` (with
/// `DELTA`, the values before it are summed one by one), so that the
/// others store whole aligned lines (unaligned, half the 32-byte stores of
/// `u32` values cross a cache line: 4.1 against 6.5-7.2 G values/s, W =
/// 4096, Zen 1 host). A run that reaches the end of `input` ends with one
/// step over its last 32 bytes, which rewrites values it has already
/// stored (with the same values) instead of leaving up to 31 to the
/// scalar tail (not with `DELTA`: the values it rewrites are summed).
///
/// # Safety
/// The 32 bytes at `*q` must be in `input` and one-byte varints (no
/// varint in progress before them), 32 slots free at `*written`; the CPU
/// must have `K`'s features.
#[inline(always)]
unsafe fn ones_run<K: Kernel, T: VarInt, const DELTA: bool, const SIGNED: bool>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    q: &mut usize,
    written: &mut usize,
    running: &mut Running,
) {
    let len = input.len();
    let out_len = out.len();
    let src = input.as_ptr();
    let run_start = *q;
    debug_assert!(*q + 32 <= len && *written + 32 <= out_len);
    let misaligned = out.as_ptr().wrapping_add(*written) as usize % 32;
    if DELTA {
        debug_assert_eq!(running.summed, *written);
        // The values up to the 32-byte boundary one by one (at most 7),
        // with the running sum; then whole summed steps.
        let step = (32 - misaligned) % 32 / size_of::<T>();
        for i in 0..step {
            running.sum = running.sum.wrapping_add(u64::from(input[*q + i]));
            out[*written + i].write(T::from_u64_unchecked(running.sum));
        }
        *q += step;
        *written += step;
        // SAFETY: CPU (caller).
        let mut sum = unsafe { K::sum_splat::<T>(running.sum) };
        while *q + 32 <= len
            && *written + 32 <= out_len
            // SAFETY: 32 bytes from q are inside `input` (checked first).
            && unsafe { K::all_ends_32(src.add(*q)) }
        {
            // SAFETY: 32 bytes from q are inside `input` and 32 slots from
            // `written` inside `out` (loop condition); CPU (caller).
            sum = unsafe {
                K::widen_32_sum::<T>(out.as_mut_ptr().cast::<T>().add(*written), src.add(*q), sum)
            };
            *q += 32;
            *written += 32;
        }
        // No last step over the run's final 32 bytes: it would rewrite
        // values already summed. The bytes after the run go to the caller.
        // SAFETY: CPU (caller).
        running.sum = unsafe { K::sum_get::<T>(sum) };
        running.summed = *written;
        return;
    }
    if misaligned != 0 {
        // SAFETY: 32 one-byte varints at q in `input`, 32 free slots (caller); CPU.
        unsafe {
            K::widen_32::<T, SIGNED>(out.as_mut_ptr().cast::<T>().add(*written), src.add(*q))
        };
        let step = (32 - misaligned) / size_of::<T>();
        *q += step;
        *written += step;
    }
    while *q + 32 <= len
        && *written + 32 <= out_len
        // SAFETY: 32 bytes from q are inside `input` (checked first).
        && unsafe { K::all_ends_32(src.add(*q)) }
    {
        // SAFETY: 32 bytes from q are inside `input` and 32 slots from
        // `written` inside `out` (loop condition); CPU (caller).
        unsafe {
            K::widen_32::<T, SIGNED>(out.as_mut_ptr().cast::<T>().add(*written), src.add(*q))
        };
        *q += 32;
        *written += 32;
    }
    let left = len - *q;
    if left > 0
        && left < 32
        && len - 32 >= run_start
        // One slot per byte since `run_start`: at least 32 - left slots
        // before `written` hold this run's values (checked, not assumed).
        && *written >= 32 - left
        && *written + left <= out_len
        // SAFETY: len >= 32 (run_start + 32 <= len, caller).
        && unsafe { K::all_ends_32(src.add(len - 32)) }
    {
        // The bytes len - 32..q are this run's, stored at the 32 - left
        // slots before `written`: the step rewrites them and stores the
        // `left` last ones.
        // SAFETY: input[len - 32..len] is readable, out[written - (32 -
        // left)..written + left] writable (checked above); CPU (caller).
        unsafe {
            K::widen_32::<T, SIGNED>(
                out.as_mut_ptr().cast::<T>().add(*written - (32 - left)),
                src.add(len - 32),
            )
        };
        *q = len;
        *written += left;
    }
}

/// Whether the 64 bytes with continuation bits `mask`, entered with
/// `carry_128` (see [`decode_slice_with`]), hold only varints of at most
/// two bytes, which [`twos_run`] decodes: no continuation byte follows a
/// continuation byte (or a carried one), and `T` holds every 14-bit value
/// (not `u8`, whose 2-byte varints may overflow).
#[inline(always)]
fn twos_start<T: VarInt>(mask: u64, carry_128: usize) -> bool {
    T::MAX_LEN >= 3 && carry_128 <= 128 && mask & (mask << 1 | (carry_128 >> 7) as u64) == 0
}

/// Decodes a run of varints of at most two bytes (small counts, enums
/// with the odd larger value, zigzag near zero): while the next 64 bytes
/// hold only such varints ([`twos_start`]) and 64 output slots are free,
/// eight groups of 8 bytes each become up to 8 values with one table
/// lookup, one `pshufb` and one `pmaddubsw` (the classic Masked VByte
/// step, which is cheap once every varint is known to have one or two
/// bytes): the group's 8 continuation bits and the one before them index
/// [`TWOS`], whose control pairs each varint's bytes into a 16-bit word
/// (`b0 + 128 * b1`). About 12 instructions for the 7-8 values of a group,
/// against 26 for a 7-byte chunk of the general step (with `DELTA`, the
/// words are summed as they are widened: [`Kernel::widen_words_sum`],
/// from `running`, which it updates). Returns the new `carry_128` (0, or 128 when the run's last byte continues into the next
/// varint) and moves `q` and `written` past what it decoded.
///
/// # Safety
/// `*q >= 8` (the first group's window starts 8 bytes before it);
/// `carry_128` as [`twos_start`] accepted it; the CPU must have `K`'s features.
#[inline(always)]
unsafe fn twos_run<K: Kernel, T: VarInt, const DELTA: bool, const SIGNED: bool>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    q: &mut usize,
    written: &mut usize,
    carry_128: usize,
    running: &mut Running,
) -> usize {
    debug_assert!(!DELTA || running.summed == *written);
    // SAFETY: CPU (caller).
    let mut sum = unsafe { K::sum_splat::<T>(running.sum) };
    debug_assert!(*q >= 8 && carry_128 <= 128);
    let twos = in_register(&TWOS);
    let len = input.len();
    let out_len = out.len();
    let src = input.as_ptr();
    let dst = out.as_mut_ptr().cast::<T>();
    // Whether the byte before `q` is a continuation byte.
    let mut before = (carry_128 >> 7) as u64;
    while *q + 64 <= len && *written + 64 <= out_len {
        // SAFETY: q + 64 <= len (loop condition); CPU (caller).
        let mask = unsafe { K::mask64(src.add(*q)) };
        if mask & (mask << 1 | before) != 0 {
            break;
        }
        // q + 64 <= len and written + 64 <= out_len (loop condition), q >= 8
        // (caller): the groups' windows read src[q - 8..q + 64] and their
        // stores write 8 slots at most 56 values past `written`.
        // SAFETY: hence every access below is in bounds; CPU (caller).
        unsafe {
            let at = src.add(*q);
            let mut w = dst.add(*written);
            macro_rules! group {
                ($g:literal) => {
                    // Bit 0: byte 8g - 1 continues; bits 1..9: the group's bytes.
                    let index = if $g == 0 {
                        (mask << 1 | before) as usize & 0x1ff
                    } else {
                        (mask >> (8 * $g - 1)) as usize & 0x1ff
                    };
                    let bytes = _mm_loadu_si128(at.add(8 * $g + opaque(0)).sub(8).cast());
                    let window = if SIGNED {
                        signed_bytes(bytes)
                    } else {
                        _mm_and_si128(bytes, _mm_set1_epi8(0x7f))
                    };
                    let control = _mm_load_si128(twos.controls.as_ptr().add(index).cast());
                    let words =
                        _mm_maddubs_epi16(_mm_set1_epi16(PAIRS), _mm_shuffle_epi8(window, control));
                    if DELTA {
                        sum = K::widen_words_sum::<T>(w, words, sum);
                    } else {
                        K::widen_words::<T, SIGNED>(w, words);
                    }
                    w = w.add(usize::from(*twos.ends.as_ptr().add(index)));
                };
            }
            group!(0);
            group!(1);
            group!(2);
            group!(3);
            group!(4);
            group!(5);
            group!(6);
            group!(7);
            let _ = w;
        }
        *written += 64 - mask.count_ones() as usize;
        *q += 64;
        before = mask >> 63;
    }
    if DELTA {
        // SAFETY: CPU (caller).
        running.sum = unsafe { K::sum_get::<T>(sum) };
        running.summed = *written;
    }
    128 * before as usize
}

/// Whether a run of varints of at most three bytes ([`threes_run`]) can
/// start at a block whose continuation bits are `mask`, with `carry_128`
/// (128 per byte) of the varint in progress before it: no three
/// continuation bytes in a row (counting the carried ones), and `T` holds
/// every 21-bit value (`u32`, `u64`; not the signed decode, whose last
/// bytes are sign-extended).
#[inline(always)]
fn threes_start<T: VarInt, const SIGNED: bool>(mask: u64, carry_128: usize) -> bool {
    !SIGNED
        && T::MAX_LEN >= 5
        && carry_128 <= 256
        && three_in_a_row(mask, carried_bits(carry_128)) == 0
}

/// The continuation bits of the two bytes before a position where
/// `carry_128 / 128` (at most 2) bytes of a varint precede it: bit 1 the
/// byte just before, bit 0 the one before that.
#[inline(always)]
fn carried_bits(carry_128: usize) -> u64 {
    match carry_128 {
        0 => 0,
        128 => 0b10,
        _ => 0b11,
    }
}

/// The bytes of a 64-byte `mask` that continue a varint whose two
/// previous bytes continue too (`before`: the two bytes before the mask,
/// as [`carried_bits`] gives them): nonzero where a varint has more than
/// three bytes.
#[inline(always)]
fn three_in_a_row(mask: u64, before: u64) -> u64 {
    mask & (mask << 1 | before >> 1) & (mask << 2 | before)
}

/// The values of 4 32-bit lanes `x` as `T` (`u32` or `u64`) at `dst`.
///
/// # Safety
/// 4 writable `T` at `dst`; the CPU must have SSSE3.
#[inline(always)]
unsafe fn store_dwords<T: VarInt>(dst: *mut T, x: __m128i) {
    // SAFETY: 4 writable `T` at `dst` (caller).
    unsafe {
        if size_of::<T>() == 8 {
            let zero = _mm_setzero_si128();
            _mm_storeu_si128(dst.cast(), _mm_unpacklo_epi32(x, zero));
            _mm_storeu_si128(dst.add(2).cast(), _mm_unpackhi_epi32(x, zero));
        } else {
            store_u32x4(dst, x);
        }
    }
}

/// Whether a delta decode into `T` sums a three-byte run's values in
/// their 32-bit lanes as it stores them (`u32`); into `u64` the running
/// catch-up sums them after the stores.
#[inline(always)]
fn threes_sum_in_lanes<T: VarInt>() -> bool {
    size_of::<T>() == 4
}

/// The byte offset in [`THREES`] of group `G`'s entry (64 bytes each):
/// its index (bits 0, 1: bytes 4G - 2 and 4G - 1 continue; bits 2..6: the
/// group's bytes, from `mask` and the two bits `before` the 64 bytes)
/// times 64, shifted into place at once.
#[inline(always)]
fn threes_offset<const G: u32>(mask: u64, before: u64) -> usize {
    const { assert!(size_of::<ThreesEntry>() == 64 && G < 16) };
    let scaled = match G {
        0 => mask << 8 | before << 6,
        1 => mask << 4,
        2 => mask,
        _ => mask >> (4 * G).saturating_sub(8),
    };
    (scaled & 0xfc0) as usize
}

/// Decodes a run of varints of at most three bytes (3-byte deltas and
/// offsets among shorter values, 21-bit ids): while the next 64 bytes hold
/// only such varints, and not only varints of one or two bytes (those go to
/// [`twos_run`], which takes 8 bytes per lookup), and 64 output slots are
/// free, sixteen groups of 4 bytes each become up to 4 values with one
/// table lookup, one `pshufb`, one `pmaddubsw` and one `pmaddwd` (Masked
/// VByte's 3-byte step on a fixed grid): the group's 4 continuation bits
/// and the two before them index [`THREES`], whose control puts each
/// varint's bytes into a 32-bit lane; three groups share a 16-byte
/// window (each entry has the control for each place). About 12
/// instructions for a group (1.33 values of 3 bytes) into `u32`, against
/// 44 for a 7-byte chunk of the general step (2.33 such values; callgrind,
/// AVX2). With `DELTA` the
/// values are stored as gaps and `running` sums them every
/// [`DELTA_BLOCKS`] blocks' worth, as it does the blocks'. Returns the new
/// `carry_128` (128 per continuation byte at the end of the run, at most
/// 2) and moves `q` and `written` past what it decoded.
///
/// # Safety
/// `*q >= 4` (the first window starts 4 bytes before it); `carry_128`
/// as [`threes_start`] accepted it; the CPU must have `K`'s features.
#[inline(always)]
unsafe fn threes_run<K: Kernel, T: VarInt, const DELTA: bool>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    q: &mut usize,
    written: &mut usize,
    carry_128: usize,
    running: &mut Running,
) -> usize {
    debug_assert!(*q >= 4 && carry_128 <= 256);
    debug_assert!(!DELTA || !threes_sum_in_lanes::<T>() || running.summed == *written);
    let threes = in_register(&THREES).as_ptr().cast::<u8>();
    // With `DELTA` into `u32`: the last value stored, in every lane.
    // SAFETY: SSE2 (caller); no memory access.
    let mut sum = unsafe { _mm_set1_epi32(running.sum as i32) };
    let len = input.len();
    let out_len = out.len();
    let src = input.as_ptr();
    // The continuation bits of the two bytes before `q`.
    let mut before = carried_bits(carry_128);
    while *q + 64 <= len && *written + 64 <= out_len {
        // SAFETY: q + 64 <= len (loop condition); CPU (caller).
        let mask = unsafe { K::mask64(src.add(*q)) };
        // A longer varint, or what `twos_start` accepts (only 1- and
        // 2-byte varints, at most one byte carried): back to the blocks,
        // whose next choice is then not this run.
        let twos = before != 0b11 && mask & (mask << 1 | before >> 1) == 0;
        if three_in_a_row(mask, before) != 0 || twos {
            break;
        }
        // Taken afresh each time: `running.catch_up` below writes
        // through `out`.
        let dst = out.as_mut_ptr().cast::<T>();
        // q + 64 <= len and written + 64 <= out_len (loop condition), q >= 4
        // (caller): the windows read src[q - 4..q + 64], the table offsets
        // are below 64 entries of 64 bytes, and the stores write 4 slots at
        // most 60 values past `written`.
        // SAFETY: hence every access below is in bounds; CPU (caller).
        unsafe {
            let at = src.add(*q + opaque(0));
            let mut w = dst.add(*written);
            let low_bits = _mm_set1_epi8(0x7f);
            // Groups 3k..3k + 3 share the window at[12k - 4..12k + 12];
            // group 15 the window at[48..64].
            let mut window = _mm_setzero_si128();
            macro_rules! group {
                ($g:literal) => {
                    if $g % 3 == 0 && $g < 15 {
                        window =
                            _mm_and_si128(_mm_loadu_si128(at.add(4 * $g).sub(4).cast()), low_bits);
                    }
                    if $g == 15 {
                        window = _mm_and_si128(_mm_loadu_si128(at.add(48).cast()), low_bits);
                    }
                    let place = if $g == 15 { 2 } else { $g % 3 };
                    let entry = threes_offset::<$g>(mask, before);
                    let control = _mm_load_si128(threes.add(entry + 16 * place).cast());
                    let words =
                        _mm_maddubs_epi16(_mm_set1_epi16(PAIRS), _mm_shuffle_epi8(window, control));
                    let values = _mm_madd_epi16(words, _mm_set1_epi32(QUADS));
                    if DELTA && threes_sum_in_lanes::<T>() {
                        // The lanes past the group's values are zero, so
                        // lane 3 of the prefix sum is the group's total.
                        let prefix = _mm_add_epi32(values, _mm_slli_si128::<4>(values));
                        let prefix = _mm_add_epi32(prefix, _mm_slli_si128::<8>(prefix));
                        store_dwords::<T>(w, _mm_add_epi32(prefix, sum));
                        // One add per group on the chain from group to
                        // group: the total is broadcast off it.
                        sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0xff>(prefix));
                    } else {
                        store_dwords::<T>(w, values);
                    }
                    w = w.add(usize::from(*threes.add(entry + 48)));
                };
            }
            group!(0);
            group!(1);
            group!(2);
            group!(3);
            group!(4);
            group!(5);
            group!(6);
            group!(7);
            group!(8);
            group!(9);
            group!(10);
            group!(11);
            group!(12);
            group!(13);
            group!(14);
            group!(15);
            let _ = (w, window);
        }
        *written += 64 - mask.count_ones() as usize;
        *q += 64;
        before = mask >> 62;
        if DELTA && !threes_sum_in_lanes::<T>() && *written - running.summed >= 2 * DELTA_LAG {
            // All but the last `DELTA_LAG` values, while they are in the
            // L1 cache (as the block loop does).
            running.catch_up(out, *written - DELTA_LAG);
        }
    }
    if DELTA && threes_sum_in_lanes::<T>() {
        // SAFETY: SSE2 (caller); no memory access.
        running.sum = u64::from(unsafe { _mm_cvtsi128_si32(sum) } as u32);
        running.summed = *written;
    }
    128 * (before >> 1) as usize * (1 + (before & 1) as usize)
}

/// Long varints (under one per chunk): the scalar backend's block decoder
/// is cheaper per value there. Decodes a stretch of [`SCALAR_STRETCH`] values from the
/// start of the varint in progress at `q` and returns the new `carry_128`
/// (0: `q` is then a varint start).
fn scalar_stretch<T: VarInt, const SIGNED: bool>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    q: &mut usize,
    written: &mut usize,
    carry_128: usize,
) -> Result<usize, BulkDecodeError> {
    let pos = *q - carry_128 / 128;
    let stretch_end = out.len().min(*written + SCALAR_STRETCH);
    // The scalar backend's block decoder (a terminator bitmap per 64 bytes,
    // no value waiting for the previous one's length): about twice the
    // value-by-value decoder's speed on long varints. Its error positions
    // are relative to the stretch.
    let (n, consumed) = fallback_slice::<T, SIGNED>(&input[pos..], &mut out[*written..stretch_end])
        .map_err(|error| {
            BulkDecodeError::new(error.kind(), *written + error.index(), pos + error.offset())
        })?;
    *written += n;
    *q = pos + consumed;
    Ok(0)
}

/// A block the vector steps do not take (see [`decode_block`]): decodes
/// the varints that end in it with the scalar decoder (which reports the
/// exact error) and returns the new output count and `carry_128`, the
/// same as the vector steps would.
#[cold]
#[inline(never)]
fn slow_block<T: VarInt, const SIGNED: bool>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    q: usize,
    written: usize,
    carry_128: usize,
    mask: u64,
) -> Result<(usize, usize), BulkDecodeError> {
    let carry = carry_128 / 128;
    let pos = q - carry;
    // The varint ends among the block's bytes q..q + 63.
    let ends = !mask & ((1 << BLOCK_BYTES) - 1);
    if ends == 0 {
        if carry + BLOCK_BYTES >= T::MAX_LEN {
            // MAX_LEN continuation bytes from `pos`: the scalar decoder fails there.
            fallback_values::<T, SIGNED>(input, pos, out, written, 1)?;
        }
        return Ok((written, carry_128 + 128 * BLOCK_BYTES));
    }
    let count = ends.count_ones() as usize;
    let (n, consumed) = fallback_values::<T, SIGNED>(input, pos, out, written, count)?;
    // The last end is byte 63 - leading_zeros of the block.
    let end = q + 64 - ends.leading_zeros() as usize;
    debug_assert_eq!((n, pos + consumed), (count, end));
    Ok((written + n, 128 * (q + BLOCK_BYTES - end)))
}
