//! Inputs large enough that their byte counts pass 2^32: 860 million
//! `u32::MAX` values encode to 4,300,000,000 bytes (5 each). A kernel that
//! adds lengths in 32 bits gets a small number here (the AVX-512
//! `encoded_len_sum` once returned 5,032,704), and an encoder sized by it
//! would write past its buffer.
//!
//! About 7.7 GB of memory (the values and their encoding) and seconds of
//! an optimized build, so `#[ignore]`: `scripts/cpu-matrix.sh` runs it in
//! its native row (`--include-ignored`), which `.ci/run` runs. By hand:
//! `cargo test --release --test big_inputs -- --ignored`.

use varint_turbo::{encode_slice, encode_slice_into, encoded_len_sum, Backend};

const VALUES: usize = 860_000_000;
const LEN: usize = 5; // u32::MAX takes 5 bytes
const VARINT: [u8; LEN] = [0xff, 0xff, 0xff, 0xff, 0x0f];

/// Checks that `out` holds `count` copies of [`VARINT`], at its first,
/// last and every 999,983rd position (a prime stride: every kernel's
/// block boundaries are powers of two).
fn spot_check(out: &[u8], count: usize) {
    assert_eq!(out.len(), count * LEN);
    let mut positions: Vec<usize> = (0..count).step_by(999_983).collect();
    positions.extend([1, count / 2, count - 2, count - 1]);
    for i in positions {
        assert_eq!(out[i * LEN..(i + 1) * LEN], VARINT, "value {i}");
    }
}

#[test]
#[ignore = "7.7 GB of memory: run by scripts/cpu-matrix.sh's native row (--include-ignored)"]
fn lengths_and_encodings_past_4_gib() {
    let values = vec![u32::MAX; VALUES];
    let total = VALUES * LEN;
    assert!(total > u32::MAX as usize);
    let supported: Vec<Backend> = Backend::ALL
        .into_iter()
        .filter(|backend| backend.is_supported())
        .collect();
    for &backend in &supported {
        assert_eq!(backend.encoded_len_sum(&values), total, "{backend}");
    }
    assert_eq!(encoded_len_sum(&values), total);

    let mut out = Vec::new();
    assert_eq!(encode_slice(&values, &mut out), total);
    spot_check(&out, VALUES);

    // One byte short: every backend encodes all values but the last, and
    // writes nothing past the slice it was given.
    for &backend in &supported {
        out.iter_mut().rev().take(64).for_each(|byte| *byte = 0xaa);
        let (short, guard) = out.split_at_mut(total - 1);
        assert_eq!(
            backend.encode_slice_into(&values, short),
            (VALUES - 1, total - LEN),
            "{backend}"
        );
        assert_eq!(guard, [0xaa], "{backend} wrote past its slice");
        spot_check(&out[..total - LEN], VALUES - 1);
    }
    assert_eq!(
        encode_slice_into(&values, &mut out[..total - 1]),
        (VALUES - 1, total - LEN)
    );
}
