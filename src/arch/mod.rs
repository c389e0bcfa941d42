//! Every kernel, one backend per file, in the layout of memchr's `arch/`:
//! the folder tree is the dispatch tree. Nothing here calls the public API
//! (the `bulk`, `decode` and `encode` modules above it); kernels use only
//! each other and the building blocks below them (the error types, the
//! `VarInt` trait and the format's constants).
//!
//! ```text
//! arch/
//!   window.rs          the 16-byte window of the single-value kernels
//!   selected.rs        the single-value API's compile-time kernel choice (and
//!                      the 64-bit length sum's)
//!   group_encode.rs    the loop and table the SSSE3 and NEON bulk encoders share
//!   scalar/            portable: the reference every backend is tested against
//!     single.rs          decode / decode_unchecked / encode of one value
//!     decode_slice.rs    bulk decoder (terminator bitmaps, word steps)
//!     encode_slice.rs    bulk encoder (the single-value encoder in a loop)
//!     sizes.rs           count_varints, encoded_len_sum
//!     tail.rs            the value-by-value tail every bulk decoder ends with
//!   x86_64/
//!     bmi1.rs, bmi2.rs   single-value BMI1 helpers and the PEXT/PDEP kernels
//!     sse2.rs            the summed lengths of 64-bit values (baseline: no dispatch)
//!     grid_decode/       the fixed-grid decoder shared by SSSE3 and AVX2 (mod.rs),
//!                        its geometry and tables (tables.rs)
//!     ssse3/             single.rs, decode_slice.rs, encode_slice.rs
//!     avx2/              decode_slice.rs, encode_slice.rs, sizes.rs
//!     avx512/            decode_slice.rs, encode_slice.rs, sizes.rs
//!   aarch64/
//!     neon/              single.rs, decode_slice.rs, encode_slice.rs
//! ```
//!
//! Single-value kernels share the function names `decode`,
//! `decode_unchecked` and `encode` over a 16-byte window:
//!
//! * [`scalar`]: the reference; portable integer code without `unsafe`
//!   (its bulk decoder, `scalar/decode_slice.rs`, has some: SSE2 bitmaps,
//!   windows read in place).
//! * `x86_64::ssse3`: one 16-byte vector per varint (`pmovmskb` for the
//!   length, `pmaddubsw`/`pmaddwd` to merge the 7-bit groups).
//! * `x86_64::bmi2`: the scalar control flow with `PEXT`/`PDEP`.
//! * `aarch64::neon`: NEON, one 16-byte vector per varint (not selected:
//!   the scalar kernel is shorter on ARM cores; see `aarch64`).
//!
//! The single-value API picks one at **compile time** (`selected`), because
//! an indirect call would cost more than the work. The per-backend types
//! ([`Scalar`], `x86_64::{Ssse3, Bmi2}`, `aarch64::Neon`) make every backend
//! callable from tests and benchmarks whatever the build's choice; their
//! `new()` checks the running CPU.
//!
//! Bulk kernels share the names `decode_slice`, `encode_slice` (or
//! `encode_slice_into`), `count_varints` and `encoded_len_sum`; the bulk
//! API picks one at run time, once (`Backend`, [`detected_backend`](crate::detected_backend)).

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
pub mod aarch64;
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_endian = "little")
))]
pub(crate) mod group_encode;
pub mod scalar;
pub(crate) mod selected;
pub(crate) mod window;
#[cfg(target_arch = "x86_64")]
pub mod x86_64;

pub use selected::single_value_backend;

/// Views initialized slots as possibly uninitialized ones, for the bulk
/// decoders and encoders, which write only initialized values.
pub(crate) fn as_uninit<T>(out: &mut [T]) -> &mut [core::mem::MaybeUninit<T>] {
    // Every decoder and encoder writes only initialized values
    // (`MaybeUninit::write` or stores of computed values), so the caller's
    // `&mut [T]` stays initialized.
    // SAFETY: `MaybeUninit<T>` has the layout of `T`; see above.
    unsafe { core::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), out.len()) }
}

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
            pub fn decode<T: $crate::varint::VarInt>(
                self,
                input: &[u8],
            ) -> Result<(T, usize), $crate::error::DecodeError> {
                use $kernels as kernels;
                // SAFETY: `self` exists only if `new()` found the CPU features.
                $crate::arch::window::decode_with(input, |window| unsafe { kernels::decode(window) })
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
            pub unsafe fn decode_unchecked<T: $crate::varint::VarInt>(self, ptr: *const u8) -> (T, usize) {
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
            #[must_use]
            pub fn encode<T: $crate::varint::VarInt>(self, value: T) -> ([u8; 16], u8) {
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
            pub fn encode_to_slice<T: $crate::varint::VarInt>(self, value: T, out: &mut [u8]) -> usize {
                use $kernels as kernels;
                // SAFETY: `self` exists only if `new()` found the CPU features.
                $crate::arch::window::encode_to_slice_with(out, |window| unsafe {
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
    use crate::error::DecodeError;
    use crate::varint::VarInt;

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
