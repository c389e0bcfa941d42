//! Hand-encodes and decodes a protobuf message with varint-turbo alone: varint
//! fields of several types, a packed repeated field and a nested
//! (length-delimited) submessage.
//!
//! ```text
//! cargo run --release --example protobuf_message
//! ```
//!
//! The schema, as a `.proto` file would declare it:
//!
//! ```text
//! syntax = "proto3";
//! enum Status { UNKNOWN = 0; OK = 1; DEGRADED = 2; }
//! message Point { sint32 x = 1; sint32 y = 2; }
//! message Reading {
//!   uint64 id = 1;
//!   int32 delta = 2;                          // negative: 10 bytes on the wire
//!   bool valid = 3;
//!   Status status = 4;
//!   repeated uint32 samples = 5 [packed = true];
//!   Point origin = 6;                         // a nested message
//! }
//! ```
//!
//! It prints every field with its bytes (`protoc --decode_raw` on the same
//! bytes shows the same field numbers and values), decodes the message back
//! and exits with status 1 if the round trip differs.

use std::error::Error;
use std::process::ExitCode;

use varint_turbo::protobuf::{self, bool as pb_bool, FieldKey, WireType};
use varint_turbo::protobuf::{enumeration, int32, sint32, uint32, uint64};

#[derive(Debug, Clone, PartialEq, Default)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Debug, Clone, PartialEq, Default)]
struct Reading {
    id: u64,
    delta: i32,
    valid: bool,
    status: i32,
    samples: Vec<u32>,
    origin: Option<Point>,
}

/// Appends the first `len` bytes of an encoder's `([u8; 16], u8)`.
fn put(out: &mut Vec<u8>, (bytes, len): ([u8; 16], u8)) {
    out.extend_from_slice(&bytes[..usize::from(len)]);
}

fn put_key(out: &mut Vec<u8>, field_number: u32, wire_type: WireType) {
    let key = FieldKey::new(field_number, wire_type).expect("field numbers 1..=6 are valid");
    put(out, key.encode());
}

fn encode_point(point: &Point, out: &mut Vec<u8>) {
    // proto3 leaves out fields that hold their default value.
    if point.x != 0 {
        put_key(out, 1, WireType::Varint);
        put(out, sint32::encode(point.x));
    }
    if point.y != 0 {
        put_key(out, 2, WireType::Varint);
        put(out, sint32::encode(point.y));
    }
}

fn encode_reading(reading: &Reading) -> Vec<u8> {
    let mut out = Vec::new();
    if reading.id != 0 {
        put_key(&mut out, 1, WireType::Varint);
        put(&mut out, uint64::encode(reading.id));
    }
    if reading.delta != 0 {
        put_key(&mut out, 2, WireType::Varint);
        put(&mut out, int32::encode(reading.delta));
    }
    if reading.valid {
        put_key(&mut out, 3, WireType::Varint);
        put(&mut out, pb_bool::encode(true));
    }
    if reading.status != 0 {
        put_key(&mut out, 4, WireType::Varint);
        put(&mut out, enumeration::encode(reading.status));
    }
    if !reading.samples.is_empty() {
        put_key(&mut out, 5, WireType::Len);
        uint32::encode_packed(&reading.samples, &mut out);
    }
    if let Some(origin) = &reading.origin {
        // The submessage's length comes first: encode it aside, then
        // prefix it (a real encoder would size it first, as prost does).
        let mut nested = Vec::new();
        encode_point(origin, &mut nested);
        put_key(&mut out, 6, WireType::Len);
        put(&mut out, varint_turbo::encode(nested.len() as u64));
        out.extend_from_slice(&nested);
    }
    out
}

/// Skips the value of an unknown field, as proto3 parsers must (groups are
/// not supported here).
fn skip(wire_type: WireType, input: &[u8]) -> Result<usize, Box<dyn Error>> {
    let width = match wire_type {
        WireType::Varint => varint_turbo::decode_len::<u64>(input)?,
        WireType::I64 => 8,
        WireType::I32 => 4,
        WireType::Len => protobuf::decode_length_delimited(input)?.1,
        WireType::SGroup | WireType::EGroup => return Err("groups are not supported".into()),
    };
    if width > input.len() {
        return Err("message ends inside a field".into());
    }
    Ok(width)
}

fn hex(bytes: &[u8]) -> String {
    let text: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    text.join(" ")
}

/// Walks the fields of a message: calls `field` with each key and the
/// bytes from its value on; `field` returns the value's length.
fn for_each_field(
    mut input: &[u8],
    mut field: impl FnMut(FieldKey, &[u8]) -> Result<usize, Box<dyn Error>>,
) -> Result<(), Box<dyn Error>> {
    while !input.is_empty() {
        let (key, key_len) = FieldKey::decode(input)?;
        let value_len = field(key, &input[key_len..])?;
        input = &input[key_len + value_len..];
    }
    Ok(())
}

/// A scalar module's `decode`, e.g. `protobuf::int32::decode`.
type ScalarDecode<V> = fn(&[u8]) -> Result<(V, usize), varint_turbo::DecodeError>;

/// Decodes one varint field with `decode` into `slot` and describes it in
/// `log`; returns the value's length.
fn read_scalar<V: std::fmt::Display>(
    log: &mut Vec<String>,
    label: &str,
    input: &[u8],
    decode: ScalarDecode<V>,
    slot: &mut V,
) -> Result<usize, Box<dyn Error>> {
    let (value, len) = decode(input)?;
    log.push(format!(
        "{:<30} value bytes: {}",
        format!("{label} = {value}"),
        hex(&input[..len])
    ));
    *slot = value;
    Ok(len)
}

fn decode_point(input: &[u8], log: &mut Vec<String>) -> Result<Point, Box<dyn Error>> {
    let mut point = Point::default();
    for_each_field(input, |key, rest| {
        match (key.field_number(), key.wire_type()) {
            (1, WireType::Varint) => read_scalar(
                log,
                "    field 1 sint32 x",
                rest,
                sint32::decode,
                &mut point.x,
            ),
            (2, WireType::Varint) => read_scalar(
                log,
                "    field 2 sint32 y",
                rest,
                sint32::decode,
                &mut point.y,
            ),
            (_, wire_type) => skip(wire_type, rest),
        }
    })?;
    Ok(point)
}

/// Decodes a `Reading`, describing each field in `log`.
fn decode_reading(input: &[u8], log: &mut Vec<String>) -> Result<Reading, Box<dyn Error>> {
    let mut reading = Reading::default();
    for_each_field(input, |key, rest| {
        let number = key.field_number();
        let shown_len = match (number, key.wire_type()) {
            (1, WireType::Varint) => read_scalar(
                log,
                "  field 1 uint64 id",
                rest,
                uint64::decode,
                &mut reading.id,
            )?,
            (2, WireType::Varint) => read_scalar(
                log,
                "  field 2 int32 delta",
                rest,
                int32::decode,
                &mut reading.delta,
            )?,
            (3, WireType::Varint) => read_scalar(
                log,
                "  field 3 bool valid",
                rest,
                pb_bool::decode,
                &mut reading.valid,
            )?,
            (4, WireType::Varint) => read_scalar(
                log,
                "  field 4 enum status",
                rest,
                enumeration::decode,
                &mut reading.status,
            )?,
            (5, WireType::Len) => {
                let (payload, len) = protobuf::decode_length_delimited(rest)?;
                let count = uint32::count_packed(payload);
                uint32::decode_packed(payload, &mut reading.samples)?;
                log.push(format!(
                    "  field 5 packed uint32 samples: {count} values in {} bytes, first {:?}",
                    payload.len(),
                    &reading.samples[..count.min(6)]
                ));
                len
            }
            (6, WireType::Len) => {
                let (payload, len) = protobuf::decode_length_delimited(rest)?;
                log.push(format!(
                    "  field 6 Point origin: {} bytes: {}",
                    payload.len(),
                    hex(payload)
                ));
                reading.origin = Some(decode_point(payload, log)?);
                len
            }
            (_, wire_type) => {
                let len = skip(wire_type, rest)?;
                log.push(format!("  field {number} unknown, {len} bytes skipped"));
                len
            }
        };
        Ok(shown_len)
    })?;
    Ok(reading)
}

fn main() -> ExitCode {
    let reading = Reading {
        id: 150,
        delta: -2,
        valid: true,
        status: 2,
        samples: (0..40u32).map(|i| i * i * 37).collect(),
        origin: Some(Point { x: -3, y: 70 }),
    };
    let bytes = encode_reading(&reading);
    println!("Reading, {} bytes on the wire:", bytes.len());
    for line in bytes.chunks(24) {
        println!("  {}", hex(line));
    }
    println!();
    println!("decoded field by field:");
    let mut log = Vec::new();
    let decoded = decode_reading(&bytes, &mut log);
    for line in &log {
        println!("{line}");
    }
    let decoded = match decoded {
        Ok(decoded) => decoded,
        Err(error) => {
            println!("FAILED: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!();
    // A message cut short must be rejected with an error, not a panic.
    let truncated = decode_reading(&bytes[..bytes.len() - 1], &mut Vec::new());
    let truncated_ok = truncated.is_err();
    match &truncated {
        Err(error) => println!("the message minus its last byte: rejected ({error})"),
        Ok(_) => println!("the message minus its last byte: accepted (WRONG)"),
    }
    if decoded == reading && truncated_ok {
        println!("round trip: ok (decoded message equals the original)");
        ExitCode::SUCCESS
    } else {
        println!("round trip: FAILED\n  original {reading:?}\n  decoded  {decoded:?}");
        ExitCode::FAILURE
    }
}
