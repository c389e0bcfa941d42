//! The CPU features the backends need, read independently of the crate: on
//! x86-64 straight from `CPUID` (and `XGETBV` for the operating system's
//! AVX and AVX-512 register state), not through `is_x86_feature_detected!`
//! (the crate's own detection); on aarch64 Linux from `AT_HWCAP`. From them
//! [`required_bulk`] and [`required_single`] say which backends the crate
//! must offer here, so a backend that vanishes (or appears) fails the tests
//! whatever the environment.

use varint_turbo::Backend as Bulk;

/// The features of the running CPU (and OS) that some backend needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    pub sse2: bool,
    pub ssse3: bool,
    pub popcnt: bool,
    pub bmi1: bool,
    pub bmi2: bool,
    pub lzcnt: bool,
    /// CPUID's AVX2 bit and the OS saves the YMM state (XCR0 bits 1, 2).
    pub avx2: bool,
    /// The AVX-512 bits below also need the OS to save the opmask and ZMM
    /// state (XCR0 bits 5, 6, 7, besides 1 and 2).
    pub avx512f: bool,
    pub avx512bw: bool,
    pub avx512vl: bool,
    pub avx512cd: bool,
    pub avx512vbmi: bool,
    pub avx512vbmi2: bool,
    /// Advanced SIMD on aarch64.
    pub neon: bool,
}

fn bit(register: u32, n: u32) -> bool {
    register >> n & 1 == 1
}

impl Features {
    /// Reads the running CPU.
    #[cfg(target_arch = "x86_64")]
    // `__cpuid`/`__cpuid_count` are safe functions since Rust 1.89 and
    // `unsafe` before.
    #[allow(unused_unsafe)]
    pub fn read() -> Features {
        use std::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv, CpuidResult};
        let none = CpuidResult {
            eax: 0,
            ebx: 0,
            ecx: 0,
            edx: 0,
        };
        // SAFETY: every x86-64 CPU has CPUID; leaves 0 and 0x8000_0000 report
        // the highest basic and extended leaves, and no leaf above them is
        // read.
        let (leaf1, leaf7, ext1) = unsafe {
            let max_leaf = __cpuid(0).eax;
            let max_ext = __cpuid(0x8000_0000).eax;
            (
                __cpuid(1),
                if max_leaf >= 7 {
                    __cpuid_count(7, 0)
                } else {
                    none
                },
                if max_ext >= 0x8000_0001 {
                    __cpuid(0x8000_0001)
                } else {
                    none
                },
            )
        };
        // CPUID.1:ECX.OSXSAVE: the OS enabled XSAVE, so XGETBV exists.
        let xcr0 = if bit(leaf1.ecx, 27) {
            // SAFETY: OSXSAVE is set, so the CPU has XSAVE/XGETBV and the OS
            // enabled them; XCR0 (register 0) always exists then.
            unsafe { _xgetbv(0) }
        } else {
            0
        };
        let os_avx = xcr0 & 0b110 == 0b110;
        let os_avx512 = os_avx && xcr0 & 0b1110_0000 == 0b1110_0000;
        Features {
            sse2: bit(leaf1.edx, 26),
            ssse3: bit(leaf1.ecx, 9),
            popcnt: bit(leaf1.ecx, 23),
            bmi1: bit(leaf7.ebx, 3),
            bmi2: bit(leaf7.ebx, 8),
            lzcnt: bit(ext1.ecx, 5),
            avx2: os_avx && bit(leaf7.ebx, 5),
            avx512f: os_avx512 && bit(leaf7.ebx, 16),
            avx512cd: os_avx512 && bit(leaf7.ebx, 28),
            avx512bw: os_avx512 && bit(leaf7.ebx, 30),
            avx512vl: os_avx512 && bit(leaf7.ebx, 31),
            avx512vbmi: os_avx512 && bit(leaf7.ecx, 1),
            avx512vbmi2: os_avx512 && bit(leaf7.ecx, 6),
            neon: false,
        }
    }

    /// Reads the running CPU: Advanced SIMD from the kernel's `AT_HWCAP`
    /// on Linux; architecturally always there elsewhere.
    #[cfg(target_arch = "aarch64")]
    pub fn read() -> Features {
        #[cfg(target_os = "linux")]
        // SAFETY: getauxval has no preconditions; HWCAP_ASIMD is bit 1.
        let neon = unsafe { libc::getauxval(libc::AT_HWCAP) } & (1 << 1) != 0;
        #[cfg(not(target_os = "linux"))]
        let neon = true;
        Features {
            neon,
            ..Features::default()
        }
    }

    /// No backend of the crate uses anything on other architectures.
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub fn read() -> Features {
        Features::default()
    }
}

/// True if this build compiled every SIMD path out (`--cfg
/// varint_turbo_force_scalar`: the build script's cfgs reach the tests too):
/// then no backend but scalar may be offered, whatever the CPU has.
pub fn forced_scalar() -> bool {
    cfg!(varint_turbo_force_scalar)
}

/// The minor version of the rustc that compiled this test (85 for 1.85.x;
/// one less for a nightly or dev build, whose early 1.89 nightlies predate
/// the AVX-512 stabilization), read from the executable itself: rustc
/// writes `rustc version 1.NN.P[-pre] (...)` into the `.comment` section
/// of every ELF object. `None` where the executable is not a 64-bit ELF
/// file or has no such note. Independent of the build script, which probes
/// `$RUSTC --version` for the same number (`parse_rustc_minor`). Read once.
pub fn compiler_minor() -> Option<u32> {
    static MINOR: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *MINOR.get_or_init(|| {
        let exe = std::fs::read(std::env::current_exe().ok()?).ok()?;
        let comment = elf64_section(&exe, b".comment")?;
        let mut minors: Vec<u32> = comment
            .split(|&byte| byte == 0)
            .filter_map(|note| {
                let rest = note.strip_prefix(b"rustc version 1.")?;
                let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                let minor: u32 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
                // "1.NN.P-nightly" / "-dev": before the release.
                let pre = &rest[digits..];
                let unreleased = pre.windows(8).any(|w| w == b"-nightly")
                    || pre.windows(4).any(|w| w == b"-dev");
                Some(if unreleased { minor - 1 } else { minor })
            })
            .collect();
        minors.sort_unstable();
        minors.dedup();
        match minors[..] {
            [minor] => Some(minor),
            [] => None,
            _ => panic!("the executable names several rustc versions: {minors:?}"),
        }
    })
}

/// The bytes of section `name` of the 64-bit ELF file `file` (either byte
/// order), from its section headers.
fn elf64_section<'a>(file: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    // e_ident: magic, class 2 (64-bit), data 1 (little) or 2 (big endian).
    if file.get(..5)? != b"\x7fELF\x02" {
        return None;
    }
    let big = *file.get(5)? == 2;
    let int = |at: usize, len: usize| -> Option<usize> {
        let bytes = file.get(at..at + len)?;
        let fold = |value: u64, &byte: &u8| value << 8 | u64::from(byte);
        let value = if big {
            bytes.iter().fold(0, fold)
        } else {
            bytes.iter().rev().fold(0, fold)
        };
        usize::try_from(value).ok()
    };
    let (table, entry, count, names) = (int(0x28, 8)?, int(0x3a, 2)?, int(0x3c, 2)?, int(0x3e, 2)?);
    let header = |i: usize| table + i * entry;
    let name_table = int(header(names) + 0x18, 8)?;
    (0..count).find_map(|i| {
        let at = name_table + int(header(i), 4)?;
        if file.get(at..at + name.len() + 1)? != [name, b"\0"].concat() {
            return None;
        }
        let (offset, size) = (int(header(i) + 0x18, 8)?, int(header(i) + 0x20, 8)?);
        file.get(offset..offset + size)
    })
}

/// Whether this build has the AVX-512 backend, as the compiler version
/// says (rustc 1.89 or later: its intrinsics are stable since 1.89); where
/// the version cannot be read, as the build script's cfg says.
pub fn avx512_compiled() -> bool {
    match compiler_minor() {
        Some(minor) => minor >= 89,
        None => cfg!(varint_turbo_avx512),
    }
}

/// Whether the crate must offer bulk backend `backend` on a CPU with
/// `f`, in this build.
pub fn bulk_required(backend: Bulk, f: &Features) -> bool {
    let simd = !forced_scalar();
    match backend {
        Bulk::Scalar => true,
        Bulk::Ssse3 => simd && f.ssse3 && f.popcnt,
        Bulk::Avx2 => simd && f.avx2 && f.bmi1 && f.bmi2 && f.lzcnt && f.popcnt,
        // Compiled in only by rustc 1.89 and later: judged from the
        // compiler's version, not from the build script's cfg
        // (`varint_turbo_avx512`), so that a build script that stopped
        // emitting it fails here on AVX-512 CPUs.
        Bulk::Avx512Vbmi2 => {
            simd && avx512_compiled()
                && f.avx2
                && f.avx512f
                && f.avx512bw
                && f.avx512vl
                && f.avx512cd
                && f.avx512vbmi
                && f.avx512vbmi2
                && f.bmi1
                && f.bmi2
                && f.lzcnt
                && f.popcnt
        }
        // The NEON kernels exist for little-endian aarch64 only.
        Bulk::Neon => simd && cfg!(target_endian = "little") && f.neon,
        #[allow(unreachable_patterns)]
        other => {
            panic!("bulk backend {other} is new: add its requirements to tests/common/cpuid.rs")
        }
    }
}

/// The bulk backends the crate must report supported here, in
/// `Backend::ALL` order (slowest first); every other one must be
/// unsupported.
pub fn required_bulk() -> Vec<Bulk> {
    let f = Features::read();
    Bulk::ALL
        .into_iter()
        .filter(|&b| bulk_required(b, &f))
        .collect()
}

/// The single-value backend types (`arch::Scalar`, `arch::x86_64::Ssse3`,
/// `arch::x86_64::Bmi2`, `arch::aarch64::Neon`) whose `new()` must return
/// `Some` here, by name.
pub fn required_single() -> Vec<&'static str> {
    let f = Features::read();
    let simd = !forced_scalar();
    let mut names = vec!["scalar"];
    if cfg!(target_arch = "x86_64") && simd {
        if f.ssse3 {
            names.push("ssse3");
        }
        if f.bmi2 {
            names.push("bmi2");
        }
    }
    if cfg!(all(target_arch = "aarch64", target_endian = "little")) && simd && f.neon {
        names.push("neon");
    }
    names
}
