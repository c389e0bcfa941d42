//! Signed LEB128 benchmarks (issue 41): `varint_turbo::sleb128` against
//! the readers WebAssembly and DWARF tools use, on shapes from real
//! binaries, and its bulk decoder against the unsigned one on the same
//! bytes.
//!
//! **Shapes** ([`SHAPES`]): 1,000,000 values each (20,000 when the benches
//! run once as a check), drawn with a fixed seed and encoded back to back
//! (shortest encodings) by the `leb128` crate's writer:
//!
//! * `wasm-i32-const` (`i32`): `i32.const` immediates: 70% in -16..64, 20%
//!   in -2,000..70,000, 8% addresses in 2^16..2^22, 2% any `i32` (masks,
//!   hashes: half of them negative 5-byte varints);
//! * `wasm-offsets` (`i32`): load/store offsets and struct field offsets:
//!   60% multiples of 4 below 64, 30% below 4,096, 10% below 2^20;
//! * `dwarf-line-advance` (`i64`): `DW_LNS_advance_line` operands: 85% in
//!   -8..24, 13% in -300..300, 2% in -100,000..100,000;
//! * `dwarf-sdata` (`i64`): CFA and frame offsets, `DW_FORM_sdata`: 50%
//!   multiples of -8 down to -256, 30% in 0..16,000, 20% any `i32`;
//! * `wasm-i64-const` (`i64`): 60% in -16..64, 30% any `i32`, 10% any `i64`.
//!
//! **Single values in a parse loop** (`sleb128_single/<shape>/<contender>`):
//! one pass over the whole buffer, one value after the other, the next
//! position from the last length, as a parser walks a code section:
//! `sleb128::decode`, wasmparser's `BinaryReader::read_var_i32/i64`, gimli's
//! `leb128::read::signed` on an `EndianSlice` and the `leb128` crate's
//! `read::signed` on a `&[u8]` (the last two read `i64` and narrow for the
//! `i32` shapes, as their users do).
//!
//! **Bulk** (`sleb128_bulk/<shape>/<contender>`): the buffer in calls of
//! [`WINDOW`] values (4,096): `sleb128::decode_slice` (the API's dispatch),
//! `decode_slice_on` each backend this CPU supports, the unsigned
//! `decode_slice::<u64>` on the same bytes (the 1.2x target; where
//! the shape's bytes are valid `u32` varints, `::<u32>` too; and on the
//! SSSE3 backend, `on-ssse3`'s reference) and the peers' loops over the
//! same windows.
//!
//! Each timed iteration's values are checked against the drawn ones
//! outside the timed part. `VARINT_BENCH_PAIRED=1` prints the table of
//! alternating rounds (`VARINT_BENCH_ROUNDS`, default 15) that
//! BENCHMARKS.md ("Signed LEB128") reports: each round times every
//! contender once per row, in an order that rotates from round to round,
//! and the table gives the median per value of each.

use std::hint::black_box;
use std::time::Duration;

#[allow(dead_code)]
mod common;
use common::{measuring, Clock};

use criterion::{criterion_group, Criterion, SamplingMode, Throughput};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use varint_turbo::sleb128::{self, SignedLeb128};
use varint_turbo::Backend;

/// Values per shape (the 1M-value pools).
const VALUES: usize = 1_000_000;
/// Values per shape when the benches run once as a check.
const CHECK_VALUES: usize = 20_000;
/// Values per bulk call.
const WINDOW: usize = 4096;

/// One value distribution.
struct Shape {
    name: &'static str,
    seed: u64,
    /// `i64` (else `i32`).
    wide: bool,
    draw: fn(&mut StdRng) -> i64,
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "wasm-i32-const",
        seed: 41_01,
        wide: false,
        draw: |rng| match rng.gen_range(0..100) {
            0..70 => rng.gen_range(-16..64),
            70..90 => rng.gen_range(-2_000..70_000),
            90..98 => rng.gen_range(1 << 16..1 << 22),
            _ => i64::from(rng.gen::<i32>()),
        },
    },
    Shape {
        name: "wasm-offsets",
        seed: 41_02,
        wide: false,
        draw: |rng| match rng.gen_range(0..100) {
            0..60 => 4 * rng.gen_range(0..16),
            60..90 => rng.gen_range(0..4096),
            _ => rng.gen_range(0..1 << 20),
        },
    },
    Shape {
        name: "dwarf-line-advance",
        seed: 41_03,
        wide: true,
        draw: |rng| match rng.gen_range(0..100) {
            0..85 => rng.gen_range(-8..24),
            85..98 => rng.gen_range(-300..300),
            _ => rng.gen_range(-100_000..100_000),
        },
    },
    Shape {
        name: "dwarf-sdata",
        seed: 41_04,
        wide: true,
        draw: |rng| match rng.gen_range(0..100) {
            0..50 => -8 * rng.gen_range(0..33),
            50..80 => rng.gen_range(0..16_000),
            _ => i64::from(rng.gen::<i32>()),
        },
    },
    Shape {
        name: "wasm-i64-const",
        seed: 41_05,
        wide: true,
        draw: |rng| match rng.gen_range(0..100) {
            0..60 => rng.gen_range(-16..64),
            60..90 => i64::from(rng.gen::<i32>()),
            _ => rng.gen(),
        },
    },
];

/// A shape's pool: the values, their bytes, and where each window of
/// [`WINDOW`] values starts in the bytes.
struct Pool {
    wide: bool,
    values: Vec<i64>,
    bytes: Vec<u8>,
    window_starts: Vec<usize>,
}

fn pool(shape: &Shape) -> Pool {
    let count = if measuring() { VALUES } else { CHECK_VALUES };
    let mut rng = StdRng::seed_from_u64(shape.seed);
    let mut values = Vec::with_capacity(count);
    let mut bytes = Vec::new();
    let mut window_starts = Vec::new();
    for i in 0..count {
        let value = (shape.draw)(&mut rng);
        if i % WINDOW == 0 {
            window_starts.push(bytes.len());
        }
        leb128::write::signed(&mut bytes, value).expect("a Vec takes it");
        values.push(value);
    }
    window_starts.push(bytes.len());
    Pool {
        wide: shape.wide,
        values,
        bytes,
        window_starts,
    }
}

/// The output buffers, one of each type, the pool's length each.
struct Out {
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    u32s: Vec<u32>,
    u64s: Vec<u64>,
}

impl Out {
    fn new(len: usize) -> Self {
        Out {
            i32s: vec![0; len],
            i64s: vec![0; len],
            u32s: vec![0; len],
            u64s: vec![0; len],
        }
    }
}

/// A signed output type: its buffer in [`Out`].
trait Slot: SignedLeb128 + Into<i64> + Default {
    fn slots(out: &mut Out) -> &mut [Self];
    fn narrow(value: i64) -> Self;
}
impl Slot for i32 {
    fn slots(out: &mut Out) -> &mut [i32] {
        &mut out.i32s
    }
    fn narrow(value: i64) -> i32 {
        value as i32
    }
}
impl Slot for i64 {
    fn slots(out: &mut Out) -> &mut [i64] {
        &mut out.i64s
    }
    fn narrow(value: i64) -> i64 {
        value
    }
}

/// A contender: decodes the whole pool into its buffer of `Out`, returns
/// the bytes consumed (checked by the caller, with the values).
type Run = fn(&Pool, &mut Out) -> usize;

/// `sleb128::decode` in a parse loop.
#[inline(never)]
fn ours_single<T: Slot>(pool: &Pool, out: &mut Out) -> usize {
    let bytes = &pool.bytes[..];
    let mut pos = 0;
    for slot in T::slots(out).iter_mut() {
        let (value, len) = sleb128::decode::<T>(&bytes[pos..]).expect("valid");
        *slot = value;
        pos += len;
    }
    pos
}

#[inline(never)]
fn wasmparser_single<T: Slot>(pool: &Pool, out: &mut Out) -> usize {
    let mut reader = wasmparser::BinaryReader::new(&pool.bytes, 0);
    for slot in T::slots(out).iter_mut() {
        *slot = if T::MAX_LEN == 10 {
            T::narrow(reader.read_var_i64().expect("valid"))
        } else {
            T::narrow(reader.read_var_i32().expect("valid").into())
        };
    }
    reader.current_position()
}

#[inline(never)]
fn gimli_single<T: Slot>(pool: &Pool, out: &mut Out) -> usize {
    let mut reader = gimli::EndianSlice::new(&pool.bytes, gimli::LittleEndian);
    for slot in T::slots(out).iter_mut() {
        *slot = T::narrow(gimli::leb128::read::signed(&mut reader).expect("valid"));
    }
    pool.bytes.len() - reader.len()
}

#[inline(never)]
fn leb128_single<T: Slot>(pool: &Pool, out: &mut Out) -> usize {
    let mut rest = &pool.bytes[..];
    for slot in T::slots(out).iter_mut() {
        *slot = T::narrow(leb128::read::signed(&mut rest).expect("valid"));
    }
    pool.bytes.len() - rest.len()
}

/// The pool window by window, each window's bytes decoded by
/// `decode(bytes, slots)` straight into its slots of `out`.
#[inline(always)]
fn by_windows<V>(pool: &Pool, out: &mut [V], decode: impl Fn(&[u8], &mut [V]) -> usize) -> usize {
    let mut consumed = 0;
    for (w, slots) in out.chunks_mut(WINDOW).enumerate() {
        let bytes = &pool.bytes[pool.window_starts[w]..pool.window_starts[w + 1]];
        consumed += decode(bytes, slots);
    }
    consumed
}

#[inline(never)]
fn ours_bulk<T: Slot>(pool: &Pool, out: &mut Out) -> usize {
    by_windows(pool, T::slots(out), |bytes, slots| {
        sleb128::decode_slice(bytes, slots).expect("valid").1
    })
}

/// `decode_slice_on` a backend, chosen by `BACKEND` (`Backend::ALL` index).
#[inline(never)]
fn backend_bulk<T: Slot, const BACKEND: usize>(pool: &Pool, out: &mut Out) -> usize {
    let backend = Backend::ALL[BACKEND];
    by_windows(pool, T::slots(out), |bytes, slots| {
        sleb128::decode_slice_on(backend, bytes, slots)
            .expect("valid")
            .1
    })
}

/// The unsigned bulk decoder on the same bytes (its values are not the
/// signed ones: the caller checks only the bytes consumed).
#[inline(never)]
fn unsigned_u64_bulk(pool: &Pool, out: &mut Out) -> usize {
    by_windows(pool, &mut out.u64s, |bytes, slots| {
        varint_turbo::decode_slice(bytes, slots).expect("valid").1
    })
}

#[inline(never)]
fn unsigned_u32_bulk(pool: &Pool, out: &mut Out) -> usize {
    by_windows(pool, &mut out.u32s, |bytes, slots| {
        varint_turbo::decode_slice(bytes, slots).expect("valid").1
    })
}

/// The unsigned `u64` (and `u32`) decoder of the SSSE3 backend on the
/// same bytes: the reference of `on-ssse3`, as `unsigned-u64` (the
/// detected backend) is the others'.
#[inline(never)]
fn unsigned_u64_ssse3_bulk(pool: &Pool, out: &mut Out) -> usize {
    by_windows(pool, &mut out.u64s, |bytes, slots| {
        Backend::Ssse3.decode_slice(bytes, slots).expect("valid").1
    })
}

#[inline(never)]
fn unsigned_u32_ssse3_bulk(pool: &Pool, out: &mut Out) -> usize {
    by_windows(pool, &mut out.u32s, |bytes, slots| {
        Backend::Ssse3.decode_slice(bytes, slots).expect("valid").1
    })
}

#[inline(never)]
fn wasmparser_bulk<T: Slot>(pool: &Pool, out: &mut Out) -> usize {
    by_windows(pool, T::slots(out), |bytes, slots| {
        let mut reader = wasmparser::BinaryReader::new(bytes, 0);
        for slot in slots.iter_mut() {
            *slot = if T::MAX_LEN == 10 {
                T::narrow(reader.read_var_i64().expect("valid"))
            } else {
                T::narrow(reader.read_var_i32().expect("valid").into())
            };
        }
        reader.current_position()
    })
}

#[inline(never)]
fn gimli_bulk<T: Slot>(pool: &Pool, out: &mut Out) -> usize {
    by_windows(pool, T::slots(out), |bytes, slots| {
        let mut reader = gimli::EndianSlice::new(bytes, gimli::LittleEndian);
        for slot in slots.iter_mut() {
            *slot = T::narrow(gimli::leb128::read::signed(&mut reader).expect("valid"));
        }
        bytes.len() - reader.len()
    })
}

#[inline(never)]
fn leb128_bulk<T: Slot>(pool: &Pool, out: &mut Out) -> usize {
    by_windows(pool, T::slots(out), |bytes, slots| {
        let mut rest = bytes;
        for slot in slots.iter_mut() {
            *slot = T::narrow(leb128::read::signed(&mut rest).expect("valid"));
        }
        bytes.len() - rest.len()
    })
}

/// Whether every value of the pool is a valid `u32` varint as it stands
/// (no negative 5-byte ones): then `decode_slice::<u32>` runs too. (For
/// `u64`, the same with negative 10-byte ones: `wasm-i64-const` has no
/// unsigned contender.)
fn u32_valid(pool: &Pool) -> bool {
    varint_turbo::decode_all::<u32>(&pool.bytes).is_ok()
}

/// The contenders of one shape: (group, name, run, checks values).
fn contenders(shape: &Shape, pool: &Pool) -> Vec<(&'static str, String, Run, bool)> {
    if shape.wide {
        contenders_of::<i64>(pool)
    } else {
        contenders_of::<i32>(pool)
    }
}

fn contenders_of<T: Slot>(pool: &Pool) -> Vec<(&'static str, String, Run, bool)> {
    let backend_runs: [Run; 5] = [
        backend_bulk::<T, 0>,
        backend_bulk::<T, 1>,
        backend_bulk::<T, 2>,
        backend_bulk::<T, 3>,
        backend_bulk::<T, 4>,
    ];
    let peers: [(&str, Run, Run); 3] = [
        ("wasmparser", wasmparser_single::<T>, wasmparser_bulk::<T>),
        ("gimli", gimli_single::<T>, gimli_bulk::<T>),
        ("leb128", leb128_single::<T>, leb128_bulk::<T>),
    ];
    let mut list: Vec<(&'static str, String, Run, bool)> = Vec::new();
    list.push(("single", "sleb128::decode".into(), ours_single::<T>, true));
    for (name, run, _) in peers {
        list.push(("single", name.into(), run, true));
    }
    list.push(("bulk", "sleb128::decode_slice".into(), ours_bulk::<T>, true));
    for (i, backend) in Backend::ALL.into_iter().enumerate() {
        if backend.is_supported() {
            list.push(("bulk", format!("on-{backend}"), backend_runs[i], true));
        }
    }
    if varint_turbo::decode_all::<u64>(&pool.bytes).is_ok() {
        list.push(("bulk", "unsigned-u64".into(), unsigned_u64_bulk, false));
        if Backend::Ssse3.is_supported() {
            list.push((
                "bulk",
                "unsigned-u64-on-ssse3".into(),
                unsigned_u64_ssse3_bulk,
                false,
            ));
        }
    }
    if u32_valid(pool) {
        list.push(("bulk", "unsigned-u32".into(), unsigned_u32_bulk, false));
        if Backend::Ssse3.is_supported() {
            list.push((
                "bulk",
                "unsigned-u32-on-ssse3".into(),
                unsigned_u32_ssse3_bulk,
                false,
            ));
        }
    }
    for (name, _, run) in peers {
        list.push(("bulk", name.into(), run, true));
    }
    list
}

/// Runs `run` once over the pool, timed, and checks it.
fn timed(clock: Clock, pool: &Pool, run: Run, checks_values: bool, out: &mut Out) -> Duration {
    let mut consumed = 0;
    let time = clock.time(|| consumed = run(black_box(pool), black_box(&mut *out)));
    assert_eq!(consumed, pool.bytes.len(), "bytes consumed");
    if checks_values {
        let wide: Vec<i64> = if pool.wide {
            out.i64s.clone()
        } else {
            out.i32s.iter().map(|&v| v.into()).collect()
        };
        assert!(wide == pool.values, "values decoded");
    }
    time
}

fn benches(c: &mut Criterion) {
    let clock = Clock::from_env();
    for shape in SHAPES {
        let pool = pool(shape);
        println!(
            "sleb128 {}: {} values, {:.2} bytes per value",
            shape.name,
            pool.values.len(),
            pool.bytes.len() as f64 / pool.values.len() as f64
        );
        for group_name in ["single", "bulk"] {
            let mut group = c.benchmark_group(format!("sleb128_{group_name}/{}", shape.name));
            group.sampling_mode(SamplingMode::Flat);
            group.throughput(Throughput::Elements(pool.values.len() as u64));
            let mut out = Out::new(pool.values.len());
            for (group_of, name, run, checks) in contenders(shape, &pool) {
                if group_of != group_name {
                    continue;
                }
                group.bench_function(name, |b| {
                    b.iter_custom(|iters| {
                        (0..iters)
                            .map(|_| timed(clock, &pool, run, checks, &mut out))
                            .sum()
                    })
                });
            }
            group.finish();
        }
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
        .nresamples(10_000)
        .without_plots()
}

criterion_group! {
    name = sleb128_benches;
    config = config();
    targets = benches
}

/// `VARINT_BENCH_PAIRED=1 cargo bench --bench sleb128`: every contender
/// of a shape's row once per round, the order rotating; medians in ns per
/// value, and each one's ratio to the row's reference (single: the
/// fastest peer; bulk: the unsigned `u64` decoder on the same bytes).
fn paired() {
    let rounds: usize = std::env::var("VARINT_BENCH_ROUNDS")
        .map(|r| r.parse().expect("VARINT_BENCH_ROUNDS: a number"))
        .unwrap_or(15);
    let clock = Clock::from_env();
    println!(
        "sleb128 paired: {rounds} rounds, clock {}; default build unless RUSTFLAGS say otherwise",
        clock.describe()
    );
    println!(
        "{:<20} {:<7} {:<24} {:>10} {:>8}",
        "shape", "group", "contender", "ns/value", "ratio"
    );
    for shape in SHAPES {
        let pool = pool(shape);
        let mut out = Out::new(pool.values.len());
        let list = contenders(shape, &pool);
        let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(rounds); list.len()];
        for round in 0..rounds {
            for turn in 0..list.len() {
                let k = (round + turn) % list.len();
                let (_, _, run, checks) = &list[k];
                times[k].push(timed(clock, &pool, *run, *checks, &mut out));
            }
        }
        let medians: Vec<f64> = times
            .iter_mut()
            .map(|t| {
                t.sort();
                t[t.len() / 2].as_secs_f64() * 1e9 / pool.values.len() as f64
            })
            .collect();
        let fastest_peer = list
            .iter()
            .zip(&medians)
            .filter(|((group, name, _, _), _)| *group == "single" && name != "sleb128::decode")
            .map(|(_, &m)| m)
            .fold(f64::INFINITY, f64::min);
        let unsigned = list
            .iter()
            .zip(&medians)
            .find(|((_, name, _, _), _)| name == "unsigned-u64")
            .map_or(f64::NAN, |(_, &m)| m);
        for ((group, name, _, _), &median) in list.iter().zip(&medians) {
            let reference = if *group == "single" {
                fastest_peer
            } else {
                unsigned
            };
            println!(
                "{:<20} {:<7} {:<24} {:>10.3} {:>8.2}",
                shape.name,
                group,
                name,
                median,
                median / reference
            );
        }
    }
}

fn main() {
    common::bench_main(sleb128_benches, Some(paired));
}
