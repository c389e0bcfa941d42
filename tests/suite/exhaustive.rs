//! Exhaustive and boundary tests of every backend against the reference in
//! `common`: small input spaces in full, every length/type boundary, every
//! error case, alignment and trailing bytes, `decode_unchecked`,
//! `encode_to_slice`'s panics, and zigzag.

use crate::common;

use std::time::Instant;

use common::*;
use varint_turbo::{DecodeError, VarInt};

/// Debug builds run the crate about 100x slower; the largest spaces are then
/// covered in a reduced but structured form (see `three_byte_inputs`).
const DEBUG: bool = cfg!(debug_assertions);

/// Whether [`every_input_of_up_to_3_bytes`] checks all 2^24 3-byte inputs:
/// in builds without debug assertions (`cargo test --release`), and in any
/// build run with `VARINT_TURBO_EXHAUSTIVE=full` (scripts/cpu-matrix.sh
/// sets it for its native-opt row, an optimized build with debug
/// assertions: about 20 CPU-seconds there). A plain debug `cargo test`
/// would spend about 3 CPU-minutes on all of it, so by default it checks
/// the subset described at [`every_input_of_up_to_3_bytes`].
fn full_three_byte_space() -> bool {
    match std::env::var("VARINT_TURBO_EXHAUSTIVE") {
        Ok(value) if value == "full" => true,
        Ok(value) if value.is_empty() => !DEBUG,
        Ok(other) => panic!("VARINT_TURBO_EXHAUSTIVE={other:?}: only \"full\" is known"),
        Err(_) => !DEBUG,
    }
}

/// Every decoding check for every unsigned type: `decode` on every backend,
/// the API's `decode_len`, and `decode_unchecked` with zero padding (and,
/// if `both_pads`, with 0xff padding too).
fn check_every_type(backends: &[Backend], input: &[u8], both_pads: bool) {
    fn one<T: TestInt>(backends: &[Backend], input: &[u8], both_pads: bool) {
        check_decode::<T>(backends, input);
        check_decode_unchecked::<T>(backends, &padded(input, 0x00));
        if both_pads {
            check_decode_unchecked::<T>(backends, &padded(input, 0xff));
        }
    }
    for_each_unsigned!(one(backends, input, both_pads));
}

#[test]
fn max_len_is_ceil_bits_over_7() {
    fn one<T: TestInt>() {
        assert_eq!(
            <T as VarInt>::MAX_LEN,
            T::REF_MAX_LEN,
            "MAX_LEN of {}",
            T::NAME
        );
    }
    for_each_unsigned!(one());
    assert_eq!(<u8 as VarInt>::MAX_LEN, 2);
    assert_eq!(<u16 as VarInt>::MAX_LEN, 3);
    assert_eq!(<u32 as VarInt>::MAX_LEN, 5);
    assert_eq!(<u64 as VarInt>::MAX_LEN, 10);
    assert_eq!(
        <usize as VarInt>::MAX_LEN,
        (usize::BITS as usize).div_ceil(7)
    );
}

// ---------------------------------------------------------------------------
// Small spaces in full
// ---------------------------------------------------------------------------

#[test]
fn every_u8_and_u16_value_round_trips() {
    let backends = backends();
    for v in 0..=u8::MAX {
        check_encode::<u8>(&backends, v);
        check_encode::<u16>(&backends, v.into());
        check_encode::<u32>(&backends, v.into());
        check_encode::<u64>(&backends, v.into());
        check_encode::<usize>(&backends, v.into());
    }
    for v in 0..=u16::MAX {
        check_encode::<u16>(&backends, v);
        check_encode::<u64>(&backends, v.into());
        if !DEBUG || v % 7 == 0 {
            check_encode::<u32>(&backends, v.into());
            check_encode::<usize>(&backends, v.into());
        }
    }
}

/// Every input of 0, 1, 2 and 3 bytes (16.8M inputs) for every type and
/// backend: value, length and error kind equal the reference, and
/// `decode_unchecked` on the input padded to 16 bytes keeps its contract.
///
/// Release builds (and any build with `VARINT_TURBO_EXHAUSTIVE=full`, see
/// [`full_three_byte_space`]) check all of it. Debug builds otherwise (about
/// 100x slower: the whole space would take minutes there, and `cargo test`
/// must stay quick) check lengths 0..=2 in full, and of the 3-byte inputs:
/// * all 2^22 inputs whose three bytes all belong to the varint (first two
///   continue), for `u16` (where the third byte decides OK vs. overflow) and
///   `u64`, on every backend;
/// * every other first-two-byte pair with a sample of third bytes (the third
///   byte is then either a trailing byte or, for `u8`, past `MAX_LEN`), for
///   every type, including `decode_unchecked`.
#[test]
fn every_input_of_up_to_3_bytes() {
    let backends = backends();
    let full = full_three_byte_space();
    let start = Instant::now();
    check_every_type(&backends, &[], true);
    for a in 0..=255u8 {
        check_every_type(&backends, &[a], true);
        for b in 0..=255u8 {
            check_every_type(&backends, &[a, b], true);
        }
    }
    // One pass over the 3-byte inputs, split by first byte across threads.
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let backends = &backends;
            scope.spawn(move || {
                for a in (0..=255u8).filter(|&a| usize::from(a) % threads == t) {
                    for b in 0..=255u8 {
                        three_byte_inputs(backends, a, b, full);
                    }
                }
            });
        }
    });
    eprintln!(
        "every_input_of_up_to_3_bytes: {} mode, {threads} threads, {:?}",
        match (full, DEBUG) {
            (false, _) =>
                "debug (reduced 3-byte space; VARINT_TURBO_EXHAUSTIVE=full for all of it)",
            (true, true) => {
                "debug assertions on, VARINT_TURBO_EXHAUSTIVE=full (full 3-byte space)"
            }
            (true, false) => "release (full 3-byte space)",
        },
        start.elapsed()
    );
}

fn three_byte_inputs(backends: &[Backend], a: u8, b: u8, full: bool) {
    if full {
        for c in 0..=255u8 {
            check_every_type(backends, &[a, b, c], false);
        }
        return;
    }
    if a >= 0x80 && b >= 0x80 {
        for c in 0..=255u8 {
            let input = [a, b, c];
            check_decode::<u16>(backends, &input);
            check_decode::<u64>(backends, &input);
        }
    }
    // A varying third byte, so that every value of it appears for some (a, b).
    let varying = a.rotate_left(3) ^ b ^ 0x5a;
    for c in [0x00, 0x7f, 0x80, 0xff, varying] {
        check_every_type(backends, &[a, b, c], false);
    }
}

// ---------------------------------------------------------------------------
// Boundaries
// ---------------------------------------------------------------------------

/// 0, u64::MAX, 2^(7k)-1, 2^(7k), 2^(7k)+1 (k = 0..=9), every power of two
/// and its neighbours, and every type's MAX and MAX+1.
fn boundary_values() -> Vec<u64> {
    let mut values = vec![0, 1, u64::MAX, u64::MAX - 1];
    for k in 0..=9 {
        let p = 1u64 << (7 * k);
        values.extend([p - 1, p, p + 1]);
    }
    for i in 0..64 {
        let p = 1u64 << i;
        values.extend([p - 1, p, p + 1]);
    }
    for max in [u64::from(u8::MAX), u64::from(u16::MAX), u64::from(u32::MAX)] {
        values.extend([max, max + 1]);
    }
    values.sort_unstable();
    values.dedup();
    values
}

/// The varint length of `value` from its bit length (independent of the
/// crate's `encoded_len` formula and of `reference_encode`).
fn length_of(value: u64) -> usize {
    let bits = 64 - value.leading_zeros() as usize;
    bits.div_ceil(7).max(1)
}

#[test]
fn boundary_values_encode_and_decode() {
    fn one<T: TestInt>(backends: &[Backend], value: u64) {
        let encoding = reference_encode(value);
        match T::from_u64(value) {
            Some(v) => {
                check_encode::<T>(backends, v);
                assert_eq!(varint_turbo::encoded_len(v), length_of(value));
                assert_eq!(varint_turbo::encoded_len_u64(value), length_of(value));
                if let Ok(narrow) = u32::try_from(value) {
                    assert_eq!(varint_turbo::encoded_len_u32(narrow), length_of(value));
                }
                check_decode_expecting::<T>(backends, &encoding, Ok((v, encoding.len())));
                for trailing in [&[0x00][..], &[0xff; 12], &[0x80, 0x01]] {
                    let input = [&encoding[..], trailing].concat();
                    check_decode_expecting::<T>(backends, &input, Ok((v, encoding.len())));
                }
            }
            None => {
                // Too large for T: longer than MAX_LEN or above MAX, and the
                // varint is complete, so Overflow.
                check_decode_expecting::<T>(backends, &encoding, Err(DecodeError::Overflow));
            }
        }
        check_all_decodes::<T>(backends, &encoding);
    }
    fn signed<S: TestSigned>(backends: &[Backend], value: u64) {
        for v in [value as i64, (value as i64).wrapping_neg(), !(value as i64)] {
            if let Some(v) = S::from_i64(v) {
                check_encode_zigzag::<S>(backends, v);
            }
        }
    }
    let backends = backends();
    let values = boundary_values();
    assert!(values.len() > 150);
    for &value in &values {
        let encoding = reference_encode(value);
        assert_eq!(
            encoding.len(),
            length_of(value),
            "reference_encode({value})"
        );
        for_each_unsigned!(one(&backends, value));
        for_each_signed!(signed(&backends, value));
    }
}

// ---------------------------------------------------------------------------
// Error cases
// ---------------------------------------------------------------------------

/// Every proper prefix of varints of every length, and runs of continuation
/// bytes of every length: Truncated below MAX_LEN bytes, Overflow from
/// MAX_LEN bytes on (the first MAX_LEN bytes all continue).
#[test]
fn truncated_at_every_prefix() {
    fn one<T: TestInt>(backends: &[Backend], prefix: &[u8]) {
        assert!(prefix.iter().all(|&b| b >= 0x80));
        let expected = if prefix.len() >= T::REF_MAX_LEN {
            Err(DecodeError::Overflow)
        } else {
            Err(DecodeError::Truncated)
        };
        assert_eq!(
            reference_decode::<T>(prefix),
            expected,
            "reference on {}",
            hex(prefix)
        );
        check_decode_expecting::<T>(backends, prefix, expected);
        check_decode_unchecked::<T>(backends, &padded(prefix, 0x00));
        check_decode_unchecked::<T>(backends, &padded(prefix, 0xff));
    }
    let backends = backends();
    let mut long_varints: Vec<Vec<u8>> = boundary_values()
        .into_iter()
        .map(reference_encode)
        .filter(|e| e.len() > 1)
        .collect();
    for fill in [0x80u8, 0xff, 0xc5] {
        // Non-minimal and over-long runs of continuation bytes.
        long_varints.push([vec![fill; 20], vec![0x00]].concat());
    }
    for varint in &long_varints {
        for n in 0..varint.len() {
            for_each_unsigned!(one(&backends, &varint[..n]));
        }
    }
}

/// For each type, the byte at position MAX_LEN - 1 after MAX_LEN - 1
/// continuation bytes takes every value: it fits iff it has no continuation
/// bit and the value fits the type; for `u64` this is Go's 10th-byte rule
/// (0x00/0x01 OK, 0x02..=0xff Overflow, never Truncated even when the input
/// ends right there).
#[test]
fn last_byte_at_max_len_every_value() {
    fn one<T: TestInt>(backends: &[Backend]) {
        let n = T::REF_MAX_LEN;
        let shift = 7 * (n - 1) as u32;
        // The largest last byte that still fits: 0x01 for u8/u64, 0x03 for
        // u16, 0x0f for u32.
        let max_last = T::MAX_WIDE >> shift;
        for prefix_byte in [0x80u8, 0xff, 0xaa, 0xd5] {
            let prefix = vec![prefix_byte; n - 1];
            let low = (0..n - 1).fold(0u64, |acc, i| {
                acc | u64::from(prefix_byte & 0x7f) << (7 * i)
            });
            for last in 0..=255u8 {
                let expected = if last < 0x80 && u64::from(last) <= max_last {
                    let v = low | u64::from(last) << shift;
                    Ok((T::from_u64(v).expect("fits"), n))
                } else {
                    Err(DecodeError::Overflow)
                };
                let input = [&prefix[..], &[last]].concat();
                assert_eq!(
                    reference_decode::<T>(&input),
                    expected,
                    "reference on {}",
                    hex(&input)
                );
                check_decode_expecting::<T>(backends, &input, expected);
                for trailing in [&[0x00][..], &[0x80], &[0xff; 8], &[0x01, 0x80, 0x80]] {
                    let longer = [&input[..], trailing].concat();
                    check_decode_expecting::<T>(backends, &longer, expected);
                }
                check_decode_unchecked::<T>(backends, &padded(&input, 0x00));
                check_decode_unchecked::<T>(backends, &padded(&input, 0xff));
            }
        }
    }
    let backends = backends();
    for_each_unsigned!(one(&backends));
    // Go protowire's table, spelled out for u64.
    let nine = [0xffu8; 9];
    for tenth in 0..=255u8 {
        let input = [&nine[..], &[tenth]].concat();
        let expected = match tenth {
            0x00 => Ok(((1u64 << 63) - 1, 10)),
            0x01 => Ok((u64::MAX, 10)),
            _ => Err(DecodeError::Overflow),
        };
        check_decode_expecting::<u64>(&backends, &input, expected);
    }
}

/// Varints of 11 bytes or more: Overflow for every type, whatever follows.
#[test]
fn eleven_bytes_and_more_overflow() {
    fn one<T: TestInt>(backends: &[Backend], input: &[u8]) {
        check_decode_expecting::<T>(backends, input, Err(DecodeError::Overflow));
        check_decode_unchecked::<T>(backends, &padded(input, 0x00));
    }
    let backends = backends();
    for fill in [0x80u8, 0xff, 0x81, 0xfe] {
        for len in 10..=20 {
            for last in [0x00u8, 0x01, 0x7f, 0x80, 0xff] {
                let input = [vec![fill; len], vec![last]].concat();
                for_each_unsigned!(one(&backends, &input));
            }
        }
    }
}

#[test]
fn non_minimal_encodings_that_fit_are_accepted() {
    fn one<T: TestInt>(backends: &[Backend]) {
        // n bytes: (n - 1) continuation bytes with payload, then 0x00.
        for n in 1..=12 {
            for fill in [0x80u8, 0xff] {
                let input = [vec![fill; n - 1], vec![0x00]].concat();
                let value =
                    (0..n - 1).fold(0u128, |acc, i| acc | u128::from(fill & 0x7f) << (7 * i));
                let expected = if n <= T::REF_MAX_LEN && value <= u128::from(T::MAX_WIDE) {
                    Ok((T::from_u64(value as u64).unwrap(), n))
                } else {
                    Err(DecodeError::Overflow)
                };
                assert_eq!(
                    reference_decode::<T>(&input),
                    expected,
                    "reference on {}",
                    hex(&input)
                );
                check_decode_expecting::<T>(backends, &input, expected);
            }
        }
    }
    let backends = backends();
    for_each_unsigned!(one(&backends));
    for b in &backends {
        assert_eq!(b.decode::<u8>(&[0x80, 0x00]), Ok((0, 2)));
        assert_eq!(
            b.decode::<u8>(&[0x80, 0x80, 0x00]),
            Err(DecodeError::Overflow)
        );
        assert_eq!(b.decode::<u32>(&[0x80, 0x80, 0x80, 0x80, 0x00]), Ok((0, 5)));
        assert_eq!(
            b.decode::<u32>(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
            Err(DecodeError::Overflow)
        );
        assert_eq!(
            b.decode::<u64>(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
            Ok((0, 10))
        );
    }
}

// ---------------------------------------------------------------------------
// Alignment and trailing bytes
// ---------------------------------------------------------------------------

/// Interesting inputs: one minimal varint of each length at both ends of its
/// range, non-minimal ones, truncated ones, overflowing ones.
fn interesting_inputs() -> Vec<Vec<u8>> {
    let mut inputs = vec![
        vec![],
        vec![0x80, 0x00],
        vec![0xff, 0x80, 0x00],
        [vec![0x80; 9], vec![0x00]].concat(),
        [vec![0xff; 9], vec![0x01]].concat(),
        [vec![0xff; 9], vec![0x02]].concat(),
        [vec![0xff; 9], vec![0x7f]].concat(),
        vec![0xff; 10],
        vec![0xff; 11],
        [vec![0x80; 10], vec![0x00]].concat(),
        vec![0x80],
        vec![0xff; 4],
        vec![0xff; 9],
        vec![0xff, 0xff, 0xff, 0xff, 0x0f],
        vec![0xff, 0xff, 0xff, 0xff, 0x10],
        vec![0xff, 0xff, 0x03],
        vec![0xff, 0xff, 0x04],
        vec![0xff, 0x01],
        vec![0x80, 0x02],
    ];
    for len in 1..=10u32 {
        let min = if len == 1 { 0 } else { 1u64 << (7 * (len - 1)) };
        let max = if len == 10 {
            u64::MAX
        } else {
            (1u64 << (7 * len)) - 1
        };
        inputs.push(reference_encode(min));
        inputs.push(reference_encode(max));
    }
    inputs
}

/// Every input at every offset 0..64 of a larger buffer (so every alignment
/// and both the short-input and the 16-byte-window paths), followed by
/// 0..=32 trailing bytes of zeros or garbage: the result equals the
/// reference on the slice, and for an input that is not truncated it equals
/// the result without the trailing bytes (they are ignored, not counted).
/// `decode_unchecked` is checked at every offset with 16 readable bytes.
#[test]
fn every_offset_and_trailing_bytes() {
    fn one<T: TestInt>(
        backends: &[Backend],
        buf: &[u8],
        offset: usize,
        len: usize,
        trailing: usize,
    ) {
        let input = &buf[offset..offset + len];
        let slice = &buf[offset..offset + len + trailing];
        let bare = reference_decode::<T>(input);
        let expected = reference_decode::<T>(slice);
        if bare != Err(DecodeError::Truncated) {
            assert_eq!(
                expected, bare,
                "reference: trailing bytes changed the result"
            );
        }
        check_decode_expecting::<T>(backends, slice, expected);
        if buf.len() - offset >= 16 {
            let window: &[u8; 16] = buf[offset..offset + 16].try_into().unwrap();
            let want = reference_decode::<T>(window);
            for &backend in backends {
                // SAFETY: 16 readable bytes at `buf[offset..]` (checked above);
                // the pointer is deliberately unaligned.
                let got = unsafe { backend.decode_unchecked::<T>(buf.as_ptr().add(offset)) };
                match want {
                    Ok(w) => assert_eq!(
                        got,
                        w,
                        "{}: decode_unchecked at offset {offset}",
                        backend.name()
                    ),
                    Err(_) => assert!((1..=T::REF_MAX_LEN).contains(&got.1)),
                }
            }
        }
    }
    let backends = backends();
    let inputs = interesting_inputs();
    let offsets: Vec<usize> = if DEBUG {
        (0..64).step_by(3).chain([63]).collect()
    } else {
        (0..64).collect()
    };
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut cases = 0usize;
    for input in &inputs {
        for &offset in &offsets {
            for trailing in 0..=32 {
                for fill in 0..3 {
                    let mut buf = vec![0xeeu8; 64 + input.len() + 32];
                    buf[offset..offset + input.len()].copy_from_slice(input);
                    for byte in &mut buf[offset + input.len()..] {
                        *byte = match fill {
                            0 => 0x00,
                            1 => 0xff,
                            _ => {
                                rng ^= rng << 13;
                                rng ^= rng >> 7;
                                rng ^= rng << 17;
                                rng as u8
                            }
                        };
                    }
                    // Cut the buffer right after the trailing bytes, so that
                    // short slices really end there.
                    let buf = &buf[..offset + input.len() + trailing];
                    for_each_unsigned!(one(&backends, buf, offset, input.len(), trailing));
                    cases += 1;
                }
            }
        }
    }
    assert!(cases > 10_000);
}

// ---------------------------------------------------------------------------
// decode_unchecked
// ---------------------------------------------------------------------------

/// `decode_unchecked` on 16-byte buffers: the same as `decode` for every
/// valid varint (with any padding), a length in 1..=MAX_LEN otherwise.
#[test]
fn decode_unchecked_contract() {
    fn one<T: TestInt>(backends: &[Backend], buf: &[u8; 16]) {
        check_decode_unchecked::<T>(backends, buf);
        // For a valid input, exactly what the checked decode returns.
        if let Ok(expected) = reference_decode::<T>(buf) {
            for &backend in backends {
                assert_eq!(backend.decode::<T>(buf), Ok(expected));
                assert_eq!(
                    backend.decode_unchecked_buf::<T>(buf),
                    expected,
                    "{}",
                    backend.name()
                );
            }
        }
    }
    let backends = backends();
    let mut inputs = interesting_inputs();
    inputs.extend(boundary_values().into_iter().map(reference_encode));
    for fill in [0x80u8, 0xff] {
        for n in 0..=16 {
            inputs.push(vec![fill; n]);
        }
    }
    for input in &inputs {
        for pad in [0x00u8, 0x01, 0x7f, 0x80, 0xff] {
            let buf = padded(input, pad);
            for_each_unsigned!(one(&backends, &buf));
        }
    }
    // The documented example.
    let mut buf = [0u8; 16];
    buf[..2].copy_from_slice(&[0xac, 0x02]);
    for b in &backends {
        assert_eq!(b.decode_unchecked_buf::<u32>(&buf), (300, 2));
    }
}

// ---------------------------------------------------------------------------
// encode / encode_to_slice
// ---------------------------------------------------------------------------

/// The smallest and largest value with a varint of each length 1..=10.
fn length_extremes() -> Vec<(usize, u64)> {
    (1..=10u32)
        .flat_map(|len| {
            let min = if len == 1 { 0 } else { 1u64 << (7 * (len - 1)) };
            let max = if len == 10 {
                u64::MAX
            } else {
                (1u64 << (7 * len)) - 1
            };
            [
                (len as usize, min),
                (len as usize, max),
                (len as usize, min | (max >> 1) & 0x5555_5555_5555_5555),
            ]
        })
        .collect()
}

#[test]
fn encode_to_slice_exact_size_buffers() {
    let backends = backends();
    for (len, value) in length_extremes() {
        assert_eq!(length_of(value), len);
        let expected = reference_encode(value);
        assert_eq!(expected.len(), len);
        assert_eq!(varint_turbo::encoded_len(value), len);
        for &backend in &backends {
            // Exactly `len` bytes inside sentinels: all of them written,
            // nothing outside.
            let mut buf = [0x33u8; 48];
            let written = backend.encode_to_slice(value, &mut buf[16..16 + len]);
            assert_eq!(written, len, "{}: {value}", backend.name());
            assert_eq!(
                &buf[16..16 + len],
                &expected[..],
                "{}: {value}",
                backend.name()
            );
            assert!(buf[..16].iter().chain(&buf[16 + len..]).all(|&b| b == 0x33));

            // A buffer of 16+ bytes: the documented licence to zero bytes
            // after the varint, but never at index 10 or later (a varint is
            // at most 10 bytes, indices 0..=9).
            for size in [16, 17, 32] {
                let mut big = vec![0x33u8; size];
                assert_eq!(backend.encode_to_slice(value, &mut big), len);
                assert_eq!(&big[..len], &expected[..]);
                assert!(
                    big[len..10].iter().all(|&b| b == 0 || b == 0x33),
                    "{}: {}",
                    backend.name(),
                    hex(&big)
                );
                assert!(
                    big[10..].iter().all(|&b| b == 0x33),
                    "{}: wrote past index 9: {}",
                    backend.name(),
                    hex(&big)
                );
            }
            // Every size from len to 16.
            for size in len..=16 {
                let mut buf = vec![0x33u8; size];
                assert_eq!(backend.encode_to_slice(value, &mut buf), len);
                assert_eq!(&buf[..len], &expected[..]);
            }
            // The narrower types, where the value fits.
            if let Ok(v) = u32::try_from(value) {
                let mut buf = vec![0x33u8; len];
                assert_eq!(backend.encode_to_slice(v, &mut buf), len);
                assert_eq!(buf, expected);
            }
        }
    }
}

/// What `catch_unwind` caught, as text.
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        "<non-string panic payload>".to_string()
    }
}

#[test]
fn encode_to_slice_panics_on_every_short_buffer_every_backend() {
    let backends = backends();
    for (len, value) in length_extremes() {
        for &backend in &backends {
            for size in 0..len {
                let mut buf = vec![0x33u8; size];
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    backend.encode_to_slice(value, &mut buf)
                }));
                let message = panic_message(
                    result.expect_err("encode_to_slice must panic on a short buffer"),
                );
                assert_eq!(
                    message,
                    format!(
                        "encode_to_slice: the varint needs {len} bytes but the buffer has {size}"
                    ),
                    "{}: value {value}",
                    backend.name()
                );
            }
        }
    }
}

#[test]
#[should_panic(expected = "encode_to_slice: the varint needs 2 bytes but the buffer has 1")]
fn encode_to_slice_panics_on_short_buffer() {
    varint_turbo::encode_to_slice(300u32, &mut [0u8; 1]);
}

#[test]
#[should_panic(expected = "encode_to_slice: the varint needs 10 bytes but the buffer has 9")]
fn encode_to_slice_panics_on_nine_bytes_for_u64_max() {
    varint_turbo::encode_to_slice(u64::MAX, &mut [0u8; 9]);
}

#[test]
#[should_panic(expected = "encode_to_slice: the varint needs 1 bytes but the buffer has 0")]
fn encode_to_slice_panics_on_empty_buffer() {
    varint_turbo::encode_to_slice(0u8, &mut []);
}

#[test]
#[should_panic(expected = "encode_to_slice: the varint needs 5 bytes but the buffer has 4")]
fn encode_zigzag_to_slice_panics_on_short_buffer() {
    varint_turbo::encode_zigzag_to_slice(i32::MIN, &mut [0u8; 4]);
}

#[test]
#[should_panic(expected = "encode_to_slice: the varint needs 3 bytes but the buffer has 2")]
fn scalar_encode_to_slice_panics_on_short_buffer() {
    let scalar = varint_turbo::arch::Scalar::new().unwrap();
    scalar.encode_to_slice(1u32 << 14, &mut [0u8; 2]);
}

#[test]
fn encode_zero_pads() {
    fn one<T: TestInt>(backends: &[Backend], value: u64) {
        if let Some(v) = T::from_u64(value) {
            for &backend in backends {
                let (bytes, len) = backend.encode(v);
                let len = usize::from(len);
                assert_eq!(len, length_of(value));
                assert!((1..=10).contains(&len));
                assert!(
                    bytes[len..].iter().all(|&b| b == 0),
                    "{}: encode({value}) = {}",
                    backend.name(),
                    hex(&bytes)
                );
            }
        }
    }
    let backends = backends();
    for value in boundary_values() {
        for_each_unsigned!(one(&backends, value));
    }
    let (bytes, len) = varint_turbo::encode(300u32);
    assert_eq!(
        (len, &bytes[..]),
        (
            2,
            &[0xac, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0][..]
        )
    );
}

// ---------------------------------------------------------------------------
// Zigzag
// ---------------------------------------------------------------------------

#[test]
fn zigzag_every_i8_and_i16() {
    let backends = backends();
    for v in i8::MIN..=i8::MAX {
        let z = reference_zigzag_encode(v);
        assert_eq!(varint_turbo::zigzag_encode_i8(v), z);
        assert_eq!(varint_turbo::zigzag_decode_i8(z), v);
        check_encode_zigzag::<i8>(&backends, v);
        check_encode_zigzag::<i16>(&backends, v.into());
        check_encode_zigzag::<i32>(&backends, v.into());
        check_encode_zigzag::<i64>(&backends, v.into());
        check_encode_zigzag::<isize>(&backends, v.into());
    }
    for u in 0..=u8::MAX {
        assert_eq!(
            varint_turbo::zigzag_encode(varint_turbo::zigzag_decode::<i8>(u)),
            u
        );
    }
    for v in i16::MIN..=i16::MAX {
        let z = reference_zigzag_encode(v);
        assert_eq!(varint_turbo::zigzag_encode_i16(v), z);
        assert_eq!(varint_turbo::zigzag_decode_i16(z), v);
        assert_eq!(varint_turbo::zigzag_encode_i32(v.into()), u32::from(z));
        assert_eq!(varint_turbo::zigzag_encode_i64(v.into()), u64::from(z));
        assert_eq!(varint_turbo::zigzag_encode_isize(v.into()), usize::from(z));
        check_encode_zigzag::<i16>(&backends, v);
        if !DEBUG || v % 5 == 0 {
            check_encode_zigzag::<i64>(&backends, v.into());
        }
    }
    for u in 0..=u16::MAX {
        assert_eq!(
            varint_turbo::zigzag_encode(varint_turbo::zigzag_decode::<i16>(u)),
            u
        );
        assert_eq!(
            varint_turbo::zigzag_decode::<i16>(u),
            reference_zigzag_decode::<i16>(u)
        );
    }
}

#[test]
fn zigzag_const_context() {
    const MINUS_ONE: u64 = varint_turbo::zigzag_encode_i64(-1);
    const ONE: u32 = varint_turbo::zigzag_encode_i32(1);
    const I8_MIN: u8 = varint_turbo::zigzag_encode_i8(i8::MIN);
    const I16_MAX: u16 = varint_turbo::zigzag_encode_i16(i16::MAX);
    const ISIZE: usize = varint_turbo::zigzag_encode_isize(-3);
    const BACK: i64 = varint_turbo::zigzag_decode_i64(3);
    const BACK32: i32 = varint_turbo::zigzag_decode_i32(u32::MAX);
    const BACK8: i8 = varint_turbo::zigzag_decode_i8(255);
    const BACK16: i16 = varint_turbo::zigzag_decode_i16(4);
    const BACKSIZE: isize = varint_turbo::zigzag_decode_isize(5);
    // Evaluated at compile time, then checked.
    const TABLE: [u64; 3] = [
        varint_turbo::zigzag_encode_i64(0),
        varint_turbo::zigzag_encode_i64(i64::MIN),
        varint_turbo::zigzag_encode_i64(i64::MAX),
    ];
    assert_eq!(MINUS_ONE, 1);
    assert_eq!(ONE, 2);
    assert_eq!(I8_MIN, u8::MAX);
    assert_eq!(I16_MAX, u16::MAX - 1);
    assert_eq!(ISIZE, 5);
    assert_eq!(BACK, -2);
    assert_eq!(BACK32, i32::MIN);
    assert_eq!(BACK8, i8::MIN);
    assert_eq!(BACK16, 2);
    assert_eq!(BACKSIZE, -3);
    assert_eq!(TABLE, [0, u64::MAX, u64::MAX - 1]);
}

#[test]
fn zigzag_extremes() {
    use varint_turbo::{zigzag_decode, zigzag_encode};
    assert_eq!(zigzag_encode(i32::MIN), u32::MAX);
    assert_eq!(zigzag_encode(i32::MAX), u32::MAX - 1);
    assert_eq!(zigzag_encode(i64::MIN), u64::MAX);
    assert_eq!(zigzag_encode(i64::MAX), u64::MAX - 1);
    assert_eq!(zigzag_encode(isize::MIN), usize::MAX);
    assert_eq!(zigzag_encode(isize::MAX), usize::MAX - 1);
    assert_eq!(zigzag_decode::<i32>(u32::MAX), i32::MIN);
    assert_eq!(zigzag_decode::<i32>(u32::MAX - 1), i32::MAX);
    assert_eq!(zigzag_decode::<i64>(u64::MAX), i64::MIN);
    assert_eq!(zigzag_decode::<i64>(u64::MAX - 1), i64::MAX);
    for (v, z) in [
        (0i64, 0u64),
        (-1, 1),
        (1, 2),
        (-2, 3),
        (2, 4),
        (-64, 127),
        (64, 128),
    ] {
        assert_eq!(zigzag_encode(v), z);
        assert_eq!(zigzag_decode::<i64>(z), v);
    }

    let backends = backends();
    for v in [i32::MIN, i32::MIN + 1, i32::MAX, i32::MAX - 1, -1, 0, 1] {
        check_encode_zigzag::<i32>(&backends, v);
        check_encode_zigzag::<i64>(&backends, v.into());
    }
    for v in [i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1] {
        check_encode_zigzag::<i64>(&backends, v);
        check_encode_zigzag::<isize>(&backends, v as isize);
    }
    for b in &backends {
        let (bytes, len) = b.encode_zigzag(i32::MIN);
        assert_eq!(&bytes[..usize::from(len)], &[0xff, 0xff, 0xff, 0xff, 0x0f]);
        let (bytes, len) = b.encode_zigzag(i64::MIN);
        assert_eq!(
            &bytes[..usize::from(len)],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
        let (bytes, len) = b.encode_zigzag(i64::MAX);
        assert_eq!(
            &bytes[..usize::from(len)],
            &[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
        // A zigzag value too large for the signed type's width overflows.
        assert_eq!(
            b.decode_zigzag::<i32>(&[0x80, 0x80, 0x80, 0x80, 0x10]),
            Err(DecodeError::Overflow)
        );
        assert_eq!(
            b.decode_zigzag::<i8>(&[0x80, 0x02]),
            Err(DecodeError::Overflow)
        );
        assert_eq!(b.decode_zigzag::<i8>(&[0xff, 0x01]), Ok((i8::MIN, 2)));
        assert_eq!(b.decode_zigzag::<i64>(&[0xff]), Err(DecodeError::Truncated));
    }
}

/// `decode_short` on every input of up to 3 bytes and on 4-byte ones
/// (every 3-byte prefix pattern of a few bytes): `Some` exactly where
/// `decode` decodes a varint of at most 3 bytes, with its value and length
/// (and `decode_wrapping`'s), else `None`.
#[test]
fn decode_short_is_decode_on_varints_of_up_to_3_bytes() {
    fn one<T: TestInt>(input: &[u8]) {
        let short = varint_turbo::decode_short::<T>(input);
        let want = match varint_turbo::decode::<T>(input) {
            Ok((value, len)) if len <= 3 => Some((value, len)),
            _ => None,
        };
        assert_eq!(short, want, "decode_short::<{}>({input:02x?})", T::NAME);
        if let Some(found) = short {
            assert_eq!(varint_turbo::decode_wrapping::<T>(input), Ok(found));
        }
    }
    fn every_type(input: &[u8]) {
        one::<u8>(input);
        one::<u16>(input);
        one::<u32>(input);
        one::<u64>(input);
        one::<usize>(input);
    }
    every_type(&[]);
    const THIRD: [u8; 6] = [0x00, 0x01, 0x7f, 0x80, 0x81, 0xff];
    for a in 0..=255u8 {
        every_type(&[a]);
        for b in 0..=255u8 {
            every_type(&[a, b]);
            for c in THIRD {
                every_type(&[a, b, c]);
                every_type(&[a, b, c, 0x01]);
                every_type(&[a, b, c, 0x80, 0x01]);
            }
        }
    }
}

/// `encode_with` hands over exactly `encode`'s varint, for every type at
/// every length boundary, and returns what the closure returns.
#[test]
fn encode_with_hands_over_encodes_bytes() {
    fn one<T: TestInt>(wide: u64) {
        let value = T::from_u64_wrapping(wide);
        let (bytes, len) = varint_turbo::encode(value);
        let handed = varint_turbo::encode_with(value, |varint| varint.to_vec());
        assert_eq!(handed, bytes[..usize::from(len)], "{} {wide:#x}", T::NAME);
        assert_eq!(
            varint_turbo::encode_with(value, <[u8]>::len),
            usize::from(len)
        );
    }
    for value in boundary_values() {
        one::<u8>(value);
        one::<u16>(value);
        one::<u32>(value);
        one::<u64>(value);
        one::<usize>(value);
    }
}

/// `encode_to_uninit` writes exactly `encode`'s varint into windows of
/// every length around it (the kernel's stores where the window has room
/// for them, the copy where not), leaves the window's bytes past
/// `stored_bytes` alone, and panics where the varint does not fit, as
/// `encode_to_slice` does.
#[test]
fn encode_to_uninit_writes_encodes_bytes() {
    use std::mem::MaybeUninit;
    fn one<T: TestInt>(wide: u64) {
        let value = T::from_u64_wrapping(wide);
        let (bytes, len) = varint_turbo::encode(value);
        let len = usize::from(len);
        for room in len..=18 {
            // Filled with a marker first, so that what is written shows.
            let mut window = [MaybeUninit::new(0xa5u8); 18];
            let written = varint_turbo::encode_to_uninit(value, &mut window[..room]);
            assert_eq!(written, len, "{} {wide:#x} in {room}", T::NAME);
            // SAFETY: every byte of `window` was initialized (the marker or
            // the encoder's writes).
            let seen: Vec<u8> = window.iter().map(|b| unsafe { b.assume_init() }).collect();
            assert_eq!(seen[..len], bytes[..len], "{} {wide:#x} in {room}", T::NAME);
            // Nothing written past `room`, and past the varint only zeros.
            assert!(seen[room..].iter().all(|&b| b == 0xa5));
            assert!(seen[len..room].iter().all(|&b| b == 0 || b == 0xa5));
        }
        for room in 0..len {
            let mut window = [MaybeUninit::<u8>::uninit(); 18];
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                varint_turbo::encode_to_uninit(value, &mut window[..room])
            }));
            assert!(result.is_err(), "{} {wide:#x} in {room}: no panic", T::NAME);
        }
    }
    for value in boundary_values() {
        one::<u8>(value);
        one::<u16>(value);
        one::<u32>(value);
        one::<u64>(value);
        one::<usize>(value);
    }
}
