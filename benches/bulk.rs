//! Bulk benchmarks: whole buffers of 1,000,000 varints (a protobuf packed
//! field, an Avro block) through every bulk backend of varint-turbo, against
//! value-by-value loops of varint-simd and prost in the same run.
//!
//! **Data.** Each workload is [`VALUES`] values drawn with a fixed seed and
//! encoded back to back by an independent byte-loop encoder. Every
//! iteration decodes (or encodes) the whole buffer, so nothing short repeats
//! for the branch predictors to memorise.
//!
//! **Contenders.** `auto` is the public function (run-time dispatch, see
//! `varint_turbo::detected_backend()`); `decode_all` is the allocating form;
//! then every `Backend` this CPU supports, forced; then the peers' loops:
//! `varint-simd` (x86-64 only; `decode(&buf[pos..])` / `encode_to_slice`,
//! value by value)
//! and `prost` (`decode_varint(&mut &buf[..])` / `encode_varint` into a
//! `Vec`). The peers decode to `u64` and narrow when the output is `u32`,
//! as prost does for `uint32` fields.
//!
//! **Checks.** After each timed iteration the output is compared with the
//! values the workload was generated from (outside the timed part), so a
//! wrong or optimised-away benchmark panics instead of reporting a number.
//! `cargo bench --bench bulk -- --test` runs each benchmark once.
//!
//! Throughput is reported in elements (varints) per second; the log gives
//! each workload's bytes per varint for GB/s.

use std::hint::black_box;
use std::time::Duration;

mod common;
use common::{protobuf_mix, reference_encode, Clock};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use varint_turbo::{Backend, VarInt};

/// Values per workload (the 1,000,000).
const VALUES: usize = 1_000_000;

/// One workload: the values (as `u64`) and their varints back to back.
struct Workload {
    name: &'static str,
    values: Vec<u64>,
    bytes: Vec<u8>,
}

impl Workload {
    fn new(name: &'static str, seed: u64, mut draw: impl FnMut(&mut StdRng) -> u64) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        let values: Vec<u64> = (0..VALUES).map(|_| draw(&mut rng)).collect();
        let mut bytes = Vec::with_capacity(VALUES * 10);
        for &value in &values {
            reference_encode(value, &mut bytes);
        }
        eprintln!(
            "workload {name}: {VALUES} values, {} bytes, {:.3} bytes per varint",
            bytes.len(),
            bytes.len() as f64 / VALUES as f64
        );
        Workload {
            name,
            values,
            bytes,
        }
    }

    /// The values as `T`, if every one fits.
    fn values_as<T: OutInt>(&self) -> Option<Vec<T>> {
        self.values.iter().map(|&v| T::try_from(v).ok()).collect()
    }
}

/// What varint-simd (x86-64 only) needs of the output types.
#[cfg(target_arch = "x86_64")]
trait PeerInt: varint_simd::VarIntTarget {}
#[cfg(target_arch = "x86_64")]
impl<T: varint_simd::VarIntTarget> PeerInt for T {}
#[cfg(not(target_arch = "x86_64"))]
trait PeerInt {}
#[cfg(not(target_arch = "x86_64"))]
impl<T> PeerInt for T {}

/// The output types: what varint-turbo decodes into.
trait OutInt: VarInt + PeerInt + TryFrom<u64> + Into<u64> + std::fmt::Debug {
    const NAME: &'static str;
    fn truncate(value: u64) -> Self;
}
impl OutInt for u64 {
    const NAME: &'static str = "u64";
    fn truncate(value: u64) -> Self {
        value
    }
}
impl OutInt for u32 {
    const NAME: &'static str = "u32";
    fn truncate(value: u64) -> Self {
        value as u32
    }
}

/// Panics with the first difference between a decoder's output and the
/// workload's values.
#[cold]
#[inline(never)]
fn mismatch<T: std::fmt::Debug + PartialEq>(what: &str, got: &[T], want: &[T]) -> ! {
    let first = got.iter().zip(want).position(|(g, w)| g != w);
    panic!(
        "{what}: {} values, want {}; first difference at {first:?}",
        got.len(),
        want.len()
    )
}

/// The peers' decode loops, value by value over the whole buffer.
#[cfg(target_arch = "x86_64")]
fn varint_simd_decode_loop<T: OutInt>(bytes: &[u8], out: &mut [T]) -> usize {
    let mut pos = 0;
    let mut n = 0;
    while pos < bytes.len() {
        let (value, len) = varint_simd::decode::<u64>(&bytes[pos..]).expect("valid varint");
        out[n] = T::truncate(value);
        n += 1;
        pos += len;
    }
    n
}

fn prost_decode_loop<T: OutInt>(bytes: &[u8], out: &mut [T]) -> usize {
    let mut buf = bytes;
    let mut n = 0;
    while !buf.is_empty() {
        let value = prost::encoding::decode_varint(&mut buf).expect("valid varint");
        out[n] = T::truncate(value);
        n += 1;
    }
    n
}

/// Times `run` (which fills `out`) and checks `out` against `want` after
/// every iteration.
fn bench_decoder<T: OutInt + Default + Clone>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    clock: Clock,
    id: &str,
    bytes: &[u8],
    want: &[T],
    run: impl Fn(&[u8], &mut [T]) -> usize,
) {
    let mut out = vec![T::default(); want.len()];
    group.bench_function(id, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                out.fill(T::default());
                let mut n = 0;
                total += clock.time(|| n = run(black_box(bytes), black_box(&mut out)));
                if n != want.len() || out != want {
                    mismatch(id, &out[..n.min(out.len())], want);
                }
            }
            total
        });
    });
}

fn bench_decode<T: OutInt + Default + Clone>(c: &mut Criterion, clock: Clock, w: &Workload) {
    let Some(want) = w.values_as::<T>() else {
        return;
    };
    let mut group = c.benchmark_group(format!("bulk_decode/{}/{}", w.name, T::NAME));
    group.throughput(Throughput::Elements(VALUES as u64));
    let bytes = &w.bytes[..];
    bench_decoder(&mut group, clock, "auto", bytes, &want, |bytes, out| {
        let (n, consumed) = varint_turbo::decode_slice(bytes, out).expect("valid varints");
        assert_eq!(consumed, bytes.len());
        n
    });
    // decode_all allocates its Vec: timed up to the return, checked and
    // dropped outside the clock.
    group.bench_function("decode_all", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let mut all = Vec::new();
                total += clock.time(|| {
                    all = varint_turbo::decode_all::<T>(black_box(bytes)).expect("valid varints")
                });
                if all != want {
                    mismatch("decode_all", &all, &want);
                }
            }
            total
        });
    });
    for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
        bench_decoder(
            &mut group,
            clock,
            &backend.to_string(),
            bytes,
            &want,
            |bytes, out| {
                let (n, consumed) = backend.decode_slice(bytes, out).expect("valid varints");
                assert_eq!(consumed, bytes.len());
                n
            },
        );
    }
    #[cfg(target_arch = "x86_64")]
    bench_decoder(
        &mut group,
        clock,
        "varint-simd",
        bytes,
        &want,
        varint_simd_decode_loop,
    );
    bench_decoder(&mut group, clock, "prost", bytes, &want, prost_decode_loop);
    group.finish();
}

/// Times `run` (which encodes `values` into `out`, returning the bytes
/// written) and checks the bytes against the workload's after every
/// iteration.
fn bench_encoder<T: OutInt>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    clock: Clock,
    id: &str,
    values: &[T],
    want: &[u8],
    run: impl Fn(&[T], &mut Vec<u8>) -> usize,
) {
    // Room for a 16-byte store after the last varint (varint-simd's encode).
    let mut out = vec![0u8; want.len() + 16];
    group.bench_function(id, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                out.clear();
                out.resize(want.len() + 16, 0);
                let mut n = 0;
                total += clock.time(|| n = run(black_box(values), black_box(&mut out)));
                if n != want.len() || out[..n] != *want {
                    mismatch(id, &out[..n.min(out.len())], want);
                }
            }
            total
        });
    });
}

fn bench_encode<T: OutInt>(c: &mut Criterion, clock: Clock, w: &Workload) {
    let Some(values) = w.values_as::<T>() else {
        return;
    };
    let want = &w.bytes[..];
    let mut group = c.benchmark_group(format!("bulk_encode/{}/{}", w.name, T::NAME));
    group.throughput(Throughput::Elements(VALUES as u64));
    bench_encoder(&mut group, clock, "auto", &values, want, |values, out| {
        varint_turbo::encode_slice_into(values, out).1
    });
    bench_encoder(
        &mut group,
        clock,
        "encode_slice",
        &values,
        want,
        |values, out| {
            out.clear();
            varint_turbo::encode_slice(values, out)
        },
    );
    for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
        bench_encoder(
            &mut group,
            clock,
            &backend.to_string(),
            &values,
            want,
            |values, out| backend.encode_slice_into(values, out).1,
        );
    }
    #[cfg(target_arch = "x86_64")]
    bench_encoder(
        &mut group,
        clock,
        "varint-simd",
        &values,
        want,
        |values, out| {
            let mut pos = 0;
            for &value in values {
                pos += usize::from(varint_simd::encode_to_slice(value, &mut out[pos..]));
            }
            pos
        },
    );
    bench_encoder(&mut group, clock, "prost", &values, want, |values, out| {
        out.clear();
        for &value in values {
            prost::encoding::encode_varint(value.into(), out);
        }
        out.len()
    });
    group.finish();
}

/// `encoded_len_sum` and `count_varints` against the obvious loops.
fn bench_sizes(c: &mut Criterion, clock: Clock, w: &Workload) {
    let mut group = c.benchmark_group(format!("bulk_sizes/{}", w.name));
    group.throughput(Throughput::Elements(VALUES as u64));
    let mut measure = |id: &str, want: usize, run: &dyn Fn() -> usize| {
        group.bench_function(id, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut n = 0;
                    total += clock.time(|| n = run());
                    assert_eq!(n, want, "{id}");
                }
                total
            });
        });
    };
    let (values, bytes) = (&w.values[..], &w.bytes[..]);
    measure("encoded_len_sum", bytes.len(), &|| {
        varint_turbo::encoded_len_sum(black_box(values))
    });
    measure("prost encoded_len_varint loop", bytes.len(), &|| {
        black_box(values)
            .iter()
            .map(|&v| prost::encoding::encoded_len_varint(v))
            .sum()
    });
    measure("count_varints", VALUES, &|| {
        varint_turbo::count_varints(black_box(bytes))
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    let clock = Clock::from_env();
    eprintln!(
        "varint-turbo bulk backend (auto): {}; clock: {}",
        varint_turbo::detected_backend(),
        clock.describe()
    );
    let workloads = [
        Workload::new("mix", 11, protobuf_mix),
        Workload::new("1byte", 12, |rng| rng.gen_range(0..0x80)),
        Workload::new("u32", 13, |rng| u64::from(rng.gen::<u32>())),
        Workload::new("u64", 14, |rng| rng.gen()),
    ];
    for w in &workloads {
        bench_decode::<u64>(c, clock, w);
        bench_decode::<u32>(c, clock, w);
    }
    for w in &workloads {
        if w.name == "mix" || w.name == "u32" {
            bench_encode::<u64>(c, clock, w);
        }
    }
    bench_sizes(c, clock, &workloads[0]);
}

fn config() -> Criterion {
    // 1 s warm-up + 2 s measurement of 20 samples per benchmark (an
    // iteration is a whole 1M-value buffer, 0.5-15 ms), ~60 benchmarks:
    // about 4 minutes.
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .nresamples(20_000)
        .without_plots()
}

criterion_group! {
    name = bulk;
    config = config();
    targets = benches
}
criterion_main!(bulk);
