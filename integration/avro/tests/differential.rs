//! Differential tests: each patched apache-avro copy (control, vt, vt-bulk)
//! against unpatched apache-avro (upstream). Same value, same error (the
//! `Details` avro matches on, with its `io::ErrorKind`), same bytes
//! consumed, from a `&[u8]`, through an `io::Cursor` and through a reader
//! that hands out 1 to 11 bytes per `read` (and per `fill_buf`); same bytes
//! written.

use std::io::{BufRead, Cursor, Read};

use avro_harness::data::{self, Rng, Telemetry};

/// A reader over `data` that returns at most `size` bytes per `read`, and
/// whose `BufRead` buffer is the rest of the current `size`-byte chunk: a
/// varint can straddle two of them, as in a socket or a `BufReader`.
struct Chunked<'a> {
    data: &'a [u8],
    pos: usize,
    size: usize,
}

impl<'a> Chunked<'a> {
    fn new(data: &'a [u8], size: usize) -> Self {
        Chunked { data, pos: 0, size }
    }

    fn chunk(&self) -> &'a [u8] {
        let end = ((self.pos / self.size + 1) * self.size).min(self.data.len());
        &self.data[self.pos..end]
    }
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let chunk = self.chunk();
        let n = chunk.len().min(buf.len());
        buf[..n].copy_from_slice(&chunk[..n]);
        self.pos += n;
        Ok(n)
    }
}

impl BufRead for Chunked<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(self.chunk())
    }

    fn consume(&mut self, amt: usize) {
        assert!(amt <= self.chunk().len());
        self.pos += amt;
    }
}

/// How the input reaches avro.
#[derive(Clone, Copy, Debug)]
enum Source {
    Slice,
    Cursor,
    Chunked(usize),
}

const SOURCES: [Source; 13] = [
    Source::Slice,
    Source::Cursor,
    Source::Chunked(1),
    Source::Chunked(2),
    Source::Chunked(3),
    Source::Chunked(4),
    Source::Chunked(5),
    Source::Chunked(6),
    Source::Chunked(7),
    Source::Chunked(8),
    Source::Chunked(9),
    Source::Chunked(10),
    Source::Chunked(11),
];

/// (the value's or error's `Debug` text, bytes consumed).
type Outcome = (String, usize);

/// Runs `read` on `input` through `source`; the outcome text and the bytes
/// it consumed.
macro_rules! through {
    ($source:expr, $input:expr, |$reader:ident| $read:expr) => {{
        let input: &[u8] = $input;
        match $source {
            Source::Slice => {
                let mut slice = input;
                let $reader = &mut slice;
                let text = $read;
                (text, input.len() - slice.len())
            }
            Source::Cursor => {
                let mut cursor = Cursor::new(input);
                let $reader = &mut cursor;
                let text = $read;
                (text, cursor.position() as usize)
            }
            Source::Chunked(size) => {
                let mut chunked = Chunked::new(input, size);
                let $reader = &mut chunked;
                let text = $read;
                (text, chunked.pos)
            }
        }
    }};
}

/// One module per copy: `read_value` / `read_deser` of a datum, the
/// container reader, and the datum writers.
macro_rules! copy {
    ($module:ident, $krate:ident) => {
        mod $module {
            use super::*;
            use $krate::{
                reader::datum::GenericDatumReader, types::Value,
                writer::datum::GenericDatumWriter, Schema,
            };

            /// The schema of `json`, parsed once per test thread.
            pub fn schema(json: &str) -> &'static Schema {
                thread_local! {
                    static SCHEMAS: std::cell::RefCell<std::collections::HashMap<String, &'static Schema>> =
                        Default::default();
                }
                SCHEMAS.with(|schemas| {
                    *schemas.borrow_mut().entry(json.to_string()).or_insert_with(|| {
                        Box::leak(Box::new(Schema::parse_str(json).expect("valid schema")))
                    })
                })
            }

            /// A value as text: records through serde into [`Telemetry`] (its
            /// map is a `BTreeMap`: `Value::Map`'s `HashMap` prints in a
            /// random order).
            fn text(value: &Value) -> String {
                if matches!(value, Value::Record(_)) {
                    format!("{:?}", $krate::from_value::<Telemetry>(value))
                } else {
                    format!("{value:?}")
                }
            }

            pub fn read_value(schema: &Schema, input: &[u8], source: Source) -> Outcome {
                let reader = GenericDatumReader::builder(schema).build().expect("reader");
                through!(source, input, |r| match reader.read_value(r) {
                    Ok(value) => text(&value),
                    Err(error) => format!("{:?}", error.details()),
                })
            }

            pub fn read_deser<T: serde::de::DeserializeOwned + std::fmt::Debug>(
                schema: &Schema,
                input: &[u8],
                source: Source,
            ) -> Outcome {
                let reader = GenericDatumReader::builder(schema).build().expect("reader");
                through!(source, input, |r| match reader.read_deser::<T>(r) {
                    Ok(value) => format!("{value:?}"),
                    Err(error) => format!("{:?}", error.details()),
                })
            }

            /// Every datum of `input` until the first error or the end.
            pub fn read_all(schema: &Schema, input: &[u8], source: Source) -> Outcome {
                let reader = GenericDatumReader::builder(schema).build().expect("reader");
                through!(source, input, |r| {
                    let mut out = String::new();
                    loop {
                        if r.fill_buf().map_or(true, |b| b.is_empty()) {
                            break out;
                        }
                        match reader.read_value(r) {
                            Ok(value) => out += &text(&value),
                            Err(error) => break out + &format!("{:?}", error.details()),
                        }
                    }
                })
            }

            /// A container file's records (or the error of `Reader::new`).
            pub fn read_container(input: &[u8], source: Source) -> Outcome {
                fn records<R: BufRead>(reader: R) -> String {
                    match $krate::Reader::new(reader) {
                        Ok(reader) => reader
                            .map(|record| match record {
                                Ok(value) => text(&value),
                                Err(error) => format!("{:?}", error.details()),
                            })
                            .collect::<Vec<_>>()
                            .join(", "),
                        Err(error) => format!("{:?}", error.details()),
                    }
                }
                through!(source, input, |r| records(r))
            }

            fn write(schema: &Schema, value: &Value) -> String {
                let writer = GenericDatumWriter::builder(schema).build().expect("writer");
                let mut out = Vec::new();
                match writer.write_value_ref(&mut out, value) {
                    Ok(n) => format!("{n} {out:02x?}"),
                    Err(error) => format!("{:?}", error.details()),
                }
            }

            pub fn write_ser<T: serde::Serialize>(schema: &Schema, value: &T) -> String {
                let writer = GenericDatumWriter::builder(schema).build().expect("writer");
                let mut out = Vec::new();
                match writer.write_ser(&mut out, value) {
                    Ok(n) => format!("{n} {out:02x?}"),
                    Err(error) => format!("{:?}", error.details()),
                }
            }

            /// `values` as a `Value::Array` of `Value::Long`s, of
            /// `Value::Int`s (cut to 32 bits), or both mixed (avro writes
            /// each item by its own `Value`), written with `schema`.
            pub fn write_array(schema: &Schema, values: &[i64], items: Items) -> String {
                let item = |i: usize, v: i64| match items {
                    Items::Long => Value::Long(v),
                    Items::Int => Value::Int(v as i32),
                    Items::Mixed if i % 3 == 0 => Value::Int(v as i32),
                    Items::Mixed => Value::Long(v),
                };
                let array = Value::Array(values.iter().enumerate().map(|(i, &v)| item(i, v)).collect());
                write(schema, &array)
            }

            /// One `long` (or `int`, cut to 32 bits).
            pub fn write_scalar(schema: &Schema, value: i64, items: Items) -> String {
                match items {
                    Items::Long => write(schema, &Value::Long(value)),
                    _ => write(schema, &Value::Int(value as i32)),
                }
            }
        }
    };
}

/// The items of the arrays written.
#[derive(Clone, Copy, Debug)]
enum Items {
    Long,
    Int,
    Mixed,
}

copy!(upstream, apache_avro_upstream);
copy!(control, apache_avro_control);
copy!(vt, apache_avro_vt);
copy!(vt_bulk, apache_avro_vt_bulk);

/// Each copy's outcome of `$f(schema, $args...)` against upstream's.
macro_rules! check {
    ($what:expr, $f:ident::<$t:ty>($schema:expr $(, $arg:expr)*)) => {{
        let expected = upstream::$f::<$t>(upstream::schema($schema) $(, $arg)*);
        assert_eq!(control::$f::<$t>(control::schema($schema) $(, $arg)*), expected, "control: {}", $what);
        assert_eq!(vt::$f::<$t>(vt::schema($schema) $(, $arg)*), expected, "vt: {}", $what);
        assert_eq!(vt_bulk::$f::<$t>(vt_bulk::schema($schema) $(, $arg)*), expected, "vt-bulk: {}", $what);
    }};
    ($what:expr, $f:ident($schema:expr $(, $arg:expr)*)) => {{
        let expected = upstream::$f(upstream::schema($schema) $(, $arg)*);
        assert_eq!(control::$f(control::schema($schema) $(, $arg)*), expected, "control: {}", $what);
        assert_eq!(vt::$f(vt::schema($schema) $(, $arg)*), expected, "vt: {}", $what);
        assert_eq!(vt_bulk::$f(vt_bulk::schema($schema) $(, $arg)*), expected, "vt-bulk: {}", $what);
    }};
}

/// The schemas whose first read is one varint: `long`, `int` (avro's
/// `i32::try_from`), a union (an `UnexpectedEof` there is a null), an enum.
const VARINT_SCHEMAS: [&str; 4] = [
    r#""long""#,
    r#""int""#,
    r#"["long", "null"]"#,
    r#"{"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}"#,
];

/// A varint-level check of `input`: every schema, every source.
fn check_varint(input: &[u8]) {
    for schema in VARINT_SCHEMAS {
        for source in SOURCES {
            check!(
                format!("{schema} from {input:02x?} via {source:?}"),
                read_value(schema, input, source)
            );
        }
    }
}

/// Fewer sources for the exhaustive 2-byte inputs (every chunk size above 2
/// is the slice's case there).
fn check_varint_short(input: &[u8]) {
    for schema in VARINT_SCHEMAS {
        for source in [Source::Slice, Source::Cursor, Source::Chunked(1)] {
            check!(
                format!("{schema} from {input:02x?} via {source:?}"),
                read_value(schema, input, source)
            );
        }
    }
}

#[test]
fn varint_every_one_and_two_byte_input() {
    check_varint(&[]);
    for a in 0..=255u8 {
        check_varint(&[a]);
        for b in 0..=255u8 {
            check_varint_short(&[a, b]);
        }
    }
}

/// A random varint-like input: a run of continuation bytes of a random
/// length (0..=12), maybe a final byte (often small: the 10th byte's rule),
/// maybe more bytes after it.
fn random_input(rng: &mut Rng) -> Vec<u8> {
    let mut input = Vec::new();
    for _ in 0..rng.range(0, 13) {
        input.push(0x80 | rng.next_u64() as u8);
    }
    if rng.percent(85) {
        input.push(if rng.percent(50) {
            rng.range(0, 4) as u8
        } else {
            rng.next_u64() as u8 & 0x7f
        });
    }
    for _ in 0..rng.range(0, 20) {
        input.push(rng.next_u64() as u8);
    }
    input
}

#[test]
fn varint_random_and_edge_inputs() {
    let mut rng = Rng::new(1);
    for _ in 0..20_000 {
        check_varint(&random_input(&mut rng));
    }
    // Every 10-byte varint's last byte (the wrapping rule), after 9
    // continuation bytes of either extreme, with and without a byte after.
    for fill in [0x80u8, 0xff] {
        for last in 0..=255u8 {
            let mut input = vec![fill; 9];
            input.push(last);
            check_varint(&input);
            input.push(0x01);
            check_varint(&input);
        }
    }
    // Every valid encoding of edge values.
    for bits in 0..64 {
        for value in [
            1u64 << bits,
            (1u64 << bits) - 1,
            (1u64 << bits) + 1,
            u64::MAX,
        ] {
            let mut input = Vec::new();
            let mut v = value;
            while v >= 0x80 {
                input.push(v as u8 | 0x80);
                v >>= 7;
            }
            input.push(v as u8);
            check_varint(&input);
        }
    }
}

/// An `array<long>`/`array<int>` datum in several blocks, some with their
/// byte size, from `values`.
fn blocks(rng: &mut Rng, values: &[i64]) -> Vec<u8> {
    fn long(out: &mut Vec<u8>, value: i64) {
        let mut v = ((value << 1) ^ (value >> 63)) as u64;
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    let mut out = Vec::new();
    let mut rest = values;
    while !rest.is_empty() {
        let n = (rng.range(1, 600) as usize).min(rest.len());
        let mut items = Vec::new();
        for &value in &rest[..n] {
            long(&mut items, value);
        }
        if rng.percent(30) {
            long(&mut out, -(n as i64));
            long(&mut out, items.len() as i64);
        } else {
            long(&mut out, n as i64);
        }
        out.extend_from_slice(&items);
        rest = &rest[n..];
    }
    out.push(0);
    out
}

/// Bytes of `input` changed at random: a flipped bit, a cut, a byte
/// inserted or removed, or a run of continuation bytes.
fn corrupt(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    if out.is_empty() {
        return out;
    }
    let at = rng.range(0, out.len() as u64) as usize;
    match rng.range(0, 5) {
        0 => out[at] ^= 1 << rng.range(0, 8),
        1 => out.truncate(at),
        2 => out.insert(at, rng.next_u64() as u8),
        3 => {
            out.remove(at);
        }
        _ => {
            let run = rng.range(1, 12) as usize;
            for i in at..(at + run).min(out.len()) {
                out[i] |= 0x80;
            }
        }
    }
    out
}

#[test]
fn arrays_valid_and_corrupted() {
    let mut rng = Rng::new(2);
    for round in 0..1500 {
        let len = match round % 4 {
            0 => rng.range(0, 8),
            1 => rng.range(8, 300),
            _ => rng.range(300, 3000),
        } as usize;
        let values: Vec<i64> = (0..len)
            .map(|_| match rng.range(0, 10) {
                0 => data::mixed_long(&mut rng),
                1 => rng.next_u64() as i64,
                2 => rng.range(0, 1 << 32) as i64 - (1 << 31),
                _ => data::small_long(&mut rng),
            })
            .collect();
        let input = blocks(&mut rng, &values);
        let mut inputs = vec![input.clone()];
        for _ in 0..3 {
            inputs.push(corrupt(&mut rng, &input));
        }
        for input in &inputs {
            for schema in [data::LONG_ARRAY_SCHEMA, data::INT_ARRAY_SCHEMA] {
                for source in SOURCES {
                    if matches!(source, Source::Chunked(size) if size > 2 && size != 7 && round % 8 != 0)
                    {
                        continue;
                    }
                    check!(
                        format!("{schema} from {input:02x?} via {source:?}"),
                        read_value(schema, input, source)
                    );
                    check!(
                        format!("{schema} twice from {input:02x?} via {source:?}"),
                        read_all(schema, input, source)
                    );
                }
                check!(
                    format!("{schema} serde from {input:02x?}"),
                    read_deser::<Vec<i64>>(schema, input, Source::Chunked(3))
                );
            }
        }
    }
}

#[test]
fn records_valid_and_corrupted() {
    let mut rng = Rng::new(3);
    let records = data::telemetry_records(&mut rng, 300);
    let input = data::datums(data::TELEMETRY_SCHEMA, &records);
    for source in SOURCES {
        check!(
            format!("records via {source:?}"),
            read_all(data::TELEMETRY_SCHEMA, &input, source)
        );
    }
    for record in records.iter().take(100) {
        let input = data::datums(data::TELEMETRY_SCHEMA, std::slice::from_ref(record));
        for _ in 0..20 {
            let input = corrupt(&mut rng, &input);
            for source in [
                Source::Slice,
                Source::Cursor,
                Source::Chunked(1),
                Source::Chunked(4),
            ] {
                check!(
                    format!("record from {input:02x?} via {source:?}"),
                    read_value(data::TELEMETRY_SCHEMA, &input, source)
                );
                check!(
                    format!("record serde from {input:02x?} via {source:?}"),
                    read_deser::<Telemetry>(data::TELEMETRY_SCHEMA, &input, source)
                );
            }
        }
    }
}

#[test]
fn container_valid_and_corrupted() {
    let mut rng = Rng::new(4);
    let records = data::telemetry_records(&mut rng, 200);
    let file = data::container(data::TELEMETRY_SCHEMA, &records);
    for source in SOURCES {
        let expected = upstream::read_container(&file, source);
        assert_eq!(control::read_container(&file, source), expected);
        assert_eq!(vt::read_container(&file, source), expected);
        assert_eq!(vt_bulk::read_container(&file, source), expected);
    }
    for _ in 0..300 {
        let input = corrupt(&mut rng, &file);
        for source in [Source::Slice, Source::Chunked(5)] {
            let expected = upstream::read_container(&input, source);
            assert_eq!(control::read_container(&input, source), expected);
            assert_eq!(vt::read_container(&input, source), expected);
            assert_eq!(vt_bulk::read_container(&input, source), expected);
        }
    }
}

#[test]
fn writes() {
    let mut rng = Rng::new(5);
    let mut edges: Vec<i64> = vec![0, 1, -1, 63, -64, 64, -65, i64::MAX, i64::MIN];
    for bits in 0..63 {
        edges.extend([
            1i64 << bits,
            -(1i64 << bits),
            (1i64 << bits) - 1,
            -(1i64 << bits) - 1,
        ]);
    }
    for &value in &edges {
        check!(
            format!("long {value}"),
            write_scalar(r#""long""#, value, Items::Long)
        );
        check!(
            format!("int {value}"),
            write_scalar(r#""int""#, value, Items::Int)
        );
    }
    for round in 0..400 {
        let values: Vec<i64> = if round == 0 {
            edges.clone()
        } else {
            let len = rng.range(0, 1200) as usize;
            (0..len)
                .map(|_| match rng.range(0, 4) {
                    0 => data::mixed_long(&mut rng),
                    1 => rng.next_u64() as i64,
                    _ => data::small_long(&mut rng),
                })
                .collect()
        };
        for items in [Items::Long, Items::Int, Items::Mixed] {
            check!(
                format!("array of {} {items:?}", values.len()),
                write_array(data::LONG_ARRAY_SCHEMA, &values, items)
            );
            check!(
                format!("int array of {} {items:?}", values.len()),
                write_array(data::INT_ARRAY_SCHEMA, &values, items)
            );
        }
        let ints: Vec<i32> = values.iter().map(|&v| v as i32).collect();
        check!(
            format!("serde array of {}", values.len()),
            write_ser(data::LONG_ARRAY_SCHEMA, &values)
        );
        check!(
            format!("serde int array of {}", values.len()),
            write_ser(data::INT_ARRAY_SCHEMA, &ints)
        );
    }
    let records = data::telemetry_records(&mut rng, 200);
    for record in &records {
        check!("serde record", write_ser(data::TELEMETRY_SCHEMA, record));
    }
}
