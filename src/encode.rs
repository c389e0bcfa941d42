//! The single-value encoders of the public API.
//!
//! Every kernel encodes branch-free into a 16-byte window: the length comes
//! from the value's leading-zero count (Go protobuf's `SizeVarint`
//! formula, tabulated), the low 56
//! bits are spread into 7-bit groups (shifts and masks in the scalar
//! backend, one `PDEP` in the BMI2 one), the continuation bits for that
//! length come from a table, and bytes 0..10 are written as one 8-byte and
//! one 2-byte store (zeros past the varint). A caller's slice shorter than
//! 16 bytes goes through a local window and a copy of `len` bytes
//! (`arch::window`). The backend is chosen at compile time, as for
//! decoding. The functions that write one value at a time
//! ([`encode_to_slice`], [`encode_to_vec`], and `put_varint` and
//! `write_varint` on top) first take 1- and 2-byte varints by predicted
//! branches, as protobuf C++'s writers do.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

use core::mem::MaybeUninit;

use crate::arch::window::{encode_to_slice_with, too_short};
use crate::arch::{scalar, selected};
use crate::varint::VarInt;
use crate::zigzag::ZigZag;

/// Encodes `value` as a varint: returns a 16-byte array whose first `len`
/// bytes are the varint, and `len` (1..=10). Bytes past `len` are zero.
///
/// The same shape as `varint_simd::encode`, for an easy migration, and
/// branch-free like it: the same cost for every length, which wins where
/// lengths are random ([`encode_to_slice`] tests for a 1-byte value first).
///
/// ```
/// let (bytes, len) = varint_turbo::encode(300u32);
/// assert_eq!(&bytes[..len as usize], &[0xac, 0x02]);
/// ```
#[inline]
#[must_use]
pub fn encode<T: VarInt>(value: T) -> ([u8; 16], u8) {
    // Assembled from the varint's two words rather than through the
    // `&mut [u8; 16]` kernel: the caller's copy of the array is then two
    // 8-byte stores, not four (8 + 2 bytes of varint, 4 + 2 bytes of zeros).
    // Past the varint the words are zero (the spread of a value has no bits
    // there), so the padding is zero.
    let (low, high, len) = selected::encode_words(value);
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&low.to_le_bytes());
    out[8..].copy_from_slice(&u64::from(high).to_le_bytes());
    (out, len as u8)
}

/// Encodes `value` and hands its varint's bytes to `write`, returning
/// what `write` returns: for writers whose sink takes a slice (a `Vec`'s
/// `extend_from_slice`, `io::Write::write_all`, a protobuf runtime's
/// `write_all`).
///
/// A 1-byte varint is handed over inline as a slice of constant length, so
/// a sink the compiler sees through (a `Vec`, a `write_all` on one) stores
/// one byte. Longer ones are encoded in a function out of line (one
/// instance per closure: a 2-byte varint as a constant-length slice, else
/// from [`encode`]'s array). The caller's function stays small enough to be
/// inlined into its loop and saves no registers for its 1-byte path:
/// quick-protobuf's `write_varint` through it took 0.89-0.92 of the time of
/// its own byte loop per message encoded into a `Vec`, against 1.33 with
/// [`encode_to_slice`] and one `write_all` (BENCHMARKS.md, "Crates not in
/// the repository").
///
/// ```
/// let mut out = Vec::new();
/// varint_turbo::encode_with(300u32, |bytes| out.extend_from_slice(bytes));
/// varint_turbo::encode_with(1u8, |bytes| out.extend_from_slice(bytes));
/// assert_eq!(out, [0xac, 0x02, 0x01]);
///
/// let mut sink = std::io::sink();
/// let written = varint_turbo::encode_with(u64::MAX, |bytes| {
///     std::io::Write::write_all(&mut sink, bytes).map(|()| bytes.len())
/// });
/// assert_eq!(written.unwrap(), 10);
/// ```
#[inline(always)]
pub fn encode_with<T: VarInt, R>(value: T, write: impl FnOnce(&[u8]) -> R) -> R {
    let value = value.to_u64();
    if value < 0x80 {
        return write(&[value as u8]);
    }
    encode_longer_with(value, write)
}

/// [`encode_with`] past its 1-byte test.
#[inline(never)]
fn encode_longer_with<R>(value: u64, write: impl FnOnce(&[u8]) -> R) -> R {
    if value < 0x4000 {
        return write(&two_byte_varint(value));
    }
    let (bytes, len) = encode(value);
    // `len <= 10`; `min` spares a bounds check that the compiler cannot
    // drop on its own.
    write(&bytes[..usize::from(len).min(bytes.len())])
}

/// Encodes a zigzag varint (protobuf `sint32`/`sint64`, Avro `int`/`long`).
///
/// ```
/// let (bytes, len) = varint_turbo::encode_zigzag(-2i64);
/// assert_eq!(&bytes[..len as usize], &[0x03]);
/// ```
#[inline]
#[must_use]
pub fn encode_zigzag<T: ZigZag>(value: T) -> ([u8; 16], u8) {
    encode(value.zigzag_encode())
}

/// Encodes `value` into the start of `out` and returns the number of bytes
/// written (1..=10). To store whole words, it may also set bytes of `out`
/// after the varint to zero, but never past index 10 (nor past `out`'s end).
///
/// # Panics
/// If `out` is shorter than [`encoded_len(value)`](encoded_len), like
/// [`char::encode_utf8`].
///
/// ```
/// let mut buf = [0u8; 10];
/// let len = varint_turbo::encode_to_slice(150u64, &mut buf);
/// assert_eq!(&buf[..len], &[0x96, 0x01]);
/// ```
///
/// A value below `0x80` is written as one byte, and one below `0x4000` as
/// two, by predicted branches before the branch-free kernel runs, as
/// protobuf runtimes write them: most varints of real messages are 1 byte
/// (tags, bools, enums, small counts) or 2 (lengths, small ids), as for
/// [`decode`](crate::decode). The 2-byte branch took `int32`s with 10%
/// negatives (mostly 2-byte varints) from 1.4-1.6x the time of a
/// C++-style loop with 1- and 2-byte branches to 0.95-1.05x it, default
/// build, Zen 3 (BENCHMARKS.md, "Single-value encodes and lengths").
#[inline(always)]
pub fn encode_to_slice<T: VarInt>(value: T, out: &mut [u8]) -> usize {
    let v = value.to_u64();
    if v < 0x80 {
        // Separate from the test above (not `&& !out.is_empty()`): the
        // 1-byte path is then one compare and one store, as in a byte loop.
        let Some(first) = out.first_mut() else {
            too_short(1, 0)
        };
        *first = v as u8;
        return 1;
    }
    if v < 0x4000 {
        let Some(two) = out.first_chunk_mut::<2>() else {
            too_short(2, out.len())
        };
        *two = two_byte_varint(v);
        return 2;
    }
    encode_longer_to_slice(value, out)
}

/// The 2-byte varint of `value` (`0x80 <= value < 0x4000`).
#[inline(always)]
pub(crate) fn two_byte_varint(value: u64) -> [u8; 2] {
    debug_assert!((0x80..0x4000).contains(&value));
    [value as u8 | 0x80, (value >> 7) as u8]
}

/// [`encode_to_slice`] past its 1- and 2-byte tests: kept apart so that the
/// tests are always inlined and the kernel is left to the inliner.
#[inline]
fn encode_longer_to_slice<T: VarInt>(value: T, out: &mut [u8]) -> usize {
    encode_to_slice_with(out, |window| selected::encode(value, window))
}

/// Writes the varint of `value` at the start of `out`, which need not be
/// initialized (a `Vec`'s [`spare_capacity_mut`](Vec::spare_capacity_mut),
/// an encoder's `&mut [MaybeUninit<u8>]` window, as rust-protobuf's
/// `encode_varint64` takes), and returns its length (1..=10): the first
/// `len` bytes of `out` are then initialized.
///
/// [`encode_to_slice`]'s branches: a value below `0x80` is one store, one
/// below `0x4000` two bytes; a longer one is the kernel's two word stores
/// (bytes 0..8 and, for 64-bit `T`, 8..10, zeros past the varint) where
/// `out` has that room, else its bytes copied from [`encode`]'s array.
/// Bytes of `out` past the varint may be written (to zero), never read.
/// Inside rust-protobuf's `encode_varint64` (a window of at least 10
/// bytes) it took 0.98-1.02 of the crate's own time per message encoded
/// and 0.66-0.72 on a packed field, where [`encode`] with a fixed 10-byte
/// copy took 1.13-1.14 and [`encode_with`] with a byte loop 1.35x on raw
/// writes of mixed values (BENCHMARKS.md, "Crates not in the
/// repository").
///
/// # Panics
/// If `out` is shorter than the varint, as [`encode_to_slice`] does.
///
/// ```
/// let mut out: Vec<u8> = Vec::with_capacity(16);
/// let len = varint_turbo::encode_to_uninit(300u32, out.spare_capacity_mut());
/// // SAFETY: `encode_to_uninit` initialized the first `len` bytes of the
/// // spare capacity.
/// unsafe { out.set_len(len) };
/// assert_eq!(out, [0xac, 0x02]);
/// ```
#[inline(always)]
pub fn encode_to_uninit<T: VarInt>(value: T, out: &mut [MaybeUninit<u8>]) -> usize {
    let v = value.to_u64();
    if v < 0x80 {
        let Some(first) = out.first_mut() else {
            too_short(1, 0)
        };
        first.write(v as u8);
        return 1;
    }
    encode_longer_to_uninit(value, out)
}

/// [`encode_to_uninit`] past its 1-byte test, kept apart as
/// `encode_longer_to_slice` is.
#[inline]
fn encode_longer_to_uninit<T: VarInt>(value: T, out: &mut [MaybeUninit<u8>]) -> usize {
    let v = value.to_u64();
    if v < 0x4000 {
        let Some(two) = out.first_chunk_mut::<2>() else {
            too_short(2, out.len())
        };
        let [low, high] = two_byte_varint(v);
        two[0].write(low);
        two[1].write(high);
        return 2;
    }
    if out.len() >= stored_bytes::<T>() {
        // Writing uninitialized bytes is fine; it initializes the first `len`.
        // SAFETY: `out` has the `stored_bytes::<T>()` bytes it writes (checked above).
        return unsafe { store_unchecked(value, out.as_mut_ptr().cast::<u8>()) };
    }
    let (bytes, len) = encode(value);
    let len = usize::from(len);
    let Some(dest) = out.get_mut(..len) else {
        too_short(len, out.len())
    };
    for (slot, &byte) in dest.iter_mut().zip(&bytes[..len]) {
        slot.write(byte);
    }
    len
}

/// Encodes `value` at `ptr` without bounds checks and returns the number of
/// bytes written (1..=10): the in-place writer for buffers whose spare
/// capacity the caller manages (a `Vec<u8>`'s, `BufMut::chunk_mut`),
/// mirroring [`decode_unchecked`](crate::decode_unchecked).
///
/// The branch-free kernel, the same cost for every length (no 1-byte
/// branch, unlike [`encode_to_slice`]; callers whose values are mostly
/// below `0x80` test for that first, as `BufMutVarint::put_varint` does):
/// two stores, bytes 0..8 and, for 64-bit `T`, bytes 8..10, zeros past the
/// varint. Bytes at 10 and past are never written.
///
/// # Safety
/// `ptr` must be valid for writes of **16 bytes** (as for
/// [`decode_unchecked`](crate::decode_unchecked); only the first 10 are
/// written). They need not be initialized; afterwards the first `len`
/// bytes are.
///
/// ```
/// let mut out: Vec<u8> = Vec::with_capacity(16);
/// // SAFETY: `out` has 16 bytes of spare capacity, and `encode_unchecked`
/// // initializes the `len` bytes that `set_len` then exposes.
/// unsafe {
///     let len = varint_turbo::encode_unchecked(300u32, out.as_mut_ptr());
///     out.set_len(len);
/// }
/// assert_eq!(out, [0xac, 0x02]);
/// ```
#[inline]
pub unsafe fn encode_unchecked<T: VarInt>(value: T, ptr: *mut u8) -> usize {
    // SAFETY: `ptr` is valid for writes of 16 bytes (caller), at least the
    // `stored_bytes::<T>()` (<= 10) that `store_unchecked` writes.
    unsafe { store_unchecked(value, ptr) }
}

/// How many bytes [`store_unchecked`] writes for `T`: 10 for 64-bit types,
/// whose varints reach 10 bytes, 8 for the others (at most 5 bytes).
#[inline(always)]
pub(crate) const fn stored_bytes<T: VarInt>() -> usize {
    if T::MAX_LEN > 8 {
        10
    } else {
        8
    }
}

/// [`encode_unchecked`]'s stores: bytes 0..8 of the varint and, for 64-bit
/// `T`, bytes 8..10, zeros past the varint; returns its length.
///
/// # Safety
/// `ptr` must be valid for writes of `stored_bytes::<T>()` bytes: 10 for
/// 64-bit `T`, else 8 (the public function asks for 16, which leaves it
/// room to change).
#[inline(always)]
pub(crate) unsafe fn store_unchecked<T: VarInt>(value: T, ptr: *mut u8) -> usize {
    let (low, high, len) = selected::encode_words(value);
    // SAFETY: the caller makes `ptr` valid for writes of 10 bytes (64-bit
    // `T`) or 8; the stores cover bytes 0..8 and 8..10, unaligned.
    unsafe {
        ptr.cast::<[u8; 8]>().write_unaligned(low.to_le_bytes());
        if T::MAX_LEN > 8 {
            ptr.add(8)
                .cast::<[u8; 2]>()
                .write_unaligned(high.to_le_bytes());
        }
    }
    len
}

/// Appends the varint of `value` to `out` and returns the number of bytes
/// appended (1..=10). `out`'s existing bytes are kept; it grows as
/// [`Vec::push`] makes it grow.
///
/// ```
/// let mut out = vec![0x08]; // a field key, already there
/// assert_eq!(varint_turbo::encode_to_vec(150u32, &mut out), 2);
/// assert_eq!(varint_turbo::encode_to_vec(1u64, &mut out), 1);
/// assert_eq!(out, [0x08, 0x96, 0x01, 0x01]);
/// ```
///
/// A value below `0x80` is one [`Vec::push`] and one below `0x4000` a
/// 2-byte append, behind predicted branches, as in [`encode_to_slice`];
/// longer varints reserve room for the kernel's stores and are written in
/// place, with no copy through a 16-byte array.
#[cfg(feature = "alloc")]
#[inline(always)]
pub fn encode_to_vec<T: VarInt>(value: T, out: &mut Vec<u8>) -> usize {
    let v = value.to_u64();
    if v < 0x80 {
        out.push(v as u8);
        return 1;
    }
    encode_longer_to_vec(value, out)
}

/// [`encode_to_vec`] past its 1-byte test (the 2-byte branch, then the
/// kernel), kept apart as `encode_longer_to_slice` is.
#[cfg(feature = "alloc")]
#[inline]
fn encode_longer_to_vec<T: VarInt>(value: T, out: &mut Vec<u8>) -> usize {
    // One capacity check for both paths: a separate `extend_from_slice` for
    // the 2-byte case cost the kernel path its hoisted constants (register
    // pressure), 8-byte varints 1.15-1.7x their time.
    out.reserve(stored_bytes::<T>());
    let at = out.len();
    let v = value.to_u64();
    if v < 0x4000 {
        // SAFETY: the `reserve` above leaves room for at least 8 bytes from
        // `at`; 2 are written and then exposed.
        unsafe {
            out.as_mut_ptr()
                .add(at)
                .cast::<[u8; 2]>()
                .write_unaligned(two_byte_varint(v));
            out.set_len(at + 2);
        }
        return 2;
    }
    // SAFETY: the `reserve` above leaves room for `stored_bytes::<T>()`
    // bytes from `at`, all that `store_unchecked` writes.
    let len = unsafe { store_unchecked(value, out.as_mut_ptr().add(at)) };
    // SAFETY: `store_unchecked` initialized bytes `at..at + len` (`len` <=
    // `stored_bytes::<T>()`, within the reserved capacity).
    unsafe { out.set_len(at + len) };
    len
}

/// [`encode_to_vec`] for a zigzag varint (protobuf `sint32`/`sint64`,
/// Avro `int`/`long`): appends it to `out` and returns its length.
///
/// ```
/// let mut out = Vec::new();
/// assert_eq!(varint_turbo::encode_zigzag_to_vec(-1i32, &mut out), 1);
/// assert_eq!(varint_turbo::encode_zigzag_to_vec(64i64, &mut out), 2);
/// assert_eq!(out, [0x01, 0x80, 0x01]);
/// ```
#[cfg(feature = "alloc")]
#[inline(always)]
pub fn encode_zigzag_to_vec<T: ZigZag>(value: T, out: &mut Vec<u8>) -> usize {
    encode_to_vec(value.zigzag_encode(), out)
}

/// [`encode_to_slice`] for a zigzag varint.
///
/// ```
/// let mut buf = [0u8; 10];
/// let len = varint_turbo::encode_zigzag_to_slice(-1i32, &mut buf);
/// assert_eq!(&buf[..len], &[0x01]);
/// ```
#[inline(always)]
pub fn encode_zigzag_to_slice<T: ZigZag>(value: T, out: &mut [u8]) -> usize {
    encode_to_slice(value.zigzag_encode(), out)
}

/// The number of bytes the varint of `value` takes (1..=10), without
/// encoding it.
///
/// ```
/// assert_eq!(varint_turbo::encoded_len(0u64), 1);
/// assert_eq!(varint_turbo::encoded_len(300u32), 2);
/// assert_eq!(varint_turbo::encoded_len(u64::MAX), 10);
/// ```
///
/// The same cost for every value, with no branch on it: protobuf's
/// `VarintSize64` formula, `(9 * log2 + 73) / 64`, on a leading-zero count.
/// In baseline x86-64 builds (no `lzcnt` target feature) the count comes
/// from the `LZCNT` encoding, read so that it is right on CPUs that run it
/// as `BSR` too, instead of the `BSR` the formula compiles to there (slow
/// on AMD). Summed over windows of values (Zen 3, default build): the same
/// time on every shape, 0.4-0.7x `VarintSize64`'s; a predicted branch for
/// values below 2^14 ties it on all 1-byte values and takes 5-6x its time
/// on zigzag deltas of 1-5 bytes; a host's chain of range compares
/// (quick-protobuf's `sizeof_varint`) is up to 2x faster on all 1-byte
/// values and up to 7.5x slower on mixed lengths. To size a whole packed
/// field, use [`encoded_len_sum`](crate::encoded_len_sum) (BENCHMARKS.md,
/// "Single-value encodes and lengths").
///
/// The pure functions of this crate are `#[must_use]`: dropping their
/// result is a mistake the compiler points out.
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// varint_turbo::encoded_len(300u32);
/// ```
#[inline]
#[must_use]
pub fn encoded_len<T: VarInt>(value: T) -> usize {
    selected::encoded_len(value.to_u64())
}

/// [`encoded_len`] for `u64` as a `const fn`, for code that needs it in
/// constant expressions (prost's `encoded_len_varint` and `key_len` are
/// `const fn`): protobuf's `VarintSize64` formula itself, prost's code. A
/// `const fn` cannot use inline assembly, so in baseline x86-64 builds its
/// bit scan is `BSR` (up to twice [`encoded_len`]'s time on AMD CPUs);
/// where no constant is needed, call [`encoded_len`].
///
/// ```
/// const KEY_LEN: usize = varint_turbo::encoded_len_u64(150 << 3);
/// assert_eq!(KEY_LEN, 2);
/// assert_eq!(varint_turbo::encoded_len_u64(u64::MAX), 10);
/// ```
#[inline]
#[must_use]
pub const fn encoded_len_u64(value: u64) -> usize {
    scalar::encoded_len(value)
}

/// [`encoded_len`] for `u32` as a `const fn`; see [`encoded_len_u64`].
///
/// ```
/// const LEN: usize = varint_turbo::encoded_len_u32(u32::MAX);
/// assert_eq!(LEN, 5);
/// ```
#[inline]
#[must_use]
pub const fn encoded_len_u32(value: u32) -> usize {
    encoded_len_u64(value as u64)
}
