//! Differential tests: each patched prost copy (control, vt, vt-bulk)
//! against unpatched prost (upstream), on the varint functions and on
//! whole messages, valid, random and corrupted. Same value, same error
//! (message included), same bytes left in the buffer, same bytes written.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use prost_harness::data::{self, Rng};
use prost_harness::messages::{control, upstream, vt, vt_bulk};

/// A `Buf` over `data` whose chunks are `size` bytes long (the last one
/// shorter), as a rope of network buffers is.
#[derive(Clone)]
struct Chunked<'a> {
    data: &'a [u8],
    pos: usize,
    size: usize,
}

impl<'a> Chunked<'a> {
    fn new(data: &'a [u8], size: usize) -> Self {
        Chunked { data, pos: 0, size }
    }
}

impl Buf for Chunked<'_> {
    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn chunk(&self) -> &[u8] {
        let end = ((self.pos / self.size + 1) * self.size).min(self.data.len());
        &self.data[self.pos..end]
    }

    fn advance(&mut self, cnt: usize) {
        assert!(cnt <= self.remaining());
        self.pos += cnt;
    }
}

type Outcome = (Result<u64, String>, usize);

fn decode_upstream(buf: &mut impl Buf) -> Outcome {
    let result = prost_upstream::encoding::decode_varint(buf).map_err(|e| e.to_string());
    (result, buf.remaining())
}

/// Every patched copy's `decode_varint` (and the vt copies' second reader,
/// `decode_varint_compact`) on the same input as upstream's `decode_varint`:
/// contiguous and in chunks of 1..=11 bytes.
fn check_decode(input: &[u8]) {
    let mut reference = input;
    let expected = decode_upstream(&mut reference);
    macro_rules! check {
        ($krate:ident) => {
            check!($krate, decode_varint)
        };
        ($krate:ident, $decode:ident) => {{
            let mut buf = input;
            let result = $krate::encoding::$decode(&mut buf).map_err(|e| e.to_string());
            assert_eq!(
                (result, buf.remaining()),
                expected,
                "{}::{} on {input:02x?}",
                stringify!($krate),
                stringify!($decode)
            );
            for size in 1..=11 {
                let mut reference = Chunked::new(input, size);
                let expected = decode_upstream(&mut reference);
                let mut buf = Chunked::new(input, size);
                let result = $krate::encoding::$decode(&mut buf).map_err(|e| e.to_string());
                assert_eq!(
                    (result, buf.remaining()),
                    expected,
                    "{}::{} on {input:02x?} in chunks of {size}",
                    stringify!($krate),
                    stringify!($decode)
                );
            }
        }};
    }
    check!(prost_control);
    check!(prost_vt);
    check!(prost_vt_bulk);
    check!(prost_vt, decode_varint_compact);
    check!(prost_vt_bulk, decode_varint_compact);
}

#[test]
fn decode_varint_every_one_and_two_byte_input() {
    check_decode(&[]);
    for a in 0..=255u8 {
        check_decode(&[a]);
        for b in 0..=255u8 {
            check_decode(&[a, b]);
        }
    }
}

/// A random varint-like input: a run of continuation bytes of a random
/// length (0..=12), maybe a final byte, maybe more bytes after it.
fn random_input(rng: &mut Rng) -> Vec<u8> {
    let mut input = Vec::new();
    let continuation = rng.range(0, 13);
    for _ in 0..continuation {
        input.push(0x80 | rng.next_u64() as u8);
    }
    if rng.percent(85) {
        // The final byte: often small (the 10th byte's overflow rule).
        input.push(if rng.percent(50) {
            rng.range(0, 4) as u8
        } else {
            rng.next_u64() as u8 & 0x7f
        });
    }
    let trailing = rng.range(0, 20);
    for _ in 0..trailing {
        input.push(rng.next_u64() as u8);
    }
    input
}

#[test]
fn decode_varint_random_inputs() {
    let mut rng = Rng::new(1);
    for _ in 0..200_000 {
        check_decode(&random_input(&mut rng));
    }
    // Every valid encoding of edge values, with and without bytes after it.
    for bits in 0..64 {
        for value in [
            1u64 << bits,
            (1u64 << bits) - 1,
            (1u64 << bits) + 1,
            u64::MAX,
        ] {
            let mut encoded = Vec::new();
            prost_upstream::encoding::encode_varint(value, &mut encoded);
            check_decode(&encoded);
            encoded.extend_from_slice(&[0x80; 12]);
            check_decode(&encoded);
        }
    }
}

fn test_values() -> Vec<u64> {
    let mut values = vec![0, u64::MAX];
    for bits in 1..64 {
        values.extend([(1u64 << bits) - 1, 1u64 << bits, (1u64 << bits) + 1]);
    }
    let mut rng = Rng::new(2);
    values.extend((0..20_000).map(|_| data::protobuf_mix(&mut rng)));
    values.extend((0..5_000).map(|_| rng.next_u64() >> rng.range(0, 64)));
    values
}

#[test]
fn encode_varint_every_buffer_kind() {
    for value in test_values() {
        let mut expected = Vec::new();
        prost_upstream::encoding::encode_varint(value, &mut expected);
        let len = expected.len();
        macro_rules! check {
            ($krate:ident) => {{
                let name = stringify!($krate);
                assert_eq!(
                    $krate::encoding::encoded_len_varint(value),
                    len,
                    "{name}: {value}"
                );
                // Vec, after other bytes, and with no spare capacity.
                let mut vec = vec![0xaa];
                $krate::encoding::encode_varint(value, &mut vec);
                assert_eq!(vec[1..], expected, "{name}: Vec: {value}");
                let mut vec = Vec::with_capacity(1);
                $krate::encoding::encode_varint(value, &mut vec);
                assert_eq!(vec, expected, "{name}: small Vec: {value}");
                // BytesMut.
                let mut bytes = BytesMut::new();
                $krate::encoding::encode_varint(value, &mut bytes);
                assert_eq!(bytes[..], expected, "{name}: BytesMut: {value}");
                // An exactly sized slice.
                let mut array = vec![0u8; len];
                let mut slice = &mut array[..];
                $krate::encoding::encode_varint(value, &mut slice);
                assert!(slice.is_empty(), "{name}: slice: {value}");
                assert_eq!(array, expected, "{name}: slice: {value}");
                // A chained BufMut, split at every point.
                for split in 0..=len {
                    let mut first = vec![0u8; split];
                    let mut second = vec![0u8; len - split];
                    {
                        let mut chain = (&mut first[..]).chain_mut(&mut second[..]);
                        $krate::encoding::encode_varint(value, &mut chain);
                        assert_eq!(chain.remaining_mut(), 0, "{name}: chain: {value}");
                    }
                    assert_eq!(
                        [first, second].concat(),
                        expected,
                        "{name}: chain at {split}: {value}"
                    );
                }
            }};
        }
        check!(prost_control);
        check!(prost_vt);
        check!(prost_vt_bulk);
    }
}

/// A random `AllPacked` message: every packed varint type, values of every
/// length, sometimes empty, and a nested record.
fn random_all_packed(rng: &mut Rng) -> upstream::AllPacked {
    let len = |rng: &mut Rng| match rng.range(0, 4) {
        0 => 0,
        1 => rng.range(1, 9) as usize,
        2 => rng.range(9, 100) as usize,
        _ => rng.range(100, 1500) as usize,
    };
    let wide = |rng: &mut Rng| data::protobuf_mix(rng) >> rng.range(0, 2);
    upstream::AllPacked {
        int32: (0..len(rng)).map(|_| wide(rng) as i32).collect(),
        int64: (0..len(rng)).map(|_| wide(rng) as i64).collect(),
        uint32: (0..len(rng)).map(|_| wide(rng) as u32).collect(),
        uint64: (0..len(rng)).map(|_| wide(rng)).collect(),
        sint32: (0..len(rng)).map(|_| wide(rng) as i32).collect(),
        sint64: (0..len(rng)).map(|_| wide(rng) as i64).collect(),
        bool: (0..len(rng)).map(|_| rng.percent(50)).collect(),
        kind: (0..len(rng)).map(|_| rng.range(0, 8) as i32).collect(),
        unpacked: (0..len(rng)).map(|_| wide(rng) as i32).collect(),
        record: rng.percent(50).then(|| data::telemetry(rng)),
    }
}

/// Varints written by hand into packed fields: longer than the field's
/// type (int32 fields holding 64-bit values, sint32 values past 32 bits,
/// bools that are not 0 or 1), overlong encodings, and the 10-byte edge.
fn hand_written_packed(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..rng.range(1, 6) {
        let tag = rng.range(1, 10);
        let mut payload = Vec::new();
        for _ in 0..rng.range(0, 40) {
            let value = match rng.range(0, 4) {
                0 => rng.next_u64(),
                1 => rng.range(0, 300),
                2 => u64::MAX - rng.range(0, 3),
                _ => rng.next_u64() >> rng.range(0, 64),
            };
            let mut varint = Vec::new();
            prost_upstream::encoding::encode_varint(value, &mut varint);
            if rng.percent(10) && varint.len() < 10 {
                // Overlong: a redundant 0x80 ... 0x00 tail.
                let last = varint.len() - 1;
                varint[last] |= 0x80;
                varint.push(0);
            }
            payload.extend_from_slice(&varint);
        }
        prost_upstream::encoding::encode_varint(tag << 3 | 2, &mut out);
        prost_upstream::encoding::encode_varint(payload.len() as u64, &mut out);
        out.extend_from_slice(&payload);
    }
    out
}

/// Corrupts an encoding: a flipped byte, a truncation, a byte set to a
/// continuation byte, inserted or removed bytes.
fn corrupt(rng: &mut Rng, bytes: &mut Vec<u8>) {
    if bytes.is_empty() {
        bytes.push(rng.next_u64() as u8);
        return;
    }
    for _ in 0..rng.range(1, 4) {
        let at = rng.range(0, bytes.len() as u64) as usize;
        match rng.range(0, 5) {
            0 => bytes[at] ^= 1 << rng.range(0, 8),
            1 => bytes.truncate(at),
            2 => bytes[at] |= 0x80,
            3 => bytes.insert(at, rng.next_u64() as u8),
            _ => {
                bytes.remove(at);
            }
        }
        if bytes.is_empty() {
            return;
        }
    }
}

/// Decodes `bytes` as message type `$ty` with upstream and every patched
/// copy, from a slice, a `Bytes` and chunked `Buf`s; the outcomes (the
/// re-encoded message, or the error's text) must be the same.
macro_rules! check_message {
    ($ty:ident, $bytes:expr) => {{
        use prost_upstream::Message as _;
        let bytes: &[u8] = $bytes;
        let expected = upstream::$ty::decode(bytes)
            .map(|m| (m.encode_to_vec(), m.encoded_len()))
            .map_err(|e| e.to_string());
        macro_rules! one {
            ($module:ident, $krate:ident) => {{
                use $krate::Message as _;
                let outcome = |result: Result<$module::$ty, $krate::DecodeError>| {
                    result
                        .map(|m| {
                            let mut vec = Vec::new();
                            m.encode(&mut vec).expect("room");
                            assert_eq!(vec, m.encode_to_vec());
                            (vec, m.encoded_len())
                        })
                        .map_err(|e| e.to_string())
                };
                let name = stringify!($krate);
                assert_eq!(
                    outcome($module::$ty::decode(bytes)),
                    expected,
                    "{name}: slice {bytes:02x?}"
                );
                assert_eq!(
                    outcome($module::$ty::decode(Bytes::copy_from_slice(bytes))),
                    expected,
                    "{name}: Bytes {bytes:02x?}"
                );
                for size in [1, 3, 7, 11, 64] {
                    assert_eq!(
                        outcome($module::$ty::decode(Chunked::new(bytes, size))),
                        expected,
                        "{name}: chunks of {size}: {bytes:02x?}"
                    );
                }
            }};
        }
        one!(control, prost_control);
        one!(vt, prost_vt);
        one!(vt_bulk, prost_vt_bulk);
        expected.is_ok()
    }};
}

#[test]
fn messages_valid_random_and_corrupted() {
    use prost_upstream::Message as _;
    let mut rng = Rng::new(3);
    let (mut ok, mut err) = (0, 0);
    let mut count = |is_ok: bool| if is_ok { ok += 1 } else { err += 1 };
    for round in 0..400 {
        let packed = random_all_packed(&mut rng).encode_to_vec();
        let telemetry = data::telemetry(&mut rng).encode_to_vec();
        let batch = data::telemetry_batch(&mut rng, 20).encode_to_vec();
        let tree = data::tree(&mut rng, 1 + round % 60).encode_to_vec();
        let hand = hand_written_packed(&mut rng);
        assert!(check_message!(AllPacked, &packed));
        assert!(check_message!(Telemetry, &telemetry));
        assert!(check_message!(TelemetryBatch, &batch));
        assert!(check_message!(Node, &tree));
        count(check_message!(AllPacked, &hand));
        for _ in 0..4 {
            for source in [&packed, &telemetry, &batch, &tree, &hand] {
                let mut bytes = source.clone();
                corrupt(&mut rng, &mut bytes);
                count(check_message!(AllPacked, &bytes));
                count(check_message!(TelemetryBatch, &bytes));
                count(check_message!(Node, &bytes));
            }
        }
        // Random bytes.
        let random: Vec<u8> = (0..rng.range(0, 64))
            .map(|_| rng.next_u64() as u8)
            .collect();
        count(check_message!(AllPacked, &random));
        count(check_message!(Telemetry, &random));
    }
    // Both outcomes must have been exercised in quantity.
    assert!(ok > 1000 && err > 1000, "ok {ok}, err {err}");
}

/// The messages of the benchmarks decode to the same values in every copy.
#[test]
fn benchmark_data_round_trips() {
    let mut rng = Rng::new(4);
    let tree = data::tree(&mut rng, 1500);
    assert_eq!(data::tree_size(&tree), 1500);
    assert!(check_message!(Node, &tree.encode_to_vec()));
    let batch = data::telemetry_batch(&mut rng, 1000);
    assert!(check_message!(TelemetryBatch, &batch.encode_to_vec()));
    for len in [8, 64, 1000, 100_000] {
        assert!(check_message!(
            PackedUint64,
            &data::packed_uint64(&mut rng, len).encode_to_vec()
        ));
        assert!(check_message!(
            PackedInt32,
            &data::packed_int32_small(&mut rng, len).encode_to_vec()
        ));
        assert!(check_message!(
            PackedSint32,
            &data::packed_sint32_near_zero(&mut rng, len).encode_to_vec()
        ));
        assert!(check_message!(
            PackedInt32,
            &data::packed_int32_negative(&mut rng, len).encode_to_vec()
        ));
        assert!(check_message!(
            PackedInt64,
            &data::packed_int64_timestamps(&mut rng, len).encode_to_vec()
        ));
        assert!(check_message!(
            PackedUint32,
            &data::packed_uint32_mix(&mut rng, len).encode_to_vec()
        ));
        assert!(check_message!(
            PackedSint64,
            &data::packed_sint64_deltas(&mut rng, len).encode_to_vec()
        ));
        assert!(check_message!(
            PackedBool,
            &data::packed_bool(&mut rng, len).encode_to_vec()
        ));
        assert!(check_message!(
            PackedEnum,
            &data::packed_enum(&mut rng, len).encode_to_vec()
        ));
    }
}
