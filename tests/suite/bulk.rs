//! The bulk API against the single-value reference: every bulk backend this
//! CPU supports must give the same values, counts, bytes consumed and
//! errors (kind, index, offset) as repeated `reference_decode`.

use crate::common;

use common::differential::{check_decode_slice, check_decode_slice_zigzag};
use common::*;
use proptest::prelude::*;
use varint_turbo::{Backend as Bulk, DecodeError};

const PACKED: &str = include_str!("../data/packed.tsv");

/// The bulk backends that must run here: every one the CPU supports.
/// Fails if the crate's list differs from what the CPU's raw CPUID calls for
/// (see `common::cpuid`; the census test, tests/suite/census.rs, says which).
fn bulk_backends() -> Vec<Bulk> {
    differential::bulk_backends()
}

/// Every bulk backend, the API's `decode_slice` and `decode_all` for every
/// unsigned type, against repeated single-value decodes (the fuzz oracle).
fn check_all_types(backends: &[Bulk], input: &[u8], out_len: usize) {
    for_each_unsigned!(check_decode_slice(backends, input, out_len));
}

/// A value whose varint has `len` bytes, varied by `salt`.
fn value_of_len(len: usize, salt: u64) -> u64 {
    if len >= 10 {
        return (1 << 63) | salt;
    }
    let low = if len == 1 { 0 } else { 1u64 << (7 * (len - 1)) };
    let high = (1u64 << (7 * len)) - 1;
    low + salt % (high - low + 1)
}

fn stream(lens: &[usize], salt: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, &len) in lens.iter().enumerate() {
        out.extend(reference_encode(value_of_len(
            len,
            salt.wrapping_mul(i as u64 + 1),
        )));
    }
    out
}

#[test]
fn every_length_around_window_edges() {
    let backends = bulk_backends();
    // 0..=300 values of a fixed length (window edges of 16/32/64 bytes fall
    // at every phase), plus a mix; cut-offs at every out_len near the end.
    for len in [1usize, 2, 3, 5, 9, 10] {
        for count in 0..=300 {
            let input = stream(&vec![len; count], count as u64);
            check_all_types(&backends, &input, count);
            check_all_types(&backends, &input, count.saturating_sub(1));
            // A truncated last varint.
            if len > 1 && count > 0 {
                check_all_types(&backends, &input[..input.len() - 1], count);
            }
        }
    }
}

/// One varint of every length 1..=12 and last byte (0, 1, 2, 0x0f, 0x10,
/// 0x7f: the limits of the 10th, 5th, 3rd and 2nd bytes for u64, u32, u16
/// and u8), with its last byte at every offset of the SIMD chunks,
/// windows and the AVX2/SSSE3 decoder's 63-byte blocks (16 + `pad` one- or
/// two-byte varints before it) and as the last varint: the length and
/// overflow checks of that decoder (varint 0 of a chunk, or inside it;
/// the block that fails is redone by the scalar decoder) and of the
/// AVX-512 chunk decoder (a varint that starts in one 64-byte chunk and
/// ends in the next) against the reference.
#[test]
fn long_and_overflowing_varints_at_every_chunk_offset() {
    let backends = bulk_backends();
    for len in 1..=12usize {
        for last in [0u8, 1, 2, 0x0f, 0x10, 0x7f] {
            let mut varint = vec![0xd5u8; len - 1];
            varint.push(last);
            // Offsets 16..~120: every offset of the AVX2/SSSE3 63-byte
            // blocks and the 16/32/64-byte windows. Where the AVX-512 backend
            // runs, also 116..~180, and a longer filler after the varint: its
            // 64-byte chunks need 128 bytes of input. Not under the qemu CPU
            // models, which lack AVX-512 and would only repeat the other
            // cases at emulated speed.
            let avx512 = Bulk::Avx512Vbmi2.is_supported();
            let (chunk_edges, filler) = if avx512 {
                (100..124usize, 140)
            } else {
                (0..0, 40)
            };
            for pad in (0..80usize).chain(chunk_edges) {
                for two_byte_pad in [false, true] {
                    let mut input = vec![0x05u8; 16];
                    for i in 0..pad {
                        if two_byte_pad && i % 3 == 0 {
                            input.extend([0x81, 0x01]);
                        } else {
                            input.push(i as u8);
                        }
                    }
                    input.extend(&varint);
                    let values = input.iter().filter(|&&b| b < 0x80).count();
                    check_all_types(&backends, &input, values);
                    input.extend(std::iter::repeat_n(0x11u8, filler));
                    input.extend([0xff, 0x7f, 0x80, 0x01]);
                    check_all_types(&backends, &input, values + filler + 2);
                }
            }
        }
    }
}

/// Runs of one-byte varints (whole 64-byte chunks of them take the AVX-512
/// decoder's widening shortcut) of every length up to 4 chunks, then a
/// varint that is valid, long, overflowing or cut off, then more one-byte
/// values; `out` ends at the run's end, a chunk edge or the last value. The
/// shortcut must hand over exactly at the first chunk that is not 64 whole
/// one-byte varints, including one whose bytes are all below 0x80 but
/// whose first byte ends a varint from the chunk before. Under the qemu CPU
/// models (no AVX-512) only a few run lengths.
#[test]
fn one_byte_runs_then_any_varint() {
    let backends = bulk_backends();
    let runs: Vec<usize> = if Bulk::Avx512Vbmi2.is_supported() {
        (0..=260).collect()
    } else {
        vec![0, 1, 63, 64, 65, 127, 128, 129, 200]
    };
    let tails: [&[u8]; 5] = [
        &[0x81, 0x01],
        &[0xff, 0xff, 0xff, 0xff, 0x0f],
        &[0xff; 11],
        &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
        &[0x80, 0x80],
    ];
    for run in runs {
        for (t, tail) in tails.iter().enumerate() {
            let mut input: Vec<u8> = (0..run).map(|i| (i * 7 % 128) as u8).collect();
            input.extend(*tail);
            if t == tails.len() - 1 {
                // Cut off by the end of the input.
                check_all_types(&backends, &input, run + 1);
                continue;
            }
            input.extend((0..150).map(|i| (i % 128) as u8));
            let values = run + 151;
            for out_len in [values, run, run + 1, run / 64 * 64, 64, 65] {
                check_all_types(&backends, &input, out_len);
            }
        }
    }
}

/// A run of 1..=140 continuation bytes (an overlong varint once it has
/// more than 10, spanning several 7-byte chunks and 63-byte blocks of the
/// AVX2/SSSE3 decoder, whose varint-0 table covers the longest runs a
/// block can meet and flags them) at several offsets, ended or cut off by
/// the end of the input, with valid varints after it.
#[test]
fn long_continuation_runs_across_blocks() {
    let backends = bulk_backends();
    for run in 1..=140usize {
        for pad in [0usize, 5, 17, 40, 62, 63, 64, 100] {
            let mut input: Vec<u8> = (0..16 + pad).map(|i| (i % 100) as u8).collect();
            let values = input.len();
            input.extend(std::iter::repeat_n(0x80 | (run as u8 & 0x7f), run));
            check_all_types(&backends, &input, values + 1);
            input.push(0x01);
            input.extend((0..100).map(|i| i as u8));
            check_all_types(&backends, &input, values + 101);
        }
    }
}

/// Runs of varints of at most two bytes (the SSSE3/AVX2 two-byte run
/// path: 64-byte blocks without two continuation bytes in a row), with a
/// 2-byte varint across block edges (odd offsets), then a longer varint, an
/// overflow for the narrow types, an overlong or a truncated varint at a
/// random place, into outputs that end anywhere (the path needs 64 free
/// slots per block).
#[test]
fn two_byte_runs_then_any_varint() {
    let backends = bulk_backends();
    let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
    for case in 0..1500 {
        let count = 20 + (next() % 400) as usize;
        // Share of two-byte varints: none, a few, half, all.
        let twos = [0, 5, 50, 100][case % 4];
        let lens: Vec<usize> = (0..count)
            .map(|_| if (next() % 100) < twos { 2 } else { 1 })
            .collect();
        check_damaged_runs(&backends, &mut next, lens, 3);
    }
}

/// A stream of varints of `lens` with, at random, one of them `longer`
/// bytes or more, an error spliced in anywhere (a `u16` overflow, an
/// overlong varint) or a varint cut off at the end, decoded by every type
/// and backend into an output of a random length (its room, the values'
/// count, a few 64-slot blocks, anything below the count).
fn check_damaged_runs(
    backends: &[Bulk],
    next: &mut impl FnMut() -> u64,
    mut lens: Vec<usize>,
    longer: usize,
) {
    let count = lens.len();
    let at = (next() as usize) % count;
    match next() % 6 {
        0 => lens[at] = longer,
        1 => lens[at] = longer + (next() % (11 - longer as u64)) as usize,
        _ => {}
    }
    let mut input = stream(&lens, next());
    let byte = (next() as usize) % input.len();
    match next() % 6 {
        // Overflows u16 (3 bytes, 0x7f in the last) and u8 as 2 bytes.
        0 => input.splice(byte..byte, [0xff, 0xff, 0x7f]).for_each(drop),
        // An overlong varint.
        1 => input.splice(byte..byte, [0xff; 11]).for_each(drop),
        // Truncated at the end, one or two bytes into a varint.
        2 => input.push(0x81),
        3 => input.extend([0x81, 0x81]),
        _ => {}
    }
    let out_len = match next() % 4 {
        0 => input.len() + 1,
        1 => count,
        2 => 64 * (1 + (next() as usize) % 8) + (next() as usize) % 3,
        _ => (next() as usize) % (count + 2),
    };
    check_all_types(backends, &input, out_len);
}

/// Runs of varints of at most three bytes (the SSSE3/AVX2 `threes_run`):
/// all 3-byte, or 1-, 2- and 3-byte ones mixed, across several 64-byte
/// chunks, with a longer varint, an error or the end anywhere, into
/// outputs that end anywhere.
#[test]
fn three_byte_runs_then_any_varint() {
    let backends = bulk_backends();
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
    for case in 0..1500 {
        let count = 20 + (next() % 600) as usize;
        // Share of 3-byte varints; the rest 1 or 2 bytes.
        let threes = [100, 90, 50, 10][case % 4];
        let lens: Vec<usize> = (0..count)
            .map(|_| {
                if (next() % 100) < threes {
                    3
                } else {
                    1 + (next() % 2) as usize
                }
            })
            .collect();
        check_damaged_runs(&backends, &mut next, lens, 4);
    }
}

/// Runs of 1- and 2-byte varints whose values all fit `u8` (2-byte ones
/// of 128..=255), so that the 1- and 2-byte chunk paths also run into `u8`
/// and `u16` slots rather than falling back on an overflow: every type,
/// lengths across several 64-byte chunks, outputs that end anywhere.
#[test]
fn two_byte_runs_that_fit_u8() {
    let backends = bulk_backends();
    let mut next = xorshift(0x3c6e_f372_fe94_f82bu64);
    for case in 0..300 {
        let count = 40 + (next() % 500) as usize;
        let twos = [5, 50, 100][case % 3];
        let mut input = Vec::new();
        for _ in 0..count {
            let value = if next() % 100 < twos {
                128 + next() % 128
            } else {
                next() % 128
            };
            input.extend(reference_encode(value));
        }
        let out_len = match next() % 3 {
            0 => count,
            1 => count + 1,
            _ => (next() as usize) % (count + 2),
        };
        check_all_types(&backends, &input, out_len);
    }
}

/// Inputs of 17..=24 bytes that are mostly 1-byte varints (the API takes
/// the byte loop for them): one longer, overflowing, overlong or cut-off
/// varint at every position, into outputs of every length.
#[test]
fn mostly_one_byte_inputs_of_17_to_24_bytes() {
    let backends = bulk_backends();
    let odd: [&[u8]; 5] = [
        &[0x81, 0x01],
        &[0xff, 0xff, 0x03],
        &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
        &[0xff; 11],
        &[0x80],
    ];
    for len in 17..=24usize {
        for bytes in odd {
            for at in 0..=len - bytes.len() {
                let mut input: Vec<u8> = (0..len).map(|i| (i * 37 % 128) as u8).collect();
                input.splice(at..at + bytes.len(), bytes.iter().copied());
                for out_len in [0, 1, at, at + 1, len - 2, len] {
                    check_all_types(&backends, &input, out_len);
                }
            }
        }
    }
}

/// 1 to 32 one-byte varints with up to two longer ones (2 to 10 bytes, an
/// 11-byte overflow, a cut-off last one) at every position, into outputs
/// of every length around the values' count: the word steps of short
/// inputs (`one_byte_words`), the byte loop and every backend agree with
/// the reference.
#[test]
fn one_byte_values_with_longer_ones_at_every_position() {
    let backends = bulk_backends();
    let longer: [&[u8]; 6] = [
        &[0x81, 0x01],
        &[0xff, 0xff, 0x03],
        &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
        &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
        &[0xff; 11],
        &[0x80],
    ];
    for count in 1..=32usize {
        let ones: Vec<u8> = (0..count).map(|i| (i * 37 % 128) as u8).collect();
        for out_len in [0, 1, count.saturating_sub(1), count, count + 1, count + 9] {
            check_all_types(&backends, &ones, out_len);
        }
        for long in longer {
            for at in 0..=count {
                for second in [None, Some(count / 2), Some(count)] {
                    let mut input = ones.clone();
                    if let Some(second) = second.filter(|&second| second >= at) {
                        input.splice(second..second, [0x80, 0x01]);
                    }
                    input.splice(at..at, long.iter().copied());
                    let values = input.iter().filter(|&&byte| byte < 0x80).count();
                    for out_len in [at, at + 1, values.saturating_sub(1), values, values + 8] {
                        check_all_types(&backends, &input, out_len);
                    }
                }
            }
        }
    }
}

/// Inputs shaped for each of the bulk dispatch's routes (what its sample,
/// the first 16 bytes, shows: only 1-byte varints; only 1- and 2-byte
/// ones; few 1- and 2-byte ones among 3-5-byte or 8-10-byte ones; the u32
/// mix), each at lengths around the routes' thresholds (64, 96, 256 and
/// 4096 bytes), then from byte 64 a tail of another shape, an error or a
/// cut-off varint:
/// `decode_slice` and every backend agree with the reference.
#[test]
fn every_dispatch_route_agrees_with_the_reference() {
    let backends = bulk_backends();
    let mut next = xorshift(0x5851_f42d_4c95_7f2d);
    let shapes: [fn(u64) -> usize; 5] = [
        |_| 1,
        |r| if r % 10 == 0 { 2 } else { 1 },
        |r| 2 + (r % 4) as usize,
        |r| 8 + (r % 3) as usize,
        |r| match r % 100 {
            0..=59 => 1,
            60..=84 => 2,
            _ => 4,
        },
    ];
    for (case, len) in [
        60, 64, 95, 96, 97, 130, 255, 256, 257, 700, 4095, 4096, 4200,
    ]
    .into_iter()
    .enumerate()
    {
        for (head, head_len) in shapes.iter().enumerate() {
            for (tail, tail_len) in shapes.iter().enumerate() {
                let mut lens = Vec::new();
                let mut bytes = 0;
                while bytes < len {
                    let n = if bytes < 64 {
                        head_len(next())
                    } else {
                        tail_len(next())
                    };
                    lens.push(n);
                    bytes += n;
                }
                let mut input = stream(&lens, next());
                match (case + head + tail) % 4 {
                    // An overlong run of continuation bytes after the sample.
                    0 if input.len() > 80 => {
                        let at = 64 + (next() as usize) % (input.len() - 64);
                        input.splice(at..at, [0xff; 11]);
                    }
                    // A cut-off last varint.
                    1 => input.push(0x80),
                    _ => {}
                }
                for out_len in [input.len(), lens.len() / 2] {
                    check_all_types(&backends, &input, out_len);
                }
            }
        }
    }
}

#[test]
fn mixed_streams_with_injected_errors() {
    let backends = bulk_backends();
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
    for _ in 0..3000 {
        let count = (next() % 200) as usize;
        let lens: Vec<usize> = (0..count)
            .map(|_| match next() % 100 {
                0..=59 => 1,
                60..=84 => 2,
                85..=94 => 1 + (next() % 4) as usize,
                _ => 9 + (next() % 2) as usize,
            })
            .collect();
        let mut input = stream(&lens, next());
        match next() % 5 {
            // An overlong run of continuation bytes in the middle.
            0 if !input.is_empty() => {
                let at = (next() as usize) % input.len();
                let run = 1 + (next() % 12) as usize;
                input.splice(at..at, std::iter::repeat_n(0xff, run));
            }
            // A 10th byte that overflows u64.
            1 => input
                .extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]),
            // Truncated at the end.
            2 => input.push(0x80),
            // A random byte flipped to a continuation byte.
            3 if !input.is_empty() => {
                let at = (next() as usize) % input.len();
                input[at] |= 0x80;
            }
            _ => {}
        }
        let out_len = match next() % 3 {
            0 => input.len() + 1,
            1 => count,
            _ => (next() as usize) % (count + 2),
        };
        check_all_types(&backends, &input, out_len);
    }
}

/// Every varint length 1..=10 straddles every boundary of the scalar
/// backend's 64-byte bitmap blocks, and the hand-over to the value-by-value
/// tail (blocks need 16 readable bytes after them): a cycle of lengths 1,
/// 2, ..., 10 shifted by 0..64 one-byte values, output slices that end
/// inside a block, and runs of a single length of 256..=300 bytes.
#[test]
fn scalar_blocks_every_length_at_every_boundary() {
    let backends = bulk_backends();
    let cycle: Vec<usize> = (0..14).flat_map(|_| 1..=10).collect();
    for shift in 0..64 {
        let mut lens = vec![1; shift];
        lens.extend(&cycle);
        let input = stream(&lens, shift as u64 + 1);
        for out_len in [lens.len(), lens.len() - 1, lens.len() / 2, lens.len() + 5] {
            check_all_types(&backends, &input, out_len);
        }
        check_all_types(&backends, &input[..input.len() - 1], lens.len());
    }
    for len in 1..=10 {
        for count in (256 / len)..=(300 / len + 2) {
            let input = stream(&vec![len; count], count as u64);
            check_all_types(&backends, &input, count);
            check_all_types(&backends, &input[..input.len() - 1], count);
        }
    }
}

/// Blocks of 64 one-byte varints (the scalar backend widens them without
/// its value loop): whole streams of them, and a varint of every length
/// that starts at every offset before a block boundary, so that the
/// next block is all terminators but begins with the end of that varint;
/// each with room for every value, one slot less, and a cut-off end.
#[test]
fn scalar_blocks_of_one_byte_varints() {
    let backends = bulk_backends();
    for count in [64, 127, 128, 129, 200, 320] {
        let input = stream(&vec![1; count], count as u64);
        check_all_types(&backends, &input, count);
        check_all_types(&backends, &input, count - 1);
    }
    for len in 2..=10 {
        for before in 50..=64 {
            let mut lens = vec![1; before];
            lens.push(len);
            lens.extend([1; 200]);
            let input = stream(&lens, (len * 64 + before) as u64);
            check_all_types(&backends, &input, lens.len());
            check_all_types(&backends, &input, lens.len() - 1);
            check_all_types(&backends, &input[..input.len() - 1], lens.len());
        }
    }
}

/// An error at the start of every value of a ~1 KiB mixed stream, so at
/// every position of the scalar backend's 64-byte blocks (and across their
/// boundaries): the error reported (kind, index, offset) is the first in
/// input order.
#[test]
fn scalar_blocks_errors_at_every_value() {
    let backends = bulk_backends();
    let lens: Vec<usize> = (0..300)
        .map(|i| [1, 1, 2, 1, 3, 10, 1, 2, 9, 5][i % 10])
        .collect();
    let base = stream(&lens, 7);
    let starts: Vec<usize> = lens
        .iter()
        .scan(0, |at, &len| {
            let start = *at;
            *at += len;
            Some(start)
        })
        .collect();
    let errors: [&[u8]; 3] = [
        // 11 continuation bytes: too long for every type.
        &[0xff; 11],
        // A 10th byte of 2: overflows u64 (and everything narrower).
        &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
        // 9 continuation bytes and a terminator with a continuation bit
        // on the 10th: too long.
        &[
            0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x00,
        ],
    ];
    for (i, &at) in starts.iter().enumerate() {
        for error in errors {
            let mut input = base.clone();
            input.splice(at..at, error.iter().copied());
            check_all_types(&backends, &input, lens.len() + 1);
        }
        // A continuation bit on the value's last byte (it merges with the
        // next one, or is cut off by the end).
        let mut input = base.clone();
        input[at + lens[i] - 1] |= 0x80;
        check_all_types(&backends, &input, lens.len());
        // Truncated inside or right after the value.
        check_all_types(&backends, &base[..at + lens[i]], lens.len());
        if lens[i] > 1 {
            check_all_types(&backends, &base[..at + lens[i] - 1], lens.len());
        }
    }
}

/// Overflow for each output type at every position of a long stream of
/// one-byte values: values just above `T::MAX` of the longest length `T`
/// allows, and in-range values padded past `T::MAX_LEN` bytes. The index
/// and offset must be those of the scalar reference.
#[test]
fn scalar_blocks_overflow_for_each_type() {
    let backends = bulk_backends();
    let poisons: Vec<Vec<u8>> = vec![
        reference_encode(1 << 8),
        reference_encode(1 << 16),
        reference_encode(1 << 32),
        reference_encode(u64::MAX),
        // 1, padded to 3, 4, 6, 9 and 10 bytes.
        vec![0x81, 0x80, 0x00],
        vec![0x81, 0x80, 0x80, 0x00],
        vec![0x81, 0x80, 0x80, 0x80, 0x80, 0x00],
        vec![0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
        vec![0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
        // The largest 10-byte varint u64 accepts (10th byte 0x01).
        vec![0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
    ];
    let base: Vec<u8> = (0..700u32).map(|i| (i * 37 % 128) as u8).collect();
    for poison in &poisons {
        for at in (0..base.len()).step_by(3) {
            let mut input = base.clone();
            input.splice(at..at, poison.iter().copied());
            check_all_types(&backends, &input, input.len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_agree(
        input in proptest::collection::vec(
            prop_oneof![3 => 0x80u8..=0xff, 2 => any::<u8>(), 2 => 0u8..0x80],
            0..400,
        ),
        out_extra in 0usize..3,
        cut in any::<prop::sample::Index>(),
    ) {
        let backends = bulk_backends();
        check_all_types(&backends, &input, input.len() + out_extra);
        check_all_types(&backends, &input, cut.index(input.len() + 1));
        let terminators = input.iter().filter(|&&byte| byte < 0x80).count();
        prop_assert_eq!(varint_turbo::count_varints(&input), terminators);
        for &backend in &backends {
            prop_assert_eq!(backend.count_varints(&input), terminators, "{}", backend);
        }
    }

    #[test]
    fn encode_decode_round_trip(values in proptest::collection::vec(
        prop_oneof![4 => 0u64..128, 2 => 0u64..16384, 1 => any::<u64>(), 1 => 0u64..(1 << 35)],
        0..300,
    )) {
        check_encode_slices(&values);
    }
}

fn check_encode_slices(values: &[u64]) {
    let backends = bulk_backends();
    let expected: Vec<u8> = values.iter().flat_map(|&v| reference_encode(v)).collect();
    assert_eq!(varint_turbo::encoded_len_sum(values), expected.len());
    assert_eq!(varint_turbo::count_varints(&expected), values.len());
    let mut appended = vec![0xaa];
    assert_eq!(
        varint_turbo::encode_slice(values, &mut appended),
        expected.len()
    );
    assert_eq!(&appended[1..], &expected[..]);
    assert_eq!(varint_turbo::decode_all::<u64>(&expected).unwrap(), values);
    for &backend in &backends {
        // Exact room, and every shorter room: as many whole values as fit.
        let mut out = vec![0u8; expected.len()];
        assert_eq!(
            backend.encode_slice_into(values, &mut out),
            (values.len(), expected.len()),
            "{backend}"
        );
        assert_eq!(out, expected, "{backend}");
        for room in [0, 1, expected.len() / 2, expected.len().saturating_sub(1)] {
            let mut out = vec![0u8; room];
            let (n, written) = backend.encode_slice_into(values, &mut out);
            let fit: usize = values[..n].iter().map(|&v| reference_encode(v).len()).sum();
            assert_eq!(written, fit, "{backend}: room {room}");
            assert_eq!(
                &out[..written],
                &expected[..written],
                "{backend}: room {room}"
            );
            if n < values.len() {
                assert!(
                    fit + reference_encode(values[n]).len() > room,
                    "{backend}: stopped early"
                );
            }
        }
        // Narrower types, where the values fit.
        let narrow: Vec<u32> = values.iter().map(|&v| v as u32).collect();
        let expected32: Vec<u8> = narrow
            .iter()
            .flat_map(|&v| reference_encode(u64::from(v)))
            .collect();
        let mut out = vec![0u8; expected32.len()];
        assert_eq!(
            backend.encode_slice_into(&narrow, &mut out).1,
            expected32.len()
        );
        assert_eq!(out, expected32, "{backend}: u32");
        let tiny: Vec<u8> = values.iter().map(|&v| v as u8).collect();
        let expected8: Vec<u8> = tiny
            .iter()
            .flat_map(|&v| reference_encode(u64::from(v)))
            .collect();
        let mut out = vec![0u8; expected8.len()];
        assert_eq!(
            backend.encode_slice_into(&tiny, &mut out).1,
            expected8.len()
        );
        assert_eq!(out, expected8, "{backend}: u8");
        let short: Vec<u16> = values.iter().map(|&v| v as u16).collect();
        let expected16: Vec<u8> = short
            .iter()
            .flat_map(|&v| reference_encode(u64::from(v)))
            .collect();
        let mut out = vec![0u8; expected16.len()];
        assert_eq!(
            backend.encode_slice_into(&short, &mut out).1,
            expected16.len()
        );
        assert_eq!(out, expected16, "{backend}: u16");
        // Sizes, for every type (the narrow ones go through 32-bit lanes).
        assert_eq!(backend.encoded_len_sum(values), expected.len(), "{backend}");
        assert_eq!(
            backend.encoded_len_sum(&narrow),
            expected32.len(),
            "{backend}"
        );
        assert_eq!(
            backend.encoded_len_sum(&short),
            expected16.len(),
            "{backend}"
        );
        assert_eq!(backend.encoded_len_sum(&tiny), expected8.len(), "{backend}");
        assert_eq!(backend.count_varints(&expected), values.len(), "{backend}");
    }
}

#[test]
fn packed_vectors_through_every_backend() {
    let backends = bulk_backends();
    let mut rows = 0;
    for line in PACKED
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 3, "{line}");
        let payload = unhex(fields[1]);
        let expected: Vec<&str> = if fields[2].is_empty() {
            vec![]
        } else {
            fields[2].split(',').collect()
        };
        for &backend in &backends {
            let mut raw = vec![0u64; payload.len()];
            let (n, consumed) = backend.decode_slice(&payload, &mut raw).expect(fields[0]);
            assert_eq!(
                (n, consumed),
                (expected.len(), payload.len()),
                "{backend} {}",
                fields[0]
            );
            let raw = &raw[..n];
            let got: Vec<String> = match fields[0] {
                "uint64" => raw.iter().map(u64::to_string).collect(),
                "uint32" => {
                    let mut narrow = vec![0u32; n];
                    backend
                        .decode_slice(&payload, &mut narrow)
                        .expect("uint32 fits");
                    narrow.iter().map(u32::to_string).collect()
                }
                "int64" => raw.iter().map(|&v| (v as i64).to_string()).collect(),
                "int32" => raw.iter().map(|&v| (v as i64 as i32).to_string()).collect(),
                "sint32" => {
                    let mut signed = vec![0i32; n];
                    assert_eq!(
                        varint_turbo::decode_slice_zigzag(&payload, &mut signed),
                        Ok((n, consumed))
                    );
                    signed.iter().map(i32::to_string).collect()
                }
                "sint64" => {
                    let mut signed = vec![0i64; n];
                    assert_eq!(
                        varint_turbo::decode_slice_zigzag(&payload, &mut signed),
                        Ok((n, consumed))
                    );
                    let all = varint_turbo::decode_all_zigzag::<i64>(&payload).unwrap();
                    assert_eq!(all, signed);
                    signed.iter().map(i64::to_string).collect()
                }
                other => panic!("unknown field type {other}"),
            };
            assert_eq!(got, expected, "{backend} {}", fields[0]);
        }
        rows += 1;
    }
    assert!(rows >= 60, "only {rows} packed rows parsed");
}

/// Values of the varint lengths `lens` (cycled), as `T`: lengths beyond
/// `T`'s longest are capped, and values beyond `T::MAX` become values near it.
fn values_of_lens<T: TestInt>(lens: &[usize], count: usize, salt: u64) -> Vec<T> {
    (0..count)
        .map(|i| {
            let salt = salt.wrapping_mul(i as u64 + 1) ^ (i as u64) << 40;
            let len = lens[i % lens.len()].min(T::REF_MAX_LEN);
            let value = value_of_len(len, salt);
            T::from_u64(value).unwrap_or_else(|| T::from_u64_wrapping(T::MAX_WIDE - salt % 97))
        })
        .collect()
}

fn check_encode_lens<T: TestInt>(backends: &[Bulk], lens: &[usize], count: usize, control: u8) {
    let values = values_of_lens::<T>(lens, count, 0x9e37_79b9 + count as u64);
    differential::check_encode_slices(backends, &values, control);
}

/// The bulk encoders on 0..=300 values (every phase of the SIMD steps,
/// 4 to 32 values, and of the blocks of steps) of every varint length and
/// mixes of them, for every type, with room to spare, exact room, rooms
/// 1 to 24 bytes short of it, and a small room: the values that fit,
/// the bytes written and their contents must be the scalar encoder's.
#[test]
fn encode_every_length_around_block_edges() {
    let backends = bulk_backends();
    // Rooms (see `fuzzer_chosen_len`): 3 bytes; natural + 8, natural, and
    // natural - 1, 4, 24.
    let controls = [3u8, 0x80, 0x88, 0x89, 0x8c, 0xa0];
    let patterns: [&[usize]; 10] = [
        &[1],
        &[2],
        &[4],
        &[5],
        &[9],
        &[10],
        &[1, 2, 3, 4],
        &[1, 1, 1, 10],
        &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        // Protobuf-like: mostly 1 and 2 bytes, some 3-4, a few 10.
        &[1, 2, 1, 1, 3, 1, 2, 1, 1, 4, 1, 2, 1, 1, 2, 1, 10, 1, 2, 1],
    ];
    for lens in patterns {
        for count in 0..=300 {
            for control in controls {
                for_each_unsigned!(check_encode_lens(&backends, lens, count, control));
            }
        }
    }
}

/// u64 encoders may take narrower lanes for runs of values below 2^56:
/// runs of such values (up to 2^56 - 1) with one larger value at every
/// position of a block, and none at all.
#[test]
fn encode_u64_runs_below_and_above_2_pow_56() {
    let below: Vec<u64> = (0..96u64)
        .map(|i| match i % 4 {
            0 => (1 << 56) - 1 - i,
            1 => (1 << (i % 57)).max(1) - 1,
            2 => i * 0x0102_0304_0506,
            _ => 1 << (7 * (i % 8)),
        })
        .collect();
    check_encode_slices(&below);
    for at in 0..40 {
        let mut values = below.clone();
        values[at] = (1 << 56) + at as u64;
        check_encode_slices(&values);
        values[at] = u64::MAX - at as u64;
        check_encode_slices(&values);
    }
}

/// The zigzag decoders' in-place step runs in the detected backend's
/// vector lanes from 64 values, inline below: every signed type, inputs of
/// 1 to 200 values of every sign and length (so the step's vector body and
/// its remainder both run), into outputs that end anywhere, with an error
/// at a random value in some (the values before it are still converted).
#[test]
fn zigzag_decoders_around_the_vector_step() {
    let mut next = xorshift(0x6a09_e667_f3bc_c908u64);
    for case in 0..400 {
        let count = 1 + case % 200;
        let mut input = Vec::new();
        for _ in 0..count {
            // Zigzag values of 1 to 10 bytes, small ones most often.
            let len = [1, 1, 1, 2, 2, 3, 5, 10][(next() % 8) as usize];
            input.extend(reference_encode(value_of_len(len, next())));
        }
        match next() % 4 {
            0 => input.push(0x80), // cut off at the end
            1 => {
                let at = (next() as usize) % input.len();
                input.splice(at..at, [0xff; 11]).for_each(drop); // overlong
            }
            _ => {}
        }
        let out_len = match next() % 3 {
            0 => count + 1,
            1 => count,
            _ => (next() as usize) % (count + 2),
        };
        for_each_signed!(check_decode_slice_zigzag(&input, out_len));
    }
}

#[test]
fn zigzag_slices_round_trip() {
    let values: Vec<i64> = (-300i64..300).chain([i64::MIN, i64::MAX, -1, 0]).collect();
    let mut bytes = Vec::new();
    let written = varint_turbo::encode_slice_zigzag(&values, &mut bytes);
    assert_eq!(written, bytes.len());
    let expected: Vec<u8> = values
        .iter()
        .flat_map(|&v| reference_encode(reference_zigzag_encode(v)))
        .collect();
    assert_eq!(bytes, expected);
    assert_eq!(
        varint_turbo::decode_all_zigzag::<i64>(&bytes).unwrap(),
        values
    );
    // Without allocating: exact room, then every shorter room (as many
    // whole values as fit, across the encoder's internal chunks).
    let mut exact = vec![0u8; expected.len()];
    assert_eq!(
        varint_turbo::encode_slice_zigzag_into(&values, &mut exact),
        (values.len(), expected.len())
    );
    assert_eq!(exact, expected);
    let mut ends = vec![0];
    for &v in &values {
        ends.push(ends.last().unwrap() + reference_encode(reference_zigzag_encode(v)).len());
    }
    for room in [0, 1, 2, 300, 511, 512, 513, expected.len() - 1] {
        let mut out = vec![0u8; room];
        let fit = ends.iter().rposition(|&end| end <= room).unwrap();
        assert_eq!(
            varint_turbo::encode_slice_zigzag_into(&values, &mut out),
            (fit, ends[fit]),
            "room {room}"
        );
        assert_eq!(out[..ends[fit]], expected[..ends[fit]], "room {room}");
    }
    let narrow: Vec<i32> = values.iter().map(|&v| v as i32).collect();
    let mut bytes32 = Vec::new();
    varint_turbo::encode_slice_zigzag(&narrow, &mut bytes32);
    assert_eq!(
        varint_turbo::decode_all_zigzag::<i32>(&bytes32).unwrap(),
        narrow
    );
}

#[test]
fn decode_all_allocates_in_proportion_to_input() {
    // A hostile length prefix cannot matter: decode_all sizes its Vec from
    // the input's terminating bytes. 10 bytes of continuation bytes make no
    // values and fail without allocating more than the input.
    let hostile = [0xffu8; 10];
    let error = varint_turbo::decode_all::<u64>(&hostile).unwrap_err();
    assert_eq!(
        (error.kind(), error.index(), error.offset()),
        (DecodeError::Overflow, 0, 0)
    );
    let truncated = [0x01, 0x02, 0x80];
    let error = varint_turbo::decode_all::<u64>(&truncated).unwrap_err();
    assert_eq!(
        (error.kind(), error.index(), error.offset()),
        (DecodeError::Truncated, 2, 2)
    );
    assert_eq!(varint_turbo::count_varints(&[0x80, 0x01, 0x00, 0xff]), 2);
}

/// Every bulk decode of `input` (which ends right before a guard page):
/// every backend and `decode_slice`/`decode_all` into every unsigned type,
/// the zigzag decoders into every signed type, and every protobuf type's
/// `decode_packed` (its short path and its 64-bit batches). Outcomes are
/// checked elsewhere; here a read past the input's end kills the test.
#[cfg(unix)]
fn decode_everything(backends: &[Bulk], input: &[u8]) {
    fn unsigned<T: TestInt + Default>(backends: &[Bulk], input: &[u8]) {
        let mut out = vec![T::default(); input.len()];
        for &backend in backends {
            let _ = backend.decode_slice(input, &mut out);
        }
        let _ = varint_turbo::decode_slice(input, &mut out);
        let _ = varint_turbo::decode_all::<T>(input);
    }
    fn signed<S: TestSigned + Default>(input: &[u8]) {
        let mut out = vec![S::default(); input.len()];
        let _ = varint_turbo::decode_slice_zigzag(input, &mut out);
        let _ = varint_turbo::decode_all_zigzag::<S>(input);
    }
    macro_rules! packed {
        ($($module:ident),*) => {$({
            let mut out = Vec::new();
            let _ = varint_turbo::protobuf::$module::decode_packed(input, &mut out);
        })*};
    }
    for_each_unsigned!(unsigned(backends, input));
    for_each_signed!(signed(input));
    packed!(
        int32,
        int64,
        uint32,
        uint64,
        sint32,
        sint64,
        bool,
        enumeration
    );
}

#[cfg(unix)]
#[test]
fn bulk_never_reads_past_the_input() {
    use common::guarded_page::GuardedPage;
    let backends = bulk_backends();
    let mut page = GuardedPage::new();
    let mut seed = 7u64;
    for round in 0..200 {
        let count = 20 + round % 90;
        let lens: Vec<usize> = (0..count)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                if round % 4 == 0 {
                    1
                } else {
                    [1, 1, 2, 3, 5, 10][(seed >> 60) as usize % 6]
                }
            })
            .collect();
        let mut input = stream(&lens, seed);
        if round % 3 == 0 {
            input.push(0x80); // truncated tail, right against the guard page
        }
        for start in 0..input.len().min(70) {
            let tail = page.tail(input.len() - start);
            tail.copy_from_slice(&input[start..]);
            if (round + start) % 4 == 0 {
                // A quarter of the placements (every shape and round):
                // every type, zigzag and packed decode (about 40 s for all
                // in a debug build; under qemu, minutes).
                decode_everything(&backends, tail);
            } else {
                for &backend in &backends {
                    let mut out = vec![0u64; tail.len()];
                    let _ = backend.decode_slice(tail, &mut out);
                    let mut out32 = vec![0u32; tail.len()];
                    let _ = backend.decode_slice(tail, &mut out32);
                }
                let _ = varint_turbo::decode_all::<u64>(tail);
            }
            for &backend in &backends {
                assert_eq!(
                    backend.count_varints(tail),
                    tail.iter().filter(|&&b| b < 0x80).count(),
                    "{backend}"
                );
            }
            assert_eq!(
                varint_turbo::count_varints(tail),
                tail.iter().filter(|&&b| b < 0x80).count()
            );
        }
    }
    // Encoding into the end of the page: exact-size output slices.
    let values: Vec<u64> = (0..500u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (i % 64))
        .collect();
    let total = varint_turbo::encoded_len_sum(&values);
    for &backend in &backends {
        let out = page.tail(total);
        assert_eq!(
            backend.encode_slice_into(&values, out),
            (values.len(), total)
        );
        // Too little room, right against the guard page: as many whole
        // values as fit, and no write past the slice.
        for room in (total - 64..total).chain([0, 1, 16, 100, total / 2]) {
            let out = page.tail(room);
            let fit = values
                .iter()
                .scan(0, |end, &v| {
                    *end += reference_encode(v).len();
                    Some(*end)
                })
                .take_while(|&end| end <= room)
                .count();
            let bytes: usize = values[..fit]
                .iter()
                .map(|&v| reference_encode(v).len())
                .sum();
            assert_eq!(
                backend.encode_slice_into(&values, out),
                (fit, bytes),
                "{backend}: room {room}"
            );
        }
    }
}

#[test]
fn detected_backend_is_the_fastest_supported() {
    let backends = bulk_backends();
    let detected = varint_turbo::detected_backend();
    assert_eq!(Some(&detected), backends.last(), "detected {detected}");
    eprintln!(
        "bulk backends run: {:?}; detected: {detected}",
        backends.iter().map(|b| b.to_string()).collect::<Vec<_>>()
    );
    if let Ok(expected) = std::env::var("VARINT_TURBO_EXPECT_BULK_BACKEND") {
        assert_eq!(detected.to_string(), expected);
    }
}

/// `encoded_len_sum` at every bit length, one length at a time: the AVX-512
/// backend looks each lane's length up in a table indexed by its leading
/// zeros, so an entry off by one must not hide in a sum over mixed values.
/// Each value fills whole vectors (16 and 17 copies: full steps and the
/// masked remainder) of every type, through every backend.
#[test]
fn encoded_len_sum_at_every_bit_length() {
    let backends = bulk_backends();
    let mut values = vec![0u64];
    for bits in 1..=64u32 {
        values.push(u64::MAX >> (64 - bits)); // the largest with `bits` bits
        values.push(1 << (bits - 1)); // the smallest
    }
    for &value in &values {
        let len = reference_encode(value).len();
        for copies in [1usize, 16, 17] {
            let wide = vec![value; copies];
            let narrow = vec![value as u32; copies];
            let short = vec![value as u16; copies];
            let tiny = vec![value as u8; copies];
            for backend in &backends {
                let expect = |v: u64| copies * reference_encode(v).len();
                assert_eq!(
                    backend.encoded_len_sum(&wide),
                    copies * len,
                    "{backend}: {value:#x}"
                );
                assert_eq!(
                    backend.encoded_len_sum(&narrow),
                    expect(u64::from(value as u32)),
                    "{backend}: {value:#x} as u32"
                );
                assert_eq!(
                    backend.encoded_len_sum(&short),
                    expect(u64::from(value as u16)),
                    "{backend}: {value:#x} as u16"
                );
                assert_eq!(
                    backend.encoded_len_sum(&tiny),
                    expect(u64::from(value as u8)),
                    "{backend}: {value:#x} as u8"
                );
            }
        }
    }
}

/// Inputs of 0..=130 bytes (the API's byte-by-byte loop up to 16 bytes, and
/// up to 48 for mostly long varints; the scalar backend's in-register and
/// padded tails above; the SSSE3/AVX2 blocks over a padded copy below 128
/// bytes and the AVX-512 masked chunk below 64), bytes biased toward
/// continuation bytes and the values where the rules change, or runs of
/// long varints, into every output length: every backend and the API
/// against the reference.
#[test]
fn short_inputs_into_every_output_length() {
    let backends = bulk_backends();
    let mut next = xorshift(0x853c_49e6_748f_ea9bu64);
    const BYTES: [u8; 10] = [0x00, 0x01, 0x7f, 0x80, 0x81, 0xff, 0xfe, 0x02, 0x0f, 0x90];
    // Up to 130 bytes: the inline byte loop (at most 16 bytes), the byte
    // loop for inputs of mostly long varints (at most 48), the AVX-512
    // chunk (under 64) and the SSSE3/AVX2 padded blocks (under 128) on
    // both sides of their limits.
    for round in 0..131 * 100 {
        let len = round % 131;
        let input: Vec<u8> = if round % 3 == 2 {
            // Back-to-back 6- to 10-byte varints (64-bit ids, negative
            // `int32`s), cut at `len` (a truncated last one), sometimes
            // with one continuation bit flipped (an 11-byte run, a split).
            let mut input = Vec::new();
            while input.len() < len {
                let bits = 36 + next() % 29;
                reference_encode_append(next() >> (64 - bits), &mut input);
            }
            input.truncate(len);
            if len > 0 && next() % 4 == 0 {
                input[next() as usize % len] ^= 0x80;
            }
            input
        } else {
            (0..len)
                .map(|_| match next() % 4 {
                    0 => BYTES[(next() % 10) as usize],
                    1 => (next() % 128) as u8,
                    _ => next() as u8,
                })
                .collect()
        };
        for out_len in [0, 1, len / 2, len, len + 1] {
            check_all_types(&backends, &input, out_len);
        }
    }
    // Every run of 0..=11 continuation bytes, ended by each interesting
    // byte (or not at all), after 0..=5 one-byte values: every length,
    // overflow and truncation at every position of a short input.
    for before in 0..=5 {
        for run in 0..=11 {
            for last in BYTES.iter().map(Some).chain([None]) {
                let mut input = vec![0x05; before];
                input.extend(std::iter::repeat_n(0xff, run));
                input.extend(last);
                for out_len in [before, before + 1, input.len() + 1] {
                    check_all_types(&backends, &input, out_len);
                }
            }
        }
    }
}

/// Inputs of 128 to 700 bytes into outputs with exactly their values'
/// slots (and one fewer, and a few more): where `out` has fewer than a
/// block's 63 free slots the SSSE3/AVX2 decoders finish in pieces of under
/// 128 bytes over a padded copy (their head is one such piece too), and
/// the AVX-512 one under masked stores. Every length class, every backend
/// and the API against the reference.
#[test]
fn long_inputs_into_outputs_of_their_exact_size() {
    let backends = bulk_backends();
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
    for round in 0..300 {
        // Bits per value: up to 7, 14, 21, 35 or 64, or 10% sign-extended
        // negatives (10 bytes) among 1-2-byte values.
        let shape = round % 6;
        let target = 128 + (next() % 573) as usize;
        let mut input = Vec::new();
        while input.len() < target {
            let value = match shape {
                5 if next() % 10 == 0 => (next() | 1 << 63) >> (next() % 4),
                5 => next() % (1 << 14),
                _ => {
                    let bits = 1 + next() % [7, 14, 21, 35, 64][shape];
                    next() >> (64 - bits)
                }
            };
            reference_encode_append(value, &mut input);
        }
        let values = input.iter().filter(|&&byte| byte < 0x80).count();
        for out_len in [values, values - 1, values + 1, values + 62] {
            check_all_types(&backends, &input, out_len);
        }
    }
}

/// A few values from a long input (an Avro array block of a few items, a
/// record batch's fields, with the rest of the buffer after them): the API
/// routes on the bytes those values take (`decode_uninit`: the byte loop up
/// to 8 values, their exact end up to 64, at most `MAX_LEN` bytes each
/// beyond), then decodes on from the whole input where that stops short.
/// Errors among the first values, and an overlong or overflowing varint
/// straddling `out.len() * MAX_LEN` bytes, must be the reference's.
#[test]
fn short_outputs_from_long_inputs() {
    let backends = bulk_backends();
    let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
    for round in 0..120 {
        let max_len = [1, 2, 3, 5, 10][round % 5];
        let mut lens: Vec<usize> = (0..400)
            .map(|_| 1 + (next() % max_len as u64) as usize)
            .collect();
        let errors_at = match round % 4 {
            0 => None,
            _ => Some((next() % 90) as usize),
        };
        let mut input = stream(&lens, next());
        if let Some(index) = errors_at {
            // An 11-byte continuation run, or one dropped terminator (a
            // varint that runs into the next), at the start of value `index`.
            let at: usize = lens[..index].iter().sum();
            if round % 2 == 0 {
                input.splice(at..at, [0xff; 11]);
            } else {
                input[at + lens[index] - 1] |= 0x80;
            }
            lens.truncate(index);
        }
        for out_len in (0..=70).chain([100, 131, 260]) {
            check_all_types(&backends, &input, out_len);
        }
    }
}

/// The bulk encoders' contract on the output, on every backend and through
/// `encode_slice_into` / `encode_slice_zigzag_into`: as many whole varints
/// as fit, exactly the reference's bytes in `out[..written]`, and no write
/// outside `out` (the sentinels before and after it keep their bytes).
/// Bytes of `out` after `written` may change: the encoders store whole
/// words (the scalar one 8 bytes per varint, 10 for 64-bit types) and
/// vectors. Among the inputs, the case of issue 43: `[1 << 56, u64::MAX]`
/// into 18 bytes encodes the first value only (9 bytes) and may zero
/// `out[9]`.
#[test]
fn bulk_encoders_write_whole_varints_and_only_inside_out() {
    const SENTINEL: u8 = 0xa5;
    const PAD: usize = 32;
    fn check<T: TestInt>(backends: &[Bulk], values: &[T]) {
        let encodings: Vec<Vec<u8>> = values
            .iter()
            .map(|v| reference_encode(v.as_u64()))
            .collect();
        let expected = encodings.concat();
        for room in 0..=expected.len() + 20 {
            let mut want = (values.len(), expected.len());
            let mut bytes = 0;
            for (i, encoding) in encodings.iter().enumerate() {
                if bytes + encoding.len() > room {
                    want = (i, bytes);
                    break;
                }
                bytes += encoding.len();
            }
            type Encoder<'a> = Box<dyn Fn(&mut [u8]) -> (usize, usize) + 'a>;
            let mut encoders: Vec<(String, Encoder)> = backends
                .iter()
                .map(|&backend| {
                    let encode: Encoder =
                        Box::new(move |out| backend.encode_slice_into(values, out));
                    (backend.to_string(), encode)
                })
                .collect();
            encoders.push((
                "encode_slice_into".into(),
                Box::new(|out| varint_turbo::encode_slice_into(values, out)),
            ));
            // The `MaybeUninit` entry points on the same (initialized)
            // buffer: the encoders write only initialized bytes, which is
            // what keeps the `u8` buffer valid here.
            fn as_uninit(out: &mut [u8]) -> &mut [std::mem::MaybeUninit<u8>] {
                // SAFETY: same layout; see above.
                unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), out.len()) }
            }
            encoders.push((
                "encode_slice_to_uninit".into(),
                Box::new(|out| varint_turbo::encode_slice_to_uninit(values, as_uninit(out))),
            ));
            for &backend in backends {
                encoders.push((
                    format!("{backend} (to uninit)"),
                    Box::new(move |out| backend.encode_slice_to_uninit(values, as_uninit(out))),
                ));
            }
            for (name, encode) in &encoders {
                let mut buffer = vec![SENTINEL; PAD + room + PAD];
                let got = encode(&mut buffer[PAD..PAD + room]);
                let what = format!("{name}: {} {}s into {room} bytes", values.len(), T::NAME);
                assert_eq!(got, want, "{what}");
                assert_eq!(buffer[PAD..PAD + want.1], expected[..want.1], "{what}");
                assert!(
                    buffer[..PAD].iter().all(|&b| b == SENTINEL),
                    "{what}: wrote before out"
                );
                assert!(
                    buffer[PAD + room..].iter().all(|&b| b == SENTINEL),
                    "{what}: wrote past out"
                );
            }
        }
    }
    let backends = bulk_backends();
    let mut next = xorshift(0x0bad_5eed_1234_5678);
    let mut cases: Vec<Vec<u64>> = vec![
        vec![1 << 56, u64::MAX],
        vec![1],
        vec![1 << 48, 1],
        vec![u64::MAX; 3],
    ];
    for count in [8, 9, 17, 40, 70] {
        cases.push(
            (0..count)
                .map(|_| {
                    let r = next();
                    r >> (r % 64)
                })
                .collect(),
        );
        cases.push(
            (0..count)
                .map(|i| {
                    if i % 7 == 6 {
                        next() | 1 << 63
                    } else {
                        next() % 128
                    }
                })
                .collect(),
        );
    }
    for values in &cases {
        let values: Vec<u64> = values.clone();
        fn narrow<T: TestInt>(backends: &[Bulk], values: &[u64]) {
            let values: Vec<T> = values.iter().map(|&v| T::from_u64_wrapping(v)).collect();
            check::<T>(backends, &values);
        }
        for_each_unsigned!(narrow(&backends, &values));
        // The zigzag form writes through the same encoders.
        let signed: Vec<i64> = values.iter().map(|&v| v as i64).collect();
        let expected: Vec<u8> = signed
            .iter()
            .flat_map(|&v| reference_encode(reference_zigzag_encode(v)))
            .collect();
        let mut buffer = vec![SENTINEL; PAD + expected.len() + PAD];
        let (n, written) =
            varint_turbo::encode_slice_zigzag_into(&signed, &mut buffer[PAD..PAD + expected.len()]);
        assert_eq!((n, written), (signed.len(), expected.len()));
        assert_eq!(buffer[PAD..PAD + written], expected[..]);
        assert!(buffer[..PAD]
            .iter()
            .chain(&buffer[PAD + written..])
            .all(|&b| b == SENTINEL));
    }
    // The case, spelled out.
    for &backend in &backends {
        let mut out = [0xee; 18];
        assert_eq!(
            backend.encode_slice_into(&[1u64 << 56, u64::MAX], &mut out),
            (1, 9),
            "{backend}"
        );
        assert_eq!(out[..9], reference_encode(1 << 56)[..], "{backend}");
    }
}
