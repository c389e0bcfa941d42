//! The bulk encoder shared by the SIMD backends: four values per step in
//! 32-bit lanes, their varints squeezed together by one byte shuffle with a
//! control from a 256-entry table, the encode half of Stream VByte (Lemire,
//! Kurz and Rupp, "Stream VByte: Faster Byte-Oriented Integer Compression",
//! 2017) with LEB128 bytes.
//!
//! The per-architecture step (spread the four values into 7-bit groups, set
//! the continuation bits, shuffle with the table's control, one 16-byte
//! store) is in `aarch64::neon::encode_slice` (`tbl`) and `x86_64::ssse3::encode_slice`
//! (`pshufb`); both shuffles make a zero byte of a control byte `0xff`, so
//! they share the table. This module has the table and the loop around the
//! steps: the long values, the scalar stretches and the end of the output.
//!
//! # Long values, the end of the output
//!
//! A step whose four values are not all below 2^28 encodes them with the
//! single-value word encoder instead, inlined: 19% of steps on the
//! protobuf-like mix, where 5% of the values are full `u64`. Every 32 steps
//! the number of such steps is checked; over half (uniform `u32`/`u64`,
//! timestamps, hashes) means the word encoder is the cheaper one for this
//! data, and it takes the next 1024 values (doubling, up to 64 Ki, while
//! it stays so), as in the bulk decoders.
//!
//! Steps run only while the output has room for the widest step (three
//! word-encoded varints and a 16-byte window); the values after that go to
//! the value-by-value loop, which writes as many whole varints as fit and
//! never past `out`. So results are those of the scalar encoder for every
//! input and output size.

use crate::arch::scalar::single::UninitWindow;
use crate::varint::VarInt;
use core::mem::MaybeUninit;

/// Values per step (four 32-bit lanes).
pub(crate) const GROUP: usize = 4;
/// Values at or above this take more than 4 bytes: not for the vector lanes.
pub(crate) const LANE_LIMIT: u64 = 1 << 28;
/// Steps per block; after each, the number of steps that had to go to
/// the word encoder decides whether to hand it a stretch of values.
const BLOCK: usize = 32;
/// More word-encoded steps than this in a block switch to the word encoder.
const DENSE_LONG: usize = BLOCK / 2;
/// Values encoded by the word encoder before the vector steps resume;
/// doubled (up to [`MAX_SCALAR_STRETCH`]) after each long-value block in a
/// row.
const SCALAR_STRETCH: usize = 1024;
/// The longest word-encoder stretch.
const MAX_SCALAR_STRETCH: usize = 64 * 1024;

/// The compaction recipe for four lengths of 1..=4 bytes.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub(crate) struct Controls(pub(crate) [[u8; 16]; 256]);

/// Shuffle control for the lengths `len_j = ((index >> 2j) & 3) + 1`:
/// output bytes `0..total` are value 0's bytes (input bytes 0..len_0), then
/// value 1's (input bytes 4..4 + len_1), and so on; the rest are zero
/// (control byte 0xff, which `tbl` and `pshufb` both turn into a zero).
const fn control(index: usize) -> [u8; 16] {
    let mut control = [0xff; 16];
    let mut at = 0;
    let mut j = 0;
    while j < GROUP {
        let len = ((index >> (2 * j)) & 3) + 1;
        let mut k = 0;
        while k < len {
            control[at] = (4 * j + k) as u8;
            at += 1;
            k += 1;
        }
        j += 1;
    }
    control
}

/// The controls, built at compile time (256 x 16 bytes).
pub(crate) static CONTROLS: Controls = {
    let mut controls = [[0u8; 16]; 256];
    let mut index = 0;
    while index < 256 {
        controls[index] = control(index);
        index += 1;
    }
    Controls(controls)
};

/// The total length of the four varints of each table entry (4..=16).
pub(crate) static TOTALS: [u8; 256] = {
    let mut totals = [0u8; 256];
    let mut index = 0;
    while index < 256 {
        let mut total = GROUP;
        let mut j = 0;
        while j < GROUP {
            total += (index >> (2 * j)) & 3;
            j += 1;
        }
        totals[index] = total as u8;
        index += 1;
    }
    totals
};

/// Encodes as many of `values` as fit, whole, into `out`; returns (values
/// encoded, bytes written), exactly as the scalar bulk encoder. Bytes of
/// `out` after the written ones may be overwritten. `out` may be
/// uninitialized: the steps and the encoders store only computed bytes.
///
/// `step(group, window)` encodes four values if all are below
/// [`LANE_LIMIT`]: it stores 16 bytes into `window` and returns the bytes
/// of their varints; otherwise it returns `None` and stores nothing.
/// `encode_one(value, window)` is the single-value word encoder (writes up
/// to 16 bytes, returns the length); both are inlined into the caller,
/// whose target features they get. `encode_rest(values, out)` is the
/// value-by-value loop of the same word encoder (a bulk encoder with the
/// scalar reference's results) for the stretches and the last values: a
/// function of its own (not inlined), because inside this loop the
/// compiler runs out of registers for it and reloads its constants per
/// value (15-20% slower on uniform `u32`/`u64` in an A/B).
#[inline(always)]
pub(crate) fn encode_slice_into<T: VarInt>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
    step: impl Fn(&[T; GROUP], &mut UninitWindow) -> Option<usize>,
    encode_one: impl Fn(T, &mut UninitWindow) -> usize,
    encode_rest: impl Fn(&[T], &mut [MaybeUninit<u8>]) -> (usize, usize),
) -> (usize, usize) {
    // Room a step needs: a slow step's last value starts at most 3 varints
    // in and the word encoder writes a 16-byte window; a vector step
    // stores 16 bytes.
    let need = 3 * T::MAX_LEN + 16;
    // A step advances the output by at most this.
    let step_max = GROUP * T::MAX_LEN;
    let mut index = 0usize;
    let mut pos = 0usize;
    let mut stretch = SCALAR_STRETCH;
    loop {
        // Taken afresh after each use of `out` by the value-by-value loop.
        let dst = out.as_mut_ptr();
        let room = out.len() - pos;
        let by_room = if room >= need {
            (room - need) / step_max + 1
        } else {
            0
        };
        let steps = ((values.len() - index) / GROUP).min(by_room).min(BLOCK);
        if steps == 0 {
            break;
        }
        let mut long_steps = 0;
        for group in values[index..index + GROUP * steps].chunks_exact(GROUP) {
            // `pos + need <= out.len()`: each step advances `pos` by at most `step_max`.
            // SAFETY: so the 16-byte window at `pos` is inside `out`; no other
            // reference to `out` is live.
            let window = unsafe { &mut *dst.add(pos).cast::<UninitWindow>() };
            let group = group.first_chunk::<GROUP>().expect("chunks of GROUP");
            if let Some(written) = step(group, window) {
                pos += written;
            } else {
                long_steps += 1;
                for &value in group {
                    // Each window starts at most 3 varints after the step's
                    // start: inside the `need` bytes of room. SAFETY: as
                    // above, the window is inside `out`.
                    let window = unsafe { &mut *dst.add(pos).cast::<UninitWindow>() };
                    pos += encode_one(value, window);
                }
            }
        }
        index += GROUP * steps;
        if steps == BLOCK && long_steps > DENSE_LONG {
            // Mostly values of 2^28 and more: the word encoder is cheaper
            // per value there. Encode a stretch, then try again.
            let end = values.len().min(index + stretch);
            let (n, written) = encode_rest(&values[index..end], &mut out[pos..]);
            index += n;
            pos += written;
            if index < end {
                // `out` is full.
                return (index, pos);
            }
            stretch = (2 * stretch).min(MAX_SCALAR_STRETCH);
        } else if steps == BLOCK {
            stretch = SCALAR_STRETCH;
        }
    }
    let (n, written) = encode_rest(&values[index..], &mut out[pos..]);
    (index + n, pos + written)
}

/// Test helpers shared by the architectures' encoders.
#[cfg(test)]
pub(crate) mod testing {
    #[cfg(feature = "alloc")]
    use crate::arch::scalar;
    #[cfg(feature = "alloc")]
    use crate::arch::scalar::encode_slice::encode_slice_into_scalar;
    #[cfg(feature = "alloc")]
    use crate::varint::VarInt;
    #[cfg(feature = "alloc")]
    use alloc::vec::Vec;

    /// Every length boundary below 2^28, for the steps' own tests.
    #[cfg(feature = "alloc")]
    pub(crate) const EDGES: [u32; 10] = [
        0,
        1,
        0x7f,
        0x80,
        0x3fff,
        0x4000,
        0x1f_ffff,
        0x20_0000,
        0x0fff_ffff,
        0x0abc_def1,
    ];

    /// The lane-limit check of a `load_4` (`u64` and `u32` input): true
    /// for four values below 2^28, false with any value at or above it.
    // The x86-64 tests that use it need `std` (CPU detection).
    #[cfg_attr(all(target_arch = "x86_64", not(feature = "std")), allow(dead_code))]
    pub(crate) fn lane_limit_cases(
        check64: impl Fn(&[u64; 4]) -> bool,
        check32: impl Fn(&[u32; 4]) -> bool,
    ) {
        assert!(check64(&[0, 1, (1 << 28) - 1, 5]));
        for at in 0..4 {
            for big in [1 << 28, 1 << 32, 1 << 40, u64::MAX] {
                let mut values = [3u64; 4];
                values[at] = big;
                assert!(!check64(&values), "{values:x?}");
            }
        }
        assert!(check32(&[1, 2, (1 << 28) - 1, 4]));
        assert!(!check32(&[1, 2, 1 << 28, 4]));
    }

    /// `step(quad, window)` (an architecture's `load_4` and step, as the
    /// loop calls them) encodes quads of [`EDGES`] (every pair in lanes 0
    /// and 1) as the scalar encoder does, back to back.
    #[cfg(feature = "alloc")]
    pub(crate) fn steps_match_the_scalar_encoder(
        step: impl Fn(&[u32; 4], &mut super::UninitWindow) -> Option<usize>,
    ) {
        for (i, &a) in EDGES.iter().enumerate() {
            for &b in &EDGES {
                let quad = [a, b, EDGES[(i + 3) % EDGES.len()], b ^ 0x55];
                let mut expected = Vec::new();
                for &value in &quad {
                    let mut window = [0u8; 16];
                    let len = scalar::encode(value, &mut window);
                    expected.extend_from_slice(&window[..len]);
                }
                let mut got = [0u8; 16];
                let window = crate::arch::as_uninit(&mut got);
                let window = window.first_chunk_mut::<16>().expect("16 bytes");
                let total = step(&quad, window).expect("every lane below 2^28");
                assert_eq!(total, expected.len(), "{quad:x?}");
                assert_eq!(got[..total], expected[..], "{quad:x?}");
            }
        }
    }

    #[cfg(feature = "alloc")]
    /// `encode` gives the scalar bulk encoder's result and bytes for
    /// `values`, with exact room, every room near the end and a few small
    /// ones.
    pub(crate) fn agrees_with_scalar<T: VarInt>(
        values: &[T],
        encode: impl Fn(&[T], &mut [u8]) -> (usize, usize),
    ) {
        let mut expected = alloc::vec![0u8; values.len() * T::MAX_LEN + 16];
        let (n, total) = encode_slice_into_scalar(values, crate::arch::as_uninit(&mut expected));
        assert_eq!(n, values.len());
        expected.truncate(total);
        let rooms = (total.saturating_sub(80)..=total + 20).chain([0, 1, 15, 16, 17, total / 2]);
        for room in rooms {
            let mut want = alloc::vec![0u8; room];
            let mut got = alloc::vec![0u8; room];
            let expected_result =
                encode_slice_into_scalar(values, crate::arch::as_uninit(&mut want));
            let result = encode(values, &mut got);
            assert_eq!(
                result,
                expected_result,
                "{} values, room {room}",
                values.len()
            );
            assert_eq!(got[..result.1], expected[..result.1], "room {room}");
        }
    }

    #[cfg(feature = "alloc")]
    /// Runs of small values, protobuf-like mixes and full-width values,
    /// long enough (several blocks) to switch between the vector steps and
    /// the word-encoder stretches, through `encode` for every type.
    pub(crate) fn long_runs_agree_with_scalar(
        encode64: impl Fn(&[u64], &mut [u8]) -> (usize, usize),
        encode32: impl Fn(&[u32], &mut [u8]) -> (usize, usize),
        encode16: impl Fn(&[u16], &mut [u8]) -> (usize, usize),
        encode8: impl Fn(&[u8], &mut [u8]) -> (usize, usize),
    ) {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state ^ (state >> 29)
        };
        let mut values = Vec::new();
        for run in 0..16 {
            let count = 100 + next() % 3000;
            for _ in 0..count {
                let r = next();
                values.push(match run % 4 {
                    0 => r & 0x3fff,
                    // Protobuf-like, with 5% long values whose low 32 bits
                    // alone would fit a lane.
                    1 => match r % 100 {
                        0..=59 => r >> 57,
                        60..=84 => r >> 50,
                        85..=94 => r >> 36,
                        _ => (r >> 40) << (32 + r % 32),
                    },
                    2 => r >> (r % 64),
                    _ => r | 1 << 63,
                });
            }
        }
        agrees_with_scalar::<u64>(&values, &encode64);
        let narrow: Vec<u32> = values.iter().map(|&v| (v >> (v % 5 * 8)) as u32).collect();
        let mut long_low_half_zero = alloc::vec![5u64; 64];
        for at in 0..64 {
            long_low_half_zero[at] = 1 << (28 + at % 36);
            agrees_with_scalar::<u64>(&long_low_half_zero, &encode64);
            long_low_half_zero[at] = 5;
        }
        agrees_with_scalar::<u32>(&narrow, &encode32);
        let short: Vec<u16> = values.iter().map(|&v| v as u16).collect();
        agrees_with_scalar::<u16>(&short, &encode16);
        let tiny: Vec<u8> = values.iter().map(|&v| v as u8).collect();
        agrees_with_scalar::<u8>(&tiny, &encode8);
        for count in 0..=70 {
            agrees_with_scalar::<u64>(&values[..count], &encode64);
            agrees_with_scalar::<u32>(&narrow[..count], &encode32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_entries_compact_the_lengths() {
        // Lengths 2, 1, 4, 3: codes 1, 0, 3, 2 at bits 0, 2, 4, 6.
        let index = 0b10_11_00_01;
        assert_eq!(
            CONTROLS.0[index],
            [0, 1, 4, 8, 9, 10, 11, 12, 13, 14, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
        );
        assert_eq!(TOTALS[index], 10);
        assert_eq!(TOTALS[0], 4);
        assert_eq!(TOTALS[255], 16);
        assert_eq!(CONTROLS.0[255], core::array::from_fn(|i| i as u8));
    }
}
