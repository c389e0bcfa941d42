//! The single-value decoders of the public API: the compile-time choice of
//! kernel (`arch::selected`) on a 16-byte window (`arch::window`: the
//! first 16 bytes of the input, or a zero-padded copy of a shorter input).

use crate::arch::selected;
use crate::arch::window::decode_with;
use crate::error::DecodeError;
use crate::varint::VarInt;
use crate::zigzag::ZigZag;

/// Decodes one varint from the start of `input` into `T`.
///
/// Returns the value and the number of bytes it took; bytes after the varint
/// are ignored. Fails with [`DecodeError::Truncated`] if `input` ends while a
/// continuation bit is set (or is empty), and with [`DecodeError::Overflow`]
/// if the value does not fit `T` or the varint is longer than
/// [`T::MAX_LEN`](VarInt::MAX_LEN) bytes. For `u64` these are exactly Go
/// protowire's `ConsumeVarint` rules: a 10th byte above `0x01` overflows.
/// Never reads past the end of `input`.
///
/// ```
/// use varint_turbo::{decode, DecodeError};
/// assert_eq!(decode::<u32>(&[0xac, 0x02, 0xff]), Ok((300, 2)));
/// assert_eq!(decode::<u8>(&[0xac, 0x02]), Err(DecodeError::Overflow));
/// assert_eq!(decode::<u64>(&[0xac]), Err(DecodeError::Truncated));
/// ```
///
/// Varints of 1, 2 and 3 bytes are returned by predicted branches before
/// the branch-free kernel runs: real messages are mostly such varints
/// (every tag, bools, enums, small counts, lengths, deltas) and each
/// field's length repeats from message to message, so the branches are
/// nearly always predicted, and the next varint's load need not wait for
/// the kernel's length (BENCHMARKS.md, "The 1-byte path"). For parsers of
/// random-length data, [`decode_unchecked`] is the kernel alone.
#[inline(always)]
pub fn decode<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    one_byte_then(input, decode_longer)
}

/// Tells the compiler what the decoders guarantee, a length of at most
/// `input.len()`, after the 1-byte path and the out-of-line part meet: a
/// caller that then advances past the varint (`&input[len..]`,
/// `BufRead::consume`, `Buf::advance`) has no bounds check left, which it
/// kept where the paths merge (seen in apache-avro's `zag_i64`, a compare
/// and a branch per 1-byte varint).
#[inline(always)]
fn within_input<T>(
    input: &[u8],
    result: Result<(T, usize), DecodeError>,
) -> Result<(T, usize), DecodeError> {
    if let Ok((_, len)) = &result {
        // The 1-byte path returns 1 for a non-empty input; the out-of-line
        // parts check their lengths against the input in scalar code.
        // SAFETY: so (`checked_len`), whatever a kernel computed.
        unsafe { core::hint::assert_unchecked(*len <= input.len()) };
    }
    result
}

/// The shape every single-value decoder shares: the 1-byte test inline,
/// `longer` (a path past it) for the rest, then [`within_input`].
#[inline(always)]
fn one_byte_then<T: VarInt>(
    input: &[u8],
    longer: impl FnOnce(&[u8]) -> Result<(T, usize), DecodeError>,
) -> Result<(T, usize), DecodeError> {
    let result = match input.first() {
        // Seven bits fit every `VarInt` type.
        Some(&byte) if byte < 0x80 => Ok((T::from_u64_unchecked(u64::from(byte)), 1)),
        _ => longer(input),
    };
    within_input(input, result)
}

/// The result of the out-of-line part of [`decode_wrapping`] in two
/// registers: the value as a `u64` and its length, or in place of the
/// length [`Longer::TRUNCATED`] or [`Longer::OVERFLOW`]. A
/// `Result<(u64, usize), DecodeError>` is 24 bytes and comes back through
/// memory: the caller reloads it from the stack, and where its paths meet
/// (the 1-byte path and this one yield the value and length that the
/// caller consumes) the compiler can merge them there too, a store and a
/// reload on the 1-byte path (seen in a test crate with apache-avro's
/// `zag_i64` on `fill_buf`). Two words come back in `rax:rdx`.
#[derive(Clone, Copy)]
struct Longer {
    value: u64,
    len: usize,
}

impl Longer {
    /// In place of the length: [`DecodeError::Truncated`].
    const TRUNCATED: usize = 0;
    /// In place of the length: [`DecodeError::Overflow`] (no varint is
    /// this long).
    const OVERFLOW: usize = usize::MAX;

    /// Back to the `Result`; `from_u64_unchecked` is an `as` cast, which
    /// keeps the low bits (the value is in `T`'s range, or for the
    /// `_wrapping` reads is to be cut to it).
    #[inline(always)]
    fn into_result<T: VarInt>(self) -> Result<(T, usize), DecodeError> {
        match self.len {
            Self::TRUNCATED => Err(DecodeError::Truncated),
            Self::OVERFLOW => Err(DecodeError::Overflow),
            len => Ok((T::from_u64_unchecked(self.value), len)),
        }
    }
}

/// Decodes a varint of 1, 2 or 3 bytes from the start of `input` by
/// predicted branches alone, with no call; `None` where the varint is
/// longer, cut off (or `input` is empty), or does not fit `T` (a value
/// above its maximum, more bytes than [`T::MAX_LEN`](VarInt::MAX_LEN)).
/// [`decode`] and [`decode_wrapping`] return the same value and length
/// wherever this returns one, and decide the other inputs (a value or an
/// error).
///
/// ```
/// use varint_turbo::decode_short;
/// assert_eq!(decode_short::<u32>(&[0xac, 0x02, 0xff]), Some((300, 2)));
/// assert_eq!(decode_short::<u32>(&[0x80, 0x80, 0x80, 0x01]), None); // 4 bytes
/// assert_eq!(decode_short::<u8>(&[0xac, 0x02]), None); // 300 does not fit
/// assert_eq!(decode_short::<u64>(&[0xac]), None); // cut off
/// ```
///
/// For a parser that wants its 1- to 3-byte varints without any call,
/// and the rest in a function of its own. On x86-64 built with Rust 1.88
/// or later, [`decode`] and [`decode_wrapping`] need no such split: their
/// path past the 1-byte test is a call that changes three registers
/// (`r9`-`r11`), so a read function that is not inlined into its loop
/// saves none for it. Elsewhere that path is a Rust call, which makes such
/// a function save registers at its entry on every varint, the 1-byte ones
/// too (five, 42 instructions per 1-byte varint against 29 for
/// quick-protobuf's own loop, callgrind); the split avoids it:
///
/// ```
/// use varint_turbo::{decode_short, decode_wrapping, DecodeError};
///
/// fn read_varint64(input: &[u8], pos: &mut usize) -> Result<u64, DecodeError> {
///     if let Some((value, len)) = decode_short(&input[*pos..]) {
///         *pos += len;
///         return Ok(value);
///     }
///     read_longer(input, pos)
/// }
///
/// #[inline(never)]
/// fn read_longer(input: &[u8], pos: &mut usize) -> Result<u64, DecodeError> {
///     let (value, len) = decode_wrapping(&input[*pos..])?;
///     *pos += len;
///     Ok(value)
/// }
///
/// let input = [0x05, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f];
/// let mut pos = 0;
/// assert_eq!(read_varint64(&input, &mut pos), Ok(5));
/// assert_eq!(read_varint64(&input, &mut pos), Ok(300));
/// assert_eq!(read_varint64(&input, &mut pos), Ok(u64::from(u32::MAX)));
/// assert_eq!(pos, input.len());
/// ```
#[inline(always)]
pub fn decode_short<T: VarInt>(input: &[u8]) -> Option<(T, usize)> {
    let &first = input.first()?;
    let short = if first < 0x80 {
        Some((T::from_u64_unchecked(u64::from(first)), 1))
    } else {
        let (value, len) = two_or_three_bytes(input)?;
        // 14 or 21 bits, which only `u8` and `u16` can find too many.
        crate::varint::narrow::<T>(value, len).ok()
    };
    if let Some((_, len)) = &short {
        // Each path above read its `len` bytes through a checked
        // `first`, `first_chunk` or `get`.
        // SAFETY: so they are inside `input`.
        unsafe { core::hint::assert_unchecked(*len <= input.len()) };
    }
    short
}

/// A 2-byte varint (lengths, small counts and deltas) or a 3-byte one
/// (timestamp deltas, offsets) at the start of `input`, by predicted
/// branches: its value and length.
#[inline(always)]
fn two_or_three_bytes(input: &[u8]) -> Option<(u64, usize)> {
    let &[low, high] = input.first_chunk::<2>()?;
    if high < 0x80 {
        return Some((u64::from(low & 0x7f) | u64::from(high) << 7, 2));
    }
    let &top = input.get(2)?;
    if top < 0x80 {
        let value = u64::from(low & 0x7f) | u64::from(high & 0x7f) << 7 | u64::from(top) << 14;
        return Some((value, 3));
    }
    None
}

/// Decodes one varint of at most 10 bytes from the start of `input` and
/// keeps its low `T::BITS` bits, as protobuf C++ (`ReadVarint64`,
/// `ReadVarint32`), Java Avro, apache-avro and quick-protobuf read them.
///
/// Returns the value and the number of bytes the varint took (1..=10);
/// bytes after it are ignored. The varint may be longer than
/// [`T::MAX_LEN`](VarInt::MAX_LEN) and carry more bits than `T` has: the
/// bits above `T::BITS` are dropped (a 10-byte `int32` of -1 reads as
/// `u32::MAX`), and so are the bits of a 10th byte above bit 63 (a 10th
/// byte of `0x02..=0x7f`, which [`decode`] rejects). Fails with
/// [`DecodeError::Truncated`] if `input` ends while a continuation bit is
/// set (or is empty), and with [`DecodeError::Overflow`] only if the 10th
/// byte has its continuation bit set. Never reads past the end of `input`.
///
/// ```
/// use varint_turbo::{decode_wrapping, DecodeError};
/// // A negative protobuf int32: ten bytes, the low 32 bits kept.
/// let minus_one = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
/// assert_eq!(decode_wrapping::<u32>(&minus_one), Ok((u32::MAX, 10)));
/// // A 10th byte of 0x02..=0x7f: its bits above bit 63 are dropped.
/// let lax = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f];
/// assert_eq!(decode_wrapping::<u64>(&lax), Ok((1 << 63, 10)));
/// assert_eq!(decode_wrapping::<u8>(&[0xac, 0x02]), Ok((44, 2)));
/// assert_eq!(decode_wrapping::<u64>(&[0xac]), Err(DecodeError::Truncated));
/// assert_eq!(decode_wrapping::<u64>(&[0xff; 10]), Err(DecodeError::Overflow));
/// ```
///
/// The same code as [`decode`] on every varint that [`decode::<u64>`]
/// accepts (its 1-, 2- and 3-byte branches, then the kernel), with the
/// narrowing to `T` an `as` cast; only a 10th byte of `0x02..=0x7f` takes
/// a cold byte loop.
#[inline(always)]
pub fn decode_wrapping<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    // The low bits of the `u64`: `into_result`'s cast.
    one_byte_then(input, |input| {
        decode_wrapping_longer::<T>(input).into_result()
    })
}

/// Decodes a zigzag varint with the rules of [`decode_wrapping`]: the low
/// `T::BITS` bits of a varint of at most 10 bytes, then zigzag (protobuf
/// C++'s `ReadVarint32` + `ZigZagDecode32` for `sint32`; apache-avro's
/// `long`).
///
/// ```
/// use varint_turbo::decode_zigzag_wrapping;
/// assert_eq!(decode_zigzag_wrapping::<i32>(&[0x03]), Ok((-2, 1)));
/// // 2^32 + 3 as a varint: the low 32 bits are 3, zigzag -2.
/// assert_eq!(decode_zigzag_wrapping::<i32>(&[0x83, 0x80, 0x80, 0x80, 0x10]), Ok((-2, 5)));
/// ```
///
/// Always inlined, as [`decode_wrapping`] is, and so are the other thin
/// wrappers of an always-inlined path ([`decode_zigzag`], [`decode_len`],
/// the zigzag encoders and readers): with `#[inline]` the compiler weighed
/// the wrapper with the out-of-line part already inlined into it, found it
/// big and called it, so every varint, 1-byte ones too, cost a call and a
/// `Result` returned through the stack. In apache-avro's `zag_i64` (the
/// avro harness, `array<int>` through serde) the varint took 65
/// instructions per value, against 23 for avro's own loop; inlined, 33,
/// and the row went from 1.32-1.40x avro's time to 1.07x (BENCHMARKS.md,
/// "Inside apache-avro").
#[inline(always)]
pub fn decode_zigzag_wrapping<T: ZigZag>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    let (value, len) = decode_wrapping::<T::Unsigned>(input)?;
    Ok((T::zigzag_decode(value), len))
}

/// Decodes a zigzag varint (protobuf `sint32`/`sint64`, Avro `int`/`long`)
/// into the signed type `T`; same rules as [`decode`] on `T::Unsigned`.
///
/// ```
/// use varint_turbo::decode_zigzag;
/// assert_eq!(decode_zigzag::<i32>(&[0x03]), Ok((-2, 1)));
/// assert_eq!(decode_zigzag::<i64>(&[0xfe, 0x01]), Ok((127, 2)));
/// ```
#[inline(always)]
pub fn decode_zigzag<T: ZigZag>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    let (value, len) = decode::<T::Unsigned>(input)?;
    Ok((T::zigzag_decode(value), len))
}

/// The length of the varint at the start of `input`, validated exactly as
/// [`decode`] validates it (truncation and overflow for `T` are errors).
///
/// ```
/// use varint_turbo::{decode_len, DecodeError};
/// assert_eq!(decode_len::<u64>(&[0x96, 0x01, 0x00]), Ok(2));
/// assert_eq!(decode_len::<u64>(&[0x96]), Err(DecodeError::Truncated));
/// ```
#[inline(always)]
pub fn decode_len<T: VarInt>(input: &[u8]) -> Result<usize, DecodeError> {
    decode::<T>(input).map(|(_, len)| len)
}

/// Decodes one varint from `ptr` without bounds or validity checks.
///
/// For a valid varint it returns exactly what [`decode`] returns. It is the
/// branch-free kernel alone, without [`decode`]'s 1-byte branch: the same
/// cost for every length, which wins where lengths are random. For a
/// malformed one (longer than `T::MAX_LEN` bytes, or a value that does not
/// fit `T`) it returns an unspecified value and a length in
/// `1..=T::MAX_LEN`; this is not undefined behaviour and never reads more
/// than stated below.
///
/// # Safety
/// `ptr` must be valid for reads of **16 bytes** (the varint plus padding, as
/// varint-simd's `decode_unsafe` requires), all of them initialized. The
/// function reads exactly those 16 bytes (unaligned) and nothing else.
///
/// ```
/// let mut buf = [0u8; 16];
/// buf[..2].copy_from_slice(&[0xac, 0x02]);
/// // SAFETY: `buf` has 16 readable bytes.
/// let (value, len) = unsafe { varint_turbo::decode_unchecked::<u32>(buf.as_ptr()) };
/// assert_eq!((value, len), (300, 2));
/// ```
#[inline]
pub unsafe fn decode_unchecked<T: VarInt>(ptr: *const u8) -> (T, usize) {
    // Borrowing instead of copying lets the kernel do one 8-byte load.
    // SAFETY: 16 readable, initialized bytes at `ptr` (caller); alignment 1.
    let window = unsafe { &*ptr.cast::<[u8; 16]>() };
    selected::decode_unchecked(window)
}

// The paths past the 1-byte test: the routine in assembly where the
// compiler has naked functions (x86-64), else the portable code.
cfg_if::cfg_if! {
    if #[cfg(all(
        target_arch = "x86_64",
        target_pointer_width = "64",
        varint_turbo_naked,
        not(varint_turbo_force_scalar)
    ))] {
        /// [`decode`] past its 1-byte test on x86-64: the routine in assembly
        /// (`arch::x86_64::longer_call`), entered by a `call` that changes three
        /// registers, so a caller keeps its values in the others and saves none;
        /// then `T`'s rules on its `u64` wrapping result. Always inlined: the
        /// call site is a few bytes, the same for every caller.
        #[inline(always)]
        fn decode_longer<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
            use crate::arch::x86_64::longer_call::{decode_u64_wrapping, TRUNCATED};
            let (value, len) = decode_u64_wrapping(input, T::MAX_LEN == 5);
            // A length within the input, compared here in Rust whatever the
            // routine computed (`within_input` relies on it); every code the
            // routine returns in place of a length fails it, `LAX_TENTH` too (Go
            // protowire's rule for `u64`: a 10th byte above 0x01 overflows).
            // `narrow` applies `T`'s length and range.
            if len.wrapping_sub(1) < input.len() {
                return crate::varint::narrow::<T>(value, len);
            }
            if len == TRUNCATED && input.len() < T::MAX_LEN {
                // Every byte of the input continues, fewer than `T::MAX_LEN`.
                Err(DecodeError::Truncated)
            } else if len <= 10 && len > input.len() {
                // No routine result; read as `checked_len` would.
                Err(DecodeError::Truncated)
            } else {
                // Longer than `T::MAX_LEN` bytes, ended or not.
                Err(DecodeError::Overflow)
            }
        }

        /// [`decode_wrapping`] past its 1-byte test on x86-64: the routine's
        /// result as it is (its codes are [`Longer`]'s) where its length is within
        /// the input. See `decode_longer`.
        #[inline(always)]
        fn decode_wrapping_longer<T: VarInt>(input: &[u8]) -> Longer {
            use crate::arch::x86_64::longer_call::{decode_u64_wrapping, LAX_TENTH, OVERFLOW};
            let (value, len) = decode_u64_wrapping(input, T::MAX_LEN == 5);
            if len.wrapping_sub(1) < input.len() {
                Longer { value, len }
            } else if len == LAX_TENTH && input.len() >= 10 {
                // A 10th byte above 0x01, which this rule keeps.
                Longer { value, len: 10 }
            } else if len == OVERFLOW {
                Longer {
                    value: 0,
                    len: Longer::OVERFLOW,
                }
            } else {
                // `TRUNCATED`, or no routine result (read as `checked_len` would).
                Longer {
                    value: 0,
                    len: Longer::TRUNCATED,
                }
            }
        }
    } else {
        /// [`decode`] past its 1-byte test: [`portable_longer`].
        #[inline(always)]
        fn decode_longer<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
            portable_longer(input)
        }

        /// [`decode_wrapping`] past its 1-byte test: [`portable_wrapping_longer`].
        /// `T` is unused here; the routine's path takes its 32-bit routine for
        /// 32-bit types.
        #[allow(clippy::extra_unused_type_parameters)]
        #[inline(always)]
        fn decode_wrapping_longer<T: VarInt>(input: &[u8]) -> Longer {
            portable_wrapping_longer(input)
        }
    }
}

/// [`decode`] with the portable path past the 1-byte test, on every
/// target: the 2- and 3-byte tests and the kernel, left to the inliner as
/// on targets without the routine. For a reader that decodes from a
/// 16-byte window in its own loop (`SliceReader`): there the routine's call
/// and its length codes cost more than they save (BENCHMARKS.md,
/// "SliceReader: parse loops").
#[inline(always)]
pub(crate) fn decode_portable<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    one_byte_then(input, portable_longer)
}

/// [`decode_wrapping`] as [`decode_portable`] is [`decode`].
#[inline(always)]
pub(crate) fn decode_wrapping_portable<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    // The low bits of the `u64`: `into_result`'s cast.
    one_byte_then(input, |input| portable_wrapping_longer(input).into_result())
}

/// The portable path past [`decode`]'s 1-byte test: the 2- and 3-byte
/// tests, then the kernel on a window of the input (`arch::window`); kept
/// apart so that the 1-byte test is always inlined into the caller's loop
/// and the rest is left to the inliner. (It returns a `Result` through
/// memory, unlike [`portable_wrapping_longer`]'s [`Longer`]: in prost's
/// packed loops, a 1-byte test of prost's own and then `decode`, the
/// two-register form took the vt copy's packed `bool` and `enum` decode
/// from 0.44-0.94 of prost's time to 0.89-1.30; the prost harness, default
/// build, Zen 3, BENCHMARKS.md "Inside apache-avro".)
#[inline]
fn portable_longer<T: VarInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    if let Some((value, len)) = two_or_three_bytes(input) {
        // 14 or 21 bits, which only `u8` and `u16` can find too many.
        return crate::varint::narrow::<T>(value, len);
    }
    checked_len(input, decode_with(input, selected::decode))
}

/// The portable path past [`decode_wrapping`]'s 1-byte test, kept apart as
/// [`portable_longer`] is; the `u64` value, in two registers ([`Longer`]).
///
/// Each path builds its [`Longer`] itself: converted from
/// `portable_longer`'s `Result`, the paths met in a `Result` on the stack
/// first (quick-protobuf's 2-byte read: 69 -> 87 instructions).
#[inline]
fn portable_wrapping_longer(input: &[u8]) -> Longer {
    if let Some((value, len)) = two_or_three_bytes(input) {
        return Longer { value, len };
    }
    match checked_len(input, decode_with(input, selected::decode::<u64>)) {
        Ok((value, len)) => Longer { value, len },
        // For `u64` the kernel overflows only on a 10th byte above 0x01.
        Err(DecodeError::Overflow) => Longer::from_result(decode_wrapping_tenth_byte(input)),
        Err(DecodeError::Truncated) => Longer::from_result::<u64>(Err(DecodeError::Truncated)),
    }
}

/// The kernel's result on `input`, with its length checked against the
/// input (a compare on the path of varints of 4 bytes and more): the
/// guarantee [`within_input`] passes on rests on this check, not on the
/// arithmetic of a BMI2 or SIMD kernel. A length past the input, which no
/// kernel returns, would read as [`DecodeError::Truncated`].
#[inline(always)]
fn checked_len<T>(
    input: &[u8],
    result: Result<(T, usize), DecodeError>,
) -> Result<(T, usize), DecodeError> {
    match result {
        Ok((_, len)) if len > input.len() => Err(DecodeError::Truncated),
        result => result,
    }
}

/// A varint whose 10th byte is above `0x01`: kept when that byte ends it
/// (its bit 0 is bit 63 of the value, the rest is dropped), else
/// [`DecodeError::Overflow`]. Cold: no encoder writes such a varint.
#[cold]
#[inline(never)]
fn decode_wrapping_tenth_byte(input: &[u8]) -> Result<(u64, usize), DecodeError> {
    match input.first_chunk::<10>() {
        Some(bytes) if bytes[9] < 0x80 => {
            let value = bytes.iter().enumerate().fold(0u64, |value, (i, &byte)| {
                value | u64::from(byte & 0x7f) << (7 * i)
            });
            Ok((value, 10))
        }
        _ => Err(DecodeError::Overflow),
    }
}

impl Longer {
    #[inline(always)]
    fn from_result<T: VarInt>(result: Result<(T, usize), DecodeError>) -> Self {
        match result {
            Ok((value, len)) => Self {
                value: value.to_u64(),
                len,
            },
            Err(DecodeError::Truncated) => Self {
                value: 0,
                len: Self::TRUNCATED,
            },
            Err(DecodeError::Overflow) => Self {
                value: 0,
                len: Self::OVERFLOW,
            },
        }
    }
}
