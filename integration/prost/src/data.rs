//! Fixed-seed data for the workloads, built as `upstream` messages (each
//! prost copy decodes their encoding into its own types).

use crate::messages::upstream::{
    Kind, Node, PackedBool, PackedEnum, PackedInt32, PackedInt64, PackedSint32, PackedSint64,
    PackedUint32, PackedUint64, Telemetry, TelemetryBatch,
};

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

/// The crate's "protobuf-like mix" (benches/common/mod.rs): 60% < 2^7, 25%
/// in [2^7, 2^14), 10% in [2^14, 2^28), 5% uniform over u64 (mostly 10
/// bytes, like negative int32/int64 fields).
pub fn protobuf_mix(rng: &mut Rng) -> u64 {
    match rng.range(0, 100) {
        0..60 => rng.range(0, 1 << 7),
        60..85 => rng.range(1 << 7, 1 << 14),
        85..95 => rng.range(1 << 14, 1 << 28),
        _ => rng.next_u64(),
    }
}

fn short_string(rng: &mut Rng, min: u64, max: u64) -> String {
    let len = rng.range(min, max + 1);
    (0..len)
        .map(|_| char::from(b'a' + rng.range(0, 26) as u8))
        .collect()
}

fn kind(rng: &mut Rng) -> i32 {
    // Mostly the first few values, as real enums are.
    match rng.range(0, 10) {
        0..5 => Kind::Get as i32,
        5..8 => Kind::Put as i32,
        8 => Kind::Delete as i32,
        _ => Kind::List as i32,
    }
}

/// One telemetry record (about 55 bytes encoded).
pub fn telemetry(rng: &mut Rng) -> Telemetry {
    Telemetry {
        status: match rng.range(0, 100) {
            0..90 => 200,
            90..95 => 404,
            95..99 => 500,
            _ => 0,
        },
        timestamp_ms: 1_700_000_000_000 + rng.range(0, 100_000_000_000) as i64,
        bytes: protobuf_mix(rng),
        delta: rng.range(0, 2001) as i64 - 1000,
        kind: kind(rng),
        ok: rng.percent(90),
        region: rng.range(0, 40) as u32,
        latency_us: rng.log_uniform(6, 21) as i64,
        id: rng.next_u64(),
        retries: if rng.percent(80) {
            0
        } else {
            rng.range(1, 5) as i32
        },
        host: format!("host-{}", short_string(rng, 3, 8)),
    }
}

/// A batch of `count` telemetry records.
pub fn telemetry_batch(rng: &mut Rng, count: usize) -> TelemetryBatch {
    TelemetryBatch {
        records: (0..count).map(|_| telemetry(rng)).collect(),
    }
}

fn leaf(rng: &mut Rng, id: u32) -> Node {
    Node {
        id,
        value: protobuf_mix(rng) as i64,
        name: short_string(rng, 4, 12),
        delta: rng.range(0, 129) as i32 - 64,
        kind: kind(rng),
        children: Vec::new(),
    }
}

/// A tree of exactly `nodes` nodes: breadth first, 0..=5 children each.
pub fn tree(rng: &mut Rng, nodes: usize) -> Node {
    // Parent indices first, then the nodes bottom up.
    let mut parents: Vec<usize> = vec![usize::MAX];
    let mut next = 0;
    while parents.len() < nodes {
        let fanout = if next == parents.len() - 1 {
            // Never let the tree end early.
            rng.range(1, 6)
        } else {
            rng.range(0, 6)
        };
        for _ in 0..fanout {
            if parents.len() < nodes {
                parents.push(next);
            }
        }
        next += 1;
    }
    let mut built: Vec<Option<Node>> = (0..nodes).map(|i| Some(leaf(rng, i as u32))).collect();
    for i in (1..nodes).rev() {
        let node = built[i].take().expect("built once");
        built[parents[i]]
            .as_mut()
            .expect("parents come first")
            .children
            .push(node);
    }
    let mut root = built[0].take().expect("root");
    fn reverse(node: &mut Node) {
        node.children.reverse();
        node.children.iter_mut().for_each(reverse);
    }
    reverse(&mut root);
    root
}

/// The number of nodes in a tree.
pub fn tree_size(node: &Node) -> usize {
    1 + node.children.iter().map(tree_size).sum::<usize>()
}

/// The packed workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackedKind {
    /// `uint64`, the protobuf-like mix.
    Uint64Mix,
    /// `int32`, 95% one byte, 5% two bytes.
    Int32Small,
    /// `sint32` near zero (|v| < 64 mostly: one byte).
    Sint32NearZero,
    /// `int32` with 10% negative values (10-byte varints).
    Int32Negative,
    /// `int64` timestamps in milliseconds near 1.7e12 (6 bytes each).
    Int64Timestamps,
    /// `uint32`, the mix within u32 (60% < 2^7, 25% < 2^14, 15% < 2^28).
    Uint32Mix,
    /// `sint64` deltas: a random sign and a log-uniform magnitude in
    /// [2^0, 2^32) (1 to 5 bytes, about evenly).
    Sint64Deltas,
    /// `bool`, 90% true.
    Bool,
    /// An enum with six values, mostly the first few ([`kind`]).
    Enum,
}

impl PackedKind {
    pub const ALL: [PackedKind; 9] = [
        PackedKind::Uint64Mix,
        PackedKind::Int32Small,
        PackedKind::Sint32NearZero,
        PackedKind::Int32Negative,
        PackedKind::Int64Timestamps,
        PackedKind::Uint32Mix,
        PackedKind::Sint64Deltas,
        PackedKind::Bool,
        PackedKind::Enum,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PackedKind::Uint64Mix => "packed uint64 mix",
            PackedKind::Int32Small => "packed int32 small",
            PackedKind::Sint32NearZero => "packed sint32 near 0",
            PackedKind::Int32Negative => "packed int32 10% neg",
            PackedKind::Int64Timestamps => "packed int64 timestamps",
            PackedKind::Uint32Mix => "packed uint32 mix",
            PackedKind::Sint64Deltas => "packed sint64 deltas",
            PackedKind::Bool => "packed bool",
            PackedKind::Enum => "packed enum",
        }
    }
}

pub fn packed_uint64(rng: &mut Rng, len: usize) -> PackedUint64 {
    PackedUint64 {
        values: (0..len).map(|_| protobuf_mix(rng)).collect(),
    }
}

pub fn packed_int32_small(rng: &mut Rng, len: usize) -> PackedInt32 {
    PackedInt32 {
        values: (0..len)
            .map(|_| {
                if rng.percent(95) {
                    rng.range(0, 1 << 7) as i32
                } else {
                    rng.range(1 << 7, 1 << 14) as i32
                }
            })
            .collect(),
    }
}

pub fn packed_sint32_near_zero(rng: &mut Rng, len: usize) -> PackedSint32 {
    PackedSint32 {
        values: (0..len)
            .map(|_| {
                if rng.percent(95) {
                    rng.range(0, 128) as i32 - 64
                } else {
                    rng.range(0, 16384) as i32 - 8192
                }
            })
            .collect(),
    }
}

pub fn packed_int32_negative(rng: &mut Rng, len: usize) -> PackedInt32 {
    PackedInt32 {
        values: (0..len)
            .map(|_| {
                if rng.percent(10) {
                    -(rng.range(1, 1 << 20) as i32)
                } else {
                    rng.range(0, 1 << 14) as i32
                }
            })
            .collect(),
    }
}

pub fn packed_int64_timestamps(rng: &mut Rng, len: usize) -> PackedInt64 {
    PackedInt64 {
        values: (0..len)
            .map(|_| 1_700_000_000_000 + rng.range(0, 100_000_000_000) as i64)
            .collect(),
    }
}

pub fn packed_uint32_mix(rng: &mut Rng, len: usize) -> PackedUint32 {
    PackedUint32 {
        values: (0..len)
            .map(|_| match rng.range(0, 100) {
                0..60 => rng.range(0, 1 << 7) as u32,
                60..85 => rng.range(1 << 7, 1 << 14) as u32,
                _ => rng.range(1 << 14, 1 << 28) as u32,
            })
            .collect(),
    }
}

pub fn packed_sint64_deltas(rng: &mut Rng, len: usize) -> PackedSint64 {
    PackedSint64 {
        values: (0..len)
            .map(|_| {
                let magnitude = rng.log_uniform(0, 32) as i64;
                if rng.percent(50) {
                    magnitude
                } else {
                    -magnitude
                }
            })
            .collect(),
    }
}

pub fn packed_bool(rng: &mut Rng, len: usize) -> PackedBool {
    PackedBool {
        values: (0..len).map(|_| rng.percent(90)).collect(),
    }
}

pub fn packed_enum(rng: &mut Rng, len: usize) -> PackedEnum {
    PackedEnum {
        values: (0..len).map(|_| kind(rng)).collect(),
    }
}

/// A Kafka-style record batch body (the records after the batch header):
/// per record a zigzag length, an attributes byte, a zigzag timestamp
/// delta (varlong), a zigzag offset delta, a zigzag key length (-1: null)
/// and the key, a zigzag value length and the value, a zigzag header count
/// and per header a key length, key, value length and value.
pub fn kafka_records(rng: &mut Rng, count: usize) -> Vec<u8> {
    fn zigzag(out: &mut Vec<u8>, value: i64) {
        let mut v = ((value << 1) ^ (value >> 63)) as u64;
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    fn bytes(rng: &mut Rng, out: &mut Vec<u8>, len: u64) {
        out.extend((0..len).map(|_| rng.next_u64() as u8));
    }
    let mut out = Vec::new();
    let mut timestamp = 0i64;
    for offset in 0..count {
        let mut record = Vec::new();
        record.push(0); // attributes
        timestamp += rng.range(0, 2000) as i64;
        zigzag(&mut record, timestamp);
        zigzag(&mut record, offset as i64);
        if rng.percent(30) {
            zigzag(&mut record, -1);
        } else {
            let len = rng.range(8, 33);
            zigzag(&mut record, len as i64);
            bytes(rng, &mut record, len);
        }
        let len = rng.log_uniform(4, 10);
        zigzag(&mut record, len as i64);
        bytes(rng, &mut record, len);
        let headers = rng.range(0, 3);
        zigzag(&mut record, headers as i64);
        for _ in 0..headers {
            let len = rng.range(4, 16);
            zigzag(&mut record, len as i64);
            bytes(rng, &mut record, len);
            let len = rng.range(0, 40);
            zigzag(&mut record, len as i64);
            bytes(rng, &mut record, len);
        }
        zigzag(&mut out, record.len() as i64);
        out.extend_from_slice(&record);
    }
    out
}
