//! The timings: every workload and operation on the four apache-avro
//! copies, in alternating rounds in this one process; ns per unit and the
//! time ratio to unpatched apache-avro (median and quartiles over the
//! rounds). See README.md.
//!
//! Usage: avro-harness [--quick] [--rounds N] [--sample-ms MS] [--filter TEXT] [--wall-clock]
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

use avro_harness::data::{self, Rng, Telemetry};
use serde::{de::DeserializeOwned, Serialize};

/// One pass of a variant over its pool; returns a checksum.
type Job = Box<dyn FnMut() -> u64>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    ReadValueSlice,
    ReadValueCursor,
    ReadDeser,
    Container,
    ContainerDeser,
    WriteValue,
    WriteSer,
    ContainerWrite,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::ReadValueSlice => "read_value &[u8]",
            Op::ReadValueCursor => "read_value io::Cursor",
            Op::ReadDeser => "read_deser &[u8] (serde)",
            Op::Container => "container Reader",
            Op::ContainerDeser => "container Reader into_deser_iter (serde)",
            Op::WriteValue => "write_value_ref into Vec",
            Op::WriteSer => "write_ser into Vec (serde)",
            Op::ContainerWrite => "container Writer append_value_ref",
        }
    }
}

/// A workload: a schema, its values (serde) and their encodings.
struct Workload<T> {
    schema: &'static str,
    values: Vec<T>,
    /// The values as datums, one after the other.
    datums: Vec<u8>,
    /// The values as an object container file.
    container: Vec<u8>,
}

/// The jobs of one avro copy.
macro_rules! variant_jobs {
    ($module:ident, $krate:ident) => {
        mod $module {
            use super::*;
            use std::io::Cursor;
            use $krate::{
                reader::datum::GenericDatumReader, types::Value, writer::datum::GenericDatumWriter,
                Reader, Schema, Writer,
            };

            pub fn job<T: DeserializeOwned + Serialize + Clone + 'static>(
                workload: &Workload<T>,
                op: Op,
            ) -> Job {
                let schema: &'static Schema = Box::leak(Box::new(
                    Schema::parse_str(workload.schema).expect("schema"),
                ));
                let count = workload.values.len();
                let datums = workload.datums.clone();
                let container = workload.container.clone();
                let reader = GenericDatumReader::builder(schema).build().expect("reader");
                match op {
                    Op::ReadValueSlice => Box::new(move || {
                        let mut input = &datums[..];
                        for _ in 0..count {
                            black_box(reader.read_value(black_box(&mut input)).expect("valid"));
                        }
                        count as u64
                    }),
                    Op::ReadValueCursor => Box::new(move || {
                        let mut input = Cursor::new(&datums[..]);
                        for _ in 0..count {
                            black_box(reader.read_value(black_box(&mut input)).expect("valid"));
                        }
                        count as u64
                    }),
                    Op::ReadDeser => Box::new(move || {
                        let mut input = &datums[..];
                        for _ in 0..count {
                            black_box(
                                reader
                                    .read_deser::<T>(black_box(&mut input))
                                    .expect("valid"),
                            );
                        }
                        count as u64
                    }),
                    Op::Container => Box::new(move || {
                        let mut n = 0;
                        for value in Reader::new(black_box(&container[..])).expect("header") {
                            black_box(value.expect("valid"));
                            n += 1;
                        }
                        n
                    }),
                    Op::ContainerDeser => Box::new(move || {
                        let mut n = 0;
                        let reader = Reader::new(black_box(&container[..])).expect("header");
                        for value in reader.into_deser_iter::<T>() {
                            black_box(value.expect("valid"));
                            n += 1;
                        }
                        n
                    }),
                    Op::WriteValue | Op::WriteSer | Op::ContainerWrite => {
                        let mut input = &datums[..];
                        let values: Vec<Value> = (0..count)
                            .map(|_| reader.read_value(&mut input).expect("valid"))
                            .collect();
                        let serde_values = workload.values.clone();
                        // Without validation: the encoding alone (the
                        // container writer validates, as by default).
                        let writer = GenericDatumWriter::builder(schema)
                            .validate(false)
                            .build()
                            .expect("writer");
                        let mut out = Vec::new();
                        Box::new(move || match op {
                            Op::WriteValue => {
                                out.clear();
                                for value in &values {
                                    writer
                                        .write_value_ref(&mut out, black_box(value))
                                        .expect("written");
                                }
                                black_box(&out).len() as u64
                            }
                            Op::WriteSer => {
                                out.clear();
                                for value in &serde_values {
                                    writer
                                        .write_ser(&mut out, black_box(value))
                                        .expect("written");
                                }
                                black_box(&out).len() as u64
                            }
                            _ => {
                                out.clear();
                                let mut file =
                                    Writer::new(schema, std::mem::take(&mut out)).expect("writer");
                                for value in &values {
                                    file.append_value_ref(black_box(value)).expect("written");
                                }
                                out = file.into_inner().expect("flushed");
                                black_box(&out).len() as u64
                            }
                        })
                    }
                }
            }
        }
    };
}

variant_jobs!(upstream_jobs, apache_avro_upstream);
variant_jobs!(control_jobs, apache_avro_control);
variant_jobs!(vt_jobs, apache_avro_vt);
variant_jobs!(vt_bulk_jobs, apache_avro_vt_bulk);

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
    /// Median ns per unit of the first job (unpatched apache-avro).
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

/// The rows of `ops` on one workload.
fn workload_rows<T: DeserializeOwned + Serialize + Clone + 'static>(
    rows: &mut Vec<Row>,
    settings: &Settings,
    name: &str,
    unit: &'static str,
    units: usize,
    workload: &Workload<T>,
    ops: &[Op],
) {
    for &op in ops {
        let jobs = vec![
            upstream_jobs::job(workload, op),
            control_jobs::job(workload, op),
            vt_jobs::job(workload, op),
            vt_bulk_jobs::job(workload, op),
        ];
        rows.extend(measure(settings, name, op.name(), unit, units, jobs));
    }
}

fn workload<T: Serialize>(schema: &'static str, values: Vec<T>) -> Workload<T> {
    Workload {
        schema,
        datums: data::datums(schema, &values),
        container: data::container(schema, &values),
        values,
    }
}

fn main() {
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
                    "usage: avro-harness [--quick] [--rounds N] [--sample-ms MS] [--filter TEXT] [--wall-clock]"
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

    // 10,000 telemetry records.
    let records: Workload<Telemetry> = workload(
        data::TELEMETRY_SCHEMA,
        data::telemetry_records(&mut rng, 10_000),
    );
    let mean = records.datums.len() as f64 / records.values.len() as f64;
    workload_rows(
        &mut rows,
        settings,
        &format!("10k telemetry records ({mean:.0} bytes)"),
        "record",
        records.values.len(),
        &records,
        &[
            Op::ReadValueSlice,
            Op::ReadValueCursor,
            Op::ReadDeser,
            Op::Container,
            Op::ContainerDeser,
            Op::WriteValue,
            Op::WriteSer,
            Op::ContainerWrite,
        ],
    );

    // array<long> / array<int> of 100,000 small values, one datum.
    let array_ops = [
        Op::ReadValueSlice,
        Op::ReadValueCursor,
        Op::ReadDeser,
        Op::WriteValue,
        Op::WriteSer,
    ];
    let longs = workload(
        data::LONG_ARRAY_SCHEMA,
        vec![data::small_longs(&mut rng, 100_000)],
    );
    workload_rows(
        &mut rows,
        settings,
        "array<long> ×100k small",
        "elem",
        100_000,
        &longs,
        &array_ops,
    );
    let ints = workload(
        data::INT_ARRAY_SCHEMA,
        vec![data::small_ints(&mut rng, 100_000)],
    );
    workload_rows(
        &mut rows,
        settings,
        "array<int> ×100k small",
        "elem",
        100_000,
        &ints,
        &array_ops,
    );

    println!();
    println!(
        "varint-turbo backends: single value {:?}, bulk {:?}.",
        varint_turbo::single_value_backend(),
        varint_turbo::detected_backend(),
    );
    println!(
        "Time ratio to unpatched apache-avro 0.22.0 (< 1 is faster): median (quartiles) over {} alternating rounds; {}.",
        settings.rounds,
        clock_name(settings.clock),
    );
    println!();
    println!("| workload | operation | avro | control | vt | vt-bulk |");
    println!("|---|---|---:|---:|---:|---:|");
    for row in &rows {
        println!("{}", format_row(row));
    }
}
