//! x86-64 backends: SSSE3 (and AVX2 encoding of the same kernels) and BMI2;
//! the bulk kernels (`avx2`: SSSE3/AVX2 decoders, `ssse3_encode`: the
//! SSSE3/AVX2 encoder, `avx512`).

pub(crate) mod avx2;
pub(crate) mod avx512;
pub mod bmi2;
pub mod ssse3;
pub(crate) mod ssse3_encode;

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
