//! decode_unchecked on exactly 16 readable bytes: in-bounds, length in 1..=MAX_LEN, equal to decode when valid.
//! The checks live in `tests/common/differential.rs` (`decode_unchecked`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| varint_turbo_fuzz::differential::decode_unchecked(data));
