//! The bulk API: whole buffers of consecutive varints (protobuf packed
//! repeated fields, Avro blocks, posting lists), decoded a SIMD window at a
//! time and dispatched at run time to the best backend of this CPU
//! ([`Backend`], in `backend`); inputs too short to pay for a SIMD window
//! go straight to the portable kernels.

/// Records which way a bulk decode went, for the unit tests of the
/// dispatch (`test_dispatch`); expands to nothing outside `cfg(test)`.
/// (Before the modules, which use it too.)
macro_rules! trace_route {
    ($($route:tt)*) => {
        #[cfg(all(test, feature = "std"))]
        crate::bulk::test_dispatch::record(crate::bulk::test_dispatch::Route::$($route)*);
    };
}

mod backend;
#[cfg(all(test, feature = "std"))]
mod test_dispatch;

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::mem::MaybeUninit;

use crate::arch::as_uninit;
use crate::arch::scalar::decode_slice::{
    bytewise_values, decode_slice_scalar, first_16_terminators, one_byte_words, BYTEWISE_MAX_BYTES,
};
use crate::arch::scalar::encode_slice::encode_slice_into_scalar;
use crate::arch::scalar::sizes::{count_varints_portable, encoded_len_sum_portable};
pub use crate::error::BulkDecodeError;
#[cfg(feature = "alloc")]
use crate::error::DecodeError;
use crate::varint::VarInt;
use crate::zigzag::ZigZag;
pub use backend::{detected_backend, Backend};

/// Inputs shorter than this go straight to the scalar loop: a few values
/// cost less than the dispatch and the SIMD set-up (one 64-byte window).
const SCALAR_CUTOFF_BYTES: usize = 64;

/// Decode inputs shorter than this take the scalar backend (the byte loop
/// up to 16 bytes, then its bitmap blocks) instead of the detected SIMD
/// one, whose set-up and value-by-value head and tail cost more below it,
/// unless their first 16 bytes show only short varints
/// ([`decode_backend`]). Measured on a Zen 2 (BENCHMARKS.md, "Short
/// inputs"): the scalar backend is faster up to 109-218 bytes of the u32
/// mix (1.26-1.65x), 179 bytes of the int32 shape with 10% negatives;
/// AVX2 wins from 435 bytes of the mix. On Zen 1 (BENCHMARKS.md, "Short
/// inputs: the paths below 128 bytes") AVX2 wins the mix from about 290 bytes. (Both
/// measured while the SIMD head and tail went value by value; with the
/// padded ones, AVX2 on Zen 5 wins the u32 mix from about 150 bytes, not
/// measured on those hosts: the same section.)
const DECODE_SCALAR_CUTOFF_BYTES: usize = 256;

/// Below this many bytes, an input whose first 16 bytes hold at most
/// [`LONG_VARINTS_MAX_SHORT`] varints of 1 or 2 bytes stays on the scalar
/// backend even past [`DECODE_SCALAR_CUTOFF_BYTES`]: its one word step per
/// value, whatever the value's length, beats the SSSE3/AVX2 fixed-grid
/// decoder, which is fast on 1- and 2-byte varints and slower per byte on
/// the others (Zen 1, 32-256 values: 8-10-byte ids 1.08-1.29x; 256-1024
/// values: 2-4-byte timestamp deltas 1.09-1.19x, values uniform in bit
/// width 1-32 1.01-1.14x; the Zen 2 measurements found the same on 3-byte
/// values). Past it the two are within a few percent. 64-bit ids keep
/// this bound on every CPU (Zen 3: scalar 1.01-1.44x AVX2 at 32-512 ids).
const LONG_VARINTS_SCALAR_MAX_BYTES: usize = 4096;

/// [`LONG_VARINTS_SCALAR_MAX_BYTES`] for a 32-bit decode where the AVX2
/// decoder runs on full-width 256-bit units (not [`splits_256_bit_ops`]):
/// there the grid overtakes the scalar word steps sooner (Zen 3, default
/// build, 11 paired rounds, scalar time / AVX2 time: 2-4-byte timestamp
/// deltas 0.90 at 256 values (768 bytes), 1.07 at 512, 1.24 at 1,024;
/// values uniform in bit width 1-32 1.01 at 256 values (717 bytes), 1.25
/// at 512).
///
/// [`splits_256_bit_ops`]: crate::cpu::splits_256_bit_ops
const LONG_VARINTS_SCALAR_MAX_BYTES_32_WIDE: usize = 1024;

/// See [`LONG_VARINTS_SCALAR_MAX_BYTES`]. Into `u64` slots the scalar
/// backend is slower on varints of 2-5 bytes than into `u32` slots, and
/// the SIMD ones faster (Zen 1, 1,000 values of 2-4 bytes: scalar 4.7 ns
/// per value into `u64` against 3.1 into `u32`, SSSE3 2.9 against 3.4;
/// sint64 deltas of 1-5 bytes: scalar 4.7, SSSE3 2.9): a 64-bit decode
/// stays scalar only for a sample of long varints alone (6 bytes or more,
/// none of 1-2: ids and millisecond timestamps, where the scalar backend
/// is 1.05-1.3x faster up to about 1,000 values). In 16 bytes: values uniform in
/// bit width 1-32 have about 2.5 varints of 1-2 bytes (of 6), timestamp
/// deltas about 2, the u32 mix about 8. int32s with 10% negatives (2-byte
/// values and 10-byte varints, which the SIMD backends decode 1.7x faster
/// than the scalar one, whose branches mispredict on the mix) have 8, or 3
/// beside a 10-byte varint: a sample with a varint of 6 bytes or more and
/// any short one goes to the SIMD backend (ids of 8-10 bytes, with no
/// short varint, stay scalar).
const LONG_VARINTS_MAX_SHORT: u32 = 3;

/// The backend that decodes `input` (more than [`BYTEWISE_MAX_BYTES`])
/// fastest on this CPU, whose best supported backend is `detected`:
/// judged from the input's length and, for the SSSE3 and AVX2 backends,
/// the varint lengths in its first 16 bytes (a sample of one SSE2
/// `pmovmskb` and a few bit operations; a wrong guess costs speed, never
/// correctness: every backend gives the scalar reference's results).
#[inline(always)]
fn decode_backend<T: VarInt>(input: &[u8], detected: Backend) -> Backend {
    let short = input.len() < DECODE_SCALAR_CUTOFF_BYTES;
    if !matches!(detected, Backend::Ssse3 | Backend::Avx2) {
        return if short { Backend::Scalar } else { detected };
    }
    // Inputs under 128 bytes (`SHORT_INPUT_BYTES`) took the SSSE3/AVX2
    // blocks over a padded copy before this (`decode_uninit`), whatever
    // their shape; past them the sample below decides. (Into `u64` an
    // input of short varints took the scalar backend up to about 72
    // values, and one of only 1- and 2-byte varints below 96 bytes, while
    // the SIMD head and tail were value by value: Zen 1, the u32 mix at
    // 64 values, 109 bytes, 336 against 395 ns; the padded head and tail
    // took AVX2 on `int32`s with 10% negatives at 48 values, 134 bytes,
    // from 150 to 94 ns against the scalar backend's 152: BENCHMARKS.md,
    // "Short inputs: the paths below 128 bytes".)
    let Some(ends) = first_16_terminators(input) else {
        return Backend::Scalar;
    };
    let continues = !ends;
    if continues & (continues << 1) == 0 {
        // Only 1- and 2-byte varints (no two continuation bytes in a row):
        // the SIMD backends' 1- and 2-byte runs (Zen 1, 96-192 values: 95%
        // 1-byte counts 1.3-1.8x the scalar blocks, near-zero sint32s
        // 1.2-1.9x).
        // On 128-bit vector units the SSSE3 1-byte runs are the faster
        // ones (Zen 1: 1.13-1.24x; on 95% 1-byte counts 1.00-1.07x, on the
        // u32 mix, whose first 16 bytes are 1-2-byte varints one time in
        // five, 0.90-0.95x: only a sample of 1-byte varints picks SSSE3).
        return if continues == 0
            && crate::cpu::splits_256_bit_ops()
            && Backend::Ssse3.is_supported()
        {
            Backend::Ssse3
        } else {
            simd_decoder(detected)
        };
    }
    if continues & continues >> 1 & continues >> 2 == 0 {
        // No varint of 4 bytes or more: the SIMD backends' runs of varints
        // of at most 3 bytes (`threes_run`; Zen 3, default build, `u32`
        // varints of 3 bytes, best of 3 runs: AVX2 0.85-3.73 ns per value
        // against scalar 2.00-4.19 from 48 to 1,024 values).
        return simd_decoder(detected);
    }
    // Varints of 1 or 2 bytes: ends with an end (or the input's start)
    // one or two bytes before them.
    let short_varints = (ends & (ends << 1 | 1 | ends << 2 | 3)).count_ones();
    // Five continuation bytes in a row: a varint of 6 bytes or more.
    let long = continues & continues >> 1 & continues >> 2 & continues >> 3 & continues >> 4;
    let (short, long_stay_scalar) = if T::MAX_LEN > 5 {
        (false, short_varints == 0 && long != 0)
    } else {
        (
            short,
            short_varints == 0 || (short_varints <= LONG_VARINTS_MAX_SHORT && long == 0),
        )
    };
    let simd = simd_decoder(detected);
    let scalar_max =
        if T::MAX_LEN <= 5 && simd == Backend::Avx2 && !crate::cpu::splits_256_bit_ops() {
            LONG_VARINTS_SCALAR_MAX_BYTES_32_WIDE
        } else {
            LONG_VARINTS_SCALAR_MAX_BYTES
        };
    if short || (input.len() < scalar_max && long_stay_scalar) {
        Backend::Scalar
    } else {
        simd
    }
}

/// The SIMD decoder to run where the CPU's best backend is `detected`:
/// SSSE3 instead of AVX2 on CPUs whose vector units are 128 bits wide
/// (AMD Zen 1 and Zen+, Hygon: each 256-bit operation runs as two halves)
/// in builds with AVX (`-C target-cpu=native`, `x86-64-v3`), where the
/// SSSE3 kernel is compiled to three-operand VEX forms. There it was 5-16%
/// faster than AVX2 from 1,024 values on every field shape but 8-10-byte
/// ids (Zen 1, native build, `bulk_short`: the u32 mix 0.89-0.90x, int32
/// with 10% negatives 0.84-0.89x, values uniform in bit width 1-32
/// 0.84-0.89x AVX2's time). In builds without AVX the SSSE3 kernel keeps
/// the two-operand forms and its moves, and the two are within a few
/// percent either way (the u32 mix 1.05-1.08x AVX2's time): AVX2 stays.
#[inline(always)]
fn simd_decoder(detected: Backend) -> Backend {
    if cfg!(target_feature = "avx")
        && detected == Backend::Avx2
        && crate::cpu::splits_256_bit_ops()
        && Backend::Ssse3.is_supported()
    {
        Backend::Ssse3
    } else {
        detected
    }
}

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
#[inline]
pub fn decode_slice<T: VarInt>(
    input: &[u8],
    out: &mut [T],
) -> Result<(usize, usize), BulkDecodeError> {
    let out = as_uninit(out);
    if input.len() <= BYTEWISE_MAX_BYTES {
        // A few values (a short packed field): the byte loop, inline in
        // the caller, costs what a protobuf runtime's loop costs; through
        // the call into the dispatch (and its result through memory) one
        // enum took 9.6 ns against the prost loop's 6.9, inline 5.7
        // (BENCHMARKS.md, "Short inputs: the paths below 128 bytes").
        // From 8 bytes,
        // runs of 1-byte varints first take whole words.
        trace_route!(ByteLoop);
        return short_values(input, out);
    }
    decode_uninit(input, out)
}

/// A short input (at most [`BYTEWISE_ONES_MAX_BYTES`]): its leading 1-byte
/// runs a word at a time ([`one_byte_words`], from 8 bytes on), the rest
/// by the byte loop.
#[inline(always)]
pub(crate) fn short_values<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    if input.len() < 8 {
        // Under a word (1-7 values): the byte loop alone, as before the
        // word steps.
        return bytewise_values(input, out);
    }
    let (n, pos) = one_byte_words(input, out);
    if pos == input.len() || n == out.len() {
        return Ok((n, pos));
    }
    bytewise_values(&input[pos..], &mut out[n..])
        .map(|(m, bytes)| (n + m, pos + bytes))
        .map_err(|e| BulkDecodeError::new(e.kind(), n + e.index(), pos + e.offset()))
}

/// [`decode_slice`] into slots that need not be initialized (see
/// [`Backend::decode_uninit`]).
///
/// The route is chosen on the bytes that `out`'s values take, not on the
/// whole input: a caller that decodes a known count from a longer buffer
/// (an Avro array block of a few items, a record batch's header fields)
/// passes the rest of the buffer, and the route of a long input (the SIMD
/// kernel, whose blocks need room for 63 values, so a short `out` went
/// through its padded tail) took 59-143 ns for 1-16 small `i64`s from a
/// 1 MB buffer against 9-64 ns on the items' own bytes (Zen 3, zigzag,
/// `decode_slice_zigzag`). Up to [`SHORT_OUT_VALUES`] values take the
/// byte loop; up to [`END_SCAN_MAX_VALUES`] the bytes are found exactly
/// ([`end_of_varints`]); past that, at most `T::MAX_LEN` bytes per value,
/// and where those take the SSSE3/AVX2 blocks, the blocks while one fits
/// in `out`, then the last values on their own bytes
/// ([`blocks_then_exact_rest`]).
pub(crate) fn decode_uninit<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    let reach = out.len().saturating_mul(T::MAX_LEN);
    if input.len() <= reach || out.is_empty() {
        return decode_routed(input, out);
    }
    decode_within_reach(input, reach, out)
}

/// Outputs up to this many values from a longer input take the byte loop
/// ([`short_values`]) whatever their lengths, as inputs of at most
/// [`BYTEWISE_MAX_BYTES`] do: the word scan of [`end_of_varints`] and
/// the route cost more than the loop there (callgrind, 4 small `i64`s:
/// 165 instructions per call against 95).
const SHORT_OUT_VALUES: usize = 8;

/// Outputs up to this many values have the end of their varints found
/// before the route is chosen: a word step per 8 bytes, 1-16 steps for
/// 64 values of 1 or 2 bytes, against the 60-90 ns that a long route
/// costs such a call.
const END_SCAN_MAX_VALUES: usize = 64;

/// [`decode_uninit`] of an input longer than `reach`, the bytes that
/// `out.len()` valid varints can take: decodes the bytes of the first
/// `out.len()` varints ([`end_of_varints`] within `reach`, or all of
/// `input[..reach]`). Where that stops short of filling `out` (an error,
/// which may be a varint cut at `reach` that goes on past it), the rest
/// is decoded from that varint's start on the whole input, so values,
/// errors, indexes and offsets are those of the whole input.
#[inline(never)]
fn decode_within_reach<T: VarInt>(
    input: &[u8],
    reach: usize,
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    if out.len() <= SHORT_OUT_VALUES {
        // The byte loop stops when `out` is full.
        trace_route!(ByteLoop);
        return short_values(input, out);
    }
    let end = if out.len() <= END_SCAN_MAX_VALUES {
        end_of_varints(&input[..reach], out.len()).unwrap_or(reach)
    } else {
        #[cfg(target_arch = "x86_64")]
        if let Some(done) = blocks_then_exact_rest(input, reach, out) {
            return done;
        }
        reach
    };
    let (n, at) = match decode_routed(&input[..end], out) {
        Ok(done) => done,
        Err(error) => (error.index(), error.offset()),
    };
    if n == out.len() {
        return Ok((n, at));
    }
    decode_routed(&input[at..], &mut out[n..])
        .map(|(m, bytes)| (n + m, at + bytes))
        .map_err(|e| BulkDecodeError::new(e.kind(), n + e.index(), at + e.offset()))
}

/// [`decode_within_reach`] of a long `out` on the SSSE3/AVX2 blocks: the
/// blocks while a whole one fits in what is left of `out` (the run
/// decoder, which stops there instead of finishing `out` with its scalar
/// tail), then the last 63 values or fewer from exactly their own bytes
/// ([`end_of_varints`]). A caller that decodes a long input batch by
/// batch into a short buffer (an Avro array block into a stack batch)
/// paid the tail for every batch. Callgrind, zigzag `i64`s from a
/// 100,000-value input, 256 per call, instructions per value against one
/// call for all of them: 1-2-byte values 12.5 -> 10.4 (4.65 in one call;
/// the tail took 20 per value), 8-byte values 78.7 -> 52.2 (50.8). `None`
/// where the route of `input[..reach]` is not those blocks (another
/// backend, or a shape the scalar decoder takes).
#[cfg(target_arch = "x86_64")]
fn blocks_then_exact_rest<T: VarInt>(
    input: &[u8],
    reach: usize,
    out: &mut [MaybeUninit<T>],
) -> Option<Result<(usize, usize), BulkDecodeError>> {
    let backend = batch_backend::<T>(&input[..reach]);
    if !matches!(backend, Backend::Ssse3 | Backend::Avx2) {
        return None;
    }
    trace_route!(Run(backend));
    let (n, at) = match backend.decode_run_uninit(input, 0, out) {
        Ok(done) => done,
        Err(error) => return Some(Err(error)),
    };
    // The decoder writes only inside `out` and `input`; `min` keeps the
    // slicing below from resting on what it reports.
    let (n, at) = (n.min(out.len()), at.min(input.len()));
    if n == out.len() || at == input.len() {
        return Some(Ok((n, at)));
    }
    Some(
        decode_uninit(&input[at..], &mut out[n..])
            .map(|(m, bytes)| (n + m, at + bytes))
            .map_err(|e| BulkDecodeError::new(e.kind(), n + e.index(), at + e.offset())),
    )
}

/// The offset just past the `count`-th byte of `input` without the
/// continuation bit (the end of its `count`-th varint), or `None` if it
/// has fewer: the ends of 8 bytes at a time counted, then the last word's
/// ends cleared one by one.
#[inline(always)]
fn end_of_varints(input: &[u8], count: usize) -> Option<usize> {
    let mut left = count;
    let mut words = input.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let word: &[u8; 8] = word.try_into().ok()?;
        let mut ends = !u64::from_le_bytes(*word) & crate::varint::CONTINUATION_BITS;
        let found = ends.count_ones() as usize;
        if found >= left {
            for _ in 1..left {
                ends &= ends - 1;
            }
            return Some(at + ends.trailing_zeros() as usize / 8 + 1);
        }
        left -= found;
        at += 8;
    }
    for (i, &byte) in words.remainder().iter().enumerate() {
        if byte < 0x80 {
            left -= 1;
            if left == 0 {
                return Some(at + i + 1);
            }
        }
    }
    None
}

/// [`decode_uninit`] past its reach test: the route by `input`'s length
/// and shape.
#[inline(always)]
fn decode_routed<T: VarInt>(
    input: &[u8],
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    if input.len() <= BYTEWISE_MAX_BYTES {
        trace_route!(ByteLoop);
        return short_values(input, out);
    }
    let detected = detected_backend();
    if detected == Backend::Avx512Vbmi2 {
        // Every input past the byte loop, whatever its shape (no sample,
        // none of the byte-loop tests below): the kernel's last 1..63
        // bytes are one chunk under a masked load, 6-15 ns whatever the
        // lengths, where the scalar blocks and the byte loop took 20-60 ns
        // on 17-63 bytes (Zen 5, default build, ns per call: 95% 1-byte
        // counts at 32 values 48 -> 9.5, the u32 mix at 16 values 51 ->
        // 10, `int32` with 10% negatives at 8 values 34 -> 13, 8-10-byte
        // ids at 4 values 35 -> 14; BENCHMARKS.md, "Short inputs:
        // the paths below 128 bytes"). Inputs of at most 16 bytes keep the byte loop: a test
        // for the chunk inline in `decode_slice` (11-16 bytes that start
        // with a longer varint) made every 1-value call 0.7-1 ns slower
        // (enums 2.2 -> 2.9 ns) for 3-byte timestamp deltas at 4 values
        // 25 -> 12 ns.
        trace_route!(Kernel(detected));
        // SAFETY: `detected_backend` is supported by this CPU.
        return unsafe { detected.decode_uninit_supported(input, out) };
    }
    if input.len() <= BYTEWISE_ONES_MAX_BYTES && mostly_one_byte(input) {
        trace_route!(ByteLoop);
        return short_values(input, out);
    }
    if input.len() <= BYTEWISE_LONG_MAX_BYTES && mostly_long(input) {
        trace_route!(ByteLoop);
        return bytewise_values(input, out);
    }
    #[cfg(target_arch = "x86_64")]
    if input.len() < crate::arch::x86_64::grid_decode::SHORT_INPUT_BYTES
        && matches!(detected, Backend::Avx2 | Backend::Ssse3)
    {
        // Under two blocks: the SSSE3/AVX2 blocks over a zero-padded copy
        // for every shape (long varints go to the scalar decoder from
        // there), no sample (AVX2 on Zen 5, default build, ns per call
        // against the scalar decoder this took before: 95% 1-byte counts
        // at 32 values 51 -> 28, the u32 mix at 32 values 72 -> 40,
        // `int32` with 10% negatives at 32 values 110 -> 52; BENCHMARKS.md,
        // "Short inputs: the paths below 128 bytes").
        trace_route!(Short(simd_decoder(detected)));
        // SAFETY: `detected_backend` is supported by this CPU, and so is
        // SSSE3 where `simd_decoder` picks it.
        return unsafe { simd_decoder(detected).decode_uninit_supported(input, out) };
    }
    let backend = decode_backend::<T>(input, detected);
    trace_route!(Kernel(backend));
    match backend {
        Backend::Scalar => decode_slice_scalar(input, out),
        // `decode_backend` returns the scalar backend, the detected one
        // (supported by `detected_backend`'s definition) or SSSE3 after
        // checking `is_supported`.
        backend => {
            // SAFETY: so the CPU supports `backend` (see just above).
            unsafe { backend.decode_uninit_supported(input, out) }
        }
    }
}

/// The backend whose [`Backend::decode_run_uninit`] decodes `input` batch
/// by batch (the delta decoders): the one [`decode_uninit`] picks for an
/// input of this length and shape past its short-input paths.
pub(crate) fn batch_backend<T: VarInt>(input: &[u8]) -> Backend {
    let detected = detected_backend();
    if detected == Backend::Avx512Vbmi2 {
        return detected;
    }
    decode_backend::<T>(input, detected)
}

/// [`decode_uninit`] of `input[start..]` as one batch of a longer decode
/// (see [`Backend::decode_run_uninit`]): may stop early, may read the
/// bytes before `start`; returns (values, position of the next varint).
#[cfg(feature = "alloc")]
pub(crate) fn decode_run_uninit<T: VarInt>(
    input: &[u8],
    start: usize,
    out: &mut [MaybeUninit<T>],
) -> Result<(usize, usize), BulkDecodeError> {
    trace_route!(Run(simd_decoder(detected_backend())));
    simd_decoder(detected_backend()).decode_run_uninit(input, start, out)
}

/// Inputs up to this many bytes whose varints are mostly 1-byte ones (a
/// short packed field of counts) also take the byte loop, whose predicted
/// 1-byte branch beats the block path there (`counts-95x1`, 16 values,
/// 17 bytes: 64 -> see BENCHMARKS.md, against 55 for the prost loop).
const BYTEWISE_ONES_MAX_BYTES: usize = 24;

/// Inputs up to this many bytes whose first varints are long (at most two
/// ends in the first 16 bytes: 64-bit ids, negative `int32`s) also take
/// the byte loop: two or four such values cost the block path 66-75 ns
/// against 36-69 for the prost loop (`u64-ids` at 2 and 4 values).
const BYTEWISE_LONG_MAX_BYTES: usize = 48;

/// Whether `input`'s first 16 bytes end at most two varints.
#[inline(always)]
fn mostly_long(input: &[u8]) -> bool {
    first_16_terminators(input).is_some_and(|ends| ends.count_ones() <= 2)
}

/// Whether at least 7 of 8 bytes of `input` end a varint (a loop the
/// compiler vectorizes; `input` is at most 24 bytes).
#[inline(always)]
fn mostly_one_byte(input: &[u8]) -> bool {
    8 * input.iter().filter(|&&byte| byte < 0x80).count() >= 7 * input.len()
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
    let kind = match crate::decode::decode::<T>(&input[consumed..]) {
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
#[inline]
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
    // The slots hold the zigzag values' bits.
    zigzag_decode_in_place(&mut out[..written]);
    result
}

/// Below this many values the zigzag step of the bulk zigzag decoders runs
/// inline, in the build's own lanes: the call through the backend match
/// costs more than wider lanes save on a few values.
const ZIGZAG_SIMD_MIN_VALUES: usize = 64;

/// Zigzag-decodes `values` in place (each holds the bits of a zigzag
/// varint's unsigned value), in the detected backend's vector lanes from
/// [`ZIGZAG_SIMD_MIN_VALUES`].
#[inline]
pub(crate) fn zigzag_decode_in_place<T: ZigZag>(values: &mut [T]) {
    if values.len() >= ZIGZAG_SIMD_MIN_VALUES {
        // SAFETY: `detected_backend` is supported by this CPU.
        unsafe { detected_backend().zigzag_decode_in_place_supported(values) }
    } else {
        crate::arch::scalar::zigzag::zigzag_decode_in_place(values);
    }
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
    // The slots hold the zigzag values' bits.
    zigzag_decode_in_place(&mut out);
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
#[must_use]
pub fn count_varints(input: &[u8]) -> usize {
    if input.len() < SCALAR_CUTOFF_BYTES {
        return count_varints_portable(input);
    }
    detected_backend().count_varints(input)
}

/// The total number of bytes that [`encode_slice`] writes for `values`.
///
/// ```
/// assert_eq!(varint_turbo::encoded_len_sum(&[1u64, 300, u64::MAX]), 1 + 2 + 10);
/// ```
#[must_use]
pub fn encoded_len_sum<T: VarInt>(values: &[T]) -> usize {
    if values.len() < 16 {
        return encoded_len_sum_portable(values);
    }
    detected_backend().encoded_len_sum(values)
}

/// The summed encoded lengths of the 64-bit wire values `wire(value)` of
/// `values` (packed protobuf `int64`, `uint64`, `sint64`): the AVX-512
/// kernel where the detected backend is AVX-512 and there are 8 values or
/// more, else the build's own sum (on x86-64 the SSE2 kernel, which needs
/// no run-time check; in a build for AVX-512 CPUs, the loop the compiler
/// vectorizes with `vplzcntq`, so no run-time check either).
#[inline]
pub(crate) fn encoded_len_64_sum<V: Copy>(values: &[V], wire: impl Fn(V) -> u64) -> usize {
    #[cfg(all(
        target_arch = "x86_64",
        varint_turbo_avx512,
        not(target_feature = "avx512cd")
    ))]
    if values.len() >= 8 && detected_backend() == Backend::Avx512Vbmi2 {
        // SAFETY: the detected backend runs on this CPU, and its features
        // include AVX-512 F, BW, CD and VBMI.
        return unsafe { crate::arch::x86_64::avx512::sizes::encoded_len_64_sum(values, wire) };
    }
    crate::arch::selected::encoded_len_64_sum(values, wire)
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
    let start = out.len();
    let mut rest = values;
    let mut room = encoded_len_sum(values);
    loop {
        // No zero-fill: the encoder writes into the spare capacity.
        out.reserve(room);
        let at = out.len();
        let spare = out.spare_capacity_mut();
        let spare_len = spare.len();
        let (encoded, written) = encode_slice_to_uninit(rest, spare);
        // The encoder writes inside the slice it is given; checked, since
        // the length set below relies on it.
        assert!(written <= spare_len, "the bulk encoder wrote past its room");
        // SAFETY: `at + written` is within the capacity, and the encoder
        // initialized those bytes.
        unsafe { out.set_len(at + written) };
        rest = &rest[encoded..];
        if rest.is_empty() {
            break;
        }
        // Only if `encoded_len_sum` undercounted (the encoders bound their
        // writes by `out.len()`, so that costs no memory safety): room for
        // at least the next value, so that every pass makes progress.
        room = encoded_len_sum(rest).max(T::MAX_LEN);
    }
    out.len() - start
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
/// Bytes of `out` after the bytes written may be overwritten, as there.
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
/// Writes nothing outside `out`; bytes of `out` after the bytes written
/// may be overwritten with unspecified values (the encoders store whole
/// words and vectors).
///
/// ```
/// let mut out = [0u8; 4];
/// // 1 and 300 take 3 bytes; 16384 would need 3 more.
/// assert_eq!(varint_turbo::encode_slice_into(&[1u32, 300, 16384], &mut out), (2, 3));
/// assert_eq!(out[..3], [0x01, 0xac, 0x02]);
/// ```
pub fn encode_slice_into<T: VarInt>(values: &[T], out: &mut [u8]) -> (usize, usize) {
    encode_slice_to_uninit(values, crate::arch::as_uninit(out))
}

/// [`encode_slice_into`] into bytes that may be uninitialized, such as a
/// `Vec`'s spare capacity: no zero-fill first. Returns (values encoded,
/// bytes written); the first `bytes written` bytes of `out` are then
/// initialized. Writes nothing outside `out`; bytes after those written
/// may be overwritten (with initialized values).
///
/// ```
/// let values = [1u64, 300, 1 << 40];
/// let mut out = Vec::with_capacity(16);
/// let (encoded, written) = varint_turbo::encode_slice_to_uninit(&values, out.spare_capacity_mut());
/// assert_eq!((encoded, written), (3, 9));
/// // SAFETY: the encoder initialized the first `written` bytes.
/// unsafe { out.set_len(written) };
/// assert_eq!(out[..3], [0x01, 0xac, 0x02]);
/// ```
pub fn encode_slice_to_uninit<T: VarInt>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    if values.len() < 8 {
        return encode_slice_into_scalar(values, out);
    }
    // SAFETY: `detected_backend` is supported by this CPU.
    unsafe { detected_backend().encode_slice_to_uninit_supported(values, out) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word scan finds the same end as a byte-by-byte count, for
    /// every count up to past the input's ends, at every alignment.
    #[test]
    fn end_of_varints_counts_ends_as_a_byte_loop_does() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..400 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = round % 67;
            // Continuation bytes from 0% to 100% of the input.
            let dense = round % 5;
            let input: Vec<u8> = (0..len)
                .map(|i| {
                    let bits = state.rotate_left(i as u32 * 7);
                    let low = (bits & 0x7f) as u8;
                    if (bits >> 8) % 4 < dense as u64 {
                        low | 0x80
                    } else {
                        low
                    }
                })
                .collect();
            for count in 1..=len + 2 {
                let expected = input
                    .iter()
                    .enumerate()
                    .filter(|&(_, &byte)| byte < 0x80)
                    .nth(count - 1)
                    .map(|(at, _)| at + 1);
                assert_eq!(
                    end_of_varints(&input, count),
                    expected,
                    "{input:02x?} {count}"
                );
            }
        }
    }

    /// The SIMD decoder is always one the CPU runs, and SSSE3 stands in
    /// for AVX2 exactly on 128-bit vector units in builds with AVX.
    #[test]
    fn simd_decoder_is_supported_and_prefers_ssse3_on_split_units() {
        for backend in Backend::ALL {
            if !backend.is_supported() {
                continue;
            }
            let chosen = simd_decoder(backend);
            assert!(chosen.is_supported(), "{backend} -> {chosen}");
            let expected = if backend == Backend::Avx2
                && cfg!(target_feature = "avx")
                && crate::cpu::splits_256_bit_ops()
            {
                Backend::Ssse3
            } else {
                backend
            };
            assert_eq!(chosen, expected, "for {backend}");
        }
    }

    /// Every input length and shape gets a backend the CPU supports.
    #[test]
    fn decode_backend_is_always_supported() {
        let detected = detected_backend();
        let shapes: [&[u8]; 4] = [
            &[0x01],
            &[0x81, 0x01],
            &[0xff, 0xff, 0xff, 0x7f],
            &[0xff; 9],
        ];
        for shape in shapes {
            let mut input = shape.to_vec();
            input.push(0x01);
            while input.len() < 5000 {
                for len in [input.len(), input.len() / 2 + 1] {
                    let backend = decode_backend::<u64>(&input[..len], detected);
                    assert!(backend.is_supported(), "{backend} for {len} bytes");
                    let backend = decode_backend::<u32>(&input[..len], detected);
                    assert!(backend.is_supported(), "{backend} for {len} bytes");
                }
                input.extend_from_slice(&input.clone());
            }
        }
    }
}
