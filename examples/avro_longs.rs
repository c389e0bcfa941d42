//! Writes and reads Avro arrays of longs (schema `{"type": "array", "items":
//! "long"}`) with varint-turbo's `avro` module.
//!
//! ```text
//! cargo run --release --example avro_longs
//! ```
//!
//! First a small array, byte by byte, in both block forms the Avro
//! specification allows; then a million timestamps-like deltas, written in
//! blocks of 4,096 and read back with the bulk decoder, with the time it
//! took. Exits with status 1 if anything read back differs.

use std::process::ExitCode;
use std::time::Instant;

use varint_turbo::avro;

fn hex(bytes: &[u8]) -> String {
    let text: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    text.join(" ")
}

/// A fixed-seed xorshift generator, so every run writes the same data.
fn deltas(count: usize) -> Vec<i64> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Mostly small deltas of either sign, now and then a large jump.
            let magnitude = if state % 100 == 0 { 40 } else { 12 };
            (state >> 20) as i64 % (1 << magnitude) - (1 << (magnitude - 1))
        })
        .collect()
}

fn main() -> ExitCode {
    let mut ok = true;

    let small = [1i64, -2, 300, -64, i64::MAX];
    println!("array of longs {small:?}");

    let mut plain = Vec::new();
    avro::encode_long_array(&small, &mut plain);
    println!("  one block, plain count:   {}", hex(&plain));
    println!("    0a = count 5 (zigzag), then the items: 02 = 1, 03 = -2, d8 04 = 300,");
    println!("    7f = -64, fe ff .. ff 01 = i64::MAX; the final 00 ends the array");

    let mut sized = Vec::new();
    avro::encode_long_block_with_size(&small, &mut sized);
    avro::encode_long_array(&[], &mut sized);
    println!("  one block, count + size:  {}", hex(&sized));
    let (count, count_len) = avro::decode_long(&sized).expect("a count");
    let (size, _) = avro::decode_long(&sized[count_len..]).expect("a byte size");
    println!("    count {count} (negative: a byte size follows), byte size {size}");

    for (form, bytes) in [("plain", &plain), ("sized", &sized)] {
        let mut back = Vec::new();
        let result = avro::decode_long_array(bytes, &mut back);
        let same = result == Ok(bytes.len()) && back == small;
        println!(
            "  read back ({form}): {back:?} {}",
            if same { "ok" } else { "DIFFERS" }
        );
        ok &= same;
    }

    // A hostile count (2^62 - 1 items) followed by a single item.
    let hostile = [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x02];
    let (claimed, _) = avro::decode_long(&hostile).expect("a count");
    let mut out = Vec::new();
    let error = avro::decode_long_array(&hostile, &mut out).unwrap_err();
    println!(
        "  a block claiming {claimed} items in {} bytes: {error}; {} item(s) kept, capacity {}",
        hostile.len(),
        out.len(),
        out.capacity()
    );
    ok &= out.capacity() <= hostile.len();

    println!();
    let values = deltas(1 << 20);
    let mut bytes = Vec::new();
    for block in values.chunks(4096) {
        avro::encode_long_block(block, &mut bytes);
    }
    avro::encode_long_array(&[], &mut bytes);
    println!(
        "{} longs in blocks of 4096: {} bytes ({:.2} bytes per value)",
        values.len(),
        bytes.len(),
        bytes.len() as f64 / values.len() as f64
    );
    let mut best = f64::INFINITY;
    let mut back = Vec::with_capacity(values.len());
    for _ in 0..5 {
        back.clear();
        let start = Instant::now();
        let result = avro::decode_long_array(&bytes, &mut back);
        best = best.min(start.elapsed().as_secs_f64());
        ok &= result == Ok(bytes.len());
    }
    let same = back == values;
    ok &= same;
    println!(
        "read back with the {} bulk backend: {} ({:.0} million values/s, best of 5)",
        varint_turbo::detected_backend(),
        if same { "identical" } else { "DIFFERS" },
        values.len() as f64 / best / 1e6
    );

    if ok {
        println!("all checks: ok");
        ExitCode::SUCCESS
    } else {
        println!("some check FAILED");
        ExitCode::FAILURE
    }
}
