//! `slice_reader/<shape>`: [`SliceReader::read::<u64>`] in a parse loop
//! (`while !reader.is_empty() { reader.read()? }`) against the same loop
//! over `decode` (`decode(&window[pos..])`), over `decode_wrapping` (which
//! must run at `decode`'s speed on valid input: the promise of its API),
//! over prost's `decode_varint` (on a `&[u8]` `Buf`), and, when
//! `VARINT_BENCH_CPP_PEER` names the shared library that
//! `scripts/cpp-varint-peer` builds, over protobuf C++'s
//! `internal::VarintParse` (which reads past the window's end into the
//! pool's following bytes, as its parse context guarantees 16 readable
//! bytes: C++ gets the slop for free, the Rust loops see only the window).
//!
//! **Data.** Five field shapes ([`all_shapes`]), each a pool of 2^20 values
//! drawn with a fixed seed (`Pool`, as every single-value group), encoded
//! back to back. A window is W consecutive varints (W = 16, 256, 4,096 and
//! the whole pool), taken in turn through the pool (as `bulk_short` takes
//! them: random starts cost a cache miss per window, which at W = 16 took
//! most of the time); every contender reads the same windows. Each window's wrapping sum of
//! values is checked against the pool's.
//!
//! `cargo bench --bench single -- slice_reader` (criterion; throughput in
//! values), or alternating rounds, every contender on the same windows in
//! turn, M values/s medians: `VARINT_BENCH_PAIRED=reader cargo bench
//! --bench single` (`VARINT_BENCH_ROUNDS`, default 15;
//! `VARINT_BENCH_READER_SHAPES` selects shapes by name).
//! `VARINT_BENCH_READER=none` leaves the criterion group out.

use super::*;
use varint_turbo::SliceReader;

/// Protobuf `int32` with 10% negative values (sign-extended to 10 bytes
/// as protobuf writes them), the rest 1-2 bytes (`bulk_short`'s
/// `int32-neg10`).
fn int32_neg10(rng: &mut StdRng) -> u64 {
    use rand::Rng;
    if rng.gen_range(0..100) < 10 {
        i64::from(rng.gen_range(i32::MIN..0)) as u64
    } else {
        rng.gen_range(0..1 << 14)
    }
}

/// Unix timestamps in microseconds within a year from November 2023
/// (1.7e15 + up to 3.15e13): every varint 8 bytes.
fn timestamp_us(rng: &mut StdRng) -> u64 {
    use rand::Rng;
    1_700_000_000_000_000 + rng.gen_range(0..31_536_000_000_000)
}

/// The shapes of issue 44 that `common::WORKLOADS` has (same seeds).
const COMMON_SHAPES: [&str; 3] = ["1byte", "95x1+5x2", "mix"];

/// The shapes of issue 44 that only this group measures.
const OWN_SHAPES: [WorkloadSpec; 2] = [
    WorkloadSpec {
        name: "int32-neg10",
        seed: 2305,
        width: Width::U64,
        draw: int32_neg10,
        quick: true,
    },
    WorkloadSpec {
        name: "ts-8byte",
        seed: 4401,
        width: Width::U64,
        draw: timestamp_us,
        quick: true,
    },
];

/// The five shapes, in the table's order.
fn all_shapes() -> Vec<&'static WorkloadSpec> {
    let common = COMMON_SHAPES.iter().map(|name| {
        common::WORKLOADS
            .iter()
            .find(|spec| spec.name == *name)
            .expect("a workload of common::WORKLOADS")
    });
    common.chain(OWN_SHAPES.iter()).collect()
}

/// The shapes `VARINT_BENCH_READER_SHAPES` names (comma-separated, in
/// the table's order), else all.
fn selected_shapes() -> Vec<&'static WorkloadSpec> {
    let all = all_shapes();
    let Ok(list) = std::env::var("VARINT_BENCH_READER_SHAPES") else {
        return all;
    };
    let names: Vec<&str> = list.split(',').collect();
    for name in &names {
        assert!(
            all.iter().any(|shape| shape.name == *name),
            "VARINT_BENCH_READER_SHAPES: no shape {name:?}"
        );
    }
    all.into_iter()
        .filter(|shape| names.contains(&shape.name))
        .collect()
}

/// The window sizes: 16, 256, 4096 values and the whole pool.
fn sizes(pool: &Pool<u64>) -> [usize; 4] {
    [16, 256, 4096, pool.values.len()]
}

/// A contender: reads every varint of `buf[start..end]` and returns the
/// wrapping sum of the values, `None` on an error. (`buf` is the whole
/// pool, padded: only the C++ peer reads past `end`.)
type Loop = fn(&[u8], usize, usize) -> Option<u64>;

#[inline(never)]
fn reader(buf: &[u8], start: usize, end: usize) -> Option<u64> {
    let mut reader = SliceReader::new(&buf[start..end]);
    let mut sum = 0u64;
    while !reader.is_empty() {
        sum = sum.wrapping_add(reader.read::<u64>().ok()?);
    }
    Some(sum)
}

/// A loop of `decode(&window[pos..])` until the window's end.
#[inline(always)]
fn decode_loop(
    window: &[u8],
    decode: impl Fn(&[u8]) -> Result<(u64, usize), varint_turbo::DecodeError>,
) -> Option<u64> {
    let (mut pos, mut sum) = (0, 0u64);
    while pos < window.len() {
        let (value, len) = decode(&window[pos..]).ok()?;
        sum = sum.wrapping_add(value);
        pos += len;
    }
    Some(sum)
}

#[inline(never)]
fn decode(buf: &[u8], start: usize, end: usize) -> Option<u64> {
    decode_loop(&buf[start..end], varint_turbo::decode::<u64>)
}

#[inline(never)]
fn decode_wrapping(buf: &[u8], start: usize, end: usize) -> Option<u64> {
    decode_loop(&buf[start..end], varint_turbo::decode_wrapping::<u64>)
}

#[inline(never)]
fn prost(buf: &[u8], start: usize, end: usize) -> Option<u64> {
    let mut window = &buf[start..end];
    let mut sum = 0u64;
    while !window.is_empty() {
        sum = sum.wrapping_add(prost::encoding::decode_varint(&mut window).ok()?);
    }
    Some(sum)
}

/// protobuf C++'s parse loop, from the library `VARINT_BENCH_CPP_PEER`
/// names (built by `scripts/cpp-varint-peer`): `cpp_varint_parse_sum(begin,
/// end, &sum)` runs `ptr = VarintParse(ptr, &value)` while `ptr < end` and
/// returns 0 on a parse error.
type CppSum = unsafe extern "C" fn(*const u8, *const u8, *mut u64) -> i32;

static CPP: std::sync::OnceLock<Option<CppSum>> = std::sync::OnceLock::new();

/// Loads the C++ peer once, if `VARINT_BENCH_CPP_PEER` is set.
fn cpp_peer() -> Option<CppSum> {
    *CPP.get_or_init(|| {
        let path = std::env::var("VARINT_BENCH_CPP_PEER").ok()?;
        load_cpp(&path)
    })
}

#[cfg(target_os = "linux")]
fn load_cpp(path: &str) -> Option<CppSum> {
    let c_path = std::ffi::CString::new(path).expect("a path without NUL");
    // SAFETY: dlopen/dlsym with valid C strings; the symbol is the
    // `extern "C"` function of scripts/cpp-varint-peer's driver, whose
    // signature is `CppSum`; the library is never closed.
    unsafe {
        let handle = libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW);
        assert!(
            !handle.is_null(),
            "VARINT_BENCH_CPP_PEER: dlopen({path}) failed"
        );
        let symbol = libc::dlsym(handle, c"cpp_varint_parse_sum".as_ptr());
        assert!(!symbol.is_null(), "{path}: no cpp_varint_parse_sum");
        Some(std::mem::transmute::<*mut libc::c_void, CppSum>(symbol))
    }
}

#[cfg(not(target_os = "linux"))]
fn load_cpp(_path: &str) -> Option<CppSum> {
    panic!("VARINT_BENCH_CPP_PEER: Linux only")
}

#[inline(never)]
fn cpp(buf: &[u8], start: usize, end: usize) -> Option<u64> {
    let sum_of = cpp_peer().expect("the C++ peer is loaded");
    assert!(start <= end && end + PAD <= buf.len());
    let mut sum = 0;
    // SAFETY: `buf[start..end + PAD]` is in bounds (checked above), and
    // `VarintParse` reads at most 10 bytes from the start of each varint,
    // all of which start before `end`, so every read is inside `buf`
    // (the pool's `PAD` zero bytes follow its last varint).
    let ok = unsafe { sum_of(buf.as_ptr().add(start), buf.as_ptr().add(end), &mut sum) };
    (ok != 0).then_some(sum)
}

/// The contenders, C++ last if loaded.
fn contenders() -> Vec<(&'static str, Loop)> {
    let mut all: Vec<(&'static str, Loop)> = vec![
        ("reader", reader),
        ("decode", decode),
        ("decode_wrapping", decode_wrapping),
        ("prost", prost),
    ];
    if cpp_peer().is_some() {
        all.push(("cpp-VarintParse", cpp));
    }
    all
}

/// The windows of `w` values of a pool, in order: the byte range of each
/// and the wrapping sum of its values (the pool's prefix sums count values
/// plus lengths; the lengths sum to the window's byte count).
fn windows(pool: &Pool<u64>, w: usize) -> Vec<(usize, usize, u64)> {
    (0..pool.values.len() / w)
        .map(|k| {
            let (start, stop) = (k * w, (k + 1) * w);
            let (first, end) = (pool.offsets[start], pool.offsets[stop]);
            let sum = pool.prefix[stop]
                .wrapping_sub(pool.prefix[start])
                .wrapping_sub((end - first) as u64);
            (first, end, sum)
        })
        .collect()
}

/// Runs `run` over `count` windows taken in turn from `windows`, from
/// `*next` on (wrapping around), checking each.
#[inline(always)]
fn turn(
    buf: &[u8],
    windows: &[(usize, usize, u64)],
    name: &str,
    run: Loop,
    count: usize,
    next: &mut usize,
) {
    for _ in 0..count {
        let (first, end, want) = windows[*next];
        *next = if *next + 1 == windows.len() {
            0
        } else {
            *next + 1
        };
        let got = run(black_box(buf), first, end);
        if got != Some(want) {
            mismatch(name, first, got, want);
        }
    }
}

/// Values per criterion iteration (at least one window).
const ITERATION_VALUES: usize = 1 << 16;

pub fn bench(c: &mut Criterion) {
    if std::env::var("VARINT_BENCH_READER").as_deref() == Ok("none") {
        return;
    }
    let clock = Clock::from_env();
    for spec in selected_shapes() {
        let pool = Pool::<u64>::new(spec);
        let mut group = c.benchmark_group(format!("slice_reader/{}", spec.name));
        for w in sizes(&pool) {
            let windows = windows(&pool, w);
            let count = (ITERATION_VALUES / w).max(1);
            group.throughput(Throughput::Elements((count * w) as u64));
            for (name, run) in contenders() {
                let what = format!("slice_reader/{}/{name}/W={w}", spec.name);
                group.bench_function(format!("{name}/W={w}"), |b| {
                    let mut next = 0;
                    b.iter_custom(|iters| {
                        clock.time(|| {
                            for _ in 0..iters {
                                turn(&pool.buf, &windows, &what, run, count, &mut next);
                            }
                        })
                    });
                });
            }
        }
        group.finish();
    }
}

/// `VARINT_BENCH_PAIRED=reader`: every shape and window size in
/// alternating rounds (the contenders' order rotates from round to round,
/// all on the same windows); prints M values/s medians and the reader's
/// speed over each other contender's. (The paired modes run on x86-64.)
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub fn paired() {
    /// Values per contender per round.
    const TURN_VALUES: usize = 1 << 20;
    let rounds: usize = std::env::var("VARINT_BENCH_ROUNDS")
        .map(|r| r.parse().expect("VARINT_BENCH_ROUNDS: a number"))
        .unwrap_or(15);
    let clock = Clock::from_env();
    let contenders = contenders();
    println!(
        "SliceReader parse loops, u64, M values/s (medians of {rounds} alternating rounds of \
         {TURN_VALUES} values per contender); single-value backend {}; clock: {}",
        varint_turbo::single_value_backend(),
        clock.describe()
    );
    let names: Vec<&str> = contenders.iter().map(|(name, _)| *name).collect();
    let ratios: Vec<String> = names[1..].iter().map(|n| format!("reader/{n}")).collect();
    println!(
        "| shape | W | {} | {} |",
        names.join(" | "),
        ratios.join(" | ")
    );
    println!("|---|---:|{}", "---:|".repeat(names.len() + ratios.len()));
    for spec in selected_shapes() {
        let pool = Pool::<u64>::new(spec);
        for w in sizes(&pool) {
            let windows = windows(&pool, w);
            let count = (TURN_VALUES / w).max(1);
            let mut times = vec![Vec::with_capacity(rounds); contenders.len()];
            for round in 0..rounds {
                // Every contender of a round reads the same windows.
                let first = round * count % windows.len();
                for k in 0..contenders.len() {
                    let index = (round + k) % contenders.len();
                    let (name, run) = contenders[index];
                    let mut next = first;
                    times[index].push(
                        clock.time(|| turn(&pool.buf, &windows, name, run, count, &mut next)),
                    );
                }
            }
            let rates: Vec<f64> = times
                .iter_mut()
                .map(|t| {
                    t.sort();
                    (count * w) as f64 / t[t.len() / 2].as_secs_f64() / 1e6
                })
                .collect();
            let cells: Vec<String> = rates.iter().map(|r| format!("{r:.0}")).collect();
            let ratio_cells: Vec<String> = rates[1..]
                .iter()
                .map(|r| format!("{:.2}", rates[0] / r))
                .collect();
            println!(
                "| {} | {w} | {} | {} |",
                spec.name,
                cells.join(" | "),
                ratio_cells.join(" | ")
            );
        }
    }
}
