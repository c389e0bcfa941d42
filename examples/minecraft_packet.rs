//! Frames Minecraft: Java Edition packets with VarInt length prefixes, as
//! the protocol does (uncompressed format: `Length` VarInt, then `Packet ID`
//! VarInt and the data, `Length` counting both).
//!
//! ```text
//! cargo run --release --example minecraft_packet
//! ```
//!
//! A Minecraft VarInt is an `i32` written as the varint of its `u32` bits:
//! at most 5 bytes, negative values always 5. `decode::<u32>` has exactly
//! the protocol's rule: a sixth byte is "VarInt too big" (`Overflow`).
//!
//! The length comes before the body, but a writer often only knows it
//! after writing the body. The usual trick: reserve a fixed-width
//! placeholder, write the body, then fill in the length as a *padded*
//! varint of exactly that width (e.g. 5 as `85 80 00`). Three bytes hold
//! any length up to 2^21 - 1, the protocol's largest packet; five bytes
//! hold any VarInt. Decoders accept the padded form like any other varint.
//!
//! The example builds a handshake the plain way and two status responses
//! with 3- and 5-byte placeholders, sends them as one byte stream cut into
//! odd-sized segments (as TCP may deliver it), reassembles the packets,
//! and exits with status 1 if any packet differs.

use std::process::ExitCode;

use varint_turbo::DecodeError;

/// The protocol's largest packet (`Length` fits 3 varint bytes).
const MAX_PACKET: usize = (1 << 21) - 1;

fn hex(bytes: &[u8]) -> String {
    let text: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    text.join(" ")
}

/// Appends a VarInt (an `i32` as the varint of its bits).
fn put_varint(out: &mut Vec<u8>, value: i32) {
    let (bytes, len) = varint_turbo::encode(value as u32);
    out.extend_from_slice(&bytes[..usize::from(len)]);
}

/// Appends a protocol `String`: VarInt byte length, then UTF-8.
fn put_string(out: &mut Vec<u8>, text: &str) {
    put_varint(out, text.len() as i32);
    out.extend_from_slice(text.as_bytes());
}

/// `value` as a varint padded to exactly `WIDTH` bytes: every byte but the
/// last has the continuation bit. `None` if it needs more than `WIDTH`.
fn padded_varint<const WIDTH: usize>(value: u32) -> Option<[u8; WIDTH]> {
    if WIDTH == 0 || (WIDTH < 5 && value >> (7 * WIDTH) != 0) {
        return None;
    }
    let mut out = [0u8; WIDTH];
    for (i, byte) in out.iter_mut().enumerate() {
        let group = ((u64::from(value) >> (7 * i)) & 0x7f) as u8;
        *byte = if i + 1 < WIDTH { group | 0x80 } else { group };
    }
    Some(out)
}

/// Writes a packet whose length is only known at the end: a `WIDTH`-byte
/// placeholder (the padded zero), the packet ID and data from `body`, then
/// the real length over the placeholder.
fn frame_with_placeholder<const WIDTH: usize>(
    out: &mut Vec<u8>,
    packet_id: i32,
    body: impl FnOnce(&mut Vec<u8>),
) {
    let start = out.len();
    out.extend_from_slice(&padded_varint::<WIDTH>(0).expect("zero fits any width"));
    put_varint(out, packet_id);
    body(out);
    let length = out.len() - start - WIDTH;
    assert!(
        length <= MAX_PACKET,
        "packet of {length} bytes is too large"
    );
    let prefix = padded_varint::<WIDTH>(length as u32).expect("checked against MAX_PACKET");
    out[start..start + WIDTH].copy_from_slice(&prefix);
}

/// Writes a packet the plain way: body first, then the minimal prefix.
fn frame(out: &mut Vec<u8>, packet_id: i32, data: &[u8]) {
    let mut packet = Vec::new();
    put_varint(&mut packet, packet_id);
    packet.extend_from_slice(data);
    put_varint(out, packet.len() as i32);
    out.extend_from_slice(&packet);
}

/// A packet as the receiver sees it.
#[derive(Debug, PartialEq)]
struct Packet {
    prefix: Vec<u8>,
    id: i32,
    data: Vec<u8>,
}

/// Takes every complete packet off the front of `buffer`. A cut-off length
/// prefix or body means "wait for more bytes"; a prefix longer than 5
/// bytes, or a length over the limit, is a protocol error.
fn take_packets(buffer: &mut Vec<u8>, packets: &mut Vec<Packet>) -> Result<(), String> {
    let mut pos = 0;
    loop {
        let rest = &buffer[pos..];
        let (length, prefix_len) = match varint_turbo::decode::<u32>(rest) {
            Ok(decoded) => decoded,
            Err(DecodeError::Truncated) => break,
            // Overflow (and any kind a later version adds: `DecodeError` is
            // `#[non_exhaustive]`).
            Err(error) => return Err(format!("bad VarInt length prefix: {error}")),
        };
        let length = length as usize;
        if length > MAX_PACKET || length == 0 {
            return Err(format!("bad packet length {length}"));
        }
        if rest.len() < prefix_len + length {
            break; // the rest of this packet is still on its way
        }
        let packet = &rest[prefix_len..prefix_len + length];
        let (id, id_len) = varint_turbo::decode::<u32>(packet).map_err(|e| e.to_string())?;
        packets.push(Packet {
            prefix: rest[..prefix_len].to_vec(),
            id: id as i32,
            data: packet[id_len..].to_vec(),
        });
        pos += prefix_len + length;
    }
    buffer.drain(..pos);
    Ok(())
}

fn main() -> ExitCode {
    let mut ok = true;

    // Handshake (serverbound 0x00): protocol version, address, port, next state.
    let mut handshake = Vec::new();
    put_varint(&mut handshake, 767);
    put_string(&mut handshake, "localhost");
    handshake.extend_from_slice(&25565u16.to_be_bytes());
    put_varint(&mut handshake, 1);

    let mut stream = Vec::new();
    frame(&mut stream, 0x00, &handshake);
    println!("handshake, minimal length prefix:");
    println!("  {}", hex(&stream));
    println!("  10 = length 16; 00 = packet id; ff 05 = protocol 767; 09 + \"localhost\"; 63 dd = port 25565; 01 = status");

    let status =
        r#"{"version":{"name":"1.21","protocol":767},"description":{"text":"varint-turbo"}}"#;
    let json_len = status.len();
    let start = stream.len();
    frame_with_placeholder::<3>(&mut stream, 0x00, |out| put_string(out, status));
    println!("status response ({json_len}-byte JSON), 3-byte placeholder filled in afterwards:");
    println!(
        "  prefix {}  (= length {}, padded)",
        hex(&stream[start..start + 3]),
        stream.len() - start - 3
    );

    let start = stream.len();
    frame_with_placeholder::<5>(&mut stream, 0x01, |out| {
        out.extend_from_slice(&1234567890i64.to_be_bytes())
    });
    println!("pong (packet 0x01, 8-byte payload), 5-byte placeholder:");
    println!("  {}", hex(&stream[start..]));

    println!(
        "placeholders: 3 bytes {} and 5 bytes {}",
        hex(&padded_varint::<3>(5).unwrap()),
        hex(&padded_varint::<5>(5).unwrap())
    );
    for padded in [
        &padded_varint::<3>(5).unwrap()[..],
        &padded_varint::<5>(5).unwrap()[..],
    ] {
        let decoded = varint_turbo::decode::<u32>(padded);
        println!("  decode::<u32>({}) = {decoded:?}", hex(padded));
        ok &= decoded == Ok((5, padded.len()));
    }
    let negative = {
        let mut out = Vec::new();
        put_varint(&mut out, -1);
        out
    };
    println!(
        "VarInt -1 = {} (negative VarInts always take 5 bytes)",
        hex(&negative)
    );
    let too_big = varint_turbo::decode::<u32>(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    println!("a 6-byte VarInt: {too_big:?} (the protocol's \"VarInt too big\")");
    ok &= too_big == Err(DecodeError::Overflow);

    // Receive the stream in odd-sized segments and reassemble the packets.
    println!();
    println!(
        "{} bytes sent, received in segments of 7, 1, 13, 2, ... bytes:",
        stream.len()
    );
    let mut buffer = Vec::new();
    let mut packets = Vec::new();
    let mut sizes = [7, 1, 13, 2, 40].into_iter().cycle();
    let mut sent = 0;
    while sent < stream.len() {
        let size = sizes.next().unwrap().min(stream.len() - sent);
        buffer.extend_from_slice(&stream[sent..sent + size]);
        sent += size;
        let before = packets.len();
        if let Err(error) = take_packets(&mut buffer, &mut packets) {
            println!("  protocol error: {error}");
            return ExitCode::FAILURE;
        }
        for packet in &packets[before..] {
            println!(
                "  after {sent:>3} bytes: packet id 0x{:02x}, {} data bytes, length prefix {}",
                packet.id,
                packet.data.len(),
                hex(&packet.prefix)
            );
        }
    }
    let expected_data = [handshake.len(), 1 + json_len, 8];
    let got_data: Vec<usize> = packets.iter().map(|p| p.data.len()).collect();
    let ids: Vec<i32> = packets.iter().map(|p| p.id).collect();
    ok &= got_data == expected_data && ids == [0, 0, 1] && buffer.is_empty();
    ok &= packets.first().map(|p| &p.data) == Some(&handshake);
    ok &= packets
        .get(1)
        .is_some_and(|p| p.data.ends_with(status.as_bytes()));

    if ok {
        println!("all packets reassembled: ok");
        ExitCode::SUCCESS
    } else {
        println!("FAILED: {packets:?}");
        ExitCode::FAILURE
    }
}
