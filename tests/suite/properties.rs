//! Randomised differential tests (proptest and quickcheck): every backend
//! against the reference of `common` on arbitrary inputs, and encode/decode
//! round trips for every type.

use crate::common;

use common::*;
use proptest::prelude::*;
use quickcheck::{Arbitrary, Gen, QuickCheck};

/// Cases for the decode-agreement properties (each case checks every type,
/// every backend, zigzag and `decode_unchecked`).
const AGREEMENT_CASES: u32 = 10_000;
/// Cases for the round-trip properties.
const ROUND_TRIP_CASES: u32 = 5_000;

// ---------------------------------------------------------------------------
// What each property checks (shared by proptest and quickcheck)
// ---------------------------------------------------------------------------

/// Every backend agrees with the reference on `input` for every type:
/// value, length, error kind; the API's `decode_len`; zigzag for every
/// signed type; and `decode_unchecked` on the input padded to 16 bytes.
fn agrees_with_reference(backends: &[Backend], input: &[u8]) {
    fn unsigned<T: TestInt>(backends: &[Backend], input: &[u8]) {
        check_all_decodes::<T>(backends, input);
    }
    fn signed<S: TestSigned>(backends: &[Backend], input: &[u8]) {
        check_decode_zigzag::<S>(backends, input);
    }
    for_each_unsigned!(unsigned(backends, input));
    for_each_signed!(signed(backends, input));
}

/// A valid varint of `value` followed by arbitrary bytes decodes to `value`
/// with the varint's length, for every type the value fits, and overflows for
/// the others.
fn valid_varint_then_trailing(backends: &[Backend], value: u64, trailing: &[u8]) {
    fn one<T: TestInt>(backends: &[Backend], value: u64, input: &[u8], len: usize) {
        let expected = match T::from_u64(value) {
            Some(v) if len <= T::REF_MAX_LEN => Ok((v, len)),
            _ => Err(varint_turbo::DecodeError::Overflow),
        };
        check_decode_expecting::<T>(backends, input, expected);
    }
    let encoding = reference_encode(value);
    let input = [&encoding[..], trailing].concat();
    for_each_unsigned!(one(backends, value, &input, encoding.len()));
}

/// encode -> decode round trip, encoded_len, encode_to_slice == encode, for
/// every unsigned type (the value truncated to the type's width).
fn round_trips(backends: &[Backend], value: u64) {
    fn one<T: TestInt>(backends: &[Backend], value: u64) {
        check_encode::<T>(backends, T::from_u64_wrapping(value));
    }
    for_each_unsigned!(one(backends, value));
}

/// The same for every zigzag type.
fn zigzag_round_trips(backends: &[Backend], value: i64) {
    fn one<S: TestSigned>(backends: &[Backend], value: i64) {
        check_encode_zigzag::<S>(backends, S::from_i64_wrapping(value));
    }
    for_each_signed!(one(backends, value));
}

/// `encode_to_slice` into any buffer of at least `encoded_len` bytes writes
/// what `encode` returns, and `encoded_len` is that length.
fn to_slice_equals_encode(backends: &[Backend], value: u64, extra: usize) {
    let len = varint_turbo::encoded_len(value);
    for &backend in backends {
        let (bytes, n) = backend.encode(value);
        assert_eq!(
            usize::from(n),
            len,
            "{}: encoded_len({value})",
            backend.name()
        );
        let mut buf = vec![0xa5u8; len + extra];
        assert_eq!(backend.encode_to_slice(value, &mut buf), len);
        assert_eq!(
            &buf[..len],
            &bytes[..len],
            "{}: encode_to_slice({value})",
            backend.name()
        );
        let mut zz = vec![0xa5u8; 10 + extra];
        let signed = value as i64;
        let (zbytes, zn) = backend.encode_zigzag(signed);
        assert_eq!(
            backend.encode_zigzag_to_slice(signed, &mut zz),
            usize::from(zn)
        );
        assert_eq!(&zz[..usize::from(zn)], &zbytes[..usize::from(zn)]);
    }
}

// ---------------------------------------------------------------------------
// proptest
// ---------------------------------------------------------------------------

/// Bytes biased toward continuation bytes (so long varints, truncation and
/// overflow are common) and toward the values where the rules change.
fn biased_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        5 => 0x80u8..=0xff,
        3 => any::<u8>(),
        2 => prop::sample::select(vec![0x00u8, 0x01, 0x02, 0x03, 0x04, 0x0f, 0x10, 0x7f, 0x80, 0x81, 0xfe, 0xff]),
    ]
}

fn biased_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(biased_byte(), 0..24)
}

/// A u64 with a uniformly chosen bit length, so every varint length is common.
fn any_width_u64() -> impl Strategy<Value = u64> {
    (0u32..=64, any::<u64>()).prop_map(|(bits, v)| {
        if bits == 64 {
            v
        } else {
            v & ((1u64 << bits) - 1)
        }
    })
}

/// An i64 with a uniformly chosen magnitude bit length and sign.
fn any_width_i64() -> impl Strategy<Value = i64> {
    (any_width_u64(), any::<bool>()).prop_map(|(v, negative)| {
        let v = (v >> 1) as i64;
        if negative {
            -v - 1
        } else {
            v
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(AGREEMENT_CASES))]

    #[test]
    fn proptest_every_backend_agrees_with_reference(input in biased_bytes()) {
        agrees_with_reference(&backends(), &input);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(AGREEMENT_CASES / 4))]

    #[test]
    fn proptest_every_backend_agrees_on_uniform_bytes(input in prop::collection::vec(any::<u8>(), 0..24)) {
        agrees_with_reference(&backends(), &input);
    }

    #[test]
    fn proptest_trailing_bytes_are_ignored(value in any_width_u64(), trailing in biased_bytes()) {
        valid_varint_then_trailing(&backends(), value, &trailing);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(ROUND_TRIP_CASES))]

    #[test]
    fn proptest_round_trip_every_type(value in any_width_u64()) {
        round_trips(&backends(), value);
    }

    #[test]
    fn proptest_zigzag_round_trip_every_type(value in any_width_i64()) {
        zigzag_round_trips(&backends(), value);
    }

    #[test]
    fn proptest_encode_to_slice_equals_encode(value in any_width_u64(), extra in 0usize..20) {
        to_slice_equals_encode(&backends(), value, extra);
    }
}

// ---------------------------------------------------------------------------
// quickcheck
// ---------------------------------------------------------------------------

/// 0..24 bytes, biased toward continuation bytes like [`biased_bytes`].
#[derive(Clone, Debug)]
struct Bytes(Vec<u8>);

impl Arbitrary for Bytes {
    fn arbitrary(g: &mut Gen) -> Self {
        let len = usize::arbitrary(g) % 24;
        let bytes = (0..len)
            .map(|_| match u8::arbitrary(g) % 10 {
                0..=4 => u8::arbitrary(g) | 0x80,
                5..=7 => u8::arbitrary(g),
                _ => *g
                    .choose(&[0x00, 0x01, 0x02, 0x03, 0x0f, 0x10, 0x7f, 0x80, 0xfe, 0xff])
                    .unwrap(),
            })
            .collect();
        Bytes(bytes)
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(self.0.shrink().map(Bytes))
    }
}

/// A u64 with a uniformly chosen bit length.
#[derive(Clone, Copy, Debug)]
struct AnyWidth(u64);

impl Arbitrary for AnyWidth {
    fn arbitrary(g: &mut Gen) -> Self {
        let bits = u32::arbitrary(g) % 65;
        let v = u64::arbitrary(g);
        AnyWidth(if bits == 64 {
            v
        } else {
            v & ((1u64 << bits) - 1)
        })
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(self.0.shrink().map(AnyWidth))
    }
}

fn quickcheck_with(cases: u32) -> QuickCheck {
    QuickCheck::new()
        .tests(cases.into())
        .max_tests((cases * 2).into())
}

#[test]
fn quickcheck_every_backend_agrees_with_reference() {
    fn prop(input: Bytes) {
        agrees_with_reference(&backends(), &input.0);
    }
    quickcheck_with(AGREEMENT_CASES).quickcheck(prop as fn(Bytes));
}

#[test]
fn quickcheck_trailing_bytes_are_ignored() {
    fn prop(value: AnyWidth, trailing: Bytes) {
        valid_varint_then_trailing(&backends(), value.0, &trailing.0);
    }
    quickcheck_with(AGREEMENT_CASES / 4).quickcheck(prop as fn(AnyWidth, Bytes));
}

#[test]
fn quickcheck_round_trip_every_type() {
    fn prop(value: AnyWidth) {
        round_trips(&backends(), value.0);
    }
    quickcheck_with(ROUND_TRIP_CASES).quickcheck(prop as fn(AnyWidth));
}

#[test]
fn quickcheck_zigzag_round_trip_every_type() {
    fn prop(value: AnyWidth, negative: bool) {
        let v = (value.0 >> 1) as i64;
        zigzag_round_trips(&backends(), if negative { -v - 1 } else { v });
    }
    quickcheck_with(ROUND_TRIP_CASES).quickcheck(prop as fn(AnyWidth, bool));
}

#[test]
fn quickcheck_encode_to_slice_equals_encode() {
    fn prop(value: AnyWidth, extra: u8) {
        to_slice_equals_encode(&backends(), value.0, usize::from(extra % 20));
    }
    quickcheck_with(ROUND_TRIP_CASES).quickcheck(prop as fn(AnyWidth, u8));
}
