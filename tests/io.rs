//! The `std::io` extension traits (`ReadVarint`, `WriteVarint`) against the
//! slice API and the vectors of `tests/data`.

#[macro_use]
mod common;

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
    let rows = tsv_rows(include_str!("data/single.tsv"), 3);
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
