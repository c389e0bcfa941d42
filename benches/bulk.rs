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
//! **Short inputs.** The `bulk_short/<shape>/<op>` groups (module
//! `short`, issue 23) time one call on W = 1 ... 4096 values of a real
//! field shape, windows taken in turn from a 2^20-value pool, beside prost
//! and byte loops on the same bytes; `VARINT_BENCH_SHORT` selects the
//! shapes (`none` leaves them out), `VARINT_BENCH_SHORT_SIZES` the sizes,
//! `VARINT_BENCH_WORKLOADS=none` leaves out the groups above, and
//! `VARINT_BENCH_PAIRED=short` prints their table of alternating rounds.
//!
//! **Backends against scalar.** `VARINT_BENCH_PAIRED=backends` prints, per
//! type (`u8`, `u16`, `u32`, `u64`: the workload's values truncated to it),
//! each SIMD backend's `encoded_len_sum` and `encode_slice_into` against the
//! scalar backend's in alternating rounds (`paired::backends`; issue 43: no
//! SIMD one may be slower).
//!
//! Throughput is reported in elements (varints) per second; the log gives
//! each workload's bytes per varint for GB/s, and with `CRITERION_HOME` set
//! it goes to `$CRITERION_HOME/varint-workloads/bulk-<workload>.json` for
//! the report (scripts/bench-report).

use std::hint::black_box;
use std::time::Duration;

mod common;
#[path = "packed/mod.rs"]
mod packed;
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
impl OutInt for u16 {
    const NAME: &'static str = "u16";
    fn truncate(value: u64) -> Self {
        value as u16
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

/// `bulk_short`: short iterations (one call of 1-4096 values), so
/// criterion's default linear sampling, and short times: 12 shape/op
/// pairs x 10 sizes x 7-11 contenders, about 1,200 benchmarks (roughly
/// 15 minutes; the paired table takes 2-3). `VARINT_BENCH_SHORT=none` leaves the group
/// out (scripts/bench-report does; it has its own paired table).
fn short_config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(400))
        .sample_size(10)
        .nresamples(2_000)
        .without_plots()
}

criterion_group! {
    name = bulk_short;
    config = short_config();
    targets = short::benches
}

fn all_groups() {
    bulk();
    bulk_short();
    if !common::measuring() {
        // The packed-field table has a paired mode only; `--test` checks it.
        packed::run();
    }
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    let paired: Option<fn()> = Some(paired::run);
    #[cfg(not(target_arch = "x86_64"))]
    let paired: Option<fn()> = Some(paired_elsewhere);
    common::bench_main(all_groups, paired);
}

/// Paired mode off x86-64: the short-input table; the whole-buffer pairs
/// are with varint-simd, which builds on x86-64 only.
#[cfg(not(target_arch = "x86_64"))]
fn paired_elsewhere() {
    if std::env::var("VARINT_BENCH_PAIRED").as_deref() == Ok("short") {
        short::paired();
    } else if std::env::var("VARINT_BENCH_PAIRED").as_deref() == Ok("packed") {
        packed::run();
    } else {
        eprintln!("VARINT_BENCH_PAIRED: the pairs are with varint-simd, which is x86-64 only (VARINT_BENCH_PAIRED=short runs here)");
    }
}

/// `VARINT_BENCH_PAIRED=1 cargo bench[-native] --bench bulk`: the issue's
/// bulk targets (the public functions and every backend this CPU supports
/// against a loop of varint-simd's `decode` / `encode_to_slice`) in
/// alternating rounds: each round decodes (encodes) the whole buffer once
/// with each contender of a pair, in turn, the order alternating; the
/// table gives the medians over the rounds (see benches/single.rs,
/// `paired`, for why). `VARINT_BENCH_ROUNDS` (default 30),
/// `VARINT_BENCH_WORKLOADS` (default `mix,u64`). `VARINT_BENCH_PAIRED=short`:
/// the short-input table instead (`short::paired`); `VARINT_BENCH_PAIRED=packed`
/// the packed-field table (`packed::run`).
#[cfg(target_arch = "x86_64")]
mod paired {
    use super::*;
    use common::{paired_rounds, print_paired, print_paired_header};

    /// A whole-buffer decoder into `u64`, and encoder from it.
    type DecodeFn = dyn Fn(&[u8], &mut [u64]) -> usize;
    type EncodeFn = dyn Fn(&[u64], &mut [u8]) -> usize;
    type Decoder = Box<DecodeFn>;

    pub fn run() {
        match std::env::var("VARINT_BENCH_PAIRED").as_deref() {
            Ok("short") => return short::paired(),
            Ok("backends") => return backends::run(),
            _ => {}
        }
        if std::env::var("VARINT_BENCH_PAIRED").as_deref() == Ok("packed") {
            return packed::run();
        }
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

/// `VARINT_BENCH_PAIRED=backends`: every SIMD backend's `encoded_len_sum`
/// and `encode_slice_into` against the scalar backend's (the "peer"
/// column; speedup = scalar's median time / the backend's), per type, on
/// the workload's values truncated to the type (`VARINT_BENCH_WORKLOADS`,
/// default `mix`; `VARINT_BENCH_ROUNDS`, default 30). Each result is
/// checked against the reference encoder's.
#[cfg(target_arch = "x86_64")]
mod backends {
    use super::*;
    use common::{paired_rounds, print_paired, print_paired_header};

    pub fn run() {
        let rounds = paired_rounds(30, "mix");
        let clock = Clock::from_env();
        println!(
            "backends against scalar, paired rounds: {rounds}; bulk backend (auto) {}; clock: {}",
            varint_turbo::detected_backend(),
            clock.describe()
        );
        print_paired_header();
        for spec in selected_workloads() {
            let w = Workload::new(spec);
            of_type::<u8>(&w, rounds, clock);
            of_type::<u16>(&w, rounds, clock);
            of_type::<u32>(&w, rounds, clock);
            of_type::<u64>(&w, rounds, clock);
        }
    }

    fn of_type<T: OutInt>(w: &Workload, rounds: usize, clock: Clock) {
        let values: Vec<T> = w.values.iter().map(|&v| T::truncate(v)).collect();
        let mut want = Vec::with_capacity(10 * values.len());
        for &value in &values {
            reference_encode(value.into(), &mut want);
        }
        let mut out = vec![0u8; want.len()];
        for backend in Backend::ALL
            .into_iter()
            .filter(|&b| b.is_supported() && b != Backend::Scalar)
        {
            let pair = [backend, Backend::Scalar];
            let label = format!(
                "encoded_len_sum::<{}>({backend}) vs scalar/{}",
                T::NAME,
                w.name
            );
            print_paired(&label, rounds, values.len(), |_, contender| {
                let mut len = 0;
                let elapsed =
                    clock.time(|| len = pair[contender].encoded_len_sum(black_box(&values)));
                assert_eq!(len, want.len(), "{label}: {}", pair[contender]);
                elapsed
            });
            let label = format!(
                "encode_slice_into::<{}>({backend}) vs scalar/{}",
                T::NAME,
                w.name
            );
            print_paired(&label, rounds, values.len(), |_, contender| {
                out.fill(0);
                let mut done = (0, 0);
                let elapsed = clock.time(|| {
                    done =
                        pair[contender].encode_slice_into(black_box(&values), black_box(&mut out))
                });
                if done != (values.len(), want.len()) || out != want {
                    mismatch(&label, &out[..done.1], &want);
                }
                elapsed
            });
        }
    }
}

/// `bulk_short/<workload>/<op>`: the bulk API on short inputs, as packed
/// protobuf fields carry them (issue 23): windows of W = 1 ... 4096 values
/// drawn in turn from a pool of 2^20 values of one field shape, against a
/// loop of prost's `decode_varint` and the byte loop on the same bytes.
/// See BENCHMARKS.md, "Short inputs and real field shapes".
mod short {
    use super::*;
    use criterion::BenchmarkId;
    use varint_turbo::protobuf;

    /// Values per pool (measuring); every window of every size comes from it.
    const POOL: usize = 1 << 20;
    /// Values per pool in criterion's `--test` mode.
    const CHECK_POOL: usize = 1 << 13;
    /// The sizes (values per call).
    pub const SIZES: &[usize] = &[1, 4, 8, 16, 32, 64, 128, 256, 1024, 4096];
    /// The sizes in `--test` mode.
    const CHECK_SIZES: &[usize] = &[1, 8, 64, 4096];
    /// Output values each contender keeps: the calls of a timed batch write
    /// into a ring of `max(1, RING / W)` output slices of W values, reused
    /// from batch to batch (16 KB of `u32`: in L1).
    const RING: usize = 4096;
    /// Values per timed batch (at least one ring): the clocks of the
    /// development VM cost 0.1 µs (wall; `rdtsc` traps) to 2 µs (thread CPU
    /// time) per reading, so a batch is many calls.
    const BATCH: usize = 1 << 20;

    /// Values per timed batch: `VARINT_BENCH_SHORT_BATCH`, else [`BATCH`].
    fn batch_values() -> usize {
        std::env::var("VARINT_BENCH_SHORT_BATCH")
            .map(|b| b.parse().expect("VARINT_BENCH_SHORT_BATCH: a number"))
            .unwrap_or(BATCH)
    }

    /// One field shape: a pool of values and their varints back to back.
    pub struct Shape {
        pub name: &'static str,
        seed: u64,
        draw: fn(&mut StdRng) -> u64,
    }

    fn range(rng: &mut StdRng, lo_bits: u32, hi_bits: u32) -> u64 {
        rng.gen_range(if lo_bits == 0 { 0 } else { 1 << lo_bits }..1u64 << hi_bits)
    }

    /// A varint of exactly `len` bytes (1..=9), uniform among them.
    fn of_len(rng: &mut StdRng, len: u32) -> u64 {
        range(rng, 7 * (len - 1), 7 * len)
    }

    fn zigzag32(v: i32) -> u64 {
        u64::from(((v << 1) ^ (v >> 31)) as u32)
    }

    use rand::Rng;

    /// The shapes, in the order of the tables.
    pub const SHAPES: &[Shape] = &[
        // Packed bools and small enums: half 0/1, half 0..=30.
        Shape {
            name: "enum-bool",
            seed: 2301,
            draw: |rng| {
                if rng.gen() {
                    rng.gen_range(0..2)
                } else {
                    rng.gen_range(0..31)
                }
            },
        },
        // Small counts: 95% 1-byte, 5% 2-byte.
        Shape {
            name: "counts-95x1",
            seed: 2302,
            draw: |rng| {
                if rng.gen_range(0..100) < 95 {
                    of_len(rng, 1)
                } else {
                    of_len(rng, 2)
                }
            },
        },
        // sint32 near zero (zigzag): 70% within ±63 (1 byte), 30% within ±8191.
        Shape {
            name: "sint32-near0",
            seed: 2303,
            draw: |rng| {
                zigzag32(if rng.gen_range(0..100) < 70 {
                    rng.gen_range(-64..64)
                } else {
                    rng.gen_range(-8192..8192)
                })
            },
        },
        // Timestamp deltas: 2, 3 or 4 bytes, equally often.
        Shape {
            name: "ts-delta",
            seed: 2304,
            draw: |rng| {
                let len = rng.gen_range(2..=4);
                of_len(rng, len)
            },
        },
        // int32 with 10% negative values (sign-extended: 10 bytes); the
        // rest 1-2 bytes.
        Shape {
            name: "int32-neg10",
            seed: 2305,
            draw: |rng| {
                if rng.gen_range(0..100) < 10 {
                    i64::from(rng.gen_range(i32::MIN..0)) as u64
                } else {
                    range(rng, 0, 14)
                }
            },
        },
        // uint64 ids: 8, 9 or 10 bytes, equally often.
        Shape {
            name: "u64-ids",
            seed: 2306,
            draw: |rng| match rng.gen_range(8..=10) {
                10 => rng.gen_range(1 << 63..=u64::MAX),
                len => of_len(rng, len),
            },
        },
        // The protobuf-like mix within u32: 60% < 2^7, 25% < 2^14, 15% < 2^28.
        Shape {
            name: "mix32",
            seed: 2307,
            draw: |rng| match rng.gen_range(0..100) {
                0..60 => range(rng, 0, 7),
                60..85 => range(rng, 7, 14),
                _ => range(rng, 14, 28),
            },
        },
        // Uniform in bit width: a width of 1-32 bits, then a value of exactly it.
        Shape {
            name: "bits1-32",
            seed: 2308,
            draw: |rng| {
                let bits = rng.gen_range(1..=32);
                rng.gen_range(1u64 << (bits - 1)..1u64 << bits)
            },
        },
    ];

    /// The shapes `VARINT_BENCH_SHORT` selects (`all`, the default; `none`;
    /// or a comma-separated list of names).
    pub fn selected_shapes() -> Vec<&'static Shape> {
        match std::env::var("VARINT_BENCH_SHORT").as_deref() {
            Err(_) | Ok("") | Ok("all") => SHAPES.iter().collect(),
            Ok("none") => Vec::new(),
            Ok(list) => list
                .split(',')
                .map(|name| {
                    SHAPES
                        .iter()
                        .find(|s| s.name == name)
                        .unwrap_or_else(|| panic!("VARINT_BENCH_SHORT: no shape {name:?}"))
                })
                .collect(),
        }
    }

    /// The sizes: `VARINT_BENCH_SHORT_SIZES` (comma-separated), else
    /// [`SIZES`] ([`CHECK_SIZES`] in `--test` mode).
    pub fn selected_sizes() -> Vec<usize> {
        match std::env::var("VARINT_BENCH_SHORT_SIZES") {
            Ok(list) => list
                .split(',')
                .map(|s| s.trim().parse().expect("VARINT_BENCH_SHORT_SIZES: numbers"))
                .collect(),
            Err(_) if common::measuring() => SIZES.to_vec(),
            Err(_) => CHECK_SIZES.to_vec(),
        }
    }

    /// A shape's pool: values (the 64-bit wire values), their varints, and
    /// the byte offset of each value.
    pub struct Pool {
        values: Vec<u64>,
        bytes: Vec<u8>,
        offsets: Vec<usize>,
    }

    impl Pool {
        pub fn new(shape: &Shape) -> Self {
            let mut rng = StdRng::seed_from_u64(shape.seed);
            let count = if common::measuring() {
                POOL
            } else {
                CHECK_POOL
            };
            let values: Vec<u64> = (0..count).map(|_| (shape.draw)(&mut rng)).collect();
            let mut bytes = Vec::with_capacity(count * 10);
            let mut offsets = Vec::with_capacity(count + 1);
            for &value in &values {
                offsets.push(bytes.len());
                reference_encode(value, &mut bytes);
            }
            offsets.push(bytes.len());
            eprintln!(
                "short shape {}: {count} values, {:.3} bytes per varint",
                shape.name,
                bytes.len() as f64 / count as f64
            );
            Pool {
                values,
                bytes,
                offsets,
            }
        }

        /// The windows of `w` values: `(first byte, end byte)` of each.
        pub fn windows(&self, w: usize) -> Windows {
            let bounds = (0..self.values.len() / w)
                .map(|k| (self.offsets[k * w], self.offsets[(k + 1) * w]))
                .collect();
            Windows { w, bounds }
        }
    }

    pub struct Windows {
        pub w: usize,
        bounds: Vec<(usize, usize)>,
    }

    impl Windows {
        /// Calls per timed batch (paired mode; a criterion sample takes as
        /// many batches as it needs).
        pub fn batch_calls(&self) -> usize {
            (batch_values() / self.w).max(self.ring_slots())
        }

        fn ring_slots(&self) -> usize {
            (RING / self.w).max(1)
        }

        /// Every window once (the `--test` check).
        fn all(&self) -> usize {
            self.bounds.len()
        }
    }

    /// A contender: times `calls` calls on consecutive windows from
    /// `first`, then checks them (outside the clock): the values and bytes
    /// every call reported, and the outputs still in the ring.
    pub trait Contender {
        fn name(&self) -> &str;
        fn batch(
            &mut self,
            pool: &Pool,
            win: &Windows,
            first: usize,
            calls: usize,
            clock: Clock,
        ) -> Duration;
    }

    /// The bytes that `calls` calls from window `first` consume.
    fn window_bytes(win: &Windows, first: usize, calls: usize) -> usize {
        let n = win.bounds.len();
        let whole = calls / n;
        let total: usize = win.bounds.iter().map(|(s, e)| e - s).sum();
        whole * total
            + (0..calls % n)
                .map(|i| {
                    let (s, e) = win.bounds[(first + i) % n];
                    e - s
                })
                .sum::<usize>()
    }

    /// Panics unless `calls` calls reported `w` values and their window's
    /// bytes each (in sum).
    fn check_sums(id: &str, win: &Windows, first: usize, calls: usize, sums: (usize, usize)) {
        let want = (calls * win.w, window_bytes(win, first, calls));
        assert_eq!(
            sums, want,
            "{id}: (values, bytes) over {calls} calls of {} values",
            win.w
        );
    }

    /// Checks the last calls' outputs, still in their ring slots.
    fn check_ring<V: PartialEq + std::fmt::Debug>(
        id: &str,
        pool: &Pool,
        win: &Windows,
        (first, calls): (usize, usize),
        slots: usize,
        expect: fn(u64) -> V,
        output: impl Fn(usize) -> Vec<V>,
    ) {
        let w = win.w;
        for i in calls.saturating_sub(slots)..calls {
            let k = (first + i) % win.bounds.len();
            let want: Vec<V> = pool.values[k * w..(k + 1) * w]
                .iter()
                .map(|&v| expect(v))
                .collect();
            let got = output(i % slots);
            if got != want {
                mismatch(&format!("{id} (window {k} of {w})"), &got, &want);
            }
        }
    }

    /// The batch loop: `run` on each window in turn, into the ring's slots
    /// in turn; returns the clock's time and the sums of what it reported.
    #[inline(always)]
    fn timed_loop<S>(
        pool: &Pool,
        win: &Windows,
        first: usize,
        calls: usize,
        clock: Clock,
        ring: &mut [S],
        mut run: impl FnMut(&[u8], &mut S) -> (usize, usize),
    ) -> (Duration, (usize, usize)) {
        let (mut values, mut bytes) = (0, 0);
        let elapsed = clock.time(|| {
            let (mut k, mut slot) = (first, 0);
            for _ in 0..calls {
                let (start, end) = win.bounds[k];
                let (n, c) = run(black_box(&pool.bytes[start..end]), &mut ring[slot]);
                values += n;
                bytes += c;
                k += 1;
                if k == win.bounds.len() {
                    k = 0;
                }
                slot += 1;
                if slot == ring.len() {
                    slot = 0;
                }
            }
        });
        (elapsed, (values, bytes))
    }

    /// Decodes into a slice of `V` (the ring: `slots` slices of W values).
    struct IntoSlice<V, F> {
        name: String,
        expect: fn(u64) -> V,
        run: F,
        ring: Vec<V>,
    }

    impl<V, F> Contender for IntoSlice<V, F>
    where
        V: Copy + Default + PartialEq + std::fmt::Debug,
        F: FnMut(&[u8], &mut [V]) -> (usize, usize),
    {
        fn name(&self) -> &str {
            &self.name
        }

        fn batch(
            &mut self,
            pool: &Pool,
            win: &Windows,
            first: usize,
            calls: usize,
            clock: Clock,
        ) -> Duration {
            let (w, slots) = (win.w, win.ring_slots());
            self.ring.clear();
            self.ring.resize(w * slots, V::default());
            let run = &mut self.run;
            let mut ring: Vec<&mut [V]> = self.ring.chunks_exact_mut(w).collect();
            let (elapsed, sums) = timed_loop(pool, win, first, calls, clock, &mut ring, |b, s| {
                run(b, black_box(s))
            });
            check_sums(&self.name, win, first, calls, sums);
            let ring = &self.ring;
            check_ring(
                &self.name,
                pool,
                win,
                (first, calls),
                slots,
                self.expect,
                |slot| ring[slot * w..(slot + 1) * w].to_vec(),
            );
            elapsed
        }
    }

    /// Decodes into a `Vec<V>` (`decode_all`, which returns a new one, and
    /// `decode_packed`, which appends to one: cleared before each call).
    struct IntoVec<V, F> {
        name: String,
        expect: fn(u64) -> V,
        run: F,
        ring: Vec<Vec<V>>,
    }

    impl<V, F> Contender for IntoVec<V, F>
    where
        V: Copy + PartialEq + std::fmt::Debug,
        F: FnMut(&[u8], &mut Vec<V>) -> (usize, usize),
    {
        fn name(&self) -> &str {
            &self.name
        }

        fn batch(
            &mut self,
            pool: &Pool,
            win: &Windows,
            first: usize,
            calls: usize,
            clock: Clock,
        ) -> Duration {
            let slots = win.ring_slots();
            self.ring.resize_with(slots, Vec::new);
            self.ring.truncate(slots);
            let run = &mut self.run;
            let (elapsed, sums) =
                timed_loop(pool, win, first, calls, clock, &mut self.ring, |b, s| {
                    run(b, black_box(s))
                });
            check_sums(&self.name, win, first, calls, sums);
            let ring = &self.ring;
            check_ring(
                &self.name,
                pool,
                win,
                (first, calls),
                slots,
                self.expect,
                |slot| ring[slot].clone(),
            );
            elapsed
        }
    }

    /// `count_varints`: checked through the sums.
    struct Count;

    impl Contender for Count {
        fn name(&self) -> &str {
            "count_varints"
        }

        fn batch(
            &mut self,
            pool: &Pool,
            win: &Windows,
            first: usize,
            calls: usize,
            clock: Clock,
        ) -> Duration {
            let (elapsed, sums) = timed_loop(pool, win, first, calls, clock, &mut [()], |b, _| {
                (varint_turbo::count_varints(b), b.len())
            });
            check_sums("count_varints", win, first, calls, sums);
            elapsed
        }
    }

    /// Not a contender: the store bound. Each call writes 0, 1, 2, ... into
    /// its ring slice of W values (plain stores, which LLVM vectorises, as
    /// the decoders' stores are), the window's bytes untouched.
    struct WriteCeiling<T> {
        ring: Vec<T>,
    }

    impl<T: OutInt + Default + Copy> Contender for WriteCeiling<T> {
        fn name(&self) -> &str {
            "write-ceiling"
        }

        fn batch(
            &mut self,
            pool: &Pool,
            win: &Windows,
            first: usize,
            calls: usize,
            clock: Clock,
        ) -> Duration {
            let (w, slots) = (win.w, win.ring_slots());
            self.ring.clear();
            self.ring.resize(w * slots, T::default());
            let mut ring: Vec<&mut [T]> = self.ring.chunks_exact_mut(w).collect();
            let (elapsed, sums) = timed_loop(pool, win, first, calls, clock, &mut ring, |b, s| {
                for (i, slot) in black_box(&mut **s).iter_mut().enumerate() {
                    *slot = T::truncate(i as u64);
                }
                (s.len(), b.len())
            });
            check_sums("write-ceiling", win, first, calls, sums);
            // The slices written (all of them unless the batch is shorter
            // than the ring, as in criterion's first iterations).
            for slice in self.ring.chunks_exact(w).take(calls.min(slots)) {
                if let Some(i) = (0..w).find(|&i| slice[i] != T::truncate(i as u64)) {
                    panic!("write-ceiling: slot {i} holds {:?}", slice[i]);
                }
            }
            elapsed
        }
    }

    fn into_slice<V, F>(name: &str, expect: fn(u64) -> V, run: F) -> Box<dyn Contender>
    where
        V: Copy + Default + PartialEq + std::fmt::Debug + 'static,
        F: FnMut(&[u8], &mut [V]) -> (usize, usize) + 'static,
    {
        Box::new(IntoSlice {
            name: name.to_string(),
            expect,
            run,
            ring: Vec::new(),
        })
    }

    fn into_vec<V, F>(name: &str, expect: fn(u64) -> V, run: F) -> Box<dyn Contender>
    where
        V: Copy + PartialEq + std::fmt::Debug + 'static,
        F: FnMut(&[u8], &mut Vec<V>) -> (usize, usize) + 'static,
    {
        Box::new(IntoVec {
            name: name.to_string(),
            expect,
            run,
            ring: Vec::new(),
        })
    }

    /// A protobuf `decode_packed` into a `Vec<P>`, returning the count.
    type PackedFn<P> = fn(&[u8], &mut Vec<P>) -> usize;

    /// prost's packed-field loop: `decode_varint` on one `&[u8]` cursor
    /// until it is empty, each value converted as prost converts the field.
    #[inline(always)]
    fn prost_loop<V>(bytes: &[u8], out: &mut [V], conv: impl Fn(u64) -> V) -> (usize, usize) {
        let mut cursor = bytes;
        let mut n = 0;
        while !cursor.is_empty() {
            let value = prost::encoding::decode_varint(&mut cursor).expect("valid varint");
            out[n] = conv(value);
            n += 1;
        }
        (n, bytes.len())
    }

    /// The byte loop of `common/peers.rs`, `out.len()` values.
    #[inline(always)]
    fn byte_loop<V>(bytes: &[u8], out: &mut [V], conv: impl Fn(u64) -> V) -> (usize, usize) {
        let mut n = 0;
        let consumed = peers::byte_loop_decode(bytes, out.len(), |value, _| {
            out[n] = conv(value);
            n += 1;
        })
        .expect("valid varints");
        (n, consumed)
    }

    /// The contenders of an unsigned output `T` (`u32` or `u64`): `auto`,
    /// `decode_all`, every backend this CPU supports, `count_varints`,
    /// protobuf's `decode_packed` of the field type (`packed`), prost and
    /// the byte loop.
    fn unsigned<
        T: OutInt + Default + Copy + 'static,
        P: Copy + PartialEq + std::fmt::Debug + 'static,
    >(
        packed: (&str, fn(u64) -> P, PackedFn<P>),
    ) -> Vec<Box<dyn Contender>> {
        let mut all = vec![into_slice("auto", T::truncate, |b, out: &mut [T]| {
            varint_turbo::decode_slice(b, out).expect("valid varints")
        })];
        for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
            all.push(into_slice(
                &backend.to_string(),
                T::truncate,
                move |b, out: &mut [T]| backend.decode_slice(b, out).expect("valid varints"),
            ));
        }
        all.push(into_vec(
            "decode_all",
            T::truncate,
            |b, out: &mut Vec<T>| {
                *out = varint_turbo::decode_all(b).expect("valid varints");
                (out.len(), b.len())
            },
        ));
        all.push(Box::new(Count));
        let (packed_name, packed_expect, packed_run) = packed;
        all.push(into_vec(packed_name, packed_expect, move |b, out| {
            out.clear();
            (packed_run(b, out), b.len())
        }));
        all.push(into_slice("prost", T::truncate, |b, out: &mut [T]| {
            prost_loop(b, out, T::truncate)
        }));
        all.push(into_slice("byte-loop", T::truncate, |b, out: &mut [T]| {
            byte_loop(b, out, T::truncate)
        }));
        all.push(Box::new(WriteCeiling::<T> { ring: Vec::new() }));
        all
    }

    /// Zigzag of the low 32 / all 64 bits.
    fn unzig32(wire: u64) -> i32 {
        varint_turbo::zigzag_decode_i32(wire as u32)
    }
    fn unzig64(wire: u64) -> i64 {
        varint_turbo::zigzag_decode_i64(wire)
    }

    /// The zigzag contenders into `Z` (`i32` or `i64`): `auto`
    /// (`decode_slice_zigzag`), `decode_all_zigzag`, `count_varints`,
    /// `sint32`/`sint64` `decode_packed`, prost and the byte loop with the
    /// same zigzag step.
    fn zigzag<Z>(unzig: fn(u64) -> Z, packed: (&str, PackedFn<Z>)) -> Vec<Box<dyn Contender>>
    where
        Z: varint_turbo::ZigZag + Default + Copy + PartialEq + std::fmt::Debug + 'static,
    {
        let (packed_name, packed_run) = packed;
        vec![
            into_slice("auto", unzig, |b, out: &mut [Z]| {
                varint_turbo::decode_slice_zigzag(b, out).expect("valid varints")
            }),
            into_vec("decode_all", unzig, |b, out: &mut Vec<Z>| {
                *out = varint_turbo::decode_all_zigzag(b).expect("valid varints");
                (out.len(), b.len())
            }),
            Box::new(Count),
            into_vec(packed_name, unzig, move |b, out| {
                out.clear();
                (packed_run(b, out), b.len())
            }),
            into_slice("prost", unzig, move |b, out: &mut [Z]| {
                prost_loop(b, out, unzig)
            }),
            into_slice("byte-loop", unzig, move |b, out: &mut [Z]| {
                byte_loop(b, out, unzig)
            }),
        ]
    }

    macro_rules! packed {
        ($ty:ident, $expect:expr) => {
            (
                concat!(stringify!($ty), "::decode_packed"),
                $expect,
                |b: &[u8], out: &mut Vec<_>| {
                    protobuf::$ty::decode_packed(b, out).expect("valid varints")
                },
            )
        };
    }

    macro_rules! packed_zigzag {
        ($ty:ident) => {
            (
                concat!(stringify!($ty), "::decode_packed"),
                |b: &[u8], out: &mut Vec<_>| {
                    protobuf::$ty::decode_packed(b, out).expect("valid varints")
                },
            )
        };
    }

    /// The operations measured on a shape: `(op, contenders)`. The output
    /// is `u32` where the field's values fit it, else `u64`; zigzag forms
    /// for the sint32 shape and the mix; `u64` output for the mix too.
    pub fn ops(shape: &str) -> Vec<(&'static str, Vec<Box<dyn Contender>>)> {
        match shape {
            "enum-bool" => vec![(
                "u32",
                unsigned::<u32, i32>(packed!(enumeration, |w| w as i32)),
            )],
            "counts-95x1" | "ts-delta" | "bits1-32" => {
                vec![("u32", unsigned::<u32, u32>(packed!(uint32, |w| w as u32)))]
            }
            "sint32-near0" => vec![
                ("zigzag-i32", zigzag::<i32>(unzig32, packed_zigzag!(sint32))),
                ("u32", unsigned::<u32, u32>(packed!(uint32, |w| w as u32))),
            ],
            "int32-neg10" => vec![("u64", unsigned::<u64, i32>(packed!(int32, |w| w as i32)))],
            "u64-ids" => vec![("u64", unsigned::<u64, u64>(packed!(uint64, |w| w)))],
            "mix32" => vec![
                ("u32", unsigned::<u32, u32>(packed!(uint32, |w| w as u32))),
                ("u64", unsigned::<u64, u64>(packed!(uint64, |w| w))),
                ("zigzag-i32", zigzag::<i32>(unzig32, packed_zigzag!(sint32))),
                ("zigzag-i64", zigzag::<i64>(unzig64, packed_zigzag!(sint64))),
            ],
            other => panic!("no operations for shape {other}"),
        }
    }

    /// The clock's own cost (median of empty readings), subtracted from
    /// every batch.
    pub fn clock_overhead(clock: Clock) -> Duration {
        let mut samples: Vec<Duration> = (0..201).map(|_| clock.time(|| {})).collect();
        samples.sort();
        samples[samples.len() / 2]
    }

    /// The criterion groups `bulk_short/<shape>/<op>`, one benchmark per
    /// contender and size (`<contender>/<W>`); time per iteration = per
    /// call, throughput W elements. In `--test` mode every contender also
    /// decodes every window of the (small) pool once, all checked.
    pub fn benches(c: &mut Criterion) {
        let shapes = selected_shapes();
        if shapes.is_empty() {
            return;
        }
        let clock = Clock::from_env();
        let overhead = clock_overhead(clock);
        let sizes = selected_sizes();
        for shape in shapes {
            let pool = Pool::new(shape);
            for (op, mut contenders) in ops(shape.name) {
                let mut group = c.benchmark_group(format!("bulk_short/{}/{op}", shape.name));
                for &w in &sizes {
                    let win = pool.windows(w);
                    group.throughput(Throughput::Elements(w as u64));
                    for contender in contenders.iter_mut() {
                        if !common::measuring() {
                            contender.batch(&pool, &win, 0, win.all(), clock);
                        }
                        let mut next = 0;
                        let id = BenchmarkId::new(contender.name().to_string(), w);
                        group.bench_function(id, |b| {
                            b.iter_custom(|iters| {
                                let mut total = Duration::ZERO;
                                let mut left = iters as usize;
                                while left > 0 {
                                    let calls = left.min(win.batch_calls());
                                    let t = contender.batch(&pool, &win, next, calls, clock);
                                    total += t.saturating_sub(overhead);
                                    next = (next + calls) % win.all();
                                    left -= calls;
                                }
                                total
                            })
                        });
                    }
                }
                group.finish();
            }
        }
    }

    /// Paired mode for the short inputs (`VARINT_BENCH_PAIRED=short`):
    /// for every shape, operation and size, `VARINT_BENCH_ROUNDS` rounds
    /// (default 15) in which every contender decodes the same batch of
    /// windows once, in an order that rotates and reverses from round to
    /// round; a markdown table of the medians per call and the ratios.
    pub fn paired() {
        let rounds: usize = std::env::var("VARINT_BENCH_ROUNDS")
            .map(|r| r.parse().expect("VARINT_BENCH_ROUNDS: a number"))
            .unwrap_or(15);
        let clock = Clock::from_env();
        let overhead = clock_overhead(clock);
        let sizes = selected_sizes();
        println!(
            "bulk_short paired: {rounds} rounds, batches of max({} values, {RING} values) per \
             contender per round; bulk backend (auto) {}; clock: {} (reading: {:.0} ns, subtracted)",
            batch_values(),
            varint_turbo::detected_backend(),
            clock.describe(),
            overhead.as_secs_f64() * 1e9
        );
        println!();
        println!(
            "| field/op | W | auto ns/call | prost ns/call | byte-loop ns/call | auto vs prost \
             | auto vs byte-loop | fastest backend, ns/call | auto / fastest | decode_all vs prost \
             | count_varints vs prost | decode_packed vs prost | auto M values/s \
             | write-ceiling M values/s | every backend, ns/call |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|");
        let ours = [
            "auto",
            "decode_all",
            "count_varints",
            "prost",
            "byte-loop",
            "write-ceiling",
        ];
        for shape in selected_shapes() {
            let pool = Pool::new(shape);
            for (op, mut contenders) in ops(shape.name) {
                for &w in &sizes {
                    let win = pool.windows(w);
                    let calls = win.batch_calls();
                    let n = contenders.len();
                    let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); n];
                    let mut first = 0;
                    for c in contenders.iter_mut() {
                        c.batch(&pool, &win, first, win.ring_slots(), clock);
                    }
                    for round in 0..rounds {
                        for turn in 0..n {
                            let k = if round % 2 == 0 {
                                (round + turn) % n
                            } else {
                                (round + n - 1 - turn) % n
                            };
                            let t = contenders[k].batch(&pool, &win, first, calls, clock);
                            times[k].push(
                                t.saturating_sub(overhead).as_secs_f64() * 1e9 / calls as f64,
                            );
                        }
                        first = (first + calls) % win.all();
                    }
                    let median = |k: usize| {
                        let mut v = times[k].clone();
                        v.sort_by(|a, b| a.total_cmp(b));
                        v[v.len() / 2]
                    };
                    let find = |name: &str| contenders.iter().position(|c| c.name() == name);
                    let ns = |name: &str| find(name).map(median);
                    let (auto, prost, bytes) = (
                        ns("auto").unwrap(),
                        ns("prost").unwrap(),
                        ns("byte-loop").unwrap(),
                    );
                    let vs =
                        |x: Option<f64>| x.map_or("-".into(), |x| format!("{:.2}x", prost / x));
                    let best = (0..n)
                        .filter(|&k| {
                            let name = contenders[k].name();
                            !ours.contains(&name) && !name.contains("::")
                        })
                        .map(|k| (contenders[k].name().to_string(), median(k)))
                        .min_by(|a, b| a.1.total_cmp(&b.1));
                    let packed = (0..n)
                        .find(|&k| contenders[k].name().contains("::"))
                        .map(median);
                    // Every forced backend, for choosing auto's backend per CPU.
                    let every: Vec<String> = (0..n)
                        .filter(|&k| {
                            let name = contenders[k].name();
                            !ours.contains(&name) && !name.contains("::")
                        })
                        .map(|k| format!("{} {:.1}", contenders[k].name(), median(k)))
                        .collect();
                    let (best_cell, ratio_cell) = match &best {
                        Some((name, t)) => (format!("{name} {t:.1}"), format!("{:.2}", auto / t)),
                        None => ("-".into(), "-".into()),
                    };
                    println!(
                        "| {}/{op} | {w} | {auto:.1} | {prost:.1} | {bytes:.1} | {:.2}x | {:.2}x \
                         | {best_cell} | {ratio_cell} | {} | {} | {} | {:.0} | {} | {} |",
                        shape.name,
                        prost / auto,
                        bytes / auto,
                        vs(ns("decode_all")),
                        vs(ns("count_varints")),
                        vs(packed),
                        w as f64 * 1e3 / auto,
                        ns("write-ceiling")
                            .map_or("-".into(), |t| format!("{:.0}", w as f64 * 1e3 / t)),
                        if every.is_empty() {
                            "-".into()
                        } else {
                            every.join(", ")
                        },
                    );
                }
            }
        }
    }
}
