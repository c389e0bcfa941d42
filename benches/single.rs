//! Single-value benchmarks: varint-turbo's backends against every peer
//! (varint-simd, prost, integer-encoding, leb128, unsigned-varint,
//! quick-protobuf, protobuf, a textbook byte loop; see `common/peers.rs`),
//! on batches of consecutive varints.
//!
//! **Data.** Each workload (`common::WORKLOADS`, documented in
//! BENCHMARKS.md; `VARINT_BENCH_WORKLOADS` selects them) is a pool of
//! [`POOL`] (2^20) values ([`CHECK_POOL`] when the benchmarks run once as a
//! check) drawn with a fixed seed, encoded back to back into one buffer (by an independent
//! byte-loop encoder) with [`PAD`] zero bytes after the last varint, so the
//! 16-byte reads of the unchecked decoders stay in bounds. Every measured
//! batch is [`BATCH`] consecutive values starting at a pseudo-random index
//! (a cheap LCG), so the branch predictors cannot memorise the lengths, as
//! they do for a small repeated array (up to at least 16,384 values on the
//! development machine), which makes branchy code look several times faster
//! than it is.
//!
//! **Loops.** Decoders walk the buffer like a protobuf parser: decode at
//! `pos`, add the consumed length, repeat; the safe decoders get the rest of
//! the buffer (`&buf[pos..]`), the unchecked ones a pointer. Encoders write
//! the batch's values one after another into an output buffer, either with
//! `encode_to_slice(v, &mut out[pos..])` or with `encode(v)` followed by a
//! 16-byte store (`encode+store16`). `encoded_len` sums the lengths.
//!
//! **Backends.** `api` is the public function (the compile-time selection,
//! see `varint_turbo::single_value_backend()`), then every per-backend type
//! (`scalar`, `ssse3`, `bmi2`; the last two only when `new()` returns
//! `Some`; `neon` on aarch64). varint-simd is x86-64 only, so on other
//! targets the comparison is with the other peers. The peers decode into
//! `u64` (their API; every value of the workload fits the workload's type)
//! and encode from the workload's type widened to `u64`. The batch loop of a SIMD backend is compiled with that
//! backend's `#[target_feature]` so its kernels inline into the loop, as
//! they would in a build that selects that backend; without it every value
//! would pay a call.
//!
//! **Checks.** Every batch's result (wrapping sum of values and lengths, end
//! position) is compared with the scalar reference's for the same window
//! inside the timed loop (two loads and a compare per batch); encoders'
//! output bytes are compared with the pool outside the timed part. A wrong
//! or optimised-away benchmark panics instead of reporting a number.
//! `cargo bench --bench single -- --test` runs each benchmark once.
//!
//! Throughput is reported in elements (varints) per second; with
//! `CRITERION_HOME` set, each workload's bytes per varint goes to
//! `$CRITERION_HOME/varint-workloads/single-<workload>.json` for the
//! report's bytes/s (scripts/bench-report).

use std::fmt::Debug;
use std::hint::black_box;
use std::time::Duration;

mod common;
#[cfg(target_arch = "x86_64")]
mod encodes;
mod reader_loops;
use common::{
    encode_each, peers, record_bytes_per_value, reference_encode, selected_workloads, Clock,
};
use common::{Width, WorkloadSpec};

use criterion::measurement::WallTime;
use criterion::{criterion_group, BenchmarkGroup, Criterion, Throughput};
use rand::rngs::StdRng;
use rand::SeedableRng;
#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
use varint_turbo::arch::aarch64::Neon;
#[cfg(target_arch = "x86_64")]
use varint_turbo::arch::x86_64::{Bmi2, Ssse3};
use varint_turbo::arch::Scalar;

/// Values per workload pool (>= 1,000,000, see the module docs).
const POOL: usize = 1 << 20;
/// Values per pool when the benchmarks run once as a check
/// (`common::measuring()` is false): room for many windows of [`BATCH`].
const CHECK_POOL: usize = 1 << 14;
/// Values per measured batch (one criterion iteration).
const BATCH: usize = 1024;
/// Zero bytes after the last varint of a pool: the unchecked decoders read
/// 16 bytes from the start of every varint.
const PAD: usize = 16;
/// Output buffer of the encoders: a batch of 10-byte varints plus room for
/// a 16-byte store at the last position.
const OUT_LEN: usize = BATCH * 10 + 16;

/// The integer types of the workloads: what both crates decode into and
/// encode from.
#[cfg(target_arch = "x86_64")]
trait Int: varint_turbo::VarInt + varint_simd::VarIntTarget + Into<u64> + TryFrom<u64> + Debug {}
#[cfg(target_arch = "x86_64")]
impl<T> Int for T where
    T: varint_turbo::VarInt + varint_simd::VarIntTarget + Into<u64> + TryFrom<u64> + Debug
{
}
/// The integer types of the workloads (varint-simd builds only on x86-64).
#[cfg(not(target_arch = "x86_64"))]
trait Int: varint_turbo::VarInt + Into<u64> + TryFrom<u64> + Debug {}
#[cfg(not(target_arch = "x86_64"))]
impl<T: varint_turbo::VarInt + Into<u64> + TryFrom<u64> + Debug> Int for T {}

/// One workload: the values, their varints back to back, and the scalar
/// reference's running checksum.
struct Pool<T> {
    values: Vec<T>,
    /// The varints of `values`, then `PAD` zero bytes.
    buf: Vec<u8>,
    /// `offsets[i]`: where varint `i` starts; `offsets[values.len()]`: the end.
    offsets: Vec<usize>,
    /// `prefix[i]`: wrapping sum of value + length of varints `0..i`, as the
    /// scalar backend decodes them.
    prefix: Vec<u64>,
}

impl<T: Int> Pool<T> {
    fn new(spec: &WorkloadSpec) -> Self {
        let mut rng = StdRng::seed_from_u64(spec.seed);
        let count = if common::measuring() {
            POOL
        } else {
            CHECK_POOL
        };
        let values: Vec<T> = (0..count)
            .map(|_| {
                let value = (spec.draw)(&mut rng);
                T::try_from(value)
                    .unwrap_or_else(|_| panic!("{}: {value} does not fit its type", spec.name))
            })
            .collect();
        let mut buf = Vec::with_capacity(count * 10 + PAD);
        let mut offsets = Vec::with_capacity(count + 1);
        for &value in &values {
            offsets.push(buf.len());
            reference_encode(value.into(), &mut buf);
        }
        offsets.push(buf.len());
        buf.resize(buf.len() + PAD, 0);

        // The reference checksums come from the scalar backend, checked
        // against the generated values.
        let scalar = Scalar::new().expect("the scalar backend is always available");
        let mut prefix = Vec::with_capacity(count + 1);
        let mut sum = 0u64;
        prefix.push(sum);
        for (i, &value) in values.iter().enumerate() {
            let (decoded, len) = scalar
                .decode::<T>(&buf[offsets[i]..])
                .expect("valid varint");
            assert_eq!(
                (decoded, len),
                (value, offsets[i + 1] - offsets[i]),
                "scalar decode of value {i}"
            );
            sum = sum.wrapping_add(decoded.into()).wrapping_add(len as u64);
            prefix.push(sum);
        }
        Pool {
            values,
            buf,
            offsets,
            prefix,
        }
    }

    /// What decoding the batch at value index `start` must return: the
    /// checksum and the end position.
    #[inline(always)]
    fn expected(&self, start: usize) -> (u64, usize) {
        (
            self.prefix[start + BATCH].wrapping_sub(self.prefix[start]),
            self.offsets[start + BATCH],
        )
    }

    /// The batch's varints, as the encoders must write them.
    fn encoded(&self, start: usize) -> &[u8] {
        &self.buf[self.offsets[start]..self.offsets[start + BATCH]]
    }

    /// Mean varint length, for the notes.
    fn mean_len(&self) -> f64 {
        self.offsets[self.values.len()] as f64 / self.values.len() as f64
    }
}

/// Picks the batches' start indices: a 64-bit LCG (Knuth's MMIX constants),
/// its top 31 bits scaled to `0..=pool length - BATCH` (or, from
/// [`Windows::over`], to the starts of any window). Every benchmark starts from
/// the same seed, so all contenders see the same windows.
struct Windows {
    state: u64,
    /// How many batch starts the pool has: `pool length - BATCH + 1`.
    starts: u64,
}

impl Windows {
    fn new<T>(pool: &Pool<T>) -> Self {
        Windows::with_seed(pool, 0x853c_49e6_748f_ea9b)
    }

    fn with_seed<T>(pool: &Pool<T>, state: u64) -> Self {
        Windows::over(pool.values.len(), BATCH, state)
    }

    /// Starts of windows of `window` items among `count`.
    fn over(count: usize, window: usize, state: u64) -> Self {
        Windows {
            state,
            starts: (count - window + 1) as u64,
        }
    }

    #[inline(always)]
    fn next_start(&mut self) -> usize {
        self.state = self
            .state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (((self.state >> 33) * self.starts) >> 31) as usize
    }
}

// ---------------------------------------------------------------------------
// Batch loops. `#[inline(always)]` so that each call site (and the
// target-feature wrappers below) gets its own copy with the decoder inlined.

/// Decodes `BATCH` varints from `pos` on, each from `&buf[pos..]`; returns
/// the checksum and the end position, or `None` on a decode error.
#[inline(always)]
fn decode_run<T: Into<u64>>(
    buf: &[u8],
    mut pos: usize,
    mut decode: impl FnMut(&[u8]) -> Option<(T, usize)>,
) -> Option<(u64, usize)> {
    let mut sum = 0u64;
    for _ in 0..BATCH {
        let (value, len) = decode(&buf[pos..])?;
        sum = sum.wrapping_add(value.into()).wrapping_add(len as u64);
        pos += len;
    }
    Some((sum, pos))
}

/// [`decode_run`] for the unchecked decoders: `decode` gets a pointer with
/// at least 16 readable bytes (checked per value, one compare that is never
/// taken, so that even a broken decoder cannot make the loop read out of
/// bounds).
#[inline(always)]
fn decode_unchecked_run<T: Into<u64>>(
    buf: &[u8],
    mut pos: usize,
    mut decode: impl FnMut(*const u8) -> (T, usize),
) -> Option<(u64, usize)> {
    let last = buf.len() - 16;
    let mut sum = 0u64;
    for _ in 0..BATCH {
        if pos > last {
            return None;
        }
        // `pos + 16 <= buf.len()`: 16 readable bytes (`wrapping_add` rather
        // than `buf[pos..]` to leave out a second, redundant bounds check).
        let (value, len) = decode(buf.as_ptr().wrapping_add(pos));
        sum = sum.wrapping_add(value.into()).wrapping_add(len as u64);
        pos += len;
    }
    Some((sum, pos))
}

/// Encodes `values` with an `encode(value) -> ([u8; 16], len)` function,
/// storing all 16 bytes at `pos` and advancing by `len`.
#[inline(always)]
fn encode_store_run<T: Copy>(
    values: &[T],
    out: &mut [u8],
    mut encode: impl FnMut(T) -> ([u8; 16], u8),
) -> usize {
    let mut pos = 0;
    for &value in values {
        let (bytes, len) = encode(value);
        out[pos..pos + 16].copy_from_slice(&bytes);
        pos += usize::from(len);
    }
    pos
}

// The contenders' batch loops, one `#[inline(never)]` function each (one
// call per batch of 1024), so that every contender's loop is compiled on its
// own, in the same context, and is easy to find in a disassembly
// (`objdump -d --no-show-raw-insn` of the bench binary, built with
// `-C symbol-mangling-version=v0` to see the type parameter).

/// The per-backend batch loops, each compiled with the backend's target
/// feature (none for scalar) so that the backend's kernels inline into it.
macro_rules! backend_runs {
    ($module:ident, $backend:ty $(, $feature:literal)?) => {
        mod $module {
            use super::*;

            /// # Safety
            /// The CPU must have the backend's target feature.
            #[inline(never)]
            $(#[target_feature(enable = $feature)])?
            pub unsafe fn decode<T: Int>(b: $backend, buf: &[u8], pos: usize) -> Option<(u64, usize)> {
                decode_run(buf, pos, |rest| b.decode::<T>(rest).ok())
            }

            /// # Safety
            /// As for `decode`.
            #[inline(never)]
            $(#[target_feature(enable = $feature)])?
            pub unsafe fn decode_unchecked<T: Int>(
                b: $backend,
                buf: &[u8],
                pos: usize,
            ) -> Option<(u64, usize)> {
                // SAFETY: `decode_unchecked_run` passes pointers with 16
                // readable bytes.
                decode_unchecked_run(buf, pos, |ptr| unsafe { b.decode_unchecked::<T>(ptr) })
            }

            /// # Safety
            /// As for `decode`.
            #[inline(never)]
            $(#[target_feature(enable = $feature)])?
            pub unsafe fn encode_to_slice<T: Int>(b: $backend, values: &[T], out: &mut [u8]) -> usize {
                encode_each(values, out, |value, rest| b.encode_to_slice(value, rest))
            }

            /// # Safety
            /// As for `decode`.
            #[inline(never)]
            $(#[target_feature(enable = $feature)])?
            pub unsafe fn encode_store<T: Int>(b: $backend, values: &[T], out: &mut [u8]) -> usize {
                encode_store_run(values, out, |value| b.encode(value))
            }
        }
    };
}

backend_runs!(scalar_runs, Scalar);
#[cfg(target_arch = "x86_64")]
backend_runs!(ssse3_runs, Ssse3, "ssse3");
#[cfg(target_arch = "x86_64")]
backend_runs!(bmi2_runs, Bmi2, "bmi2");
#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
backend_runs!(neon_runs, Neon);

/// varint-turbo's public functions (the compile-time backend selection).
mod api_runs {
    use super::*;

    #[inline(never)]
    pub fn decode<T: Int>(buf: &[u8], pos: usize) -> Option<(u64, usize)> {
        decode_run(buf, pos, |rest| varint_turbo::decode::<T>(rest).ok())
    }

    #[inline(never)]
    pub fn decode_unchecked<T: Int>(buf: &[u8], pos: usize) -> Option<(u64, usize)> {
        // SAFETY: `decode_unchecked_run` passes pointers with 16 readable bytes.
        decode_unchecked_run(buf, pos, |ptr| unsafe {
            varint_turbo::decode_unchecked::<T>(ptr)
        })
    }

    #[inline(never)]
    pub fn encode_to_slice<T: Int>(values: &[T], out: &mut [u8]) -> usize {
        encode_each(values, out, |value, rest| {
            varint_turbo::encode_to_slice(value, rest)
        })
    }

    #[inline(never)]
    pub fn encode_store<T: Int>(values: &[T], out: &mut [u8]) -> usize {
        encode_store_run(values, out, varint_turbo::encode)
    }

    #[inline(never)]
    pub fn encoded_len<T: Int>(values: &[T]) -> usize {
        values
            .iter()
            .map(|&value| varint_turbo::encoded_len(value))
            .sum()
    }
}

/// varint-simd 0.4 (`decode`, `decode_unsafe`, `encode_to_slice`, `encode`);
/// it compiles only for x86-64 (its SIMD code has no fallback).
#[cfg(target_arch = "x86_64")]
mod simd_runs {
    use super::*;

    #[inline(never)]
    pub fn decode<T: Int>(buf: &[u8], pos: usize) -> Option<(u64, usize)> {
        decode_run(buf, pos, |rest| varint_simd::decode::<T>(rest).ok())
    }

    #[inline(never)]
    pub fn decode_unchecked<T: Int>(buf: &[u8], pos: usize) -> Option<(u64, usize)> {
        // SAFETY: `decode_unchecked_run` passes pointers with 16 readable bytes.
        decode_unchecked_run(buf, pos, |ptr| unsafe {
            varint_simd::decode_unsafe::<T>(ptr)
        })
    }

    #[inline(never)]
    pub fn encode_to_slice<T: Int>(values: &[T], out: &mut [u8]) -> usize {
        encode_each(values, out, |value, rest| {
            usize::from(varint_simd::encode_to_slice(value, rest))
        })
    }

    #[inline(never)]
    pub fn encode_store<T: Int>(values: &[T], out: &mut [u8]) -> usize {
        encode_store_run(values, out, varint_simd::encode)
    }
}

/// The peers of `common::peers`, each in its own `#[inline(never)]` batch
/// loop.
mod peer_runs {
    use super::*;

    /// A decoder's batch loop: the checksum and end position of `BATCH`
    /// varints from `pos` on.
    macro_rules! decode_runs {
        ($($name:ident => $decoder:path),* $(,)?) => {$(
            #[inline(never)]
            pub fn $name(buf: &[u8], pos: usize) -> Option<(u64, usize)> {
                let mut sum = 0u64;
                let consumed = $decoder(&buf[pos..], BATCH, |value, len| {
                    sum = sum.wrapping_add(value).wrapping_add(len as u64);
                })?;
                Some((sum, pos + consumed))
            }
        )*};
    }

    /// An encoder's batch loop.
    macro_rules! encode_runs {
        ($($name:ident => $encoder:path),* $(,)?) => {$(
            #[inline(never)]
            pub fn $name<T: Int>(values: &[T], out: &mut [u8]) -> usize {
                $encoder(values, out)
            }
        )*};
    }

    /// The sum of a batch's encoded lengths.
    macro_rules! len_runs {
        ($($name:ident => $len:path),* $(,)?) => {$(
            #[inline(never)]
            pub fn $name<T: Int>(values: &[T]) -> usize {
                values.iter().map(|&value| $len(value.into())).sum()
            }
        )*};
    }

    decode_runs! {
        byte_loop_decode => peers::byte_loop_decode,
        prost_decode => peers::prost_decode,
        integer_encoding_decode => peers::integer_encoding_decode,
        leb128_decode => peers::leb128_decode,
        unsigned_varint_decode => peers::unsigned_varint_decode,
        quick_protobuf_decode => peers::quick_protobuf_decode,
        protobuf_decode => peers::protobuf_decode,
    }

    encode_runs! {
        byte_loop_encode => peers::byte_loop_encode,
        prost_encode => peers::prost_encode,
        integer_encoding_encode => peers::integer_encoding_encode,
        leb128_encode => peers::leb128_encode,
        unsigned_varint_encode => peers::unsigned_varint_encode,
        protobuf_encode => peers::protobuf_encode,
    }

    len_runs! {
        byte_loop_len => peers::byte_loop_len,
        prost_len => peers::prost_len,
        integer_encoding_len => peers::integer_encoding_len,
        leb128_len => peers::leb128_len,
        quick_protobuf_len => peers::quick_protobuf_len,
        protobuf_len => peers::protobuf_len,
    }
}

/// The peers' rows of a safe-decode group.
fn bench_peer_decoders<T: Int>(group: &mut Group<'_>, pool: &Pool<T>) {
    bench_decode(group, pool, "prost", peer_runs::prost_decode);
    bench_decode(
        group,
        pool,
        "integer-encoding",
        peer_runs::integer_encoding_decode,
    );
    bench_decode(group, pool, "leb128", peer_runs::leb128_decode);
    bench_decode(
        group,
        pool,
        "unsigned-varint",
        peer_runs::unsigned_varint_decode,
    );
    bench_decode(
        group,
        pool,
        "quick-protobuf",
        peer_runs::quick_protobuf_decode,
    );
    bench_decode(group, pool, "protobuf", peer_runs::protobuf_decode);
    bench_decode(group, pool, "byte-loop", peer_runs::byte_loop_decode);
}

/// The peers' rows of an encode-into-a-slice group.
fn bench_peer_encoders<T: Int>(group: &mut Group<'_>, pool: &Pool<T>) {
    bench_encode(group, pool, "prost", peer_runs::prost_encode::<T>);
    bench_encode(
        group,
        pool,
        "integer-encoding",
        peer_runs::integer_encoding_encode::<T>,
    );
    bench_encode(group, pool, "leb128", peer_runs::leb128_encode::<T>);
    bench_encode(
        group,
        pool,
        "unsigned-varint",
        peer_runs::unsigned_varint_encode::<T>,
    );
    bench_encode(group, pool, "protobuf", peer_runs::protobuf_encode::<T>);
    bench_encode(group, pool, "byte-loop", peer_runs::byte_loop_encode::<T>);
}

/// The peers' rows of an encoded-length group.
fn bench_peer_lens<T: Int>(group: &mut Group<'_>, pool: &Pool<T>) {
    bench_len(group, pool, "prost", peer_runs::prost_len::<T>);
    bench_len(
        group,
        pool,
        "integer-encoding",
        peer_runs::integer_encoding_len::<T>,
    );
    bench_len(group, pool, "leb128", peer_runs::leb128_len::<T>);
    bench_len(
        group,
        pool,
        "quick-protobuf",
        peer_runs::quick_protobuf_len::<T>,
    );
    bench_len(group, pool, "protobuf", peer_runs::protobuf_len::<T>);
    bench_len(group, pool, "byte-loop", peer_runs::byte_loop_len::<T>);
}

// ---------------------------------------------------------------------------
// Timing and checking.

#[cold]
#[inline(never)]
fn mismatch(what: &str, start: usize, got: impl Debug, want: impl Debug) -> ! {
    panic!("{what}: batch at value {start}: got {got:?}, the scalar reference gives {want:?}")
}

/// Times a decoder's batch loop `run(buf, pos)` over random windows and
/// checks each batch against the reference.
fn bench_decode<T: Int>(
    group: &mut Group<'_>,
    pool: &Pool<T>,
    id: &str,
    run: impl Fn(&[u8], usize) -> Option<(u64, usize)>,
) {
    let what = format!("{}/{id}", group.name);
    let clock = group.clock;
    group.inner.bench_function(id, |b| {
        let mut windows = Windows::new(pool);
        b.iter_custom(|iters| {
            let buf = black_box(&pool.buf[..]);
            clock.time(|| {
                for _ in 0..iters {
                    let start = windows.next_start();
                    let got = run(buf, pool.offsets[start]);
                    let want = pool.expected(start);
                    if got != Some(want) {
                        mismatch(&what, start, got, want);
                    }
                }
            })
        });
    });
}

/// Times an encoder's batch loop `run(values, out)`; checks the length of
/// every batch inside the timed loop and the bytes of the last one after it.
fn bench_encode<T: Int>(
    group: &mut Group<'_>,
    pool: &Pool<T>,
    id: &str,
    run: impl Fn(&[T], &mut [u8]) -> usize,
) {
    let what = format!("{}/{id}", group.name);
    let clock = group.clock;
    let mut out = vec![0u8; OUT_LEN];
    group.inner.bench_function(id, |b| {
        let mut windows = Windows::new(pool);
        b.iter_custom(|iters| {
            let mut last = (0, 0);
            let elapsed = clock.time(|| {
                for _ in 0..iters {
                    let start = windows.next_start();
                    let len = run(&pool.values[start..start + BATCH], black_box(&mut out[..]));
                    if len != pool.encoded(start).len() {
                        mismatch(&what, start, len, pool.encoded(start).len());
                    }
                    last = (start, len);
                }
            });
            let (start, len) = last;
            if iters > 0 && out[..len] != *pool.encoded(start) {
                mismatch(&what, start, "different bytes", "the pool's varints");
            }
            elapsed
        });
    });
}

/// Times a batch length function `run(values)`; checks the sum.
fn bench_len<T: Int>(group: &mut Group<'_>, pool: &Pool<T>, id: &str, run: impl Fn(&[T]) -> usize) {
    let what = format!("{}/{id}", group.name);
    let clock = group.clock;
    group.inner.bench_function(id, |b| {
        let mut windows = Windows::new(pool);
        b.iter_custom(|iters| {
            let values = black_box(&pool.values[..]);
            clock.time(|| {
                for _ in 0..iters {
                    let start = windows.next_start();
                    let total = run(&values[start..start + BATCH]);
                    if total != pool.encoded(start).len() {
                        mismatch(&what, start, total, pool.encoded(start).len());
                    }
                }
            })
        });
    });
}

// ---------------------------------------------------------------------------
// The benchmarks.

/// A criterion group and its name (for error messages).
struct Group<'a> {
    inner: BenchmarkGroup<'a, WallTime>,
    name: String,
    clock: Clock,
}

impl Group<'_> {
    fn finish(self) {
        self.inner.finish();
    }
}

fn new_group<'a>(c: &'a mut Criterion, op: &str, workload: &str) -> Group<'a> {
    let name = format!("{op}/{workload}");
    let mut inner = c.benchmark_group(&name);
    inner.throughput(Throughput::Elements(BATCH as u64));
    Group {
        inner,
        name,
        clock: Clock::from_env(),
    }
}

fn bench_workload<T: Int>(c: &mut Criterion, spec: &WorkloadSpec) {
    let workload = spec.name;
    let pool = Pool::<T>::new(spec);
    let count = pool.values.len();
    record_bytes_per_value(&format!("single-{workload}"), count, pool.offsets[count]);
    eprintln!(
        "workload {workload} ({}): {count} values, {:.2} bytes per varint on average, batches of {BATCH}",
        spec.width.name(),
        pool.mean_len()
    );
    let scalar = Scalar::new().expect("the scalar backend is always available");
    #[cfg(target_arch = "x86_64")]
    let (ssse3, bmi2) = (Ssse3::new(), Bmi2::new());
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    let neon = Neon::new();

    // Safe decode, as a parser of untrusted input uses it.
    let mut group = new_group(c, "decode", workload);
    bench_decode(&mut group, &pool, "api", api_runs::decode::<T>);
    // SAFETY (every per-backend loop below): the backend value exists, so
    // the CPU has its target feature.
    bench_decode(&mut group, &pool, "scalar", |buf, pos| unsafe {
        scalar_runs::decode::<T>(scalar, buf, pos)
    });
    #[cfg(target_arch = "x86_64")]
    if let Some(ssse3) = ssse3 {
        bench_decode(&mut group, &pool, "ssse3", |buf, pos| unsafe {
            ssse3_runs::decode::<T>(ssse3, buf, pos)
        });
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(bmi2) = bmi2 {
        bench_decode(&mut group, &pool, "bmi2", |buf, pos| unsafe {
            bmi2_runs::decode::<T>(bmi2, buf, pos)
        });
    }
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    if let Some(neon) = neon {
        bench_decode(&mut group, &pool, "neon", |buf, pos| unsafe {
            neon_runs::decode::<T>(neon, buf, pos)
        });
    }
    #[cfg(target_arch = "x86_64")]
    bench_decode(&mut group, &pool, "varint-simd", simd_runs::decode::<T>);
    bench_peer_decoders(&mut group, &pool);
    group.finish();

    // Unchecked decode: 16 readable bytes at every position (the pool's padding).
    let mut group = new_group(c, "decode_unchecked", workload);
    bench_decode(&mut group, &pool, "api", api_runs::decode_unchecked::<T>);
    bench_decode(&mut group, &pool, "scalar", |buf, pos| unsafe {
        scalar_runs::decode_unchecked::<T>(scalar, buf, pos)
    });
    #[cfg(target_arch = "x86_64")]
    if let Some(ssse3) = ssse3 {
        bench_decode(&mut group, &pool, "ssse3", |buf, pos| unsafe {
            ssse3_runs::decode_unchecked::<T>(ssse3, buf, pos)
        });
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(bmi2) = bmi2 {
        bench_decode(&mut group, &pool, "bmi2", |buf, pos| unsafe {
            bmi2_runs::decode_unchecked::<T>(bmi2, buf, pos)
        });
    }
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    if let Some(neon) = neon {
        bench_decode(&mut group, &pool, "neon", |buf, pos| unsafe {
            neon_runs::decode_unchecked::<T>(neon, buf, pos)
        });
    }
    #[cfg(target_arch = "x86_64")]
    bench_decode(
        &mut group,
        &pool,
        "varint-simd",
        simd_runs::decode_unchecked::<T>,
    );
    group.finish();

    // encode_to_slice into the rest of an output buffer.
    let mut group = new_group(c, "encode_to_slice", workload);
    bench_encode(&mut group, &pool, "api", api_runs::encode_to_slice::<T>);
    bench_encode(&mut group, &pool, "scalar", |values, out| unsafe {
        scalar_runs::encode_to_slice(scalar, values, out)
    });
    #[cfg(target_arch = "x86_64")]
    if let Some(ssse3) = ssse3 {
        bench_encode(&mut group, &pool, "ssse3", |values, out| unsafe {
            ssse3_runs::encode_to_slice(ssse3, values, out)
        });
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(bmi2) = bmi2 {
        bench_encode(&mut group, &pool, "bmi2", |values, out| unsafe {
            bmi2_runs::encode_to_slice(bmi2, values, out)
        });
    }
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    if let Some(neon) = neon {
        bench_encode(&mut group, &pool, "neon", |values, out| unsafe {
            neon_runs::encode_to_slice(neon, values, out)
        });
    }
    #[cfg(target_arch = "x86_64")]
    bench_encode(
        &mut group,
        &pool,
        "varint-simd",
        simd_runs::encode_to_slice::<T>,
    );
    bench_peer_encoders(&mut group, &pool);
    group.finish();

    // encode() to a 16-byte array, stored whole at the output position.
    let mut group = new_group(c, "encode+store16", workload);
    bench_encode(&mut group, &pool, "api", api_runs::encode_store::<T>);
    bench_encode(&mut group, &pool, "scalar", |values, out| unsafe {
        scalar_runs::encode_store(scalar, values, out)
    });
    #[cfg(target_arch = "x86_64")]
    if let Some(ssse3) = ssse3 {
        bench_encode(&mut group, &pool, "ssse3", |values, out| unsafe {
            ssse3_runs::encode_store(ssse3, values, out)
        });
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(bmi2) = bmi2 {
        bench_encode(&mut group, &pool, "bmi2", |values, out| unsafe {
            bmi2_runs::encode_store(bmi2, values, out)
        });
    }
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    if let Some(neon) = neon {
        bench_encode(&mut group, &pool, "neon", |values, out| unsafe {
            neon_runs::encode_store(neon, values, out)
        });
    }
    #[cfg(target_arch = "x86_64")]
    bench_encode(
        &mut group,
        &pool,
        "varint-simd",
        simd_runs::encode_store::<T>,
    );
    group.finish();

    // encoded_len (one implementation for every backend).
    let mut group = new_group(c, "encoded_len", workload);
    bench_len(&mut group, &pool, "api", api_runs::encoded_len::<T>);
    bench_peer_lens(&mut group, &pool);
    group.finish();
}

fn benches(c: &mut Criterion) {
    eprintln!(
        "varint-turbo single-value backend (api): {}; clock: {}",
        varint_turbo::single_value_backend(),
        Clock::from_env().describe()
    );
    for spec in selected_workloads() {
        match spec.width {
            Width::U8 => bench_workload::<u8>(c, spec),
            Width::U16 => bench_workload::<u16>(c, spec),
            Width::U32 => bench_workload::<u32>(c, spec),
            Width::U64 => bench_workload::<u64>(c, spec),
        }
        #[cfg(feature = "bytes")]
        buf_messages::bench(c, spec);
    }
    reader_loops::bench(c);
}

fn config() -> Criterion {
    // About 2.8 s per benchmark (0.5 s warm-up, 2 s measurement, analysis),
    // about 40 benchmarks per workload: about 22 minutes for the 12
    // workloads. scripts/bench-report passes shorter times on the command
    // line.
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50)
        .nresamples(20_000)
        .without_plots()
}

criterion_group! {
    name = single;
    config = config();
    targets = benches
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    let paired: Option<fn()> = Some(paired::run);
    #[cfg(not(target_arch = "x86_64"))]
    let paired: Option<fn()> = None;
    common::bench_main(single, paired);
}

/// `VARINT_BENCH_PAIRED=1 cargo bench[-native] --bench single`: the issue's
/// target pairs (varint-turbo's public function against varint-simd's, and
/// `encoded_len` against prost's) measured in alternating rounds instead of
/// one after the other. Criterion measures each contender in its own few
/// seconds, and on a shared machine whose two vCPUs behave like hyperthread
/// siblings the ratio of two such measurements moves 10-30% between runs;
/// here every round times both contenders on the same windows, in turn
/// (the order alternates), and the table gives the medians over the
/// rounds. `VARINT_BENCH_ROUNDS` sets the number of rounds (default 40),
/// `VARINT_BENCH_WORKLOADS` the workloads (default `mix,u32,u64`).
/// `VARINT_BENCH_PAIRED=encode` runs the tables of `encodes` instead (the
/// single-value encoders, `encoded_len` and `decode_wrapping` against the
/// hosts' loops, windows of 16 values to 1M), `=buf` those of `buf_messages`.
#[cfg(target_arch = "x86_64")]
mod paired {
    use super::*;
    use common::{paired_rounds, print_paired, print_paired_header};

    /// Batches (of `BATCH` values) per contender per round.
    const BATCHES_PER_ROUND: usize = 200;

    /// A decoder's batch loop: the checksum and end position of the batch
    /// that starts at a byte position.
    type DecodeBatch = fn(&[u8], usize) -> Option<(u64, usize)>;
    /// An encoder's batch loop: the bytes written.
    type EncodeBatch<T> = fn(&[T], &mut [u8]) -> usize;

    pub fn run() {
        if std::env::var("VARINT_BENCH_PAIRED").as_deref() == Ok("reader") {
            reader_loops::paired();
            return;
        }
        if std::env::var("VARINT_BENCH_PAIRED").as_deref() == Ok("encode") {
            encodes::run();
            return;
        }
        if std::env::var("VARINT_BENCH_PAIRED").as_deref() == Ok("buf") {
            #[cfg(feature = "bytes")]
            buf_messages::paired();
            #[cfg(not(feature = "bytes"))]
            eprintln!("VARINT_BENCH_PAIRED=buf: BufVarint needs `--features bytes`");
            return;
        }
        let rounds = paired_rounds(40, "mix,u32,u64");
        let clock = Clock::from_env();
        println!(
            "paired rounds: {rounds} x {BATCHES_PER_ROUND} batches of {BATCH} values per contender; \
             single-value backend {}; clock: {}",
            varint_turbo::single_value_backend(),
            clock.describe()
        );
        print_paired_header();
        for spec in selected_workloads() {
            match spec.width {
                Width::U8 => workload::<u8>(spec, rounds, clock),
                Width::U16 => workload::<u16>(spec, rounds, clock),
                Width::U32 => workload::<u32>(spec, rounds, clock),
                Width::U64 => workload::<u64>(spec, rounds, clock),
            }
        }
    }

    fn workload<T: Int>(spec: &WorkloadSpec, rounds: usize, clock: Clock) {
        let pool = Pool::<T>::new(spec);
        let label = |op: &str| format!("{op}/{}", spec.name);
        let decoders: [(&str, [DecodeBatch; 2]); 2] = [
            (
                "decode vs varint-simd",
                [api_runs::decode::<T>, simd_runs::decode::<T>],
            ),
            (
                "decode_unchecked vs decode_unsafe",
                [
                    api_runs::decode_unchecked::<T>,
                    simd_runs::decode_unchecked::<T>,
                ],
            ),
        ];
        for (op, runs) in decoders {
            let batch = |contender: usize, start: usize| {
                let got = runs[contender](black_box(&pool.buf[..]), pool.offsets[start]);
                if got != Some(pool.expected(start)) {
                    mismatch(op, start, got, pool.expected(start));
                }
            };
            compare(&label(op), &pool, rounds, clock, batch, |_| {});
        }
        let encoders: [(&str, [EncodeBatch<T>; 2]); 2] = [
            (
                "encode_to_slice vs varint-simd",
                [
                    api_runs::encode_to_slice::<T>,
                    simd_runs::encode_to_slice::<T>,
                ],
            ),
            (
                "encode+store16 vs varint-simd",
                [api_runs::encode_store::<T>, simd_runs::encode_store::<T>],
            ),
        ];
        let out = std::cell::RefCell::new(vec![0u8; OUT_LEN]);
        for (op, runs) in encoders {
            // The length of every batch inside the timed loop, the bytes of
            // a turn's last batch after it (as `bench_encode` does).
            let batch = |contender: usize, start: usize| {
                let values = &pool.values[start..start + BATCH];
                let len = runs[contender](values, black_box(&mut out.borrow_mut()[..]));
                if len != pool.encoded(start).len() {
                    mismatch(op, start, len, pool.encoded(start).len());
                }
            };
            let verify = |start: usize| {
                if out.borrow()[..pool.encoded(start).len()] != *pool.encoded(start) {
                    mismatch(op, start, "different bytes", "the pool's varints");
                }
            };
            compare(&label(op), &pool, rounds, clock, batch, verify);
        }
        let op = "encoded_len vs prost";
        let runs: [fn(&[T]) -> usize; 2] = [api_runs::encoded_len::<T>, peer_runs::prost_len::<T>];
        let batch = |contender: usize, start: usize| {
            let total = runs[contender](black_box(&pool.values[start..start + BATCH]));
            if total != pool.encoded(start).len() {
                mismatch(op, start, total, pool.encoded(start).len());
            }
        };
        compare(&label(op), &pool, rounds, clock, batch, |_| {});
    }

    /// Times `batch(contender, start)` (0: ours, 1: the peer; each runs and
    /// checks the batch at value index `start`) in alternating rounds, both
    /// contenders of a round on the same windows, and `verify`s the last
    /// batch of each turn after its timed loop; prints the medians.
    fn compare<T>(
        label: &str,
        pool: &Pool<T>,
        rounds: usize,
        clock: Clock,
        mut batch: impl FnMut(usize, usize),
        mut verify: impl FnMut(usize),
    ) {
        print_paired(
            label,
            rounds,
            BATCHES_PER_ROUND * BATCH,
            |round, contender| {
                let seed =
                    0x853c_49e6_748f_ea9b ^ (round as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                let mut windows = Windows::with_seed(pool, seed);
                let mut start = 0;
                let elapsed = clock.time(|| {
                    for _ in 0..BATCHES_PER_ROUND {
                        start = windows.next_start();
                        batch(contender, start);
                    }
                });
                verify(start);
                elapsed
            },
        );
    }
}

/// `BufVarint::get_varint` on small messages, against prost's
/// `decode_varint` on the same `Buf`: how a protocol parser reads a
/// message (a Kafka record, an RPC body) that arrived as `bytes::Bytes`.
///
/// **Data.** The workload's pool (the same values as the other groups),
/// cut into messages of at most [`SIZES`] bytes (whole varints, greedily),
/// each its own `Bytes` whose chunk ends where the message ends, so that
/// the last varints of every message are read from a chunk of fewer than
/// 16 bytes, as at the end of a real message. The `Bytes` are static (a
/// clone copies four words, no reference count), so the walk measures the
/// reads. A batch is [`MESSAGES`] consecutive messages from a
/// pseudo-random start, each read to its end; its checksum (values and
/// count) is checked against the pool's.
///
/// `cargo bench --features bytes --bench single -- get_varint` (criterion,
/// throughput in messages per second), or in alternating rounds:
/// `VARINT_BENCH_PAIRED=buf cargo bench --features bytes --bench single`
/// (workloads `mix,95x1+5x2,zigzag-i64` unless `VARINT_BENCH_WORKLOADS`
/// says otherwise; ns per message).
#[cfg(feature = "bytes")]
mod buf_messages {
    use super::*;
    use bytes::{Buf, Bytes};
    use varint_turbo::BufVarint;

    /// Message sizes: a small RPC body or Kafka record, a larger message;
    /// below 48 bytes most reads are in a chunk's last 15 bytes.
    pub const SIZES: [usize; 3] = [16, 48, 200];
    /// Messages per measured batch.
    const MESSAGES: usize = 64;

    struct Messages {
        messages: Vec<Bytes>,
        /// `prefix[i]`: wrapping sum of the values of messages `0..i`,
        /// plus one per varint.
        prefix: Vec<u64>,
    }

    impl Messages {
        fn new(pool: &Pool<u64>, size: usize) -> Self {
            let count = pool.values.len();
            let end = pool.offsets[count];
            // Leaked once per workload and size (a few MB in a benchmark
            // process) for `Bytes::from_static`'s copy-only clones.
            let all: &'static [u8] = Box::leak(pool.buf[..end].to_vec().into_boxed_slice());
            let all = Bytes::from_static(all);
            let (mut messages, mut prefix) = (Vec::new(), vec![0u64]);
            let mut first = 0;
            while first < count {
                let mut last = first + 1;
                while last < count && pool.offsets[last + 1] - pool.offsets[first] <= size {
                    last += 1;
                }
                messages.push(all.slice(pool.offsets[first]..pool.offsets[last]));
                let sum = pool.values[first..last]
                    .iter()
                    .fold(0u64, |sum, &value| sum.wrapping_add(value).wrapping_add(1));
                prefix.push(prefix[prefix.len() - 1].wrapping_add(sum));
                first = last;
            }
            Messages { messages, prefix }
        }

        fn windows(&self, seed: u64) -> Windows {
            Windows::over(self.messages.len(), MESSAGES, seed)
        }

        /// Reads the batch at message `start` with `walk`; panics unless
        /// it returns the pool's checksum.
        #[inline(always)]
        fn batch(&self, what: &str, start: usize, walk: Walk) {
            let got = walk(black_box(&self.messages[start..start + MESSAGES]));
            let want = self.prefix[start + MESSAGES].wrapping_sub(self.prefix[start]);
            if got != Some(want) {
                mismatch(what, start, got, want);
            }
        }
    }

    /// Reads every message to its end with `read`: the wrapping sum of the
    /// values plus one per varint, or `None` on an error.
    #[inline(always)]
    fn walk(messages: &[Bytes], mut read: impl FnMut(&mut Bytes) -> Option<u64>) -> Option<u64> {
        let mut sum = 0u64;
        for message in messages {
            let mut buf = message.clone();
            while buf.has_remaining() {
                sum = sum.wrapping_add(read(&mut buf)?).wrapping_add(1);
            }
        }
        Some(sum)
    }

    #[inline(never)]
    fn turbo(messages: &[Bytes]) -> Option<u64> {
        walk(messages, |buf| buf.get_varint::<u64>().ok())
    }

    #[inline(never)]
    fn prost(messages: &[Bytes]) -> Option<u64> {
        walk(messages, |buf| prost::encoding::decode_varint(buf).ok())
    }

    /// Reads every message to its end as a `&[u8]` with `read` (a value
    /// and its length): [`walk`]'s checksum.
    #[inline(always)]
    fn walk_slices(
        messages: &[Bytes],
        mut read: impl FnMut(&[u8]) -> Option<(u64, usize)>,
    ) -> Option<u64> {
        let mut sum = 0u64;
        for message in messages {
            let mut rest: &[u8] = message;
            while !rest.is_empty() {
                let (value, len) = read(rest)?;
                sum = sum.wrapping_add(value).wrapping_add(1);
                rest = &rest[len..];
            }
        }
        Some(sum)
    }

    /// `decode` on each message's remaining bytes: the last varints of a
    /// message take its path for inputs shorter than a window.
    #[inline(never)]
    fn decode_slices(messages: &[Bytes]) -> Option<u64> {
        walk_slices(messages, |rest| varint_turbo::decode::<u64>(rest).ok())
    }

    /// prost's `decode_varint` on a `&mut &[u8]`.
    #[inline(never)]
    fn prost_slices(messages: &[Bytes]) -> Option<u64> {
        walk_slices(messages, |rest| {
            let mut cursor = rest;
            let value = prost::encoding::decode_varint(&mut cursor).ok()?;
            Some((value, rest.len() - cursor.len()))
        })
    }

    /// A batch's walk: the checksum of the messages, `None` on an error.
    type Walk = fn(&[Bytes]) -> Option<u64>;

    /// Pairs: `get_varint` and prost on `Bytes`, then `decode` and prost
    /// on `&[u8]`.
    const CONTENDERS: [(&str, Walk); 4] = [
        ("api", turbo),
        ("prost", prost),
        ("decode", decode_slices),
        ("prost-slice", prost_slices),
    ];

    pub fn bench(c: &mut Criterion, spec: &WorkloadSpec) {
        let pool = Pool::<u64>::new(spec);
        let clock = Clock::from_env();
        let mut group = c.benchmark_group(format!("get_varint/{}", spec.name));
        group.throughput(Throughput::Elements(MESSAGES as u64));
        for size in SIZES {
            let messages = Messages::new(&pool, size);
            for (name, walk) in CONTENDERS {
                let id = format!("{name}/{size}B");
                let what = format!("get_varint/{}/{id}", spec.name);
                group.bench_function(&id, |b| {
                    let mut windows = messages.windows(0x853c_49e6_748f_ea9b);
                    b.iter_custom(|iters| {
                        clock.time(|| {
                            for _ in 0..iters {
                                messages.batch(&what, windows.next_start(), walk);
                            }
                        })
                    });
                });
            }
        }
        group.finish();
    }

    /// `VARINT_BENCH_PAIRED=buf`: every size of every workload in
    /// alternating rounds, as `paired::run` does for the other pairs.
    #[cfg(target_arch = "x86_64")]
    pub fn paired() {
        use common::{paired_rounds, print_paired, print_paired_header};
        /// Batches per contender per round.
        const BATCHES_PER_ROUND: usize = 400;
        let rounds = paired_rounds(40, "mix,95x1+5x2,zigzag-i64");
        let clock = Clock::from_env();
        println!(
            "paired rounds (get_varint on Bytes messages, ns per message): {rounds} x \
             {BATCHES_PER_ROUND} batches of {MESSAGES} messages per contender; clock: {}",
            clock.describe()
        );
        print_paired_header();
        for spec in selected_workloads() {
            let pool = Pool::<u64>::new(spec);
            for size in SIZES {
                let messages = Messages::new(&pool, size);
                for (pair, first) in [("get_varint", 0), ("decode on &[u8]", 2)] {
                    let label = format!("{pair}({size}B) vs prost/{}", spec.name);
                    print_paired(
                        &label,
                        rounds,
                        BATCHES_PER_ROUND * MESSAGES,
                        |round, contender| {
                            let seed = 0x853c_49e6_748f_ea9b
                                ^ (round as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                            let mut windows = messages.windows(seed);
                            let (what, walk) = CONTENDERS[first + contender];
                            clock.time(|| {
                                for _ in 0..BATCHES_PER_ROUND {
                                    messages.batch(what, windows.next_start(), walk);
                                }
                            })
                        },
                    );
                }
            }
        }
    }
}
