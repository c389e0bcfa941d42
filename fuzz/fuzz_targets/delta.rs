//! Delta-coded lists (every backend, fuzzer-chosen out.len(), index, key
//! and previous): decode_slice, select, search and the encoders against
//! the reference's running sums of repeated single-value decodes.
//! The checks live in `tests/common/delta.rs` (`delta`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| varint_turbo_fuzz::common::delta::delta(data));
