//! `SliceReader` walks with every read kind and type against `decode` and
//! friends on the remaining slice after every read.
//! The checks live in `tests/common/differential.rs` (`slice_reader`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| varint_turbo_fuzz::differential::slice_reader(data));
