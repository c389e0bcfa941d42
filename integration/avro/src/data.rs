//! Fixed-seed data and the schemas of the workloads. Records are built as
//! serde structs and written with unpatched apache-avro; each copy reads
//! the bytes into its own `Value`s.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The telemetry record: longs of every size (timestamps in micros, ids,
/// small counts, a byte count in the crate's protobuf-like mix), ints, a
/// string, an enum, an array of small longs and a map.
pub const TELEMETRY_SCHEMA: &str = r#"{
  "type": "record",
  "name": "Telemetry",
  "fields": [
    {"name": "timestamp_us", "type": "long"},
    {"name": "id", "type": "long"},
    {"name": "count", "type": "long"},
    {"name": "bytes", "type": "long"},
    {"name": "status", "type": "int"},
    {"name": "latency_us", "type": "int"},
    {"name": "host", "type": "string"},
    {"name": "kind", "type": {"type": "enum", "name": "Kind",
                              "symbols": ["GET", "PUT", "DELETE", "LIST", "HEAD", "POST"]}},
    {"name": "samples", "type": {"type": "array", "items": "long"}},
    {"name": "tags", "type": {"type": "map", "values": "long"}}
  ]
}"#;

/// `array<long>`.
pub const LONG_ARRAY_SCHEMA: &str = r#"{"type": "array", "items": "long"}"#;

/// `array<int>`.
pub const INT_ARRAY_SCHEMA: &str = r#"{"type": "array", "items": "int"}"#;

/// The enum of [`TELEMETRY_SCHEMA`].
#[allow(clippy::upper_case_acronyms)]
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    GET,
    PUT,
    DELETE,
    LIST,
    HEAD,
    POST,
}

/// A record of [`TELEMETRY_SCHEMA`].
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Telemetry {
    pub timestamp_us: i64,
    pub id: i64,
    pub count: i64,
    pub bytes: i64,
    pub status: i32,
    pub latency_us: i32,
    pub host: String,
    pub kind: Kind,
    pub samples: Vec<i64>,
    pub tags: BTreeMap<String, i64>,
}

/// xorshift64*: small, fast, and the same on every machine.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `low..high` (`high > low`; the modulo bias is negligible
    /// here).
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        low + self.next_u64() % (high - low)
    }

    /// True with probability `percent`%.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.range(0, 100) < percent
    }

    /// Log-uniform in `[2^low_bits, 2^high_bits)`.
    pub fn log_uniform(&mut self, low_bits: u32, high_bits: u32) -> u64 {
        let bits = self.range(u64::from(low_bits), u64::from(high_bits)) as u32;
        self.range(1 << bits, 1 << (bits + 1))
    }
}

/// The crate's "protobuf-like mix" (benches/common/mod.rs) as a signed
/// long: 60% < 2^7, 25% in [2^7, 2^14), 10% in [2^14, 2^28), 5% any 64-bit
/// value (10-byte zigzag varints half of the time).
pub fn mixed_long(rng: &mut Rng) -> i64 {
    match rng.range(0, 100) {
        0..60 => rng.range(0, 1 << 7) as i64,
        60..85 => rng.range(1 << 7, 1 << 14) as i64,
        85..95 => rng.range(1 << 14, 1 << 28) as i64,
        _ => rng.next_u64() as i64,
    }
}

/// A small long: |v| < 64 (one zigzag byte) 95% of the time, else |v| <
/// 8192 (two bytes).
pub fn small_long(rng: &mut Rng) -> i64 {
    if rng.percent(95) {
        rng.range(0, 128) as i64 - 64
    } else {
        rng.range(0, 16384) as i64 - 8192
    }
}

fn short_string(rng: &mut Rng, min: u64, max: u64) -> String {
    let len = rng.range(min, max + 1);
    (0..len)
        .map(|_| char::from(b'a' + rng.range(0, 26) as u8))
        .collect()
}

/// One telemetry record (about 60 bytes encoded).
pub fn telemetry(rng: &mut Rng) -> Telemetry {
    let samples = (0..rng.range(0, 9)).map(|_| small_long(rng)).collect();
    let tags = (0..rng.range(0, 4))
        .map(|_| (short_string(rng, 2, 6), small_long(rng)))
        .collect();
    Telemetry {
        // Microseconds near 2023-11 (8-byte zigzag varints).
        timestamp_us: 1_700_000_000_000_000 + rng.range(0, 100_000_000_000_000) as i64,
        // Ids of 5-6 bytes.
        id: rng.range(1_000_000_000, 1_000_000_000_000) as i64,
        count: if rng.percent(80) {
            rng.range(0, 10) as i64
        } else {
            rng.range(10, 1000) as i64
        },
        bytes: mixed_long(rng),
        status: match rng.range(0, 100) {
            0..90 => 200,
            90..95 => 404,
            95..99 => 500,
            _ => 0,
        },
        latency_us: rng.log_uniform(6, 21) as i32,
        host: format!("host-{}", short_string(rng, 3, 8)),
        kind: match rng.range(0, 10) {
            0..5 => Kind::GET,
            5..8 => Kind::PUT,
            8 => Kind::DELETE,
            _ => Kind::LIST,
        },
        samples,
        tags,
    }
}

/// `count` telemetry records.
pub fn telemetry_records(rng: &mut Rng, count: usize) -> Vec<Telemetry> {
    (0..count).map(|_| telemetry(rng)).collect()
}

/// `count` small longs ([`small_long`]).
pub fn small_longs(rng: &mut Rng, count: usize) -> Vec<i64> {
    (0..count).map(|_| small_long(rng)).collect()
}

/// `count` small ints ([`small_long`] as `i32`).
pub fn small_ints(rng: &mut Rng, count: usize) -> Vec<i32> {
    (0..count).map(|_| small_long(rng) as i32).collect()
}

/// The schema of `json`, parsed by unpatched avro.
pub fn schema(json: &str) -> apache_avro_upstream::Schema {
    apache_avro_upstream::Schema::parse_str(json).expect("valid schema")
}

/// `values` as Avro datums one after the other, written by unpatched avro
/// (serde).
pub fn datums<T: Serialize>(schema_json: &str, values: &[T]) -> Vec<u8> {
    let schema = schema(schema_json);
    let writer = apache_avro_upstream::writer::datum::GenericDatumWriter::builder(&schema)
        .build()
        .expect("writer");
    let mut out = Vec::new();
    for value in values {
        writer.write_ser(&mut out, value).expect("valid datum");
    }
    out
}

/// `values` as an object container file (no compression), written by
/// unpatched avro (serde).
pub fn container<T: Serialize>(schema_json: &str, values: &[T]) -> Vec<u8> {
    let schema = schema(schema_json);
    let mut writer = apache_avro_upstream::Writer::new(&schema, Vec::new()).expect("writer");
    for value in values {
        writer.append_ser(value).expect("valid record");
    }
    writer.into_inner().expect("flushed")
}
