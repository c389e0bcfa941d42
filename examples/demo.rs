//! A tour of varint-turbo: encodes a realistic mix of values into one buffer,
//! decodes it back, checks the round trip, shows a few encodings and measures
//! every backend this CPU supports.
//!
//! ```text
//! cargo run --release --example demo
//! ```
//!
//! Self-contained: the values come from an inline fixed-seed PRNG, so every
//! run encodes the same data. Exits with status 1 if any check fails.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[cfg(target_arch = "x86_64")]
use varint_turbo::arch::x86_64::{Bmi2, Ssse3};
use varint_turbo::arch::Scalar;
use varint_turbo::DecodeError;

/// Unsigned values in the protobuf-like mix.
const UNSIGNED_COUNT: usize = 1 << 20;
/// Signed (zigzag) values near zero.
const SIGNED_COUNT: usize = 1 << 18;
/// Timed repetitions per backend and direction; the best one is reported.
const REPS: usize = 7;
/// A varint is at most 10 bytes; 16 more bytes of slack let every encode
/// take the whole-word fast path, even at the end of the buffer.
const SLACK: usize = 16;

fn main() -> ExitCode {
    let mut failures = 0usize;

    println!("varint-turbo demo");
    println!("=================");
    println!("cpu:                   {}", cpu_model());
    println!("arch:                  {}", std::env::consts::ARCH);
    println!(
        "single-value backend:  {} (chosen at compile time)",
        varint_turbo::single_value_backend()
    );
    println!(
        "pdep_is_fast():        {}",
        if varint_turbo::pdep_is_fast() {
            "true (BMI2 PDEP/PEXT in hardware)"
        } else {
            "false (no BMI2, microcoded PDEP/PEXT, or not x86-64)"
        }
    );
    println!("backends on this cpu:  {}", available_backends().join(", "));
    if cfg!(debug_assertions) {
        println!("note: debug build; run with --release for meaningful throughput");
    }

    // ---- Example encodings -------------------------------------------------
    println!();
    println!("Example encodings");
    println!("-----------------");
    failures += show_examples();

    // ---- Round trip --------------------------------------------------------
    let mut rng = SplitMix64(0x5eed_1234_abcd_0001);
    let values = protobuf_mix(&mut rng, UNSIGNED_COUNT);
    let signed = signed_near_zero(&mut rng, SIGNED_COUNT);

    println!();
    println!("Round trip");
    println!("----------");
    let mut reference = Vec::with_capacity(values.len() * 2);
    for &v in &values {
        reference_encode(v, &mut reference);
    }
    let mut buf = vec![0u8; values.len() * 10 + SLACK];
    let bytes = Api.encode_all(&values, &mut buf);
    let encoded = &buf[..bytes];
    let mut decoded = vec![0u64; values.len()];
    let consumed = Api.decode_all(encoded, &mut decoded);
    let ok = encoded == reference.as_slice() && consumed == Ok(bytes) && decoded == values;
    failures += usize::from(!ok);
    println!("unsigned (60% < 2^7, 25% < 2^14, 10% < 2^28, 5% any u64)");
    println!("  values:              {}", values.len());
    println!(
        "  encoded bytes:       {} ({:.3} bytes/value)",
        bytes,
        bytes as f64 / values.len() as f64
    );
    println!("  lengths (bytes: n):  {}", length_histogram(&values));
    println!(
        "  same bytes as a naive LEB128 encoder: {}",
        yes_no(encoded == reference.as_slice())
    );
    println!("  all equal after decode: {}", yes_no(ok));

    let mut sbuf = vec![0u8; signed.len() * 10 + SLACK];
    let mut spos = 0;
    for &v in &signed {
        spos += varint_turbo::encode_zigzag_to_slice(v, &mut sbuf[spos..]);
    }
    let sencoded = &sbuf[..spos];
    let mut sdecoded = Vec::with_capacity(signed.len());
    let mut pos = 0;
    let mut sok = true;
    while pos < sencoded.len() {
        match varint_turbo::decode_zigzag::<i64>(&sencoded[pos..]) {
            Ok((v, len)) => {
                sdecoded.push(v);
                pos += len;
            }
            Err(e) => {
                println!("  zigzag decode error at byte {pos}: {e:?}");
                sok = false;
                break;
            }
        }
    }
    let sok = sok && sdecoded == signed;
    failures += usize::from(!sok);
    println!("signed zigzag (70% in [-64, 64), 25% in [-8192, 8192), 5% in [-2^20, 2^20))");
    println!("  values:              {}", signed.len());
    println!(
        "  encoded bytes:       {} ({:.3} bytes/value)",
        spos,
        spos as f64 / signed.len() as f64
    );
    println!("  all equal after decode: {}", yes_no(sok));

    // ---- Throughput --------------------------------------------------------
    println!();
    println!(
        "Throughput ({} values, {} bytes, best of {REPS})",
        values.len(),
        bytes
    );
    println!("----------");
    println!(
        "{:<18} {:>10} {:>8}   {:>10} {:>8}   round trip",
        "backend", "decode M/s", "GB/s", "encode M/s", "GB/s"
    );
    let api_name = format!("api ({})", varint_turbo::single_value_backend());
    failures += bench(&api_name, Api, &values, encoded);
    failures += bench(
        "scalar",
        Scalar::new().expect("the scalar backend is always available"),
        &values,
        encoded,
    );
    #[cfg(target_arch = "x86_64")]
    {
        match Ssse3::new() {
            Some(ssse3) => failures += bench("ssse3", ssse3, &values, encoded),
            None => println!("{:<18} not supported by this cpu", "ssse3"),
        }
        match Bmi2::new() {
            Some(bmi2) => {
                let name = if varint_turbo::pdep_is_fast() {
                    "bmi2"
                } else {
                    "bmi2 (slow pdep)"
                };
                failures += bench(name, bmi2, &values, encoded);
            }
            None => println!("{:<18} not supported by this cpu", "bmi2"),
        }
    }
    let mut scratch = vec![0u8; sbuf.len()];
    let zigzag = time_best(|| {
        let mut pos = 0;
        for &v in black_box(&signed) {
            pos += varint_turbo::encode_zigzag_to_slice(v, &mut scratch[pos..]);
        }
        black_box(&scratch);
    });
    let unzigzag = time_best(|| {
        let mut pos = 0;
        let mut sum = 0i64;
        let input = black_box(sencoded);
        while pos < input.len() {
            let (v, len) = varint_turbo::decode_zigzag::<i64>(&input[pos..]).unwrap();
            sum = sum.wrapping_add(v);
            pos += len;
        }
        black_box(sum);
    });
    println!(
        "{:<18} {:>10.1} {:>8.2}   {:>10.1} {:>8.2}   (signed mix)",
        "api zigzag i64",
        mvalues(signed.len(), unzigzag),
        gbytes(spos, unzigzag),
        mvalues(signed.len(), zigzag),
        gbytes(spos, zigzag),
    );

    // ---- Bulk API -------------------------------------------------------------
    println!();
    println!(
        "Bulk API (whole buffer; detected backend: {})",
        varint_turbo::detected_backend()
    );
    println!("----------");
    println!(
        "{:<18} {:>10} {:>8}   {:>10} {:>8}   round trip",
        "backend", "decode M/s", "GB/s", "encode M/s", "GB/s"
    );
    for backend in varint_turbo::Backend::ALL {
        if !backend.is_supported() {
            println!("{:<18} not supported by this cpu", backend.to_string());
            continue;
        }
        failures += bench_bulk(backend, &values, encoded);
    }

    println!();
    if failures == 0 {
        println!("all checks passed");
        ExitCode::SUCCESS
    } else {
        println!("{failures} check(s) FAILED");
        ExitCode::FAILURE
    }
}

// ---- Backends under one interface ---------------------------------------------

/// The loops the demo times, one pair per backend. Each backend's pair is
/// compiled with the backend's target feature (as `benches/single.rs` does),
/// so that its kernels inline into the loop: a call per value would time
/// the call, not the backend.
trait Backend: Copy {
    /// Decodes `out.len()` varints from `input`; returns the bytes consumed.
    fn decode_all(self, input: &[u8], out: &mut [u64]) -> Result<usize, DecodeError>;
    /// Encodes `values` back to back into `buf`; returns the number of bytes.
    fn encode_all(self, values: &[u64], buf: &mut [u8]) -> usize;
}

/// The decode loop shared by every backend.
#[inline(always)]
fn decode_loop(
    input: &[u8],
    out: &mut [u64],
    decode: impl Fn(&[u8]) -> Result<(u64, usize), DecodeError>,
) -> Result<usize, DecodeError> {
    let mut pos = 0;
    for slot in out.iter_mut() {
        let (v, len) = decode(&input[pos..])?;
        *slot = v;
        pos += len;
    }
    Ok(pos)
}

/// The encode loop shared by every backend.
#[inline(always)]
fn encode_loop(values: &[u64], buf: &mut [u8], encode: impl Fn(u64, &mut [u8]) -> usize) -> usize {
    let mut pos = 0;
    for &v in values {
        pos += encode(v, &mut buf[pos..]);
    }
    pos
}

/// The public single-value API, whose backend was chosen at compile time.
#[derive(Clone, Copy)]
struct Api;

impl Backend for Api {
    fn decode_all(self, input: &[u8], out: &mut [u64]) -> Result<usize, DecodeError> {
        decode_loop(input, out, varint_turbo::decode::<u64>)
    }
    fn encode_all(self, values: &[u64], buf: &mut [u8]) -> usize {
        encode_loop(values, buf, varint_turbo::encode_to_slice::<u64>)
    }
}

macro_rules! impl_backend {
    ($ty:ty $(, $feature:literal)?) => {
        impl Backend for $ty {
            fn decode_all(self, input: &[u8], out: &mut [u64]) -> Result<usize, DecodeError> {
                /// # Safety
                /// The CPU must have the backend's target feature.
                $(#[target_feature(enable = $feature)])?
                unsafe fn run(b: $ty, input: &[u8], out: &mut [u64]) -> Result<usize, DecodeError> {
                    decode_loop(input, out, |rest| b.decode::<u64>(rest))
                }
                // SAFETY: a backend value exists only where `new()` found its
                // target feature on this CPU.
                unsafe { run(self, input, out) }
            }
            fn encode_all(self, values: &[u64], buf: &mut [u8]) -> usize {
                /// # Safety
                /// The CPU must have the backend's target feature.
                $(#[target_feature(enable = $feature)])?
                unsafe fn run(b: $ty, values: &[u64], buf: &mut [u8]) -> usize {
                    encode_loop(values, buf, |v, rest| b.encode_to_slice::<u64>(v, rest))
                }
                // SAFETY: as in `decode_all`.
                unsafe { run(self, values, buf) }
            }
        }
    };
}
impl_backend!(Scalar);
#[cfg(target_arch = "x86_64")]
impl_backend!(Ssse3, "ssse3");
#[cfg(target_arch = "x86_64")]
impl_backend!(Bmi2, "bmi2");

fn available_backends() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut names = vec!["scalar"];
    #[cfg(target_arch = "x86_64")]
    {
        if Ssse3::new().is_some() {
            names.push("ssse3");
        }
        if Bmi2::new().is_some() {
            names.push("bmi2");
        }
    }
    names
}

/// Times decode and encode through `backend`, checks both against the
/// reference, prints one table row; returns the number of failed checks.
fn bench<B: Backend>(name: &str, backend: B, values: &[u64], encoded: &[u8]) -> usize {
    let mut decoded = vec![0u64; values.len()];
    let mut result = Ok(0);
    let decode_time = time_best(|| {
        result = backend.decode_all(black_box(encoded), &mut decoded);
        black_box(&decoded);
    });
    let decode_ok = result == Ok(encoded.len()) && decoded == values;

    let mut buf = vec![0u8; values.len() * 10 + SLACK];
    let mut bytes = 0;
    let encode_time = time_best(|| {
        bytes = backend.encode_all(black_box(values), &mut buf);
        black_box(&buf);
    });
    let encode_ok = &buf[..bytes] == encoded;

    let verdict = match (decode_ok, encode_ok) {
        (true, true) => "ok".to_string(),
        (d, e) => format!(
            "MISMATCH (decode {}, encode {})",
            if d { "ok" } else { "wrong" },
            if e { "ok" } else { "wrong" }
        ),
    };
    println!(
        "{:<18} {:>10.1} {:>8.2}   {:>10.1} {:>8.2}   {}",
        name,
        mvalues(values.len(), decode_time),
        gbytes(encoded.len(), decode_time),
        mvalues(values.len(), encode_time),
        gbytes(encoded.len(), encode_time),
        verdict
    );
    usize::from(!decode_ok) + usize::from(!encode_ok)
}

/// Times `Backend::decode_slice` and `Backend::encode_slice_into` over the
/// whole buffer and checks both against the values and the encoding.
fn bench_bulk(backend: varint_turbo::Backend, values: &[u64], encoded: &[u8]) -> usize {
    let mut decoded = vec![0u64; values.len()];
    let mut result = Ok((0, 0));
    let decode_time = time_best(|| {
        result = backend.decode_slice(black_box(encoded), &mut decoded);
        black_box(&decoded);
    });
    let decode_ok = result == Ok((values.len(), encoded.len())) && decoded == values;
    let mut buf = vec![0u8; encoded.len()];
    let mut written = (0, 0);
    let encode_time = time_best(|| {
        written = backend.encode_slice_into(black_box(values), &mut buf);
        black_box(&buf);
    });
    let encode_ok = written == (values.len(), encoded.len()) && buf == encoded;
    println!(
        "{:<18} {:>10.1} {:>8.2}   {:>10.1} {:>8.2}   {}",
        backend.to_string(),
        mvalues(values.len(), decode_time),
        gbytes(encoded.len(), decode_time),
        mvalues(values.len(), encode_time),
        gbytes(encoded.len(), encode_time),
        yes_no(decode_ok && encode_ok)
    );
    usize::from(!decode_ok) + usize::from(!encode_ok)
}

fn time_best(mut f: impl FnMut()) -> Duration {
    f(); // warm up caches and the branch predictor
    (0..REPS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn mvalues(count: usize, time: Duration) -> f64 {
    count as f64 / time.as_secs_f64().max(1e-9) / 1e6
}

fn gbytes(bytes: usize, time: Duration) -> f64 {
    bytes as f64 / time.as_secs_f64().max(1e-9) / 1e9
}

// ---- Data -----------------------------------------------------------------------

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, good enough for test data.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift, bias negligible here).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// Field values as protobuf messages tend to hold them: mostly small (tags,
/// enums, lengths, counters), some medium, a few hashes/ids of any size.
fn protobuf_mix(rng: &mut SplitMix64, n: usize) -> Vec<u64> {
    (0..n)
        .map(|_| {
            let bits = match rng.below(100) {
                0..60 => 7,
                60..85 => 14,
                85..95 => 28,
                _ => 64,
            };
            rng.next_u64() >> (64 - bits)
        })
        .collect()
}

/// Signed deltas, temperatures, offsets: clustered around zero.
fn signed_near_zero(rng: &mut SplitMix64, n: usize) -> Vec<i64> {
    (0..n)
        .map(|_| {
            let half_span: i64 = match rng.below(100) {
                0..70 => 64,
                70..95 => 8192,
                _ => 1 << 20,
            };
            rng.below(2 * half_span as u64) as i64 - half_span
        })
        .collect()
}

/// Byte-at-a-time LEB128, the textbook definition, to check the fast code.
fn reference_encode(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn length_histogram(values: &[u64]) -> String {
    let mut counts = [0usize; 11];
    for &v in values {
        counts[varint_turbo::encoded_len(v)] += 1;
    }
    counts
        .iter()
        .enumerate()
        .filter(|&(_, &n)| n > 0)
        .map(|(len, n)| format!("{len}: {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

// ---- Examples -------------------------------------------------------------------

/// Prints well-known encodings and checks them; returns the failures.
fn show_examples() -> usize {
    let mut failures = 0;
    let examples = [
        ("0u64", varint_turbo::encode(0u64), "00"),
        ("1u64", varint_turbo::encode(1u64), "01"),
        ("127u64", varint_turbo::encode(127u64), "7f"),
        ("128u64", varint_turbo::encode(128u64), "80 01"),
        ("150u64", varint_turbo::encode(150u64), "96 01"),
        ("300u32", varint_turbo::encode(300u32), "ac 02"),
        (
            "u64::MAX",
            varint_turbo::encode(u64::MAX),
            "ff ff ff ff ff ff ff ff ff 01",
        ),
        ("zigzag 0i32", varint_turbo::encode_zigzag(0i32), "00"),
        ("zigzag -1i32", varint_turbo::encode_zigzag(-1i32), "01"),
        ("zigzag 1i32", varint_turbo::encode_zigzag(1i32), "02"),
        ("zigzag -2i64", varint_turbo::encode_zigzag(-2i64), "03"),
        ("zigzag -64i64", varint_turbo::encode_zigzag(-64i64), "7f"),
        ("zigzag 64i64", varint_turbo::encode_zigzag(64i64), "80 01"),
        (
            "zigzag i64::MIN",
            varint_turbo::encode_zigzag(i64::MIN),
            "ff ff ff ff ff ff ff ff ff 01",
        ),
    ];
    for (label, (bytes, len), expected) in examples {
        let got = hex(&bytes[..usize::from(len)]);
        let ok = got == expected;
        failures += usize::from(!ok);
        let verdict = if ok {
            String::new()
        } else {
            format!("   MISMATCH, expected {expected}")
        };
        println!("{label:<28} -> {got}{verdict}");
    }

    // And back: decoding stops at the end of the varint.
    let input = [0xac, 0x02, 0xff];
    let decoded = varint_turbo::decode::<u32>(&input);
    let ok = decoded == Ok((300, 2));
    failures += usize::from(!ok);
    println!(
        "{:<28} -> {:?}{}",
        format!("decode::<u32>({})", hex(&input)),
        decoded,
        if ok { "" } else { "   MISMATCH" }
    );
    let truncated = varint_turbo::decode::<u64>(&[0x96]);
    let ok = truncated == Err(DecodeError::Truncated);
    failures += usize::from(!ok);
    println!(
        "{:<28} -> {:?}{}",
        "decode::<u64>(96)",
        truncated,
        if ok { "" } else { "   MISMATCH" }
    );
    failures
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn yes_no(ok: bool) -> &'static str {
    if ok {
        "yes"
    } else {
        "NO"
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split_once(':'))
                .map(|(_, model)| model.trim().to_string())
        })
        .unwrap_or_else(|| "unknown (no /proc/cpuinfo model name)".to_string())
}
