//! The packed-field functions of every protobuf type (`decode_packed`,
//! `encode_packed`, `put_packed`) against a value-by-value reference: every
//! length 0..=300 and random longer ones, several value shapes, appending
//! to non-empty `Vec`s with every kind of spare capacity (none, a little,
//! exact, plenty: the paths that decode or encode straight into it), a
//! malformed element at every index, and `put_packed` into buffers that end
//! at a guard page with every room around the field's size.

use crate::common;

use common::*;
use varint_turbo::protobuf::{
    bool as pb_bool, enumeration, int32, int64, sint32, sint64, uint32, uint64,
};
use varint_turbo::{BulkDecodeError, DecodeError};

/// Wire values of one shape, `count` of them.
fn wire_values(shape: u64, count: usize, next: &mut impl FnMut() -> u64) -> Vec<u64> {
    (0..count)
        .map(|_| match shape {
            0 => next() % 128,
            1 => {
                if next() % 20 == 0 {
                    128 + next() % 16_256
                } else {
                    next() % 128
                }
            }
            2 => match next() % 20 {
                0 => next(),
                1 => i64::from(-((next() % 1000) as i32)) as u64,
                2..=6 => next() % (1 << 14),
                7..=8 => next() % (1 << 28),
                _ => next() % 128,
            },
            _ => next() >> (next() % 64),
        })
        .collect()
}

/// The field body `encode_packed` must append: the reference encoder's.
fn reference_field(wire: &[u64]) -> Vec<u8> {
    let mut payload = Vec::new();
    for &w in wire {
        reference_encode_append(w, &mut payload);
    }
    let mut field = reference_encode(payload.len() as u64);
    field.extend_from_slice(&payload);
    field
}

/// A packed decode's outcome: the count, or (kind, index, offset).
type Outcome = Result<usize, (DecodeError, usize, usize)>;

/// Repeated single-value decodes (the shared differential reference): the
/// values before the first error and the outcome.
fn reference_packed<V>(
    payload: &[u8],
    decode: impl Fn(&[u8]) -> Result<(V, usize), DecodeError>,
) -> (Vec<V>, Outcome) {
    let (values, outcome) = common::differential::repeated_decode(payload, usize::MAX, decode);
    (values, outcome.map(|(n, _)| n))
}

fn parts(result: Result<usize, BulkDecodeError>) -> Outcome {
    result.map_err(|e| (e.kind(), e.index(), e.offset()))
}

/// `Vec`s holding `prefix`, with spare capacities around `n` slots.
fn outputs<T: Clone>(prefix: &[T], n: usize) -> Vec<Vec<T>> {
    [0, 1, n.saturating_sub(1), n, n + 1, 3 * n + 40]
        .into_iter()
        .map(|spare| {
            let mut out = Vec::with_capacity(prefix.len() + spare);
            out.extend_from_slice(prefix);
            out
        })
        .collect()
}

/// Checks one type on one list of wire values (which its values must
/// round-trip) and on payloads broken at every index.
macro_rules! check_type {
    ($module:ident, $t:ty, $wire:expr, $every_error:expr) => {{
        let wire: &[u64] = $wire;
        let name = stringify!($module);
        let values: Vec<$t> = wire
            .iter()
            .map(|&w| $module::decode(&reference_encode(w)).unwrap().0)
            .collect();
        let field = reference_field(wire);
        let (payload, _) = varint_turbo::protobuf::decode_length_delimited(&field).unwrap();
        // encode_packed appends to every kind of Vec.
        for mut out in outputs(&[0xa5u8, 0x5a, 0xff], field.len()) {
            let written = $module::encode_packed(&values, &mut out);
            assert_eq!(written, field.len(), "{name}: {} values", values.len());
            assert_eq!(&out[..3], &[0xa5, 0x5a, 0xff]);
            assert_eq!(&out[3..], &field[..], "{name}: {} values", values.len());
        }
        // put_packed into a growable buffer and an exact slice.
        #[cfg(feature = "bytes")]
        {
            let mut put = bytes::BytesMut::new();
            bytes::BufMut::put_slice(&mut put, &[7]);
            assert_eq!($module::put_packed(&values, &mut put), field.len());
            assert_eq!(&put[1..], &field[..], "{name}: put_packed");
            let mut exact = vec![0u8; field.len()];
            assert_eq!(
                $module::put_packed(&values, &mut &mut exact[..]),
                field.len()
            );
            assert_eq!(exact, field, "{name}: put_packed into an exact slice");
        }
        // decode_packed appends to every kind of Vec.
        let prefix: [$t; 2] = [values.first().copied().unwrap_or_default(); 2];
        for mut out in outputs(&prefix, values.len()) {
            let got = $module::decode_packed(payload, &mut out);
            assert_eq!(got, Ok(values.len()), "{name}: {} values", values.len());
            assert_eq!(&out[..2], &prefix);
            assert_eq!(&out[2..], &values[..], "{name}: {} values", values.len());
        }
        // A malformed element at each index: cut off (the payload ends in
        // it), or over-long (11 bytes) with more values after it.
        let mut starts = vec![0];
        for &w in wire {
            starts.push(starts.last().unwrap() + reference_encode(w).len());
        }
        let n = wire.len();
        let indices: Vec<usize> = if $every_error {
            (0..n).collect()
        } else {
            [0, 1, n / 3, n / 2, n.saturating_sub(2), n.saturating_sub(1)]
                .into_iter()
                .filter(|&i| i < n)
                .collect()
        };
        for i in indices {
            let (at, end) = (starts[i], starts[i + 1]);
            let mut cut = payload[..at].to_vec();
            cut.extend_from_slice(&[0x80; 3][..(end - at).clamp(1, 3)]);
            let mut long = payload[..at].to_vec();
            long.extend_from_slice(&[0xff; 10]);
            long.push(0x01);
            long.extend_from_slice(&payload[at..]);
            for broken in [cut, long] {
                let (expected, result) = reference_packed(&broken, $module::decode);
                assert!(result.is_err());
                for spare in [0, values.len() + 1] {
                    let mut out = Vec::with_capacity(2 + spare);
                    out.extend_from_slice(&prefix);
                    let got = parts($module::decode_packed(&broken, &mut out));
                    assert_eq!(got, result, "{name}: bad element {i} of {}", values.len());
                    assert_eq!(&out[2..], &expected[..], "{name}: kept before {i}");
                }
            }
        }
    }};
}

/// Every type on lists of wire values its own values round-trip.
fn check_all(wire: &[u64], every_error: bool) {
    check_type!(uint64, u64, wire, every_error);
    check_type!(int64, i64, wire, every_error);
    let zig: Vec<u64> = wire.iter().map(|&w| w.rotate_left(1)).collect();
    check_type!(sint64, i64, &zig, every_error);
    let narrow: Vec<u64> = wire.iter().map(|&w| w & 0xffff_ffff).collect();
    check_type!(uint32, u32, &narrow, every_error);
    check_type!(sint32, i32, &narrow, every_error);
    let int32s: Vec<u64> = wire.iter().map(|&w| i64::from(w as i32) as u64).collect();
    check_type!(int32, i32, &int32s, every_error);
    check_type!(enumeration, i32, &int32s, every_error);
    let bools: Vec<u64> = wire.iter().map(|&w| w & 1).collect();
    check_type!(pb_bool, bool, &bools, every_error);
}

#[test]
fn every_length_to_300_agrees_with_the_reference() {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    for count in 0..=300 {
        for shape in 0..4 {
            let wire = wire_values(shape, count, &mut next);
            check_all(&wire, count <= 40 || count % 61 == 0);
        }
    }
}

#[test]
fn random_long_fields_agree_with_the_reference() {
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    for round in 0..24 {
        let count = 300 + (next() % 5000) as usize;
        let wire = wire_values(round % 4, count, &mut next);
        check_all(&wire, false);
    }
}

/// A field whose 10-byte varints (`int64` writers) read by truncation
/// into the 32-bit types, where they start past the first 64 bytes (the
/// narrow decoder meets them) and inside them (the 64-bit batches start).
#[test]
fn narrow_types_truncate_long_varints_anywhere() {
    for lead in [0usize, 3, 40, 70, 300] {
        let mut wire: Vec<u64> = (0..lead as u64).map(|i| i % 100).collect();
        wire.push(u64::MAX - 5);
        wire.push((1 << 40) + 7);
        wire.extend(0..20);
        let field = reference_field(&wire);
        let (payload, _) = varint_turbo::protobuf::decode_length_delimited(&field).unwrap();
        let mut out = vec![1u32];
        assert_eq!(uint32::decode_packed(payload, &mut out), Ok(wire.len()));
        let want: Vec<u32> = wire.iter().map(|&w| w as u32).collect();
        assert_eq!(&out[1..], &want[..], "uint32, {lead} before");
        let mut out = vec![1i32];
        assert_eq!(sint32::decode_packed(payload, &mut out), Ok(wire.len()));
        let want: Vec<i32> = wire
            .iter()
            .map(|&w| varint_turbo::zigzag_decode_i32(w as u32))
            .collect();
        assert_eq!(&out[1..], &want[..], "sint32, {lead} before");
        let mut out = Vec::new();
        assert_eq!(pb_bool::decode_packed(payload, &mut out), Ok(wire.len()));
        let want: Vec<bool> = wire.iter().map(|&w| w != 0).collect();
        assert_eq!(out, want, "bool, {lead} before");
    }
}

/// `encode_packed` writing straight into the spare capacity touches no
/// byte of it past the room its check asked for, `10 * values + 2` (the
/// bytes there keep a sentinel), whatever the values' lengths; past the
/// field but inside that room the single-value kernel may store zeros.
#[test]
fn encode_packed_leaves_the_rest_of_the_capacity_alone() {
    let mut next = xorshift(0x1234_5678_9abc_def1);
    for count in 0..=40 {
        let wire = wire_values(3, count, &mut next);
        let field = reference_field(&wire);
        let mut out: Vec<u8> = Vec::with_capacity(1000);
        out.resize(1000, 0xee);
        out.truncate(5);
        uint64::encode_packed(&wire, &mut out);
        assert_eq!(&out[5..], &field[..]);
        let end = 5 + 10 * count + 2;
        // SAFETY: all 1000 bytes were initialized by `resize`; whatever
        // `encode_packed` wrote into the capacity is initialized too.
        let all = unsafe { std::slice::from_raw_parts(out.as_ptr(), 1000) };
        assert!(
            all[end..].iter().all(|&b| b == 0xee),
            "{count} values: a byte past the room changed"
        );
    }
}

/// `put_packed` into a slice that ends at a guard page, with every room
/// from none to well past the field's size: the field whole, or a panic
/// with nothing written; never a write past the slice (that would fault).
#[cfg(all(unix, feature = "bytes"))]
#[test]
fn put_packed_never_writes_past_the_buffer() {
    use common::guarded_page::GuardedPage;
    let mut page = GuardedPage::new();
    let mut next = xorshift(0x0bad_5eed_f00d_cafe);
    for count in (0..=40).chain([64, 300]) {
        for shape in 0..4 {
            let wire = wire_values(shape, count, &mut next);
            let field = reference_field(&wire);
            let most = (10 * count + 40).min(4096);
            for room in (0..=most).filter(|&r| r + 12 >= field.len() || r % 13 == 0) {
                let buf = page.tail(room);
                buf.fill(0xcc);
                let mut cursor = &mut buf[..];
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    uint64::put_packed(&wire, &mut cursor)
                }));
                let buf = page.tail(room);
                if room >= field.len() {
                    assert_eq!(
                        result.ok(),
                        Some(field.len()),
                        "{count} values, room {room}"
                    );
                    assert_eq!(&buf[..field.len()], &field[..]);
                } else {
                    assert!(result.is_err(), "{count} values, room {room}: no panic");
                    assert!(buf.iter().all(|&b| b == 0xcc), "written before the panic");
                }
            }
        }
    }
}

/// The low 32 bits of `wire` as `int32` values, and their packed field
/// (negative ones sign-extended to 10 bytes).
fn int32_field_of(wire: &[u64]) -> (Vec<i32>, Vec<u8>) {
    let int32s: Vec<i32> = wire.iter().map(|&w| w as i32).collect();
    let sign_extended: Vec<u64> = int32s.iter().map(|&v| i64::from(v) as u64).collect();
    (int32s, reference_field(&sign_extended))
}

/// `put_packed` into a `BufMut` of two chunks (a chained pair of slices),
/// with the break at every byte of short fields and at spread-out bytes of
/// long ones: the field whole and in order, whatever chunk the bulk
/// encoder's in-place runs or the stack copy wrote it through.
#[cfg(feature = "bytes")]
#[test]
fn put_packed_across_chunks() {
    use bytes::BufMut;
    let mut next = xorshift(0x7a3c_9e11_04d2_5b6f);
    for count in [0, 1, 8, 31, 32, 33, 40, 100, 256, 257, 600, 3000] {
        for shape in 0..4 {
            let wire = wire_values(shape, count, &mut next);
            let field = reference_field(&wire);
            let (int32s, int32_field) = int32_field_of(&wire);
            let step = if field.len() < 200 { 1 } else { 37 };
            for split in (0..=field.len()).step_by(step) {
                let mut first = vec![0u8; split];
                let mut second = vec![0u8; field.len() + 16 - split];
                let mut buf = (&mut first[..]).chain_mut(&mut second[..]);
                assert_eq!(uint64::put_packed(&wire, &mut buf), field.len());
                let mut got = first.clone();
                got.extend_from_slice(&second[..field.len() - split]);
                assert_eq!(got, field, "uint64: {count} values, split at {split}");
                if split <= int32_field.len() {
                    let mut first = vec![0u8; split];
                    let mut second = vec![0u8; int32_field.len() - split];
                    let mut buf = (&mut first[..]).chain_mut(&mut second[..]);
                    assert_eq!(int32::put_packed(&int32s, &mut buf), int32_field.len());
                    first.extend_from_slice(&second);
                    assert_eq!(
                        first, int32_field,
                        "int32: {count} values, split at {split}"
                    );
                }
            }
        }
    }
}

/// `decode_packed` of payloads that end at a guard page reads nothing
/// past them.
#[cfg(unix)]
#[test]
fn decode_packed_never_reads_past_the_payload() {
    use common::guarded_page::GuardedPage;
    let mut page = GuardedPage::new();
    let mut next = xorshift(0x5151_7777_3333_9999);
    for count in 0..=200 {
        let wire = wire_values(count as u64 % 4, count, &mut next);
        let field = reference_field(&wire);
        let (payload, _) = varint_turbo::protobuf::decode_length_delimited(&field).unwrap();
        for cut in [0, 1] {
            let bytes = &payload[..payload.len().saturating_sub(cut)];
            let tail = page.tail(bytes.len());
            tail.copy_from_slice(bytes);
            let tail = &*page.tail(bytes.len());
            let (want, result) = reference_packed(tail, uint64::decode);
            let mut out = Vec::new();
            assert_eq!(parts(uint64::decode_packed(tail, &mut out)), result);
            assert_eq!(out, want);
            let (want, result) = reference_packed(tail, int32::decode);
            let mut out = Vec::new();
            assert_eq!(parts(int32::decode_packed(tail, &mut out)), result);
            assert_eq!(out, want);
            let (want, result) = reference_packed(tail, sint32::decode);
            let mut out = Vec::new();
            assert_eq!(parts(sint32::decode_packed(tail, &mut out)), result);
            assert_eq!(out, want);
        }
    }
}

/// Long fields whose first batch (256 values) predicts the wrong prefix
/// length: 10-byte values then 1-byte ones (the payload moves down a
/// byte) and the other way round (it moves up).
#[test]
fn long_fields_whose_first_batch_misleads_the_prefix() {
    for (first, rest) in [(u64::MAX, 1u64), (1, u64::MAX)] {
        for count in [300, 1700, 2000, 2100] {
            let wire: Vec<u64> = (0..count)
                .map(|i| if i < 256 { first } else { rest })
                .collect();
            let field = reference_field(&wire);
            let mut out = vec![9u8];
            assert_eq!(uint64::encode_packed(&wire, &mut out), field.len());
            assert_eq!(&out[1..], &field[..], "{count} values");
            let (int32s, int32_field) = int32_field_of(&wire);
            let mut out = Vec::new();
            assert_eq!(int32::encode_packed(&int32s, &mut out), int32_field.len());
            assert_eq!(out, int32_field, "int32, {count} values");
        }
    }
}
