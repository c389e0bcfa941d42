//! The bulk kernels behind [`Backend::Avx2`](crate::Backend::Avx2) (AVX2
//! with BMI1, BMI2, LZCNT and POPCNT):
//!
//! * `decode_slice`: the fixed grid of `x86_64::grid_decode` on 32-byte
//!   registers;
//! * `encode_slice`: the SSSE3 group encoder with the `PDEP` word encoder;
//! * `sizes`: `count_varints` and `encoded_len_sum`;
//! * `zigzag`: the zigzag decoders' in-place step in 256-bit lanes.

pub(crate) mod decode_slice;
pub(crate) mod encode_slice;
pub(crate) mod sizes;
pub(crate) mod zigzag;
