//! SSSE3: the single-value kernels ([`decode`], [`decode_unchecked`],
//! [`encode`]: one 16-byte vector per varint), and the bulk decoder and
//! encoder behind [`Backend::Ssse3`](crate::Backend::Ssse3).
//!
//! * `single`: the single-value kernels (tested against the scalar
//!   reference; not the single-value API's compile-time choice).
//! * `decode_slice`: the fixed grid of `x86_64::grid_decode` on 16-byte
//!   registers.
//! * `encode_slice`: four values per `pshufb` step (Stream-VByte style),
//!   also the body of the AVX2 bulk encoder.

pub(crate) mod decode_slice;
pub(crate) mod encode_slice;
pub(crate) mod single;

pub use single::{decode, decode_unchecked, encode};
