//! The apache-avro harness: fixed-seed data and schemas for the workloads
//! and the differential tests (see README.md).

pub mod data;
