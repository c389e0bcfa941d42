//! The value-by-value tail every bulk decoder ends with: the last bytes of
//! the input, and every window a SIMD kernel does not take (a malformed
//! varint, too little room in `out`), go through the single-value scalar
//! reference here, so that all errors of the bulk API, their index and
//! offset included, come from this one place.

use core::mem::MaybeUninit;

use crate::arch::scalar;
use crate::arch::window::decode_with;
use crate::error::BulkDecodeError;
use crate::varint::VarInt;

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
        match decode_with(rest, scalar::decode::<T>) {
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
