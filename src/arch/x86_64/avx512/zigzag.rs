//! The bulk decoders' zigzag step (`arch::scalar::zigzag`) in 512-bit
//! lanes.

use crate::arch::scalar;
use crate::zigzag::ZigZag;

/// [`scalar::zigzag::zigzag_decode_in_place`] compiled for AVX-512 (BW for
/// 8- and 16-bit lanes).
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VL.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
pub unsafe fn zigzag_decode_in_place<T: ZigZag>(values: &mut [T]) {
    scalar::zigzag::zigzag_decode_in_place(values);
}
