//! The AVX2 bulk encoder behind [`Backend::Avx2`](crate::Backend::Avx2):
//! the SSSE3 group encoder (`ssse3::encode_slice`, four values per `pshufb`
//! step, compiled here with AVX2's VEX encoding) with the `PDEP` word
//! encoder for values of 2^28 and more where `PDEP` is fast.

use crate::arch::x86_64::bmi2;
use crate::arch::x86_64::ssse3::encode_slice::{encode_groups, encode_groups_portable};
use crate::varint::VarInt;
use core::mem::MaybeUninit;

/// The [`Backend::Avx2`](crate::Backend::Avx2) bulk encoder: the SSSE3
/// steps, with the `PDEP` word encoder for values of 2^28 and more where
/// `pdep_fast` ([`pdep_is_fast`](crate::pdep_is_fast)), else the portable
/// one. ([`Backend::Avx512Vbmi2`](crate::Backend::Avx512Vbmi2)'s encoder
/// does not use it: it hands what its vector steps leave to the scalar
/// encoder.)
///
/// # Safety
/// The CPU must have AVX2, BMI1, BMI2, LZCNT and POPCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub(crate) unsafe fn encode_slice_into<T: VarInt>(
    values: &[T],
    out: &mut [MaybeUninit<u8>],
    pdep_fast: bool,
) -> (usize, usize) {
    if pdep_fast {
        // SAFETY: this function's caller guarantees the features.
        unsafe {
            encode_groups(
                values,
                out,
                |value, window| bmi2::encode_uninit(value, window),
                |values, out| bmi2::encode_slice_into(values, out),
            )
        }
    } else {
        // SAFETY: this function's caller guarantees the features.
        unsafe { encode_groups_portable(values, out) }
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    extern crate std;
    use super::*;
    use crate::arch::group_encode;

    fn avx2() -> bool {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("popcnt")
    }

    /// The AVX2 encoder (the PDEP word encoder or the portable one), on a
    /// CPU that `avx2()` accepted; PDEP is only slow where microcoded.
    fn avx2_encode<T: VarInt, const PDEP: bool>(values: &[T], out: &mut [u8]) -> (usize, usize) {
        assert!(avx2());
        // SAFETY: the CPU has AVX2, BMI1, BMI2, LZCNT and POPCNT (asserted above).
        unsafe { encode_slice_into(values, crate::arch::as_uninit(out), PDEP) }
    }

    #[test]
    fn long_runs_switch_paths_and_agree_with_scalar() {
        if !avx2() {
            return;
        }
        group_encode::testing::long_runs_agree_with_scalar(
            avx2_encode::<u64, true>,
            avx2_encode::<u32, true>,
            avx2_encode::<u16, true>,
            avx2_encode::<u8, true>,
        );
        group_encode::testing::long_runs_agree_with_scalar(
            avx2_encode::<u64, false>,
            avx2_encode::<u32, false>,
            avx2_encode::<u16, false>,
            avx2_encode::<u8, false>,
        );
    }
}
