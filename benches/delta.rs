//! Delta-coded lists (`varint_turbo::delta`, issue 41): sorted `u32` and
//! `u64` lists stored as the varints of their gaps, decoded one window of
//! W = 16, 256 or 4,096 values per call, the windows taken in turn from a
//! pool of 2^20 values of one gap shape (each window with the value before
//! it as `previous`).
//!
//! **Contenders**, per bulk backend this CPU supports (forced) and for the
//! dispatching functions (`auto`):
//! * `fused`: `decode_slice_delta` (`delta::decode_slice` for `auto`);
//! * `two-pass`: `decode_slice` of the gaps, then a running-sum loop over
//!   the output (`for v in out { sum = sum.wrapping_add(*v); *v = sum }`),
//!   what a user writes without the delta module;
//! * `plain`: `decode_slice` alone (no sums), the bound the fused decoder
//!   is held to (within 1.3x);
//! * for `auto` also `select` (the last value of the window) and `search`
//!   (a key in the middle of the window, found there).
//!
//! `cargo bench --bench delta` runs the criterion groups
//! `delta/<type>/<shape>/<contender>/<W>`; `VARINT_BENCH_PAIRED=1 cargo
//! bench --bench delta` prints the paired table of BENCHMARKS.md ("Delta-coded lists and
//! short 1-byte runs"): `VARINT_BENCH_ROUNDS` rounds (default 15), in each
//! of which every contender decodes the same batch of windows once, the
//! order rotating and reversing from round to round; medians per call.

use std::hint::black_box;
use std::time::Duration;

#[allow(dead_code)]
mod common;
use common::{reference_encode, Clock};

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use varint_turbo::delta::{self, DeltaInt};
use varint_turbo::Backend;

/// Values per pool (measuring); every window of every size comes from it.
const POOL: usize = 1 << 20;
/// Values per pool in criterion's `--test` mode.
const CHECK_POOL: usize = 1 << 13;
/// Values per call.
const SIZES: &[usize] = &[16, 256, 4096];
/// Values decoded per timed batch (many calls: the clock costs 0.1-2 µs
/// per reading on the development VM).
const BATCH: usize = 1 << 18;

/// A gap shape.
struct Shape {
    name: &'static str,
    seed: u64,
    gap: fn(&mut StdRng) -> u64,
}

const SHAPES: &[Shape] = &[
    // Dense posting lists: every gap one byte (1..=127).
    Shape {
        name: "gaps-1byte",
        seed: 4101,
        gap: |rng| rng.gen_range(1..128),
    },
    // Mixed: half 1-byte, 30% 2-byte, 20% 3-byte gaps.
    Shape {
        name: "gaps-mixed",
        seed: 4102,
        gap: |rng| match rng.gen_range(0..10) {
            0..5 => rng.gen_range(1..1 << 7),
            5..8 => rng.gen_range(1 << 7..1 << 14),
            _ => rng.gen_range(1 << 14..1 << 21),
        },
    },
    // Sparse lists: every gap three bytes.
    Shape {
        name: "gaps-3byte",
        seed: 4103,
        gap: |rng| rng.gen_range(1 << 14..1 << 21),
    },
];

/// A pool: the sorted values (wrapping in `T`), the varints of their gaps,
/// and where each value's varint starts.
struct Pool<T> {
    values: Vec<T>,
    bytes: Vec<u8>,
    offsets: Vec<usize>,
}

trait Value: DeltaInt + varint_turbo::VarInt + Default + std::fmt::Debug + 'static {
    const NAME: &'static str;
    fn wrap(value: u64) -> Self;
    fn add(self, other: Self) -> Self;
    fn widen(self) -> u64;
}
impl Value for u32 {
    const NAME: &'static str = "u32";
    fn wrap(value: u64) -> Self {
        value as u32
    }
    fn widen(self) -> u64 {
        u64::from(self)
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
}
impl Value for u64 {
    const NAME: &'static str = "u64";
    fn wrap(value: u64) -> Self {
        value
    }
    fn widen(self) -> u64 {
        self
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
}

impl<T: Value> Pool<T> {
    fn new(shape: &Shape) -> Self {
        let mut rng = StdRng::seed_from_u64(shape.seed);
        let count = if common::measuring() {
            POOL
        } else {
            CHECK_POOL
        };
        let (mut values, mut bytes, mut offsets) = (Vec::new(), Vec::new(), Vec::new());
        let mut sum = 0u64;
        for _ in 0..count {
            let gap = (shape.gap)(&mut rng);
            sum = sum.wrapping_add(gap);
            offsets.push(bytes.len());
            reference_encode(gap, &mut bytes);
            values.push(T::wrap(sum));
        }
        offsets.push(bytes.len());
        Pool {
            values,
            bytes,
            offsets,
        }
    }

    /// Window `k` of `w` values: its bytes and the value before it.
    fn window(&self, w: usize, k: usize) -> (&[u8], T) {
        let previous = if k == 0 {
            T::default()
        } else {
            self.values[k * w - 1]
        };
        (
            &self.bytes[self.offsets[k * w]..self.offsets[(k + 1) * w]],
            previous,
        )
    }
}

/// What a contender does with one window: returns a checksum of its
/// result (values written, or the value found) that the batch checks.
type Run<T> = Box<dyn Fn(&[u8], T, &mut [T]) -> u64>;

/// The contenders on `T`: (name, run, what it computes).
fn contenders<T: Value>(w: usize) -> Vec<(String, Run<T>)> {
    let mut all: Vec<(String, Run<T>)> = Vec::new();
    let two_pass = |out: &mut [T], previous: T| {
        let mut sum = previous;
        for value in out.iter_mut() {
            sum = sum.add(*value);
            *value = sum;
        }
    };
    all.push((
        "auto/fused".into(),
        Box::new(|bytes, previous, out| {
            delta::decode_slice(bytes, out, previous).expect("valid").0 as u64
        }),
    ));
    all.push((
        "auto/two-pass".into(),
        Box::new(move |bytes, previous, out| {
            let (n, _) = varint_turbo::decode_slice(bytes, out).expect("valid");
            two_pass(&mut out[..n], previous);
            n as u64
        }),
    ));
    all.push((
        "auto/plain".into(),
        Box::new(|bytes, _, out| varint_turbo::decode_slice(bytes, out).expect("valid").0 as u64),
    ));
    all.push((
        "auto/select-last".into(),
        Box::new(move |bytes, previous, _| {
            delta::select(bytes, w - 1, previous)
                .expect("valid")
                .widen()
        }),
    ));
    for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
        all.push((
            format!("{backend}/fused"),
            Box::new(move |bytes, previous, out| {
                backend
                    .decode_slice_delta(bytes, out, previous)
                    .expect("valid")
                    .0 as u64
            }),
        ));
        all.push((
            format!("{backend}/two-pass"),
            Box::new(move |bytes, previous, out| {
                let (n, _) = backend.decode_slice(bytes, out).expect("valid");
                two_pass(&mut out[..n], previous);
                n as u64
            }),
        ));
        all.push((
            format!("{backend}/plain"),
            Box::new(move |bytes, _, out| {
                backend.decode_slice(bytes, out).expect("valid").0 as u64
            }),
        ));
    }
    all
}

/// Times `calls` calls of `run` on the windows from `first` on, then
/// checks the last window's output (or result) against the pool.
fn batch<T: Value>(
    pool: &Pool<T>,
    w: usize,
    first: usize,
    calls: usize,
    (name, run): &(String, Run<T>),
    out: &mut [T],
    clock: Clock,
) -> Duration {
    let windows = pool.values.len() / w;
    let mut last = (0, 0u64);
    let elapsed = clock.time(|| {
        let mut k = first % windows;
        for _ in 0..calls {
            let (bytes, previous) = pool.window(w, k);
            last = (k, run(black_box(bytes), previous, black_box(&mut *out)));
            k += 1;
            if k == windows {
                k = 0;
            }
        }
    });
    let (k, result) = last;
    let want = &pool.values[k * w..(k + 1) * w];
    let ok = if name.ends_with("select-last") {
        result == want[w - 1].widen()
    } else if name.ends_with("plain") {
        result == w as u64
    } else {
        result == w as u64 && out == want
    };
    assert!(ok, "{name}: wrong result for window {k} of {w} values");
    elapsed
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(600))
        .sample_size(10)
        .nresamples(2_000)
        .without_plots()
}

fn benches(c: &mut Criterion) {
    fn typed<T: Value>(c: &mut Criterion) {
        let clock = Clock::from_env();
        for shape in SHAPES {
            let pool = Pool::<T>::new(shape);
            for &w in SIZES {
                let mut group = c.benchmark_group(format!("delta/{}/{}", T::NAME, shape.name));
                group.throughput(Throughput::Elements(w as u64));
                let mut out = vec![T::default(); w];
                for contender in contenders::<T>(w) {
                    let mut next = 0;
                    group.bench_function(BenchmarkId::new(contender.0.clone(), w), |b| {
                        b.iter_custom(|iters| {
                            let t =
                                batch(&pool, w, next, iters as usize, &contender, &mut out, clock);
                            next += iters as usize;
                            t
                        })
                    });
                }
                group.finish();
            }
        }
    }
    typed::<u32>(c);
    typed::<u64>(c);
}

criterion_group! {
    name = delta_group;
    config = config();
    targets = benches
}

/// The paired table: per type, shape and W, every contender's median
/// ns per call over the rounds, and the ratios the issue asks for.
fn paired() {
    fn typed<T: Value>(rounds: usize, clock: Clock) {
        for shape in SHAPES {
            let pool = Pool::<T>::new(shape);
            for &w in SIZES {
                let all = contenders::<T>(w);
                let calls = (BATCH / w).max(1);
                let mut out = vec![T::default(); w];
                let mut times = vec![Vec::new(); all.len()];
                let n = all.len();
                let mut first = 0;
                for round in 0..rounds {
                    for turn in 0..n {
                        let k = if round % 2 == 0 {
                            (round + turn) % n
                        } else {
                            (round + n - 1 - turn) % n
                        };
                        let t = batch(&pool, w, first, calls, &all[k], &mut out, clock);
                        times[k].push(t.as_secs_f64() * 1e9 / calls as f64);
                    }
                    first += calls;
                }
                let median = |k: usize| {
                    let mut v: Vec<f64> = times[k].clone();
                    v.sort_by(|a, b| a.total_cmp(b));
                    v[v.len() / 2]
                };
                let ns = |name: &str| all.iter().position(|(n, _)| n == name).map(median);
                let mut backends = vec!["auto".to_string()];
                backends.extend(
                    Backend::ALL
                        .into_iter()
                        .filter(|b| b.is_supported())
                        .map(|b| b.to_string()),
                );
                for backend in backends {
                    let fused = ns(&format!("{backend}/fused")).unwrap();
                    let two = ns(&format!("{backend}/two-pass")).unwrap();
                    let plain = ns(&format!("{backend}/plain")).unwrap();
                    let select = ns(&format!("{backend}/select-last"))
                        .map_or("-".into(), |t| format!("{t:.1}"));
                    println!(
                        "| {} | {} | {w} | {backend} | {fused:.1} | {two:.1} | {plain:.1} | {:.2}x | {:.2}x | {select} | {:.0} |",
                        T::NAME,
                        shape.name,
                        two / fused,
                        fused / plain,
                        w as f64 * 1e3 / fused,
                    );
                }
            }
        }
    }
    let rounds: usize = std::env::var("VARINT_BENCH_ROUNDS")
        .map(|r| r.parse().expect("VARINT_BENCH_ROUNDS: a number"))
        .unwrap_or(15);
    let clock = Clock::from_env();
    println!(
        "delta paired: {rounds} rounds, {BATCH} values per contender per round; bulk backend (auto) {}; clock: {}",
        varint_turbo::detected_backend(),
        clock.describe()
    );
    println!();
    println!("| type | gaps | W | backend | fused ns/call | two-pass ns/call | plain ns/call | two-pass / fused | fused / plain | select(last) ns/call | fused M values/s |");
    println!("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    let types = std::env::var("VARINT_BENCH_DELTA_TYPES").unwrap_or_else(|_| "u32,u64".into());
    if types.contains("u32") {
        typed::<u32>(rounds, clock);
    }
    if types.contains("u64") {
        typed::<u64>(rounds, clock);
    }
}

fn main() {
    common::bench_main(delta_group, Some(paired));
}
