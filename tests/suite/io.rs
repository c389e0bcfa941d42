//! The `std::io` extension traits (`ReadVarint`, `WriteVarint`) against the
//! slice API and the vectors of `tests/data`.

use crate::common;

use std::io::{self, BufRead, BufReader, Cursor, Read};

use common::*;

use varint_turbo::{BufReadVarint, DecodeError, ReadVarint, WriteVarint};

/// A reader that hands out one byte per call and fails with `Interrupted`
/// before every byte, as a signal-interrupted pipe may.
struct Trickle<'a> {
    data: &'a [u8],
    interrupt_next: bool,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.interrupt_next = !self.interrupt_next;
        if !self.interrupt_next {
            return Err(io::ErrorKind::Interrupted.into());
        }
        match (self.data.split_first(), buf.first_mut()) {
            (Some((&byte, rest)), Some(slot)) => {
                *slot = byte;
                self.data = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

/// `read_varint::<T>` on `input` equals `decode::<T>(input)`, with the
/// documented error kinds and inner errors, and consumes the varint (or, on
/// error, what it had to read: at most `MAX_LEN` bytes).
fn check_read<T: TestInt>(input: &[u8]) {
    let expected = varint_turbo::decode::<T>(input);
    let examined = examined(input, T::REF_MAX_LEN);
    let mut cursor = Cursor::new(input);
    let got = cursor.read_varint::<T>();
    let mut trickle = Trickle {
        data: input,
        interrupt_next: false,
    };
    let trickled = trickle.read_varint::<T>();
    let context = format!("read_varint::<{}>({})", T::NAME, hex(input));
    match expected {
        Ok((value, len)) => {
            assert_eq!(got.unwrap(), value, "{context}");
            assert_eq!(cursor.position() as usize, len, "{context}");
            assert_eq!(trickled.unwrap(), value, "{context} (trickle)");
            assert_eq!(trickle.data.len(), input.len() - len, "{context} (trickle)");
        }
        Err(kind) => {
            let io_kind = match kind {
                DecodeError::Truncated => io::ErrorKind::UnexpectedEof,
                DecodeError::Overflow => io::ErrorKind::InvalidData,
                other => panic!("{context}: no io mapping known for {other:?}"),
            };
            for error in [got.unwrap_err(), trickled.unwrap_err()] {
                assert_eq!(error.kind(), io_kind, "{context}");
                let inner = error.into_inner().expect("an inner error");
                assert_eq!(
                    inner.downcast_ref::<DecodeError>(),
                    Some(&kind),
                    "{context}"
                );
            }
            assert_eq!(cursor.position() as usize, examined, "{context}");
            assert_eq!(trickle.data.len(), input.len() - examined, "{context}");
        }
    }
}

/// `read_varint_buffered::<T>` through `BufReader`s of every small
/// capacity: the value of `decode::<T>(input)`, the varint consumed on
/// success; on error nothing consumed if the first buffer already showed
/// the error, else the bytes examined byte by byte.
fn check_read_buffered<T: TestInt>(input: &[u8]) {
    let expected = varint_turbo::decode::<T>(input);
    let examined = examined(input, T::REF_MAX_LEN);
    for capacity in [1, 2, 3, 5, 16] {
        let mut reader = BufReader::with_capacity(capacity, input);
        let got = reader.read_varint_buffered::<T>();
        let left = reader.fill_buf().unwrap().len() + reader.get_ref().len();
        let context = format!(
            "read_varint_buffered::<{}>({}), capacity {capacity}",
            T::NAME,
            hex(input)
        );
        match expected {
            Ok((value, len)) => {
                assert_eq!(got.unwrap(), value, "{context}");
                assert_eq!(left, input.len() - len, "{context}");
            }
            Err(kind) => {
                let error = got.unwrap_err();
                assert_eq!(
                    error.into_inner().unwrap().downcast_ref::<DecodeError>(),
                    Some(&kind),
                    "{context}"
                );
                let first_buffer = &input[..capacity.min(input.len())];
                let seen_at_once = varint_turbo::decode::<T>(first_buffer) == Err(kind)
                    && kind == DecodeError::Overflow;
                let consumed = if seen_at_once { 0 } else { examined };
                assert_eq!(left, input.len() - consumed, "{context}");
            }
        }
    }
}

#[test]
fn single_vectors_read_like_decode() {
    let rows = tsv_rows(include_str!("../data/single.tsv"), 3);
    assert!(rows.len() > 1000);
    for (_, fields) in rows {
        let input = unhex(fields[1]);
        for_each_unsigned!(check_read(&input));
        for_each_unsigned!(check_read_buffered(&input));
    }
}

#[test]
fn every_input_of_up_to_two_bytes() {
    for a in 0..=255u8 {
        for_each_unsigned!(check_read(&[a]));
        for b in 0..=255u8 {
            for_each_unsigned!(check_read(&[a, b]));
        }
    }
    check_read::<u64>(&[]);
    check_read::<u64>(&[0xff; 12]);
    check_read_buffered::<u64>(&[]);
    for len in 1..=12 {
        for_each_unsigned!(check_read_buffered(&vec![0xff; len]));
    }
}

#[test]
fn encode_vectors_write_and_read_back() {
    for (line, kind, value, bytes) in encode_rows() {
        let mut out = Vec::new();
        let mut reader = Cursor::new(bytes.clone());
        match kind {
            "u64" => {
                let value: u64 = value.parse().unwrap();
                assert_eq!(out.write_varint(value).unwrap(), bytes.len());
                assert_eq!(reader.read_varint::<u64>().unwrap(), value, "line {line}");
            }
            "int32" => {
                let value: i32 = value.parse().unwrap();
                out.write_varint(i64::from(value) as u64).unwrap();
                let read = reader.read_varint::<u64>().unwrap();
                assert_eq!(read as i64 as i32, value, "line {line}");
            }
            "sint32" | "avro_int" => {
                let value: i32 = value.parse().unwrap();
                assert_eq!(out.write_varint_zigzag(value).unwrap(), bytes.len());
                assert_eq!(reader.read_varint_zigzag::<i32>().unwrap(), value);
            }
            "sint64" | "avro_long" => {
                let value: i64 = value.parse().unwrap();
                assert_eq!(out.write_varint_zigzag(value).unwrap(), bytes.len());
                assert_eq!(reader.read_varint_zigzag::<i64>().unwrap(), value);
            }
            other => panic!("line {line}: unknown type {other}"),
        }
        assert_eq!(out, bytes, "line {line}: {kind} {value}");
        assert_eq!(reader.position() as usize, bytes.len(), "line {line}");
    }
}

#[test]
fn reader_and_writer_errors_pass_through() {
    /// One byte with the continuation bit, then a broken pipe.
    struct Broken(bool);
    impl Read for Broken {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if std::mem::replace(&mut self.0, true) {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            buf[0] = 0x80;
            Ok(1)
        }
    }
    let error = Broken(false).read_varint::<u64>().unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);

    let mut storage = [0u8; 1];
    let mut full = &mut storage[..];
    let error = full.write_varint(300u32).unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::WriteZero);
    assert_eq!(
        full.write_varint(7u32).unwrap_err().kind(),
        io::ErrorKind::WriteZero
    );
}

#[test]
fn decode_errors_convert_to_io_errors() {
    let truncated: io::Error = DecodeError::Truncated.into();
    let overflow: io::Error = DecodeError::Overflow.into();
    assert_eq!(truncated.kind(), io::ErrorKind::UnexpectedEof);
    assert_eq!(overflow.kind(), io::ErrorKind::InvalidData);
    assert_eq!(overflow.to_string(), DecodeError::Overflow.to_string());
}

// ---------------------------------------------------------------------------
// Every read against the test-side reference, through readers of every
// chunking: the values, the error kinds and inner errors, the bytes consumed.

/// A reader that hands out `sizes[i % sizes.len()]` bytes (or fewer, if the
/// caller's buffer or the data is shorter) on its `i`-th read.
struct Chunky<'a> {
    data: &'a [u8],
    sizes: &'a [usize],
    reads: usize,
}

impl Read for Chunky<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.reads % self.sizes.len()];
        self.reads += 1;
        let n = size.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// The chunkings of [`Chunky`]: 1 byte per read, n bytes per read for
/// n in 2..=11, and sizes that change from read to read.
const CHUNKINGS: &[&[usize]] = &[
    &[1],
    &[2],
    &[3],
    &[4],
    &[5],
    &[6],
    &[7],
    &[8],
    &[9],
    &[10],
    &[11],
    &[3, 1, 11, 2, 7],
    &[11, 1],
];

/// Which rule a read follows.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// `read_varint` / `read_varint_buffered`: `decode`'s rule.
    Strict,
    /// `read_varint_wrapping` / `read_varint_wrapping_buffered`.
    Wrapping,
}

impl Rule {
    fn reference<T: TestInt>(self, input: &[u8]) -> Result<(T, usize), DecodeError> {
        match self {
            Rule::Strict => reference_decode::<T>(input),
            Rule::Wrapping => reference_decode_wrapping::<T>(input),
        }
    }

    /// The most bytes a read looks at.
    fn max_len<T: TestInt>(self) -> usize {
        match self {
            Rule::Strict => T::REF_MAX_LEN,
            Rule::Wrapping => 10,
        }
    }
}

/// The `io::ErrorKind` a decode error must have.
fn io_kind(error: DecodeError) -> io::ErrorKind {
    match error {
        DecodeError::Truncated => io::ErrorKind::UnexpectedEof,
        DecodeError::Overflow => io::ErrorKind::InvalidData,
        other => panic!("no io mapping known for {other:?}"),
    }
}

/// `got` (with `consumed` bytes gone from the reader) is what `expected`
/// says: the value and the varint consumed, or the error's kind, the
/// `DecodeError` inside (through `get_ref` and `into_inner`) and
/// `consumed_on_error` bytes consumed.
fn check_outcome<T: TestInt>(
    context: &str,
    got: io::Result<T>,
    consumed: usize,
    expected: Result<(T, usize), DecodeError>,
    consumed_on_error: usize,
) {
    match expected {
        Ok((value, len)) => {
            assert_eq!(got.unwrap(), value, "{context}");
            assert_eq!(consumed, len, "{context}: bytes consumed");
        }
        Err(kind) => {
            let error = got.expect_err(context);
            assert_eq!(error.kind(), io_kind(kind), "{context}");
            assert_eq!(
                error
                    .get_ref()
                    .and_then(|inner| inner.downcast_ref::<DecodeError>()),
                Some(&kind),
                "{context}: get_ref"
            );
            let inner = error.into_inner().expect("an inner error");
            assert_eq!(
                inner.downcast_ref::<DecodeError>(),
                Some(&kind),
                "{context}"
            );
            assert_eq!(consumed, consumed_on_error, "{context}: bytes consumed");
        }
    }
}

/// The unbuffered read of `rule` into `T` from every reader: `Cursor`,
/// the interrupted trickle and every [`CHUNKINGS`] reader. On error the
/// bytes examined (through the varint's last byte, `max_len` bytes, or
/// the end) are consumed.
fn check_unbuffered<T: TestInt>(rule: Rule, input: &[u8]) {
    let expected = rule.reference::<T>(input);
    let examined = examined(input, rule.max_len::<T>());
    let read = |reader: &mut dyn Read| match rule {
        Rule::Strict => reader.read_varint::<T>(),
        Rule::Wrapping => reader.read_varint_wrapping::<T>(),
    };
    let context =
        |reader: &str| format!("{rule:?} read::<{}>({}) from {reader}", T::NAME, hex(input));

    let mut cursor = Cursor::new(input);
    let got = read(&mut cursor);
    check_outcome(
        &context("Cursor"),
        got,
        cursor.position() as usize,
        expected,
        examined,
    );

    let mut trickle = Trickle {
        data: input,
        interrupt_next: false,
    };
    let got = read(&mut trickle);
    let consumed = input.len() - trickle.data.len();
    check_outcome(&context("Trickle"), got, consumed, expected, examined);

    // `read_varint` asks for one byte per `read`: the chunking cannot
    // matter, which three of them check.
    for sizes in [&[1][..], &[11], &[3, 1, 11, 2, 7]] {
        let mut chunky = Chunky {
            data: input,
            sizes,
            reads: 0,
        };
        let got = read(&mut chunky);
        let consumed = input.len() - chunky.data.len();
        check_outcome(
            &context(&format!("Chunky{sizes:?}")),
            got,
            consumed,
            expected,
            examined,
        );
    }
}

/// The buffered read of `rule` into `T`: from a `Cursor` (all of the input
/// buffered) and from `BufReader`s of several capacities over every
/// [`CHUNKINGS`] reader. An error inside the first buffer consumes nothing;
/// one found reading byte by byte past it consumes the bytes examined.
fn check_buffered<T: TestInt>(rule: Rule, input: &[u8]) {
    let expected = rule.reference::<T>(input);
    let examined = examined(input, rule.max_len::<T>());
    let read = |reader: &mut dyn BufRead| match rule {
        Rule::Strict => reader.read_varint_buffered::<T>(),
        Rule::Wrapping => reader.read_varint_wrapping_buffered::<T>(),
    };
    // What an error consumes when the first `fill_buf` showed `first` bytes.
    let consumed_on_error = |first: usize| {
        let seen_at_once = rule.reference::<T>(&input[..first]) == Err(DecodeError::Overflow);
        if seen_at_once {
            0
        } else {
            examined
        }
    };
    let context = |reader: &str| {
        format!(
            "{rule:?} read_buffered::<{}>({}) from {reader}",
            T::NAME,
            hex(input)
        )
    };

    let mut cursor = Cursor::new(input);
    let got = read(&mut cursor);
    let consumed = cursor.position() as usize;
    check_outcome(
        &context("Cursor"),
        got,
        consumed,
        expected,
        consumed_on_error(input.len()),
    );

    for capacity in [1, 2, 3, 5, 10, 16] {
        for sizes in CHUNKINGS {
            let mut reader = BufReader::with_capacity(
                capacity,
                Chunky {
                    data: input,
                    sizes,
                    reads: 0,
                },
            );
            let got = read(&mut reader);
            let consumed = input.len() - reader.buffer().len() - reader.get_ref().data.len();
            let first = capacity.min(sizes[0]).min(input.len());
            check_outcome(
                &context(&format!("BufReader({capacity}, Chunky{sizes:?})")),
                got,
                consumed,
                expected,
                consumed_on_error(first),
            );
        }
    }
}

/// The zigzag reads (strict and wrapping, unbuffered and buffered) equal
/// the reference's zigzag decodes.
fn check_zigzag<S: TestSigned>(input: &[u8]) {
    let strict = reference_decode_zigzag::<S>(input).map(|(value, _)| value);
    let wrapping = reference_decode_zigzag_wrapping::<S>(input).map(|(value, _)| value);
    let context = format!("{}: {}", S::NAME, hex(input));
    let result = |got: io::Result<S>| {
        got.map_err(|e| *e.into_inner().unwrap().downcast::<DecodeError>().unwrap())
    };
    type Read<S> = fn(&mut Cursor<&[u8]>) -> io::Result<S>;
    let reads: [(&str, Read<S>, _); 4] = [
        ("read_varint_zigzag", |r| r.read_varint_zigzag(), strict),
        (
            "read_varint_zigzag_buffered",
            |r| r.read_varint_zigzag_buffered(),
            strict,
        ),
        (
            "read_varint_zigzag_wrapping",
            |r| r.read_varint_zigzag_wrapping(),
            wrapping,
        ),
        (
            "read_varint_zigzag_wrapping_buffered",
            |r| r.read_varint_zigzag_wrapping_buffered(),
            wrapping,
        ),
    ];
    for (name, read, expected) in reads {
        assert_eq!(
            result(read(&mut Cursor::new(input))),
            expected,
            "{name} {context}"
        );
    }
    let mut trickle = Trickle {
        data: input,
        interrupt_next: false,
    };
    assert_eq!(
        result(trickle.read_varint_zigzag_wrapping::<S>()),
        wrapping,
        "{context}"
    );
}

fn check_every_read<T: TestInt>(input: &[u8]) {
    for rule in [Rule::Strict, Rule::Wrapping] {
        check_unbuffered::<T>(rule, input);
        check_buffered::<T>(rule, input);
    }
}

/// Inputs around every length: `len - 1` continuation bytes (0x80, 0xff)
/// and a last byte that ends (0x00, 0x01, 0x02, 0x7f), continues (0x80,
/// 0xff) or is missing, with and without bytes after the varint.
fn structured_inputs() -> Vec<Vec<u8>> {
    let mut inputs = vec![Vec::new()];
    for len in 1..=12 {
        for fill in [0x80u8, 0xff] {
            for last in [0x00u8, 0x01, 0x02, 0x7f, 0x80, 0xff] {
                let mut input = vec![fill; len - 1];
                input.push(last);
                inputs.push(input.clone());
                input.extend_from_slice(&[0x05, 0x80]);
                inputs.push(input);
            }
        }
    }
    inputs
}

#[test]
fn reads_match_the_reference_at_every_length_and_chunking() {
    for input in structured_inputs() {
        for_each_unsigned!(check_every_read(&input));
        for_each_signed!(check_zigzag(&input));
    }
    let rows = tsv_rows(include_str!("../data/single.tsv"), 3);
    for (_, fields) in rows {
        let input = unhex(fields[1]);
        check_every_read::<u64>(&input);
        check_every_read::<u32>(&input);
    }
}

#[test]
fn reads_of_every_input_of_up_to_two_bytes() {
    for a in 0..=255u8 {
        for_each_unsigned!(check_every_read(&[a]));
        for_each_signed!(check_zigzag(&[a]));
        for b in 0..=255u8 {
            // The strict reads of these: `every_input_of_up_to_two_bytes`.
            for_each_unsigned!(check_unbuffered(Rule::Wrapping, &[a, b]));
            for_each_signed!(check_zigzag(&[a, b]));
        }
    }
}

#[test]
fn values_of_every_length_read_back_from_a_stream() {
    // Varints of every length back to back, then the end of the stream:
    // every value, then UnexpectedEof, through a reader of 1..11 bytes per
    // read and a BufReader over it.
    let mut stream = Vec::new();
    let values: Vec<u64> = (0..64)
        .map(|shift| (1u64 << shift) | 5)
        .chain([0, u64::MAX])
        .collect();
    for &value in &values {
        reference_encode_append(value, &mut stream);
    }
    for sizes in CHUNKINGS {
        let mut reader = Chunky {
            data: &stream,
            sizes,
            reads: 0,
        };
        let mut buffered = BufReader::with_capacity(
            7,
            Chunky {
                data: &stream,
                sizes,
                reads: 0,
            },
        );
        for &value in &values {
            assert_eq!(reader.read_varint_wrapping::<u64>().unwrap(), value);
            assert_eq!(
                buffered.read_varint_wrapping_buffered::<u64>().unwrap(),
                value
            );
        }
        assert_eq!(
            reader.read_varint::<u64>().unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
        assert_eq!(
            buffered
                .read_varint_wrapping_buffered::<u32>()
                .unwrap_err()
                .kind(),
            io::ErrorKind::UnexpectedEof
        );
    }
}

#[test]
fn a_lax_tenth_byte() {
    // The strict read consumes all 10 bytes and fails; the wrapping read
    // takes the varint, and the byte after it is next.
    let lax = [
        0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0x2a,
    ];
    let mut strict = &lax[..];
    let error = strict.read_varint::<u64>().unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    assert_eq!(strict, [0x2a]);
    let mut wrapping = &lax[..];
    assert_eq!(wrapping.read_varint_wrapping::<u64>().unwrap(), 0);
    assert_eq!(wrapping.read_varint_wrapping::<u64>().unwrap(), 42);
    // Eleven continuing bytes: 10 consumed, Overflow.
    let mut long = &[0xffu8; 11][..];
    let error = long.read_varint_wrapping::<u8>().unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    assert_eq!(long.len(), 1);
}

/// A writer that takes at most one byte per `write`.
struct OneByteWriter(Vec<u8>);

impl io::Write for OneByteWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match buf.first() {
            Some(&byte) => {
                self.0.push(byte);
                Ok(1)
            }
            None => Ok(0),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `write_varint` (its 1-byte, 2-byte and kernel paths) and
/// `write_varint_zigzag` write the reference's bytes for every type and
/// length, into a `Vec` after existing bytes, through a writer of one byte
/// per `write` and through `&mut dyn Write`; into a slice one byte too
/// short they fail with `WriteZero`.
#[test]
fn write_varint_every_length_against_the_reference() {
    fn one<T: TestInt>(value: T) {
        let expected = reference_encode(value.as_u64());
        let context = format!("write_varint::<{}>({value:?})", T::NAME);
        let mut vec = vec![0xaa];
        assert_eq!(
            vec.write_varint(value).unwrap(),
            expected.len(),
            "{context}"
        );
        assert_eq!((vec[0], &vec[1..]), (0xaa, &expected[..]), "{context}");
        let mut trickle = OneByteWriter(Vec::new());
        assert_eq!(
            trickle.write_varint(value).unwrap(),
            expected.len(),
            "{context}"
        );
        assert_eq!(trickle.0, expected, "{context}");
        let mut dynamic = Vec::new();
        let writer: &mut dyn io::Write = &mut dynamic;
        assert_eq!(
            writer.write_varint(value).unwrap(),
            expected.len(),
            "{context}"
        );
        assert_eq!(dynamic, expected, "{context}");
        let mut storage = [0u8; 10];
        let mut short = &mut storage[..expected.len() - 1];
        let error = short.write_varint(value).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WriteZero, "{context}");
    }
    fn signed<S: TestSigned>(value: S) {
        let expected = reference_encode(reference_zigzag_encode(value).as_u64());
        let mut vec = Vec::new();
        assert_eq!(vec.write_varint_zigzag(value).unwrap(), expected.len());
        assert_eq!(
            vec,
            expected,
            "write_varint_zigzag::<{}>({value:?})",
            S::NAME
        );
    }
    for bits in 0..64 {
        let top = 1u64 << bits;
        for value in [
            top - 1,
            top,
            top | 1,
            top.wrapping_mul(3) >> 1,
            u64::MAX >> (63 - bits),
        ] {
            if let Some(v) = u8::from_u64(value) {
                one(v);
            }
            if let Some(v) = u16::from_u64(value) {
                one(v);
            }
            if let Some(v) = u32::from_u64(value) {
                one(v);
            }
            one(value);
            one(value as usize);
            for v in [value as i64, (value as i64).wrapping_neg()] {
                signed(v);
                signed(v as i32);
                signed(v as i16);
                signed(v as i8);
                signed(v as isize);
            }
        }
    }
}
