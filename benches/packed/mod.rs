//! `VARINT_BENCH_PAIRED=packed`: protobuf packed fields (issue 44 items 2
//! and 3). For each protobuf type and field shape, windows of W = 16, 256,
//! 4,096 and 2^20 values taken in turn from a pool of 2^20 values, four
//! contenders in the same process: `decode_packed` (appending to a cleared
//! `Vec`, so its capacity is reused as a parser's would be) against
//! `decode_slice` into a slice of the same width, and `encode_packed` (into
//! a cleared `Vec<u8>`: length prefix and values) against
//! `encode_slice_into` into a slice. Every round runs the four on the same
//! batch of windows, in an order that rotates and reverses from round to
//! round; the table gives the medians per call and the ratios (the
//! `decode_slice` / `encode_slice_into` time over the packed function's:
//! above 1 the packed function is faster). Every call's output is checked
//! against the pool (outside the clock).
//!
//! `VARINT_BENCH_PACKED` selects the types (comma-separated, default all;
//! `none` leaves them out), `VARINT_BENCH_PACKED_SIZES` the sizes,
//! `VARINT_BENCH_ROUNDS` the rounds (default 15). In criterion's `--test`
//! mode (`cargo test --benches`) every contender runs once on every window
//! of a small pool, checked, and nothing is timed.

use std::hint::black_box;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use varint_turbo::protobuf;
use varint_turbo::BulkDecodeError;

use crate::common::{self, protobuf_mix, reference_encode, Clock};

/// Values per pool (measuring); every window of every size comes from it.
const POOL: usize = 1 << 20;
/// Values per pool in `--test` mode.
const CHECK_POOL: usize = 1 << 13;
/// The sizes (values per call).
const SIZES: &[usize] = &[16, 256, 4096, POOL];
/// The sizes in `--test` mode.
const CHECK_SIZES: &[usize] = &[16, 256, 4096, CHECK_POOL];
/// Output values each contender keeps in its ring of `max(1, RING / W)`
/// outputs of W values, reused from batch to batch.
const RING: usize = 4096;
/// Values per timed batch (at least one ring).
const BATCH: usize = 1 << 20;

/// One field shape: the 64-bit wire values a pool is drawn from.
struct Shape {
    name: &'static str,
    seed: u64,
    draw: fn(&mut StdRng) -> u64,
}

/// The five shapes of issue 44, the mix in its 64-bit form (`mix`, the
/// bulk benches' protobuf-like mix with 5% 10-byte values) and within
/// 2^28 for the 32-bit types (`mix32`, the short-input benches' form).
const SHAPES: &[Shape] = &[
    Shape {
        name: "1byte",
        seed: 4401,
        draw: |rng| rng.gen_range(0..1 << 7),
    },
    Shape {
        name: "95x1+5x2",
        seed: 4402,
        draw: |rng| {
            if rng.gen_range(0..100) < 95 {
                rng.gen_range(0..1 << 7)
            } else {
                rng.gen_range(1 << 7..1 << 14)
            }
        },
    },
    Shape {
        name: "mix",
        seed: 4403,
        draw: protobuf_mix,
    },
    Shape {
        name: "mix32",
        seed: 4404,
        draw: |rng| match rng.gen_range(0..100) {
            0..60 => rng.gen_range(0..1 << 7),
            60..85 => rng.gen_range(1 << 7..1 << 14),
            _ => rng.gen_range(1 << 14..1 << 28),
        },
    },
    // int32 with 10% negative values (sign-extended: 10 bytes), the rest
    // 1-2 bytes.
    Shape {
        name: "int32-neg10",
        seed: 4405,
        draw: |rng| {
            if rng.gen_range(0..100) < 10 {
                i64::from(rng.gen_range(i32::MIN..0)) as u64
            } else {
                rng.gen_range(0..1 << 14)
            }
        },
    },
    // Microsecond timestamps: 8-byte varints.
    Shape {
        name: "ts8",
        seed: 4406,
        draw: |rng| rng.gen_range(1 << 49..1 << 56),
    },
    // Packed bools: 0 and 1.
    Shape {
        name: "bool",
        seed: 4407,
        draw: |rng| rng.gen_range(0..2),
    },
];

/// A pool: wire values, their varints back to back, and each value's
/// byte offset (one more at the end).
struct Pool {
    wire: Vec<u64>,
    bytes: Vec<u8>,
    offsets: Vec<usize>,
}

impl Pool {
    fn new(shape: &Shape) -> Self {
        let count = if common::measuring() {
            POOL
        } else {
            CHECK_POOL
        };
        let mut rng = StdRng::seed_from_u64(shape.seed);
        let wire: Vec<u64> = (0..count).map(|_| (shape.draw)(&mut rng)).collect();
        let mut bytes = Vec::with_capacity(count * 10);
        let mut offsets = Vec::with_capacity(count + 1);
        for &value in &wire {
            offsets.push(bytes.len());
            reference_encode(value, &mut bytes);
        }
        offsets.push(bytes.len());
        Pool {
            wire,
            bytes,
            offsets,
        }
    }

    /// Window `k` of `w` values: its varints.
    fn window(&self, w: usize, k: usize) -> &[u8] {
        &self.bytes[self.offsets[k * w]..self.offsets[(k + 1) * w]]
    }
}

/// What the table needs from one protobuf type: its values and the
/// comparison type `C` (the wire values as `decode_slice` and
/// `encode_slice_into` take them: `u32`/`u64`, or `i32`/`i64` for the
/// zigzag types, `u8` for `bool`), and the four functions.
struct Type<V, C, DP, EP, DS, ES> {
    name: &'static str,
    /// The shapes measured with this type (its values must encode back to
    /// the same varints).
    shapes: &'static [&'static str],
    from_wire: fn(u64) -> V,
    to_cmp: fn(u64) -> C,
    decode_packed: DP,
    encode_packed: EP,
    decode_slice: DS,
    encode_slice_into: ES,
}

/// The sizes: `VARINT_BENCH_PACKED_SIZES` (comma-separated), else [`SIZES`]
/// ([`CHECK_SIZES`] in `--test` mode).
fn selected_sizes() -> Vec<usize> {
    match std::env::var("VARINT_BENCH_PACKED_SIZES") {
        Ok(list) => list
            .split(',')
            .map(|s| {
                s.trim()
                    .parse()
                    .expect("VARINT_BENCH_PACKED_SIZES: numbers")
            })
            .collect(),
        Err(_) if common::measuring() => SIZES.to_vec(),
        Err(_) => CHECK_SIZES.to_vec(),
    }
}

/// Whether `VARINT_BENCH_PACKED` selects the type `name`.
fn selected(name: &str) -> bool {
    match std::env::var("VARINT_BENCH_PACKED").as_deref() {
        Err(_) | Ok("") | Ok("all") => true,
        Ok("none") => false,
        Ok(list) => list.split(',').any(|n| n == name),
    }
}

/// The four contenders' batches for one type, shape and size.
struct Row<'a, V, C> {
    pool: &'a Pool,
    w: usize,
    windows: usize,
    values: Vec<V>,
    cmp: Vec<C>,
    dec_packed: Vec<Vec<V>>,
    dec_slice: Vec<C>,
    enc_packed: Vec<Vec<u8>>,
    enc_slice: Vec<u8>,
}

impl<'a, V, C> Row<'a, V, C>
where
    V: Copy + PartialEq + std::fmt::Debug,
    C: Copy + Default + PartialEq + std::fmt::Debug,
{
    fn new(pool: &'a Pool, w: usize, from_wire: fn(u64) -> V, to_cmp: fn(u64) -> C) -> Self {
        let slots = (RING / w).max(1);
        Row {
            pool,
            w,
            windows: pool.wire.len() / w,
            values: pool.wire.iter().map(|&x| from_wire(x)).collect(),
            cmp: pool.wire.iter().map(|&x| to_cmp(x)).collect(),
            dec_packed: vec![Vec::new(); slots],
            dec_slice: vec![C::default(); slots * w],
            enc_packed: vec![Vec::new(); slots],
            enc_slice: vec![0; slots * w * 10],
        }
    }

    fn slots(&self) -> usize {
        self.dec_packed.len()
    }

    /// Calls per timed batch.
    fn batch_calls(&self) -> usize {
        (BATCH / self.w).max(self.slots())
    }

    /// Runs contender `which` on `calls` windows from `first`, timed;
    /// checks the outputs (outside the clock).
    #[allow(clippy::too_many_arguments)]
    fn batch<DP, EP, DS, ES>(
        &mut self,
        which: usize,
        first: usize,
        calls: usize,
        clock: Clock,
        f: (&DP, &EP, &DS, &ES),
    ) -> Duration
    where
        DP: Fn(&[u8], &mut Vec<V>) -> Result<usize, BulkDecodeError>,
        EP: Fn(&[V], &mut Vec<u8>) -> usize,
        DS: Fn(&[u8], &mut [C]) -> Result<(usize, usize), BulkDecodeError>,
        ES: Fn(&[C], &mut [u8]) -> (usize, usize),
    {
        let (w, windows, slots, pool) = (self.w, self.windows, self.slots(), self.pool);
        let mut total = 0;
        let elapsed = match which {
            0 => {
                let ring = &mut self.dec_packed;
                clock.time(|| {
                    let (mut k, mut slot) = (first, 0);
                    for _ in 0..calls {
                        let out = &mut ring[slot];
                        out.clear();
                        total += (f.0)(black_box(pool.window(w, k)), black_box(out))
                            .expect("valid varints");
                        k = if k + 1 == windows { 0 } else { k + 1 };
                        slot = if slot + 1 == slots { 0 } else { slot + 1 };
                    }
                })
            }
            1 => {
                let ring = &mut self.dec_slice;
                clock.time(|| {
                    let (mut k, mut slot) = (first, 0);
                    for _ in 0..calls {
                        let out = &mut ring[slot * w..(slot + 1) * w];
                        total += (f.2)(black_box(pool.window(w, k)), black_box(out))
                            .expect("valid varints")
                            .0;
                        k = if k + 1 == windows { 0 } else { k + 1 };
                        slot = if slot + 1 == slots { 0 } else { slot + 1 };
                    }
                })
            }
            2 => {
                let ring = &mut self.enc_packed;
                let values = &self.values;
                clock.time(|| {
                    let (mut k, mut slot) = (first, 0);
                    for _ in 0..calls {
                        let out = &mut ring[slot];
                        out.clear();
                        total += (f.1)(black_box(&values[k * w..(k + 1) * w]), black_box(out));
                        k = if k + 1 == windows { 0 } else { k + 1 };
                        slot = if slot + 1 == slots { 0 } else { slot + 1 };
                    }
                })
            }
            _ => {
                let ring = &mut self.enc_slice;
                let cmp = &self.cmp;
                clock.time(|| {
                    let (mut k, mut slot) = (first, 0);
                    for _ in 0..calls {
                        let out = &mut ring[slot * w * 10..(slot + 1) * w * 10];
                        total += (f.3)(black_box(&cmp[k * w..(k + 1) * w]), black_box(out)).1;
                        k = if k + 1 == windows { 0 } else { k + 1 };
                        slot = if slot + 1 == slots { 0 } else { slot + 1 };
                    }
                })
            }
        };
        self.check(which, first, calls, total);
        elapsed
    }

    /// Checks the sum a batch reported and the outputs still in the ring.
    fn check(&self, which: usize, first: usize, calls: usize, total: usize) {
        let (w, pool) = (self.w, self.pool);
        let window_bytes = |k: usize| pool.offsets[(k + 1) * w] - pool.offsets[k * w];
        let prefix_len = |k: usize| {
            let mut prefix = Vec::new();
            reference_encode(window_bytes(k) as u64, &mut prefix);
            prefix
        };
        let want: usize = (0..calls)
            .map(|i| {
                let k = (first + i) % self.windows;
                match which {
                    0 | 1 => w,
                    2 => prefix_len(k).len() + window_bytes(k),
                    _ => window_bytes(k),
                }
            })
            .sum();
        assert_eq!(
            total, want,
            "contender {which}: sum over {calls} calls of {w}"
        );
        for i in calls.saturating_sub(self.slots())..calls {
            let k = (first + i) % self.windows;
            let slot = i % self.slots();
            let ok = match which {
                0 => self.dec_packed[slot] == self.values[k * w..(k + 1) * w],
                1 => self.dec_slice[slot * w..(slot + 1) * w] == self.cmp[k * w..(k + 1) * w],
                2 => self.enc_packed[slot] == [&prefix_len(k)[..], pool.window(w, k)].concat(),
                _ => {
                    let at = slot * w * 10;
                    self.enc_slice[at..at + window_bytes(k)] == *pool.window(w, k)
                }
            };
            assert!(ok, "contender {which}: window {k} of {w} values differs");
        }
    }
}

/// Prints the rows of one type: every selected shape and size.
fn run_type<V, C, DP, EP, DS, ES>(
    ty: &Type<V, C, DP, EP, DS, ES>,
    pools: &[(&'static str, Pool)],
    sizes: &[usize],
    rounds: usize,
    clock: Clock,
    overhead: Duration,
) where
    V: Copy + PartialEq + std::fmt::Debug,
    C: Copy + Default + PartialEq + std::fmt::Debug,
    DP: Fn(&[u8], &mut Vec<V>) -> Result<usize, BulkDecodeError>,
    EP: Fn(&[V], &mut Vec<u8>) -> usize,
    DS: Fn(&[u8], &mut [C]) -> Result<(usize, usize), BulkDecodeError>,
    ES: Fn(&[C], &mut [u8]) -> (usize, usize),
{
    if !selected(ty.name) {
        return;
    }
    let f = (
        &ty.decode_packed,
        &ty.encode_packed,
        &ty.decode_slice,
        &ty.encode_slice_into,
    );
    for (name, pool) in pools {
        if !ty.shapes.contains(name) {
            continue;
        }
        for &w in sizes {
            if w > pool.wire.len() {
                continue;
            }
            let mut row = Row::new(pool, w, ty.from_wire, ty.to_cmp);
            if !common::measuring() {
                // Checks only: every window once per contender.
                for which in 0..4 {
                    row.batch(which, 0, row.windows, clock, f);
                }
                continue;
            }
            let calls = row.batch_calls();
            for which in 0..4 {
                row.batch(which, 0, row.slots(), clock, f);
            }
            let mut times: [Vec<f64>; 4] = Default::default();
            let mut first = 0;
            for round in 0..rounds {
                for turn in 0..4 {
                    let which = if round % 2 == 0 {
                        (round + turn) % 4
                    } else {
                        (round + 3 - turn) % 4
                    };
                    let t = row.batch(which, first, calls, clock, f);
                    times[which]
                        .push(t.saturating_sub(overhead).as_secs_f64() * 1e9 / calls as f64);
                }
                first = (first + calls) % row.windows;
            }
            let median = |k: usize| {
                let mut v = times[k].clone();
                v.sort_by(|a, b| a.total_cmp(b));
                v[v.len() / 2]
            };
            let [dp, ds, ep, es] = [median(0), median(1), median(2), median(3)];
            let mvs = |ns: f64| w as f64 * 1e3 / ns;
            println!(
                "| {} | {name} | {w} | {dp:.1} | {ds:.1} | {:.0} | {:.0} | {:.2} | {ep:.1} | {es:.1} | {:.0} | {:.0} | {:.2} |",
                ty.name,
                mvs(dp),
                mvs(ds),
                ds / dp,
                mvs(ep),
                mvs(es),
                es / ep,
            );
        }
    }
}

fn unzig32(wire: u64) -> i32 {
    varint_turbo::zigzag_decode_i32(wire as u32)
}

fn unzig64(wire: u64) -> i64 {
    varint_turbo::zigzag_decode_i64(wire)
}

/// The table (paired mode) or the checks (`--test` mode).
pub fn run() {
    let rounds: usize = std::env::var("VARINT_BENCH_ROUNDS")
        .map(|r| r.parse().expect("VARINT_BENCH_ROUNDS: a number"))
        .unwrap_or(15);
    let clock = Clock::from_env();
    let overhead = crate::short::clock_overhead(clock);
    let sizes = selected_sizes();
    if common::measuring() {
        println!(
            "packed paired: {rounds} rounds, batches of max({BATCH} values, {RING} values) per \
             contender per round; bulk backend {}; clock: {} (reading: {:.0} ns, subtracted)",
            varint_turbo::detected_backend(),
            clock.describe(),
            overhead.as_secs_f64() * 1e9
        );
        println!();
        println!(
            "| type | shape | W | decode_packed ns/call | decode_slice ns/call \
             | decode_packed M values/s | decode_slice M values/s | decode_packed / decode_slice \
             | encode_packed ns/call | encode_slice_into ns/call | encode_packed M values/s \
             | encode_slice_into M values/s | encode_packed / encode_slice_into |"
        );
        println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    }
    let pools: Vec<(&'static str, Pool)> = SHAPES.iter().map(|s| (s.name, Pool::new(s))).collect();
    const WIDE: &[&str] = &["1byte", "95x1+5x2", "mix", "int32-neg10", "ts8"];
    const NARROW: &[&str] = &["1byte", "95x1+5x2", "mix32"];
    let args = (&pools[..], &sizes[..], rounds, clock, overhead);
    macro_rules! row {
        ($ty:expr) => {
            run_type(&$ty, args.0, args.1, args.2, args.3, args.4)
        };
    }
    row!(Type {
        name: "uint64",
        shapes: WIDE,
        from_wire: |x| x,
        to_cmp: |x| x,
        decode_packed: protobuf::uint64::decode_packed,
        encode_packed: protobuf::uint64::encode_packed,
        decode_slice: varint_turbo::decode_slice::<u64>,
        encode_slice_into: varint_turbo::encode_slice_into::<u64>,
    });
    row!(Type {
        name: "int64",
        shapes: WIDE,
        from_wire: |x| x as i64,
        to_cmp: |x| x,
        decode_packed: protobuf::int64::decode_packed,
        encode_packed: protobuf::int64::encode_packed,
        decode_slice: varint_turbo::decode_slice::<u64>,
        encode_slice_into: varint_turbo::encode_slice_into::<u64>,
    });
    row!(Type {
        name: "sint64",
        shapes: WIDE,
        from_wire: unzig64,
        to_cmp: unzig64,
        decode_packed: protobuf::sint64::decode_packed,
        encode_packed: protobuf::sint64::encode_packed,
        decode_slice: varint_turbo::decode_slice_zigzag::<i64>,
        encode_slice_into: varint_turbo::encode_slice_zigzag_into::<i64>,
    });
    row!(Type {
        name: "uint32",
        shapes: NARROW,
        from_wire: |x| x as u32,
        to_cmp: |x| x as u32,
        decode_packed: protobuf::uint32::decode_packed,
        encode_packed: protobuf::uint32::encode_packed,
        decode_slice: varint_turbo::decode_slice::<u32>,
        encode_slice_into: varint_turbo::encode_slice_into::<u32>,
    });
    row!(Type {
        name: "int32",
        shapes: NARROW,
        from_wire: |x| x as i32,
        to_cmp: |x| x as u32,
        decode_packed: protobuf::int32::decode_packed,
        encode_packed: protobuf::int32::encode_packed,
        decode_slice: varint_turbo::decode_slice::<u32>,
        encode_slice_into: varint_turbo::encode_slice_into::<u32>,
    });
    // Negative int32s: 10-byte varints, which `decode_slice::<u32>` rejects.
    row!(Type {
        name: "int32",
        shapes: &["int32-neg10"],
        from_wire: |x| x as i32,
        to_cmp: |x| x,
        decode_packed: protobuf::int32::decode_packed,
        encode_packed: protobuf::int32::encode_packed,
        decode_slice: varint_turbo::decode_slice::<u64>,
        encode_slice_into: varint_turbo::encode_slice_into::<u64>,
    });
    row!(Type {
        name: "sint32",
        shapes: NARROW,
        from_wire: unzig32,
        to_cmp: unzig32,
        decode_packed: protobuf::sint32::decode_packed,
        encode_packed: protobuf::sint32::encode_packed,
        decode_slice: varint_turbo::decode_slice_zigzag::<i32>,
        encode_slice_into: varint_turbo::encode_slice_zigzag_into::<i32>,
    });
    row!(Type {
        name: "bool",
        shapes: &["bool"],
        from_wire: |x| x != 0,
        to_cmp: |x| x as u8,
        decode_packed: protobuf::bool::decode_packed,
        encode_packed: protobuf::bool::encode_packed,
        decode_slice: varint_turbo::decode_slice::<u8>,
        encode_slice_into: varint_turbo::encode_slice_into::<u8>,
    });
}
