//! Declares the crate's cfgs and, with feature `native-optimizations`,
//! judges the build machine's PDEP/PEXT speed.
//!
//! Emits `varint_turbo_slow_pdep` (keep BMI2 `PDEP`/`PEXT` out of the
//! single-value functions) when the build targets a CPU that microcodes them:
//! * `-C target-cpu=znver1` or `znver2` in the rustflags, or
//! * feature `native-optimizations` (meant with `-C target-cpu=native`) and
//!   the build machine's CPUID says AMD family 0x17 (Zen, Zen+, Zen 2) or
//!   Hygon family 0x18.
//!
//! The run-time twin of this rule is `varint_turbo::pdep_is_fast()`.

fn main() {
    println!("cargo:rustc-check-cfg=cfg(varint_turbo_slow_pdep)");
    println!("cargo:rustc-check-cfg=cfg(varint_turbo_force_scalar)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");

    let rustflags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let zen12_target = rustflags
        .split('\x1f')
        .any(|flag| flag.ends_with("target-cpu=znver1") || flag.ends_with("target-cpu=znver2"));
    let native = std::env::var_os("CARGO_FEATURE_NATIVE_OPTIMIZATIONS").is_some();
    let target_is_host = std::env::var("TARGET").ok() == std::env::var("HOST").ok();

    if zen12_target || (native && target_is_host && build_machine_pdep_is_microcoded()) {
        println!("cargo:warning=varint-turbo: PDEP/PEXT are microcoded on the target CPU; not using them");
        println!("cargo:rustc-cfg=varint_turbo_slow_pdep");
    }
}

// `__cpuid` is a safe function since Rust 1.89 and `unsafe` before; the
// big-endian check (scripts/cross-s390x.sh) builds this script with 1.85.
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
