//! Signed LEB128: the integers of WebAssembly (`i32.const`, `i64.const`,
//! memory offsets, block types) and DWARF (`.debug_line` advances,
//! `.debug_info` attributes, CFI offsets).
//!
//! A signed LEB128 varint is the two's complement of the value in 7-bit
//! groups, least significant first, the continuation bit set on every byte
//! but the last; the value is sign-extended from bit 6 of the last byte.
//! This is not zigzag (protobuf `sint32`, Avro), which has its own
//! functions ([`decode_zigzag`](crate::decode_zigzag), ...).
//!
//! The rules are WebAssembly's `s32`/`s64` (which gimli's
//! `leb128::read::signed`, wasmparser's `read_var_i32`/`read_var_i64` and
//! the `leb128` crate enforce too):
//!
//! * an `i32` has at most 5 bytes, an `i64` at most 10 (more is
//!   [`DecodeError::Overflow`], even when the varint is a padded small
//!   value);
//! * in the last byte, the bits beyond the type's width must all equal its
//!   sign bit, else [`DecodeError::Overflow`]: a 5th `i32` byte is
//!   `0x00..=0x07` or `0x78..=0x7f`, a 10th `i64` byte `0x00` or `0x7f`;
//! * an input that ends inside the varint (or is empty) is
//!   [`DecodeError::Truncated`];
//! * non-minimal encodings within the length limit are accepted
//!   (`0xff 0x7f` is -1, `0x80 0x00` is 0).
//!
//! WebAssembly's unsigned rule (`u32`: at most 5 bytes, the unused bits of
//! the 5th zero) is exactly what [`decode::<u32>`](crate::decode) already
//! implements.
//!
//! ```
//! use varint_turbo::{sleb128, DecodeError};
//! assert_eq!(sleb128::decode::<i32>(&[0x7f]), Ok((-1, 1)));
//! assert_eq!(sleb128::decode::<i64>(&[0xc0, 0xbb, 0x78]), Ok((-123456, 3)));
//! assert_eq!(sleb128::decode::<i32>(&[0x80, 0x80, 0x80, 0x80, 0x78]), Ok((i32::MIN, 5)));
//! assert_eq!(sleb128::decode::<i32>(&[0x80, 0x80, 0x80, 0x80, 0x08]), Err(DecodeError::Overflow));
//! assert_eq!(sleb128::decode::<i64>(&[0x80]), Err(DecodeError::Truncated));
//!
//! let (bytes, len) = sleb128::encode(-123456i64);
//! assert_eq!(&bytes[..usize::from(len)], &[0xc0, 0xbb, 0x78]);
//! ```
//!
//! # Bulk
//!
//! [`decode_slice`] and [`decode_all`] decode whole buffers (a WebAssembly
//! code section's immediates gathered, a DWARF table) with the contract of
//! the unsigned [`decode_slice`](crate::decode_slice). The x86-64 SIMD
//! backends decode signed varints in one pass, with their unsigned
//! decoder's steps: on SSSE3 and AVX2 each fixed-grid step reads a
//! varint's last byte as a signed 7-bit group (bit 6 copied into bit 7
//! before the multiply-adds) and joins the groups with sign extension
//! (see `arch::x86_64::grid_decode`); on AVX-512 each lane of the chunk
//! decoder is shifted left and arithmetically right by its width less
//! `7 * len` (see `arch::x86_64::avx512::decode_slice`). Both check the
//! signed rules where the unsigned decoder checks its own, so negative
//! 5-byte `i32`s and 10-byte `i64`s stay in the vector steps. NEON runs
//! its unsigned kernel of the same width and one more step per value,
//! which sign-extends it from bit 6 of its last byte (see `sign_values`
//! in the kernels); the values that kernel rejects but the signed rules
//! accept are decoded by the scalar decoder, which then takes the next
//! values too (256 of them) before the vector kernel resumes. The scalar
//! backend decodes signed varints directly (a terminator bitmap per
//! 64-byte block, one word step per value).

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::mem::MaybeUninit;

use crate::arch::as_uninit;
use crate::arch::scalar::sleb128 as kernels;
use crate::arch::window::encode_to_slice_with;
use crate::bulk::{decode_uninit, detected_backend, Backend};
use crate::error::{BulkDecodeError, DecodeError};
pub use crate::sleb128_int::SignedLeb128;

/// Decodes one signed LEB128 varint from the start of `input` into `T`
/// (`i32` or `i64`); returns the value and the number of bytes it took.
/// Bytes after the varint are ignored; never reads past the end of `input`.
///
/// Fails with [`DecodeError::Truncated`] if `input` ends while a
/// continuation bit is set (or is empty) and with [`DecodeError::Overflow`]
/// if the varint is longer than [`T::MAX_LEN`](SignedLeb128::MAX_LEN) bytes
/// or the unused bits of its last byte differ from its sign (see the
/// module documentation).
///
/// ```
/// use varint_turbo::{sleb128, DecodeError};
/// assert_eq!(sleb128::decode::<i32>(&[0x3f, 0xff]), Ok((63, 1)));
/// assert_eq!(sleb128::decode::<i32>(&[0x40]), Ok((-64, 1)));
/// assert_eq!(sleb128::decode::<i64>(&[0xff, 0x7f]), Ok((-1, 2))); // not minimal: fine
/// assert_eq!(sleb128::decode::<i32>(&[0xff, 0xff, 0xff, 0xff, 0x7f, 0x00]), Ok((-1, 5)));
/// assert_eq!(sleb128::decode::<i32>(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]), Err(DecodeError::Overflow));
/// ```
///
/// Varints of 1 to 5 bytes (every `i32`, and the `i64`s of real code but
/// addresses, masks and hashes) are decoded by one predicted branch per
/// byte, as a byte loop does, all inlined into the caller's loop; longer
/// ones (and inputs of fewer than 5 bytes) take the branch-free kernel.
/// On the Zen 4 host (default build, the shapes of `cargo bench --bench
/// sleb128`), against the `leb128` crate's loop: 0.84-1.04x; with the
/// kernel from the 4th byte on, up to 1.15x; with the 2-byte and longer
/// cases out of line, 1.07-1.27x (see BENCHMARKS.md, "Signed LEB128").
#[inline(always)]
pub fn decode<T: SignedLeb128>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    if let Some(&byte) = input.first() {
        if byte < 0x80 {
            // Seven bits, sign-extended, fit every type.
            return Ok((T::from_i64_unchecked(extend::<1>(u64::from(byte))), 1));
        }
    }
    let (value, len) = decode_longer::<T>(input);
    if len == 0 {
        return Err(decode_error::<T>(input));
    }
    Ok((T::from_i64_unchecked(value), len))
}

/// [`decode`] past its 1-byte test: the value and its length, or a length
/// of 0 for an error ([`decode_error`] tells which). (Building the
/// `Result` once, in [`decode`], measured faster than a `Result` from
/// every branch: Zen 4, default build, `dwarf-sdata` 1.02-1.04x the
/// `leb128` crate's loop against 1.09x.)
#[inline(always)]
fn decode_longer<T: SignedLeb128>(input: &[u8]) -> (i64, usize) {
    if let Some(&[b0, b1, b2, b3, b4]) = input.first_chunk::<5>() {
        let raw = u64::from(b0 & 0x7f) | u64::from(b1 & 0x7f) << 7;
        if b1 < 0x80 {
            return (extend::<2>(raw), 2);
        }
        let raw = raw | u64::from(b2 & 0x7f) << 14;
        if b2 < 0x80 {
            return (extend::<3>(raw), 3);
        }
        let raw = raw | u64::from(b3 & 0x7f) << 21;
        if b3 < 0x80 {
            return (extend::<4>(raw), 4);
        }
        if b4 < 0x80 {
            // 35 bits: the `i32` rule is that they fit.
            let value = extend::<5>(raw | u64::from(b4) << 28);
            if !T::fits(value) {
                return (0, 0);
            }
            return (value, 5);
        }
    }
    match kernels::decode::<T>(input) {
        Ok((value, len)) => (value.to_i64(), len),
        Err(_) => (0, 0),
    }
}

/// The error of an input that [`decode_longer`] rejected, from the
/// kernel again (corrupt input: off the hot path).
#[cold]
#[inline(never)]
fn decode_error<T: SignedLeb128>(input: &[u8]) -> DecodeError {
    match kernels::decode::<T>(input) {
        Err(kind) => kind,
        // Not reached (the kernel rejects what `decode_longer` rejects),
        // but never claim a value.
        Ok(_) => DecodeError::Truncated,
    }
}

/// The low `7 * LEN` bits of `raw` sign-extended from bit `7 * LEN - 1`
/// (`kernels::sign_extend` with constant shifts).
#[inline(always)]
fn extend<const LEN: u32>(raw: u64) -> i64 {
    ((raw << (64 - 7 * LEN)) as i64) >> (64 - 7 * LEN)
}

/// Encodes `value` as its shortest signed LEB128 varint: returns a 16-byte
/// array whose first `len` bytes are the varint, and `len` (1..=5 for
/// `i32`, 1..=10 for `i64`). Bytes past `len` are zero.
///
/// ```
/// let (bytes, len) = varint_turbo::sleb128::encode(-129i32);
/// assert_eq!(&bytes[..usize::from(len)], &[0xff, 0x7e]);
/// let (bytes, len) = varint_turbo::sleb128::encode(64i64);
/// assert_eq!(&bytes[..usize::from(len)], &[0xc0, 0x00]);
/// ```
#[inline]
#[must_use]
pub fn encode<T: SignedLeb128>(value: T) -> ([u8; 16], u8) {
    let (low, high, len) = kernels::encode_words(value);
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&low.to_le_bytes());
    out[8..].copy_from_slice(&u64::from(high).to_le_bytes());
    (out, len as u8)
}

/// Encodes `value` into the start of `out` and returns the number of bytes
/// written. To store whole words, it may also set bytes of `out` after the
/// varint to zero, but never past index 10 (nor past `out`'s end).
///
/// # Panics
/// If `out` is shorter than [`encoded_len(value)`](encoded_len), like
/// [`encode_to_slice`](crate::encode_to_slice).
///
/// ```
/// let mut buf = [0u8; 10];
/// let len = varint_turbo::sleb128::encode_to_slice(-2i64, &mut buf);
/// assert_eq!(&buf[..len], &[0x7e]);
/// ```
#[inline]
pub fn encode_to_slice<T: SignedLeb128>(value: T, out: &mut [u8]) -> usize {
    let wide = value.to_i64();
    if (-64..64).contains(&wide) {
        if let Some(first) = out.first_mut() {
            *first = wide as u8 & 0x7f;
            return 1;
        }
    }
    encode_to_slice_with(out, |window| kernels::encode(value, window))
}

/// The number of bytes of the shortest signed LEB128 varint of `value`
/// (1..=5 for `i32`, 1..=10 for `i64`), without encoding it.
///
/// ```
/// use varint_turbo::sleb128::encoded_len;
/// assert_eq!(encoded_len(63i32), 1);
/// assert_eq!(encoded_len(64i32), 2);
/// assert_eq!(encoded_len(-64i64), 1);
/// assert_eq!(encoded_len(i64::MIN), 10);
/// ```
#[inline]
#[must_use]
pub fn encoded_len<T: SignedLeb128>(value: T) -> usize {
    // The unsigned length of the zigzag form (see `kernels::encoded_len`),
    // on the run-time `LZCNT` of the unsigned `encoded_len`.
    let value = value.to_i64();
    crate::arch::selected::encoded_len(((value << 1) ^ (value >> 63)) as u64)
}

/// Decodes consecutive signed varints from the start of `input` into `out`
/// until `out` is full or `input` is exhausted; returns (values written,
/// bytes consumed).
///
/// The contract of the unsigned [`decode_slice`](crate::decode_slice): a
/// varint cut off by the end of `input` is [`DecodeError::Truncated`], one
/// that breaks the rules of [`decode`] is [`DecodeError::Overflow`]; the
/// error gives the index and byte offset of that value, and every value
/// before it has been written to `out`. Slots of `out` past the values
/// written (or past the failing index) may be overwritten with unspecified
/// values.
///
/// ```
/// use varint_turbo::{sleb128, DecodeError};
/// let code = [0x7f, 0xc0, 0xbb, 0x78, 0x2a]; // -1, -123456, 42
/// let mut out = [0i32; 8];
/// assert_eq!(sleb128::decode_slice(&code, &mut out), Ok((3, 5)));
/// assert_eq!(out[..3], [-1, -123456, 42]);
///
/// let error = sleb128::decode_slice(&[0x01, 0x80], &mut out).unwrap_err();
/// assert_eq!((error.kind(), error.index(), error.offset()), (DecodeError::Truncated, 1, 1));
/// ```
#[inline]
pub fn decode_slice<T: SignedLeb128>(
    input: &[u8],
    out: &mut [T],
) -> Result<(usize, usize), BulkDecodeError> {
    decode_auto(input, as_uninit(out))
}

/// Inputs of at most this many bytes take [`short_values`], a loop of
/// [`decode`], inlined: a few values cost less there than any set-up
/// (Zen 4, one `i32.const` immediate per call: 12.6 ns through the scalar
/// bulk decoder against the `leb128` crate's loop at 5.6, the AVX-512
/// chunk 24.3). The unsigned bulk decoders' byte loop has the same bound
/// (`BYTEWISE_MAX_BYTES`).
const BYTE_LOOP_MAX_BYTES: usize = 16;

/// [`decode_slice`] into slots that need not be initialized: the byte
/// loop for a few bytes, the scalar decoder on CPUs without a SIMD
/// backend, else the one-pass signed decoder of SSSE3, AVX2 or AVX-512,
/// or on NEON the unsigned bulk dispatch (`bulk::decode_uninit`, which
/// picks the backend by the input's length and shape) and the sign step.
///
/// Past the byte loop the SIMD decoders win at every length measured
/// (Zen 4, `cargo bench --bench sleb128` with `WINDOW` of 16 and 32
/// values, 20-90 bytes, paired, ns per value, scalar / SSSE3 / AVX2 /
/// AVX-512: 16 values of `wasm-i32-const` 5.13 / 3.84 / 3.47 / 1.57,
/// `dwarf-sdata` 4.73 / 3.74 / 3.75 / 1.63; 32 values 4.67 / 1.90 /
/// 1.96 / 0.94 and 3.96 / 3.28 / 2.98 / 1.49). Inputs under 64 bytes
/// took the scalar decoder before that was measured.
#[inline(always)]
fn decode_auto<T: SignedLeb128>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    if input.len() <= BYTE_LOOP_MAX_BYTES {
        return short_values(input, out);
    }
    decode_dispatched(input, out)
}

/// [`decode_auto`] past the byte loop (out of line: the loop is inlined
/// into the caller).
#[inline(never)]
fn decode_dispatched<T: SignedLeb128>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    let detected = detected_backend();
    if detected == Backend::Scalar {
        return kernels::decode_slice(input, out);
    }
    decode_on(input, out, detected, decode_uninit::<T::Bits>)
}

/// The values of a short input, one [`decode`] each (its 1-3-byte
/// branches, then the kernel), until `out` is full or the input ends; the
/// first error is the reference's, at that value's index and offset.
#[inline(always)]
fn short_values<T: SignedLeb128>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    kernels::values_with(input, 0, out, 0, usize::MAX, decode::<T>)
}

/// [`decode_slice`] on one bulk backend: its one-pass signed decoder
/// (SSSE3, AVX2, AVX-512), or its unsigned kernel and the sign step
/// (NEON; the scalar backend decodes signed varints directly). For tests
/// and benchmarks; [`decode_slice`] picks the backend itself.
///
/// # Panics
/// If the CPU does not support `backend` ([`Backend::is_supported`]).
///
/// ```
/// use varint_turbo::{sleb128, Backend};
/// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
///     let mut out = [0i64; 4];
///     assert_eq!(sleb128::decode_slice_on(backend, &[0x7f, 0x80, 0x7f], &mut out), Ok((2, 3)));
///     assert_eq!(out[..2], [-1, -128]);
/// }
/// ```
pub fn decode_slice_on<T: SignedLeb128>(
    backend: Backend,
    input: &[u8],
    out: &mut [T],
) -> Result<(usize, usize), BulkDecodeError> {
    assert!(
        backend.is_supported(),
        "the {backend} backend is not supported by this CPU"
    );
    let out = as_uninit(out);
    if backend == Backend::Scalar {
        return kernels::decode_slice(input, out);
    }
    decode_on(input, out, backend, |input, out| {
        backend.decode_uninit(input, out)
    })
}

/// The bulk decoder of a SIMD `backend`: its one-pass signed decoder
/// (SSSE3, AVX2, AVX-512: `Backend::decode_signed_uninit`), else
/// [`decode_signed_runs`] with `unsigned`, its unsigned decoder.
#[inline(always)]
fn decode_on<T: SignedLeb128>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    backend: Backend,
    unsigned: impl Fn(&[u8], &mut [MaybeUninit<T::Bits>]) -> Result<(usize, usize), BulkDecodeError>,
) -> Result<(usize, usize), BulkDecodeError> {
    match backend.decode_signed_uninit(input, bit_slots(out)) {
        Some(result) => result,
        None => decode_signed_runs(input, out, unsigned),
    }
}

/// `out` as slots of `T::Bits`, which can hold either type: `T` and
/// `T::Bits` are iN/uN of one width (the sealed trait's only impls).
fn bit_slots<T: SignedLeb128>(out: &mut [MaybeUninit<T>]) -> &mut [MaybeUninit<T::Bits>] {
    const { assert!(size_of::<T>() == size_of::<T::Bits>() && align_of::<T>() == align_of::<T::Bits>()) };
    // SAFETY: same size and alignment (checked above), both uninitialized
    // slots, and every bit pattern of one is a valid value of the other.
    unsafe { core::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), out.len()) }
}

/// Values the scalar decoder takes after a varint that the unsigned kernel
/// rejected and the signed rules accept, before the kernel resumes: such
/// varints (negative 5-byte `i32`s) tend to come in numbers, and each
/// return from the kernel costs its set-up again.
pub(crate) const SCALAR_STRETCH: usize = 256;

/// The bulk decoder of the SIMD backends without a one-pass signed decoder
/// (NEON): `unsigned` (a bulk decoder of `T::Bits`) decodes as far as it can into `out`'s slots, [`sign_step`]
/// turns its values into the signed ones (or finds the first that breaks
/// the signed rules), and where `unsigned` stopped at a varint that the
/// signed rules accept, the scalar bulk decoder takes it and the next
/// [`SCALAR_STRETCH`] values. Errors come from the scalar reference.
#[inline(always)]
fn decode_signed_runs<T: SignedLeb128>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
    unsigned: impl Fn(&[u8], &mut [MaybeUninit<T::Bits>]) -> Result<(usize, usize), BulkDecodeError>,
) -> Result<(usize, usize), BulkDecodeError> {
    let len = out.len();
    // `T` and `T::Bits` are iN/uN of one width (the sealed trait's only
    // impls), so the slots can hold either.
    // SAFETY: same size and alignment, both uninitialized slots.
    let bits = unsafe {
        core::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<MaybeUninit<T::Bits>>(), len)
    };
    let mut n = 0;
    let mut at = 0;
    while n < len && at < input.len() {
        let (values, consumed, stopped) = match unsigned(&input[at..], &mut bits[n..]) {
            Ok((values, consumed)) => (values, consumed, false),
            Err(error) => (error.index(), error.offset(), true),
        };
        // No progress without an error (never expected): the scalar
        // decoder below always makes some, or fails.
        let stopped = stopped || consumed == 0;
        // SAFETY: the decoder initialized slots `n..n + values` (its
        // values, or those before its error), inside `bits`.
        let decoded = unsafe {
            core::slice::from_raw_parts_mut(bits.as_mut_ptr().add(n).cast::<T::Bits>(), values)
        };
        if let Err((index, offset)) = sign_step::<T>(&input[at..at + consumed], decoded) {
            return Err(BulkDecodeError::new(
                DecodeError::Overflow,
                n + index,
                at + offset,
            ));
        }
        n += values;
        at += consumed;
        if stopped {
            // The signed rules decide, and decode what follows for a
            // while (errors included, with the reference's index and
            // offset).
            let end = len.min(n + 1 + SCALAR_STRETCH);
            let (values, consumed) = kernels::decode_slice(&input[at..], &mut out[n..end])
                .map_err(|e| BulkDecodeError::new(e.kind(), n + e.index(), at + e.offset()))?;
            n += values;
            at += consumed;
        }
    }
    Ok((n, at))
}

/// The sign step after the unsigned kernel of a backend without a
/// one-pass signed decoder (NEON): see `kernels::sign_values`.
#[inline(always)]
fn sign_step<T: SignedLeb128>(input: &[u8], values: &mut [T::Bits]) -> Result<(), (usize, usize)> {
    kernels::sign_values::<T>(input, values)
}

/// Decodes every signed varint of `input` (which must hold nothing else)
/// into a new `Vec`, as the unsigned [`decode_all`](crate::decode_all)
/// does: at most one slot per input byte that ends a varint.
///
/// ```
/// use varint_turbo::{sleb128, DecodeError};
/// assert_eq!(sleb128::decode_all::<i64>(&[0x7f, 0x80, 0x01]), Ok(vec![-1, 128]));
/// let error = sleb128::decode_all::<i32>(&[0x01, 0xff]).unwrap_err();
/// assert_eq!((error.kind(), error.index(), error.offset()), (DecodeError::Truncated, 1, 1));
/// ```
#[cfg(feature = "alloc")]
pub fn decode_all<T: SignedLeb128>(input: &[u8]) -> Result<Vec<T>, BulkDecodeError> {
    let mut out = Vec::with_capacity(crate::bulk::count_varints(input));
    let (written, consumed) = decode_auto(input, out.spare_capacity_mut())?;
    if consumed < input.len() {
        // Every slot filled: what is left has no last byte.
        let kind = match kernels::decode::<T>(&input[consumed..]) {
            Err(kind) => kind,
            // Unreachable (every terminator was used), but never claim success.
            Ok(_) => DecodeError::Truncated,
        };
        return Err(BulkDecodeError::new(kind, written, consumed));
    }
    // SAFETY: the decoder initialized the first `written` slots, and
    // `written <= capacity` (it writes inside the slice it was given).
    unsafe { out.set_len(written) };
    Ok(out)
}

/// Encodes as many of `values` as fit, whole, into `out` (shortest
/// encodings), without allocating; returns (values encoded, bytes written).
/// To store whole words it may set bytes of `out` after those written to
/// zero, as [`encode_slice_into`](crate::encode_slice_into) does.
///
/// ```
/// let mut out = [0u8; 4];
/// // -1 takes 1 byte, 1000 takes 2, -100000 would need 3 more.
/// assert_eq!(varint_turbo::sleb128::encode_slice_into(&[-1i32, 1000, -100000], &mut out), (2, 3));
/// assert_eq!(out[..3], [0x7f, 0xe8, 0x07]);
/// ```
pub fn encode_slice_into<T: SignedLeb128>(values: &[T], out: &mut [u8]) -> (usize, usize) {
    encode_slice_to_uninit(values, crate::arch::as_uninit(out))
}

/// [`encode_slice_into`] into bytes that may be uninitialized (a `Vec`'s
/// spare capacity), as the crate's
/// [`encode_slice_to_uninit`](crate::encode_slice_to_uninit) is for
/// unsigned varints.
fn encode_slice_to_uninit<T: SignedLeb128>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    crate::arch::scalar::encode_slice::encode_slice_into_with(
        values,
        out,
        kernels::encode_uninit::<T>,
    )
}

/// Appends the shortest signed varints of `values` to `out`; returns the
/// bytes written.
///
/// ```
/// let mut out = vec![0xff];
/// assert_eq!(varint_turbo::sleb128::encode_slice(&[-1i64, 64], &mut out), 3);
/// assert_eq!(out, [0xff, 0x7f, 0xc0, 0x00]);
/// ```
#[cfg(feature = "alloc")]
pub fn encode_slice<T: SignedLeb128>(values: &[T], out: &mut Vec<u8>) -> usize {
    let start = out.len();
    let room = encoded_len_sum(values);
    // No zero-fill: the encoder writes into the spare capacity.
    out.reserve(room);
    let spare = out.spare_capacity_mut();
    let spare_len = spare.len();
    let (encoded, written) = encode_slice_to_uninit(values, spare);
    debug_assert_eq!((encoded, written), (values.len(), room));
    // The encoder writes inside the slice it is given; checked, since the
    // length set below relies on it.
    assert!(written <= spare_len, "the encoder wrote past its room");
    // SAFETY: `start + written` is within the capacity, and the encoder
    // initialized those bytes.
    unsafe { out.set_len(start + written) };
    written
}

/// The total number of bytes that [`encode_slice`] writes for `values`.
///
/// ```
/// assert_eq!(varint_turbo::sleb128::encoded_len_sum(&[-1i64, 64, i64::MIN]), 1 + 2 + 10);
/// ```
#[must_use]
pub fn encoded_len_sum<T: SignedLeb128>(values: &[T]) -> usize {
    crate::bulk::encoded_len_64_sum(values, |value: T| {
        let value = value.to_i64();
        ((value << 1) ^ (value >> 63)) as u64
    })
}
