//! The `protobuf` module against the vectors Python protobuf (upb) and Go
//! protowire wrote (`tests/data/encode.tsv`, `packed.tsv`), and its
//! narrowing rules against conversions written out here.

use crate::common;

use common::*;
use proptest::prelude::*;
use varint_turbo::protobuf::{
    self, bool as pb_bool, enumeration, int32, int64, sint32, sint64, uint32, uint64, FieldKey,
    KeyError, WireType,
};
use varint_turbo::DecodeError;

/// Checks one scalar module on one vector: encode, encoded_len and decode.
macro_rules! check_scalar {
    ($module:ident, $value:expr, $bytes:expr, $line:expr) => {{
        let (value, bytes, line) = ($value, $bytes, $line);
        let (out, len) = $module::encode(value);
        assert_eq!(
            &out[..usize::from(len)],
            bytes,
            "line {line}: {}::encode({value})",
            stringify!($module)
        );
        assert_eq!($module::encoded_len(value), bytes.len(), "line {line}");
        assert_eq!(
            $module::decode(bytes),
            Ok((value, bytes.len())),
            "line {line}: {}::decode",
            stringify!($module)
        );
    }};
}

#[test]
fn encode_vectors_through_the_scalar_modules() {
    let mut int32_rows = 0;
    for (line, kind, value, bytes) in encode_rows() {
        let bytes = &bytes[..];
        match kind {
            "int32" => {
                let value: i32 = value.parse().unwrap();
                check_scalar!(int32, value, bytes, line);
                check_scalar!(enumeration, value, bytes, line);
                check_scalar!(int64, i64::from(value), bytes, line);
                assert_eq!(bytes.len() == 10, value < 0, "line {line}");
                int32_rows += 1;
            }
            "u64" => {
                let value: u64 = value.parse().unwrap();
                check_scalar!(uint64, value, bytes, line);
                check_scalar!(int64, value as i64, bytes, line);
                if let Ok(value) = u32::try_from(value) {
                    check_scalar!(uint32, value, bytes, line);
                }
            }
            "sint32" => check_scalar!(sint32, value.parse::<i32>().unwrap(), bytes, line),
            "sint64" => check_scalar!(sint64, value.parse::<i64>().unwrap(), bytes, line),
            _ => {}
        }
    }
    assert!(int32_rows > 200, "{int32_rows} int32 rows");
}

/// The packed helpers of one module on one `packed.tsv` row.
macro_rules! check_packed {
    ($module:ident, $row:expr, $ty:ty) => {{
        let row: &PackedRow = $row;
        let context = format!("line {}: {}", row.line, stringify!($module));
        let expected: Vec<$ty> = row.values.iter().map(|v| v.parse().unwrap()).collect();
        assert_eq!(
            $module::count_packed(&row.payload),
            expected.len(),
            "{context}"
        );
        assert_eq!(
            $module::encoded_len_packed(&expected),
            row.payload.len(),
            "{context}"
        );

        // Appends after what is already there.
        let mut decoded: Vec<$ty> = vec![Default::default(); 3];
        assert_eq!(
            $module::decode_packed(&row.payload, &mut decoded),
            Ok(expected.len()),
            "{context}"
        );
        assert_eq!(decoded[3..], expected[..], "{context}");

        let mut encoded = vec![0xee];
        let written = $module::encode_packed(&expected, &mut encoded);
        let (payload, used) = protobuf::decode_length_delimited(&encoded[1..]).unwrap();
        assert_eq!((written, used), (encoded.len() - 1, written), "{context}");
        assert_eq!(payload, &row.payload[..], "{context}");

        #[cfg(feature = "bytes")]
        {
            // The `BufMut` writer writes what `encode_packed` appends.
            let mut put = bytes::BytesMut::new();
            assert_eq!(
                $module::put_packed(&expected, &mut put),
                written,
                "{context}"
            );
            assert_eq!(&put[..], &encoded[1..], "{context}");
            // The `Buf` reader, on the payload in chunks of every size.
            for chunk_size in [1, 2, 3, 7, 11, 64, usize::MAX] {
                let mut buf = Chunked::new(&row.payload, chunk_size, &[0x2a]);
                let mut got: Vec<$ty> = Vec::new();
                assert_eq!(
                    $module::get_packed(&mut buf, row.payload.len(), &mut got),
                    Ok(expected.len()),
                    "{context}, chunks of {chunk_size}"
                );
                assert_eq!(got, expected, "{context}, chunks of {chunk_size}");
                assert_eq!(bytes::Buf::remaining(&buf), 1, "{context}");
            }
        }
    }};
}

/// A `bytes::Buf` over `data` and then `after`, whose chunks end at every
/// multiple of `chunk_size` (and at the end of `data`).
#[cfg(feature = "bytes")]
struct Chunked {
    data: Vec<u8>,
    data_len: usize,
    chunk_size: usize,
    pos: usize,
}

#[cfg(feature = "bytes")]
impl Chunked {
    fn new(data: &[u8], chunk_size: usize, after: &[u8]) -> Self {
        Chunked {
            data: [data, after].concat(),
            data_len: data.len(),
            chunk_size,
            pos: 0,
        }
    }
}

#[cfg(feature = "bytes")]
impl bytes::Buf for Chunked {
    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    fn chunk(&self) -> &[u8] {
        let end = if self.pos < self.data_len {
            let next_seam = (self.pos / self.chunk_size + 1).saturating_mul(self.chunk_size);
            next_seam.min(self.data_len)
        } else {
            self.data.len()
        };
        &self.data[self.pos..end]
    }
    fn advance(&mut self, cnt: usize) {
        assert!(cnt <= self.remaining());
        self.pos += cnt;
    }
}

/// Packed `bool`s, which the helpers take as their bytes (every `bool` is
/// the 1-byte varint 0 or 1): each helper against the same field built
/// value by value, on 0..3000 values, and `decode_packed` on payloads of
/// arbitrary 1-byte varints (non-zero is `true`) and with a byte that
/// continues (an overlong `bool`, or an error), against repeated `decode`.
#[test]
fn packed_bools_agree_with_value_by_value() {
    let mut next = xorshift(0x6a09_e667_f3bc_c909u64);
    for round in 0..300 {
        let count = match round % 3 {
            0 => (next() % 40) as usize,
            1 => (next() % 300) as usize,
            _ => (next() % 3000) as usize,
        };
        let values: Vec<bool> = (0..count).map(|_| next() % 3 != 0).collect();
        let mut field = Vec::new();
        reference_encode_append(count as u64, &mut field);
        field.extend(values.iter().map(|&v| u8::from(v)));
        assert_eq!(pb_bool::encoded_len_packed(&values), count);
        let mut encoded = vec![0xee];
        assert_eq!(pb_bool::encode_packed(&values, &mut encoded), field.len());
        assert_eq!(encoded[1..], field[..], "{count} bools");
        #[cfg(feature = "bytes")]
        {
            let mut put = bytes::BytesMut::new();
            assert_eq!(pb_bool::put_packed(&values, &mut put), field.len());
            assert_eq!(put[..], field[..]);
            let mut exact = vec![0u8; field.len()];
            assert_eq!(
                pb_bool::put_packed(&values, &mut &mut exact[..]),
                field.len()
            );
            assert_eq!(exact, field);
        }

        // Any 1-byte varints, then perhaps one byte that continues.
        let mut payload: Vec<u8> = (0..count)
            .map(|_| (next() % 128) as u8 >> (next() % 8))
            .collect();
        if !payload.is_empty() && round % 2 == 0 {
            let at = (next() as usize) % payload.len();
            payload[at] |= 0x80;
        }
        let mut expected = vec![true];
        let mut rest = &payload[..];
        let mut expected_result = Ok(payload.len());
        while !rest.is_empty() {
            match pb_bool::decode(rest) {
                Ok((value, len)) => {
                    expected.push(value);
                    rest = &rest[len..];
                }
                Err(error) => {
                    expected_result = Err((error, expected.len() - 1, payload.len() - rest.len()));
                    break;
                }
            }
        }
        let mut got = vec![true];
        let result = pb_bool::decode_packed(&payload, &mut got)
            .map_err(|error| (error.kind(), error.index(), error.offset()));
        assert_eq!(
            result,
            expected_result.map(|_| expected.len() - 1),
            "{count} bytes"
        );
        assert_eq!(got, expected);
    }
}

/// `put_packed` and `get_packed` against `encode_packed` and
/// `decode_packed` on fields of 0..600 values (both sides of the short
/// path and several bulk batches), whole and in chunks, with a malformed
/// element or a short buffer: the same values, error, index and offset.
#[cfg(feature = "bytes")]
#[test]
fn bytes_packed_helpers_agree_with_the_vec_ones() {
    let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
    for round in 0..400 {
        let count = match round % 4 {
            0 => (next() % 40) as usize,
            1 => (next() % 300) as usize,
            _ => (next() % 600) as usize,
        };
        let values: Vec<i32> = (0..count)
            .map(|_| match next() % 20 {
                0 => next() as i32,
                1 => -((next() % 100) as i32),
                2..=4 => (next() % 16_384) as i32,
                _ => (next() % 128) as i32,
            })
            .collect();
        let mut field = Vec::new();
        int32::encode_packed(&values, &mut field);
        let mut put = Vec::new();
        assert_eq!(int32::put_packed(&values, &mut put), field.len());
        assert_eq!(put, field, "{count} values");
        let mut exact = vec![0u8; field.len()];
        assert_eq!(int32::put_packed(&values, &mut &mut exact[..]), field.len());
        assert_eq!(exact, field);

        let (payload, _) = protobuf::decode_length_delimited(&field).unwrap();
        let mut payload = payload.to_vec();
        if !payload.is_empty() && round % 3 == 0 {
            // A continuation bit where there was none: an error, or a
            // shorter field.
            let at = (next() as usize) % payload.len();
            payload[at] |= 0x80;
        }
        let mut expected = Vec::new();
        let expected_result = int32::decode_packed(&payload, &mut expected);
        for chunk_size in [1, 5, 16, 200, usize::MAX] {
            let mut buf = Chunked::new(&payload, chunk_size, &[]);
            let mut got = Vec::new();
            let result = int32::get_packed(&mut buf, payload.len(), &mut got);
            assert_eq!(
                result, expected_result,
                "{count} values, chunks of {chunk_size}"
            );
            assert_eq!(got, expected, "{count} values, chunks of {chunk_size}");
            if result.is_ok() {
                assert_eq!(bytes::Buf::remaining(&buf), 0);
            }
        }
        // Fewer bytes than the length says: nothing read.
        let mut buf = Chunked::new(&payload, 7, &[]);
        let mut got = Vec::new();
        let error = int32::get_packed(&mut buf, payload.len() + 1, &mut got).unwrap_err();
        assert_eq!(
            (error.kind(), error.index(), error.offset()),
            (DecodeError::Truncated, 0, 0)
        );
        assert_eq!(bytes::Buf::remaining(&buf), payload.len());
    }
}

#[test]
fn packed_vectors_through_the_packed_helpers() {
    let rows = packed_rows();
    assert!(rows.len() >= 60);
    for row in &rows {
        match row.field {
            "uint64" => {
                check_packed!(uint64, row, u64);
                // The same payload as `bool`: non-zero is true.
                let mut flags = Vec::new();
                pb_bool::decode_packed(&row.payload, &mut flags).unwrap();
                let expected: Vec<bool> = row.values.iter().map(|v| *v != "0").collect();
                assert_eq!(flags, expected, "line {}", row.line);
            }
            "uint32" => check_packed!(uint32, row, u32),
            "int64" => check_packed!(int64, row, i64),
            "int32" => {
                check_packed!(int32, row, i32);
                check_packed!(enumeration, row, i32);
            }
            "sint32" => check_packed!(sint32, row, i32),
            "sint64" => check_packed!(sint64, row, i64),
            other => panic!("line {}: unknown field type {other}", row.line),
        }
    }
}

#[test]
fn packed_errors_match_decode_slice() {
    // 300 valid values (several bulk batches), then a cut-off varint or an
    // overflowing one, then more values.
    let mut payload = Vec::new();
    for i in 0..300u64 {
        let value = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (i % 64);
        payload
            .extend_from_slice(&varint_turbo::encode(value).0[..varint_turbo::encoded_len(value)]);
    }
    let valid_len = payload.len();
    for tail in [
        &[0x80u8][..],
        &[0xff; 11][..],
        &[
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x01,
        ][..],
    ] {
        payload.truncate(valid_len);
        payload.extend_from_slice(tail);
        let mut reference = vec![0u64; payload.len()];
        let expected = varint_turbo::decode_slice(&payload, &mut reference).unwrap_err();
        assert_eq!((expected.index(), expected.offset()), (300, valid_len));

        let mut out = Vec::new();
        assert_eq!(uint64::decode_packed(&payload, &mut out), Err(expected));
        assert_eq!(out[..], reference[..300]);
        let mut out = Vec::new();
        assert_eq!(sint32::decode_packed(&payload, &mut out), Err(expected));
        assert_eq!(out.len(), 300);
    }
}

/// The independent spelling of each type's conversion from the 64-bit
/// wire value, as the protobuf specification gives it.
fn zigzag32_reference(wire: u64) -> i32 {
    let low = wire as u32;
    ((low >> 1) as i32) ^ -((low & 1) as i32)
}

proptest! {
    #[test]
    fn every_type_narrows_a_64_bit_varint_by_truncation(wire in any::<u64>(), padding in 0usize..4) {
        let mut bytes = reference_encode(wire);
        // A non-minimal encoding of the same value (within 10 bytes) reads the same.
        for _ in 0..padding.min(10 - bytes.len()) {
            *bytes.last_mut().unwrap() |= 0x80;
            bytes.push(0);
        }
        let len = bytes.len();
        prop_assert_eq!(uint64::decode(&bytes), Ok((wire, len)));
        prop_assert_eq!(int64::decode(&bytes), Ok((wire as i64, len)));
        prop_assert_eq!(uint32::decode(&bytes), Ok(((wire & 0xffff_ffff) as u32, len)));
        prop_assert_eq!(int32::decode(&bytes), Ok(((wire & 0xffff_ffff) as u32 as i32, len)));
        prop_assert_eq!(enumeration::decode(&bytes), Ok(((wire & 0xffff_ffff) as u32 as i32, len)));
        prop_assert_eq!(sint32::decode(&bytes), Ok((zigzag32_reference(wire), len)));
        prop_assert_eq!(sint64::decode(&bytes), Ok((reference_zigzag_decode::<i64>(wire), len)));
        prop_assert_eq!(pb_bool::decode(&bytes), Ok((wire != 0, len)));
    }

    #[test]
    fn every_type_encodes_its_wire_value(value in any::<i64>()) {
        let narrow = value as i32;
        prop_assert_eq!(int64::encode(value), varint_turbo::encode(value as u64));
        prop_assert_eq!(int32::encode(narrow), varint_turbo::encode(i64::from(narrow) as u64));
        prop_assert_eq!(uint32::encode(narrow as u32), varint_turbo::encode(narrow as u32));
        prop_assert_eq!(sint64::encode(value), varint_turbo::encode_zigzag(value));
        prop_assert_eq!(sint32::encode(narrow), varint_turbo::encode_zigzag(narrow));
        prop_assert_eq!(pb_bool::encode(value < 0), varint_turbo::encode(u8::from(value < 0)));
    }

    #[test]
    fn field_keys_round_trip(field_number in 1u32..=FieldKey::MAX_FIELD_NUMBER, bits in 0u8..6) {
        let wire_type = WireType::from_bits(bits).unwrap();
        let key = FieldKey::new(field_number, wire_type).unwrap();
        let (bytes, len) = key.encode();
        let expected = reference_encode(u64::from(field_number) << 3 | u64::from(bits));
        prop_assert_eq!(&bytes[..usize::from(len)], &expected[..]);
        prop_assert_eq!(key.encoded_len(), expected.len());
        prop_assert_eq!(FieldKey::decode(&expected), Ok((key, expected.len())));
    }
}

#[test]
fn field_key_limits_and_errors() {
    let max = FieldKey::MAX_FIELD_NUMBER;
    assert_eq!(max, (1 << 29) - 1);
    for (number, len) in [(1, 1), (15, 1), (16, 2), (2047, 2), (2048, 3), (max, 5)] {
        assert_eq!(
            FieldKey::new(number, WireType::I32).unwrap().encoded_len(),
            len
        );
    }
    assert_eq!(
        FieldKey::new(0, WireType::Len),
        Err(KeyError::FieldNumber(0))
    );
    assert_eq!(
        FieldKey::new(max + 1, WireType::Len),
        Err(KeyError::FieldNumber(u64::from(max) + 1))
    );
    for bits in 0..8u8 {
        let decoded = FieldKey::decode(&[8 | bits]);
        match WireType::from_bits(bits) {
            Some(wire_type) => {
                assert_eq!(decoded, Ok((FieldKey::new(1, wire_type).unwrap(), 1)));
                assert_eq!(wire_type as u8, bits);
            }
            None => assert_eq!(decoded, Err(KeyError::WireType(bits))),
        }
    }
    // Field number 2^29: one past the limit, in a 5-byte key.
    let too_big = reference_encode(1 << 32);
    assert_eq!(
        FieldKey::decode(&too_big),
        Err(KeyError::FieldNumber(1 << 29))
    );
    assert_eq!(
        FieldKey::decode(&[0x80, 0x80]),
        Err(KeyError::Varint(DecodeError::Truncated))
    );
    assert_eq!(
        FieldKey::decode(&[0xff; 10]),
        Err(KeyError::Varint(DecodeError::Overflow))
    );
    assert_eq!(FieldKey::decode(&[0x00]), Err(KeyError::FieldNumber(0)));
    // A padded key is accepted, as protobuf parsers accept it.
    assert_eq!(
        FieldKey::decode(&[0x88, 0x00]),
        Ok((FieldKey::new(1, WireType::Varint).unwrap(), 2))
    );
}

#[test]
fn length_delimited_values() {
    let body = [0x61u8; 300];
    let mut field = reference_encode(300);
    field.extend_from_slice(&body);
    field.push(0x99); // the next field
    assert_eq!(
        protobuf::decode_length_delimited(&field),
        Ok((&body[..], 302))
    );
    for cut in 0..field.len() - 1 {
        assert_eq!(
            protobuf::decode_length_delimited(&field[..cut]),
            Err(DecodeError::Truncated),
            "cut at {cut}"
        );
    }
    assert_eq!(protobuf::decode_length_delimited(&[0x00]), Ok((&[][..], 1)));
    assert_eq!(
        protobuf::decode_length_delimited(&[0xff; 10]),
        Err(DecodeError::Overflow)
    );
    // A length near u64::MAX must not wrap around.
    let huge = reference_encode(u64::MAX);
    assert_eq!(
        protobuf::decode_length_delimited(&huge),
        Err(DecodeError::Truncated)
    );
}

/// Long packed fields (several stack batches, which the SIMD decoders end
/// where whole blocks stop fitting and resume from the bytes before the
/// next): one-byte runs, small counts, two-byte runs, the mix, int32 with
/// negative values and full `u64`s, with a corrupted byte, an overlong varint or a cut-off end
/// anywhere, through every type's `decode_packed` against repeated single
/// decodes (the ecosystem oracle's protobuf checks).
#[test]
fn long_packed_fields_agree_with_repeated_decodes() {
    let mut next = xorshift(0x0123_4567_89ab_cdefu64);
    for case in 0..240 {
        let count = 200 + (next() % 3000) as usize;
        let mut stream = Vec::new();
        for _ in 0..count {
            let r = next();
            let value = match case % 6 {
                0 => r % 128,
                1 if r % 100 < 95 => r % 128,
                1 | 2 => 128 + r % 16_000,
                3 => match r % 100 {
                    0..=59 => r % 128,
                    60..=84 => 128 + (r >> 8) % 16_000,
                    _ => (r >> 8) % (1 << 28),
                },
                // int32 with 10% negative values (10-byte varints), where
                // the 32-bit first pass hands over to the 64-bit one.
                4 if r % 10 == 0 => (r as i32).min(-1) as i64 as u64,
                4 => r % 300,
                _ => r,
            };
            reference_encode_append(value, &mut stream);
        }
        let at = (next() as usize) % stream.len();
        match next() % 4 {
            0 => stream[at] |= 0x80,
            1 => stream.splice(at..at, [0xff; 11]).for_each(drop),
            2 => stream.push(0x80),
            _ => {}
        }
        ecosystem::check_protobuf(&stream, &differential::values_from_stream(&stream));
    }
}
