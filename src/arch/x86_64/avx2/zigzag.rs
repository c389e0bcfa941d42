//! The bulk decoders' zigzag step (`arch::scalar::zigzag`) in 256-bit
//! lanes.

use crate::arch::scalar;
use crate::zigzag::ZigZag;

/// [`scalar::zigzag::zigzag_decode_in_place`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn zigzag_decode_in_place<T: ZigZag>(values: &mut [T]) {
    scalar::zigzag::zigzag_decode_in_place(values);
}
