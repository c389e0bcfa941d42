//! Signed LEB128 (the `sleb128` module): single-value decodes, bulk decodes
//! on every backend (fuzzer-chosen out.len()) and the encoders, against the
//! i128 reference. The checks live in `tests/common/sleb128.rs`
//! (`sleb128_target`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| varint_turbo_fuzz::common::sleb128::sleb128_target(data));
