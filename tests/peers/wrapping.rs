//! `decode_wrapping` and `decode_zigzag_wrapping` against the wrapping rule
//! of the host crates (protobuf C++, Java Avro, apache-avro,
//! quick-protobuf): a varint of at most 10 bytes, cut to the type's width.
//! Every 1- and 2-byte input (and the structured 3-byte ones) is checked
//! against the test-side reference by `tests/suite/exhaustive.rs` through
//! `common::check_decode`; this file adds the cases that only the wrapping
//! rule has (long varints into narrow types, a 10th byte of 0x02..=0x7f)
//! and quick-protobuf's own readers as a second oracle. quick-protobuf is
//! a bench-only dev-dependency, which the MSRV copy drops with this test's
//! `[[test]]` table (scripts/drop-bench-deps.py).

#[path = "../common/mod.rs"]
mod common;

use common::{
    reference_decode_wrapping, reference_decode_zigzag_wrapping, reference_encode, TestInt,
    TestSigned,
};
use quick_protobuf::BytesReader;
use rand::{rngs::StdRng, Rng, SeedableRng};
use varint_turbo::{decode_wrapping, decode_zigzag_wrapping, DecodeError};

/// quick-protobuf's `read_varint64` and `read_varint32` on `input`: value
/// and bytes consumed, or `None` for any error (it has one error per cause,
/// which `same_outcome` maps to ours).
fn quick_protobuf_u64(input: &[u8]) -> Option<(u64, usize)> {
    let mut reader = BytesReader::from_bytes(input);
    let value = reader.read_varint64(input).ok()?;
    Some((value, input.len() - reader.len()))
}

fn quick_protobuf_u32(input: &[u8]) -> Option<(u32, usize)> {
    let mut reader = BytesReader::from_bytes(input);
    let value = reader.read_varint32(input).ok()?;
    Some((value, input.len() - reader.len()))
}

/// Every wrapping decode of `input` equals the reference, and the `u64`
/// and `u32` ones equal quick-protobuf's (which fails exactly where the
/// reference does, though with its own error type).
fn check(input: &[u8]) {
    fn one<T: TestInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
        let got = decode_wrapping::<T>(input);
        assert_eq!(
            got,
            reference_decode_wrapping::<T>(input),
            "decode_wrapping::<{}>({input:02x?})",
            T::NAME
        );
        got
    }
    fn signed<S: TestSigned>(input: &[u8]) {
        assert_eq!(
            decode_zigzag_wrapping::<S>(input),
            reference_decode_zigzag_wrapping::<S>(input),
            "decode_zigzag_wrapping::<{}>({input:02x?})",
            S::NAME
        );
    }
    assert_eq!(
        one::<u64>(input).ok(),
        quick_protobuf_u64(input),
        "{input:02x?}"
    );
    assert_eq!(
        one::<u32>(input).ok(),
        quick_protobuf_u32(input),
        "{input:02x?}"
    );
    let _ = one::<u16>(input);
    let _ = one::<u8>(input);
    let _ = one::<usize>(input);
    signed::<i64>(input);
    signed::<i32>(input);
    signed::<i16>(input);
    signed::<i8>(input);
    signed::<isize>(input);
}

#[test]
fn documented_cases() {
    let minus_one_int32 = reference_encode(-1i64 as u64);
    assert_eq!(minus_one_int32.len(), 10);
    assert_eq!(decode_wrapping::<u32>(&minus_one_int32), Ok((u32::MAX, 10)));
    assert_eq!(decode_wrapping::<u64>(&minus_one_int32), Ok((u64::MAX, 10)));
    let mut lax = [0x80u8; 10];
    lax[9] = 0x7f;
    assert_eq!(decode_wrapping::<u64>(&lax), Ok((1 << 63, 10)));
    assert_eq!(
        varint_turbo::decode::<u64>(&lax),
        Err(DecodeError::Overflow)
    );
    assert_eq!(decode_wrapping::<u64>(&[]), Err(DecodeError::Truncated));
    assert_eq!(
        decode_wrapping::<u64>(&[0x80; 9]),
        Err(DecodeError::Truncated)
    );
    assert_eq!(
        decode_wrapping::<u8>(&[0x80; 9]),
        Err(DecodeError::Truncated)
    );
    assert_eq!(
        decode_wrapping::<u64>(&[0x80; 10]),
        Err(DecodeError::Overflow)
    );
    assert_eq!(
        decode_wrapping::<u8>(&[0x80; 11]),
        Err(DecodeError::Overflow)
    );
    // Bytes after the varint are ignored.
    assert_eq!(
        decode_wrapping::<u16>(&[0xff, 0xff, 0x7f, 0xff]),
        Ok((0xffff, 3))
    );
}

/// Every 10th byte after every kind of 9-byte prefix, and every length
/// the input can be cut to.
#[test]
fn tenth_byte_and_truncation() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0040);
    for tenth in 0..=255u8 {
        for prefix in 0..64 {
            let mut input = [0u8; 12];
            for byte in &mut input[..9] {
                *byte = 0x80 | if prefix == 0 { 0x7f } else { rng.gen::<u8>() };
            }
            input[9] = tenth;
            input[10] = rng.gen();
            input[11] = rng.gen();
            for len in 0..=input.len() {
                check(&input[..len]);
            }
        }
    }
}

/// Random inputs of 0..=16 bytes whose varints have every length from 1
/// to 11 (continuation bits drawn separately from the payload).
#[test]
fn random_inputs() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0041);
    for _ in 0..300_000 {
        let len = rng.gen_range(0..=16);
        let varint_len = rng.gen_range(1..=11);
        let input: Vec<u8> = (0..len)
            .map(|i| {
                let payload = rng.gen::<u8>() & 0x7f;
                if i + 1 < varint_len {
                    payload | 0x80
                } else if i + 1 == varint_len {
                    payload
                } else {
                    rng.gen()
                }
            })
            .collect();
        check(&input);
    }
}

/// Every value the encoder writes reads back, cut to each width.
#[test]
fn encoded_values() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0042);
    for _ in 0..100_000 {
        let value = rng.gen::<u64>() >> rng.gen_range(0..64);
        let mut bytes = reference_encode(value);
        assert_eq!(decode_wrapping::<u64>(&bytes), Ok((value, bytes.len())));
        assert_eq!(
            decode_wrapping::<u32>(&bytes),
            Ok((value as u32, bytes.len()))
        );
        assert_eq!(
            decode_wrapping::<u8>(&bytes),
            Ok((value as u8, bytes.len()))
        );
        assert_eq!(
            decode_zigzag_wrapping::<i32>(&bytes),
            Ok((
                ((value as u32) >> 1) as i32 ^ -((value & 1) as i32),
                bytes.len()
            ))
        );
        bytes.pop();
        if !bytes.is_empty() {
            assert_eq!(decode_wrapping::<u64>(&bytes), Err(DecodeError::Truncated));
        }
    }
}
