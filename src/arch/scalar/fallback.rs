//! The scalar fallback of the SIMD bulk decoders, for unsigned varints or,
//! with `SIGNED`, for signed LEB128 ones decoded into the bits of `i32`
//! (`T` = `u32`) or `i64` (`u64`): the tail of an input, a window a kernel
//! does not take, and every error with its index and offset, from the
//! scalar reference of the same kind (`tail` for unsigned varints,
//! `sleb128` for signed ones).

use core::mem::MaybeUninit;

use crate::arch::scalar::decode_slice::decode_slice_scalar;
use crate::arch::scalar::tail::scalar_values_before;
use crate::arch::scalar::{sleb128, tail_values};
use crate::error::BulkDecodeError;
use crate::varint::VarInt;

/// The signed integer type of `T`'s width (`T` of 32 or 64 bits) for the
/// signed scalar reference, whose values' bits the slots of `T` take.
/// Calls `f` with `out` as slots of that type.
#[inline(always)]
fn with_signed<T: VarInt, R>(
    out: &mut [MaybeUninit<T>],
    f32: impl FnOnce(&mut [MaybeUninit<i32>]) -> R,
    f64: impl FnOnce(&mut [MaybeUninit<i64>]) -> R,
) -> R {
    let len = out.len();
    let at = out.as_mut_ptr();
    match size_of::<T>() {
        // SAFETY: `T` is `u32` (the only 4-byte `VarInt`): `i32` has its
        // size and alignment, and every bit pattern is valid for both.
        4 => f32(unsafe { core::slice::from_raw_parts_mut(at.cast(), len) }),
        // SAFETY: `T` is `u64`, as above with `i64`.
        8 => f64(unsafe { core::slice::from_raw_parts_mut(at.cast(), len) }),
        _ => unreachable!("signed decodes are into 32- or 64-bit slots"),
    }
}

/// The scalar reference's value-by-value decoder (`scalar_values`), or
/// with `SIGNED` the signed one (`sleb128::decode_values`): up to `limit`
/// values from `input[pos..]` into `out[written..]`; errors carry the
/// index in `out` and the offset in `input`.
#[inline]
pub(crate) fn fallback_values<T: VarInt, const SIGNED: bool>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    limit: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    fallback_values_before::<T, SIGNED>(input, pos, out, written, limit, usize::MAX)
}

/// [`fallback_values`] that also stops once the next varint would start
/// at or after byte `stop` of `input` (the end of a SIMD window).
pub(crate) fn fallback_values_before<T: VarInt, const SIGNED: bool>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    limit: usize,
    stop: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    if !SIGNED {
        return scalar_values_before(input, pos, out, written, limit, stop);
    }
    let end = out.len().min(written.saturating_add(limit));
    with_signed(
        &mut out[..end],
        |out| sleb128::decode_values_before::<i32>(input, pos, out, written, stop),
        |out| sleb128::decode_values_before::<i64>(input, pos, out, written, stop),
    )
}

/// `tail_values` (the scalar blocks over a padded copy, then the values),
/// or with `SIGNED` the signed scalar bulk decoder, with the arguments
/// and results of [`fallback_values`].
pub(crate) fn fallback_tail<T: VarInt, const SIGNED: bool>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    limit: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    if !SIGNED {
        return tail_values(input, pos, out, written, limit);
    }
    let end = out.len().min(written.saturating_add(limit));
    fallback_slice::<T, true>(&input[pos..], &mut out[written..end])
        .map_err(|e| BulkDecodeError::new(e.kind(), written + e.index(), pos + e.offset()))
}

/// The scalar backend's bulk decoder (`decode_slice_scalar`), or with
/// `SIGNED` the signed one (`sleb128::decode_slice`), on all of `input`
/// and `out`.
pub(crate) fn fallback_slice<T: VarInt, const SIGNED: bool>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    if !SIGNED {
        return decode_slice_scalar(input, out);
    }
    with_signed(
        out,
        |out| sleb128::decode_slice::<i32>(input, out),
        |out| sleb128::decode_slice::<i64>(input, out),
    )
}

/// [`fallback_values_before`] for the decoders that keep the low bits of
/// each `u64` varint in a narrower `T` (protobuf `int32`'s reading: a
/// negative value is a 10-byte varint): the unsigned `u64` reference
/// (`scalar_values_before::<u64>`), its values truncated to `T`, its
/// errors as they are.
#[cfg(varint_turbo_avx512)]
pub(crate) fn low_bits_values_before<T: VarInt>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    limit: usize,
    stop: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    low_bits_with(out, written, limit, pos, |batch, at| {
        scalar_values_before::<u64>(input, at, batch, 0, usize::MAX, stop)
    })
}

/// [`fallback_tail`] with the results of [`low_bits_values_before`]:
/// `tail_values::<u64>`, truncated to `T`.
#[cfg(varint_turbo_avx512)]
pub(crate) fn low_bits_tail<T: VarInt>(
    input: &[u8],
    pos: usize,
    out: &mut [MaybeUninit<T>],
    written: usize,
    limit: usize,
) -> Result<(usize, usize), BulkDecodeError> {
    low_bits_with(out, written, limit, pos, |batch, at| {
        tail_values::<u64>(input, at, batch, 0, usize::MAX)
    })
}

/// Runs `decode(batch, at)`, a `u64` decoder from input position `at` into
/// `batch` (returning values and bytes from `at`), batch after batch,
/// truncating its values into `out[written..]` (at most `limit` of them);
/// stops where a batch is not filled (the input or the decoder's stop
/// reached). Errors keep their kind and offset, their index counted in
/// `out`, with every value before them written.
#[cfg(varint_turbo_avx512)]
fn low_bits_with<T: VarInt>(
    out: &mut [MaybeUninit<T>],
    written: usize,
    limit: usize,
    pos: usize,
    mut decode: impl FnMut(&mut [MaybeUninit<u64>], usize) -> Result<(usize, usize), BulkDecodeError>,
) -> Result<(usize, usize), BulkDecodeError> {
    /// Values per batch: a fallback takes a window or an input's tail.
    const BATCH: usize = 64;
    let end = out.len().min(written.saturating_add(limit));
    // Zeroed, so that reading it needs no `unsafe` (this is the fallback).
    let mut batch = [0u64; BATCH];
    let mut n = 0;
    let mut at = pos;
    while written + n < end {
        let room = (end - written - n).min(BATCH);
        let result = decode(crate::arch::as_uninit(&mut batch[..room]), at);
        let (values, consumed) = match result {
            Ok(done) => done,
            Err(error) => (error.index(), 0),
        };
        // The decoder writes only inside the slice it was given.
        let values = values.min(room);
        for (slot, &value) in out[written + n..end].iter_mut().zip(&batch[..values]) {
            slot.write(T::from_u64_unchecked(value & T::MAX_U64));
        }
        if let Err(error) = result {
            return Err(BulkDecodeError::new(
                error.kind(),
                written + n + error.index(),
                error.offset(),
            ));
        }
        n += values;
        at += consumed;
        if values < room {
            break;
        }
    }
    Ok((n, at - pos))
}
