//! NEON (Advanced SIMD), part of the aarch64 baseline:
//!
//! * `single`: the single-value kernels, one 16-byte vector per varint
//!   (reachable through [`Neon`](super::Neon), not the single-value API's
//!   choice: see `aarch64`);
//! * `decode_slice`: the bulk decoder behind
//!   [`Backend::Neon`](crate::Backend::Neon), a `tbl` gather on a fixed grid
//!   of 8-byte chunks;
//! * `encode_slice`: the bulk encoder, four values per `tbl` step.

pub(crate) mod decode_slice;
pub(crate) mod encode_slice;
pub(crate) mod single;
