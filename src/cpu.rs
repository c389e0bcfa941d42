//! Run-time CPU facts that feature detection alone does not give.

#[cfg(target_arch = "x86_64")]
use core::sync::atomic::{AtomicU8, Ordering};

/// Whether this CPU has BMI2 and runs `PDEP`/`PEXT` in hardware at full
/// speed.
///
/// `false` on CPUs without BMI2, on non-x86-64 targets, and on AMD family
/// 0x17 (Zen, Zen+, Zen 2) and Hygon family 0x18 (Dhyana, a Zen derivative),
/// where the instructions are microcoded: 18 to ~290 cycles depending on the
/// number of mask bits, instead of 3 (Intel since Haswell, AMD since Zen 3).
/// The answer comes from CPUID once and is cached.
///
/// Unlike the `native-optimizations` build script, which judges the build
/// machine, this judges the machine the code runs on; the bulk API uses it.
///
/// ```
/// let fast = varint_turbo::pdep_is_fast();
/// println!("PDEP/PEXT fast on this CPU: {fast}");
/// ```
#[must_use]
pub fn pdep_is_fast() -> bool {
    pdep_is_fast_cached()
}

/// A yes/no fact about the running CPU, computed from CPUID on first use
/// and cached: 0 = not yet computed, 1 = no, 2 = yes.
#[cfg(target_arch = "x86_64")]
struct CachedFact(AtomicU8);

#[cfg(target_arch = "x86_64")]
impl CachedFact {
    const fn new() -> Self {
        Self(AtomicU8::new(0))
    }

    /// One relaxed load and a predicted compare once cached; `compute`
    /// runs only on the first call (out of line).
    #[inline(always)]
    fn get(&self, compute: fn() -> bool) -> bool {
        // One compare on the "yes" path (`load`, `cmp`, `ja`); a `match`
        // on 2, 1, _ made LLVM test 1 first and cost 8 instructions per
        // call of `pdep_is_fast_cached` (callgrind, scripts/ab-single).
        let state = self.0.load(Ordering::Relaxed);
        if state > 1 {
            true
        } else if state == 1 {
            false
        } else {
            self.first_call(compute)
        }
    }

    #[cold]
    #[inline(never)]
    fn first_call(&self, compute: fn() -> bool) -> bool {
        let yes = compute();
        self.0.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
        yes
    }
}

#[cfg(target_arch = "x86_64")]
static PDEP_FAST: CachedFact = CachedFact::new();

/// [`pdep_is_fast`] for the single-value kernels' hot path: one relaxed
/// load and a predicted compare once the answer is cached; CPUID only on
/// the first call (out of line).
#[inline(always)]
pub(crate) fn pdep_is_fast_cached() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        PDEP_FAST.get(cpuid_pdep_is_fast)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Reads CPUID: BMI2 present (leaf 7, EBX bit 8) and not a Zen 1/2-class core.
// `__cpuid` and `__cpuid_count` are safe functions in recent Rust releases
// and `unsafe` in older ones, such as 1.85 (the MSRV).
#[allow(unused_unsafe)]
#[cfg(target_arch = "x86_64")]
fn cpuid_pdep_is_fast() -> bool {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    // SAFETY: CPUID leaves 0 and 1 exist on every x86-64 CPU.
    let (leaf0, leaf1) = unsafe { (__cpuid(0), __cpuid(1)) };
    if leaf0.eax < 7 {
        return false;
    }
    // SAFETY: leaf 0 says leaf 7 exists.
    let leaf7 = unsafe { __cpuid_count(7, 0) };
    if leaf7.ebx & (1 << 8) == 0 {
        return false;
    }
    !pdep_is_microcoded(&vendor(&leaf0), display_family(leaf1.eax))
}

/// The vendor string of CPUID leaf 0 ("AuthenticAMD", "GenuineIntel", ...).
#[cfg(target_arch = "x86_64")]
fn vendor(leaf0: &core::arch::x86_64::CpuidResult) -> [u8; 12] {
    let mut vendor = [0u8; 12];
    vendor[..4].copy_from_slice(&leaf0.ebx.to_le_bytes());
    vendor[4..8].copy_from_slice(&leaf0.edx.to_le_bytes());
    vendor[8..].copy_from_slice(&leaf0.ecx.to_le_bytes());
    vendor
}

#[cfg(target_arch = "x86_64")]
static SPLITS_256: CachedFact = CachedFact::new();

/// Whether this CPU executes 256-bit AVX2 operations as two 128-bit halves
/// (AMD Zen and Zen+, Hygon Dhyana: family 0x17 models below 0x30, family
/// 0x18), where the SSSE3 bulk decoder's 1-byte runs beat the AVX2 ones
/// (BENCHMARKS.md, "Short inputs: the paths below 128 bytes"). From CPUID once,
/// then
/// cached; `false` off x86-64.
#[inline(always)]
pub(crate) fn splits_256_bit_ops() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        SPLITS_256.get(cpuid_splits_256_bit_ops)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Reads CPUID leaves 0 and 1: the vendor, family and model.
// `__cpuid` is a safe function in recent Rust releases and `unsafe` in
// older ones, such as 1.85 (the MSRV).
#[allow(unused_unsafe)]
#[cfg(target_arch = "x86_64")]
fn cpuid_splits_256_bit_ops() -> bool {
    use core::arch::x86_64::__cpuid;
    // SAFETY: CPUID leaves 0 and 1 exist on every x86-64 CPU.
    let (leaf0, leaf1) = unsafe { (__cpuid(0), __cpuid(1)) };
    has_split_256_bit_units(
        &vendor(&leaf0),
        display_family(leaf1.eax),
        display_model(leaf1.eax),
    )
}

/// AMD Zen/Zen+ (family 0x17, models 0x00-0x2F; Zen 2 starts at 0x30) and
/// Hygon Dhyana (family 0x18, a Zen derivative) have 128-bit vector units.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn has_split_256_bit_units(vendor: &[u8; 12], family: u32, model: u32) -> bool {
    matches!(
        (vendor, family),
        (b"AuthenticAMD", 0x17) if model < 0x30
    ) || (vendor == b"HygonGenuine" && family == 0x18)
}

/// The "display model" of CPUID leaf 1 EAX: base model, plus the extended
/// model shifted in when the base family is 0x6 or 0xF (Intel SDM vol. 2A,
/// CPUID; AMD APM vol. 3).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn display_model(eax: u32) -> u32 {
    let base = (eax >> 4) & 0xf;
    match (eax >> 8) & 0xf {
        0x6 | 0xf => base | ((eax >> 16) & 0xf) << 4,
        _ => base,
    }
}

/// The "display family" of CPUID leaf 1 EAX: base family, plus the extended
/// family when the base is 0xF (Intel SDM vol. 2A, CPUID; AMD APM vol. 3).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn display_family(eax: u32) -> u32 {
    let base = (eax >> 8) & 0xf;
    if base == 0xf {
        base + ((eax >> 20) & 0xff)
    } else {
        base
    }
}

/// AMD family 0x17 (Zen, Zen+, Zen 2) and Hygon family 0x18 microcode
/// PDEP/PEXT. The build script has a copy of this rule (it cannot depend on
/// the crate it builds); a unit test keeps the two in step.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn pdep_is_microcoded(vendor: &[u8; 12], family: u32) -> bool {
    matches!(
        (vendor, family),
        (b"AuthenticAMD", 0x17) | (b"HygonGenuine", 0x18)
    )
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::String;

    #[test]
    fn family_decoding() {
        // EPYC-Rome (Zen 2): family 0xF + extended 0x8 = 0x17, model 0x31.
        assert_eq!(display_family(0x0083_0f10), 0x17);
        // Zen 4: 0xF + 0xA = 0x19.
        assert_eq!(display_family(0x00a6_0f12), 0x19);
        // Intel Haswell: family 6.
        assert_eq!(display_family(0x0003_06c3), 6);
        assert!(pdep_is_microcoded(b"AuthenticAMD", 0x17));
        assert!(pdep_is_microcoded(b"HygonGenuine", 0x18));
        assert!(!pdep_is_microcoded(b"AuthenticAMD", 0x19));
        assert!(!pdep_is_microcoded(b"GenuineIntel", 6));
    }

    #[test]
    fn model_decoding_and_split_units() {
        // EPYC-Rome (Zen 2): model 0x31. EPYC 7601 (Zen 1): 0x00800f12, model 0x01.
        assert_eq!(display_model(0x0083_0f10), 0x31);
        assert_eq!(display_model(0x0080_0f12), 0x01);
        // Haswell: family 6, model 0x3c.
        assert_eq!(display_model(0x0003_06c3), 0x3c);
        assert!(has_split_256_bit_units(b"AuthenticAMD", 0x17, 0x01));
        assert!(has_split_256_bit_units(b"AuthenticAMD", 0x17, 0x08));
        assert!(has_split_256_bit_units(b"HygonGenuine", 0x18, 0x00));
        assert!(!has_split_256_bit_units(b"AuthenticAMD", 0x17, 0x31));
        assert!(!has_split_256_bit_units(b"AuthenticAMD", 0x19, 0x01));
        assert!(!has_split_256_bit_units(b"GenuineIntel", 6, 0x3c));
    }

    #[test]
    fn build_script_has_the_same_rule() {
        // Compared without whitespace, so rustfmt's line breaks don't matter.
        let squeeze = |text: &str| text.split_whitespace().collect::<String>();
        let build = squeeze(include_str!("../build.rs"));
        assert!(build.contains(&squeeze(
            r#"(b"AuthenticAMD", 0x17) | (b"HygonGenuine", 0x18)"#
        )));
    }
}
