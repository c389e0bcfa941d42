//! Single-value decode of every sub-slice, every type, every backend, vs the reference.
//! The checks live in `tests/common/differential.rs` (`decode_single`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| varint_turbo_fuzz::differential::decode_single(data));
