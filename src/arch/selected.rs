//! The single-value API's choice of kernel (and of the delta decoders'
//! running sum, `prefix_sum`), made at compile time wherever
//! the build can know the answer, because an indirect call would cost more
//! than the work:
//!
//! * **BMI2** (`PEXT`/`PDEP`) when the build enables `bmi2` and the build
//!   script found `PDEP` fast on the build machine (`varint_turbo_fast_pdep`:
//!   `-C target-cpu=native`, or feature `native-optimizations`, on an Intel
//!   CPU since Haswell or an AMD one since Zen 3). The feature enables no
//!   `bmi2`: without a flag that does (`native`, `x86-64-v3`, `+bmi2`) the
//!   build is scalar, as in the next item.
//! * **scalar** where `bmi2` is off, or where the build script knows
//!   `PDEP`/`PEXT` are microcoded (`varint_turbo_slow_pdep`: `-C
//!   target-cpu=znver1`/`znver2`, or `native` on an AMD Zen 1/2 or Hygon
//!   build machine), or with `--cfg varint_turbo_force_scalar`.
//! * **either, at run time** where `bmi2` is on but the CPU is unknown:
//!   `-C target-cpu=x86-64-v3` (distributions, cloud images), a named CPU,
//!   `+bmi2`. Zen 1/2 (the EPYC Rome fleets) have BMI2 with microcoded
//!   `PDEP`/`PEXT`, tens to hundreds of cycles each, so such builds ask
//!   [`pdep_is_fast`](crate::pdep_is_fast) (one relaxed load of a cached
//!   flag and a predicted branch per call; BENCHMARKS.md has its cost) and
//!   run the scalar kernel where it says no.
//!
//! The SSSE3 kernels are not selected for single values: on every CPU
//! measured (see README) the scalar word-at-a-time code is at least as
//! fast, because the vector path's latency (load, `pmovmskb`, two
//! multiply-adds, two moves back) exceeds three shift-and-mask steps.

use crate::arch::scalar;

/// How this build chose, for [`single_value_backend`] and the tests.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Choice {
    Scalar,
    Bmi2,
    AtRunTime,
}

const CHOICE: Choice = if cfg!(any(
    not(target_arch = "x86_64"),
    not(target_feature = "bmi2"),
    varint_turbo_slow_pdep,
    varint_turbo_force_scalar
)) {
    Choice::Scalar
} else if cfg!(varint_turbo_fast_pdep) {
    Choice::Bmi2
} else {
    Choice::AtRunTime
};

/// Whether the BMI2 kernels run: a constant, or the cached run-time answer.
#[inline(always)]
pub(crate) fn pext_is_fast() -> bool {
    match CHOICE {
        Choice::Scalar => false,
        Choice::Bmi2 => true,
        Choice::AtRunTime => crate::cpu::pdep_is_fast_cached(),
    }
}

cfg_if::cfg_if! {
    if #[cfg(all(
        target_arch = "x86_64",
        target_feature = "bmi2",
        not(varint_turbo_slow_pdep),
        not(varint_turbo_force_scalar)
    ))] {
        use crate::arch::x86_64::bmi2;
        use crate::error::DecodeError;
        use crate::varint::VarInt;

        /// The portable single-value path's kernel and
        /// `BufVarint::get_varint`'s (unused in x86-64 builds without the
        /// `bytes` feature, which decode through
        /// `arch::x86_64::longer_call`).
        #[allow(dead_code)]
        #[inline(always)]
        pub fn decode<T: VarInt>(window: &[u8; 16]) -> Result<(T, usize), DecodeError> {
            if pext_is_fast() {
                // SAFETY: BMI2 is enabled for the whole build (cfg above).
                unsafe { bmi2::decode(window) }
            } else {
                scalar::decode(window)
            }
        }
        #[inline(always)]
        pub fn decode_unchecked<T: VarInt>(window: &[u8; 16]) -> (T, usize) {
            if pext_is_fast() {
                // SAFETY: BMI2 is enabled for the whole build (cfg above).
                unsafe { bmi2::decode_unchecked(window) }
            } else {
                scalar::decode_unchecked(window)
            }
        }
        #[inline(always)]
        pub fn encode<T: VarInt>(value: T, out: &mut [u8; 16]) -> usize {
            if pext_is_fast() {
                // SAFETY: BMI2 is enabled for the whole build (cfg above).
                unsafe { bmi2::encode(value, out) }
            } else {
                scalar::encode(value, out)
            }
        }
        #[inline(always)]
        pub fn encode_words<T: VarInt>(value: T) -> (u64, u16, usize) {
            if pext_is_fast() {
                // SAFETY: BMI2 is enabled for the whole build (cfg above).
                unsafe { bmi2::encode_words(value) }
            } else {
                scalar::single::encode_words(value)
            }
        }
        /// The bits of `x` under `mask` (the payload bits of its bytes
        /// `0..n`: `mask` must be `PAYLOAD_BITS` with whole bytes cleared
        /// from the top), packed: one `PEXT` if `PEXT` (which the caller
        /// took from [`pext_is_fast`]), else the portable shift-and-mask
        /// steps. The scalar bulk decoder's word step uses it, so it packs
        /// as the single-value path does.
        #[inline(always)]
        pub fn pack_masked<const PEXT: bool>(x: u64, mask: u64) -> u64 {
            if PEXT {
                // SAFETY: BMI2 is enabled for the whole build (cfg above).
                unsafe { core::arch::x86_64::_pext_u64(x, mask) }
            } else {
                scalar::single::pack_7bit_groups(x & mask)
            }
        }
    } else {
        // `decode` serves the portable single-value path and
        // `BufVarint::get_varint`: an x86-64 build without the `bytes`
        // feature decodes through `arch::x86_64::longer_call` only.
        #[allow(unused_imports)]
        pub use crate::arch::scalar::decode;
        pub use crate::arch::scalar::{decode_unchecked, encode};
        pub(crate) use crate::arch::scalar::single::encode_words;

        /// The bits of `x` under `mask` (the payload bits of its bytes
        /// `0..n`: `mask` must be `PAYLOAD_BITS` with whole bytes cleared
        /// from the top), packed with the portable shift-and-mask steps
        /// (this build has no `PEXT`, so `PEXT` is always false).
        #[inline(always)]
        pub fn pack_masked<const PEXT: bool>(x: u64, mask: u64) -> u64 {
            scalar::single::pack_7bit_groups(x & mask)
        }
    }
}

cfg_if::cfg_if! {
    if #[cfg(all(target_arch = "x86_64", target_feature = "avx512cd"))] {
        /// The summed encoded lengths of `wire(value)` for 64-bit wire
        /// values, in a build whose target has AVX-512 CD: the portable
        /// loop, which the compiler vectorizes with `vplzcntq` (as it does
        /// prost's own). The SSE2 kernel of other x86-64 builds was 10x
        /// slower than that loop on 1,000 packed `uint64`s (the prost
        /// harness, `-C target-cpu=native`, Zen 5 host, 2026-11-27).
        pub(crate) use crate::arch::scalar::sizes::encoded_len_64_sum_portable as encoded_len_64_sum;
    } else if #[cfg(all(target_arch = "x86_64", not(varint_turbo_force_scalar)))] {
        /// The summed encoded lengths of `wire(value)` for 64-bit wire
        /// values (packed `int64`/`uint64`/`sint64` fields): in 32-bit SSE2
        /// lanes, which every x86-64 CPU has.
        #[inline(always)]
        pub(crate) fn encoded_len_64_sum<V: Copy>(values: &[V], wire: impl Fn(V) -> u64) -> usize {
            crate::arch::x86_64::sse2::encoded_len_64_sum(values, wire)
        }
    } else {
        pub(crate) use crate::arch::scalar::sizes::encoded_len_64_sum_portable as encoded_len_64_sum;
    }
}

cfg_if::cfg_if! {
    if #[cfg(all(target_arch = "x86_64", not(varint_turbo_force_scalar)))] {
        /// The running sum of the delta decoders, in SSE2 lanes (every
        /// x86-64 CPU has them, so no run-time check).
        pub(crate) use crate::arch::x86_64::sse2::prefix_sum;
    } else {
        /// The running sum of the delta decoders: the portable one (on
        /// aarch64 too: no NEON form has been tested on an aarch64 host).
        pub(crate) use crate::arch::scalar::prefix_sum::prefix_sum;
    }
}

cfg_if::cfg_if! {
    if #[cfg(all(
        target_arch = "x86_64",
        not(target_feature = "lzcnt"),
        not(varint_turbo_force_scalar)
    ))] {
        /// Bytes of the varint of `value`: the formula on the `LZCNT`
        /// encoding, which needs no run-time check
        /// (`arch::x86_64::lzcnt`), instead of the `BSR` it compiles to.
        pub(crate) use crate::arch::x86_64::lzcnt::encoded_len;
    } else {
        /// Bytes of the varint of `value`: the portable formula, whose bit
        /// scan is one instruction here (`lzcnt`, `clz`, ...), and which the
        /// compiler vectorizes in loops where the target has a vector form.
        pub(crate) use crate::arch::scalar::encoded_len;
    }
}

/// The name of the kernel the single-value functions ([`decode`](crate::decode),
/// [`encode`](crate::encode), ...) run on this CPU: `"scalar"` or `"bmi2"`.
/// Fixed at compile time except in builds with BMI2 for an unknown CPU
/// (e.g. `-C target-cpu=x86-64-v3`), which take `"bmi2"` only where
/// [`pdep_is_fast`](crate::pdep_is_fast).
///
/// ```
/// println!("single-value backend: {}", varint_turbo::single_value_backend());
/// ```
#[must_use]
pub fn single_value_backend() -> &'static str {
    if pext_is_fast() {
        "bmi2"
    } else {
        "scalar"
    }
}
