//! The bulk kernels behind [`Backend::Avx512Vbmi2`](crate::Backend::Avx512Vbmi2)
//! (AVX-512 F/BW/VL/CD/VBMI/VBMI2):
//!
//! * `decode_slice`: fixed 64-byte chunks, `vpcompressb` of the varint
//!   starts, `vpermb`/`vpermt2b` gathers (the algorithm and the measurements
//!   behind its choices are in that module's docs);
//! * `encode_slice`: one value per lane, `vpmultishiftqb`, `vpcompressb`;
//! * `sizes`: `count_varints` and `encoded_len_sum`;
//! * `zigzag`: the zigzag decoders' in-place step in 512-bit lanes.

pub(crate) mod decode_slice;
pub(crate) mod encode_slice;
pub(crate) mod sizes;
pub(crate) mod zigzag;
