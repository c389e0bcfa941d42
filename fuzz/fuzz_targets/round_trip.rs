//! Encode -> decode round trips, single and bulk, and the size functions.
//! The checks live in `tests/common/differential.rs` (`round_trip`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| varint_turbo_fuzz::differential::round_trip(data));
