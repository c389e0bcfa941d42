//! The `sleb128` module (signed LEB128, WebAssembly's rules) against the
//! reference of `common::sleb128`: every input of up to 3 bytes, every
//! length and last-byte boundary, random streams of every shape with
//! errors and non-minimal encodings through every bulk backend, the
//! encoders, and inputs and outputs placed against inaccessible pages.

use crate::common;

use common::differential::bulk_backends;
use common::sleb128::*;
use common::xorshift;
use varint_turbo::sleb128;
use varint_turbo::Backend as BulkBackend;
use varint_turbo::DecodeError;

/// Whether to check all 2^24 3-byte inputs (release builds, or
/// `VARINT_TURBO_EXHAUSTIVE=full`), as tests/suite/exhaustive.rs decides; else
/// those whose first byte is one of 40 (every boundary byte and a stride).
fn full_three_byte_space() -> bool {
    match std::env::var("VARINT_TURBO_EXHAUSTIVE") {
        Ok(value) if value == "full" => true,
        _ => !cfg!(debug_assertions),
    }
}

#[test]
fn every_input_of_up_to_2_bytes_on_every_backend() {
    let backends = bulk_backends();
    for_each_sleb!(check_sleb128_decode(&[]));
    for_each_sleb!(check_sleb128_slice(&backends, &[], 1));
    for a in 0..=255u8 {
        for_each_sleb!(check_sleb128_decode(&[a]));
        for_each_sleb!(check_sleb128_slice(&backends, &[a], 2));
        for b in 0..=255u8 {
            let input = [a, b];
            for_each_sleb!(check_sleb128_decode(&input));
            for_each_sleb!(check_sleb128_slice(&backends, &input, 2));
        }
    }
}

#[test]
fn every_input_of_3_bytes() {
    let firsts: Vec<u8> = if full_three_byte_space() {
        (0..=255).collect()
    } else {
        let mut firsts = vec![0x00, 0x01, 0x3f, 0x40, 0x41, 0x7e, 0x7f, 0x80, 0x81, 0xbf];
        firsts.extend([0xc0, 0xc1, 0xfe, 0xff]);
        firsts.extend((0..=255).step_by(10));
        firsts
    };
    for a in firsts {
        for b in 0..=255u8 {
            for c in 0..=255u8 {
                let input = [a, b, c];
                for_each_sleb!(check_sleb128_decode(&input));
            }
        }
    }
}

/// Every 3-byte input through the bulk decoders, on a stride (the single
/// decoder sees all of them above), every backend.
#[test]
fn three_byte_inputs_in_bulk() {
    let backends = bulk_backends();
    let step = if full_three_byte_space() { 7 } else { 251 };
    for n in (0..1u32 << 24).step_by(step) {
        let input = n.to_le_bytes();
        for_each_sleb!(check_sleb128_slice(&backends, &input[..3], 3));
    }
}

/// Every last byte after every prefix of continuation bytes (0x80, 0xff
/// and a mix) at every length up to 11, with and without trailing bytes:
/// the 5th `i32` byte and the 10th `i64` byte in full.
#[test]
fn every_last_byte_at_every_length() {
    let backends = bulk_backends();
    for prefix_byte in [0x80u8, 0xff, 0xc0, 0xbf] {
        for len in 1..=11usize {
            for last in 0..=255u8 {
                let mut input = vec![prefix_byte; len - 1];
                input.push(last);
                for_each_sleb!(check_sleb128_decode(&input));
                for_each_sleb!(check_sleb128_slice(&backends, &input, 1));
                input.extend([0x01, 0x7f]);
                for_each_sleb!(check_sleb128_decode(&input));
                for_each_sleb!(check_sleb128_slice(&backends, &input, 3));
            }
        }
    }
}

#[test]
fn documented_rules() {
    use DecodeError::{Overflow, Truncated};
    // 5th i32 byte: 0x00..=0x07 positive, 0x78..=0x7f negative.
    for last in 0..=0x7fu8 {
        let input = [0x80, 0x80, 0x80, 0x80, last];
        let ok = last <= 0x07 || last >= 0x78;
        assert_eq!(sleb128::decode::<i32>(&input).is_ok(), ok, "{last:#x}");
        let input = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, last];
        let ok = last == 0x00 || last == 0x7f;
        assert_eq!(sleb128::decode::<i64>(&input).is_ok(), ok, "{last:#x}");
    }
    assert_eq!(sleb128::decode::<i32>(&[0x80; 5]), Err(Overflow));
    assert_eq!(sleb128::decode::<i32>(&[0x80; 4]), Err(Truncated));
    assert_eq!(sleb128::decode::<i64>(&[0x80; 10]), Err(Overflow));
    assert_eq!(sleb128::decode::<i64>(&[0x80; 9]), Err(Truncated));
    assert_eq!(sleb128::decode::<i64>(&[]), Err(Truncated));
    let i64_min = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f];
    assert_eq!(sleb128::decode::<i64>(&i64_min), Ok((i64::MIN, 10)));
    assert_eq!(
        sleb128::decode::<i32>(&[0x80, 0x80, 0x80, 0x80, 0x78]),
        Ok((i32::MIN, 5))
    );
    assert_eq!(
        sleb128::decode::<i32>(&[0xff, 0xff, 0xff, 0xff, 0x07]),
        Ok((i32::MAX, 5))
    );
    // Non-minimal encodings within the limit.
    assert_eq!(sleb128::decode::<i32>(&[0xff, 0x7f]), Ok((-1, 2)));
    assert_eq!(sleb128::decode::<i32>(&[0x80, 0x80, 0x00]), Ok((0, 3)));
    // The unsigned WebAssembly rule is today's decode::<u32>.
    assert_eq!(
        varint_turbo::decode::<u32>(&[0xff, 0xff, 0xff, 0xff, 0x0f]),
        Ok((u32::MAX, 5))
    );
    assert_eq!(
        varint_turbo::decode::<u32>(&[0xff, 0xff, 0xff, 0xff, 0x1f]),
        Err(Overflow)
    );
}

/// Every value at every length boundary (both signs, both types) through
/// every encoder, and back.
#[test]
fn encoders_at_every_boundary() {
    let mut values = Vec::new();
    for bits in 0..64u32 {
        let p = 1i64 << bits;
        values.extend([p, p.wrapping_sub(1), p.wrapping_add(1), p.wrapping_neg()]);
        values.extend([
            p.wrapping_neg().wrapping_sub(1),
            p.wrapping_neg().wrapping_add(1),
        ]);
    }
    values.extend([0, -1, i64::MIN, i64::MAX, i32::MIN.into(), i32::MAX.into()]);
    for &value in &values {
        check_sleb128_encode(value);
        check_sleb128_encode(value as i32);
    }
    check_sleb128_encode_slices(&values);
    let narrow: Vec<i32> = values.iter().map(|&v| v as i32).collect();
    check_sleb128_encode_slices(&narrow);
    let mut rng = xorshift(0x5eed_1ebb_0128);
    let random: Vec<i64> = (0..5000).map(|_| random_value(&mut rng)).collect();
    for &value in &random {
        check_sleb128_encode(value);
        check_sleb128_encode(value as i32);
    }
    check_sleb128_encode_slices(&random);
}

/// A value of a random length and sign: an arithmetic shift of a random
/// word by 0..63.
fn random_value(rng: &mut impl FnMut() -> u64) -> i64 {
    let word = rng();
    (word as i64) >> (word % 64)
}

/// Bytes of a stream of `count` values of shape `shape`, as `T` (the
/// encoder may be the crate's: the reference decoder checks the decode).
fn stream<T: TestSleb>(rng: &mut impl FnMut() -> u64, count: usize, shape: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..count {
        let r = rng();
        let value: i64 = match shape {
            // WebAssembly i32.const: mostly small, some 32-bit constants.
            0 => match r % 100 {
                0..=69 => (r >> 8) as i64 % 64,
                70..=89 => (r >> 8) as i64 % 100_000 - 50_000,
                _ => (r >> 8) as i32 as i64,
            },
            // 1-byte values of both signs.
            1 => ((r >> 8) % 128) as i64 - 64,
            // Every length.
            2 => random_value(rng),
            // Negative 5-byte i32s (and 10-byte i64s) in numbers.
            3 => (r as i64) | i64::MIN,
            // 1- and 2-byte values of both signs (the AVX-512 decoder's
            // chunks of short varints).
            5 => ((r >> 8) % 16_384) as i64 - 8_192,
            // DWARF line advances: small deltas with the odd large one.
            _ => match r % 20 {
                0 => (r >> 16) as i16 as i64,
                _ => ((r >> 8) % 16) as i64 - 4,
            },
        };
        let value = T::from_i64_wrapping(value).as_i64();
        let mut bytes = reference_sleb128_encode(value);
        if r >> 60 == 0 {
            // A non-minimal encoding now and then (padded to at most the
            // type's limit): the sign repeated in one more byte.
            let max_len = (T::BITS as usize).div_ceil(7);
            if bytes.len() < max_len {
                let last = bytes.pop().expect("non-empty");
                bytes.push(last | 0x80);
                bytes.push(if last & 0x40 != 0 { 0x7f } else { 0x00 });
            }
        }
        out.extend(bytes);
    }
    out
}

/// Random streams of every shape (up to 3,000 values: every SIMD block
/// path), each also with an error put in (too long, a bad last byte, cut
/// off), into outputs of every size class, every backend.
#[test]
fn random_streams_on_every_backend() {
    fn one<T: TestSleb>(backends: &[BulkBackend], rng: &mut impl FnMut() -> u64) {
        for case in 0..144u64 {
            let count = match case % 4 {
                0 => (rng() % 20) as usize,
                1 => (rng() % 200) as usize,
                _ => (rng() % 3000) as usize,
            };
            let mut input = stream::<T>(rng, count, case % 6);
            let terminators = input.iter().filter(|&&b| b < 0x80).count();
            for out_len in [terminators, terminators + 3, terminators / 2] {
                check_sleb128_slice::<T>(backends, &input, out_len);
            }
            if input.is_empty() {
                continue;
            }
            let at = (rng() % input.len() as u64) as usize;
            // Move `at` to a varint's start.
            let at = input[..at]
                .iter()
                .rposition(|&b| b < 0x80)
                .map_or(0, |p| p + 1);
            let bad: &[u8] = match case % 3 {
                0 => &[0xff; 11],
                1 => &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
                _ => &[0x80, 0x80, 0x80, 0x80, 0x0f],
            };
            input.splice(at..at, bad.iter().copied());
            check_sleb128_slice::<T>(backends, &input, terminators + 2);
            input.truncate(at + 2);
            check_sleb128_slice::<T>(backends, &input, terminators + 2);
        }
    }
    let backends = bulk_backends();
    let mut rng = xorshift(0x0041_5e1b);
    for_each_sleb!(one(&backends, &mut rng));
}

/// A varint of every length with boundary last bytes (every last byte at
/// 5 and 10 bytes: the `i32` and `i64` rules), after each prefix of
/// continuation bytes, at every offset of a 63-byte SIMD block between
/// about 260 and 65 bytes of mixed 1-3-byte values of both signs: the
/// grid steps' chunks, lanes and value checks, the scalar block they fall
/// back to (errors at every position of a block) and the runs around them,
/// every backend.
#[test]
fn last_bytes_at_every_block_offset() {
    fn one<T: TestSleb>(backends: &[BulkBackend], rng: &mut impl FnMut() -> u64) {
        let before = stream::<T>(rng, 200, 4);
        let after = stream::<T>(rng, 50, 4);
        for len in 1..=11usize {
            let lasts: Vec<u8> = if len == 5 || len == 10 {
                (0..0x80).collect()
            } else {
                vec![0x00, 0x01, 0x3f, 0x40, 0x41, 0x7f]
            };
            for prefix_byte in [0x80u8, 0xff] {
                for &last in &lasts {
                    for offset in 0..64 {
                        let mut input = before[..before.len() - offset].to_vec();
                        // Cut at a varint's end.
                        let end = input.iter().rposition(|&b| b < 0x80).map_or(0, |p| p + 1);
                        input.truncate(end);
                        input.extend(std::iter::repeat_n(prefix_byte, len - 1));
                        input.push(last);
                        input.extend(&after);
                        let terminators = input.iter().filter(|&&b| b < 0x80).count();
                        check_sleb128_slice::<T>(backends, &input, terminators);
                    }
                }
            }
        }
    }
    let backends = bulk_backends();
    let mut rng = xorshift(0x05eb_10c4);
    for_each_sleb!(one(&backends, &mut rng));
}

#[cfg(unix)]
mod guarded {
    use super::*;
    use common::guarded_page::GuardedPage;

    /// Single values ending right before the guard page and starting right
    /// after the leading one: every input of up to 2 bytes and the
    /// boundary streams.
    #[test]
    fn decode_stays_inside_its_slice() {
        let mut page = GuardedPage::new();
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for a in 0..=255u8 {
            inputs.push(vec![a]);
            for b in [0x00, 0x40, 0x7f, 0x80, 0xff] {
                inputs.push(vec![a, b]);
            }
        }
        for len in 1..=12 {
            inputs.push(vec![0xff; len]);
            inputs.push(vec![0x80; len]);
        }
        for input in &inputs {
            let tail = page.tail(input.len());
            tail.copy_from_slice(input);
            let tail: &[u8] = tail;
            for_each_sleb!(check_sleb128_decode(tail));
            let head = page.head(input.len());
            head.copy_from_slice(input);
            let head: &[u8] = head;
            for_each_sleb!(check_sleb128_decode(head));
        }
    }

    /// Bulk inputs of every length up to 200 bytes placed against both
    /// guard pages (valid streams, an error inside, a cut-off end), every
    /// backend; outputs of 0..70 values ending right before the guard page.
    #[test]
    fn bulk_decode_stays_inside_its_slices() {
        fn one<T: TestSleb>(backends: &[BulkBackend], page: &mut GuardedPage) {
            let mut rng = xorshift(0x9a9e);
            let mut streams = Vec::new();
            for shape in 0..5 {
                streams.push(stream::<T>(&mut rng, 100, shape));
            }
            let mut bad = stream::<T>(&mut rng, 20, 2);
            bad.extend([0xff; 11]);
            bad.extend(stream::<T>(&mut rng, 20, 0));
            bad.push(0x80);
            streams.push(bad);
            for stream in &streams {
                for n in 0..=stream.len().min(200) {
                    let bytes = &stream[stream.len() - n..];
                    let head = page.head(n);
                    head.copy_from_slice(bytes);
                    let head: &[u8] = head;
                    check_sleb128_slice::<T>(backends, head, n);
                    let tail = page.tail(n);
                    tail.copy_from_slice(&stream[..n]);
                    let tail: &[u8] = tail;
                    check_sleb128_slice::<T>(backends, tail, n / 2);
                }
                let input = stream.clone();
                for out_len in 0..70 {
                    let expected = common::differential::repeated_decode(
                        &input,
                        out_len,
                        reference_sleb128_decode::<T>,
                    );
                    for &backend in backends {
                        let out = page.tail_of::<T>(out_len);
                        let got = sleb128::decode_slice_on(backend, &input, out);
                        let what = format!("{backend}: sleb128::decode_slice::<{}>", T::NAME);
                        common::differential::check_bulk_outcome(
                            &what, &input, out_len, &expected, got, out,
                        );
                    }
                    let out = page.tail_of::<T>(out_len);
                    let got = sleb128::decode_slice(&input, out);
                    let what = format!("sleb128::decode_slice::<{}>", T::NAME);
                    common::differential::check_bulk_outcome(
                        &what, &input, out_len, &expected, got, out,
                    );
                }
            }
        }
        let backends = bulk_backends();
        let mut page = GuardedPage::new();
        for_each_sleb!(one(&backends, &mut page));
    }

    /// The encoders never write past the output: every value of the
    /// boundary set into exactly its length, right before the guard page.
    #[test]
    fn encoders_stay_inside_their_slices() {
        let mut page = GuardedPage::new();
        for bits in 0..64u32 {
            for value in [
                1i64 << bits,
                (1i64 << bits).wrapping_neg(),
                (1i64 << bits).wrapping_sub(1),
            ] {
                let want = reference_sleb128_encode(value);
                let out = page.tail(want.len());
                assert_eq!(sleb128::encode_to_slice(value, out), want.len());
                assert_eq!(&out[..], &want[..]);
                let narrow = value as i32;
                let want = reference_sleb128_encode(narrow.into());
                let out = page.tail(want.len());
                assert_eq!(sleb128::encode_to_slice(narrow, out), want.len());
                assert_eq!(&out[..], &want[..]);
                let out = page.tail(want.len());
                assert_eq!(
                    sleb128::encode_slice_into(&[narrow, narrow], out),
                    (1, want.len())
                );
            }
        }
    }
}

/// `encode_to_slice` panics like the unsigned one when the output is too
/// short.
#[test]
#[should_panic(expected = "encode_to_slice")]
fn encode_to_slice_panics_when_too_short() {
    let mut out = [0u8; 2];
    let _ = sleb128::encode_to_slice(-100_000i32, &mut out);
}
