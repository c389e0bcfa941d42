//! The published test vectors of `tests/data` (Go protowire, Python protobuf
//! / upb, fastavro; see `tests/data/README.md`) through every backend.

use crate::common;

use common::*;
use varint_turbo::DecodeError;

const SINGLE: &str = include_str!("../data/single.tsv");
const ENCODE: &str = include_str!("../data/encode.tsv");
const PACKED: &str = include_str!("../data/packed.tsv");

// ---------------------------------------------------------------------------
// single.tsv
// ---------------------------------------------------------------------------

/// A `single.tsv` row: the input and what Go `ConsumeVarint` returned.
struct SingleRow {
    line: usize,
    input: Vec<u8>,
    expected: Result<(u64, usize), DecodeError>,
}

fn single_rows() -> Vec<SingleRow> {
    tsv_rows(SINGLE, 3)
        .into_iter()
        .map(|(line, f)| {
            assert_eq!(f[0], "u64", "line {line}: type");
            let words: Vec<&str> = f[2].split(' ').collect();
            let expected = match words.as_slice() {
                ["OK", value, len] => Ok((value.parse().unwrap(), len.parse().unwrap())),
                ["ERR", "truncated"] => Err(DecodeError::Truncated),
                ["ERR", "overflow"] => Err(DecodeError::Overflow),
                _ => panic!("line {line}: bad expectation {:?}", f[2]),
            };
            SingleRow {
                line,
                input: unhex(f[1]),
                expected,
            }
        })
        .collect()
}

/// The expectation of a u64 row for a narrower (or equal) type `T`, derived
/// from the file by the narrowing rules:
/// * OK(v, n): OK if n <= MAX_LEN and v fits T, else Overflow (the varint is
///   complete, so it can only be too long or too large);
/// * Overflow stays Overflow (a u64 overflow means 10 continuing bytes or a
///   value of 65+ bits, both longer/larger than any narrower type allows);
/// * Truncated: the input is all continuation bytes, so it is Overflow for T
///   once it is at least T::MAX_LEN bytes long, else still Truncated.
fn narrowed<T: TestInt>(row: &SingleRow) -> Result<(T, usize), DecodeError> {
    match row.expected {
        Ok((value, len)) => match T::from_u64(value) {
            Some(v) if len <= T::REF_MAX_LEN => Ok((v, len)),
            _ => Err(DecodeError::Overflow),
        },
        Err(DecodeError::Overflow) => Err(DecodeError::Overflow),
        Err(DecodeError::Truncated) if row.input.len() >= T::REF_MAX_LEN => {
            Err(DecodeError::Overflow)
        }
        Err(DecodeError::Truncated) => Err(DecodeError::Truncated),
        Err(other) => panic!("line {}: no rule for {other:?}", row.line),
    }
}

#[test]
fn single_tsv_every_row_every_backend_every_type() {
    fn one<T: TestInt>(backends: &[Backend], row: &SingleRow) {
        let expected = narrowed::<T>(row);
        let reference = reference_decode::<T>(&row.input);
        assert_eq!(
            reference,
            expected,
            "line {}: reference decoder vs. the narrowing rules for {} on {}",
            row.line,
            T::NAME,
            hex(&row.input)
        );
        check_decode_expecting::<T>(backends, &row.input, expected);
        check_decode_unchecked::<T>(backends, &padded(&row.input, 0x00));
        check_decode_unchecked::<T>(backends, &padded(&row.input, 0xff));
    }
    fn zigzag<S: TestSigned>(backends: &[Backend], row: &SingleRow) {
        check_decode_zigzag::<S>(backends, &row.input);
    }

    let backends = backends();
    let rows = single_rows();
    assert!(rows.len() > 1000, "only {} rows in single.tsv", rows.len());
    let (mut ok, mut truncated, mut overflow) = (0, 0, 0);
    for row in &rows {
        match row.expected {
            Ok(_) => ok += 1,
            Err(DecodeError::Truncated) => truncated += 1,
            Err(DecodeError::Overflow) => overflow += 1,
            Err(other) => panic!("line {}: unknown error {other:?}", row.line),
        }
        // The oracle agrees with Go on u64 before it is trusted for the
        // narrower types.
        assert_eq!(
            reference_decode::<u64>(&row.input),
            row.expected,
            "line {}: reference decoder disagrees with Go on {}",
            row.line,
            hex(&row.input)
        );
        // u64 (and usize on 64-bit targets): exactly the file.
        check_decode_expecting::<u64>(&backends, &row.input, row.expected);
        if usize::BITS == 64 {
            let expected = row.expected.map(|(v, n)| (v as usize, n));
            check_decode_expecting::<usize>(&backends, &row.input, expected);
        }
        for_each_unsigned!(one(&backends, row));
        for_each_signed!(zigzag(&backends, row));
        if let Ok((value, len)) = row.expected {
            // Go's value and length, once more spelled out for zigzag.
            let (z, n) = varint_turbo::decode_zigzag::<i64>(&row.input).unwrap();
            assert_eq!((z, n), (reference_zigzag_decode::<i64>(value), len));
            // And decode_unchecked sees the same varint in a 16-byte window
            // (the varint is at most 10 bytes; what follows is ignored).
            for &b in &backends {
                assert_eq!(
                    b.decode_unchecked_buf::<u64>(&padded(&row.input, 0x00)),
                    (value, len)
                );
            }
        }
    }
    assert!(
        ok > 0 && truncated > 0 && overflow > 0,
        "ok {ok}, truncated {truncated}, overflow {overflow}"
    );
}

// ---------------------------------------------------------------------------
// encode.tsv
// ---------------------------------------------------------------------------

#[test]
fn encode_tsv_every_row_every_backend() {
    fn unsigned<T: TestInt>(backends: &[Backend], value: u64, bytes: &[u8], line: usize) {
        let Some(v) = T::from_u64(value) else { return };
        assert_eq!(
            varint_turbo::encoded_len(v),
            bytes.len(),
            "line {line}: encoded_len::<{}>",
            T::NAME
        );
        for &b in backends {
            let (out, len) = b.encode(v);
            assert_eq!(
                &out[..usize::from(len)],
                bytes,
                "line {line}: {}: encode::<{}>({value})",
                b.name(),
                T::NAME
            );
            assert!(
                out[usize::from(len)..].iter().all(|&x| x == 0),
                "line {line}: padding"
            );
            let mut exact = vec![0xeeu8; bytes.len()];
            assert_eq!(b.encode_to_slice(v, &mut exact), bytes.len());
            assert_eq!(
                exact,
                bytes,
                "line {line}: {}: encode_to_slice::<{}>({value})",
                b.name(),
                T::NAME
            );
            let mut big = [0xeeu8; 16];
            assert_eq!(b.encode_to_slice(v, &mut big), bytes.len());
            assert_eq!(&big[..bytes.len()], bytes);
            assert_eq!(
                b.decode::<T>(bytes),
                Ok((v, bytes.len())),
                "line {line}: {}: decode",
                b.name()
            );
        }
        check_encode::<T>(backends, v);
    }
    fn signed<S: TestSigned>(backends: &[Backend], value: i64, bytes: &[u8], line: usize) {
        let v = S::from_i64(value)
            .unwrap_or_else(|| panic!("line {line}: {value} out of range for {}", S::NAME));
        for &b in backends {
            let (out, len) = b.encode_zigzag(v);
            assert_eq!(
                &out[..usize::from(len)],
                bytes,
                "line {line}: {}: encode_zigzag::<{}>({value})",
                b.name(),
                S::NAME
            );
            let mut exact = vec![0xeeu8; bytes.len()];
            assert_eq!(b.encode_zigzag_to_slice(v, &mut exact), bytes.len());
            assert_eq!(
                exact,
                bytes,
                "line {line}: {}: encode_zigzag_to_slice",
                b.name()
            );
            assert_eq!(
                b.decode_zigzag::<S>(bytes),
                Ok((v, bytes.len())),
                "line {line}: {}: decode_zigzag",
                b.name()
            );
        }
        assert_eq!(varint_turbo::zigzag_encode(v), reference_zigzag_encode(v));
        assert_eq!(
            varint_turbo::encoded_len(varint_turbo::zigzag_encode(v)),
            bytes.len()
        );
        check_encode_zigzag::<S>(backends, v);
    }

    let backends = backends();
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for (line, f) in tsv_rows(ENCODE, 3) {
        let bytes = unhex(f[2]);
        assert!((1..=10).contains(&bytes.len()), "line {line}");
        *counts.entry(f[0]).or_default() += 1;
        match f[0] {
            "u64" => {
                let value: u64 = f[1].parse().unwrap();
                assert_eq!(
                    reference_encode(value),
                    bytes,
                    "line {line}: reference encoder"
                );
                for_each_unsigned!(unsigned(&backends, value, &bytes, line));
            }
            "sint32" | "avro_int" => {
                let value: i32 = f[1].parse().unwrap();
                assert!(bytes.len() <= 5, "line {line}");
                signed::<i32>(&backends, value.into(), &bytes, line);
                signed::<i64>(&backends, value.into(), &bytes, line);
                signed::<isize>(&backends, value.into(), &bytes, line);
                if let Ok(v) = i16::try_from(value) {
                    signed::<i16>(&backends, v.into(), &bytes, line);
                }
                if let Ok(v) = i8::try_from(value) {
                    signed::<i8>(&backends, v.into(), &bytes, line);
                }
            }
            "sint64" | "avro_long" => {
                let value: i64 = f[1].parse().unwrap();
                signed::<i64>(&backends, value, &bytes, line);
                if let Ok(v) = i32::try_from(value) {
                    signed::<i32>(&backends, v.into(), &bytes, line);
                }
            }
            "int32" => {
                // Sign-extended to 64 bits, encoded as u64 (10 bytes if negative).
                let value: i32 = f[1].parse().unwrap();
                let wide = value as i64 as u64;
                assert_eq!(bytes.len() == 10, value < 0, "line {line}");
                assert_eq!(
                    reference_encode(wide),
                    bytes,
                    "line {line}: reference encoder"
                );
                unsigned::<u64>(&backends, wide, &bytes, line);
                for &b in &backends {
                    let (v, n) = b.decode::<u64>(&bytes).unwrap();
                    assert_eq!(
                        (v as i64 as i32, n),
                        (value, bytes.len()),
                        "line {line}: {}",
                        b.name()
                    );
                }
            }
            other => panic!("line {line}: unknown type {other:?}"),
        }
    }
    for kind in ["u64", "sint32", "sint64", "int32", "avro_int", "avro_long"] {
        assert!(
            counts.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} rows in encode.tsv: {counts:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// packed.tsv
// ---------------------------------------------------------------------------

/// A decoded element of a packed field, as the file lists it.
fn decode_element(
    backend: Backend,
    field: &str,
    input: &[u8],
) -> Result<(String, usize), DecodeError> {
    Ok(match field {
        "uint64" => backend
            .decode::<u64>(input)
            .map(|(v, n)| (v.to_string(), n))?,
        "uint32" => backend
            .decode::<u32>(input)
            .map(|(v, n)| (v.to_string(), n))?,
        "int64" => backend
            .decode::<u64>(input)
            .map(|(v, n)| ((v as i64).to_string(), n))?,
        "int32" => backend
            .decode::<u64>(input)
            .map(|(v, n)| ((v as i64 as i32).to_string(), n))?,
        "sint32" => backend
            .decode_zigzag::<i32>(input)
            .map(|(v, n)| (v.to_string(), n))?,
        "sint64" => backend
            .decode_zigzag::<i64>(input)
            .map(|(v, n)| (v.to_string(), n))?,
        other => panic!("unknown field type {other:?}"),
    })
}

/// The element's varint, re-encoded from its listed decimal value.
fn encode_element(backend: Backend, field: &str, value: &str, out: &mut [u8]) -> usize {
    match field {
        "uint64" => backend.encode_to_slice(value.parse::<u64>().unwrap(), out),
        "uint32" => backend.encode_to_slice(value.parse::<u32>().unwrap(), out),
        "int64" => backend.encode_to_slice(value.parse::<i64>().unwrap() as u64, out),
        "int32" => backend.encode_to_slice(i64::from(value.parse::<i32>().unwrap()) as u64, out),
        "sint32" => backend.encode_zigzag_to_slice(value.parse::<i32>().unwrap(), out),
        "sint64" => backend.encode_zigzag_to_slice(value.parse::<i64>().unwrap(), out),
        other => panic!("unknown field type {other:?}"),
    }
}

#[test]
fn packed_tsv_every_payload_every_backend() {
    let backends = backends();
    let mut counts = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    for (line, f) in tsv_rows(PACKED, 3) {
        let (field, payload) = (f[0], unhex(f[1]));
        let values: Vec<&str> = if f[2].is_empty() {
            vec![]
        } else {
            f[2].split(',').collect()
        };
        assert_eq!(payload.is_empty(), values.is_empty(), "line {line}");
        let entry = counts.entry(field).or_default();
        entry.0 += 1;
        entry.1 += values.len();
        for &backend in &backends {
            // Decode by repeated single decodes. The payload slice ends where
            // the payload ends, so the last varints take the short-input path.
            let mut decoded = Vec::with_capacity(values.len());
            let mut pos = 0;
            while pos < payload.len() {
                let (value, n) =
                    decode_element(backend, field, &payload[pos..]).unwrap_or_else(|e| {
                        panic!("line {line}: {}: {e} at byte {pos}", backend.name())
                    });
                assert!((1..=10).contains(&n));
                decoded.push(value);
                pos += n;
            }
            assert_eq!(pos, payload.len(), "line {line}");
            assert_eq!(
                decoded,
                values,
                "line {line}: {}: {field} values",
                backend.name()
            );

            // Re-encode into a buffer of exactly the payload's size, so the
            // last elements get short slices.
            let mut out = vec![0u8; payload.len()];
            let mut pos = 0;
            for value in &values {
                pos += encode_element(backend, field, value, &mut out[pos..]);
            }
            assert_eq!(
                pos,
                payload.len(),
                "line {line}: {}: re-encoded length",
                backend.name()
            );
            assert_eq!(
                out,
                payload,
                "line {line}: {}: re-encoded {field} payload",
                backend.name()
            );
        }
    }
    for kind in ["uint64", "uint32", "int64", "int32", "sint32", "sint64"] {
        let (rows, elements) = counts.get(kind).copied().unwrap_or_default();
        assert!(
            rows > 0 && elements > 0,
            "no {kind} data in packed.tsv: {counts:?}"
        );
    }
}
