//! Declares the crate's cfgs, probes the compiler's version and, where the
//! build can know it, judges the target CPU's PDEP/PEXT speed for the
//! single-value kernels (`src/arch/selected.rs`).
//!
//! Emits `varint_turbo_avx512` (compile the AVX-512 backend,
//! `src/arch/x86_64/avx512/`) when `$RUSTC --version` says 1.89 or later:
//! the AVX-512 intrinsics and target features are stable since 1.89. The
//! crate's MSRV is 1.85; older compilers build everything else, and
//! `Backend::Avx512Vbmi2` is then never supported. A nightly or dev build
//! of 1.89 counts as 1.88 (the early 1.89 nightlies predate the
//! stabilization); beta 1.89 counts as 1.89. If the version cannot be read,
//! the backend is left out (the crate still builds).
//!
//! Emits `varint_turbo_naked` from 1.88 (naked functions are stable; the
//! same rule for nightlies): the x86-64 single-value decoders then call
//! their routine in assembly (`src/arch/x86_64/longer_call.rs`); older
//! compilers build the portable path.
//!
//! On PDEP/PEXT it emits
//!
//! * `varint_turbo_slow_pdep` (keep BMI2 `PDEP`/`PEXT` out of the
//!   single-value functions): `-C target-cpu=znver1` or `znver2` in the
//!   rustflags, or a build for the build machine (`-C target-cpu=native`,
//!   or feature `native-optimizations`) whose CPUID says AMD family 0x17
//!   (Zen, Zen+, Zen 2) or Hygon family 0x18;
//! * `varint_turbo_fast_pdep`: a build for the build machine whose CPUID
//!   says otherwise (then a `bmi2` build runs `PEXT`/`PDEP` without a
//!   run-time check).
//!
//! Neither (a `bmi2` build for an unknown CPU, e.g. `-C
//! target-cpu=x86-64-v3`): the single-value functions ask
//! `varint_turbo::pdep_is_fast()` at run time, which is this rule's twin.
//! The build machine's CPUID is read only when the target's architecture
//! is the build machine's (x86-64; the ABI and libc may differ, as for a
//! `x86_64-unknown-linux-musl` build on a gnu host).

pub fn main() {
    println!("cargo:rustc-check-cfg=cfg(varint_turbo_slow_pdep)");
    println!("cargo:rustc-check-cfg=cfg(varint_turbo_fast_pdep)");
    println!("cargo:rustc-check-cfg=cfg(varint_turbo_force_scalar)");
    println!("cargo:rustc-check-cfg=cfg(varint_turbo_avx512)");
    println!("cargo:rustc-check-cfg=cfg(varint_turbo_naked)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");

    let minor = rustc_minor_version();
    if minor.is_some_and(|minor| minor >= 89) {
        println!("cargo:rustc-cfg=varint_turbo_avx512");
    }
    if minor.is_some_and(|minor| minor >= 88) {
        println!("cargo:rustc-cfg=varint_turbo_naked");
    }

    let rustflags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    // The last `target-cpu` wins, as in rustc (`-C target-cpu=X` comes as
    // two flags, `-Ctarget-cpu=X` as one).
    let target_cpu = rustflags
        .split('\x1f')
        .filter_map(|flag| {
            flag.split_once("target-cpu=")
                .map(|(_, cpu)| cpu.to_owned())
        })
        .next_back();
    let for_build_machine = target_cpu.as_deref() == Some("native")
        || std::env::var_os("CARGO_FEATURE_NATIVE_OPTIMIZATIONS").is_some();
    let host_arch = std::env::var("HOST")
        .ok()
        .and_then(|host| host.split('-').next().map(str::to_owned));
    let same_arch = std::env::var("CARGO_CFG_TARGET_ARCH").ok() == host_arch;

    let slow = match target_cpu.as_deref() {
        Some("znver1" | "znver2") => Some(true),
        _ if for_build_machine && same_arch => Some(build_machine_pdep_is_microcoded()),
        _ => None,
    };
    match slow {
        Some(true) => {
            println!("cargo:warning=varint-turbo: PDEP/PEXT are microcoded on the target CPU; not using them");
            println!("cargo:rustc-cfg=varint_turbo_slow_pdep");
        }
        Some(false) => println!("cargo:rustc-cfg=varint_turbo_fast_pdep"),
        None => {}
    }
}

/// The stable minor version of the compiler cargo builds the crate with
/// (`$RUSTC`, which cargo sets for build scripts): 85 for
/// `rustc 1.85.0 (4d91de4e4 2025-02-17)`; one less for a nightly or dev
/// build (`rustc 1.89.0-nightly (...)` gives 88); `None` if it cannot be run
/// or read.
fn rustc_minor_version() -> Option<u32> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()?;
    parse_rustc_minor(std::str::from_utf8(&output.stdout).ok()?)
}

pub(crate) fn parse_rustc_minor(version: &str) -> Option<u32> {
    // "rustc 1.85.0 (...)", "rustc 1.89.0-beta.3 (...)", "rustc 1.90.0-nightly (...)".
    let release = version.strip_prefix("rustc ")?.split_whitespace().next()?;
    let (numbers, pre) = match release.split_once('-') {
        Some((numbers, pre)) => (numbers, Some(pre)),
        None => (release, None),
    };
    let mut parts = numbers.split('.');
    let major: u32 = parts.next()?.parse().ok()?;
    let minor: u32 = parts.next()?.parse().ok()?;
    if major != 1 {
        return (major > 1).then_some(u32::MAX);
    }
    let unreleased = pre.is_some_and(|pre| pre.starts_with("nightly") || pre.starts_with("dev"));
    Some(if unreleased {
        minor.saturating_sub(1)
    } else {
        minor
    })
}

// `__cpuid` is a safe function in recent Rust releases and `unsafe` in older
// ones; scripts/msrv.sh and scripts/cross-s390x.sh build this script with
// rustc 1.85 (the MSRV).
#[allow(unused_unsafe)]
#[cfg(target_arch = "x86_64")]
fn build_machine_pdep_is_microcoded() -> bool {
    use std::arch::x86_64::__cpuid;
    // SAFETY: CPUID leaves 0 and 1 exist on every x86-64 CPU.
    let (leaf0, leaf1) = unsafe { (__cpuid(0), __cpuid(1)) };
    let mut vendor = [0u8; 12];
    vendor[..4].copy_from_slice(&leaf0.ebx.to_le_bytes());
    vendor[4..8].copy_from_slice(&leaf0.edx.to_le_bytes());
    vendor[8..].copy_from_slice(&leaf0.ecx.to_le_bytes());
    let eax = leaf1.eax;
    let base = (eax >> 8) & 0xf;
    let family = if base == 0xf {
        base + ((eax >> 20) & 0xff)
    } else {
        base
    };
    // Same rule as src/cpu.rs `pdep_is_microcoded` (a unit test checks this line).
    matches!(
        (&vendor, family),
        (b"AuthenticAMD", 0x17) | (b"HygonGenuine", 0x18)
    )
}

#[cfg(not(target_arch = "x86_64"))]
fn build_machine_pdep_is_microcoded() -> bool {
    false
}
