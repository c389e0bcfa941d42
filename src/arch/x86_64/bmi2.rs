//! BMI2 backend: `PEXT` packs the 7-bit groups of a varint in one
//! instruction, `PDEP` spreads them when encoding.
//!
//! The control flow is the scalar backend's (shared through
//! [`decode_with`](crate::arch::scalar) and friends); only the
//! 3-step shift-and-mask pack/spread becomes one instruction. That is a win
//! where `PEXT`/`PDEP` take 3 cycles (Intel since Haswell, AMD since Zen 3)
//! and a large loss where they are microcoded (AMD Zen, Zen+, Zen 2: 18 to
//! ~290 cycles depending on the mask), which is why
//! [`pdep_is_fast`](crate::pdep_is_fast) and the `native-optimizations` build
//! script keep this backend away from those CPUs.

use core::arch::x86_64::{_pdep_u64, _pext_u64};

use crate::arch::scalar::{self, PAYLOAD_BITS};
use crate::varint::VarInt;
use crate::DecodeError;

/// Decodes the varint at the start of `window` (zero-padded input).
///
/// # Safety
/// The CPU must support BMI2.
///
/// ```
/// #[cfg(target_arch = "x86_64")]
/// if std::is_x86_feature_detected!("bmi2") {
///     use varint_turbo::arch::x86_64::bmi2;
///     let mut window = [0u8; 16];
///     window[..2].copy_from_slice(&[0xac, 0x02]);
///     // SAFETY: the CPU has BMI2 (checked above).
///     assert_eq!(unsafe { bmi2::decode::<u32>(&window) }, Ok((300, 2)));
/// }
/// ```
#[target_feature(enable = "bmi2")]
#[inline]
pub unsafe fn decode<T: VarInt>(window: &[u8; 16]) -> Result<(T, usize), DecodeError> {
    // The closure inherits this function's BMI2 feature.
    scalar::decode_with(window, |word, keep| _pext_u64(word, keep & PAYLOAD_BITS))
}

/// Decodes without validation (see `scalar::decode_unchecked`).
///
/// # Safety
/// The CPU must support BMI2.
///
/// ```
/// #[cfg(target_arch = "x86_64")]
/// if std::is_x86_feature_detected!("bmi2") {
///     use varint_turbo::arch::x86_64::bmi2;
///     let mut window = [0u8; 16];
///     window[..2].copy_from_slice(&[0xac, 0x02]);
///     // SAFETY: the CPU has BMI2 (checked above).
///     assert_eq!(unsafe { bmi2::decode_unchecked::<u32>(&window) }, (300, 2));
/// }
/// ```
#[target_feature(enable = "bmi2")]
#[inline]
pub unsafe fn decode_unchecked<T: VarInt>(window: &[u8; 16]) -> (T, usize) {
    scalar::decode_unchecked_with(window, |word, keep| _pext_u64(word, keep & PAYLOAD_BITS))
}

/// Encodes `value` into the start of `out`; returns the length.
///
/// # Safety
/// The CPU must support BMI2.
///
/// ```
/// #[cfg(target_arch = "x86_64")]
/// if std::is_x86_feature_detected!("bmi2") {
///     use varint_turbo::arch::x86_64::bmi2;
///     let mut window = [0u8; 16];
///     // SAFETY: the CPU has BMI2 (checked above).
///     assert_eq!(unsafe { bmi2::encode(300u32, &mut window) }, 2);
///     assert_eq!(window[..2], [0xac, 0x02]);
/// }
/// ```
#[target_feature(enable = "bmi2")]
#[inline]
pub unsafe fn encode<T: VarInt>(value: T, out: &mut [u8; 16]) -> usize {
    // The closure inherits this function's BMI2 feature. PDEP uses only the
    // low 56 bits of `value`, as `encode_with` requires.
    scalar::encode_with::<T>(value.to_u64(), out, |value| _pdep_u64(value, PAYLOAD_BITS))
}

/// The value-by-value bulk encoder with this backend's word encoder: the
/// scalar reference's loop (same results, room rule and return value) with
/// one `PDEP` per value instead of three shift-and-mask steps. The SSSE3
/// group encoder of the AVX2 bulk backend hands it stretches of values of
/// 2^28 and more, and the last values, where `PDEP` is fast. Not inlined,
/// so that it keeps its own registers (see `arch::group_encode`).
///
/// # Safety
/// The CPU must support BMI2 and LZCNT.
#[target_feature(enable = "bmi1,bmi2,lzcnt")]
#[inline(never)]
pub(crate) unsafe fn encode_slice_into<T: VarInt>(values: &[T], out: &mut [u8]) -> (usize, usize) {
    crate::bulk::encode_slice_into_with(values, out, |value, window| {
        // SAFETY: this function's caller guarantees BMI2.
        unsafe { encode(value, window) }
    })
}

/// A value's varint as words (bytes 0..8, bytes 8 and 9, length); see
/// `scalar::encode_words_with`.
///
/// # Safety
/// The CPU must support BMI2.
// Used by `encode` only when the build selects BMI2 at compile time.
#[cfg_attr(not(target_feature = "bmi2"), allow(dead_code))]
#[target_feature(enable = "bmi2")]
#[inline]
pub(crate) unsafe fn encode_words<T: VarInt>(value: T) -> (u64, u16, usize) {
    scalar::encode_words_with::<T>(value.to_u64(), |value| _pdep_u64(value, PAYLOAD_BITS))
}

/// `!word & CONTINUATION_BITS` as one `andn` (see
/// [`scalar::stop_bits`](crate::arch::scalar)), out of LLVM's reach so that
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
            continuation = in(reg) scalar::CONTINUATION_BITS,
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
            continuation = in(reg) scalar::CONTINUATION_BITS,
            zero = in(reg) 0u64,
            options(pure, nomem, nostack),
        );
    }
    (stops, len as usize, top)
}
