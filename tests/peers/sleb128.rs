//! The `sleb128` module against the signed LEB128 readers and writers of
//! WebAssembly and DWARF tools: wasmparser's `BinaryReader::read_var_i32` /
//! `read_var_i64`, gimli's `leb128::read::signed` (`i64`) and the `leb128`
//! crate's `read::signed` (`i64`). On every input of 1, 2 and 3 bytes and on
//! random and boundary inputs we must accept exactly what they accept, with
//! the same value and bytes consumed (each states the error its own way, so
//! only accept/reject is compared there), and read exactly what their
//! writers (`leb128::write::signed`, gimli's `Leb128::signed`) wrote.
//!
//! gimli and the `leb128` crate have no `i32` reader; `i32` is compared
//! with wasmparser only. (A separate test target: these peers need rustc
//! 1.88, so the MSRV step leaves it out; see scripts/drop-bench-deps.py.)

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

use common::xorshift;
use varint_turbo::sleb128;

type Outcome<T> = Option<(T, usize)>;

fn wasmparser_i32(input: &[u8]) -> Outcome<i32> {
    let mut reader = wasmparser::BinaryReader::new(input, 0);
    let value = reader.read_var_i32().ok()?;
    Some((value, reader.current_position()))
}

fn wasmparser_i64(input: &[u8]) -> Outcome<i64> {
    let mut reader = wasmparser::BinaryReader::new(input, 0);
    let value = reader.read_var_i64().ok()?;
    Some((value, reader.current_position()))
}

fn gimli_i64(input: &[u8]) -> Outcome<i64> {
    let mut reader = gimli::EndianSlice::new(input, gimli::LittleEndian);
    let value = gimli::leb128::read::signed(&mut reader).ok()?;
    Some((value, input.len() - reader.len()))
}

fn leb128_i64(input: &[u8]) -> Outcome<i64> {
    let mut rest = input;
    let value = leb128::read::signed(&mut rest).ok()?;
    Some((value, input.len() - rest.len()))
}

/// Ours and every peer of the type agree on `input`.
fn agree(input: &[u8]) {
    let ours = sleb128::decode::<i32>(input).ok();
    assert_eq!(
        ours,
        wasmparser_i32(input),
        "i32 vs wasmparser on {input:02x?}"
    );
    let ours = sleb128::decode::<i64>(input).ok();
    assert_eq!(
        ours,
        wasmparser_i64(input),
        "i64 vs wasmparser on {input:02x?}"
    );
    assert_eq!(ours, gimli_i64(input), "i64 vs gimli on {input:02x?}");
    assert_eq!(ours, leb128_i64(input), "i64 vs leb128 on {input:02x?}");
}

#[test]
fn every_input_of_up_to_3_bytes() {
    // All 2^24 3-byte inputs in optimized builds; in debug builds a stride
    // of first bytes (every 1- and 2-byte input in full either way).
    let full = !cfg!(debug_assertions) || std::env::var("VARINT_TURBO_EXHAUSTIVE").is_ok();
    agree(&[]);
    for a in 0..=255u8 {
        agree(&[a]);
        for b in 0..=255u8 {
            agree(&[a, b]);
            if full || a % 17 == 0 || a >= 0xfe || (0x3f..=0x41).contains(&a) {
                for c in 0..=255u8 {
                    agree(&[a, b, c]);
                }
            }
        }
    }
}

#[test]
fn every_last_byte_at_every_length_and_random_inputs() {
    for prefix in [0x80u8, 0xff, 0xc0, 0xbf] {
        for len in 1..=12 {
            for last in 0..=255u8 {
                let mut input = vec![prefix; len - 1];
                input.push(last);
                agree(&input);
                input.push(0x55);
                agree(&input);
            }
        }
    }
    let mut rng = xorshift(0x9eed_5eb1);
    for _ in 0..200_000 {
        let r = rng();
        let len = (r % 12) as usize;
        // Continuation bits likely, so that long varints come up.
        let input: Vec<u8> = (0..len)
            .map(|i| {
                let byte = (rng() >> 8) as u8;
                if i + 1 < len && r >> (20 + i) & 1 == 1 {
                    byte | 0x80
                } else {
                    byte
                }
            })
            .collect();
        agree(&input);
    }
}

/// What the peers' writers write, we read back exactly (value and length),
/// and our encoders write the same bytes; whole buffers of them decode in
/// bulk on every backend.
#[test]
fn we_read_what_the_peers_wrote() {
    let mut rng = xorshift(0x001e_b128);
    let mut values: Vec<i64> = Vec::new();
    for bits in 0..64 {
        let p = 1i64 << bits;
        values.extend([
            p,
            p.wrapping_sub(1),
            p.wrapping_neg(),
            p.wrapping_neg().wrapping_sub(1),
        ]);
    }
    values.extend((0..100_000).map(|_| {
        let word = rng();
        (word as i64) >> (word % 64)
    }));
    let mut stream64 = Vec::new();
    let mut stream32 = Vec::new();
    for &value in &values {
        let mut written = Vec::new();
        leb128::write::signed(&mut written, value).expect("a Vec takes it");
        let gimli_bytes = gimli::leb128::write::Leb128::signed(value);
        assert_eq!(
            gimli_bytes.bytes(),
            &written[..],
            "gimli vs leb128 writing {value}"
        );
        assert_eq!(sleb128::decode::<i64>(&written), Ok((value, written.len())));
        let (ours, len) = sleb128::encode(value);
        assert_eq!(&ours[..usize::from(len)], &written[..], "encode({value})");
        stream64.extend_from_slice(&written);

        let narrow = value as i32;
        let mut written = Vec::new();
        leb128::write::signed(&mut written, narrow.into()).expect("a Vec takes it");
        assert_eq!(
            sleb128::decode::<i32>(&written),
            Ok((narrow, written.len()))
        );
        assert_eq!(wasmparser_i32(&written), Some((narrow, written.len())));
        let (ours, len) = sleb128::encode(narrow);
        assert_eq!(&ours[..usize::from(len)], &written[..], "encode({narrow})");
        stream32.extend_from_slice(&written);
    }
    let narrow: Vec<i32> = values.iter().map(|&v| v as i32).collect();
    for backend in varint_turbo::Backend::ALL
        .into_iter()
        .filter(|b| b.is_supported())
    {
        let mut out = vec![0i64; values.len()];
        assert_eq!(
            sleb128::decode_slice_on(backend, &stream64, &mut out),
            Ok((values.len(), stream64.len())),
            "{backend}"
        );
        assert_eq!(out, values, "{backend}");
        let mut out = vec![0i32; values.len()];
        assert_eq!(
            sleb128::decode_slice_on(backend, &stream32, &mut out),
            Ok((values.len(), stream32.len())),
            "{backend}"
        );
        assert_eq!(out, narrow, "{backend}");
    }
    assert_eq!(
        sleb128::decode_all::<i64>(&stream64).as_deref(),
        Ok(&values[..])
    );
    assert_eq!(
        sleb128::decode_all::<i32>(&stream32).as_deref(),
        Ok(&narrow[..])
    );
}
