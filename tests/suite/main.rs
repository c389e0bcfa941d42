//! The integration tests, one module per topic, in ONE test binary: a
//! binary of its own per topic compiled `common` (the differential oracle)
//! and the crate's generic code again, at the test profile's opt-level 2;
//! as 16 binaries they were most of `cargo test`'s build (figures: the
//! commit that merged them, and .ci/run's header).
//! Run one topic with a filter on its module path:
//! `cargo test --test suite bulk::` (or a test: `cargo test --test suite
//! bulk::decode_slice`). proptest keeps a module's failure seeds in
//! tests/proptest-regressions/<module>.txt (its rule for a source file that
//! is not the crate root).
//!
//! Left in binaries of their own, because they need a process to
//! themselves: tests/page_guard.rs (forks children that must die of
//! SIGSEGV; scripts/cpu-matrix.sh runs it on one thread under qemu),
//! tests/big_inputs.rs (7.7 GB, `#[ignore]`d, run alone by the CPU
//! matrix's native row), tests/build_script.rs (compiles build.rs as a
//! module) and tests/peers/*.rs (dev-dependencies the MSRV step drops).
//! `robustness`'s counting global allocator serves the whole binary; it
//! counts per thread and from the start of each measured call, so the
//! other modules' tests, on other threads, do not reach its figures.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod avro;
mod backends_ran;
mod bulk;
mod bytes_ext;
mod census;
mod delta;
mod exhaustive;
mod fuzz_corpus;
mod io;
mod packed;
mod properties;
mod protobuf;
mod robustness;
mod sleb128;
mod slice_reader;
mod vectors;
