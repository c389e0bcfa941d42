//! The `avro` module against the fastavro vectors (`tests/data/encode.tsv`,
//! rows `avro_int` / `avro_long`), Avro's length limits, and arrays of
//! longs: round trips in both block forms, every truncation, hostile counts.

use crate::common;

use common::*;
use proptest::prelude::*;
use varint_turbo::avro::{self, BlockErrorKind};
use varint_turbo::DecodeError;

#[test]
fn fastavro_vectors() {
    let (mut ints, mut longs) = (0, 0);
    for (line, kind, value, bytes) in encode_rows() {
        let len = bytes.len();
        match kind {
            "avro_int" => {
                let value: i32 = value.parse().unwrap();
                let (out, n) = avro::encode_int(value);
                assert_eq!(&out[..usize::from(n)], &bytes[..], "line {line}");
                assert_eq!(avro::decode_int(&bytes), Ok((value, len)), "line {line}");
                // An int is also a valid long.
                assert_eq!(avro::decode_long(&bytes), Ok((i64::from(value), len)));
                ints += 1;
            }
            "avro_long" => {
                let value: i64 = value.parse().unwrap();
                let (out, n) = avro::encode_long(value);
                assert_eq!(&out[..usize::from(n)], &bytes[..], "line {line}");
                assert_eq!(avro::decode_long(&bytes), Ok((value, len)), "line {line}");
                // decode_int accepts exactly the longs in i32 range.
                let as_int = avro::decode_int(&bytes);
                match i32::try_from(value) {
                    Ok(narrow) => assert_eq!(as_int, Ok((narrow, len)), "line {line}"),
                    Err(_) => assert_eq!(as_int, Err(DecodeError::Overflow), "line {line}"),
                }
                longs += 1;
            }
            _ => {}
        }
    }
    assert!(
        ints > 200 && longs > 300,
        "{ints} int rows, {longs} long rows"
    );
}

#[test]
fn int_and_long_length_limits() {
    // int: 5 bytes at most; the 5th byte carries 4 bits.
    assert_eq!(
        avro::decode_int(&[0xfe, 0xff, 0xff, 0xff, 0x0f]),
        Ok((i32::MAX, 5))
    );
    assert_eq!(
        avro::decode_int(&[0xff, 0xff, 0xff, 0xff, 0x0f]),
        Ok((i32::MIN, 5))
    );
    assert_eq!(
        avro::decode_int(&[0x80, 0x80, 0x80, 0x80, 0x10]),
        Err(DecodeError::Overflow)
    );
    assert_eq!(
        avro::decode_int(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
        Err(DecodeError::Overflow)
    );
    assert_eq!(
        avro::decode_int(&[0x80, 0x80, 0x80, 0x80]),
        Err(DecodeError::Truncated)
    );
    // A padded small int within 5 bytes is accepted.
    assert_eq!(
        avro::decode_int(&[0x82, 0x80, 0x80, 0x80, 0x00]),
        Ok((1, 5))
    );
    // long: 10 bytes at most; the 10th byte carries 1 bit.
    let mut long = [0xffu8; 10];
    long[9] = 0x01;
    assert_eq!(avro::decode_long(&long), Ok((i64::MIN, 10)));
    long[9] = 0x02;
    assert_eq!(avro::decode_long(&long), Err(DecodeError::Overflow));
    assert_eq!(avro::decode_long(&[0xff; 11]), Err(DecodeError::Overflow));
    assert_eq!(avro::decode_long(&[]), Err(DecodeError::Truncated));
}

/// Arrays of longs in both block forms, split into blocks of `block` items.
fn encode_array(values: &[i64], block: usize, with_size: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut written = 0;
    for chunk in values.chunks(block.max(1)) {
        written += if with_size {
            avro::encode_long_block_with_size(chunk, &mut out)
        } else {
            avro::encode_long_block(chunk, &mut out)
        };
    }
    written += avro::encode_long_array(&[], &mut out);
    assert_eq!(written, out.len());
    out
}

/// The array the plain form writes, spelled out byte by byte with the
/// test's reference encoder.
fn reference_array(values: &[i64]) -> Vec<u8> {
    let mut out = Vec::new();
    if !values.is_empty() {
        out.extend(reference_encode(reference_zigzag_encode(
            values.len() as i64
        )));
        for &value in values {
            out.extend(reference_encode(reference_zigzag_encode(value)));
        }
    }
    out.push(0);
    out
}

proptest! {
    #[test]
    fn arrays_round_trip(
        values in proptest::collection::vec(any::<i64>().prop_map(|v| v >> (v & 63)), 0..300),
        block in 1usize..100,
        with_size in any::<bool>(),
        trailing in proptest::collection::vec(any::<u8>(), 0..4),
    ) {
        let mut one_block = Vec::new();
        avro::encode_long_array(&values, &mut one_block);
        prop_assert_eq!(&one_block, &reference_array(&values));

        let mut input = encode_array(&values, block, with_size);
        let array_len = input.len();
        input.extend_from_slice(&trailing);
        let mut out = vec![42];
        prop_assert_eq!(avro::decode_long_array(&input, &mut out), Ok(array_len));
        prop_assert_eq!(out[0], 42);
        prop_assert_eq!(&out[1..], &values[..]);

        // Every proper prefix of the array is truncated (never a panic,
        // never an Ok), and keeps no more items than it holds.
        for cut in 0..array_len {
            let mut partial = Vec::new();
            let error = avro::decode_long_array(&input[..cut], &mut partial).unwrap_err();
            prop_assert_eq!(error.kind(), BlockErrorKind::Truncated, "cut at {}", cut);
            prop_assert!(error.offset() <= cut);
            prop_assert!(partial.len() <= cut);
            prop_assert_eq!(&partial[..], &values[..partial.len()]);
        }
    }
}

#[test]
fn hostile_counts_allocate_in_proportion_to_the_input() {
    for count in [i64::MAX, i64::MIN, 1 << 40, -(1 << 40), 1 << 62] {
        let mut input = reference_encode(reference_zigzag_encode(count));
        if count < 0 {
            input.extend(reference_encode(reference_zigzag_encode(3i64))); // byte size 3
        }
        input.extend_from_slice(&[0x02, 0x04, 0x06]); // 3 items: 1, 2, 3
        let mut out = Vec::new();
        let error = avro::decode_long_array(&input, &mut out).unwrap_err();
        let expected_kind = if count < 0 {
            BlockErrorKind::ByteSize
        } else {
            BlockErrorKind::Truncated
        };
        assert_eq!(error.kind(), expected_kind, "count {count}");
        assert_eq!(out, [1, 2, 3], "count {count}");
        assert!(
            out.capacity() <= input.len(),
            "count {count}: capacity {} for {} input bytes",
            out.capacity(),
            input.len()
        );
    }
}

#[test]
fn byte_size_errors() {
    // Count -2, size 3, but the items take 2 bytes.
    let mut out = Vec::new();
    let error = avro::decode_long_array(&[0x03, 0x06, 0x02, 0x04, 0x00], &mut out).unwrap_err();
    assert_eq!(
        (error.kind(), error.offset()),
        (BlockErrorKind::ByteSize, 1)
    );
    // Count -2, size 1: the second item lies outside the block.
    let error = avro::decode_long_array(&[0x03, 0x02, 0x02, 0x04, 0x00], &mut out).unwrap_err();
    assert_eq!(
        (error.kind(), error.offset()),
        (BlockErrorKind::ByteSize, 1)
    );
    // A negative size.
    let error = avro::decode_long_array(&[0x03, 0x01, 0x02, 0x04, 0x00], &mut out).unwrap_err();
    assert_eq!(
        (error.kind(), error.offset()),
        (BlockErrorKind::ByteSize, 1)
    );
    // A size past the end of the input.
    let error = avro::decode_long_array(&[0x01, 0x7e, 0x02], &mut out).unwrap_err();
    assert_eq!(
        (error.kind(), error.offset()),
        (BlockErrorKind::Truncated, 3)
    );
    // An item that overflows, inside a sized block.
    let mut input = vec![0x03, 0x16, 0x02];
    input.extend_from_slice(&[0xff; 10]);
    input.push(0x00);
    let error = avro::decode_long_array(&input, &mut out).unwrap_err();
    assert_eq!(
        (error.kind(), error.offset()),
        (BlockErrorKind::Overflow, 3)
    );
    // The count itself overflows.
    let error = avro::decode_long_array(&[0xff; 12], &mut out).unwrap_err();
    assert_eq!(
        (error.kind(), error.offset()),
        (BlockErrorKind::Overflow, 0)
    );
    assert!(error.to_string().contains("offset 0"));
}
