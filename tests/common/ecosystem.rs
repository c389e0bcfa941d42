//! The oracle of fuzz target `ecosystem` (`fuzz/fuzz_targets/ecosystem.rs`)
//! and of the tests that replay its corpus (`tests/suite/fuzz_corpus.rs`) or feed
//! it arbitrary bytes (`tests/suite/robustness.rs`): the modules built on the
//! single-value and bulk APIs, checked against those APIs (themselves
//! checked against the reference by the other targets) and against the
//! reference where one is at hand.
//!
//! * `bytes_ext` (feature `bytes`): `get_varint`/`get_varint_zigzag` over a
//!   chunked `Buf` equal `decode`/`decode_zigzag` at the same position, and
//!   `get_varints` equals repeated decodes (values, error kind, index,
//!   offset), whatever the chunk size; `put_varint*` write the encodings.
//! * `io`: `read_varint*` on a reader that hands out a few bytes per call,
//!   and `read_varint_buffered*` through a small `BufReader`, equal
//!   `decode` (value; error kind mapped to `io::ErrorKind`);
//!   `write_varint*` write the encodings.
//! * `protobuf`: per scalar module, `decode_packed` equals repeated
//!   `decode` (and reserves at most one element per byte), `decode` agrees
//!   with `decode::<u64>` on length and outcome, `FieldKey::decode` and
//!   `decode_length_delimited` never panic and stay inside the input, and
//!   `encode_packed` -> `decode_length_delimited` -> `decode_packed` gives
//!   the values back with the sizes the size functions promise.
//! * `avro`: `decode_long_array` on arbitrary bytes equals a block-by-block
//!   reference built on `decode_long` (values and consumed length; both fail
//!   or neither), keeps at most one item per input byte, and the three
//!   encoders round-trip through it; `decode_int`/`decode_long` equal
//!   `decode_zigzag`.
//! * `encode_slice_zigzag_into` with a fuzzer-chosen room writes exactly the
//!   values that fit whole, with the reference's bytes.
//!
//! Input layout: `data[0]` chooses the chunk size of the `Buf` and the
//! readers (1..=32 bytes), `data[1]` the bulk output length and the room of
//! `encode_slice_zigzag_into` ([`fuzzer_chosen_len`]); the rest is the
//! byte stream, also read as values by [`values_from_stream`].

use std::io::{self, BufReader, Read};

use super::differential::{
    check_bulk_outcome, fuzzer_chosen_len, repeated_decode, values_from_stream,
};
use super::*;
use varint_turbo::{avro, protobuf, BufReadVarint, ReadVarint, WriteVarint};

/// How many values of the stream go through the single-value encoders.
const ROUND_TRIP_VALUES: usize = 16;

/// Fuzz target `ecosystem`: see the module documentation.
pub fn ecosystem(data: &[u8]) {
    let (step, control, stream) = match data {
        [step, control, stream @ ..] => (usize::from(step % 32) + 1, *control, stream),
        _ => return,
    };
    let values = values_from_stream(stream);

    #[cfg(feature = "bytes")]
    {
        for_each_unsigned!(check_buf_decode(stream, step));
        for_each_signed!(check_buf_decode_zigzag(stream, step));
        let out_len = fuzzer_chosen_len(control, varint_turbo::count_varints(stream));
        for_each_unsigned!(check_buf_get_varints(stream, step, out_len));
        for_each_unsigned!(check_buf_put(&values));
    }

    for_each_unsigned!(check_read(stream, step));
    for_each_signed!(check_read_zigzag(stream, step));
    for_each_unsigned!(check_write(&values));

    check_protobuf(stream, &values);
    check_avro(stream, &values);
    for_each_signed!(check_encode_slice_zigzag_into(&values, control));
}

// ---------------------------------------------------------------------------
// bytes_ext
// ---------------------------------------------------------------------------

/// A `Buf` over `data` whose chunks end at every multiple of `step`, so
/// that varints straddle chunk seams wherever the fuzzer likes.
#[cfg(feature = "bytes")]
struct Chunked<'a> {
    data: &'a [u8],
    pos: usize,
    step: usize,
}

#[cfg(feature = "bytes")]
impl<'a> Chunked<'a> {
    fn new(data: &'a [u8], step: usize) -> Self {
        Self { data, pos: 0, step }
    }
}

#[cfg(feature = "bytes")]
impl bytes::Buf for Chunked<'_> {
    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn chunk(&self) -> &[u8] {
        let end = ((self.pos / self.step + 1) * self.step).min(self.data.len());
        &self.data[self.pos..end]
    }

    fn advance(&mut self, cnt: usize) {
        assert!(cnt <= self.remaining(), "advance({cnt}) past the end");
        self.pos += cnt;
    }
}

/// `get_varint::<T>` repeatedly over a chunked `Buf` equals `decode::<T>`
/// at the same position (value, bytes consumed, error kind).
#[cfg(feature = "bytes")]
fn check_buf_decode<T: TestInt>(stream: &[u8], step: usize) {
    use varint_turbo::BufVarint;
    let mut buf = Chunked::new(stream, step);
    let mut pos = 0;
    while pos < stream.len() {
        let want = varint_turbo::decode::<T>(&stream[pos..]);
        let got = buf.get_varint::<T>();
        assert_eq!(
            got,
            want.map(|(value, _)| value),
            "get_varint::<{}> at {pos} of {} (chunks of {step})",
            T::NAME,
            hex(stream)
        );
        let Ok((_, len)) = want else { return };
        pos += len;
        assert_eq!(buf.pos, pos, "get_varint::<{}> advanced wrong", T::NAME);
    }
    assert_eq!(
        buf.get_varint::<T>(),
        Err(DecodeError::Truncated),
        "empty Buf"
    );
}

#[cfg(feature = "bytes")]
fn check_buf_decode_zigzag<S: TestSigned>(stream: &[u8], step: usize) {
    use varint_turbo::BufVarint;
    let mut buf = Chunked::new(stream, step);
    let mut pos = 0;
    while pos < stream.len() {
        let want = varint_turbo::decode_zigzag::<S>(&stream[pos..]);
        let got = buf.get_varint_zigzag::<S>();
        assert_eq!(
            got,
            want.map(|(value, _)| value),
            "get_varint_zigzag::<{}> at {pos} of {} (chunks of {step})",
            S::NAME,
            hex(stream)
        );
        let Ok((_, len)) = want else { return };
        pos += len;
        assert_eq!(buf.pos, pos);
    }
}

/// `get_varints::<T>` into `out_len` slots equals repeated decodes; on
/// success the `Buf` is advanced past exactly the values read.
#[cfg(feature = "bytes")]
fn check_buf_get_varints<T: TestInt>(stream: &[u8], step: usize, out_len: usize) {
    use varint_turbo::BufVarint;
    let expected = repeated_decode(stream, out_len, varint_turbo::decode::<T>);
    let mut buf = Chunked::new(stream, step);
    let mut out = vec![T::from_u64_wrapping(0xa5); out_len];
    let got = buf.get_varints(&mut out);
    let consumed = buf.pos;
    check_bulk_outcome(
        &format!("get_varints::<{}> (chunks of {step})", T::NAME),
        stream,
        out_len,
        &expected,
        got.map(|n| (n, consumed)),
        &out,
    );
}

/// `put_varint`, `put_varint_zigzag` and `put_varints` append the
/// reference encodings.
#[cfg(feature = "bytes")]
fn check_buf_put<T: TestInt>(values: &[u64]) {
    use varint_turbo::BufMutVarint;
    let values: Vec<T> = values.iter().map(|&v| T::from_u64_wrapping(v)).collect();
    let mut expected = Vec::new();
    for &value in &values {
        reference_encode_append(value.as_u64(), &mut expected);
    }
    let mut out = bytes::BytesMut::new();
    assert_eq!(out.put_varints(&values), expected.len());
    assert_eq!(&out[..], &expected[..], "put_varints::<{}>", T::NAME);
    for &value in values.iter().take(ROUND_TRIP_VALUES) {
        let mut out = Vec::new();
        let len = out.put_varint(value);
        assert_eq!(
            out,
            reference_encode(value.as_u64()),
            "put_varint({value:?})"
        );
        assert_eq!(len, out.len());
        let signed = value.as_u64() as i64;
        let mut out = Vec::new();
        out.put_varint_zigzag(signed);
        assert_eq!(
            out,
            reference_encode(reference_zigzag_encode(signed).as_u64()),
            "put_varint_zigzag({signed})"
        );
    }
}

// ---------------------------------------------------------------------------
// io
// ---------------------------------------------------------------------------

/// A reader that hands out at most `step` bytes per `read`, and every other
/// call an `Interrupted` error (which the crate must retry).
struct Trickle<'a> {
    data: &'a [u8],
    pos: usize,
    step: usize,
    interrupt: bool,
}

impl<'a> Trickle<'a> {
    fn new(data: &'a [u8], step: usize) -> Self {
        Self {
            data,
            pos: 0,
            step,
            interrupt: false,
        }
    }
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.step).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// What an io read of one varint must return, from `decode`'s result.
fn io_outcome<V: PartialEq + Debug>(result: Result<V, DecodeError>) -> Result<V, io::ErrorKind> {
    result.map_err(|error| match error {
        DecodeError::Truncated => io::ErrorKind::UnexpectedEof,
        DecodeError::Overflow => io::ErrorKind::InvalidData,
        other => panic!("no io mapping known for {other:?}"),
    })
}

/// `read_varint::<T>` (on a trickling reader; it consumes exactly the
/// varint) and `read_varint_buffered::<T>` (through a `BufReader` of `step`
/// bytes, and on the plain slice) repeatedly equal `decode::<T>`.
fn check_read<T: TestInt>(stream: &[u8], step: usize) {
    let mut reader = Trickle::new(stream, step);
    let mut buffered = BufReader::with_capacity(step, Trickle::new(stream, step));
    let mut slice = stream;
    let mut pos = 0;
    loop {
        let decoded = varint_turbo::decode::<T>(&stream[pos..]);
        let want = io_outcome(decoded.map(|(value, _)| value));
        let at = pos;
        let what = |api: &str| {
            format!(
                "{api}::<{}> at {at} of {} (step {step})",
                T::NAME,
                hex(stream)
            )
        };
        assert_eq!(
            reader.read_varint::<T>().map_err(|e| e.kind()),
            want,
            "{}",
            what("read_varint")
        );
        assert_eq!(
            buffered.read_varint_buffered::<T>().map_err(|e| e.kind()),
            want,
            "{}",
            what("BufReader::read_varint_buffered")
        );
        assert_eq!(
            slice.read_varint_buffered::<T>().map_err(|e| e.kind()),
            want,
            "{}",
            what("<&[u8]>::read_varint_buffered")
        );
        let Ok((_, len)) = decoded else { return };
        pos += len;
        assert_eq!(reader.pos, pos, "{}: consumed", what("read_varint"));
        assert_eq!(
            slice.len(),
            stream.len() - pos,
            "{}: consumed",
            what("<&[u8]>::read_varint_buffered")
        );
    }
}

fn check_read_zigzag<S: TestSigned>(stream: &[u8], step: usize) {
    let mut reader = Trickle::new(stream, step);
    let mut buffered = BufReader::with_capacity(step, Trickle::new(stream, step));
    let mut pos = 0;
    loop {
        let decoded = varint_turbo::decode_zigzag::<S>(&stream[pos..]);
        let want = io_outcome(decoded.map(|(value, _)| value));
        assert_eq!(
            reader.read_varint_zigzag::<S>().map_err(|e| e.kind()),
            want,
            "read_varint_zigzag::<{}> at {pos} of {}",
            S::NAME,
            hex(stream)
        );
        assert_eq!(
            buffered
                .read_varint_zigzag_buffered::<S>()
                .map_err(|e| e.kind()),
            want,
            "read_varint_zigzag_buffered::<{}> at {pos} of {}",
            S::NAME,
            hex(stream)
        );
        let Ok((_, len)) = decoded else { return };
        pos += len;
    }
}

/// `write_varint` and `write_varint_zigzag` write the reference encodings.
fn check_write<T: TestInt>(values: &[u64]) {
    for &value in values.iter().take(ROUND_TRIP_VALUES) {
        let value = T::from_u64_wrapping(value);
        let mut out = Vec::new();
        let len = out.write_varint(value).expect("Vec never fails");
        assert_eq!(
            out,
            reference_encode(value.as_u64()),
            "write_varint({value:?})"
        );
        assert_eq!(len, out.len());
        let signed = value.as_u64() as i64;
        let mut out = Vec::new();
        out.write_varint_zigzag(signed).expect("Vec never fails");
        assert_eq!(
            out,
            reference_encode(reference_zigzag_encode(signed).as_u64())
        );
    }
    // And back through a reader.
    let mut stream = Vec::new();
    for &value in values {
        stream
            .write_varint(T::from_u64_wrapping(value))
            .expect("Vec never fails");
    }
    let mut reader = &stream[..];
    for &value in values {
        assert_eq!(
            reader.read_varint::<T>().ok(),
            Some(T::from_u64_wrapping(value))
        );
    }
    assert!(reader.is_empty(), "read_varint left bytes of the stream");
}

// ---------------------------------------------------------------------------
// protobuf
// ---------------------------------------------------------------------------

/// The checks of one protobuf scalar module (`$module`, element type `$t`,
/// fuzzer values converted with `$from`).
macro_rules! check_protobuf_module {
    ($stream:expr, $values:expr, $module:ident, $t:ty, $from:expr) => {{
        let stream: &[u8] = $stream;
        let name = stringify!($module);
        // decode agrees with decode::<u64> on length and outcome.
        let decoded = protobuf::$module::decode(stream);
        assert_eq!(
            decoded.map(|(_, len)| len),
            varint_turbo::decode::<u64>(stream).map(|(_, len)| len),
            "{name}::decode of {}",
            hex(stream)
        );
        // decode_packed equals repeated decode, appending and reserving at
        // most one element per byte.
        let expected = repeated_decode(stream, usize::MAX, protobuf::$module::decode);
        let mut out: Vec<$t> = Vec::new();
        let got = protobuf::$module::decode_packed(stream, &mut out);
        assert!(
            out.capacity() <= stream.len().max(8),
            "{name}::decode_packed reserved {} for {} bytes",
            out.capacity(),
            stream.len()
        );
        assert_eq!(
            out.len(),
            expected.0.len(),
            "{name}::decode_packed: elements kept"
        );
        check_bulk_outcome(
            &format!("{name}::decode_packed"),
            stream,
            usize::MAX,
            &expected,
            got.map(|n| (n, stream.len())),
            &out,
        );
        assert_eq!(
            protobuf::$module::count_packed(stream),
            varint_turbo::count_varints(stream)
        );
        // Round trips.
        let from: fn(u64) -> $t = $from;
        let values: Vec<$t> = $values.iter().map(|&v| from(v)).collect();
        for &value in values.iter().take(ROUND_TRIP_VALUES) {
            let (bytes, len) = protobuf::$module::encode(value);
            let bytes = &bytes[..usize::from(len)];
            assert_eq!(
                protobuf::$module::encoded_len(value),
                bytes.len(),
                "{name}::encoded_len({value:?})"
            );
            assert_eq!(
                protobuf::$module::decode(bytes),
                Ok((value, bytes.len())),
                "{name}: {value:?}"
            );
        }
        let mut field = vec![0xa5];
        let written = protobuf::$module::encode_packed(&values, &mut field);
        assert_eq!(written, field.len() - 1);
        let (payload, used) =
            protobuf::decode_length_delimited(&field[1..]).expect("encode_packed output");
        assert_eq!(used, written, "{name}: length-delimited field size");
        assert_eq!(
            payload.len(),
            protobuf::$module::encoded_len_packed(&values)
        );
        assert_eq!(protobuf::$module::count_packed(payload), values.len());
        let mut back = vec![from(0)];
        assert_eq!(
            protobuf::$module::decode_packed(payload, &mut back),
            Ok(values.len())
        );
        assert_eq!(
            &back[1..],
            &values[..],
            "{name}: encode_packed -> decode_packed"
        );
    }};
}

/// The `protobuf` module on one stream: see [`ecosystem`].
pub fn check_protobuf(stream: &[u8], values: &[u64]) {
    check_protobuf_module!(stream, values, uint64, u64, |v| v);
    check_protobuf_module!(stream, values, uint32, u32, |v| v as u32);
    check_protobuf_module!(stream, values, int64, i64, |v| v as i64);
    check_protobuf_module!(stream, values, int32, i32, |v| v as i32);
    check_protobuf_module!(stream, values, enumeration, i32, |v| v as i32);
    check_protobuf_module!(stream, values, sint64, i64, |v| v as i64);
    check_protobuf_module!(stream, values, sint32, i32, |v| v as i32);
    check_protobuf_module!(stream, values, bool, bool, |v| v & 1 == 1);

    // Field keys: no panic, inside the input, and a key that decodes
    // re-encodes to a varint of the same value (the input may be longer:
    // non-minimal encodings are accepted).
    match protobuf::FieldKey::decode(stream) {
        Ok((key, len)) => {
            let (raw, raw_len) = varint_turbo::decode::<u64>(stream).expect("the key's varint");
            assert_eq!(len, raw_len);
            let (bytes, n) = key.encode();
            assert_eq!(
                &bytes[..usize::from(n)],
                &reference_encode(raw)[..],
                "FieldKey re-encoding"
            );
            assert_eq!(key.encoded_len(), usize::from(n));
        }
        Err(protobuf::KeyError::Varint(error)) => {
            assert_eq!(varint_turbo::decode::<u64>(stream).err(), Some(error));
        }
        Err(_) => assert!(varint_turbo::decode::<u64>(stream).is_ok()),
    }
    // Length-delimited: the payload follows the prefix, inside the input.
    match protobuf::decode_length_delimited(stream) {
        Ok((payload, used)) => {
            let (len, prefix) = varint_turbo::decode::<u64>(stream).expect("the prefix");
            assert_eq!(payload.len() as u64, len);
            assert_eq!(used, prefix + payload.len());
            assert_eq!(payload, &stream[prefix..used]);
        }
        Err(error) => {
            if let Ok((len, prefix)) = varint_turbo::decode::<u64>(stream) {
                assert_eq!(error, DecodeError::Truncated);
                assert!(len > (stream.len() - prefix) as u64);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// avro
// ---------------------------------------------------------------------------

/// A block-by-block Avro array reader on top of `avro::decode_long`, item
/// by item: the items read, and the bytes used (or `None` on any error).
fn reference_long_array(input: &[u8]) -> (Vec<i64>, Option<usize>) {
    let mut items = Vec::new();
    let mut pos = 0;
    loop {
        let Ok((count, len)) = avro::decode_long(&input[pos..]) else {
            return (items, None);
        };
        pos += len;
        if count == 0 {
            return (items, Some(pos));
        }
        let end = if count < 0 {
            let Ok((size, len)) = avro::decode_long(&input[pos..]) else {
                return (items, None);
            };
            pos += len;
            match usize::try_from(size) {
                Ok(size) if size <= input.len() - pos => Some(pos + size),
                _ => return (items, None),
            }
        } else {
            None
        };
        let block = &input[..end.unwrap_or(input.len())];
        // Every item takes at least one byte: the loop ends with the input.
        for _ in 0..count.unsigned_abs() {
            let Ok((item, len)) = avro::decode_long(&block[pos..]) else {
                return (items, None);
            };
            items.push(item);
            pos += len;
        }
        if end.is_some_and(|end| end != pos) {
            return (items, None);
        }
    }
}

fn check_avro(stream: &[u8], values: &[u64]) {
    // Arbitrary bytes: the reference's items and length (both succeed or
    // both fail), at most one item per byte.
    let (want_items, want_len) = reference_long_array(stream);
    let mut out = Vec::new();
    let got = avro::decode_long_array(stream, &mut out);
    assert_eq!(
        got.ok(),
        want_len,
        "decode_long_array of {}: {got:?}",
        hex(stream)
    );
    assert_eq!(
        out,
        want_items,
        "decode_long_array of {}: items",
        hex(stream)
    );
    if let Err(error) = got {
        assert!(error.offset() <= stream.len(), "{error:?} past the input");
    }
    assert!(out.len() <= stream.len());
    assert!(
        out.capacity() <= 2 * stream.len() + 4,
        "decode_long_array: capacity {} for {} bytes",
        out.capacity(),
        stream.len()
    );
    // The single values.
    assert_eq!(
        avro::decode_long(stream),
        varint_turbo::decode_zigzag::<i64>(stream)
    );
    assert_eq!(
        avro::decode_int(stream),
        varint_turbo::decode_zigzag::<i32>(stream)
    );

    // Round trips through every encoder, appended after other bytes, with
    // a trailing byte that must not be read.
    let longs: Vec<i64> = values.iter().map(|&v| v as i64).collect();
    for &value in longs.iter().take(ROUND_TRIP_VALUES) {
        let (bytes, len) = avro::encode_long(value);
        assert_eq!(
            avro::decode_long(&bytes[..usize::from(len)]),
            Ok((value, usize::from(len)))
        );
        let (bytes, len) = avro::encode_int(value as i32);
        assert_eq!(
            avro::decode_int(&bytes[..usize::from(len)]),
            Ok((value as i32, usize::from(len)))
        );
    }
    let half = longs.len() / 2;
    let mut encoded = vec![0xa5];
    let mut written = avro::encode_long_block(&longs[..half], &mut encoded);
    written += avro::encode_long_block_with_size(&longs[half..], &mut encoded);
    written += avro::encode_long_array(&[], &mut encoded);
    assert_eq!(written, encoded.len() - 1);
    encoded.push(0x80);
    let mut back = vec![7];
    assert_eq!(
        avro::decode_long_array(&encoded[1..], &mut back),
        Ok(written)
    );
    assert_eq!(&back[1..], &longs[..], "avro blocks round trip");
    let mut array = Vec::new();
    let written = avro::encode_long_array(&longs, &mut array);
    let mut back = Vec::new();
    assert_eq!(avro::decode_long_array(&array, &mut back), Ok(written));
    assert_eq!(back, longs, "avro array round trip");
}

// ---------------------------------------------------------------------------
// encode_slice_zigzag_into
// ---------------------------------------------------------------------------

/// `encode_slice_zigzag_into::<S>` with room chosen by `control` relative to
/// the bytes needed: exactly the values that fit whole, the reference's
/// bytes, nothing written past them.
fn check_encode_slice_zigzag_into<S: TestSigned>(values: &[u64], control: u8) {
    let values: Vec<S> = values
        .iter()
        .map(|&v| S::from_i64_wrapping(v as i64))
        .collect();
    let mut expected = Vec::new();
    let lengths: Vec<usize> = values
        .iter()
        .map(|&v| reference_encode_append(reference_zigzag_encode(v).as_u64(), &mut expected))
        .collect();
    let room = fuzzer_chosen_len(control, expected.len());
    let mut fit = (0, 0);
    for &len in &lengths {
        if fit.1 + len > room {
            break;
        }
        fit = (fit.0 + 1, fit.1 + len);
    }
    let mut out = vec![0xa5; room + 1];
    let got = varint_turbo::encode_slice_zigzag_into(&values, &mut out[..room]);
    assert_eq!(
        got,
        fit,
        "encode_slice_zigzag_into::<{}> into {room} bytes",
        S::NAME
    );
    assert_eq!(
        &out[..fit.1],
        &expected[..fit.1],
        "encode_slice_zigzag_into::<{}>",
        S::NAME
    );
    assert_eq!(
        out[room], 0xa5,
        "encode_slice_zigzag_into wrote past its slice"
    );
}
