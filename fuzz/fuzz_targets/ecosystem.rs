//! The modules built on the core API (`bytes_ext`, `io`, `protobuf`,
//! `avro`) and `encode_slice_zigzag_into`, against the single-value and bulk
//! APIs. The checks live in `tests/common/ecosystem.rs` (`ecosystem`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| varint_turbo_fuzz::common::ecosystem::ecosystem(data));
