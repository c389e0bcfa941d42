//! Bulk decode (every backend, fuzzer-chosen out.len()) vs repeated single-value decodes.
//! The checks live in `tests/common/differential.rs` (`decode_bulk`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| varint_turbo_fuzz::differential::decode_bulk(data));
