//! Reports which backends this CPU runs and fails if one it supports was
//! skipped: the single-value backend types and the bulk backends, each
//! against the CPU's features read straight from CPUID (`common::cpuid`),
//! so the checks hold without any environment variable. A CPU-matrix script
//! (qemu models) also pins the expectations with environment variables:
//!
//! * `VARINT_TURBO_EXPECT_BACKENDS`: comma-separated, e.g.
//!   `scalar,ssse3,bmi2` (`scalar,neon` on aarch64); the set of available
//!   backends must equal it (`api` is implied and may be listed or not).
//! * `VARINT_TURBO_EXPECT_PDEP_FAST`: `true` or `false`.
//! * `VARINT_TURBO_EXPECT_SINGLE_BACKEND`: `scalar` or `bmi2`.

use crate::common;

use std::collections::BTreeSet;
use std::io::Write;

use common::*;
use varint_turbo::DecodeError;

/// Writes straight to the process's stderr, past libtest's capture, so the
/// line shows in every `cargo test` log (the CPU matrix reads it).
fn report(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The single-value backend this build must have selected, from the same
/// cfgs the crate uses. The build script's cfgs (`varint_turbo_slow_pdep`,
/// `varint_turbo_fast_pdep`, `varint_turbo_force_scalar`) reach integration
/// tests too, because cargo passes a package's build-script cfgs to all of
/// its targets. A BMI2 build without a verdict on PDEP (e.g. `-C
/// target-cpu=x86-64-v3`) chooses at run time, by `pdep_is_fast()` (which
/// the CPU matrix pins with `VARINT_TURBO_EXPECT_PDEP_FAST`).
fn compiled_single_backend() -> &'static str {
    if cfg!(any(
        not(target_arch = "x86_64"),
        not(target_feature = "bmi2"),
        varint_turbo_slow_pdep,
        varint_turbo_force_scalar
    )) {
        "scalar"
    } else if cfg!(varint_turbo_fast_pdep) || varint_turbo::pdep_is_fast() {
        "bmi2"
    } else {
        "scalar"
    }
}

fn env(name: &str) -> Option<String> {
    match std::env::var(name) {
        Ok(value) if !value.trim().is_empty() => Some(value.trim().to_string()),
        Ok(_) | Err(std::env::VarError::NotPresent) => None,
        Err(e) => panic!("{name}: {e}"),
    }
}

/// Runs a few known cases through `backend`; panics on a wrong answer.
fn exercise(backend: Backend) {
    let name = backend.name();
    assert_eq!(
        backend.decode::<u64>(&[0x96, 0x01, 0xff]),
        Ok((150, 2)),
        "{name}"
    );
    assert_eq!(backend.decode::<u32>(&[0xac, 0x02]), Ok((300, 2)), "{name}");
    assert_eq!(
        backend.decode::<u8>(&[0xac, 0x02]),
        Err(DecodeError::Overflow),
        "{name}"
    );
    assert_eq!(
        backend.decode::<u64>(&[0xac]),
        Err(DecodeError::Truncated),
        "{name}"
    );
    let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    assert_eq!(backend.decode::<u64>(&max), Ok((u64::MAX, 10)), "{name}");
    let mut window = [0u8; 16];
    window[..10].copy_from_slice(&max);
    assert_eq!(
        backend.decode_unchecked_buf::<u64>(&window),
        (u64::MAX, 10),
        "{name}"
    );
    let (bytes, len) = backend.encode(u64::MAX);
    assert_eq!(&bytes[..usize::from(len)], &max, "{name}");
    let mut out = [0u8; 10];
    assert_eq!(backend.encode_to_slice(300u32, &mut out[..2]), 2, "{name}");
    assert_eq!(&out[..2], &[0xac, 0x02], "{name}");
    assert_eq!(backend.decode_zigzag::<i64>(&[0x03]), Ok((-2, 1)), "{name}");
}

#[test]
fn every_supported_backend_ran() {
    let available = available_backends();
    let names: Vec<&str> = available.iter().map(|b| b.name()).collect();
    let expected = expected_backends();
    report(&format!(
        "varint-turbo backends: available {names:?}, required by this CPU {expected:?}, \
         pdep_is_fast() = {}, single_value_backend() = {:?} (this build's cfgs give {:?})",
        varint_turbo::pdep_is_fast(),
        varint_turbo::single_value_backend(),
        compiled_single_backend(),
    ));

    let mut ran = Vec::new();
    for &backend in &available {
        exercise(backend);
        ran.push(backend.name());
    }
    for name in &expected {
        assert!(
            ran.contains(name),
            "backend {name:?} is supported by this CPU but was not exercised (ran: {ran:?})"
        );
    }
    for name in &ran {
        assert!(
            expected.contains(name),
            "backend {name:?} ran although the CPU does not support it"
        );
        assert!(ALL_BACKEND_NAMES.contains(name));
    }
    // The shared helper the other test files use enforces the same.
    assert_eq!(backends().len(), expected.len());
    report(&format!("varint-turbo backends exercised: {ran:?}"));
}

/// The bulk side: every bulk backend the CPU's raw CPUID calls for
/// (`common::cpuid`, independent of the crate's detection) is supported and
/// decodes and encodes a known payload; no other one is supported. Holds
/// without any environment variable.
#[test]
fn every_supported_bulk_backend_ran() {
    let required = common::cpuid::required_bulk();
    let mut ran = Vec::new();
    for backend in varint_turbo::Backend::ALL {
        if !required.contains(&backend) {
            assert!(
                !backend.is_supported(),
                "bulk backend {backend} is supported although the CPU lacks its features"
            );
            continue;
        }
        assert!(
            backend.is_supported(),
            "bulk backend {backend}: the CPU has its features but is_supported() is false"
        );
        let mut out = [0u64; 4];
        assert_eq!(
            backend.decode_slice(&[0x96, 0x01, 0xac, 0x02, 0x00], &mut out),
            Ok((3, 5)),
            "{backend}"
        );
        assert_eq!(out[..3], [150, 300, 0], "{backend}");
        let mut bytes = [0u8; 8];
        assert_eq!(
            backend.encode_slice_into(&[150u64, 300, 0], &mut bytes),
            (3, 5),
            "{backend}"
        );
        assert_eq!(bytes[..5], [0x96, 0x01, 0xac, 0x02, 0x00], "{backend}");
        ran.push(backend);
    }
    assert_eq!(ran, required);
    assert_eq!(common::differential::bulk_backends(), ran);
    report(&format!("varint-turbo bulk backends exercised: {ran:?}"));
}

#[test]
fn backends_match_environment_expectation() {
    let Some(list) = env("VARINT_TURBO_EXPECT_BACKENDS") else {
        report("VARINT_TURBO_EXPECT_BACKENDS not set: not pinned");
        return;
    };
    let wanted: BTreeSet<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "api")
        .collect();
    for name in &wanted {
        assert!(
            ALL_BACKEND_NAMES.contains(name),
            "VARINT_TURBO_EXPECT_BACKENDS names an unknown backend {name:?} (known: {ALL_BACKEND_NAMES:?})"
        );
    }
    let available: BTreeSet<&str> = available_backends()
        .iter()
        .map(|b| b.name())
        .filter(|&n| n != "api")
        .collect();
    assert_eq!(
        available, wanted,
        "available backends vs. VARINT_TURBO_EXPECT_BACKENDS={list:?}"
    );
    let expected: BTreeSet<&str> = expected_backends()
        .into_iter()
        .filter(|&n| n != "api")
        .collect();
    assert_eq!(
        expected, wanted,
        "CPU feature detection vs. VARINT_TURBO_EXPECT_BACKENDS={list:?}"
    );
}

#[test]
fn pdep_is_fast_is_consistent() {
    let fast = varint_turbo::pdep_is_fast();
    // Cached: the same answer every time.
    assert_eq!(varint_turbo::pdep_is_fast(), fast);
    #[cfg(target_arch = "x86_64")]
    if !common::cpuid::Features::read().bmi2 {
        assert!(!fast, "pdep_is_fast() is true on a CPU without BMI2");
    }
    #[cfg(not(target_arch = "x86_64"))]
    assert!(!fast, "pdep_is_fast() must be false off x86-64");
    match env("VARINT_TURBO_EXPECT_PDEP_FAST").as_deref() {
        Some("true") => assert!(
            fast,
            "VARINT_TURBO_EXPECT_PDEP_FAST=true but pdep_is_fast() is false"
        ),
        Some("false") => assert!(
            !fast,
            "VARINT_TURBO_EXPECT_PDEP_FAST=false but pdep_is_fast() is true"
        ),
        Some(other) => {
            panic!("VARINT_TURBO_EXPECT_PDEP_FAST must be \"true\" or \"false\", not {other:?}")
        }
        None => report(&format!(
            "VARINT_TURBO_EXPECT_PDEP_FAST not set: pdep_is_fast() = {fast}"
        )),
    }
}

#[test]
fn single_value_backend_matches_the_build() {
    let selected = varint_turbo::single_value_backend();
    assert!(
        matches!(selected, "scalar" | "bmi2"),
        "unknown single-value backend {selected:?}"
    );
    // "bmi2" iff the build enables BMI2, neither varint_turbo_slow_pdep
    // nor varint_turbo_force_scalar is set, and PDEP is fast (known at
    // build time or asked at run time).
    assert_eq!(
        selected,
        compiled_single_backend(),
        "single_value_backend() vs. this build's cfgs"
    );
    if selected == "bmi2" {
        // A BMI2 build that got this far runs on a BMI2 CPU.
        assert!(expected_backends().contains(&"bmi2"));
    }
    match env("VARINT_TURBO_EXPECT_SINGLE_BACKEND") {
        Some(want) => {
            assert!(
                matches!(want.as_str(), "scalar" | "bmi2"),
                "VARINT_TURBO_EXPECT_SINGLE_BACKEND={want:?}: must be scalar or bmi2"
            );
            assert_eq!(
                selected, want,
                "single_value_backend() vs. VARINT_TURBO_EXPECT_SINGLE_BACKEND"
            );
        }
        None => report(&format!(
            "VARINT_TURBO_EXPECT_SINGLE_BACKEND not set: single_value_backend() = {selected:?}"
        )),
    }
}
