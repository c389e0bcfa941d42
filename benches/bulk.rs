//! Bulk benchmarks: whole buffers of 1,000,000 varints (a protobuf packed
//! field, an Avro block) through every bulk backend of varint-turbo, against
//! value-by-value loops of every peer (`common/peers.rs`) in the same run.
//!
//! **Data.** Each workload (`common::WORKLOADS`, documented in
//! BENCHMARKS.md; `VARINT_BENCH_WORKLOADS` selects them) is [`VALUES`]
//! values ([`CHECK_VALUES`] when the benchmarks run once as a check) drawn
//! with its fixed seed and encoded back to back by an independent byte-loop
//! encoder. Every
//! iteration decodes (or encodes) the whole buffer, so nothing short repeats
//! for the branch predictors to memorise.
//!
//! **Contenders.** `auto` is the public function (run-time dispatch, see
//! `varint_turbo::detected_backend()`); `decode_all` is the allocating form;
//! then every `Backend` this CPU supports, forced; then the peers' loops:
//! `varint-simd` (`decode(&buf[pos..])` / `encode_to_slice`, value by value,
//! x86-64 only) and the functions of `common/peers.rs` (prost,
//! integer-encoding, leb128, unsigned-varint, quick-protobuf, protobuf, the
//! byte loop). The peers decode to `u64` and narrow when the output is
//! `u32` or `u8`, as prost does for `uint32` fields. The `u64` groups have
//! every peer; the `u32` and `u8` groups (workloads whose values fit; `u8`:
//! the `u8` and `1byte` workloads, like packed bools and small enums) only
//! varint-simd and prost besides varint-turbo, to keep the full run bounded. Groups use
//! criterion's flat sampling (an iteration is a whole buffer, 0.3-30 ms).
//!
//! **Checks.** After each timed iteration the output is compared with the
//! values the workload was generated from (outside the timed part), so a
//! wrong or optimised-away benchmark panics instead of reporting a number.
//! `cargo bench --bench bulk -- --test` runs each benchmark once.
//!
//! Throughput is reported in elements (varints) per second; the log gives
//! each workload's bytes per varint for GB/s, and with `CRITERION_HOME` set
//! it goes to `$CRITERION_HOME/varint-workloads/bulk-<workload>.json` for
//! the report (scripts/bench-report).

use std::hint::black_box;
use std::time::Duration;

mod common;
use common::WorkloadSpec;
use common::{peers, record_bytes_per_value, reference_encode, selected_workloads, Clock};

use criterion::measurement::WallTime;
use criterion::{criterion_group, BenchmarkGroup, Criterion, SamplingMode, Throughput};
use rand::rngs::StdRng;
use rand::SeedableRng;
use varint_turbo::{Backend, VarInt};

/// Values per workload (the 1,000,000).
const VALUES: usize = 1_000_000;
/// Values per workload when the benchmarks run once as a check
/// (`common::measuring()` is false): over 300 of the AVX-512 backend's
/// 64-byte chunks in every workload, so every path still runs.
const CHECK_VALUES: usize = 20_000;

/// One workload: the values (as `u64`) and their varints back to back.
struct Workload {
    name: &'static str,
    values: Vec<u64>,
    bytes: Vec<u8>,
}

impl Workload {
    fn new(spec: &WorkloadSpec) -> Self {
        let name = spec.name;
        let mut rng = StdRng::seed_from_u64(spec.seed);
        let count = if common::measuring() {
            VALUES
        } else {
            CHECK_VALUES
        };
        let values: Vec<u64> = (0..count).map(|_| (spec.draw)(&mut rng)).collect();
        let mut bytes = Vec::with_capacity(count * 10);
        for &value in &values {
            reference_encode(value, &mut bytes);
        }
        eprintln!(
            "workload {name} ({} values): {count} values, {} bytes, {:.3} bytes per varint",
            spec.width.name(),
            bytes.len(),
            bytes.len() as f64 / count as f64
        );
        record_bytes_per_value(&format!("bulk-{name}"), count, bytes.len());
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

/// The output types: what varint-turbo decodes into.
#[cfg(target_arch = "x86_64")]
trait OutInt: VarInt + varint_simd::VarIntTarget + TryFrom<u64> + Into<u64> + std::fmt::Debug {
    const NAME: &'static str;
    fn truncate(value: u64) -> Self;
}
/// The output types: what varint-turbo decodes into (varint-simd builds
/// only on x86-64).
#[cfg(not(target_arch = "x86_64"))]
trait OutInt: VarInt + TryFrom<u64> + Into<u64> + std::fmt::Debug {
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
impl OutInt for u8 {
    const NAME: &'static str = "u8";
    fn truncate(value: u64) -> Self {
        value as u8
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

/// varint-simd's `encode_to_slice`, value by value (x86-64 only).
#[cfg(target_arch = "x86_64")]
fn varint_simd_encode_loop<T: OutInt>(values: &[T], out: &mut [u8]) -> usize {
    let mut pos = 0;
    for &value in values {
        pos += usize::from(varint_simd::encode_to_slice(value, &mut out[pos..]));
    }
    pos
}

/// A `common::peers` decoder over the whole buffer (`out.len()` varints):
/// one `#[inline(never)]` loop per peer and output type.
macro_rules! peer_decode_loops {
    ($($name:ident => $decoder:path),* $(,)?) => {$(
        #[inline(never)]
        fn $name<T: OutInt>(bytes: &[u8], out: &mut [T]) -> usize {
            let mut n = 0;
            let consumed = $decoder(bytes, out.len(), |value, _len| {
                out[n] = T::truncate(value);
                n += 1;
            })
            .expect("valid varints");
            assert_eq!(consumed, bytes.len());
            n
        }
    )*};
}

peer_decode_loops! {
    prost_decode_loop => peers::prost_decode,
    integer_encoding_decode_loop => peers::integer_encoding_decode,
    leb128_decode_loop => peers::leb128_decode,
    unsigned_varint_decode_loop => peers::unsigned_varint_decode,
    quick_protobuf_decode_loop => peers::quick_protobuf_decode,
    protobuf_decode_loop => peers::protobuf_decode,
    byte_loop_decode_loop => peers::byte_loop_decode,
}

/// A `common::peers` encoder over the whole input: one `#[inline(never)]`
/// loop per peer.
macro_rules! peer_encode_loops {
    ($($name:ident => $encoder:path),* $(,)?) => {$(
        #[inline(never)]
        fn $name<T: OutInt>(values: &[T], out: &mut [u8]) -> usize {
            $encoder(values, out)
        }
    )*};
}

peer_encode_loops! {
    prost_encode_loop => peers::prost_encode,
    integer_encoding_encode_loop => peers::integer_encoding_encode,
    leb128_encode_loop => peers::leb128_encode,
    unsigned_varint_encode_loop => peers::unsigned_varint_encode,
    protobuf_encode_loop => peers::protobuf_encode,
    byte_loop_encode_loop => peers::byte_loop_encode,
}

type Group<'a> = BenchmarkGroup<'a, WallTime>;
/// A contender's whole-buffer decode loop: fills `out`, returns the count.
type DecodeLoop<T> = fn(&[u8], &mut [T]) -> usize;
/// A contender's whole-buffer encode loop: returns the bytes written.
type EncodeLoop<T> = fn(&[T], &mut [u8]) -> usize;

/// A bulk group: elements throughput, flat sampling (long iterations).
fn new_group<'a>(c: &'a mut Criterion, name: String, values: usize) -> Group<'a> {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(values as u64));
    group.sampling_mode(SamplingMode::Flat);
    group
}

/// Times `run` (which fills `out`) and checks `out` against `want` after
/// every iteration.
fn bench_decoder<T: OutInt + Default + Clone>(
    group: &mut Group<'_>,
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

/// `every_peer`: all of `common::peers` besides varint-simd and prost.
fn bench_decode<T: OutInt + Default + Clone>(
    c: &mut Criterion,
    clock: Clock,
    w: &Workload,
    every_peer: bool,
) {
    let Some(want) = w.values_as::<T>() else {
        return;
    };
    let mut group = new_group(
        c,
        format!("bulk_decode/{}/{}", w.name, T::NAME),
        w.values.len(),
    );
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
    // A memory ceiling, not a contender: storing the output alone (0, 1,
    // 2, ... into the same slice, ordinary vector stores like the
    // decoders'; the slice is refilled before each iteration as for them).
    // No decoder of this buffer can beat it on this machine.
    let mut out = vec![T::default(); want.len()];
    group.bench_function("write-ceiling", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                out.fill(T::default());
                total += clock.time(|| {
                    for (i, slot) in black_box(&mut out[..]).iter_mut().enumerate() {
                        *slot = T::truncate(i as u64);
                    }
                });
                if let Some(i) = (0..out.len()).find(|&i| out[i] != T::truncate(i as u64)) {
                    panic!("write-ceiling: slot {i} holds {:?}", out[i]);
                }
            }
            total
        });
    });
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
    if every_peer {
        let peers: [(&str, DecodeLoop<T>); 6] = [
            ("integer-encoding", integer_encoding_decode_loop),
            ("leb128", leb128_decode_loop),
            ("unsigned-varint", unsigned_varint_decode_loop),
            ("quick-protobuf", quick_protobuf_decode_loop),
            ("protobuf", protobuf_decode_loop),
            ("byte-loop", byte_loop_decode_loop),
        ];
        for (id, run) in peers {
            bench_decoder(&mut group, clock, id, bytes, &want, run);
        }
    }
    group.finish();
}

/// Times `run` (which encodes `values` into `out`, returning the bytes
/// written) and checks the bytes against the workload's after every
/// iteration.
fn bench_encoder<T: OutInt>(
    group: &mut Group<'_>,
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
    let mut group = new_group(
        c,
        format!("bulk_encode/{}/{}", w.name, T::NAME),
        w.values.len(),
    );
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
        |values, out| varint_simd_encode_loop(values, out),
    );
    let peers: [(&str, EncodeLoop<T>); 6] = [
        ("prost", prost_encode_loop),
        ("integer-encoding", integer_encoding_encode_loop),
        ("leb128", leb128_encode_loop),
        ("unsigned-varint", unsigned_varint_encode_loop),
        ("protobuf", protobuf_encode_loop),
        ("byte-loop", byte_loop_encode_loop),
    ];
    for (id, run) in peers {
        bench_encoder(&mut group, clock, id, &values, want, |values, out| {
            run(values, out)
        });
    }
    group.finish();
}

/// `encoded_len_sum` against the peers' length functions in a loop, and
/// `count_varints`.
fn bench_sizes(c: &mut Criterion, clock: Clock, w: &Workload) {
    let mut group = new_group(c, format!("bulk_sizes/{}", w.name), w.values.len());
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
    // A generic function, not a closure over a `fn` pointer: each peer's
    // length function inlines into its own loop.
    fn sum_of(values: &[u64], len: impl Fn(u64) -> usize) -> usize {
        black_box(values).iter().map(|&v| len(v)).sum()
    }
    measure("prost", bytes.len(), &|| sum_of(values, peers::prost_len));
    measure("integer-encoding", bytes.len(), &|| {
        sum_of(values, peers::integer_encoding_len)
    });
    measure("leb128", bytes.len(), &|| sum_of(values, peers::leb128_len));
    measure("quick-protobuf", bytes.len(), &|| {
        sum_of(values, peers::quick_protobuf_len)
    });
    measure("protobuf", bytes.len(), &|| {
        sum_of(values, peers::protobuf_len)
    });
    measure("byte-loop", bytes.len(), &|| {
        sum_of(values, peers::byte_loop_len)
    });
    measure("count_varints", values.len(), &|| {
        varint_turbo::count_varints(black_box(bytes))
    });
    // A memory ceiling, not a contender: the cheapest full pass over the
    // same 8 MB of `u64` values (a vectorised wrapping sum), so that
    // `encoded_len_sum` can be judged against what this machine's memory
    // delivers to one core. Checked like the others (the sum is known).
    let value_sum = values.iter().fold(0u64, |sum, &v| sum.wrapping_add(v));
    measure("read-ceiling-values", value_sum as usize, &|| {
        black_box(values)
            .iter()
            .fold(0u64, |sum, &v| sum.wrapping_add(v)) as usize
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
    // One workload at a time (about 18 MB each at most).
    for spec in selected_workloads() {
        let w = Workload::new(spec);
        bench_decode::<u64>(c, clock, &w, true);
        bench_decode::<u32>(c, clock, &w, false);
        bench_decode::<u8>(c, clock, &w, false);
        bench_encode::<u64>(c, clock, &w);
        if w.name == "mix" {
            bench_sizes(c, clock, &w);
        }
    }
}

fn config() -> Criterion {
    // 1 s warm-up + 2 s measurement of 20 samples per benchmark (an
    // iteration is a whole 1M-value buffer, 0.3-30 ms), about 30 benchmarks
    // per workload: about 20 minutes for the 12 workloads.
    // scripts/bench-report passes shorter times on the command line.
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

fn main() {
    #[cfg(target_arch = "x86_64")]
    let paired: Option<fn()> = Some(paired::run);
    #[cfg(not(target_arch = "x86_64"))]
    let paired: Option<fn()> = None;
    common::bench_main(bulk, paired);
}

/// `VARINT_BENCH_PAIRED=1 cargo bench[-native] --bench bulk`: the issue's
/// bulk targets (the public functions and every backend this CPU supports
/// against a loop of varint-simd's `decode` / `encode_to_slice`) in
/// alternating rounds: each round decodes (encodes) the whole buffer once
/// with each contender of a pair, in turn, the order alternating; the
/// table gives the medians over the rounds (see benches/single.rs,
/// `paired`, for why). `VARINT_BENCH_ROUNDS` (default 30),
/// `VARINT_BENCH_WORKLOADS` (default `mix,u64`).
#[cfg(target_arch = "x86_64")]
mod paired {
    use super::*;
    use common::{paired_rounds, print_paired, print_paired_header};

    /// A whole-buffer decoder into `u64`, and encoder from it.
    type DecodeFn = dyn Fn(&[u8], &mut [u64]) -> usize;
    type EncodeFn = dyn Fn(&[u64], &mut [u8]) -> usize;
    type Decoder = Box<DecodeFn>;

    pub fn run() {
        let rounds = paired_rounds(30, "mix,u64");
        let clock = Clock::from_env();
        println!(
            "bulk paired rounds: {rounds}, one whole buffer per contender per round; \
             bulk backend (auto) {}; clock: {}",
            varint_turbo::detected_backend(),
            clock.describe()
        );
        print_paired_header();
        for spec in selected_workloads() {
            let w = Workload::new(spec);
            let (want, bytes) = (&w.values[..], &w.bytes[..]);
            let mut ours: Vec<(String, Decoder)> = vec![(
                "auto".into(),
                Box::new(|bytes, out| {
                    varint_turbo::decode_slice(bytes, out)
                        .expect("valid varints")
                        .0
                }),
            )];
            for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
                ours.push((
                    backend.to_string(),
                    Box::new(move |bytes, out| {
                        backend.decode_slice(bytes, out).expect("valid varints").0
                    }),
                ));
            }
            let mut out = vec![0u64; want.len()];
            for (id, decode) in &ours {
                let runs: [&DecodeFn; 2] = [decode.as_ref(), &varint_simd_decode_loop::<u64>];
                let label = format!("bulk_decode({id}) vs varint-simd/{}", w.name);
                print_paired(&label, rounds, want.len(), |_, contender| {
                    out.fill(0);
                    let mut n = 0;
                    let elapsed =
                        clock.time(|| n = runs[contender](black_box(bytes), black_box(&mut out)));
                    if n != want.len() || out != want {
                        mismatch(id, &out[..n.min(out.len())], want);
                    }
                    elapsed
                });
            }
            let mut encoded = vec![0u8; bytes.len() + 16];
            let encode_auto =
                |values: &[u64], out: &mut [u8]| varint_turbo::encode_slice_into(values, out).1;
            let runs: [&EncodeFn; 2] = [&encode_auto, &varint_simd_encode_loop::<u64>];
            let label = format!("bulk_encode(auto) vs varint-simd/{}", w.name);
            print_paired(&label, rounds, want.len(), |_, contender| {
                let mut len = 0;
                let elapsed =
                    clock.time(|| len = runs[contender](black_box(want), black_box(&mut encoded)));
                if encoded[..len] != *bytes {
                    mismatch("bulk_encode", &encoded[..len], bytes);
                }
                elapsed
            });
        }
    }
}
