//! Replays the committed fuzz seed corpus (`fuzz/corpus/<target>/`, built
//! from tests/data/ by scripts/fuzz-corpus.py) through the fuzz targets'
//! own oracle (`common::differential`), so that `cargo test`, the CPU
//! matrix and the AddressSanitizer run check the same properties the
//! fuzzer does, on every backend of the CPU they run on.

use crate::common;

use std::path::Path;

use common::differential;

/// Runs every file of `fuzz/corpus/<target>/` through `target`; fails if the
/// folder is missing or empty. In a tree without the fuzz package
/// (`fuzz/Cargo.toml`: the published .crate, which leaves fuzz/ out, as
/// cargo does any nested package) there is nothing to replay: it says so
/// and returns.
fn replay(target: &str, check: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if !root.join("fuzz/Cargo.toml").is_file() {
        eprintln!("{target}: no fuzz/ package here (a published package?): no corpus to replay");
        return;
    }
    let folder = root.join("fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no corpus files", folder.display());
    for file in &files {
        let data = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        check(&data);
    }
    eprintln!("{target}: replayed {} corpus files", files.len());
}

#[test]
fn decode_single_corpus() {
    replay("decode_single", differential::decode_single);
}

#[test]
fn decode_unchecked_corpus() {
    replay("decode_unchecked", differential::decode_unchecked);
}

#[test]
fn decode_bulk_corpus() {
    replay("decode_bulk", differential::decode_bulk);
}

#[test]
fn round_trip_corpus() {
    replay("round_trip", differential::round_trip);
}

#[test]
fn slice_reader_corpus() {
    replay("slice_reader", differential::slice_reader);
}

#[test]
fn ecosystem_corpus() {
    replay("ecosystem", common::ecosystem::ecosystem);
}

#[test]
fn sleb128_corpus() {
    replay("sleb128", common::sleb128::sleb128_target);
}

#[test]
fn delta_corpus() {
    replay("delta", common::delta::delta);
}
