//! NEON bulk encoder: four values per step in 32-bit lanes, their varints
//! squeezed together by one `tbl` with a control from a 256-entry table,
//! the encode half of Stream VByte (Lemire, Kurz and Rupp, "Stream VByte:
//! Faster Byte-Oriented Integer Compression", 2017) with LEB128 bytes.
//!
//! # One step (four values, each below 2^28, so at most 4 bytes)
//!
//! * **Spread**: `ushr #14` + `sli #16` on 32-bit lanes puts bits 0..14 and
//!   14..28 in the two halfwords, `ushr #7` + `sli #8` on 16-bit lanes puts
//!   each 7-bit group in its own byte. Bit 7 of every byte is left over
//!   garbage from the neighbouring group; it is replaced below.
//! * **Length**: `clz` per 32-bit lane; `len - 1 = (288 - 9 clz) >> 6`
//!   (`mls`, `ushr`): Go's `SizeVarint` formula `(9 bits + 64) / 64` with
//!   `bits = 32 - clz`, minus one. `mul` by `0x0101_0101` copies it to the
//!   lane's four bytes, and `cmhi` against the byte's index in the lane
//!   (0..3) is 0xff exactly on the bytes that continue; `bsl` with 0x7f
//!   takes bits 0..6 from the groups and bit 7 from that compare.
//! * **Compaction**: the four `len - 1` (2 bits each) shifted into place
//!   (`ushl` by 0, 2, 4, 6) and summed (`addv`) index the 256-entry table:
//!   a 16-byte `tbl` control that moves each value's bytes behind the
//!   previous value's, and the total length. One `tbl`, one 16-byte store
//!   at the output position, which then advances by the total; the bytes
//!   the store writes past it are overwritten by the next step (or by the
//!   scalar tail), as the scalar encoder's 10-byte stores do.
//!
//! # Instruction counts (no ARM hardware here; see BENCHMARKS.md, "aarch64")
//!
//! Static, from the release build's disassembly: a step is 31 instructions
//! for `u64` input (7.75 per value: `ldp` and the range check, `uzp1`, 14
//! vector instructions, the index to a general register, the two table
//! loads, `tbl`, the store, the position `add`, 3 of loop control) and 28
//! for `u32`; the scalar encoder's loop is 34 per `u64` value and 24 per
//! `u32`. Executed, under `qemu-aarch64 -singlestep`, per value, scalar vs
//! NEON: 36.7 vs 13.9 on the protobuf-like mix (`u64`), 35.9 vs 8.9 on 1-byte
//! values, and equal on uniform `u32` and `u64` (scalar stretches, below).
//!
//! # Why a table and `tbl`, not a store per value
//!
//! The other way to compact is to store each value's lane at its running
//! offset (overlapping stores). That needs every length in a general
//! register (`umov`, a 2-cycle domain crossing per value on Neoverse
//! N1/V1 and Apple Firestorm), an address per value, and four stores per
//! four values, where the table needs one `addv` + `fmov`, one table load,
//! one `tbl` (a 2-cycle instruction on N1, V1 and Firestorm, issued on 2 to
//! 4 vector pipes) and one store. Stores are the scarcer resource on these
//! cores (at most two per cycle on N1, V1 and Firestorm, against 2 to 4
//! vector pipes; Arm's Neoverse N1/V1 Software Optimization Guides and
//! Dougall Johnson's Firestorm tables), and the table is 4 KiB (+256
//! bytes of totals), which stays in L1. The
//! only value carried from step to step is the output position (one `add`
//! of a table byte); the table index depends on the values only, so steps
//! overlap freely, unlike the scalar loop, whose stores wait for the
//! previous value's length.
//!
//! # Long values, the end of the output, fallback
//!
//! A step whose four values are not all below 2^28 (one `orr` and `umaxv`
//! across the input lanes; constant-false for `u8`/`u16`) encodes them with
//! the scalar single-value encoder instead, inlined: 19% of steps on the
//! protobuf-like mix, where 5% of the values are full `u64`. Every 32 steps
//! the number of such steps is checked; over half (uniform `u32`/`u64`,
//! timestamps, hashes) means the scalar encoder is the cheaper one for this
//! data, and it takes the next 1024 values (doubling, up to 64 Ki, while
//! it stays so), as in the NEON decoder.
//!
//! Steps run only while the output has room for the widest step (three
//! scalar varints and a 16-byte window); the values after that go to the
//! scalar bulk encoder, which writes as many whole varints as fit and
//! never past `out`. So results are those of the scalar encoder for every
//! input and output size.

use core::arch::aarch64::*;

use crate::arch::scalar;
use crate::bulk::encode_slice_into_scalar;
use crate::varint::VarInt;

/// Values per step (four 32-bit lanes).
const GROUP: usize = 4;
/// Values at or above this take more than 4 bytes: not for the vector lanes.
const LANE_LIMIT: u64 = 1 << 28;
/// Steps per block; after each, the number of steps that had to go to
/// the scalar encoder decides whether to hand it a stretch of values.
const BLOCK: usize = 32;
/// More scalar steps than this in a block switch to the scalar encoder.
const DENSE_LONG: usize = BLOCK / 2;
/// Values encoded by the scalar encoder before the vector steps resume;
/// doubled (up to [`MAX_SCALAR_STRETCH`]) after each long-value block in a
/// row.
const SCALAR_STRETCH: usize = 1024;
/// The longest scalar stretch.
const MAX_SCALAR_STRETCH: usize = 64 * 1024;

/// The compaction recipe for four lengths of 1..=4 bytes.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Controls([[u8; 16]; 256]);

/// `tbl` control for the lengths `len_j = ((index >> 2j) & 3) + 1`: output
/// bytes `0..total` are value 0's bytes (input bytes 0..len_0), then value
/// 1's (input bytes 4..4 + len_1), and so on; the rest are zero (index
/// 0xff).
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
static CONTROLS: Controls = {
    let mut controls = [[0u8; 16]; 256];
    let mut index = 0;
    while index < 256 {
        controls[index] = control(index);
        index += 1;
    }
    Controls(controls)
};

/// The total length of the four varints of each table entry (4..=16).
static TOTALS: [u8; 256] = {
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

/// Loads 4 values into the 32-bit lanes (truncated: only meaningful when
/// `fits` is true) and says whether all of them are below 2^28.
///
/// # Safety
/// 4 values must be readable at `src`.
#[inline(always)]
unsafe fn load_4<T: VarInt>(src: *const T) -> (uint32x4_t, bool) {
    // `T` is an unsigned integer, so the casts below only pick the load width.
    // SAFETY: 4 readable `T` at `src` (caller); each branch reads exactly those.
    unsafe {
        match core::mem::size_of::<T>() {
            8 => {
                let a = vreinterpretq_u32_u64(vld1q_u64(src.cast()));
                let b = vreinterpretq_u32_u64(vld1q_u64(src.cast::<u64>().add(2)));
                // All four below 2^28: their OR shifted right by 28 is zero
                // (in both 32-bit halves of each 64-bit lane).
                let any = vorrq_u64(vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(b));
                let high = vmaxvq_u32(vreinterpretq_u32_u64(vshrq_n_u64::<28>(any)));
                (vuzp1q_u32(a, b), high == 0)
            }
            4 => {
                let lanes = vld1q_u32(src.cast());
                (lanes, u64::from(vmaxvq_u32(lanes)) < LANE_LIMIT)
            }
            2 => (vmovl_u16(vld1_u16(src.cast())), true),
            _ => {
                let bytes = vcreate_u8(u64::from(src.cast::<u32>().read_unaligned()));
                (vmovl_u16(vget_low_u16(vmovl_u8(bytes))), true)
            }
        }
    }
}

/// The constants of a step, kept in registers across the loop.
struct Constants {
    /// 288 and 9 of `len - 1 = (288 - 9 clz) >> 6`.
    k288: uint32x4_t,
    k9: uint32x4_t,
    /// Each byte's index inside its 32-bit lane.
    byte_in_lane: uint8x16_t,
    /// The payload bits of a byte.
    payload: uint8x16_t,
    /// `ushl` shifts that put lane `j`'s `len - 1` at bits `2j..2j + 2`.
    index_shifts: int32x4_t,
}

impl Constants {
    #[inline(always)]
    fn new() -> Self {
        let byte_in_lane: [u8; 16] = [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3];
        let index_shifts: [i32; 4] = [0, 2, 4, 6];
        // SAFETY: loads of local arrays of the right sizes; NEON is part of
        // the aarch64 baseline.
        unsafe {
            Constants {
                k288: vdupq_n_u32(288),
                k9: vdupq_n_u32(9),
                byte_in_lane: vld1q_u8(byte_in_lane.as_ptr()),
                payload: vdupq_n_u8(0x7f),
                index_shifts: vld1q_s32(index_shifts.as_ptr()),
            }
        }
    }
}

/// Encodes the four values in `lanes` (each below 2^28) to `dst`; returns
/// the bytes of their varints. Writes 16 bytes at `dst`.
///
/// # Safety
/// `dst` must be valid for writing 16 bytes.
#[inline(always)]
unsafe fn encode_step(k: &Constants, lanes: uint32x4_t, dst: *mut u8) -> usize {
    // SAFETY: register operations, a 16-byte load from the table (the index
    // is masked to 0..=255) and the 16-byte store the caller has room for.
    unsafe {
        // 7-bit groups into bytes, bit 7 of each byte unspecified.
        let halves = vreinterpretq_u16_u32(vsliq_n_u32::<16>(lanes, vshrq_n_u32::<14>(lanes)));
        let groups = vreinterpretq_u8_u16(vsliq_n_u16::<8>(halves, vshrq_n_u16::<7>(halves)));
        // len - 1 (0..=3): bits = 32 - clz; (9 bits + 64) / 64 - 1.
        let extra = vshrq_n_u32::<6>(vmlsq_u32(k.k288, vclzq_u32(lanes), k.k9));
        let extra_bytes = vreinterpretq_u8_u32(vmulq_n_u32(extra, 0x0101_0101));
        let continues = vcgtq_u8(extra_bytes, k.byte_in_lane);
        let bytes = vbslq_u8(k.payload, groups, continues);
        let index = (vaddvq_u32(vshlq_u32(extra, k.index_shifts)) & 0xff) as usize;
        let control = vld1q_u8(CONTROLS.0[index].as_ptr());
        vst1q_u8(dst, vqtbl1q_u8(bytes, control));
        usize::from(TOTALS[index])
    }
}

/// Encodes as many of `values` as fit, whole, into `out`; returns (values
/// encoded, bytes written), exactly as the scalar bulk encoder. Bytes of
/// `out` after the written ones may be overwritten. NEON is part of the
/// aarch64 baseline, so this needs no run-time check.
pub(crate) fn encode_slice_into<T: VarInt>(values: &[T], out: &mut [u8]) -> (usize, usize) {
    // Room a step needs: a slow step's last value starts at most 3 varints
    // in and the scalar encoder writes a 16-byte window; a vector step
    // stores 16 bytes.
    let need = 3 * T::MAX_LEN + 16;
    // A step advances the output by at most this.
    let step_max = GROUP * T::MAX_LEN;
    let k = Constants::new();
    let mut index = 0usize;
    let mut pos = 0usize;
    let mut stretch = SCALAR_STRETCH;
    loop {
        // Taken afresh after each use of `out` by the scalar encoder.
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
            // `group` is 4 readable values, and `pos + need <= out.len()`
            // (the `steps` bound: each step advances `pos` by at most
            // `step_max`). SAFETY: so the vector step's 16 bytes at `pos`,
            // and the scalar windows below, are inside `out`.
            unsafe {
                let (lanes, fits) = load_4(group.as_ptr());
                if fits {
                    pos += encode_step(&k, lanes, dst.add(pos));
                } else {
                    long_steps += 1;
                    for &value in group {
                        // Each window starts at most 3 varints after the
                        // step's start: inside the `need` bytes of room.
                        let window = &mut *dst.add(pos).cast::<[u8; 16]>();
                        pos += scalar::encode(value, window);
                    }
                }
            }
        }
        index += GROUP * steps;
        if steps == BLOCK && long_steps > DENSE_LONG {
            // Mostly values of 2^28 and more: the scalar encoder is
            // cheaper per value there. Encode a stretch, then try again.
            let end = values.len().min(index + stretch);
            let (n, written) = encode_slice_into_scalar(&values[index..end], &mut out[pos..]);
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
    let (n, written) = encode_slice_into_scalar(&values[index..], &mut out[pos..]);
    (index + n, pos + written)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(feature = "alloc")]
    use alloc::vec::Vec;

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

    #[test]
    fn one_step_matches_the_scalar_encoder() {
        let k = Constants::new();
        // Every length boundary below 2^28, in every lane.
        let edges = [
            0u32,
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
        for (i, &a) in edges.iter().enumerate() {
            for &b in &edges {
                let quad = [a, b, edges[(i + 3) % edges.len()], b ^ 0x55];
                let mut expected = [0u8; 16];
                let mut at = 0;
                for &value in &quad {
                    let mut window = [0u8; 16];
                    let len = scalar::encode(value, &mut window);
                    expected[at..at + len].copy_from_slice(&window[..len]);
                    at += len;
                }
                let mut got = [0u8; 16];
                // SAFETY: `quad` is 4 readable u32 and `got` 16 writable bytes.
                let total = unsafe {
                    let (lanes, fits) = load_4(quad.as_ptr());
                    assert!(fits);
                    encode_step(&k, lanes, got.as_mut_ptr())
                };
                assert_eq!(total, at, "{quad:x?}");
                assert_eq!(got[..at], expected[..at], "{quad:x?}");
            }
        }
    }

    #[test]
    fn load_4_checks_the_lane_limit() {
        let check = |values: [u64; 4]| {
            // SAFETY: 4 readable values.
            unsafe { load_4(values.as_ptr()).1 }
        };
        assert!(check([0, 1, (1 << 28) - 1, 5]));
        for at in 0..4 {
            for big in [1 << 28, 1 << 32, 1 << 40, u64::MAX] {
                let mut values = [3u64; 4];
                values[at] = big;
                assert!(!check(values), "{values:x?}");
            }
        }
        let narrow = [1u32, 2, 1 << 28, 4];
        // SAFETY: 4 readable values.
        assert!(!unsafe { load_4(narrow.as_ptr()).1 });
        let bytes = [0xffu8, 0x80, 0x7f, 0];
        // SAFETY: 4 readable values.
        let (lanes, fits) = unsafe { load_4(bytes.as_ptr()) };
        assert!(fits);
        // SAFETY: register operation.
        assert_eq!(unsafe { vgetq_lane_u32::<1>(lanes) }, 0x80);
    }

    #[cfg(feature = "alloc")]
    fn agrees_with_scalar<T: VarInt>(values: &[T]) {
        let mut expected = alloc::vec![0u8; values.len() * T::MAX_LEN + 16];
        let (n, total) = encode_slice_into_scalar(values, &mut expected);
        assert_eq!(n, values.len());
        expected.truncate(total);
        // Exact room, every room near the end and a few small ones.
        let rooms = (total.saturating_sub(80)..=total + 20).chain([0, 1, 15, 16, 17, total / 2]);
        for room in rooms {
            let mut want = alloc::vec![0u8; room];
            let mut got = alloc::vec![0u8; room];
            let expected_result = encode_slice_into_scalar(values, &mut want);
            let result = encode_slice_into(values, &mut got);
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
    #[test]
    fn long_runs_switch_paths_and_agree_with_scalar() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state ^ (state >> 29)
        };
        // Runs of small values, protobuf-like mixes and full-width values,
        // long enough (several blocks) to switch between the vector steps
        // and the scalar stretches.
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
        agrees_with_scalar::<u64>(&values);
        let narrow: Vec<u32> = values.iter().map(|&v| (v >> (v % 5 * 8)) as u32).collect();
        let mut long_low_half_zero = alloc::vec![5u64; 64];
        for at in 0..64 {
            long_low_half_zero[at] = 1 << (28 + at % 36);
            agrees_with_scalar::<u64>(&long_low_half_zero);
            long_low_half_zero[at] = 5;
        }
        agrees_with_scalar::<u32>(&narrow);
        let short: Vec<u16> = values.iter().map(|&v| v as u16).collect();
        agrees_with_scalar::<u16>(&short);
        let tiny: Vec<u8> = values.iter().map(|&v| v as u8).collect();
        agrees_with_scalar::<u8>(&tiny);
        for count in 0..=70 {
            agrees_with_scalar::<u64>(&values[..count]);
            agrees_with_scalar::<u32>(&narrow[..count]);
        }
    }
}
