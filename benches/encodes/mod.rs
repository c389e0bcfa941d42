//! `VARINT_BENCH_PAIRED=encode cargo bench --features bytes --bench single`:
//! the single-value encoders, `encoded_len` and the wrapping decode against
//! the host crates' own loops, in alternating rounds (issues 40 and 44).
//!
//! **Shapes** ([`SHAPES`], fixed seeds, `u64` values as protobuf encodes
//! them): all 1-byte; 95% 1-byte + 5% 2-byte; `int32` with 10% negatives
//! (90% below 2^14, so mostly 2-byte; the negatives sign-extended to 10
//! bytes); the protobuf-like mix; zigzag deltas of 1-5 bytes (the prost
//! harness's packed `sint64`); 8-byte timestamps (microseconds since
//! 1970, about 2^50.6). Each is a pool of 2^20 values ([`POOL`]; 2^14 when
//! the benchmarks run once as a check).
//!
//! **Windows.** A turn walks windows of `W` consecutive values (W = 16,
//! 256, 4,096 and the whole pool), one after the other from a
//! pseudo-random start, about [`VALUES_PER_TURN`] values in all: a packed
//! field or a message's worth of values per call, then the next. (Windows
//! from random starts measured the cache misses of their first values:
//! about 13 ns per value at W = 16 for every contender.) Encoders write a window into an output that
//! starts empty (a slice, a `Vec` cleared first, as a message encoder
//! reuses its buffer); length functions sum a window (a packed field's
//! size); decoders walk a window's varints.
//!
//! **Rounds.** Every round times each contender of a table once on the
//! same windows, the order rotating from round to round; the table gives
//! the median ns per value of each and its time relative to the first
//! column's. `VARINT_BENCH_ROUNDS` sets the rounds (default 15),
//! `VARINT_BENCH_SHAPES` a comma-separated subset of shapes,
//! `VARINT_BENCH_WINDOWS` of windows (`16,256`).
//!
//! **Checks.** Every window's length (or checksum) is compared with the
//! pool's inside the timed loop, the bytes of each turn's last window after
//! it: a wrong contender panics instead of reporting a number.

use std::hint::black_box;
use std::io::Write;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::common::{self, peers, reference_encode, Clock};

/// Values per pool when measuring.
const POOL: usize = 1 << 20;
/// Values per pool when the benchmarks run once as a check.
const CHECK_POOL: usize = 1 << 14;
/// About how many values each contender handles per round.
const VALUES_PER_TURN: usize = 1 << 18;
/// The window sizes; `usize::MAX` stands for the whole pool.
const WINDOWS: [usize; 4] = [16, 256, 4096, usize::MAX];

/// One value distribution.
struct Shape {
    name: &'static str,
    seed: u64,
    draw: fn(&mut StdRng) -> u64,
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "1byte",
        seed: 4001,
        draw: |rng| rng.gen_range(0..1 << 7),
    },
    Shape {
        name: "95x1+5x2",
        seed: 4002,
        draw: |rng| {
            if rng.gen_range(0..100) < 95 {
                rng.gen_range(0..1 << 7)
            } else {
                rng.gen_range(1 << 7..1 << 14)
            }
        },
    },
    Shape {
        name: "int32-neg10",
        seed: 4003,
        draw: |rng| {
            if rng.gen_range(0..100) < 10 {
                i64::from(rng.gen_range(-(1 << 20)..0i32)) as u64
            } else {
                rng.gen_range(0..1 << 14)
            }
        },
    },
    Shape {
        name: "mix",
        seed: 4004,
        draw: common::protobuf_mix,
    },
    Shape {
        name: "sint64-deltas",
        seed: 4006,
        // The prost harness's packed `sint64` deltas: a random sign and a
        // log-uniform magnitude below 2^32, zigzag-encoded (1-5 bytes,
        // about evenly).
        draw: |rng| {
            let bits = rng.gen_range(0..=32u32);
            let magnitude = match bits {
                0 => 0,
                _ => rng.gen_range(1i64 << (bits - 1)..1i64 << bits),
            };
            let value = if rng.gen_bool(0.5) {
                magnitude
            } else {
                -magnitude
            };
            ((value << 1) ^ (value >> 63)) as u64
        },
    },
    Shape {
        name: "ts8",
        seed: 4005,
        // Microseconds since 1970 in 2020-2027: 8-byte varints.
        draw: |rng| rng.gen_range(1_577_836_800_000_000..1_830_297_600_000_000),
    },
];

/// A shape's values and their varints.
struct Pool {
    values: Vec<u64>,
    bytes: Vec<u8>,
    /// `offsets[i]`: where varint `i` starts; `offsets[len]`: the end.
    offsets: Vec<usize>,
    /// `sums[i]`: wrapping sum of values `0..i`.
    sums: Vec<u64>,
}

impl Pool {
    fn new(shape: &Shape) -> Self {
        let count = if common::measuring() {
            POOL
        } else {
            CHECK_POOL
        };
        let mut rng = StdRng::seed_from_u64(shape.seed);
        let values: Vec<u64> = (0..count).map(|_| (shape.draw)(&mut rng)).collect();
        let (mut bytes, mut offsets, mut sums) = (Vec::new(), vec![0], vec![0u64]);
        for &value in &values {
            reference_encode(value, &mut bytes);
            offsets.push(bytes.len());
            sums.push(sums[sums.len() - 1].wrapping_add(value));
        }
        // Room for the 16-byte reads of the kernels past the last varint.
        bytes.resize(bytes.len() + 16, 0);
        Pool {
            values,
            bytes,
            offsets,
            sums,
        }
    }

    fn encoded(&self, start: usize, len: usize) -> &[u8] {
        &self.bytes[self.offsets[start]..self.offsets[start + len]]
    }
}

/// An encoder into the start of a slice with room for 10 bytes per value
/// and 16 more: the bytes written.
type SliceEncode = fn(&[u64], &mut [u8]) -> usize;
/// An encoder appending to a `Vec` (cleared by the caller).
type VecEncode = fn(&[u64], &mut Vec<u8>) -> usize;
/// The sum of the values' encoded lengths.
type LenSum = fn(&[u64]) -> usize;
/// A decoder of `count` varints from the start of a slice: the wrapping
/// sum of the values and the bytes consumed.
type Decode = fn(&[u8], usize) -> Option<(u64, usize)>;

// ---------------------------------------------------------------------------
// The contenders, each its own `#[inline(never)]` loop over a window.

/// `encode_to_slice(value, &mut out[pos..])` per value.
#[inline(never)]
fn turbo_encode_to_slice(values: &[u64], out: &mut [u8]) -> usize {
    common::encode_each(values, out, varint_turbo::encode_to_slice)
}

/// The host's loop: the shape of protobuf C++'s inline writers, a 1-byte
/// and a 2-byte branch, then a byte loop.
#[inline(never)]
fn host_encode(values: &[u64], out: &mut [u8]) -> usize {
    common::encode_each(values, out, host_encode_one)
}

#[inline(always)]
fn host_encode_one(value: u64, out: &mut [u8]) -> usize {
    if value < 0x80 {
        out[0] = value as u8;
        return 1;
    }
    if value < 0x4000 {
        out[0] = value as u8 | 0x80;
        out[1] = (value >> 7) as u8;
        return 2;
    }
    peers::byte_loop_encode(&[value], out)
}

#[inline(never)]
fn prost_encode_slice(values: &[u64], out: &mut [u8]) -> usize {
    peers::prost_encode(values, out)
}

#[inline(never)]
fn integer_encoding_encode(values: &[u64], out: &mut [u8]) -> usize {
    peers::integer_encoding_encode(values, out)
}

#[inline(never)]
fn turbo_encode_to_vec(values: &[u64], out: &mut Vec<u8>) -> usize {
    values
        .iter()
        .map(|&value| varint_turbo::encode_to_vec(value, out))
        .sum()
}

#[cfg(feature = "bytes")]
#[inline(never)]
fn turbo_put_varint(values: &[u64], out: &mut Vec<u8>) -> usize {
    use varint_turbo::BufMutVarint;
    values.iter().map(|&value| out.put_varint(value)).sum()
}

#[inline(never)]
fn turbo_write_varint(values: &[u64], out: &mut Vec<u8>) -> usize {
    use varint_turbo::WriteVarint;
    values
        .iter()
        .map(|&value| out.write_varint(value).expect("a Vec takes every write"))
        .sum()
}

/// `write_varint` through `&mut dyn Write`: the writer is not known.
#[inline(never)]
fn turbo_write_varint_dyn(values: &[u64], out: &mut Vec<u8>) -> usize {
    use varint_turbo::WriteVarint;
    let start = out.len();
    let writer: &mut dyn Write = black_box(out);
    for &value in values {
        writer.write_varint(value).expect("a Vec takes every write");
    }
    out.len() - start
}

/// prost's `encode_varint` into a `Vec` (how prost encodes a message).
#[inline(never)]
fn prost_encode_vec(values: &[u64], out: &mut Vec<u8>) -> usize {
    let start = out.len();
    for &value in values {
        prost::encoding::encode_varint(value, out);
    }
    out.len() - start
}

/// quick-protobuf's `Writer::write_varint` on a `Vec` (its `Write` backend).
#[inline(never)]
fn quick_protobuf_encode_vec(values: &[u64], out: &mut Vec<u8>) -> usize {
    let start = out.len();
    let mut writer = quick_protobuf::Writer::new(&mut *out);
    for &value in values {
        writer.write_varint(value).expect("a Vec takes every write");
    }
    out.len() - start
}

/// The host's 1-/2-byte branches pushing to a `Vec`.
#[inline(never)]
fn host_encode_vec(values: &[u64], out: &mut Vec<u8>) -> usize {
    let start = out.len();
    for &value in values {
        let mut bytes = [0u8; 10];
        let len = host_encode_one(value, &mut bytes);
        out.extend_from_slice(&bytes[..len]);
    }
    out.len() - start
}

#[inline(never)]
fn turbo_len(values: &[u64]) -> usize {
    values
        .iter()
        .map(|&value| varint_turbo::encoded_len(value))
        .sum()
}

#[inline(never)]
fn turbo_len_sum(values: &[u64]) -> usize {
    varint_turbo::encoded_len_sum(values)
}

/// A packed `uint64` field's payload length: the protobuf module's sum,
/// which prost's harness calls for packed 64-bit fields.
#[inline(never)]
fn turbo_len_packed(values: &[u64]) -> usize {
    varint_turbo::protobuf::uint64::encoded_len_packed(values)
}

/// `encoded_len`'s former form: a predicted branch below 2^14, else
/// `VarintSize64`.
#[inline(never)]
fn branch_below_2_14_len(values: &[u64]) -> usize {
    values
        .iter()
        .map(|&value| {
            if value < 1 << 14 {
                1 + usize::from(value >= 0x80)
            } else {
                peers::prost_len(value)
            }
        })
        .sum()
}

/// protobuf C++'s `VarintSize64` (prost's `encoded_len_varint`).
#[inline(never)]
fn prost_len(values: &[u64]) -> usize {
    values.iter().map(|&value| peers::prost_len(value)).sum()
}

/// quick-protobuf's `sizeof_varint`, a chain of range compares.
#[inline(never)]
fn quick_protobuf_len(values: &[u64]) -> usize {
    values
        .iter()
        .map(|&value| peers::quick_protobuf_len(value))
        .sum()
}

/// The host's compare chain, written out: `if v < 0x80 {1} else if ...`.
#[inline(never)]
fn host_len(values: &[u64]) -> usize {
    values.iter().map(|&value| host_len_one(value)).sum()
}

#[inline(always)]
fn host_len_one(value: u64) -> usize {
    if value < 1 << 7 {
        1
    } else if value < 1 << 14 {
        2
    } else if value < 1 << 21 {
        3
    } else if value < 1 << 28 {
        4
    } else {
        peers::byte_loop_len(value)
    }
}

#[inline(never)]
fn integer_encoding_len(values: &[u64]) -> usize {
    values
        .iter()
        .map(|&value| peers::integer_encoding_len(value))
        .sum()
}

/// A window's varints decoded one by one with `decode`.
#[inline(always)]
fn decode_window(
    bytes: &[u8],
    count: usize,
    decode: impl Fn(&[u8]) -> Option<(u64, usize)>,
) -> Option<(u64, usize)> {
    let (mut sum, mut pos) = (0u64, 0);
    for _ in 0..count {
        let (value, len) = decode(&bytes[pos..])?;
        sum = sum.wrapping_add(value);
        pos += len;
    }
    Some((sum, pos))
}

#[inline(never)]
fn turbo_decode(bytes: &[u8], count: usize) -> Option<(u64, usize)> {
    decode_window(bytes, count, |rest| varint_turbo::decode::<u64>(rest).ok())
}

#[inline(never)]
fn turbo_decode_wrapping(bytes: &[u8], count: usize) -> Option<(u64, usize)> {
    decode_window(bytes, count, |rest| {
        varint_turbo::decode_wrapping::<u64>(rest).ok()
    })
}

#[inline(never)]
fn prost_decode(bytes: &[u8], count: usize) -> Option<(u64, usize)> {
    let mut sum = 0u64;
    let consumed = peers::prost_decode(bytes, count, |value, _| sum = sum.wrapping_add(value))?;
    Some((sum, consumed))
}

// ---------------------------------------------------------------------------
// The tables.

enum Run {
    Slice(SliceEncode),
    Vec(VecEncode),
    Len(LenSum),
    Decode(Decode),
}

const ENCODE_TO_SLICE: &[(&str, Run)] = &[
    ("encode_to_slice", Run::Slice(turbo_encode_to_slice)),
    ("host 1/2-byte", Run::Slice(host_encode)),
    ("prost", Run::Slice(prost_encode_slice)),
    ("integer-encoding", Run::Slice(integer_encoding_encode)),
];

/// The appending encoders (`put_varint` with feature `bytes`).
fn append() -> Vec<(&'static str, Run)> {
    let mut contenders = vec![("encode_to_vec", Run::Vec(turbo_encode_to_vec))];
    #[cfg(feature = "bytes")]
    contenders.push(("put_varint", Run::Vec(turbo_put_varint)));
    contenders.extend([
        ("write_varint", Run::Vec(turbo_write_varint)),
        ("write_varint(dyn)", Run::Vec(turbo_write_varint_dyn)),
        ("host 1/2-byte", Run::Vec(host_encode_vec)),
        ("prost", Run::Vec(prost_encode_vec)),
        ("quick-protobuf", Run::Vec(quick_protobuf_encode_vec)),
    ]);
    contenders
}

const LENGTHS: &[(&str, Run)] = &[
    ("encoded_len", Run::Len(turbo_len)),
    ("branch below 2^14", Run::Len(branch_below_2_14_len)),
    ("VarintSize64", Run::Len(prost_len)),
    ("host chain", Run::Len(host_len)),
    ("quick-protobuf", Run::Len(quick_protobuf_len)),
    ("integer-encoding", Run::Len(integer_encoding_len)),
    ("encoded_len_sum", Run::Len(turbo_len_sum)),
    ("uint64::encoded_len_packed", Run::Len(turbo_len_packed)),
];

const DECODES: &[(&str, Run)] = &[
    ("decode", Run::Decode(turbo_decode)),
    ("decode_wrapping", Run::Decode(turbo_decode_wrapping)),
    ("prost", Run::Decode(prost_decode)),
];

/// The buffers a turn writes into.
struct Buffers {
    slice: Vec<u8>,
    vec: Vec<u8>,
}

/// Runs `run` on the window of `len` values at `start` and checks it;
/// `verify` also compares the bytes written.
#[inline(always)]
fn window(run: &Run, pool: &Pool, start: usize, len: usize, buffers: &mut Buffers, verify: bool) {
    let values = &pool.values[start..start + len];
    let expected = pool.encoded(start, len);
    let (got, want) = match *run {
        Run::Slice(encode) => {
            let written = encode(values, black_box(&mut buffers.slice[..]));
            if verify && buffers.slice[..written] != *expected {
                panic!("window at {start}: different bytes");
            }
            (written as u64, expected.len() as u64)
        }
        Run::Vec(encode) => {
            buffers.vec.clear();
            let written = encode(values, black_box(&mut buffers.vec));
            if verify && (buffers.vec[..] != *expected || written != buffers.vec.len()) {
                panic!("window at {start}: different bytes");
            }
            (written as u64, expected.len() as u64)
        }
        Run::Len(sum) => (sum(black_box(values)) as u64, expected.len() as u64),
        Run::Decode(decode) => {
            let from = &pool.bytes[pool.offsets[start]..];
            let (sum, consumed) = decode(black_box(from), len).expect("valid varints");
            let want = pool.sums[start + len].wrapping_sub(pool.sums[start]);
            if consumed != expected.len() {
                panic!(
                    "window at {start}: consumed {consumed}, not {}",
                    expected.len()
                );
            }
            (sum, want)
        }
    };
    if got != want {
        panic!("window at {start}: got {got}, expected {want}");
    }
}

/// One row: every contender on the windows of `len` values, in `rounds`
/// alternating rounds; the medians, ns per value.
fn row(
    contenders: &[(&str, Run)],
    pool: &Pool,
    len: usize,
    rounds: usize,
    clock: Clock,
) -> Vec<f64> {
    let count = pool.values.len();
    let windows_per_turn = (VALUES_PER_TURN / len).max(1);
    let mut buffers = Buffers {
        slice: vec![0u8; len * 10 + 16],
        vec: Vec::with_capacity(len * 10 + 16),
    };
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); contenders.len()];
    for round in 0..rounds {
        for turn in 0..contenders.len() {
            let k = (round + turn) % contenders.len();
            let run = &contenders[k].1;
            // Consecutive windows from a pseudo-random start (the same in
            // every turn of a round): each window's values are new to the
            // branch predictors, and the hardware prefetcher streams them,
            // as a message encoder's own fields would be in cache.
            let seed = 0x853c_49e6_748f_ea9b ^ (round as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let starts = count - len + 1;
            let base = ((seed >> 33) as usize) % starts;
            let mut i = 0;
            let mut next_start = || {
                i += 1;
                (base + (i - 1) * len) % starts
            };
            let mut last = 0;
            times[k].push(clock.time(|| {
                for _ in 0..windows_per_turn {
                    last = next_start();
                    window(run, pool, last, len, &mut buffers, false);
                }
            }));
            window(run, pool, last, len, &mut buffers, true);
        }
    }
    let values = (windows_per_turn * len) as f64;
    times
        .iter_mut()
        .map(|t| {
            t.sort();
            t[t.len() / 2].as_secs_f64() * 1e9 / values
        })
        .collect()
}

fn table(
    title: &str,
    contenders: &[(&str, Run)],
    pools: &[(&str, Pool)],
    rounds: usize,
    clock: Clock,
) {
    println!("\n{title}: ns per value (time / first column's)");
    print!("{:<12} {:>8}", "shape", "W");
    for (name, _) in contenders {
        print!(" {name:>24}");
    }
    println!();
    for (name, pool) in pools {
        for w in selected_windows() {
            let len = w.min(pool.values.len());
            let medians = row(contenders, pool, len, rounds, clock);
            let w_name = if w == usize::MAX {
                "all".to_string()
            } else {
                w.to_string()
            };
            print!("{name:<12} {w_name:>8}");
            for median in &medians {
                print!(" {:>15.3} ({:>5.2})", median, median / medians[0]);
            }
            println!();
        }
    }
}

fn selected_windows() -> Vec<usize> {
    match std::env::var("VARINT_BENCH_WINDOWS") {
        Ok(list) => list
            .split(',')
            .map(|w| match w {
                "all" => usize::MAX,
                w => w.parse().expect("VARINT_BENCH_WINDOWS: numbers or `all`"),
            })
            .collect(),
        Err(_) => WINDOWS.to_vec(),
    }
}

pub fn run() {
    let rounds = std::env::var("VARINT_BENCH_ROUNDS")
        .map(|r| r.parse().expect("VARINT_BENCH_ROUNDS: a number"))
        .unwrap_or(15);
    let clock = Clock::from_env();
    let chosen = std::env::var("VARINT_BENCH_SHAPES").unwrap_or_default();
    let pools: Vec<(&str, Pool)> = SHAPES
        .iter()
        .filter(|shape| chosen.is_empty() || chosen.split(',').any(|name| name == shape.name))
        .map(|shape| (shape.name, Pool::new(shape)))
        .collect();
    let tables = std::env::var("VARINT_BENCH_TABLES").unwrap_or_default();
    println!(
        "single-value encodes and lengths: {rounds} rounds, about {VALUES_PER_TURN} values per \
         contender per round; single-value backend {}; clock: {}",
        varint_turbo::single_value_backend(),
        clock.describe()
    );
    let append = append();
    let all: [(&str, &[(&str, Run)]); 4] = [
        ("slice", ENCODE_TO_SLICE),
        ("append", &append),
        ("len", LENGTHS),
        ("decode", DECODES),
    ];
    for (name, contenders) in all {
        if tables.is_empty() || tables.split(',').any(|t| t == name) {
            table(name, contenders, &pools, rounds, clock);
        }
    }
}
