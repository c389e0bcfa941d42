//! The census: every backend the crate has, bulk and single-value, against
//! the CPU's features read independently (raw `CPUID`/`XGETBV` on x86-64,
//! `AT_HWCAP` on aarch64 Linux: `common::cpuid`). A backend the CPU can run
//! but the crate reports unsupported (so every other test would skip it
//! silently), or one it reports supported on a CPU without its features,
//! fails this test, with or without the `VARINT_TURBO_EXPECT_*` variables.
//! With `--cfg varint_turbo_force_scalar` every SIMD backend must be
//! unsupported.

use crate::common;

use std::io::Write;

use common::cpuid::{self, Features};
use varint_turbo::Backend as Bulk;

/// Past libtest's capture, so the census shows in every `cargo test` log.
fn report(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The CPUID reader reads something real: every x86-64 CPU has SSE2 (a
/// reader that returned all zeros would make the census vacuous on the
/// scalar-only side).
#[test]
fn cpuid_reader_sees_the_baseline() {
    let f = Features::read();
    report(&format!("census: CPU features {f:?}"));
    #[cfg(target_arch = "x86_64")]
    assert!(
        f.sse2,
        "raw CPUID says no SSE2 on x86-64: the reader is broken"
    );
    #[cfg(target_arch = "aarch64")]
    assert!(f.neon, "AT_HWCAP says no Advanced SIMD on aarch64");
    // Features imply one another as on every real CPU.
    if f.avx512f {
        assert!(f.avx2, "AVX-512F without AVX2 (XCR0 read wrong?)");
    }
    if f.avx2 {
        assert!(f.ssse3 && f.popcnt, "AVX2 without SSSE3/POPCNT");
    }
}

#[test]
fn every_bulk_backend_matches_cpuid() {
    let f = Features::read();
    let mut mismatches = Vec::new();
    for backend in Bulk::ALL {
        let required = cpuid::bulk_required(backend, &f);
        let supported = backend.is_supported();
        report(&format!(
            "census: bulk {backend}: required (CPUID, this build) {required}, is_supported() {supported}"
        ));
        if required != supported {
            mismatches.push(format!(
                "bulk backend {backend}: CPUID says {required}, is_supported() says {supported}"
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{mismatches:#?} (features {f:?}, force_scalar {})",
        cpuid::forced_scalar()
    );
    assert_eq!(
        Bulk::ALL.len(),
        5,
        "a new bulk backend: add it to the census"
    );
}

/// The AVX-512 backend is compiled in exactly when the compiler is rustc
/// 1.89 or later: the version the executable's `.comment` note names
/// (`cpuid::compiler_minor`) against the build script's cfg, on every
/// CPU (a build script whose probe regressed would leave the backend out
/// silently, and its tests would skip).
#[test]
fn avx512_backend_is_compiled_from_rustc_1_89() {
    let Some(minor) = cpuid::compiler_minor() else {
        report("census: no rustc version note in this executable (not ELF?): the AVX-512 build check is skipped");
        return;
    };
    let compiled = cfg!(varint_turbo_avx512);
    report(&format!(
        "census: compiled by rustc 1.{minor} (nightly/dev counted one less): AVX-512 backend compiled in: {compiled}"
    ));
    assert_eq!(
        compiled,
        minor >= 89,
        "rustc 1.{minor}: the build script's cfg varint_turbo_avx512 is {compiled}"
    );
}

#[test]
fn detected_backend_is_the_best_supported() {
    // Backend::ALL is slowest first; the detected backend is the last one
    // the CPU calls for.
    let best = *cpuid::required_bulk()
        .last()
        .expect("scalar is always required");
    let detected = varint_turbo::detected_backend();
    report(&format!(
        "census: detected_backend() = {detected}, best by CPUID = {best}"
    ));
    assert_eq!(detected, best, "detected_backend()");
    // Cached: the same answer again.
    assert_eq!(varint_turbo::detected_backend(), best);
}

#[test]
fn every_single_value_backend_matches_cpuid() {
    let f = Features::read();
    let required = cpuid::required_single();
    let mut offered: Vec<&str> = Vec::new();
    if varint_turbo::arch::Scalar::new().is_some() {
        offered.push("scalar");
    }
    #[cfg(target_arch = "x86_64")]
    {
        if varint_turbo::arch::x86_64::Ssse3::new().is_some() {
            offered.push("ssse3");
        }
        if varint_turbo::arch::x86_64::Bmi2::new().is_some() {
            offered.push("bmi2");
        }
    }
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    if varint_turbo::arch::aarch64::Neon::new().is_some() {
        offered.push("neon");
    }
    report(&format!(
        "census: single-value backends: new() gives Some for {offered:?}, CPUID calls for {required:?}"
    ));
    assert_eq!(
        offered,
        required,
        "single-value backends vs. CPUID (features {f:?}, force_scalar {})",
        cpuid::forced_scalar()
    );
}

/// Every bulk backend that CPUID calls for runs (decode and encode of a
/// known payload), and every other one refuses to.
#[test]
fn every_required_bulk_backend_runs() {
    let payload = [0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05]; // 3, 270, 86942
    let required = cpuid::required_bulk();
    for backend in Bulk::ALL {
        let mut out = [0u32; 4];
        if !required.contains(&backend) {
            report(&format!(
                "census: {backend} is not supported here: its decode_slice must panic (message below)"
            ));
        }
        let decoded = std::panic::catch_unwind(move || {
            backend.decode_slice(&payload, &mut out).map(|r| (r, out))
        });
        if required.contains(&backend) {
            let (result, out) = decoded
                .unwrap_or_else(|_| panic!("{backend}: decode_slice panicked"))
                .unwrap_or_else(|e| panic!("{backend}: {e:?}"));
            assert_eq!(result, (3, 6), "{backend}");
            assert_eq!(out[..3], [3, 270, 86942], "{backend}");
            let mut bytes = [0u8; 16];
            assert_eq!(
                backend.encode_slice_into(&[3u32, 270, 86942], &mut bytes),
                (3, 6),
                "{backend}"
            );
            assert_eq!(bytes[..6], payload, "{backend}");
        } else {
            assert!(
                decoded.is_err(),
                "{backend} ran although the CPU does not support it"
            );
        }
    }
}
