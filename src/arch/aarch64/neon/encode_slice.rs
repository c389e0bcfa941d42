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
//! # Long values, the end of the output
//!
//! The loop around the steps (steps with a value of 2^28 or more, scalar
//! stretches, the last values) and the table are shared with the SSSE3
//! encoder: `arch::group_encode`.

use core::arch::aarch64::*;

use crate::arch::group_encode::{self, CONTROLS, GROUP, LANE_LIMIT, TOTALS};
use crate::arch::scalar;
use crate::arch::scalar::encode_slice::encode_slice_into_scalar;
use crate::arch::scalar::single::UninitWindow;
use crate::varint::VarInt;
use core::mem::MaybeUninit;

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

/// The `step` of the shared loop (`group_encode::encode_slice_into`): the
/// four values of `group` into `window` if all are below 2^28.
#[inline(always)]
fn group_step<T: VarInt>(
    k: &Constants,
    group: &[T; GROUP],
    window: &mut UninitWindow,
) -> Option<usize> {
    // SAFETY: `group` is 4 readable values and `window` 16 writable bytes;
    // NEON is part of the aarch64 baseline.
    unsafe {
        let (lanes, fits) = load_4(group.as_ptr());
        fits.then(|| encode_step(k, lanes, window.as_mut_ptr().cast()))
    }
}

/// Encodes as many of `values` as fit, whole, into `out`; returns (values
/// encoded, bytes written), exactly as the scalar bulk encoder. Bytes of
/// `out` after the written ones may be overwritten. NEON is part of the
/// aarch64 baseline, so this needs no run-time check. `out` may be
/// uninitialized: only computed bytes are stored.
pub(crate) fn encode_slice_into<T: VarInt>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    let k = Constants::new();
    group_encode::encode_slice_into(
        values,
        out,
        |group, window| group_step(&k, group, window),
        scalar::single::encode_uninit::<T>,
        encode_slice_into_scalar::<T>,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "alloc")]
    #[test]
    fn one_step_matches_the_scalar_encoder() {
        let k = Constants::new();
        group_encode::testing::steps_match_the_scalar_encoder(|quad, window| {
            group_step(&k, quad, window)
        });
    }

    /// `load_4`'s lane-limit answer.
    fn fits<T: VarInt>(values: &[T; 4]) -> bool {
        // SAFETY: 4 readable values; NEON is part of the aarch64 baseline.
        unsafe { load_4(values.as_ptr()).1 }
    }

    #[test]
    fn load_4_checks_the_lane_limit() {
        group_encode::testing::lane_limit_cases(fits::<u64>, fits::<u32>);
        let bytes = [0xffu8, 0x80, 0x7f, 0];
        // SAFETY: 4 readable values.
        let (lanes, fits) = unsafe { load_4(bytes.as_ptr()) };
        assert!(fits);
        // SAFETY: register operation.
        assert_eq!(unsafe { vgetq_lane_u32::<1>(lanes) }, 0x80);
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn long_runs_switch_paths_and_agree_with_scalar() {
        fn encode<T: VarInt>(values: &[T], out: &mut [u8]) -> (usize, usize) {
            encode_slice_into(values, crate::arch::as_uninit(out))
        }
        group_encode::testing::long_runs_agree_with_scalar(
            encode::<u64>,
            encode::<u32>,
            encode::<u16>,
            encode::<u8>,
        );
    }
}
