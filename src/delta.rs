//! Delta-coded sorted lists (posting lists, sorted ids, timestamps): each
//! value is stored as the varint of its gap to the one before it, the
//! first as its gap to a `previous` value the caller supplies (0 for a
//! list on its own, the last value of the block before for a list stored
//! in blocks).
//!
//! | function | what it does |
//! |---|---|
//! | [`decode_slice`] | the values of the list: the varints decoded and summed in one call |
//! | [`encode_slice`], [`encode_slice_into`] | the varints of a list's gaps |
//! | [`select`] | the value at an index, without storing the others |
//! | [`search`] | the index and value of the first value at least a key (a lower bound) |
//!
//! These are the operations of Masked VByte's `masked_vbyte_decode_delta`,
//! `masked_vbyte_select_delta` and `masked_vbyte_search_delta` (Plaisance,
//! Kurz and Lemire, "Vectorized VByte Decoding", 2015), over the varints of
//! this crate (protobuf's unsigned LEB128), in `u32` or `u64` ([`DeltaInt`]).
//!
//! ```
//! use varint_turbo::delta;
//! let ids = [3u32, 7, 300, 301, 100_000];
//! let mut bytes = Vec::new();
//! delta::encode_slice(&ids, &mut bytes, 0);
//! // The gaps 3, 4, 293, 1, 99699: 1 + 1 + 2 + 1 + 3 bytes.
//! assert_eq!(bytes.len(), 8);
//!
//! let mut out = [0u32; 5];
//! assert_eq!(delta::decode_slice(&bytes, &mut out, 0), Ok((5, 8)));
//! assert_eq!(out, ids);
//! assert_eq!(delta::select::<u32>(&bytes, 2, 0), Ok(300));
//! assert_eq!(delta::search(&bytes, 299u32, 0), Ok(Some((2, 300))));
//! assert_eq!(delta::search(&bytes, 100_001u32, 0), Ok(None));
//! ```
//!
//! # Semantics
//!
//! Value `i` is `previous + gap[0] + ... + gap[i]`, **wrapping** in the
//! width of `T` (as Masked VByte's): no input is an error for its sums,
//! and a list whose gaps were computed with wrapping subtraction (what
//! [`encode_slice`] writes for any list, sorted or not) decodes to the
//! list again. Each gap is a varint decoded by the rules of
//! [`decode`](crate::decode) into `T` (at most [`VarInt::MAX_LEN`] bytes,
//! a value that fits `T`), and a malformed one is reported as the bulk
//! decoders report it: a [`BulkDecodeError`] with its kind, the index of
//! its value and the byte offset where its varint starts.
//!
//! # Speed
//!
//! The gaps are decoded by the bulk backend of this CPU (see
//! [`detected_backend`](crate::detected_backend)), a batch of at most
//! 1,024 values at a time (all at once for inputs of at most 8 KiB). The
//! SSSE3 and AVX2 decoders sum as they decode: their runs of 1-byte and
//! of 1- and 2-byte varints store each vector of values prefix-summed in
//! registers (shift-and-add within the vector, then the running sum
//! added), and the values of their other steps are summed every few
//! blocks while still in the L1 cache. The other backends decode a batch,
//! then sum it (`u32`s in SSE2 lanes on x86-64, `u64`s by a loop); on
//! AVX-512 CPUs gaps that start with 64 1-byte varints take the AVX2
//! decoder instead, for its sum in the lanes. On
//! 1-byte gaps this is 1.7-2.1x faster than `decode_slice` followed by a
//! running-sum loop (about 2x plain `decode_slice`'s time); where the
//! gaps take more bytes the decode costs 3-6 times the sum and the two
//! are within a few percent. [`select`] and [`search`] decode the same
//! way, a stack batch of at most 256 values at a time, except for the
//! first 32 values of `select` and inputs of up to 64 bytes for `search`,
//! which take the single-value decoder gap by gap and stop at the value
//! they need. BENCHMARKS.md, "Delta-coded lists and short 1-byte runs",
//! has the measurements and the bounds.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::mem::MaybeUninit;

use crate::arch::scalar::decode_slice::BYTEWISE_MAX_BYTES;
use crate::arch::scalar::prefix_sum::wrapping_total;
use crate::arch::{as_uninit, scalar, selected};
use crate::bulk::{self, Backend};
use crate::error::{BulkDecodeError, DecodeError};
use crate::varint::VarInt;

/// The value types of delta-coded lists: `u32` and `u64`.
///
/// Implemented for those two only (its supertrait [`VarInt`] is sealed, so
/// no other crate can add an implementation).
///
/// ```
/// fn first<T: varint_turbo::delta::DeltaInt>(bytes: &[u8]) -> Option<T> {
///     varint_turbo::delta::select(bytes, 0, T::default()).ok()
/// }
/// assert_eq!(first::<u64>(&[0x05, 0x01]), Some(5));
/// ```
pub trait DeltaInt: VarInt {}
impl DeltaInt for u32 {}
impl DeltaInt for u64 {}

/// Inputs up to this many bytes are decoded by one call of the bulk
/// decoder (its dispatch and its short-input paths, as
/// [`decode_slice`](crate::decode_slice) takes them), then summed; longer
/// ones in batches of [`BATCH`] values, so that each batch is summed while
/// the decoder's stores are still in the L1 cache.
const WHOLE_MAX_BYTES: usize = 8192;

/// The values of a batch of a long input (4 KiB of `u32`s, 8 KiB of
/// `u64`s: a fraction of any L1 data cache).
const BATCH: usize = 1024;

/// The gaps [`select`] and [`search`] decode at a time, into a stack buffer.
const STACK_BATCH: usize = 256;

/// Values encoded per chunk by the encoders: their gaps go into a stack
/// buffer of at most 2 KiB, then to the bulk encoder.
const GAP_CHUNK: usize = 256;

/// Which decoder the gaps come from: the bulk API's own choice, or one
/// backend (the [`Backend`] methods, for tests and benchmarks).
#[derive(Clone, Copy)]
enum Source {
    Auto,
    On(Backend),
}

/// Inputs from this many bytes (two blocks of the SSSE3/AVX2 decoders)
/// take the fused decoders (`Backend::decode_delta_uninit`) when the
/// bulk API chooses the backend; shorter ones its short-input paths,
/// then the sum.
const FUSED_MIN_BYTES: usize = 128;

/// The bytes [`decode_source`] looks at.
const ONE_BYTE_PROBE: usize = 64;

/// Where [`decode_slice`] takes its gaps from: the bulk API's choice,
/// except that on AVX-512 CPUs an input of at least [`FUSED_MIN_BYTES`]
/// whose first [`ONE_BYTE_PROBE`] bytes are all 1-byte varints takes
/// AVX2's fused decoder. That one sums its 1-byte runs in the lanes as it
/// widens them, where the AVX-512 kernel decodes a batch and the sum is a
/// second pass (every CPU with [`Backend::Avx512Vbmi2`] has AVX2: its
/// features include [`Backend::Avx2`]'s). Zen 4, 4,096 1-byte gaps, ns per
/// call, AVX-512 / AVX2: `u32` 855-1,350 / 527-654, `u64` 1,499-1,575 /
/// 825-861; on mixed and 3-byte gaps AVX-512 stays ahead (`u32` 1,471 /
/// 2,116 and 2,266 / 3,170), so they keep it, as do [`select`] and
/// [`search`], which sum no more than they must.
fn decode_source<T: VarInt>(input: &[u8], source: Source) -> Source {
    // The probe lies inside any input that may take the fused decoders.
    const { assert!(ONE_BYTE_PROBE <= FUSED_MIN_BYTES) };
    let one_byte_gaps = || {
        input.len() >= FUSED_MIN_BYTES && input[..ONE_BYTE_PROBE].iter().all(|&byte| byte < 0x80)
    };
    match source {
        Source::Auto
            if bulk::batch_backend::<T>(input) == Backend::Avx512Vbmi2 && one_byte_gaps() =>
        {
            Source::On(Backend::Avx2)
        }
        source => source,
    }
}

/// The gaps of an input, batch after batch.
struct Gaps<'a> {
    input: &'a [u8],
    /// Where the next gap's varint starts.
    pos: usize,
    source: Source,
    /// The backend of the batches after the first (or of all batches of
    /// an input longer than [`WHOLE_MAX_BYTES`]).
    batched: Backend,
}

impl<'a> Gaps<'a> {
    fn new<T: VarInt>(input: &'a [u8], source: Source) -> Self {
        let batched = match source {
            Source::Auto => bulk::batch_backend::<T>(input),
            Source::On(backend) => backend,
        };
        Gaps {
            input,
            pos: 0,
            source,
            batched,
        }
    }

    /// Whether the first call takes the whole input (up to the room it
    /// is given).
    fn whole(&self) -> bool {
        self.pos == 0 && self.input.len() <= WHOLE_MAX_BYTES
    }

    /// Whether every gap has been decoded.
    fn done(&self) -> bool {
        self.pos >= self.input.len()
    }

    /// Decodes the next gaps into `slots`, at least one unless the input
    /// is done or `slots` is empty; returns how many. An error's index
    /// counts from `slots`' start, its offset from the input's; the
    /// values before it are in `slots`.
    fn next<T: VarInt>(&mut self, slots: &mut [MaybeUninit<T>]) -> Result<usize, BulkDecodeError> {
        let (n, next) = if self.whole() {
            match self.source {
                Source::Auto => bulk::decode_uninit(self.input, slots)?,
                Source::On(backend) => backend.decode_uninit(self.input, slots)?,
            }
        } else {
            self.batched
                .decode_run_uninit(self.input, self.pos, slots)?
        };
        debug_assert!(next > self.pos || slots.is_empty() || self.done());
        self.pos = next;
        Ok(n)
    }

    /// Decodes gaps into `slots` through the batch decoder from the
    /// current position, the first call too (see [`select_with`]): at
    /// least one value unless the input is done or `slots` is empty.
    /// Errors as [`Gaps::next`].
    fn next_run<T: VarInt>(
        &mut self,
        slots: &mut [MaybeUninit<T>],
    ) -> Result<usize, BulkDecodeError> {
        let (n, next) = self
            .batched
            .decode_run_uninit(self.input, self.pos, slots)?;
        debug_assert!(next > self.pos || slots.is_empty() || self.done());
        self.pos = next;
        Ok(n)
    }

    /// [`Gaps::next_run`] with the running sum of [`Gaps::next_summed`].
    fn next_run_summed<T: VarInt>(
        &mut self,
        slots: &mut [MaybeUninit<T>],
        sum: &mut T,
    ) -> Result<usize, BulkDecodeError> {
        let (n, next) = self
            .batched
            .decode_run_delta_uninit(self.input, self.pos, slots, sum)?;
        debug_assert!(next > self.pos || slots.is_empty() || self.done());
        self.pos = next;
        Ok(n)
    }

    /// [`Gaps::next`] with the running sum: the values stored are `*sum`
    /// plus the gaps up to them (wrapping in `T`), and `*sum` becomes the
    /// last one stored (with an error, the last one before its index).
    /// The SSSE3 and AVX2 decoders sum as they decode (see
    /// `Backend::decode_delta_uninit`).
    fn next_summed<T: VarInt>(
        &mut self,
        slots: &mut [MaybeUninit<T>],
        sum: &mut T,
    ) -> Result<usize, BulkDecodeError> {
        let (n, next) = if self.whole() {
            match self.source {
                Source::Auto if self.input.len() < FUSED_MIN_BYTES => {
                    let result = bulk::decode_uninit(self.input, slots);
                    let end = result.map_or_else(|error| error.index(), |(n, _)| n);
                    // SAFETY: the decoder initialized the slots before its
                    // count (or its error's index).
                    *sum = selected::prefix_sum(unsafe { assume_init(slots, end) }, *sum);
                    result?
                }
                // For inputs of at least 128 bytes `batched` is the
                // backend `bulk::decode_uninit` would take.
                Source::Auto => self.batched.decode_delta_uninit(self.input, slots, sum)?,
                Source::On(backend) => backend.decode_delta_uninit(self.input, slots, sum)?,
            }
        } else {
            self.batched
                .decode_run_delta_uninit(self.input, self.pos, slots, sum)?
        };
        debug_assert!(next > self.pos || slots.is_empty() || self.done());
        self.pos = next;
        Ok(n)
    }
}

/// The first `n` slots of `slots`, which the decoder has initialized.
///
/// # Safety
/// `slots[..n]` must be initialized.
unsafe fn assume_init<T>(slots: &mut [MaybeUninit<T>], n: usize) -> &mut [T] {
    let slots = &mut slots[..n];
    // SAFETY: initialized (caller); `MaybeUninit<T>` has `T`'s layout.
    unsafe { core::slice::from_raw_parts_mut(slots.as_mut_ptr().cast::<T>(), n) }
}

fn decode_with<T: DeltaInt>(
    source: Source,
    input: &[u8],
    out: &mut [T],
    previous: T,
) -> Result<(usize, usize), BulkDecodeError> {
    let mut gaps = Gaps::new::<T>(input, decode_source::<T>(input, source));
    let mut written = 0;
    let mut sum = previous;
    while written < out.len() && !gaps.done() {
        let end = if gaps.whole() || out.len() - written < 2 * BATCH {
            out.len()
        } else {
            written + BATCH
        };
        match gaps.next_summed(as_uninit(&mut out[written..end]), &mut sum) {
            Ok(n) => {
                written += n;
                if n == 0 {
                    // Never expected (every call makes progress).
                    break;
                }
            }
            Err(error) => {
                let failed = written + error.index();
                return Err(BulkDecodeError::new(error.kind(), failed, error.offset()));
            }
        }
    }
    Ok((written, gaps.pos))
}

/// [`select`]s of an index below this, and [`search`]es of inputs up to
/// [`SHORT_SEARCH_BYTES`], take the single-value decoder gap by gap
/// ([`scan_gaps`]) and stop at the value they need: there the bulk
/// decoder's set-up (its route, a stack batch, a second pass) cost more
/// than the values (Zen 3, default build, 16-value lists, ns per call:
/// `select` 50 -> 28 on 1-byte gaps, 127 -> 75 on mixed gaps; `search`
/// 59 -> 35 on 1-byte gaps).
const SHORT_SELECT_INDEX: usize = 32;

/// See [`SHORT_SELECT_INDEX`].
const SHORT_SEARCH_BYTES: usize = 64;

/// The values a [`search`] decodes first (then [`STACK_BATCH`] at a
/// time) where the decoder stops after its blocks (SSSE3, AVX2).
const SEARCH_FIRST_RUN: usize = 64;

/// The single-value decoder over the gaps, summing: calls `stop(index,
/// value)` on each value in turn until it returns true (then that value's
/// index and `Some(value)`) or the input ends (then the number of values
/// and `None`). Errors as the bulk decoders report them: the failing
/// gap's index and the offset where its varint starts.
#[inline(always)]
fn scan_gaps<T: DeltaInt>(
    input: &[u8],
    previous: T,
    mut stop: impl FnMut(usize, T) -> bool,
) -> Result<(usize, Option<T>), BulkDecodeError> {
    let mut pos = 0;
    let mut sum = previous.to_u64();
    let mut index = 0;
    while pos < input.len() {
        let (gap, len) = crate::decode::decode::<T>(&input[pos..])
            .map_err(|error| BulkDecodeError::new(error, index, pos))?;
        sum = sum.wrapping_add(gap.to_u64());
        let value = T::from_u64_unchecked(sum);
        if stop(index, value) {
            return Ok((index, Some(value)));
        }
        pos += len;
        index += 1;
    }
    Ok((index, None))
}

fn select_with<T: DeltaInt>(
    source: Source,
    input: &[u8],
    index: usize,
    previous: T,
) -> Result<T, BulkDecodeError> {
    if matches!(source, Source::Auto) && index < SHORT_SELECT_INDEX {
        return match scan_gaps(input, previous, |at, _| at == index)? {
            (_, Some(value)) => Ok(value),
            // The input holds `count <= index` values: value `count` would
            // start at its end.
            (count, None) => Err(BulkDecodeError::new(
                DecodeError::Truncated,
                count,
                input.len(),
            )),
        };
    }
    let mut slots = [MaybeUninit::<T>::uninit(); STACK_BATCH];
    let mut gaps = Gaps::new::<T>(input, source);
    // Gaps summed so far.
    let mut done = 0;
    let mut sum = previous;
    loop {
        if gaps.done() {
            // The input holds `done <= index` values: value `index` would
            // start at its end.
            return Err(BulkDecodeError::new(
                DecodeError::Truncated,
                done,
                input.len(),
            ));
        }
        // The values up to `index`, at most a batch.
        let need = (index - done).min(STACK_BATCH - 1) + 1;
        let slack = gaps.batched.run_slack();
        let result = if slack == 0 {
            gaps.next(&mut slots[..need])
        } else {
            // Room for a block past the values needed: the SSSE3/AVX2
            // block loop runs up to them and stops, where room for exactly
            // `need` values sent its last blocks' values to the scalar
            // tail one by one (mixed gaps, 256 values: see BENCHMARKS.md,
            // "Against Masked VByte"). Values decoded past `need`, and
            // an error past them, do not count.
            gaps.next_run(&mut slots[..(need + slack).min(STACK_BATCH)])
        };
        let n = match result {
            Ok(n) => n.min(need),
            Err(error) if error.index() >= need => need,
            Err(error) => {
                return Err(BulkDecodeError::new(
                    error.kind(),
                    done + error.index(),
                    error.offset(),
                ))
            }
        };
        // SAFETY: the decoder initialized the first `n` slots (`n` is at
        // most its count, or below its error's index).
        sum = wrapping_total(unsafe { assume_init(&mut slots, n) }, sum);
        done += n;
        if done > index {
            return Ok(sum);
        }
        if n == 0 {
            // Never expected (every call makes progress): report the
            // value where it stalled as the reference decoder does.
            return Err(first_error::<T>(input, gaps.pos, done));
        }
    }
}

/// The error the single-value decoder reports for the varint at `pos`
/// (value `index`): `Truncated` if it decodes.
#[cold]
fn first_error<T: VarInt>(input: &[u8], pos: usize, index: usize) -> BulkDecodeError {
    let kind = crate::decode::decode::<T>(&input[pos.min(input.len())..])
        .err()
        .unwrap_or(DecodeError::Truncated);
    BulkDecodeError::new(kind, index, pos)
}

/// The index of the first of `values` at least `key`: a bit per value, 16
/// values at a time, which the compiler vectorizes (compares and a
/// `movmskps`), the first set bit giving the index; the last 15 values or
/// fewer one by one. (With `chunks(16)`, whose length the compiler does
/// not know, each chunk's test was a loop with its own tail and the scan
/// that found the value another: 425 instructions per `search` of 256
/// values, callgrind.)
#[inline]
fn first_at_least<T: DeltaInt>(values: &[T], key: T) -> Option<usize> {
    let mut sixteens = values.chunks_exact(16);
    let mut at = 0;
    for sixteen in &mut sixteens {
        let reached = sixteen.iter().enumerate().fold(0u32, |bits, (i, &value)| {
            bits | u32::from(value >= key) << i
        });
        if reached != 0 {
            return Some(at + reached.trailing_zeros() as usize);
        }
        at += 16;
    }
    sixteens
        .remainder()
        .iter()
        .position(|&value| value >= key)
        .map(|i| at + i)
}

fn search_with<T: DeltaInt>(
    source: Source,
    input: &[u8],
    key: T,
    previous: T,
) -> Result<Option<(usize, T)>, BulkDecodeError> {
    if matches!(source, Source::Auto) && input.len() <= SHORT_SEARCH_BYTES {
        let (index, value) = scan_gaps(input, previous, |_, value| value >= key)?;
        return Ok(value.map(|value| (index, value)));
    }
    let mut slots = [MaybeUninit::<T>::uninit(); STACK_BATCH];
    let mut gaps = Gaps::new::<T>(input, source);
    let mut done = 0;
    let mut sum = previous;
    let slack = gaps.batched.run_slack();
    while !gaps.done() {
        let result = if slack == 0 {
            gaps.next_summed(&mut slots, &mut sum)
        } else {
            // The SSSE3/AVX2 block loop stops after the values its room
            // allows past a block's slack: a first run of about
            // `SEARCH_FIRST_RUN` values, where the key is often found,
            // then whole batches.
            let room = if done == 0 {
                SEARCH_FIRST_RUN + slack
            } else {
                STACK_BATCH
            };
            gaps.next_run_summed(&mut slots[..room], &mut sum)
        };
        let (n, error) = match result {
            Ok(0) => return Err(first_error::<T>(input, gaps.pos, done)),
            Ok(n) => (n, None),
            Err(error) => (error.index(), Some(error)),
        };
        // SAFETY: the decoder initialized and summed the first `n` slots
        // (those before the error's index, if it failed).
        let values = unsafe { assume_init(&mut slots, n) };
        // The values before a malformed varint are searched first: the
        // search stops at the first value at least `key`, wherever the
        // batches end.
        if let Some(i) = first_at_least(values, key) {
            return Ok(Some((done + i, values[i])));
        }
        if let Some(error) = error {
            return Err(BulkDecodeError::new(
                error.kind(),
                done + error.index(),
                error.offset(),
            ));
        }
        done += n;
    }
    Ok(None)
}

/// Calls `encode` with the gaps of `values` (the first against
/// `previous`), a chunk of [`GAP_CHUNK`] at a time, for as long as it
/// returns `true`.
#[inline(always)]
fn for_gap_chunks<T: DeltaInt>(values: &[T], previous: T, mut encode: impl FnMut(&[T]) -> bool) {
    let mut buffer = [T::default(); GAP_CHUNK];
    let mut before = previous;
    for chunk in values.chunks(GAP_CHUNK) {
        let gaps = &mut buffer[..chunk.len()];
        gaps[0] = wrapping_sub(chunk[0], before);
        // A loop the compiler vectorizes: each value minus the one before.
        for (gap, pair) in gaps[1..].iter_mut().zip(chunk.windows(2)) {
            *gap = wrapping_sub(pair[1], pair[0]);
        }
        before = chunk[chunk.len() - 1];
        if !encode(gaps) {
            break;
        }
    }
}

/// `a - b`, wrapping in `T`.
#[inline(always)]
fn wrapping_sub<T: DeltaInt>(a: T, b: T) -> T {
    T::from_u64_unchecked(a.to_u64().wrapping_sub(b.to_u64()))
}

fn encode_into_with<T: DeltaInt>(
    backend: Option<Backend>,
    values: &[T],
    out: &mut [u8],
    previous: T,
) -> (usize, usize) {
    let (mut encoded, mut written) = (0, 0);
    for_gap_chunks(values, previous, |gaps| {
        let (n, bytes) = match backend {
            None => bulk::encode_slice_into(gaps, &mut out[written..]),
            Some(backend) => backend.encode_slice_into(gaps, &mut out[written..]),
        };
        encoded += n;
        written += bytes;
        n == gaps.len()
    });
    (encoded, written)
}

/// Decodes the delta-coded list at the start of `input` into `out`, until
/// `out` is full or `input` is exhausted: `out[i]` is `previous` plus the
/// first `i + 1` gaps, wrapping in `T`. Returns (values written, bytes
/// consumed).
///
/// The contract of [`decode_slice`](crate::decode_slice) (which decodes
/// the gaps themselves): a gap's varint cut off by the end of `input`
/// ([`DecodeError::Truncated`]) or too large for `T`
/// ([`DecodeError::Overflow`]) is an error with its index and byte
/// offset, every value before it has been written to `out`, and the slots
/// past the values written (or past the failing index) may have been
/// overwritten with unspecified values.
///
/// ```
/// use varint_turbo::{delta, DecodeError};
/// // Gaps 5, 1, 300 after 1000.
/// let bytes = [0x05, 0x01, 0xac, 0x02];
/// let mut out = [0u64; 8];
/// assert_eq!(delta::decode_slice(&bytes, &mut out, 1000), Ok((3, 4)));
/// assert_eq!(out[..3], [1005, 1006, 1306]);
///
/// // The sums wrap: u32::MAX + 2 is 1.
/// let mut out = [0u32; 1];
/// assert_eq!(delta::decode_slice(&[0x02], &mut out, u32::MAX), Ok((1, 1)));
/// assert_eq!(out, [1]);
///
/// let mut out = [0u32; 4];
/// let error = delta::decode_slice(&[0x05, 0x80], &mut out, 0).unwrap_err();
/// assert_eq!((error.kind(), error.index(), error.offset()), (DecodeError::Truncated, 1, 1));
/// assert_eq!(out[0], 5);
/// ```
#[inline]
pub fn decode_slice<T: DeltaInt>(
    input: &[u8],
    out: &mut [T],
    previous: T,
) -> Result<(usize, usize), BulkDecodeError> {
    if input.len() <= BYTEWISE_MAX_BYTES {
        // A few values: the byte loop and word steps, inline in the
        // caller, as `crate::decode_slice` takes them, and the plain sum.
        let result = bulk::short_values(input, as_uninit(out));
        let written = result.map_or_else(|error| error.index(), |(n, _)| n);
        scalar::prefix_sum::prefix_sum(&mut out[..written], previous);
        return result;
    }
    decode_with(Source::Auto, input, out, previous)
}

/// The value at `index` of the delta-coded list `input` (`previous` plus
/// its first `index + 1` gaps, wrapping in `T`), decoding the gaps up to
/// it and no further: a malformed varint after it is not seen.
///
/// Fails as [`decode_slice`] does for a malformed gap before or at
/// `index`. If `input` holds only `n <= index` values (all well-formed),
/// the error is [`DecodeError::Truncated`] with index `n` and the offset
/// `input.len()`: value `n` would start where the input ends.
///
/// ```
/// use varint_turbo::{delta, DecodeError};
/// let bytes = [0x05, 0x01, 0xac, 0x02]; // gaps 5, 1, 300
/// assert_eq!(delta::select(&bytes, 0, 10u32), Ok(15));
/// assert_eq!(delta::select(&bytes, 2, 10u32), Ok(316));
/// let error = delta::select(&bytes, 3, 10u32).unwrap_err();
/// assert_eq!((error.kind(), error.index(), error.offset()), (DecodeError::Truncated, 3, 4));
/// ```
pub fn select<T: DeltaInt>(input: &[u8], index: usize, previous: T) -> Result<T, BulkDecodeError> {
    select_with(Source::Auto, input, index, previous)
}

/// A lower bound in the delta-coded list `input`: the index and value of
/// the first value at least `key`, or `None` if every value is below it
/// (or the input is empty).
///
/// The values are decoded in order up to the one found, so for a list
/// that is not sorted (or whose sums wrap) it is the first such value in
/// list order; a malformed varint after it is not seen. A malformed gap
/// before it fails as in [`decode_slice`].
///
/// ```
/// use varint_turbo::delta;
/// let bytes = [0x05, 0x01, 0xac, 0x02]; // 5, 6, 306 after 0
/// assert_eq!(delta::search(&bytes, 6u32, 0), Ok(Some((1, 6))));
/// assert_eq!(delta::search(&bytes, 7u32, 0), Ok(Some((2, 306))));
/// assert_eq!(delta::search(&bytes, 0u32, 0), Ok(Some((0, 5))));
/// assert_eq!(delta::search(&bytes, 307u32, 0), Ok(None));
/// // A cut-off gap before any value at least the key: an error.
/// assert!(delta::search(&[0x05, 0x80], 100u32, 0).is_err());
/// ```
pub fn search<T: DeltaInt>(
    input: &[u8],
    key: T,
    previous: T,
) -> Result<Option<(usize, T)>, BulkDecodeError> {
    search_with(Source::Auto, input, key, previous)
}

/// Appends the varints of the gaps of `values` to `out` (`values[0] -
/// previous`, then each value minus the one before, wrapping in `T`);
/// returns the bytes written. [`decode_slice`] with the same `previous`
/// gives `values` back.
///
/// ```
/// let mut out = vec![0xff];
/// assert_eq!(varint_turbo::delta::encode_slice(&[1005u64, 1006, 1306], &mut out, 1000), 4);
/// assert_eq!(out, [0xff, 0x05, 0x01, 0xac, 0x02]);
/// ```
#[cfg(feature = "alloc")]
pub fn encode_slice<T: DeltaInt>(values: &[T], out: &mut Vec<u8>, previous: T) -> usize {
    let start = out.len();
    for_gap_chunks(values, previous, |gaps| {
        bulk::encode_slice(gaps, out);
        true
    });
    out.len() - start
}

/// [`encode_slice`] without allocating: encodes the gaps of as many of
/// `values` as fit, whole, into `out`; returns (values encoded, bytes
/// written).
///
/// ```
/// let mut out = [0u8; 3];
/// // Gaps 5, 1, 300: the third takes 2 bytes and does not fit.
/// let encoded = varint_turbo::delta::encode_slice_into(&[1005u32, 1006, 1306], &mut out, 1000);
/// assert_eq!(encoded, (2, 2));
/// assert_eq!(out[..2], [0x05, 0x01]);
/// ```
pub fn encode_slice_into<T: DeltaInt>(values: &[T], out: &mut [u8], previous: T) -> (usize, usize) {
    encode_into_with(None, values, out, previous)
}

/// The delta functions on one bulk backend, for tests and benchmarks (the
/// functions of [`delta`](crate::delta) choose theirs).
impl Backend {
    /// [`delta::decode_slice`](decode_slice) with this backend's decoder
    /// (and, for [`Backend::Scalar`], the portable running sum).
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     let mut out = [0u32; 4];
    ///     assert_eq!(backend.decode_slice_delta(&[0x03, 0x8e, 0x02], &mut out, 7), Ok((2, 3)));
    ///     assert_eq!(out[..2], [10, 280]);
    /// }
    /// ```
    pub fn decode_slice_delta<T: DeltaInt>(
        self,
        input: &[u8],
        out: &mut [T],
        previous: T,
    ) -> Result<(usize, usize), BulkDecodeError> {
        self.assert_supported();
        decode_with(Source::On(self), input, out, previous)
    }

    /// [`delta::select`](select) with this backend's decoder.
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     assert_eq!(backend.select_delta(&[0x03, 0x8e, 0x02], 1, 7u64), Ok(280));
    /// }
    /// ```
    pub fn select_delta<T: DeltaInt>(
        self,
        input: &[u8],
        index: usize,
        previous: T,
    ) -> Result<T, BulkDecodeError> {
        self.assert_supported();
        select_with(Source::On(self), input, index, previous)
    }

    /// [`delta::search`](search) with this backend's decoder.
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     assert_eq!(backend.search_delta(&[0x03, 0x8e, 0x02], 11u32, 7), Ok(Some((1, 280))));
    /// }
    /// ```
    pub fn search_delta<T: DeltaInt>(
        self,
        input: &[u8],
        key: T,
        previous: T,
    ) -> Result<Option<(usize, T)>, BulkDecodeError> {
        self.assert_supported();
        search_with(Source::On(self), input, key, previous)
    }

    /// [`delta::encode_slice_into`](encode_slice_into) with this backend's
    /// encoder.
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     let mut out = [0u8; 3];
    ///     assert_eq!(backend.encode_slice_delta_into(&[10u32, 280], &mut out, 7), (2, 3));
    ///     assert_eq!(out, [0x03, 0x8e, 0x02]);
    /// }
    /// ```
    pub fn encode_slice_delta_into<T: DeltaInt>(
        self,
        values: &[T],
        out: &mut [u8],
        previous: T,
    ) -> (usize, usize) {
        self.assert_supported();
        encode_into_with(Some(self), values, out, previous)
    }

    fn assert_supported(self) {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
    }
}
