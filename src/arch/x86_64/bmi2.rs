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

use crate::arch::scalar::single::{store_words, UninitWindow};
use crate::arch::scalar::{self, encode_slice::encode_slice_into_with};
use crate::error::DecodeError;
use crate::varint::{VarInt, PAYLOAD_BITS};
use core::mem::MaybeUninit;

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
// Intrinsic calls are `unsafe` before Rust 1.87 even under their target
// feature (MSRV 1.85); newer compilers call that block unused.
#[allow(unused_unsafe)]
pub unsafe fn decode<T: VarInt>(window: &[u8; 16]) -> Result<(T, usize), DecodeError> {
    // The closure inherits this function's BMI2 feature.
    scalar::single::decode_with(window, |word, keep| {
        // SAFETY: this function's caller guarantees BMI2.
        unsafe { _pext_u64(word, keep & PAYLOAD_BITS) }
    })
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
// Intrinsic calls are `unsafe` before Rust 1.87 even under their target
// feature (MSRV 1.85); newer compilers call that block unused.
#[allow(unused_unsafe)]
pub unsafe fn decode_unchecked<T: VarInt>(window: &[u8; 16]) -> (T, usize) {
    scalar::single::decode_unchecked_with(window, |word, keep| {
        // SAFETY: this function's caller guarantees BMI2.
        unsafe { _pext_u64(word, keep & PAYLOAD_BITS) }
    })
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
// Intrinsic calls are `unsafe` before Rust 1.87 even under their target
// feature (MSRV 1.85); newer compilers call that block unused.
#[allow(unused_unsafe)]
pub unsafe fn encode<T: VarInt>(value: T, out: &mut [u8; 16]) -> usize {
    // The closure inherits this function's BMI2 feature. PDEP uses only the
    // low 56 bits of `value`, as `encode_with` requires.
    scalar::single::encode_with::<T>(value.to_u64(), out, |value| {
        // SAFETY: this function's caller guarantees BMI2.
        unsafe { _pdep_u64(value, PAYLOAD_BITS) }
    })
}

/// The value-by-value bulk encoder with this backend's word encoder: the
/// scalar reference's loop (same results, room rule and return value) with
/// one `PDEP` per value instead of three shift-and-mask steps. The SSSE3
/// group encoder of the AVX2 bulk backend hands it stretches of values of
/// 2^28 and more, and the last values, where `PDEP` is fast. Not inlined,
/// so that it keeps its own registers (see `arch::group_encode`).
///
/// # Safety
/// The CPU must support BMI1, BMI2 and LZCNT.
#[target_feature(enable = "bmi1,bmi2,lzcnt")]
#[inline(never)]
pub(crate) unsafe fn encode_slice_into<T: VarInt>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    encode_slice_into_with(values, out, |value, window| {
        // SAFETY: this function's caller guarantees BMI2.
        unsafe { encode_uninit(value, window) }
    })
}

/// [`encode`] into a bulk encoder's window, which may be uninitialized.
///
/// # Safety
/// The CPU must support BMI2.
#[inline(always)]
pub(crate) unsafe fn encode_uninit<T: VarInt>(value: T, window: &mut UninitWindow) -> usize {
    // SAFETY: the caller guarantees BMI2.
    let (low, high, len) = unsafe { encode_words(value) };
    store_words(window, low, high, T::MAX_LEN > 8);
    len
}

/// A value's varint as words (bytes 0..8, bytes 8 and 9, length); see
/// `scalar::encode_words_with`.
///
/// # Safety
/// The CPU must support BMI2.
#[target_feature(enable = "bmi2")]
#[inline]
// Intrinsic calls are `unsafe` before Rust 1.87 even under their target
// feature (MSRV 1.85); newer compilers call that block unused.
#[allow(unused_unsafe)]
pub(crate) unsafe fn encode_words<T: VarInt>(value: T) -> (u64, u16, usize) {
    scalar::single::encode_words_with::<T>(value.to_u64(), |value| {
        // SAFETY: this function's caller guarantees BMI2.
        unsafe { _pdep_u64(value, PAYLOAD_BITS) }
    })
}
