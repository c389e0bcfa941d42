//! The `delta` module against the independent reference of
//! `common::delta` (repeated `reference_decode`s of the gaps, a running sum
//! in `u64` truncated to the type): `decode_slice`, `select`, `search`
//! and the encoders on every bulk backend this CPU supports and through
//! the API, on random lists of every gap shape, lengths around the batch
//! and block sizes, wrapping sums, and malformed varints at every kind of
//! position (values, bytes consumed, error kind, index and offset).

use crate::common;

use common::delta::{check_delta_decodes, check_delta_encodes, reference_sums, TestDelta};
use common::differential::bulk_backends;
use common::*;
use varint_turbo::delta;

/// A gap of a shape: 1-byte (`0`), mixed lengths (`1`), 3-byte (`2`),
/// full-width (`3`, wrapping sums), 95% 1-byte (`4`).
fn gap(shape: u64, r: u64) -> u64 {
    match shape {
        0 => r % 128,
        1 => r >> (r % 64),
        2 => (1 << 14) + r % ((1 << 21) - (1 << 14)),
        3 => r,
        _ if r % 100 < 95 => r % 128,
        _ => 128 + (r >> 8) % 100_000,
    }
}

/// The varints of `count` gaps of `shape`, each truncated to `T`.
fn gaps_input<T: TestDelta>(next: &mut impl FnMut() -> u64, shape: u64, count: usize) -> Vec<u8> {
    let mut input = Vec::new();
    for _ in 0..count {
        let value = T::from_u64_wrapping(gap(shape, next())).as_u64();
        reference_encode_append(value, &mut input);
    }
    input
}

/// Malformed varints put into a valid input at `at`: cut off at the end
/// (by truncating the input), too long (11 continuation bytes), above
/// `u32::MAX` (a 5-byte varint with bits past 32), a 10th byte above 1.
fn corrupt(input: &mut Vec<u8>, at: usize, how: u64) {
    let at = at.min(input.len());
    match how % 4 {
        0 => {
            input.truncate(at);
            input.push(0x80);
        }
        1 => {
            input.splice(at..at, [0xff; 11]).for_each(drop);
        }
        2 => {
            input
                .splice(at..at, [0xff, 0xff, 0xff, 0xff, 0x7f])
                .for_each(drop);
        }
        _ => {
            input
                .splice(
                    at..at,
                    [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
                )
                .for_each(drop);
        }
    }
}

/// The previous values the tests start from: edges and a random one.
fn previous_values(r: u64) -> [u64; 4] {
    [0, u64::MAX, u64::from(u32::MAX) - 3, r]
}

/// Decode, select and search on one input with a few room sizes, indices
/// and keys (around the values, below the first, above the last).
fn check_input<T: TestDelta>(
    backends: &[varint_turbo::Backend],
    input: &[u8],
    previous: u64,
    r: u64,
) {
    let previous = T::from_u64_wrapping(previous);
    let count = input.iter().filter(|&&byte| byte < 0x80).count();
    let (gaps, _) = differential::repeated_decode(input, usize::MAX, reference_decode::<T>);
    let values = reference_sums(&gaps, previous);
    let pick = |salt: u64| -> usize {
        if count == 0 {
            0
        } else {
            (r.rotate_left(salt as u32) as usize) % (count + 2)
        }
    };
    let near = |i: usize, delta: u64| {
        let at = values.get(i).or(values.last()).copied().unwrap_or(previous);
        T::from_u64_wrapping(at.as_u64().wrapping_add(delta))
    };
    let outs = [count, count.saturating_sub(1), pick(7), count + 9, 0];
    let indices = [0, pick(13), count.saturating_sub(1), count, usize::MAX];
    let keys = [
        near(pick(19), 0),
        near(pick(23), 1),
        near(pick(29), u64::MAX),
        T::from_u64_wrapping(0),
        T::from_u64_wrapping(u64::MAX),
    ];
    for ((out_len, index), key) in outs.into_iter().zip(indices).zip(keys) {
        check_delta_decodes::<T>(backends, input, out_len, previous, index, key);
    }
}

#[test]
fn random_lists_of_every_shape_agree_with_the_reference() {
    let backends = bulk_backends();
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    let lengths = [
        0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 200, 500,
    ];
    for shape in 0..5 {
        for &count in &lengths {
            let r = next();
            let previous = previous_values(r)[(r % 4) as usize];
            let input = gaps_input::<u32>(&mut next, shape, count);
            check_input::<u32>(&backends, &input, previous, next());
            let input = gaps_input::<u64>(&mut next, shape, count);
            check_input::<u64>(&backends, &input, previous, next());
        }
    }
}

/// Inputs past the one-call size (8 KiB), which the decoders take in
/// batches of 1,024 values: lengths around the batches, errors in later
/// batches.
#[test]
fn long_lists_in_batches_agree_with_the_reference() {
    let backends = bulk_backends();
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    for (shape, count) in [
        (0, 9000),
        (0, 20_000),
        (1, 3000),
        (2, 4096),
        (4, 12_000),
        (3, 2100),
    ] {
        let r = next();
        let mut input = gaps_input::<u64>(&mut next, shape, count);
        check_input::<u64>(
            &backends,
            &input,
            previous_values(r)[(r % 4) as usize],
            next(),
        );
        let mut input32 = gaps_input::<u32>(&mut next, shape, count);
        check_input::<u32>(&backends, &input32, r, next());
        for how in 0..4 {
            let at = (next() as usize) % input.len();
            let mut bad = input.clone();
            corrupt(&mut bad, at, how);
            check_input::<u64>(&backends, &bad, r, next());
            let at = (next() as usize) % input32.len();
            let mut bad = input32.clone();
            corrupt(&mut bad, at, how);
            check_input::<u32>(&backends, &bad, r, next());
        }
        input.clear();
        input32.clear();
    }
}

#[test]
fn malformed_gaps_anywhere_agree_with_the_reference() {
    let backends = bulk_backends();
    let mut next = xorshift(0x1234_5678_9abc_def1);
    for round in 0..200 {
        let shape = round % 5;
        let count = (next() % 300) as usize;
        let input = gaps_input::<u64>(&mut next, shape, count);
        let at = if input.is_empty() {
            0
        } else {
            (next() as usize) % (input.len() + 1)
        };
        let mut bad = input.clone();
        corrupt(&mut bad, at, next());
        let r = next();
        check_input::<u32>(&backends, &bad, r, next());
        check_input::<u64>(&backends, &bad, r, next());
    }
}

/// Gaps that wrap the sum past the type's maximum, in every lane position
/// of the vector sums.
#[test]
fn sums_wrap_in_the_type() {
    let backends = bulk_backends();
    for count in [1, 3, 4, 5, 8, 9, 17, 40] {
        for at in 0..count {
            let mut gaps = vec![1u64; count];
            gaps[at] = u64::MAX;
            let mut input = Vec::new();
            for &gap in &gaps {
                reference_encode_append(gap, &mut input);
            }
            check_input::<u64>(&backends, &input, u64::MAX - 2, at as u64);
            let mut input = Vec::new();
            for &gap in &gaps {
                reference_encode_append(gap & u64::from(u32::MAX), &mut input);
            }
            check_input::<u32>(&backends, &input, u64::from(u32::MAX), at as u64);
        }
    }
    let mut out = [0u32; 3];
    let input = [0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x02];
    assert_eq!(delta::decode_slice(&input, &mut out, 5), Ok((3, 7)));
    assert_eq!(out, [6, 5, 7]);
}

/// The encoders on random lists (sorted and not), every room size around
/// the encoding's, then back through the decoder.
#[test]
fn encoders_agree_with_the_reference() {
    let backends = bulk_backends();
    let mut next = xorshift(0x0bad_5eed_0bad_5eed);
    for round in 0..120u64 {
        let count = (next() % 600) as usize;
        let shape = round % 5;
        let r = next();
        let previous = previous_values(r)[(r % 4) as usize];
        let mut sum = previous;
        let values: Vec<u64> = (0..count)
            .map(|_| {
                sum = sum.wrapping_add(gap(shape, next()));
                sum
            })
            .collect();
        let needed: usize = values.len() * 10;
        let room = (next() as usize) % (needed + 1);
        check_delta_encodes::<u64>(&backends, &values, previous, room);
        check_delta_encodes::<u64>(&backends, &values, previous, usize::MAX >> 40);
        let values32: Vec<u32> = values.iter().map(|&v| v as u32).collect();
        check_delta_encodes::<u32>(&backends, &values32, previous as u32, room);
        check_delta_encodes::<u32>(&backends, &values32, previous as u32, 6 * count);
    }
}

/// Short lists of one-byte gaps beside longer gaps at every position: the
/// byte loop, the short-input paths and the one-byte runs.
#[test]
fn short_lists_of_one_byte_gaps_with_a_longer_one_anywhere() {
    let backends = bulk_backends();
    for count in 1..=40 {
        for long_at in 0..=count {
            for long in [300u64, 1 << 30, u64::MAX] {
                let mut input = Vec::new();
                for i in 0..count {
                    if i == long_at {
                        reference_encode_append(long, &mut input);
                    } else {
                        reference_encode_append((i as u64 * 37) % 128, &mut input);
                    }
                }
                check_input::<u32>(&backends, &input, 1000, long_at as u64);
                check_input::<u64>(&backends, &input, 1000, long_at as u64);
            }
        }
    }
}

/// The varints of gaps in runs of one shape each: 1-byte gaps (up to
/// 127), 1- and 2-byte gaps (up to 2^14 - 1), 3-5-byte gaps; `runs` runs
/// of up to `max_run` values, their shapes and lengths from `next`.
/// Returns the input and the byte offset where each run ends.
fn runs_input(next: &mut impl FnMut() -> u64, runs: usize, max_run: u64) -> (Vec<u8>, Vec<usize>) {
    let mut input = Vec::new();
    let mut ends = Vec::new();
    for _ in 0..runs {
        let kind = next() % 3;
        let len = 1 + next() % max_run;
        for _ in 0..len {
            let r = next();
            let gap = match kind {
                0 => 127 - r % 4,
                1 if r % 3 == 0 => r % 128,
                1 => (1 << 14) - 1 - r % 64,
                _ => (1 << 14) + r % ((1 << 35) - (1 << 14)),
            };
            reference_encode_append(gap, &mut input);
        }
        ends.push(input.len());
    }
    (input, ends)
}

/// The one- and two-byte runs, which the SSSE3 and AVX2 decoders sum as
/// they widen them, between other gaps: runs that end anywhere in a
/// block, cross the 1,024-value batches of long inputs and the room of
/// `out`, sums that wrap inside a run, malformed varints right after a
/// run.
#[test]
fn one_and_two_byte_runs_between_longer_gaps() {
    let backends = bulk_backends();
    let mut next = xorshift(0x0041_de17_a5ed_0041);
    for round in 0..24u64 {
        let (runs, max_run) = if round % 4 == 3 { (40, 600) } else { (8, 200) };
        let (input, ends) = runs_input(&mut next, runs, max_run);
        // Near each type's maximum, so that the sums wrap inside runs.
        let previous = [u64::MAX - 5000, u64::from(u32::MAX) - 5000, next()][(round % 3) as usize];
        check_input::<u32>(&backends, &input, previous, next());
        check_input::<u64>(&backends, &input, previous, next());
        // A malformed varint right after a run (or one byte into the next).
        let end = ends[(next() as usize) % ends.len()];
        let mut bad = input.clone();
        corrupt(&mut bad, end + (round % 2) as usize, next());
        check_input::<u32>(&backends, &bad, previous, next());
        check_input::<u64>(&backends, &bad, previous, next());
    }
}
