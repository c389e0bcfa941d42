//! The prost harness: the same hand-written messages compiled once per
//! prost copy (see README.md), fixed-seed data, and the workloads.

pub mod data;
pub mod messages;
