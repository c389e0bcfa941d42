//! BMI1 helpers of the scalar kernels (`andn`, `tzcnt`), written as `asm!`
//! where LLVM would otherwise rewrite them into longer dependency chains.
//! Used by the portable code (`arch::scalar`) in builds that enable BMI1,
//! and through it by the BMI2 kernels, which share its control flow.

#[cfg(target_feature = "bmi1")]
use crate::varint::CONTINUATION_BITS;

/// `!word & CONTINUATION_BITS` as one `andn` (see
/// `scalar::stop_bits`), out of LLVM's reach so that
/// it is not split into `and` + `xor`.
#[cfg(target_feature = "bmi1")]
#[inline(always)]
pub(crate) fn andn_continuation_bits(word: u64) -> u64 {
    let stops: u64;
    // `andn` sets flags, which `asm!` assumes clobbered unless told otherwise.
    // SAFETY: `andn` only computes a register from two (no memory, no
    // stack), and the build enables BMI1 (the `cfg` above).
    unsafe {
        core::arch::asm!(
            "andn {stops}, {word}, {continuation}",
            stops = lateout(reg) stops,
            word = in(reg) word,
            continuation = in(reg) CONTINUATION_BITS,
            options(pure, nomem, nostack),
        );
    }
    stops
}

/// The stop bits, length and top bytes of an unchecked `u64` varint, with
/// no branch on its length: `(stops, len, top)`, where `stops` is
/// `!word & CONTINUATION_BITS`, `len` is 1..=10, and `top` (given as bytes
/// 8 and 9 of the window, little-endian) is cut to what belongs to the
/// varint: 0 if it ends in `word`, byte 8 if it has 9 bytes, both bytes if
/// it has 10.
///
/// Why a branch-free length: on the protobuf-like mix 5% of the values are
/// full-width u64s (9 or 10 bytes), and a branch on "does the varint end
/// in its first 8 bytes" mispredicts on each of them (about 30 cycles each
/// in a parser's loop, which waits for the length). The length instead
/// takes the `tzcnt` of the stop bits, 64 when bytes 0..8 all continue
/// (so `tzcnt / 8 + 1` is 9), plus one when byte 8 continues too:
///
/// ```text
/// andn   stops = !word & 0x8080..80   ZF: no stop bit in bytes 0..8
/// cmovnz top = 0                      only a long varint keeps bytes 8, 9
/// tzcnt  len = stops                  7, 15, .., 63, or 64
/// shr    len >>= 3                    0..=7, or 8
/// movzx  ninth = top & 0xff
/// bt     top, 7                       CF = a 10th byte follows
/// cmovnc top = ninth                  drop byte 9 unless it is the 10th
/// adc    len += 1 + CF                1..=8, or 9 + (a 10th byte)
/// ```
///
/// The chain a parser's loop waits for (load, `andn`, `tzcnt`, `shr`,
/// `adc`, its own `add`) is as long as the branchy form's (`inc` in place
/// of `adc`); `cmovnz` and `bt` run beside it (the 2-byte load of `top`
/// starts with the word's). Written as `asm!` because LLVM turns the
/// selects back into the branch, and cannot tie the `bt` flag to `adc`.
/// Measured with `AB_NATIVE=1 scripts/ab-single` (`decode_unchecked::<u64>`,
/// Zen 4): 1.09-1.10x on the protobuf-like mix, 0.98-1.0x on the mix
/// without its long values, 1.01x on uniform u64. The checked `decode`
/// keeps the branch: with its overflow test and bounds checks the extra
/// instructions cost as much as the mispredictions they save (0.91-0.99x;
/// BENCHMARKS.md has the measurements).
#[cfg(target_feature = "bmi1")]
#[inline(always)]
pub(crate) fn unchecked_u64_stops_len_top(word: u64, top: u64) -> (u64, usize, u64) {
    let stops: u64;
    let len: u64;
    let mut top = top;
    // SAFETY: register-only arithmetic (no memory, no stack); the build
    // enables BMI1 (`andn`, `tzcnt`); `cmov`, `bt` and `adc` are baseline.
    unsafe {
        core::arch::asm!(
            "andn {stops}, {word}, {continuation}",
            "cmovnz {top:e}, {zero:e}",
            "tzcnt {len}, {stops}",
            "shr {len}, 3",
            "movzx {ninth:e}, {top:l}",
            "bt {top:e}, 7",
            "cmovnc {top:e}, {ninth:e}",
            "adc {len}, 1",
            stops = out(reg) stops,
            len = out(reg) len,
            top = inout(reg) top,
            ninth = out(reg) _,
            word = in(reg) word,
            continuation = in(reg) CONTINUATION_BITS,
            zero = in(reg) 0u64,
            options(pure, nomem, nostack),
        );
    }
    (stops, len as usize, top)
}
