//! The timings: every workload and operation on the four prost copies, in
//! alternating rounds in this one process; ns per unit and the time ratio
//! to unpatched prost (median and quartiles over the rounds). See README.md.
//!
//! Usage: prost-harness [--quick] [--rounds N] [--sample-ms MS] [--filter TEXT] [--wall-clock]
//!
//! `--filter`: only the rows whose "workload | operation" label contains
//! TEXT, or one of TEXT's `;`-separated parts.
//!
//! Samples are timed in this thread's CPU time (`--wall-clock`: wall
//! time), so that time spent descheduled on a shared machine is not
//! counted.

use std::hint::black_box;
use std::time::Instant;

/// The clock of the samples.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Clock {
    /// This thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the time the
    /// thread was descheduled on a busy machine is not counted.
    ThreadCpu,
    /// Wall-clock time.
    Wall,
}

impl Clock {
    fn now_ns(self) -> u64 {
        match self {
            Clock::Wall => {
                static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
                START.get_or_init(Instant::now).elapsed().as_nanos() as u64
            }
            Clock::ThreadCpu => {
                let mut ts = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                // SAFETY: `ts` is a valid timespec to write to.
                let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
                assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
                ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
            }
        }
    }
}

use bytes::{Buf, Bytes};
use prost_harness::data::{self, PackedKind, Rng};
use varint_turbo::BufVarint;

/// One pass of a variant over its pool; returns a checksum.
type Job = Box<dyn FnMut() -> u64>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    DecodeSlice,
    DecodeBytes,
    EncodeVec,
    EncodeToVec,
    EncodedLen,
}

impl Op {
    const ALL: [Op; 5] = [
        Op::DecodeSlice,
        Op::DecodeBytes,
        Op::EncodeVec,
        Op::EncodeToVec,
        Op::EncodedLen,
    ];

    fn name(self) -> &'static str {
        match self {
            Op::DecodeSlice => "decode &[u8]",
            Op::DecodeBytes => "decode Bytes",
            Op::EncodeVec => "encode reused Vec",
            Op::EncodeToVec => "encode_to_vec",
            Op::EncodedLen => "encoded_len",
        }
    }
}

/// The jobs of one prost copy, for any message type of its.
macro_rules! variant_jobs {
    ($module:ident, $krate:ident) => {
        mod $module {
            use super::*;
            use $krate::Message;

            pub fn job<M: Message + Default + 'static>(pool: &[Vec<u8>], op: Op) -> Job {
                match op {
                    Op::DecodeSlice => {
                        let pool = pool.to_vec();
                        Box::new(move || {
                            let mut sum = 0;
                            for bytes in &pool {
                                let message = M::decode(black_box(&bytes[..])).expect("valid");
                                black_box(&message);
                                sum += 1;
                            }
                            sum
                        })
                    }
                    Op::DecodeBytes => {
                        let pool: Vec<Bytes> =
                            pool.iter().map(|b| Bytes::copy_from_slice(b)).collect();
                        Box::new(move || {
                            let mut sum = 0;
                            for bytes in &pool {
                                let message = M::decode(black_box(bytes.clone())).expect("valid");
                                black_box(&message);
                                sum += 1;
                            }
                            sum
                        })
                    }
                    Op::EncodeVec | Op::EncodeToVec | Op::EncodedLen => {
                        let messages: Vec<M> = pool
                            .iter()
                            .map(|b| M::decode(&b[..]).expect("valid"))
                            .collect();
                        let mut buf = Vec::new();
                        Box::new(move || {
                            let mut sum = 0;
                            for message in &messages {
                                let message = black_box(message);
                                sum += match op {
                                    Op::EncodeVec => {
                                        buf.clear();
                                        message.encode(&mut buf).expect("room");
                                        black_box(&buf);
                                        buf.len() as u64
                                    }
                                    Op::EncodeToVec => {
                                        black_box(message.encode_to_vec()).len() as u64
                                    }
                                    _ => message.encoded_len() as u64,
                                };
                            }
                            sum
                        })
                    }
                }
            }

            /// The Kafka-style walk with this copy's `decode_varint` (vt-bulk's
            /// is vt's: not measured twice).
            #[allow(dead_code)]
            pub fn kafka(pool: &[Bytes]) -> Job {
                let pool = pool.to_vec();
                Box::new(move || {
                    let mut sum = 0;
                    for batch in &pool {
                        sum += kafka_walk(batch.clone(), |buf| {
                            let wire = $krate::encoding::decode_varint(buf).expect("valid");
                            ((wire >> 1) as i64) ^ -((wire & 1) as i64)
                        });
                    }
                    sum
                })
            }
        }
    };
}

variant_jobs!(upstream_jobs, prost_upstream);
variant_jobs!(control_jobs, prost_control);
variant_jobs!(vt_jobs, prost_vt);
variant_jobs!(vt_bulk_jobs, prost_vt_bulk);

/// Walks Kafka-style records (data::kafka_records) with `read` for every
/// zigzag varint; returns a checksum.
#[inline(always)]
fn kafka_walk(mut buf: Bytes, mut read: impl FnMut(&mut Bytes) -> i64) -> u64 {
    let mut sum = 0u64;
    let skip = |buf: &mut Bytes, len: i64| {
        if len > 0 {
            buf.advance(len as usize);
        }
    };
    while buf.has_remaining() {
        let len = read(&mut buf);
        let _attributes = buf.get_u8();
        let timestamp = read(&mut buf);
        let offset = read(&mut buf);
        let key = read(&mut buf);
        skip(&mut buf, key);
        let value = read(&mut buf);
        skip(&mut buf, value);
        let headers = read(&mut buf);
        for _ in 0..headers {
            let key = read(&mut buf);
            skip(&mut buf, key);
            let value = read(&mut buf);
            skip(&mut buf, value);
        }
        sum = sum.wrapping_add((len + timestamp + offset + value) as u64);
    }
    sum
}

fn kafka_buf_varint(pool: &[Bytes]) -> Job {
    let pool = pool.to_vec();
    Box::new(move || {
        let mut sum = 0;
        for batch in &pool {
            sum += kafka_walk(batch.clone(), |buf| {
                buf.get_varint_zigzag::<i64>().expect("valid")
            });
        }
        sum
    })
}

struct Settings {
    clock: Clock,
    rounds: usize,
    sample_ns: u64,
    filter: Option<String>,
}

struct Row {
    workload: String,
    op: &'static str,
    unit: &'static str,
    /// Median ns per unit of the first job (unpatched prost).
    base_ns: f64,
    /// Per other job: ratio to the first (median, lower and upper
    /// quartile).
    ratios: Vec<(f64, f64, f64)>,
}

fn quartiles(values: &mut [f64]) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let pos = q * (values.len() - 1) as f64;
        let (low, high) = (pos.floor() as usize, pos.ceil() as usize);
        values[low] + (values[high] - values[low]) * (pos - low as f64)
    };
    (at(0.5), at(0.25), at(0.75))
}

/// Times the jobs in alternating rounds (each round starts at another job)
/// and returns the row.
fn measure(
    settings: &Settings,
    workload: &str,
    op: &'static str,
    unit: &'static str,
    units: usize,
    mut jobs: Vec<Job>,
) -> Option<Row> {
    let label = format!("{workload} | {op}");
    if let Some(filter) = &settings.filter {
        if !filter.split(';').any(|part| label.contains(part)) {
            return None;
        }
    }
    // Warm up each job; the checksums must agree.
    let sums: Vec<u64> = jobs.iter_mut().map(|job| job()).collect();
    // Encoded lengths are equal by construction; decode counts too.
    assert!(
        sums.windows(2).all(|w| w[0] == w[1]),
        "{label}: checksums differ: {sums:?}"
    );
    let start = settings.clock.now_ns();
    black_box(jobs[0]());
    let once = (settings.clock.now_ns() - start).max(1);
    let reps = (settings.sample_ns / once).max(1);
    let n = jobs.len();
    let mut ns = vec![Vec::with_capacity(settings.rounds); n];
    for round in 0..settings.rounds {
        for k in 0..n {
            let i = (round + k) % n;
            let job = &mut jobs[i];
            let start = settings.clock.now_ns();
            for _ in 0..reps {
                black_box(job());
            }
            let elapsed = (settings.clock.now_ns() - start) as f64;
            ns[i].push(elapsed / (reps as f64 * units as f64));
        }
    }
    let base_ns = quartiles(&mut ns[0].clone()).0;
    let ratios = (1..n)
        .map(|i| {
            let mut ratio: Vec<f64> = ns[i].iter().zip(&ns[0]).map(|(t, b)| t / b).collect();
            quartiles(&mut ratio)
        })
        .collect();
    let row = Row {
        workload: workload.to_string(),
        op,
        unit,
        base_ns,
        ratios,
    };
    eprintln!("{}", format_row(&row));
    Some(row)
}

fn clock_name(clock: Clock) -> &'static str {
    match clock {
        Clock::ThreadCpu => "thread CPU time",
        Clock::Wall => "wall-clock time",
    }
}

fn format_row(row: &Row) -> String {
    let mut line = format!(
        "| {} | {} | {:.1} ns/{} |",
        row.workload, row.op, row.base_ns, row.unit
    );
    for (median, q1, q3) in &row.ratios {
        line += &format!(" {median:.2} ({q1:.2}-{q3:.2}) |");
    }
    line
}

/// All five operations on one message type, the pool given as encodings.
macro_rules! message_rows {
    ($rows:expr, $settings:expr, $ty:ident, $workload:expr, $unit:expr, $units:expr, $pool:expr) => {{
        let pool: Vec<Vec<u8>> = $pool;
        for op in Op::ALL {
            let jobs = vec![
                upstream_jobs::job::<prost_harness::messages::upstream::$ty>(&pool, op),
                control_jobs::job::<prost_harness::messages::control::$ty>(&pool, op),
                vt_jobs::job::<prost_harness::messages::vt::$ty>(&pool, op),
                vt_bulk_jobs::job::<prost_harness::messages::vt_bulk::$ty>(&pool, op),
            ];
            $rows.extend(measure(
                $settings,
                &$workload,
                op.name(),
                $unit,
                $units,
                jobs,
            ));
        }
    }};
}

fn main() {
    use prost_upstream::Message;

    let mut settings = Settings {
        clock: Clock::ThreadCpu,
        rounds: 41,
        sample_ns: 8_000_000,
        filter: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .unwrap_or_else(|| panic!("{name} needs a value"))
        };
        match arg.as_str() {
            "--quick" => {
                settings.rounds = 9;
                settings.sample_ns = 1_000_000;
            }
            "--rounds" => settings.rounds = value("--rounds").parse().expect("--rounds N"),
            "--sample-ms" => {
                settings.sample_ns =
                    (value("--sample-ms").parse::<f64>().expect("--sample-ms MS") * 1e6) as u64
            }
            "--filter" => settings.filter = Some(value("--filter")),
            "--wall-clock" => settings.clock = Clock::Wall,
            _ => {
                eprintln!(
                    "usage: prost-harness [--quick] [--rounds N] [--sample-ms MS] [--filter TEXT] [--wall-clock]"
                );
                std::process::exit(2);
            }
        }
    }
    eprintln!(
        "== {} rounds, samples of {:.1} ms ({}); varint-turbo backends: single {:?}, bulk {:?}",
        settings.rounds,
        settings.sample_ns as f64 / 1e6,
        clock_name(settings.clock),
        varint_turbo::single_value_backend(),
        varint_turbo::detected_backend(),
    );
    let settings = &settings;
    let mut rows = Vec::new();
    let mut rng = Rng::new(0x5eed);

    // A batch of 1,000 telemetry records; a pool of 4 batches.
    let pool = (0..4)
        .map(|_| data::telemetry_batch(&mut rng, 1000).encode_to_vec())
        .collect();
    message_rows!(
        rows,
        settings,
        TelemetryBatch,
        "telemetry batch (1,000 records)",
        "record",
        4000,
        pool
    );

    // A tree of 1,500 nodes; a pool of 4 trees.
    let pool = (0..4)
        .map(|_| data::tree(&mut rng, 1500).encode_to_vec())
        .collect();
    message_rows!(
        rows,
        settings,
        Node,
        "tree (1,500 nodes)",
        "node",
        6000,
        pool
    );

    // One telemetry message at a time (as an RPC), from a pool of 4,096.
    let pool: Vec<Vec<u8>> = (0..4096)
        .map(|_| data::telemetry(&mut rng).encode_to_vec())
        .collect();
    let mean = pool.iter().map(Vec::len).sum::<usize>() as f64 / pool.len() as f64;
    message_rows!(
        rows,
        settings,
        Telemetry,
        format!("one telemetry message ({mean:.0} bytes)"),
        "msg",
        4096,
        pool
    );

    // Packed fields: about 64k elements per pool (200k at 100,000).
    for kind in PackedKind::ALL {
        for len in [8usize, 64, 1000, 100_000] {
            let count = (65_536 / len).max(2);
            let workload = format!("{} ×{}", kind.name(), len);
            let units = count * len;
            // A pool of `count` fields of `len` elements, from `generate`.
            macro_rules! packed {
                ($ty:ident, $generate:path) => {{
                    let pool = (0..count)
                        .map(|_| $generate(&mut rng, len).encode_to_vec())
                        .collect();
                    message_rows!(rows, settings, $ty, workload, "elem", units, pool);
                }};
            }
            match kind {
                PackedKind::Uint64Mix => packed!(PackedUint64, data::packed_uint64),
                PackedKind::Int32Small => packed!(PackedInt32, data::packed_int32_small),
                PackedKind::Sint32NearZero => {
                    packed!(PackedSint32, data::packed_sint32_near_zero)
                }
                PackedKind::Int32Negative => packed!(PackedInt32, data::packed_int32_negative),
                PackedKind::Int64Timestamps => {
                    packed!(PackedInt64, data::packed_int64_timestamps)
                }
                PackedKind::Uint32Mix => packed!(PackedUint32, data::packed_uint32_mix),
                PackedKind::Sint64Deltas => packed!(PackedSint64, data::packed_sint64_deltas),
                PackedKind::Bool => packed!(PackedBool, data::packed_bool),
                PackedKind::Enum => packed!(PackedEnum, data::packed_enum),
            }
        }
    }

    // Kafka-style records through bytes::Buf; a pool of 4 batches of 1,000.
    let pool: Vec<Bytes> = (0..4)
        .map(|_| Bytes::from(data::kafka_records(&mut rng, 1000)))
        .collect();
    let jobs = vec![
        upstream_jobs::kafka(&pool),
        control_jobs::kafka(&pool),
        vt_jobs::kafka(&pool),
        kafka_buf_varint(&pool),
    ];
    let kafka = measure(
        settings,
        "Kafka-style records via bytes::Buf",
        "decode_varint / get_varint_zigzag",
        "record",
        4000,
        jobs,
    );

    println!();
    println!(
        "varint-turbo backends: single value {:?}, bulk {:?}.",
        varint_turbo::single_value_backend(),
        varint_turbo::detected_backend(),
    );
    println!(
        "Time ratio to unpatched prost 0.14.6 (< 1 is faster): median (quartiles) over {} alternating rounds; {}.",
        settings.rounds,
        clock_name(settings.clock),
    );
    println!();
    println!("| workload | operation | prost | control | vt | vt-bulk |");
    println!("|---|---|---:|---:|---:|---:|");
    for row in &rows {
        println!("{}", format_row(row));
    }
    if let Some(row) = kafka {
        println!();
        println!("| workload | operation | prost `decode_varint` | control `decode_varint` | vt `decode_varint` | varint-turbo `BufVarint` |");
        println!("|---|---|---:|---:|---:|---:|");
        println!("{}", format_row(&row));
    }
}
