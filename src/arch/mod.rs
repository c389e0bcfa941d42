//! Backends, one file each with the same function names (`decode`,
//! `decode_unchecked`, `encode`) over a 16-byte window, in the layout of
//! memchr's `arch/`:
//!
//! * [`scalar`]: the reference; portable, no `unsafe`.
//! * `x86_64::ssse3`: one 16-byte vector per varint (`pmovmskb` for the
//!   length, `pmaddubsw`/`pmaddwd` to merge the 7-bit groups).
//! * `x86_64::bmi2`: the scalar control flow with `PEXT`/`PDEP`.
//! * `aarch64::neon`: NEON, one 16-byte vector per varint (not selected:
//!   the scalar kernel is shorter on ARM cores; see `aarch64`).
//!
//! The single-value API picks one at **compile time** (`selected`), because
//! an indirect call would cost more than the work. The per-backend types
//! ([`Scalar`], `x86_64::{Ssse3, Bmi2}`, `aarch64::Neon`) make every backend callable from
//! tests and benchmarks whatever the build's choice; their `new()` checks
//! the running CPU.
//!
//! The bulk kernels live beside them (`x86_64::avx2`, `x86_64::avx512`,
//! `x86_64::ssse3_encode`, `aarch64::neon_bulk`, `aarch64::neon_encode`);
//! `group_encode` holds what the SSSE3 and NEON bulk encoders share (the
//! Stream-VByte-style compaction table and the loop around the steps).

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
pub mod aarch64;
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_endian = "little")
))]
pub(crate) mod group_encode;
pub mod scalar;
#[cfg(target_arch = "x86_64")]
pub mod x86_64;

/// Generates the safe methods of a per-backend type from its kernels.
/// `$enabled` is an expression proving the CPU supports the backend (it is
/// only evaluated in `new()`).
macro_rules! backend_type {
    ($(#[$doc:meta])* $name:ident, $kernels:path, enabled: $enabled:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $name {
            _cpu_supports_it: (),
        }

        impl $name {
            /// Returns the backend if the running CPU supports it.
            ///
            /// (Shown with [`Scalar`](crate::arch::Scalar), which every CPU
            /// has; every backend type has the same methods.)
            ///
            /// ```
            /// let backend = varint_turbo::arch::Scalar::new().expect("always available");
            /// assert_eq!(backend.decode::<u16>(&[0x7f]), Ok((127, 1)));
            /// ```
            #[inline]
            pub fn new() -> Option<Self> {
                if $enabled {
                    Some(Self { _cpu_supports_it: () })
                } else {
                    None
                }
            }

            /// [`decode`](crate::decode) through this backend.
            ///
            /// (Shown with [`Scalar`](crate::arch::Scalar), which every CPU
            /// has; every backend type has the same methods.)
            ///
            /// ```
            /// let backend = varint_turbo::arch::Scalar::new().expect("always available");
            /// assert_eq!(backend.decode::<u32>(&[0xac, 0x02]), Ok((300, 2)));
            /// ```
            #[inline]
            pub fn decode<T: $crate::VarInt>(
                self,
                input: &[u8],
            ) -> Result<(T, usize), $crate::DecodeError> {
                use $kernels as kernels;
                // SAFETY: `self` exists only if `new()` found the CPU features.
                $crate::decode::decode_with(input, |window| unsafe { kernels::decode(window) })
            }

            /// [`decode_unchecked`](crate::decode_unchecked) through this backend.
            ///
            /// # Safety
            /// As for [`decode_unchecked`](crate::decode_unchecked): `ptr`
            /// must be valid for reads of 16 initialized bytes.
            ///
            /// (Shown with [`Scalar`](crate::arch::Scalar), which every CPU
            /// has; every backend type has the same methods.)
            ///
            /// ```
            /// let backend = varint_turbo::arch::Scalar::new().expect("always available");
            /// let mut buf = [0u8; 16];
            /// buf[..2].copy_from_slice(&[0xac, 0x02]);
            /// // SAFETY: `buf` has 16 readable bytes.
            /// assert_eq!(unsafe { backend.decode_unchecked::<u32>(buf.as_ptr()) }, (300, 2));
            /// ```
            #[inline(always)]
            pub unsafe fn decode_unchecked<T: $crate::VarInt>(self, ptr: *const u8) -> (T, usize) {
                use $kernels as kernels;
                // Caller: 16 readable, initialized bytes at `ptr` (alignment 1).
                // SAFETY: that, and `new()` checked the CPU features.
                unsafe { kernels::decode_unchecked(&*ptr.cast::<[u8; 16]>()) }
            }

            /// [`encode`](crate::encode) through this backend.
            ///
            /// (Shown with [`Scalar`](crate::arch::Scalar), which every CPU
            /// has; every backend type has the same methods.)
            ///
            /// ```
            /// let backend = varint_turbo::arch::Scalar::new().expect("always available");
            /// let (bytes, len) = backend.encode(300u32);
            /// assert_eq!(&bytes[..usize::from(len)], &[0xac, 0x02]);
            /// ```
            #[inline]
            pub fn encode<T: $crate::VarInt>(self, value: T) -> ([u8; 16], u8) {
                use $kernels as kernels;
                let mut out = [0u8; 16];
                // SAFETY: `self` exists only if `new()` found the CPU features.
                let len = unsafe { kernels::encode(value, &mut out) };
                (out, len as u8)
            }

            /// [`encode_to_slice`](crate::encode_to_slice) through this backend.
            ///
            /// # Panics
            /// If `out` is shorter than the varint.
            ///
            /// (Shown with [`Scalar`](crate::arch::Scalar), which every CPU
            /// has; every backend type has the same methods.)
            ///
            /// ```
            /// let backend = varint_turbo::arch::Scalar::new().expect("always available");
            /// let mut out = [0u8; 10];
            /// assert_eq!(backend.encode_to_slice(150u64, &mut out), 2);
            /// assert_eq!(out[..2], [0x96, 0x01]);
            /// ```
            #[inline]
            pub fn encode_to_slice<T: $crate::VarInt>(self, value: T, out: &mut [u8]) -> usize {
                use $kernels as kernels;
                // SAFETY: `self` exists only if `new()` found the CPU features.
                $crate::encode::encode_to_slice_with(out, |window| unsafe {
                    kernels::encode(value, window)
                })
            }
        }
    };
}
pub(crate) use backend_type;

/// Unsafe-signature wrappers around the safe scalar kernels, so that
/// `backend_type!` treats every backend alike.
mod scalar_kernels {
    use crate::{DecodeError, VarInt};

    /// # Safety
    /// None: the scalar kernel is safe; `unsafe` only matches the SIMD kernels.
    #[inline(always)]
    pub unsafe fn decode<T: VarInt>(window: &[u8; 16]) -> Result<(T, usize), DecodeError> {
        super::scalar::decode(window)
    }
    /// # Safety
    /// None, as for `decode`.
    #[inline(always)]
    pub unsafe fn decode_unchecked<T: VarInt>(window: &[u8; 16]) -> (T, usize) {
        super::scalar::decode_unchecked(window)
    }
    /// # Safety
    /// None, as for `decode`.
    #[inline(always)]
    pub unsafe fn encode<T: VarInt>(value: T, out: &mut [u8; 16]) -> usize {
        super::scalar::encode(value, out)
    }
}

backend_type!(
    /// The portable scalar backend, the reference every other one is tested
    /// against. Always available.
    ///
    /// ```
    /// use varint_turbo::arch::Scalar;
    /// let scalar = Scalar::new().unwrap();
    /// assert_eq!(scalar.decode::<u64>(&[0x96, 0x01]), Ok((150, 2)));
    /// ```
    Scalar,
    scalar_kernels,
    enabled: true
);

/// The compile-time choice for the single-value API.
///
/// BMI2 when the build enables it and the build script did not find PDEP
/// microcoded (`varint_turbo_slow_pdep`); otherwise scalar. The SSSE3
/// kernels are not selected for single values: on every CPU measured (see
/// README) the scalar word-at-a-time code is at least as fast, because the
/// vector path's latency (load, `pmovmskb`, two multiply-adds, two moves
/// back) exceeds three shift-and-mask steps.
/// `--cfg varint_turbo_force_scalar` compiles every SIMD path out.
pub(crate) mod selected {
    #[allow(unused_imports)]
    use crate::{DecodeError, VarInt};

    cfg_if::cfg_if! {
        if #[cfg(all(
            target_arch = "x86_64",
            target_feature = "bmi2",
            not(varint_turbo_slow_pdep),
            not(varint_turbo_force_scalar)
        ))] {
            use super::x86_64::bmi2 as kernels;

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
            pub use super::scalar::{decode, decode_unchecked, encode};
            pub(crate) use super::scalar::encode_words;

            /// Whether [`pack_masked`] is one `PEXT`.
            pub const PEXT: bool = false;
            /// The bits of `x` under `mask` (the payload bits of its bytes
            /// `0..n`: `mask` must be `PAYLOAD_BITS` with whole bytes
            /// cleared from the top), packed with the portable
            /// shift-and-mask steps.
            #[inline(always)]
            pub fn pack_masked(x: u64, mask: u64) -> u64 {
                super::scalar::pack_7bit_groups(x & mask)
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
}

/// The name of the backend the single-value functions ([`decode`](crate::decode),
/// [`encode`](crate::encode), ...) were compiled to use: `"scalar"` or `"bmi2"`.
///
/// ```
/// println!("single-value backend: {}", varint_turbo::single_value_backend());
/// ```
pub fn single_value_backend() -> &'static str {
    selected::NAME
}
