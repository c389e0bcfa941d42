//! The portable backend: integer code, the reference every other backend
//! is tested against and what every build can run. Only the bulk decoder
//! (`decode_slice`) has `unsafe`: the x86-64 baseline's SSE2 `pmovmskb`
//! for its terminator bitmaps, and reads of 16-byte windows and
//! length-indexed tables and writes into the output after its bounds
//! checks.
//!
//! * `single`: one varint at a time ([`decode`], [`decode_unchecked`],
//!   [`encode`], [`encoded_len`]); the single-value API's kernel wherever
//!   BMI2 is not selected.
//! * `decode_slice`: the bulk decoder behind
//!   [`Backend::Scalar`](crate::Backend::Scalar) (terminator bitmaps, then an
//!   independent word step per value).
//! * `encode_slice`: the bulk encoder, the single-value encoder in a loop.
//! * `fallback`: the scalar tail and fallback of the x86-64 SIMD bulk
//!   decoders, unsigned or signed (`tail` or `sleb128`).
//! * `prefix_sum`: the running sum of the delta decoders (`delta`).
//! * `sizes`: `count_varints` and `encoded_len_sum` without intrinsics.
//! * `sleb128`: signed LEB128 (the `sleb128` module's reference: single
//!   values, the bulk decoder, and the sign step after an unsigned kernel).
//! * `tail`: the value-by-value decoder every bulk backend finishes with,
//!   so that all bulk errors come from one place.
//! * `zigzag`: the bulk zigzag decoders' in-place step, which the SIMD
//!   backends compile with their own target features.

pub(crate) mod decode_slice;
pub(crate) mod encode_slice;
#[cfg(target_arch = "x86_64")]
pub(crate) mod fallback;
pub(crate) mod prefix_sum;
pub(crate) mod single;
pub(crate) mod sizes;
pub(crate) mod sleb128;
pub(crate) mod tail;
pub(crate) mod zigzag;

pub(crate) use decode_slice::tail_values;
pub use single::{decode, decode_unchecked, encode, encoded_len};
pub(crate) use tail::scalar_values;
