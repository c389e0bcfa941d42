//! x86-64 backends, one folder or file per instruction set:
//!
//! * `bmi1`, [`bmi2`]: single-value helpers and kernels (`andn`/`tzcnt`,
//!   `PEXT`/`PDEP`) on the scalar control flow;
//! * [`ssse3`]: the single-value SSSE3 kernels, and the SSSE3 bulk decoder
//!   and encoder;
//! * `lzcnt`: `encoded_len` on the `LZCNT` encoding where the build does
//!   not enable `lzcnt` (right whether the CPU runs it as `LZCNT` or `BSR`);
//! * `sse2`: the summed encoded lengths of 64-bit values (the x86-64
//!   baseline, so chosen at compile time);
//! * `avx2`: the bulk decoder, encoder and sizing kernels of
//!   [`Backend::Avx2`](crate::Backend::Avx2);
//! * `avx512`: those of [`Backend::Avx512Vbmi2`](crate::Backend::Avx512Vbmi2),
//!   compiled only with rustc 1.89 or later (cfg `varint_turbo_avx512`, set
//!   by the build script: the AVX-512 intrinsics are stable since 1.89);
//! * `grid_decode`: the fixed-grid decoder body shared by the SSSE3 and
//!   AVX2 bulk decoders, which instantiate it for their register width.
//!
//! Every `#[target_feature]` function is a kernel's outermost entry point;
//! what they share is `#[inline(always)]`.

pub(crate) mod avx2;
// Compiled only by rustc 1.89 and later (see build.rs), where its
// intrinsics are stable: the MSRV (1.85) check does not apply.
#[cfg(varint_turbo_avx512)]
#[allow(clippy::incompatible_msrv)]
pub(crate) mod avx512;
pub(crate) mod bmi1;
pub mod bmi2;
pub(crate) mod grid_decode;
// Naked functions are stable since 1.88 (build.rs sets the cfg); 64-bit
// pointers only (not x32: `asm!` leaves a 32-bit input's upper bits
// undefined).
#[cfg(all(
    varint_turbo_naked,
    target_pointer_width = "64",
    not(varint_turbo_force_scalar)
))]
#[allow(clippy::incompatible_msrv)]
pub(crate) mod longer_call;
#[cfg(all(not(target_feature = "lzcnt"), not(varint_turbo_force_scalar)))]
pub(crate) mod lzcnt;
pub(crate) mod sse2;
pub mod ssse3;

/// True if the running CPU has `feature`: detected at run time with `std`,
/// otherwise known only from the build's target features.
macro_rules! cpu_has {
    ($feature:tt) => {{
        #[cfg(all(feature = "std", not(varint_turbo_force_scalar)))]
        {
            std::is_x86_feature_detected!($feature)
        }
        #[cfg(all(not(feature = "std"), not(varint_turbo_force_scalar)))]
        {
            cfg!(target_feature = $feature)
        }
        #[cfg(varint_turbo_force_scalar)]
        {
            false
        }
    }};
}

crate::arch::backend_type!(
    /// The SSSE3 backend: one 16-byte vector per varint. Available when the
    /// CPU has SSSE3 (every x86-64 CPU since 2006 except first-generation
    /// AMD64 and some Atoms before Bonnell).
    ///
    /// ```
    /// if let Some(ssse3) = varint_turbo::arch::x86_64::Ssse3::new() {
    ///     assert_eq!(ssse3.decode::<u32>(&[0xac, 0x02]), Ok((300, 2)));
    /// }
    /// ```
    Ssse3,
    ssse3,
    enabled: cpu_has!("ssse3")
);

crate::arch::backend_type!(
    /// The BMI2 backend (`PEXT` decode, `PDEP` encode). Available when the
    /// CPU has BMI2, even where [`pdep_is_fast`](crate::pdep_is_fast) is
    /// false: it is correct there, only slow.
    ///
    /// ```
    /// if let Some(bmi2) = varint_turbo::arch::x86_64::Bmi2::new() {
    ///     assert_eq!(bmi2.decode::<u64>(&[0x96, 0x01]), Ok((150, 2)));
    /// }
    /// ```
    Bmi2,
    bmi2,
    enabled: cpu_has!("bmi2")
);
