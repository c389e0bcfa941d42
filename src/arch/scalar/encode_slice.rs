//! The portable bulk encoder: the single-value encoder in a loop that
//! writes each varint straight into `out` while 16 bytes of room remain,
//! then through a stack window and an exact copy, so that nothing outside
//! `out` is written. The reference for the SIMD encoders, which hand it
//! their stretches of long values and their last values.
//!
//! Bytes of `out` after the last whole varint may be overwritten: a varint
//! written straight into `out` is a store of 8 bytes (10 for 64-bit types)
//! whatever its length, and the next varint covers the excess only if it
//! is written too. So `[1 << 56, u64::MAX]` into 18 bytes writes the first
//! value's 9 bytes and zeroes `out[9]` (the second value's 10 bytes do not
//! fit the 9 left), and `[1u32]` into 16 bytes zeroes `out[1..8]`. Every
//! bulk encoder has this contract (the SIMD ones store whole vectors);
//! `tests/suite/bulk.rs`, `bulk_encoders_write_whole_varints_and_only_inside_out`,
//! pins it on every backend. Storing only the varint's bytes would cost
//! the direct path its single word store per value.

use crate::arch::scalar;
use crate::arch::scalar::single::UninitWindow;
use crate::varint::VarInt;
use core::mem::MaybeUninit;

/// Scalar reference for the bulk encoders. Not inlined: the SIMD encoders
/// call it for their stretches and last values, and it keeps its own
/// registers. `out` may be uninitialized; the bytes written are
/// initialized, and nothing uninitialized is ever written.
#[inline(never)]
pub(crate) fn encode_slice_into_scalar<T: VarInt>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    encode_slice_into_with(values, out, scalar::single::encode_uninit::<T>)
}

/// The value-by-value bulk encoder around a single-value kernel
/// `encode(value, window) -> len` (which may write all 16 bytes of
/// `window`, and writes its varint's `len` bytes): each value is encoded
/// straight into `out` while 16 bytes of room remain after its position,
/// then through a stack window and an exact copy, so that nothing outside
/// `out` is written (bytes after the last whole varint may be: see the
/// module docs). Shared by the scalar reference, the BMI2 encoder and the
/// signed LEB128 encoder.
#[inline(always)]
pub(crate) fn encode_slice_into_with<T: Copy>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
    encode: impl Fn(T, &mut UninitWindow) -> usize,
) -> (usize, usize) {
    let mut pos = 0;
    for (index, &value) in values.iter().enumerate() {
        let rest = &mut out[pos..];
        let len = if let Some(window) = rest.first_chunk_mut::<16>() {
            encode(value, window)
        } else {
            let mut window = [MaybeUninit::<u8>::uninit(); 16];
            let len = encode(value, &mut window);
            let Some(dest) = rest.get_mut(..len) else {
                return (index, pos);
            };
            // The kernel wrote the varint's `len` bytes: only initialized
            // bytes are copied.
            dest.copy_from_slice(&window[..len]);
            len
        };
        pos += len;
    }
    (values.len(), pos)
}
