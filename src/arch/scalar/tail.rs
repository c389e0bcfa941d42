//! The value-by-value tail every bulk decoder ends with: the last bytes of
//! the input, and every window a SIMD kernel does not take (a malformed
//! varint, too little room in `out`), go through the single-value scalar
//! reference here, so that all errors of the bulk API, their index and
//! offset included, come from this one place.

use core::mem::MaybeUninit;

use crate::arch::scalar;
use crate::error::{BulkDecodeError, DecodeError};
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
///
/// Values with 16 bytes of input after their start decode straight from
/// the input. In the last bytes (fewer than 16), one-byte varints are taken
/// as they are, and from the first longer one on the rest is copied once
/// into a zero-padded buffer and decoded from there, rather than each value
/// copying the rest into a window of its own (the single-value API's
/// `window::decode_with`, about 10 ns a value): that made every input
/// under 64 bytes, and the tail of every longer one, cost 100-370 ns.
/// Results are those of `decode_with` on each value's rest: a zero pad
/// byte ends a cut-off varint, so a length past the real bytes means
/// `Truncated`, and an `Overflow` needs `MAX_LEN` real bytes or a value
/// beyond `T`, which no pad byte can give.
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
    let slots = &mut out[written..end];
    let stop = stop.min(input.len());
    let mut at = pos;
    let mut n = 0;
    while n < slots.len() && at < stop {
        let Some(window) = input[at..].first_chunk::<16>() else {
            break;
        };
        match scalar::decode::<T>(window) {
            Ok((value, len)) => {
                slots[n].write(value);
                at += len;
                n += 1;
            }
            Err(kind) => return Err(BulkDecodeError::new(kind, written + n, at)),
        }
    }
    // Fewer than 16 bytes from `at` to the end of the input. One-byte
    // varints (tags, bools, enums, small counts: most of a short packed
    // field) are their own value and need no window.
    while n < slots.len() && at < stop {
        let byte = input[at];
        if byte >= 0x80 {
            break;
        }
        slots[n].write(T::from_u64_unchecked(u64::from(byte)));
        at += 1;
        n += 1;
    }
    if n < slots.len() && at < stop {
        // A longer varint: the rest, copied once into a zero-padded window.
        let rest = &input[at..];
        let mut padded = [0u8; 32];
        padded[..rest.len()].copy_from_slice(rest);
        let mut offset = 0;
        while n < slots.len() && at + offset < stop {
            // `offset < rest.len() < 16`: a whole window of `padded`.
            let Some(window) = padded[offset..].first_chunk::<16>() else {
                break;
            };
            let error = match scalar::decode::<T>(window) {
                Ok((value, len)) if offset + len <= rest.len() => {
                    slots[n].write(value);
                    offset += len;
                    n += 1;
                    continue;
                }
                Ok(_) => DecodeError::Truncated,
                Err(kind) => kind,
            };
            return Err(BulkDecodeError::new(error, written + n, at + offset));
        }
        at += offset;
    }
    Ok((n, at - pos))
}
