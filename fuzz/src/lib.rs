//! The fuzz targets' oracle: the crate's own test support
//! (`tests/common/`), whose `differential` module has one function per
//! target, so that `cargo test` replays the corpus and every crash
//! regression through exactly the code the fuzzer runs.

#[macro_use]
#[path = "../../tests/common/mod.rs"]
pub mod common;

pub use common::differential;
