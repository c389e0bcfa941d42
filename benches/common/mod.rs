//! What the benchmarks share: the clock of the timed loops, the
//! independent reference encoder that builds every workload, the workloads
//! (value distributions, seeds, selection by `VARINT_BENCH_WORKLOADS`), and
//! the peers' loops ([`peers`]).

pub mod peers;

use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::Rng;

/// Plain LEB128, one byte per loop turn: independent of the code under test.
pub fn reference_encode(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Encodes `values` one after another into `out` through
/// `encode(value, &mut out[pos..])`; returns the total length.
#[inline(always)]
pub fn encode_each<T: Copy>(
    values: &[T],
    out: &mut [u8],
    mut encode: impl FnMut(T, &mut [u8]) -> usize,
) -> usize {
    let mut pos = 0;
    for &value in values {
        pos += encode(value, &mut out[pos..]);
    }
    pos
}

/// The protobuf-like mix: 60% < 2^7, 25% in [2^7, 2^14), 10% in
/// [2^14, 2^28), 5% uniform over u64 (mostly 10 bytes, like negative
/// int32/int64 fields). About 2 bytes per varint.
pub fn protobuf_mix(rng: &mut StdRng) -> u64 {
    match rng.gen_range(0..100u32) {
        0..60 => rng.gen_range(0..1 << 7),
        60..85 => rng.gen_range(1 << 7..1 << 14),
        85..95 => rng.gen_range(1 << 14..1 << 28),
        _ => rng.gen(),
    }
}

/// The integer type a workload's values fit, which the single-value
/// benchmarks decode into and encode from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Width {
    U8,
    U16,
    U32,
    U64,
}

impl Width {
    /// The type's name, for the logs.
    pub fn name(self) -> &'static str {
        match self {
            Width::U8 => "u8",
            Width::U16 => "u16",
            Width::U32 => "u32",
            Width::U64 => "u64",
        }
    }
}

/// One value distribution: the same name, seed and values in both benches.
pub struct WorkloadSpec {
    /// Its name in benchmark ids, tables and charts.
    pub name: &'static str,
    pub seed: u64,
    pub width: Width,
    /// Draws one value (for the zigzag workloads: the zigzag-encoded value).
    pub draw: fn(&mut StdRng) -> u64,
    /// Part of the quick subset (`VARINT_BENCH_WORKLOADS=quick`).
    pub quick: bool,
}

/// Go protobuf's representative production values, as issue 4 describes
/// them: 1-10, 55-100, 123456789 and 98765432. Drawn uniformly at random
/// from these 58 values (not cycled in order, which a branch predictor
/// would learn): 56 of them are 1-byte varints, the last two 4-byte.
fn go_production_mix(rng: &mut StdRng) -> u64 {
    match rng.gen_range(0..58u32) {
        i @ 0..10 => u64::from(i) + 1,
        i @ 10..56 => u64::from(i) + 45,
        56 => 123_456_789,
        _ => 98_765_432,
    }
}

/// Zigzag of a signed value (protobuf `sint32`/`sint64`, Avro).
fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// Every workload, in the order of the tables. See BENCHMARKS.md.
pub const WORKLOADS: &[WorkloadSpec] = &[
    WorkloadSpec {
        name: "u8",
        seed: 1,
        width: Width::U8,
        draw: |rng| u64::from(rng.gen::<u8>()),
        quick: false,
    },
    WorkloadSpec {
        name: "u16",
        seed: 2,
        width: Width::U16,
        draw: |rng| u64::from(rng.gen::<u16>()),
        quick: false,
    },
    WorkloadSpec {
        name: "u32",
        seed: 3,
        width: Width::U32,
        draw: |rng| u64::from(rng.gen::<u32>()),
        quick: true,
    },
    WorkloadSpec {
        name: "u64",
        seed: 4,
        width: Width::U64,
        draw: |rng| rng.gen(),
        quick: true,
    },
    WorkloadSpec {
        name: "mix",
        seed: 5,
        width: Width::U64,
        draw: protobuf_mix,
        quick: true,
    },
    WorkloadSpec {
        name: "1byte",
        seed: 6,
        width: Width::U64,
        draw: |rng| rng.gen_range(0..1 << 7),
        quick: true,
    },
    WorkloadSpec {
        name: "95x1+5x2",
        seed: 7,
        width: Width::U64,
        draw: |rng| {
            if rng.gen_range(0..100u32) < 95 {
                rng.gen_range(0..1 << 7)
            } else {
                rng.gen_range(1 << 7..1 << 14)
            }
        },
        quick: false,
    },
    WorkloadSpec {
        name: "5byte",
        seed: 8,
        width: Width::U64,
        draw: |rng| rng.gen_range(1 << 28..1 << 35),
        quick: false,
    },
    WorkloadSpec {
        name: "10byte",
        seed: 9,
        width: Width::U64,
        draw: |rng| rng.gen_range(1 << 63..=u64::MAX),
        quick: false,
    },
    WorkloadSpec {
        name: "go-mix",
        seed: 10,
        width: Width::U64,
        draw: go_production_mix,
        quick: false,
    },
    // Signed values near zero, zigzag-encoded: |v| < 2^13, 2-byte varints at most.
    WorkloadSpec {
        name: "zigzag-i32",
        seed: 11,
        width: Width::U32,
        draw: |rng| zigzag(rng.gen_range(-(1 << 13)..1 << 13)),
        quick: false,
    },
    // Signed values near zero: half within ±63, the rest within ±2^20.
    WorkloadSpec {
        name: "zigzag-i64",
        seed: 12,
        width: Width::U64,
        draw: |rng| {
            zigzag(if rng.gen() {
                rng.gen_range(-64..64)
            } else {
                rng.gen_range(-(1 << 20)..1 << 20)
            })
        },
        quick: false,
    },
];

/// The workloads `VARINT_BENCH_WORKLOADS` selects: unset or `all` = every
/// one, `quick` = the quick subset, `none` = none, else a comma-separated
/// list of names.
pub fn selected_workloads() -> Vec<&'static WorkloadSpec> {
    let selection = std::env::var("VARINT_BENCH_WORKLOADS").unwrap_or_default();
    let chosen: Vec<_> = match selection.as_str() {
        "" | "all" => WORKLOADS.iter().collect(),
        "quick" => WORKLOADS.iter().filter(|w| w.quick).collect(),
        // No workload: `cargo bench --bench bulk` then runs its short
        // group (`bulk_short`, which has its own shapes) alone.
        "none" => Vec::new(),
        list => list
            .split(',')
            .map(|name| {
                WORKLOADS
                    .iter()
                    .find(|w| w.name == name)
                    .unwrap_or_else(|| panic!("VARINT_BENCH_WORKLOADS: no workload {name:?}"))
            })
            .collect(),
    };
    chosen
}

/// Whether this run measures (`cargo bench`: criterion gets `--bench`)
/// rather than checks (`cargo test --benches`, or `cargo bench -- --test`:
/// criterion runs each benchmark once), by criterion's own rule. Checks use
/// smaller pools: the checksums still cover every code path, and CI does
/// not spend minutes filling million-value pools in a debug build.
pub fn measuring() -> bool {
    let mut bench = false;
    for arg in std::env::args() {
        match arg.as_str() {
            "--test" => return false,
            "--bench" => bench = true,
            _ => {}
        }
    }
    bench
}

/// Records a workload's mean varint length, for the report's bytes/s:
/// `$CRITERION_HOME/varint-workloads/<name>.json` when `CRITERION_HOME` is
/// set (scripts/bench-report sets it), nothing otherwise.
pub fn record_bytes_per_value(name: &str, values: usize, bytes: usize) {
    let Ok(home) = std::env::var("CRITERION_HOME") else {
        return;
    };
    let dir = std::path::Path::new(&home).join("varint-workloads");
    std::fs::create_dir_all(&dir).expect("create the workload notes' directory");
    let json = format!(
        "{{\"workload\": \"{name}\", \"values\": {values}, \"bytes\": {bytes}, \"bytes_per_value\": {}}}\n",
        bytes as f64 / values as f64
    );
    std::fs::write(dir.join(format!("{name}.json")), json).expect("write a workload note");
}

/// The clock of the timed loops. By default the thread's CPU time
/// (`CLOCK_THREAD_CPUTIME_ID`, Linux): on a shared machine it leaves out
/// the time other processes hold the core, the main noise of wall time
/// there; it still counts cache and TLB misses. `VARINT_BENCH_CLOCK=wall`
/// (or a target without that clock) uses `Instant`.
#[derive(Clone, Copy)]
pub enum Clock {
    Wall,
    #[cfg(target_os = "linux")]
    ThreadCpu,
}

impl Clock {
    /// What the benchmark log says about this clock.
    pub fn describe(self) -> &'static str {
        match self {
            Clock::Wall => "wall (Instant)",
            #[cfg(target_os = "linux")]
            Clock::ThreadCpu => "thread CPU time (set VARINT_BENCH_CLOCK=wall for wall time)",
        }
    }

    pub fn from_env() -> Self {
        match std::env::var("VARINT_BENCH_CLOCK").as_deref() {
            Ok("wall") => Clock::Wall,
            #[cfg(target_os = "linux")]
            Ok("cpu") | Err(_) => Clock::ThreadCpu,
            #[cfg(not(target_os = "linux"))]
            Err(_) => Clock::Wall,
            Ok(other) => panic!("VARINT_BENCH_CLOCK={other}: expected `wall` or `cpu` (Linux)"),
        }
    }

    /// Runs `timed` and returns how long it took on this clock.
    #[inline(always)]
    pub fn time(self, timed: impl FnOnce()) -> Duration {
        match self {
            Clock::Wall => {
                let start = Instant::now();
                timed();
                start.elapsed()
            }
            #[cfg(target_os = "linux")]
            Clock::ThreadCpu => {
                let start = thread_cpu_time();
                timed();
                thread_cpu_time().saturating_sub(start)
            }
        }
    }
}

#[cfg(target_os = "linux")]
fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// `main` of a bench binary: the criterion `group`, or with
/// `VARINT_BENCH_PAIRED` set its paired mode (`None`: the target has none,
/// as off x86-64, where varint-simd does not build).
pub fn bench_main(group: fn(), paired: Option<fn()>) {
    if std::env::var_os("VARINT_BENCH_PAIRED").is_none() {
        group();
        criterion::Criterion::default()
            .configure_from_args()
            .final_summary();
    } else if let Some(paired) = paired {
        paired();
    } else {
        eprintln!("VARINT_BENCH_PAIRED: the pairs are with varint-simd, which is x86-64 only");
    }
}

/// Paired mode (x86-64 only: its peer is varint-simd): the rounds
/// (`VARINT_BENCH_ROUNDS`, else `default`); sets `VARINT_BENCH_WORKLOADS`
/// to `workloads` unless it is set.
#[cfg(target_arch = "x86_64")]
pub fn paired_rounds(default: usize, workloads: &str) -> usize {
    if std::env::var_os("VARINT_BENCH_WORKLOADS").is_none() {
        std::env::set_var("VARINT_BENCH_WORKLOADS", workloads);
    }
    std::env::var("VARINT_BENCH_ROUNDS")
        .map(|r| r.parse().expect("VARINT_BENCH_ROUNDS: a number"))
        .unwrap_or(default)
}

/// Paired mode: `rounds` rounds of `time(round, 0)` (ours) and
/// `time(round, 1)` (the peer), the order alternating from round to round;
/// prints `label` and the two medians per value (`values` per turn) with
/// their ratio, in the table that scripts/bench-report.py reads.
#[cfg(target_arch = "x86_64")]
pub fn print_paired(
    label: &str,
    rounds: usize,
    values: usize,
    mut time: impl FnMut(usize, usize) -> Duration,
) {
    let mut times = [Vec::with_capacity(rounds), Vec::with_capacity(rounds)];
    for round in 0..rounds {
        for turn in 0..2 {
            let contender = (round + turn) % 2;
            times[contender].push(time(round, contender));
        }
    }
    let mut median_ns = |k: usize| {
        times[k].sort();
        times[k][times[k].len() / 2].as_secs_f64() * 1e9 / values as f64
    };
    let (ours, peer) = (median_ns(0), median_ns(1));
    println!(
        "{label:<44} {ours:>14.3} {peer:>14.3} {:>8.2}x",
        peer / ours
    );
}

/// The column heads of [`print_paired`]'s table.
#[cfg(target_arch = "x86_64")]
pub fn print_paired_header() {
    println!(
        "{:<44} {:>14} {:>14} {:>9}",
        "operation/workload", "ours ns/value", "peer ns/value", "speedup"
    );
}
