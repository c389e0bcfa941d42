//! Declares the crate's cfgs and, where the build can know it, judges the
//! target CPU's PDEP/PEXT speed for the single-value kernels
//! (`src/arch/selected.rs`):
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

fn main() {
    println!("cargo:rustc-check-cfg=cfg(varint_turbo_slow_pdep)");
    println!("cargo:rustc-check-cfg=cfg(varint_turbo_fast_pdep)");
    println!("cargo:rustc-check-cfg=cfg(varint_turbo_force_scalar)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");

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
