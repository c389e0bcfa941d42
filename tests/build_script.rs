//! The build script's pure parts, compiled here as a module: its parser of
//! `rustc --version`, on which the AVX-512 backend depends (1.89 or later;
//! tests/suite/census.rs checks the outcome against the compiler that built the
//! tests).

#[path = "../build.rs"]
#[allow(dead_code)]
mod build_script;

use build_script::parse_rustc_minor;

#[test]
fn parse_rustc_minor_reads_every_release_channel() {
    for (version, minor) in [
        ("rustc 1.85.0 (4d91de4e4 2025-02-17)", Some(85)),
        (
            "rustc 1.85.0 (4d91de4e4 2025-02-17) (built from a source tarball)",
            Some(85),
        ),
        ("rustc 1.88.0 (6b00bc388 2025-06-23)", Some(88)),
        ("rustc 1.89.0 (29483883e 2025-08-04)", Some(89)),
        ("rustc 1.95.0 (59807616e 2026-04-14)", Some(95)),
        ("rustc 1.100.2 (0123456789 2030-01-01)", Some(100)),
        ("rustc 1.89.0-beta.3 (0123456789 2025-07-01)", Some(89)),
        // Nightlies and dev builds count as the release before them.
        ("rustc 1.89.0-nightly (0123456789 2025-06-01)", Some(88)),
        ("rustc 1.90.0-nightly (0123456789 2025-07-01)", Some(89)),
        ("rustc 1.89.0-dev", Some(88)),
        ("rustc 2.0.0 (0123456789 2040-01-01)", Some(u32::MAX)),
        ("rustc 0.9 (0123456789 2014-01-01)", None),
        ("", None),
        ("rustc", None),
        ("rustc x.y.z", None),
        ("cargo 1.95.0 (0123456789 2026-04-14)", None),
    ] {
        assert_eq!(parse_rustc_minor(version), minor, "{version:?}");
    }
}

/// The AVX-512 threshold as the build script applies it: 1.89 releases and
/// betas on, the 1.89 nightlies not.
#[test]
fn avx512_threshold_is_1_89() {
    let avx512 = |version: &str| parse_rustc_minor(version).is_some_and(|minor| minor >= 89);
    assert!(!avx512("rustc 1.88.0 (6b00bc388 2025-06-23)"));
    assert!(!avx512("rustc 1.89.0-nightly (0123456789 2025-06-01)"));
    assert!(avx512("rustc 1.89.0-beta.1 (0123456789 2025-06-27)"));
    assert!(avx512("rustc 1.89.0 (29483883e 2025-08-04)"));
    assert!(avx512("rustc 1.95.0 (59807616e 2026-04-14)"));
}
