//! The compile-time choice for the single-value API.
//!
//! BMI2 when the build enables it and the build script did not find PDEP
//! microcoded (`varint_turbo_slow_pdep`); otherwise scalar. The SSSE3
//! kernels are not selected for single values: on every CPU measured (see
//! README) the scalar word-at-a-time code is at least as fast, because the
//! vector path's latency (load, `pmovmskb`, two multiply-adds, two moves
//! back) exceeds three shift-and-mask steps.
//! `--cfg varint_turbo_force_scalar` compiles every SIMD path out.

#[allow(unused_imports)]
use crate::error::DecodeError;
#[allow(unused_imports)]
use crate::varint::VarInt;

cfg_if::cfg_if! {
    if #[cfg(all(
        target_arch = "x86_64",
        target_feature = "bmi2",
        not(varint_turbo_slow_pdep),
        not(varint_turbo_force_scalar)
    ))] {
        use crate::arch::x86_64::bmi2 as kernels;

        #[inline(always)]
        pub fn decode<T: VarInt>(window: &[u8; 16]) -> Result<(T, usize), DecodeError> {
            // SAFETY: BMI2 is enabled for the whole build (cfg above).
            unsafe { kernels::decode(window) }
        }
        #[inline(always)]
        pub fn decode_unchecked<T: VarInt>(window: &[u8; 16]) -> (T, usize) {
            // SAFETY: BMI2 is enabled for the whole build (cfg above).
            unsafe { kernels::decode_unchecked(window) }
        }
        #[inline(always)]
        pub fn encode<T: VarInt>(value: T, out: &mut [u8; 16]) -> usize {
            // SAFETY: BMI2 is enabled for the whole build (cfg above).
            unsafe { kernels::encode(value, out) }
        }
        #[inline(always)]
        pub fn encode_words<T: VarInt>(value: T) -> (u64, u16, usize) {
            // SAFETY: BMI2 is enabled for the whole build (cfg above).
            unsafe { kernels::encode_words(value) }
        }
        /// Whether [`pack_masked`] is one `PEXT`.
        pub const PEXT: bool = true;
        /// The bits of `x` under `mask` (the payload bits of its bytes
        /// `0..n`: `mask` must be `PAYLOAD_BITS` with whole bytes
        /// cleared from the top), packed: one PEXT. The scalar bulk
        /// decoder's word step uses it, so it packs as the single-value
        /// path does.
        #[inline(always)]
        pub fn pack_masked(x: u64, mask: u64) -> u64 {
            // SAFETY: BMI2 is enabled for the whole build (cfg above).
            unsafe { core::arch::x86_64::_pext_u64(x, mask) }
        }
    } else {
        pub use crate::arch::scalar::{decode, decode_unchecked, encode};
        pub(crate) use crate::arch::scalar::single::encode_words;

        /// Whether [`pack_masked`] is one `PEXT`.
        pub const PEXT: bool = false;
        /// The bits of `x` under `mask` (the payload bits of its bytes
        /// `0..n`: `mask` must be `PAYLOAD_BITS` with whole bytes
        /// cleared from the top), packed with the portable
        /// shift-and-mask steps.
        #[inline(always)]
        pub fn pack_masked(x: u64, mask: u64) -> u64 {
            crate::arch::scalar::single::pack_7bit_groups(x & mask)
        }
    }
}

/// The backend's name, for tests and the demo.
pub const NAME: &str = if cfg!(all(
    target_arch = "x86_64",
    target_feature = "bmi2",
    not(varint_turbo_slow_pdep),
    not(varint_turbo_force_scalar)
)) {
    "bmi2"
} else {
    "scalar"
};

/// The name of the backend the single-value functions ([`decode`](crate::decode),
/// [`encode`](crate::encode), ...) were compiled to use: `"scalar"` or `"bmi2"`.
///
/// ```
/// println!("single-value backend: {}", varint_turbo::single_value_backend());
/// ```
pub fn single_value_backend() -> &'static str {
    NAME
}
