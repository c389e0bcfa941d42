//! The oracle of the `delta` module (tests/suite/delta.rs, tests/page_guard.rs
//! and the fuzz target `delta`, which includes this file through
//! `fuzz/src/lib.rs`): every bulk backend and the API against an
//! independent reference built here from repeated `reference_decode`s of
//! the gaps and a running sum in `u64`, truncated to `T`.

use std::fmt::Debug;

use super::differential::{bulk_backends, fuzzer_chosen_len, repeated_decode, BulkOutcome};
use super::*;
use varint_turbo::delta::{self, DeltaInt};
use varint_turbo::{Backend as BulkBackend, BulkDecodeError, DecodeError};

/// `u32` and `u64`, with the test-side conversions.
pub trait TestDelta: TestInt + DeltaInt + Debug {}
impl TestDelta for u32 {}
impl TestDelta for u64 {}

/// `previous` plus the running sums of `gaps`, wrapping in `T`: the
/// reference's values.
pub fn reference_sums<T: TestDelta>(gaps: &[T], previous: T) -> Vec<T> {
    let mut sum = previous.as_u64();
    gaps.iter()
        .map(|gap| {
            sum = sum.wrapping_add(gap.as_u64());
            T::from_u64_wrapping(sum)
        })
        .collect()
}

/// The gaps of `values` after `previous`, wrapping in `T`.
pub fn reference_gaps<T: TestDelta>(values: &[T], previous: T) -> Vec<T> {
    let mut before = previous.as_u64();
    values
        .iter()
        .map(|value| {
            let gap = value.as_u64().wrapping_sub(before);
            before = value.as_u64();
            T::from_u64_wrapping(gap)
        })
        .collect()
}

/// The reference's `delta::decode_slice` of `input` into `out_len` slots:
/// the values written and the outcome.
pub fn reference_decode_delta<T: TestDelta>(
    input: &[u8],
    out_len: usize,
    previous: T,
) -> (Vec<T>, BulkOutcome) {
    let (gaps, outcome) = repeated_decode(input, out_len, reference_decode::<T>);
    (reference_sums(&gaps, previous), outcome)
}

/// The reference's `delta::select`.
pub fn reference_select<T: TestDelta>(
    input: &[u8],
    index: usize,
    previous: T,
) -> Result<T, (DecodeError, usize, usize)> {
    let (values, outcome) = reference_decode_delta(input, index.saturating_add(1), previous);
    outcome?;
    values
        .get(index)
        .copied()
        .ok_or((DecodeError::Truncated, values.len(), input.len()))
}

/// The reference's `delta::search`.
pub fn reference_search<T: TestDelta>(
    input: &[u8],
    key: T,
    previous: T,
) -> Result<Option<(usize, T)>, (DecodeError, usize, usize)> {
    let (values, outcome) = reference_decode_delta(input, usize::MAX, previous);
    if let Some(found) = values.iter().position(|&value| value >= key) {
        return Ok(Some((found, values[found])));
    }
    outcome.map(|_| None)
}

/// A decode into the given slots, as the tests call it.
type DecodeInto<'a, T> = &'a dyn Fn(&mut [T]) -> Result<(usize, usize), BulkDecodeError>;

fn triple(error: BulkDecodeError) -> (DecodeError, usize, usize) {
    (error.kind(), error.index(), error.offset())
}

/// `delta::decode_slice`, `select` and `search` of `input` with
/// `previous` on every backend of `backends` and through the API, against
/// the reference: into `out_len` slots (values written, outcome), value
/// `index`, and the lower bound of `key`.
pub fn check_delta_decodes<T: TestDelta>(
    backends: &[BulkBackend],
    input: &[u8],
    out_len: usize,
    previous: T,
    index: usize,
    key: T,
) {
    let name = T::NAME;
    let (want_values, want) = reference_decode_delta(input, out_len, previous);
    let want_select = reference_select(input, index, previous);
    let want_search = reference_search(input, key, previous);
    let check = |what: &str,
                 decode: DecodeInto<T>,
                 select: &dyn Fn() -> Result<T, BulkDecodeError>,
                 search: &dyn Fn() -> Result<Option<(usize, T)>, BulkDecodeError>| {
        let mut out = vec![T::from_u64_wrapping(0x5a5a_5a5a_5a5a_5a5a); out_len];
        let got = decode(&mut out).map_err(triple);
        let context = || {
            format!(
                "{what}::<{name}> of {} after {previous:?}, out.len() = {out_len}",
                hex(input)
            )
        };
        assert_eq!(got, want, "decode_slice outcome: {}", context());
        assert_eq!(
            &out[..want_values.len()],
            &want_values[..],
            "decode_slice values: {}",
            context()
        );
        assert_eq!(
            select().map_err(triple),
            want_select,
            "select({index}): {}",
            context()
        );
        assert_eq!(
            search().map_err(triple),
            want_search,
            "search({key:?}): {}",
            context()
        );
    };
    for &backend in backends {
        check(
            &format!("{backend}"),
            &|out| backend.decode_slice_delta(input, out, previous),
            &|| backend.select_delta(input, index, previous),
            &|| backend.search_delta(input, key, previous),
        );
    }
    check(
        "delta",
        &|out| delta::decode_slice(input, out, previous),
        &|| delta::select(input, index, previous),
        &|| delta::search(input, key, previous),
    );
}

/// `delta::encode_slice` and `encode_slice_into` (into `room` bytes, on
/// every backend and through the API) of `values` after `previous`
/// against the reference bytes, which `delta::decode_slice` turns back
/// into `values`.
pub fn check_delta_encodes<T: TestDelta>(
    backends: &[BulkBackend],
    values: &[T],
    previous: T,
    room: usize,
) {
    let name = T::NAME;
    let mut expected = Vec::new();
    let lengths: Vec<usize> = reference_gaps(values, previous)
        .iter()
        .map(|gap| reference_encode_append(gap.as_u64(), &mut expected))
        .collect();
    let mut fit = (0, 0);
    for &len in &lengths {
        if fit.1 + len > room {
            break;
        }
        fit = (fit.0 + 1, fit.1 + len);
    }
    let mut appended = vec![0xa5];
    let written = delta::encode_slice(values, &mut appended, previous);
    assert_eq!(
        (written, &appended[1..]),
        (expected.len(), &expected[..]),
        "delta::encode_slice::<{name}> of {values:?} after {previous:?}"
    );
    let check_into = |what: &str, got: (usize, usize), out: &[u8]| {
        assert_eq!(got, fit, "{what}::<{name}> into {room} bytes");
        assert_eq!(
            &out[..fit.1],
            &expected[..fit.1],
            "{what}::<{name}> into {room} bytes"
        );
    };
    let mut out = vec![0xa5; room];
    let got = delta::encode_slice_into(values, &mut out, previous);
    check_into("delta::encode_slice_into", got, &out);
    for &backend in backends {
        let mut out = vec![0xa5; room];
        let got = backend.encode_slice_delta_into(values, &mut out, previous);
        check_into(&format!("{backend}: encode_slice_delta_into"), got, &out);
    }
    let mut decoded = vec![T::default(); values.len()];
    assert_eq!(
        delta::decode_slice(&expected, &mut decoded, previous),
        Ok((values.len(), expected.len())),
        "delta::decode_slice::<{name}> of the encoding"
    );
    assert_eq!(
        decoded, values,
        "delta::decode_slice::<{name}> of the encoding"
    );
}

/// Fuzz target `delta`. `data[0]` chooses `out.len()` and `data[1]` the
/// index for `select` (both [`fuzzer_chosen_len`] relative to the number
/// of terminating bytes), `data[2]` the key for `search` (below 0x80: the
/// reference's value at that index plus `data[2] % 3 - 1`, so that the
/// key is often in the list; from 0x80 on: `previous` plus bytes 11..19),
/// `data[3..11]` `previous` (little-endian, truncated to `u32` for the
/// `u32` checks), and the rest is the input: decode, select and search
/// on every backend and through the API, for `u32` and `u64`, against the
/// reference; then its values (the reference's sums where the input has
/// a valid prefix) re-encoded with `previous`, with `data[0]` choosing the
/// room of `encode_slice_into`.
pub fn delta(data: &[u8]) {
    let Some((&[out_control, index_control, key_control], rest)) = data.split_first_chunk::<3>()
    else {
        return;
    };
    let Some((previous, input)) = rest.split_first_chunk::<8>() else {
        return;
    };
    let previous = u64::from_le_bytes(*previous);
    let terminators = input.iter().filter(|&&byte| byte < 0x80).count();
    let out_len = fuzzer_chosen_len(out_control, terminators);
    let index = fuzzer_chosen_len(index_control, terminators);
    let case = Fuzzed {
        backends: bulk_backends(),
        input,
        out_len,
        previous,
        index,
        key_control,
        room_control: out_control,
    };
    case.check::<u32>();
    case.check::<u64>();
}

/// A fuzz input of [`delta`], read.
struct Fuzzed<'a> {
    backends: Vec<BulkBackend>,
    input: &'a [u8],
    out_len: usize,
    previous: u64,
    index: usize,
    key_control: u8,
    room_control: u8,
}

impl Fuzzed<'_> {
    fn check<T: TestDelta>(&self) {
        let Fuzzed {
            ref backends,
            input,
            out_len,
            previous,
            index,
            key_control,
            room_control,
        } = *self;
        let previous = T::from_u64_wrapping(previous);
        let (values, _) = reference_decode_delta(input, usize::MAX, previous);
        let key = if key_control < 0x80 {
            let at = values
                .get(index)
                .or(values.last())
                .copied()
                .unwrap_or(previous);
            T::from_u64_wrapping(
                at.as_u64()
                    .wrapping_add(u64::from(key_control % 3))
                    .wrapping_sub(1),
            )
        } else {
            let mut word = [0u8; 8];
            let n = input.len().min(8);
            word[..n].copy_from_slice(&input[..n]);
            T::from_u64_wrapping(previous.as_u64().wrapping_add(u64::from_le_bytes(word)))
        };
        check_delta_decodes::<T>(backends, input, out_len, previous, index, key);
        let needed: usize = reference_gaps(&values, previous)
            .iter()
            .map(|gap| reference_encode(gap.as_u64()).len())
            .sum();
        let room = fuzzer_chosen_len(room_control, needed);
        check_delta_encodes::<T>(backends, &values, previous, room);
    }
}
