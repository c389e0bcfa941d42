//! The differential oracle of the fuzz targets (`fuzz/fuzz_targets/*.rs`),
//! which include this file through `fuzz/src/lib.rs`, and of the tests that
//! replay the committed fuzz corpus and the crash regressions
//! (`tests/suite/fuzz_corpus.rs`). One function per fuzz target takes the raw
//! fuzzer bytes; everything it compares against is the independent
//! reference of `super` (`reference_decode`, `reference_encode`, ...).
//!
//! Any disagreement panics with the input, which libFuzzer reports as a
//! crash. Out-of-bounds reads are left to AddressSanitizer (cargo-fuzz
//! builds with it, and scripts/asan.sh runs the tests with it), so every
//! input the crate sees ends where its heap allocation ends: the fuzzer's
//! own buffer, an exactly-sized copy of each single-value case, or an
//! allocation of exactly 16 bytes for `decode_unchecked`.

use std::fmt::Debug;

use super::*;
use varint_turbo::{Backend as BulkBackend, BulkDecodeError};

/// How many values of a stream [`round_trip`] also runs through the
/// single-value encoders (they keep no state from one value to the next, so
/// the fuzzer can put any value first); the bulk encoders get every value.
const SINGLE_VALUE_ROUND_TRIPS: usize = 16;

/// The bulk backends this CPU supports: `Backend::ALL` filtered by
/// `is_supported()`. Scalar is always among them. Panics if the list
/// differs from what the CPU's raw CPUID calls for
/// ([`cpuid::required_bulk`]): no backend may be skipped silently.
pub fn bulk_backends() -> Vec<BulkBackend> {
    let backends: Vec<BulkBackend> = BulkBackend::ALL
        .into_iter()
        .filter(|backend| backend.is_supported())
        .collect();
    assert!(backends.contains(&BulkBackend::Scalar));
    assert_eq!(
        backends,
        cpuid::required_bulk(),
        "supported bulk backends differ from what this CPU's CPUID calls for \
         (tests/common/cpuid.rs)"
    );
    backends
}

/// A length the fuzzer picks with one control byte: below 0x80 the byte
/// itself (small outputs, cut-offs in the first windows); from 0x80 on,
/// `natural + 8` minus the byte's low 7 bits (room for everything, exactly
/// `natural`, or a little less). The seed corpus uses 0x80.
pub fn fuzzer_chosen_len(control: u8, natural: usize) -> usize {
    if control < 0x80 {
        usize::from(control)
    } else {
        (natural + 8).saturating_sub(usize::from(control - 0x80))
    }
}

// ---------------------------------------------------------------------------
// Fuzz target 1: single-value decode
// ---------------------------------------------------------------------------

/// The cases of a `decode_single` or `decode_unchecked` input: a length
/// byte, then that many bytes (fewer if the input ends first), repeated.
/// Each case gets a heap allocation of exactly its length, so that
/// AddressSanitizer catches a read one byte past it, as it would past the
/// end of the fuzzer's own buffer.
pub fn length_prefixed_cases(data: &[u8]) -> Vec<Box<[u8]>> {
    let mut cases = Vec::new();
    let mut rest = data;
    while let Some((&len, tail)) = rest.split_first() {
        let (case, after) = tail.split_at(usize::from(len).min(tail.len()));
        cases.push(Box::from(case));
        rest = after;
    }
    cases
}

/// Fuzz target `decode_single`: every case of `data`
/// ([`length_prefixed_cases`]), decoded into every unsigned type and through
/// zigzag into every signed type, by every single-value backend this CPU
/// has and by the top-level API (`decode`, `decode_len`, `decode_zigzag`),
/// must equal the reference: value, bytes consumed, error kind.
pub fn decode_single(data: &[u8]) {
    let backends = backends();
    for case in length_prefixed_cases(data) {
        for_each_unsigned!(check_decode(&backends, &case));
        for_each_signed!(check_decode_zigzag(&backends, &case));
    }
}

// ---------------------------------------------------------------------------
// Fuzz target 4: decode_unchecked
// ---------------------------------------------------------------------------

/// Fuzz target `decode_unchecked`: every case of `data`
/// ([`length_prefixed_cases`]; bytes past 16 ignored), padded to 16 bytes
/// with 0x00 and with 0xff, in a heap allocation of exactly 16 bytes as the
/// `# Safety` section of `decode_unchecked` requires, through every backend
/// and every type: the length is within `1..=MAX_LEN`, and value and length
/// equal the safe decode's whenever that succeeds.
pub fn decode_unchecked(data: &[u8]) {
    let backends = backends();
    for case in length_prefixed_cases(data) {
        for fill in [0x00, 0xff] {
            let window: Box<[u8; 16]> = Box::new(padded(&case, fill));
            for_each_unsigned!(check_decode_unchecked(&backends, &window));
        }
    }
}

// ---------------------------------------------------------------------------
// Fuzz target 2: bulk decode
// ---------------------------------------------------------------------------

/// What a bulk decode returns, with the error as (kind, index, offset).
pub type BulkOutcome = Result<(usize, usize), (DecodeError, usize, usize)>;

/// The bulk decode of `input` into `out_len` slots as repeated single-value
/// decodes with `decode_one`: the values written and the outcome.
pub fn repeated_decode<V>(
    input: &[u8],
    out_len: usize,
    decode_one: impl Fn(&[u8]) -> Result<(V, usize), DecodeError>,
) -> (Vec<V>, BulkOutcome) {
    let mut values = Vec::new();
    let mut pos = 0;
    while values.len() < out_len && pos < input.len() {
        match decode_one(&input[pos..]) {
            Ok((value, len)) => {
                values.push(value);
                pos += len;
            }
            Err(kind) => {
                let index = values.len();
                return (values, Err((kind, index, pos)));
            }
        }
    }
    let n = values.len();
    (values, Ok((n, pos)))
}

/// `got` (and the values in `out`) equal `expected`: same counts or the
/// same error kind, index and offset, and every value before the end or the
/// error written.
pub fn check_bulk_outcome<V: PartialEq + Debug>(
    what: &str,
    input: &[u8],
    out_len: usize,
    expected: &(Vec<V>, BulkOutcome),
    got: Result<(usize, usize), BulkDecodeError>,
    out: &[V],
) {
    let (want_values, want) = expected;
    let got = got.map_err(|error| (error.kind(), error.index(), error.offset()));
    assert_eq!(
        got,
        *want,
        "{what}: outcome for input {} with out.len() = {out_len}",
        hex(input)
    );
    assert_eq!(
        &out[..want_values.len()],
        &want_values[..],
        "{what}: values written for input {} with out.len() = {out_len}",
        hex(input)
    );
}

/// Fuzz target `decode_bulk`: `data[0]` chooses `out.len()` (see
/// [`fuzzer_chosen_len`], relative to the number of terminating bytes), the
/// rest is the input. `decode_slice` on every bulk backend and through the
/// API, and `decode_all`, into every unsigned type, and
/// `decode_slice_zigzag`/`decode_all_zigzag` into every signed type, must
/// equal repeated single-value decodes.
pub fn decode_bulk(data: &[u8]) {
    let Some((&control, input)) = data.split_first() else {
        return;
    };
    let terminators = input.iter().filter(|&&byte| byte < 0x80).count();
    let out_len = fuzzer_chosen_len(control, terminators);
    let backends = bulk_backends();
    for_each_unsigned!(check_decode_slice(&backends, input, out_len));
    for_each_signed!(check_decode_slice_zigzag(input, out_len));
}

/// `decode_slice::<T>` into `out_len` slots on every backend in `backends`
/// and through the API, and `decode_all::<T>`, against repeated decodes
/// (the reference's, which must also equal repeated `varint_turbo::decode`).
pub fn check_decode_slice<T: TestInt>(backends: &[BulkBackend], input: &[u8], out_len: usize) {
    let expected = repeated_decode(input, out_len, reference_decode::<T>);
    assert_eq!(
        repeated_decode(input, out_len, varint_turbo::decode::<T>),
        expected,
        "repeated decode::<{}> vs the reference on {}",
        T::NAME,
        hex(input)
    );
    for &backend in backends {
        let mut out = vec![T::default(); out_len];
        let got = backend.decode_slice(input, &mut out);
        let what = format!("{backend}: decode_slice::<{}>", T::NAME);
        check_bulk_outcome(&what, input, out_len, &expected, got, &out);
    }
    let mut out = vec![T::default(); out_len];
    let got = varint_turbo::decode_slice(input, &mut out);
    let what = format!("decode_slice::<{}>", T::NAME);
    check_bulk_outcome(&what, input, out_len, &expected, got, &out);

    let everything = repeated_decode(input, usize::MAX, reference_decode::<T>);
    let what = format!("decode_all::<{}>", T::NAME);
    check_decode_all(
        &what,
        input,
        everything,
        varint_turbo::decode_all::<T>(input),
    );
}

/// `decode_slice_zigzag::<S>` into `out_len` slots and
/// `decode_all_zigzag::<S>` against repeated reference decodes.
pub fn check_decode_slice_zigzag<S: TestSigned>(input: &[u8], out_len: usize) {
    let expected = repeated_decode(input, out_len, reference_decode_zigzag::<S>);
    let mut out = vec![S::default(); out_len];
    let got = varint_turbo::decode_slice_zigzag(input, &mut out);
    let what = format!("decode_slice_zigzag::<{}>", S::NAME);
    check_bulk_outcome(&what, input, out_len, &expected, got, &out);

    let everything = repeated_decode(input, usize::MAX, reference_decode_zigzag::<S>);
    let what = format!("decode_all_zigzag::<{}>", S::NAME);
    check_decode_all(
        &what,
        input,
        everything,
        varint_turbo::decode_all_zigzag::<S>(input),
    );
}

/// A `decode_all` result equals the unlimited repeated decode: all of its
/// values, or its error (kind, index, offset).
fn check_decode_all<V: PartialEq + Debug>(
    what: &str,
    input: &[u8],
    (values, outcome): (Vec<V>, BulkOutcome),
    got: Result<Vec<V>, BulkDecodeError>,
) {
    let want = outcome.map(|_| values);
    let got = got.map_err(|error| (error.kind(), error.index(), error.offset()));
    assert_eq!(got, want, "{what} of {}", hex(input));
}

// ---------------------------------------------------------------------------
// Fuzz target 3: encode -> decode round trips
// ---------------------------------------------------------------------------

/// The values a fuzz input stands for: its varints, read by the reference
/// as `u64`; where no valid varint starts, the next (up to) 8 bytes as a
/// little-endian `u64`, so that the fuzzer reaches every value directly.
pub fn values_from_stream(stream: &[u8]) -> Vec<u64> {
    let mut values = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        match reference_decode::<u64>(rest) {
            Ok((value, len)) => {
                values.push(value);
                rest = &rest[len..];
            }
            Err(_) => {
                let n = rest.len().min(8);
                let mut word = [0u8; 8];
                word[..n].copy_from_slice(&rest[..n]);
                values.push(u64::from_le_bytes(word));
                rest = &rest[n..];
            }
        }
    }
    values
}

/// Fuzz target `round_trip`: `data[0]` chooses the output room of
/// `encode_slice_into` (see [`fuzzer_chosen_len`], relative to the bytes
/// needed), the rest gives the values ([`values_from_stream`]). For every
/// unsigned type (values truncated to its width) and every signed type
/// (reinterpreted, zigzag):
/// * single values (the first `SINGLE_VALUE_ROUND_TRIPS`): `encode`,
///   `encode_to_slice`, `encoded_len` on every backend equal the reference
///   encoding and decode back;
/// * bulk: `encode_slice`, `encode_slice_into` on every backend and the API
///   with the chosen room, `encoded_len_sum` and `count_varints` on every
///   backend and the API agree with the reference bytes, which `decode_all`
///   turns back into the values.
pub fn round_trip(data: &[u8]) {
    let Some((&control, stream)) = data.split_first() else {
        return;
    };
    let values = values_from_stream(stream);
    let single = backends();
    for &value in values.iter().take(SINGLE_VALUE_ROUND_TRIPS) {
        for_each_unsigned!(check_encode_wrapping(&single, value));
        for_each_signed!(check_encode_zigzag_wrapping(&single, value));
    }
    let bulk = bulk_backends();
    for_each_unsigned!(check_encode_slices_wrapping(&bulk, &values, control));
    for_each_signed!(check_encode_slice_zigzag_wrapping(&values, control));
}

fn check_encode_wrapping<T: TestInt>(backends: &[Backend], value: u64) {
    check_encode::<T>(backends, T::from_u64_wrapping(value));
}

fn check_encode_zigzag_wrapping<S: TestSigned>(backends: &[Backend], value: u64) {
    check_encode_zigzag::<S>(backends, S::from_i64_wrapping(value as i64));
}

fn check_encode_slices_wrapping<T: TestInt>(backends: &[BulkBackend], values: &[u64], control: u8) {
    let values: Vec<T> = values.iter().map(|&v| T::from_u64_wrapping(v)).collect();
    check_encode_slices(backends, &values, control);
}

/// The bulk encoders and sizes on `values` (see [`round_trip`]); `control`
/// chooses the room given to `encode_slice_into`.
pub fn check_encode_slices<T: TestInt>(backends: &[BulkBackend], values: &[T], control: u8) {
    let mut expected = Vec::new();
    let lengths: Vec<usize> = values
        .iter()
        .map(|v| reference_encode_append(v.as_u64(), &mut expected))
        .collect();
    let room = fuzzer_chosen_len(control, expected.len());
    // Values that fit whole into `room` bytes, and their bytes.
    let mut fit = (0, 0);
    for &len in &lengths {
        if fit.1 + len > room {
            break;
        }
        fit = (fit.0 + 1, fit.1 + len);
    }
    let name = T::NAME;

    let mut appended = vec![0xa5];
    let written = varint_turbo::encode_slice(values, &mut appended);
    assert_eq!(
        written,
        expected.len(),
        "encode_slice::<{name}> bytes written"
    );
    assert_eq!(&appended[1..], &expected[..], "encode_slice::<{name}>");
    let mut out = vec![0xa5; room];
    let got = varint_turbo::encode_slice_into(values, &mut out);
    assert_eq!(got, fit, "encode_slice_into::<{name}> into {room} bytes");
    assert_eq!(
        &out[..fit.1],
        &expected[..fit.1],
        "encode_slice_into::<{name}>"
    );
    assert_eq!(varint_turbo::encoded_len_sum(values), expected.len());
    assert_eq!(varint_turbo::count_varints(&expected), values.len());
    for &backend in backends {
        let mut out = vec![0xa5; room];
        let got = backend.encode_slice_into(values, &mut out);
        assert_eq!(
            got, fit,
            "{backend}: encode_slice_into::<{name}> into {room} bytes"
        );
        assert_eq!(
            &out[..fit.1],
            &expected[..fit.1],
            "{backend}: encode_slice_into::<{name}> into {room} bytes"
        );
        assert_eq!(
            backend.encoded_len_sum(values),
            expected.len(),
            "{backend}: encoded_len_sum::<{name}>"
        );
        assert_eq!(
            backend.count_varints(&expected),
            values.len(),
            "{backend}: count_varints of {} {name} values",
            values.len()
        );
    }
    assert_eq!(
        varint_turbo::decode_all::<T>(&expected).as_deref(),
        Ok(values),
        "decode_all::<{name}> of the encoding"
    );
}

fn check_encode_slice_zigzag_wrapping<S: TestSigned>(values: &[u64], control: u8) {
    let values: Vec<S> = values
        .iter()
        .map(|&v| S::from_i64_wrapping(v as i64))
        .collect();
    let mut expected = Vec::new();
    for &value in &values {
        reference_encode_append(reference_zigzag_encode(value).as_u64(), &mut expected);
    }
    let mut appended = vec![0xa5; usize::from(control)];
    let written = varint_turbo::encode_slice_zigzag(&values, &mut appended);
    assert_eq!(
        written,
        expected.len(),
        "encode_slice_zigzag::<{}>",
        S::NAME
    );
    assert_eq!(&appended[usize::from(control)..], &expected[..]);
    assert_eq!(
        varint_turbo::decode_all_zigzag::<S>(&expected).as_deref(),
        Ok(&values[..]),
        "decode_all_zigzag::<{}> of the encoding",
        S::NAME
    );
}

// ---------------------------------------------------------------------------
// Fuzz target 6: SliceReader
// ---------------------------------------------------------------------------

/// Fuzz target `slice_reader`: `data[0]` seeds the choice of reads, the
/// rest (copied into an allocation of exactly its length) is the input;
/// see [`check_slice_reader_walk`].
pub fn slice_reader(data: &[u8]) {
    let Some((&seed, input)) = data.split_first() else {
        return;
    };
    let input: Box<[u8]> = Box::from(input);
    check_slice_reader_walk(&input, u64::from(seed));
}

/// Walks `input` with a `SliceReader`, each step a read chosen by a
/// generator seeded with `seed` (`read`, `read_wrapping`, `read_zigzag`,
/// `read_zigzag_wrapping` into every type, `read_bytes`), until the input
/// is read: every read must return what `decode`, `decode_wrapping`,
/// `decode_zigzag`, `decode_zigzag_wrapping` return on the remaining
/// slice (or what slicing returns), move the position by the varint's
/// length, or not at all on an error; `remaining`, `is_empty` and a clone
/// must agree after every read. After an error the walk skips one byte.
pub fn check_slice_reader_walk(input: &[u8], seed: u64) {
    use varint_turbo::SliceReader;

    /// One read through the reader against `decode` on the remaining bytes.
    fn step<V: PartialEq + Debug>(
        reader: &mut SliceReader<'_>,
        input: &[u8],
        what: &str,
        read: impl FnOnce(&mut SliceReader<'_>) -> Result<V, DecodeError>,
        decode: impl FnOnce(&[u8]) -> Result<(V, usize), DecodeError>,
    ) -> bool {
        let pos = reader.position();
        let want = decode(&input[pos..]);
        let got = read(reader);
        let moved = reader.position() - pos;
        assert_eq!(
            (got.as_ref().map_err(|e| *e), moved),
            match &want {
                Ok((value, len)) => (Ok(value), *len),
                Err(error) => (Err(*error), 0),
            },
            "SliceReader::{what} at position {pos} of {}",
            hex(input)
        );
        want.is_ok()
    }

    let mut next = super::xorshift(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut reader = SliceReader::new(input);
    // Every byte ends at most one read, and an error skips one byte: at
    // most two reads per byte, then one at the end.
    for _ in 0..=2 * input.len() {
        let pos = reader.position();
        assert_eq!(reader.remaining(), &input[pos..]);
        assert_eq!(reader.is_empty(), pos == input.len());
        let copy = reader.clone();
        assert_eq!((copy.position(), copy.remaining()), (pos, &input[pos..]));
        let r = &mut reader;
        let ok = match next() % 21 {
            0 => step(
                r,
                input,
                "read::<u8>",
                |r| r.read::<u8>(),
                varint_turbo::decode::<u8>,
            ),
            1 => step(
                r,
                input,
                "read::<u16>",
                |r| r.read::<u16>(),
                varint_turbo::decode::<u16>,
            ),
            2 => step(
                r,
                input,
                "read::<u32>",
                |r| r.read::<u32>(),
                varint_turbo::decode::<u32>,
            ),
            3 => step(
                r,
                input,
                "read::<u64>",
                |r| r.read::<u64>(),
                varint_turbo::decode::<u64>,
            ),
            4 => step(
                r,
                input,
                "read::<usize>",
                |r| r.read::<usize>(),
                varint_turbo::decode::<usize>,
            ),
            5 => step(
                r,
                input,
                "read_wrapping::<u8>",
                |r| r.read_wrapping::<u8>(),
                varint_turbo::decode_wrapping::<u8>,
            ),
            6 => step(
                r,
                input,
                "read_wrapping::<u16>",
                |r| r.read_wrapping::<u16>(),
                varint_turbo::decode_wrapping::<u16>,
            ),
            7 => step(
                r,
                input,
                "read_wrapping::<u32>",
                |r| r.read_wrapping::<u32>(),
                varint_turbo::decode_wrapping::<u32>,
            ),
            8 => step(
                r,
                input,
                "read_wrapping::<u64>",
                |r| r.read_wrapping::<u64>(),
                varint_turbo::decode_wrapping::<u64>,
            ),
            9 => step(
                r,
                input,
                "read_wrapping::<usize>",
                |r| r.read_wrapping::<usize>(),
                varint_turbo::decode_wrapping::<usize>,
            ),
            10 => step(
                r,
                input,
                "read_zigzag::<i8>",
                |r| r.read_zigzag::<i8>(),
                varint_turbo::decode_zigzag::<i8>,
            ),
            11 => step(
                r,
                input,
                "read_zigzag::<i16>",
                |r| r.read_zigzag::<i16>(),
                varint_turbo::decode_zigzag::<i16>,
            ),
            12 => step(
                r,
                input,
                "read_zigzag::<i32>",
                |r| r.read_zigzag::<i32>(),
                varint_turbo::decode_zigzag::<i32>,
            ),
            13 => step(
                r,
                input,
                "read_zigzag::<i64>",
                |r| r.read_zigzag::<i64>(),
                varint_turbo::decode_zigzag::<i64>,
            ),
            14 => step(
                r,
                input,
                "read_zigzag::<isize>",
                |r| r.read_zigzag::<isize>(),
                varint_turbo::decode_zigzag::<isize>,
            ),
            15 => step(
                r,
                input,
                "read_zigzag_wrapping::<i8>",
                |r| r.read_zigzag_wrapping::<i8>(),
                varint_turbo::decode_zigzag_wrapping::<i8>,
            ),
            16 => step(
                r,
                input,
                "read_zigzag_wrapping::<i16>",
                |r| r.read_zigzag_wrapping::<i16>(),
                varint_turbo::decode_zigzag_wrapping::<i16>,
            ),
            17 => step(
                r,
                input,
                "read_zigzag_wrapping::<i32>",
                |r| r.read_zigzag_wrapping::<i32>(),
                varint_turbo::decode_zigzag_wrapping::<i32>,
            ),
            18 => step(
                r,
                input,
                "read_zigzag_wrapping::<i64>",
                |r| r.read_zigzag_wrapping::<i64>(),
                varint_turbo::decode_zigzag_wrapping::<i64>,
            ),
            19 => step(
                r,
                input,
                "read_zigzag_wrapping::<isize>",
                |r| r.read_zigzag_wrapping::<isize>(),
                varint_turbo::decode_zigzag_wrapping::<isize>,
            ),
            _ => {
                // 0..=3 bytes, sometimes more than remain.
                let len = (next() % 4) as usize;
                step(
                    r,
                    input,
                    "read_bytes",
                    |r| r.read_bytes(len).map(<[u8]>::to_vec),
                    |rest| {
                        rest.get(..len)
                            .map(|bytes| (bytes.to_vec(), len))
                            .ok_or(DecodeError::Truncated)
                    },
                )
            }
        };
        if reader.is_empty() {
            // And the read at the end.
            assert_eq!(reader.read::<u64>(), Err(DecodeError::Truncated));
            assert_eq!(reader.read_wrapping::<u8>(), Err(DecodeError::Truncated));
            assert_eq!(reader.position(), input.len());
            return;
        }
        if !ok {
            assert_eq!(reader.read_bytes(1).map(<[u8]>::len), Ok(1));
        }
    }
    panic!("SliceReader: the walk of {} did not end", hex(input));
}
