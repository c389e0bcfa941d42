//! Shared test support: the differential oracle every integration test (and
//! later fuzzer) compares the crate against.
//!
//! * [`reference_decode`], [`reference_encode`], [`reference_zigzag_encode`]
//!   and [`reference_zigzag_decode`] are written from the specification as
//!   plain byte loops and `i128` arithmetic. They use nothing from the crate
//!   but the [`DecodeError`] enum (to name the two error kinds), so a bug
//!   shared by every backend still shows up.
//! * [`backends`] lists every backend this CPU can run (the top-level API,
//!   scalar, on x86-64 SSSE3 and BMI2, on aarch64 NEON) and fails loudly if one that the
//!   CPU supports is missing (see [`expected_backends`]).
//! * `check_*` compare every backend with the reference on one input.
//!
//! Each test binary uses a different subset of this module.
#![allow(dead_code, unused_macros)]

use std::fmt::Debug;

pub mod cpuid;
#[cfg(unix)]
pub mod guarded_page;

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
use varint_turbo::arch::aarch64::Neon;
#[cfg(target_arch = "x86_64")]
use varint_turbo::arch::x86_64::{Bmi2, Ssse3};
use varint_turbo::arch::Scalar;
use varint_turbo::{DecodeError, VarInt, ZigZag};

// ---------------------------------------------------------------------------
// Test-side view of the integer types
// ---------------------------------------------------------------------------

/// An unsigned type the crate decodes into, with conversions the sealed
/// `VarInt` trait does not expose. Everything here is derived from the
/// primitive type, not from the crate.
pub trait TestInt: VarInt + Copy + Debug + Eq + Send + Sync + 'static {
    /// The type's name, for messages.
    const NAME: &'static str;
    /// Width in bits.
    const BITS: u32;
    /// `ceil(BITS / 7)`, computed here independently of `VarInt::MAX_LEN`.
    const REF_MAX_LEN: usize = (Self::BITS as usize).div_ceil(7);
    /// The type's maximum, widened.
    const MAX_WIDE: u64;
    /// Widens.
    fn as_u64(self) -> u64;
    /// Narrows if the value fits.
    fn from_u64(value: u64) -> Option<Self>;
    /// Narrows, truncating (for "as"-style conversions in tests).
    fn from_u64_wrapping(value: u64) -> Self;
}

macro_rules! impl_test_int {
    ($($ty:ty),*) => {$(
        impl TestInt for $ty {
            const NAME: &'static str = stringify!($ty);
            const BITS: u32 = <$ty>::BITS;
            const MAX_WIDE: u64 = <$ty>::MAX as u64;
            fn as_u64(self) -> u64 {
                self as u64
            }
            fn from_u64(value: u64) -> Option<Self> {
                <$ty>::try_from(value).ok()
            }
            fn from_u64_wrapping(value: u64) -> Self {
                value as $ty
            }
        }
    )*};
}
impl_test_int!(u8, u16, u32, u64, usize);

/// A signed type with a zigzag encoding, with test-side conversions.
pub trait TestSigned:
    ZigZag<Unsigned: TestInt> + Copy + Debug + Eq + Send + Sync + 'static
{
    /// The type's name, for messages.
    const NAME: &'static str;
    /// Widens.
    fn as_i64(self) -> i64;
    /// Narrows if the value fits.
    fn from_i64(value: i64) -> Option<Self>;
    /// Narrows, truncating (for "as"-style conversions in tests).
    fn from_i64_wrapping(value: i64) -> Self;
}

macro_rules! impl_test_signed {
    ($($ty:ty),*) => {$(
        impl TestSigned for $ty {
            const NAME: &'static str = stringify!($ty);
            fn as_i64(self) -> i64 {
                self as i64
            }
            fn from_i64(value: i64) -> Option<Self> {
                <$ty>::try_from(value).ok()
            }
            fn from_i64_wrapping(value: i64) -> Self {
                value as $ty
            }
        }
    )*};
}
impl_test_signed!(i8, i16, i32, i64, isize);

/// Calls `$f::<T>(args...)` for every unsigned type the crate supports.
macro_rules! for_each_unsigned {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        $f::<u8>($($arg),*);
        $f::<u16>($($arg),*);
        $f::<u32>($($arg),*);
        $f::<u64>($($arg),*);
        $f::<usize>($($arg),*);
    }};
}

/// Calls `$f::<S>(args...)` for every signed (zigzag) type the crate supports.
macro_rules! for_each_signed {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        $f::<i8>($($arg),*);
        $f::<i16>($($arg),*);
        $f::<i32>($($arg),*);
        $f::<i64>($($arg),*);
        $f::<isize>($($arg),*);
    }};
}

// ---------------------------------------------------------------------------
// The reference implementation
// ---------------------------------------------------------------------------

/// Decodes one varint from the start of `input` into `T`, one byte at a time,
/// straight from the specification:
///
/// * bytes `0..T::REF_MAX_LEN` are read in order; running out of input before
///   a byte without the continuation bit is `Truncated` (also for the empty
///   input);
/// * a byte without the continuation bit ends the varint: its value (kept in
///   a `u128`, so nothing is lost) must fit `T`, else `Overflow`;
/// * if all of the first `REF_MAX_LEN` bytes continue, `Overflow`, whether or
///   not more input follows.
///
/// For `u64` this is Go protowire `ConsumeVarint`: a 10th byte of 0x00/0x01
/// fits, 0x02..=0x7f does not fit 64 bits, 0x80..=0xff continues past
/// `REF_MAX_LEN`.
pub fn reference_decode<T: TestInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    let mut value: u128 = 0;
    for i in 0..T::REF_MAX_LEN {
        let Some(&byte) = input.get(i) else {
            return Err(DecodeError::Truncated);
        };
        value |= u128::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return match u64::try_from(value).ok().and_then(T::from_u64) {
                Some(v) => Ok((v, i + 1)),
                None => Err(DecodeError::Overflow),
            };
        }
    }
    Err(DecodeError::Overflow)
}

/// The wrapping rule of protobuf C++, Java Avro, apache-avro and
/// quick-protobuf, one byte at a time: bytes `0..10` are read in order
/// (running out of input first is `Truncated`); the first byte without the
/// continuation bit ends the varint, whose value (kept in a `u128`) is cut
/// to its low `T::BITS` bits; if all 10 bytes continue, `Overflow`.
pub fn reference_decode_wrapping<T: TestInt>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    let mut value: u128 = 0;
    for i in 0..10 {
        let Some(&byte) = input.get(i) else {
            return Err(DecodeError::Truncated);
        };
        value |= u128::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((T::from_u64_wrapping(value as u64), i + 1));
        }
    }
    Err(DecodeError::Overflow)
}

/// [`reference_decode_wrapping`] followed by [`reference_zigzag_decode`].
pub fn reference_decode_zigzag_wrapping<S: TestSigned>(
    input: &[u8],
) -> Result<(S, usize), DecodeError> {
    reference_decode_wrapping::<S::Unsigned>(input)
        .map(|(u, len)| (reference_zigzag_decode::<S>(u), len))
}

/// The canonical (shortest) varint of `value`, one byte at a time.
pub fn reference_encode(value: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(10);
    reference_encode_append(value, &mut out);
    out
}

/// [`reference_encode`] appended to `out`; returns its length.
pub fn reference_encode_append(mut value: u64, out: &mut Vec<u8>) -> usize {
    let start = out.len();
    loop {
        let low = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(low);
            return out.len() - start;
        }
        out.push(low | 0x80);
    }
}

/// Zigzag by definition: 0, -1, 1, -2, 2, ... map to 0, 1, 2, 3, 4, ...
pub fn reference_zigzag_encode<S: TestSigned>(value: S) -> S::Unsigned {
    let v = i128::from(value.as_i64());
    let z = if v >= 0 { 2 * v } else { -2 * v - 1 };
    u64::try_from(z)
        .ok()
        .and_then(<S::Unsigned as TestInt>::from_u64)
        .expect("a zigzag value fits the unsigned type of the same width")
}

/// Inverse of [`reference_zigzag_encode`].
pub fn reference_zigzag_decode<S: TestSigned>(value: S::Unsigned) -> S {
    let u = i128::from(value.as_u64());
    let v = if u % 2 == 0 { u / 2 } else { -(u + 1) / 2 };
    i64::try_from(v)
        .ok()
        .and_then(S::from_i64)
        .expect("a zigzag-decoded value fits the signed type of the same width")
}

/// [`reference_decode`] followed by [`reference_zigzag_decode`].
pub fn reference_decode_zigzag<S: TestSigned>(input: &[u8]) -> Result<(S, usize), DecodeError> {
    reference_decode::<S::Unsigned>(input).map(|(u, len)| (reference_zigzag_decode::<S>(u), len))
}

// ---------------------------------------------------------------------------
// Backends
// ---------------------------------------------------------------------------

/// Every way to run the single-value code: the top-level functions (which use
/// the compile-time selected backend) and each per-backend type.
#[derive(Debug, Clone, Copy)]
pub enum Backend {
    /// `varint_turbo::decode` and friends.
    Api,
    /// `varint_turbo::arch::Scalar`.
    Scalar(Scalar),
    /// `varint_turbo::arch::x86_64::Ssse3`.
    #[cfg(target_arch = "x86_64")]
    Ssse3(Ssse3),
    /// `varint_turbo::arch::x86_64::Bmi2`.
    #[cfg(target_arch = "x86_64")]
    Bmi2(Bmi2),
    /// `varint_turbo::arch::aarch64::Neon`.
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    Neon(Neon),
}

/// Every backend name this test suite knows, available or not.
pub const ALL_BACKEND_NAMES: &[&str] = &["api", "scalar", "ssse3", "bmi2", "neon"];

impl Backend {
    /// "api", "scalar", "ssse3", "bmi2" or "neon".
    pub fn name(self) -> &'static str {
        match self {
            Backend::Api => "api",
            Backend::Scalar(_) => "scalar",
            #[cfg(target_arch = "x86_64")]
            Backend::Ssse3(_) => "ssse3",
            #[cfg(target_arch = "x86_64")]
            Backend::Bmi2(_) => "bmi2",
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon(_) => "neon",
        }
    }

    /// `decode` through this backend.
    pub fn decode<T: VarInt>(self, input: &[u8]) -> Result<(T, usize), DecodeError> {
        match self {
            Backend::Api => varint_turbo::decode(input),
            Backend::Scalar(b) => b.decode(input),
            #[cfg(target_arch = "x86_64")]
            Backend::Ssse3(b) => b.decode(input),
            #[cfg(target_arch = "x86_64")]
            Backend::Bmi2(b) => b.decode(input),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon(b) => b.decode(input),
        }
    }

    /// `decode_len` through this backend (only the API has its own function;
    /// for the per-backend types it is `decode` without the value).
    pub fn decode_len<T: VarInt>(self, input: &[u8]) -> Result<usize, DecodeError> {
        match self {
            Backend::Api => varint_turbo::decode_len::<T>(input),
            other => other.decode::<T>(input).map(|(_, len)| len),
        }
    }

    /// `decode_zigzag` through this backend.
    pub fn decode_zigzag<S: ZigZag>(self, input: &[u8]) -> Result<(S, usize), DecodeError> {
        match self {
            Backend::Api => varint_turbo::decode_zigzag(input),
            other => other
                .decode::<S::Unsigned>(input)
                .map(|(u, len)| (varint_turbo::zigzag_decode::<S>(u), len)),
        }
    }

    /// `decode_unchecked` through this backend.
    ///
    /// # Safety
    /// `ptr` must be valid for reads of 16 initialized bytes.
    pub unsafe fn decode_unchecked<T: VarInt>(self, ptr: *const u8) -> (T, usize) {
        // SAFETY: forwarded from the caller.
        unsafe {
            match self {
                Backend::Api => varint_turbo::decode_unchecked(ptr),
                Backend::Scalar(b) => b.decode_unchecked(ptr),
                #[cfg(target_arch = "x86_64")]
                Backend::Ssse3(b) => b.decode_unchecked(ptr),
                #[cfg(target_arch = "x86_64")]
                Backend::Bmi2(b) => b.decode_unchecked(ptr),
                #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
                Backend::Neon(b) => b.decode_unchecked(ptr),
            }
        }
    }

    /// Safe `decode_unchecked` on a 16-byte buffer.
    pub fn decode_unchecked_buf<T: VarInt>(self, buf: &[u8; 16]) -> (T, usize) {
        // SAFETY: `buf` is 16 initialized bytes.
        unsafe { self.decode_unchecked(buf.as_ptr()) }
    }

    /// `encode` through this backend.
    pub fn encode<T: VarInt>(self, value: T) -> ([u8; 16], u8) {
        match self {
            Backend::Api => varint_turbo::encode(value),
            Backend::Scalar(b) => b.encode(value),
            #[cfg(target_arch = "x86_64")]
            Backend::Ssse3(b) => b.encode(value),
            #[cfg(target_arch = "x86_64")]
            Backend::Bmi2(b) => b.encode(value),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon(b) => b.encode(value),
        }
    }

    /// `encode_to_slice` through this backend.
    pub fn encode_to_slice<T: VarInt>(self, value: T, out: &mut [u8]) -> usize {
        match self {
            Backend::Api => varint_turbo::encode_to_slice(value, out),
            Backend::Scalar(b) => b.encode_to_slice(value, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Ssse3(b) => b.encode_to_slice(value, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Bmi2(b) => b.encode_to_slice(value, out),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon(b) => b.encode_to_slice(value, out),
        }
    }

    /// `encode_zigzag` through this backend.
    pub fn encode_zigzag<S: ZigZag>(self, value: S) -> ([u8; 16], u8) {
        match self {
            Backend::Api => varint_turbo::encode_zigzag(value),
            other => other.encode(varint_turbo::zigzag_encode(value)),
        }
    }

    /// `encode_zigzag_to_slice` through this backend.
    pub fn encode_zigzag_to_slice<S: ZigZag>(self, value: S, out: &mut [u8]) -> usize {
        match self {
            Backend::Api => varint_turbo::encode_zigzag_to_slice(value, out),
            other => other.encode_to_slice(varint_turbo::zigzag_encode(value), out),
        }
    }
}

/// The backends that MUST be available here: "api" always, then the
/// single-value backend types the CPU supports by its raw CPUID (see
/// [`cpuid::required_single`]: "scalar" always; on x86-64 "ssse3" and
/// "bmi2" whenever the CPU has the feature, on little-endian aarch64
/// "neon"; none of them with `--cfg varint_turbo_force_scalar`, which the
/// build script's cfgs make visible to the tests too).
pub fn expected_backends() -> Vec<&'static str> {
    let mut names = vec!["api"];
    names.extend(cpuid::required_single());
    names
}

/// The backends whose `new()` returned `Some`, without any check.
pub fn available_backends() -> Vec<Backend> {
    let mut list = vec![Backend::Api];
    list.extend(Scalar::new().map(Backend::Scalar));
    #[cfg(target_arch = "x86_64")]
    {
        list.extend(Ssse3::new().map(Backend::Ssse3));
        list.extend(Bmi2::new().map(Backend::Bmi2));
    }
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    list.extend(Neon::new().map(Backend::Neon));
    list
}

/// Every backend available on this CPU. Panics if the set differs from
/// [`expected_backends`]: a backend the CPU supports must never be skipped
/// silently (and one it does not support must never be offered).
pub fn backends() -> Vec<Backend> {
    let list = available_backends();
    let names: Vec<&str> = list.iter().map(|b| b.name()).collect();
    assert_eq!(
        names,
        expected_backends(),
        "available backends differ from what the CPU supports (expected_backends())"
    );
    list
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Lowercase hex, no separators.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Parses lowercase or uppercase hex without separators; panics on anything else.
pub fn unhex(text: &str) -> Vec<u8> {
    assert_eq!(text.len() % 2, 0, "odd-length hex {text:?}");
    (0..text.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&text[i..i + 2], 16)
                .unwrap_or_else(|e| panic!("bad hex {text:?}: {e}"))
        })
        .collect()
}

/// The data lines of a TSV file (comments and blank lines skipped), split on
/// tabs only, each with its 1-based line number. Panics on a line with the
/// wrong number of columns.
pub fn tsv_rows(text: &'static str, columns: usize) -> Vec<(usize, Vec<&'static str>)> {
    let rows: Vec<_> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.starts_with('#') && !line.is_empty())
        .map(|(i, line)| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), columns, "line {}: {line:?}", i + 1);
            (i + 1, fields)
        })
        .collect();
    // Every non-comment line became a row: nothing was skipped silently.
    let data_lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .count();
    assert_eq!(rows.len(), data_lines);
    assert!(!rows.is_empty());
    rows
}

/// A row of `tests/data/packed.tsv`: a protobuf packed field payload (tag
/// and length stripped) and its elements as the file lists them.
pub struct PackedRow {
    pub line: usize,
    /// `uint64`, `uint32`, `int64`, `int32`, `sint32` or `sint64`.
    pub field: &'static str,
    pub payload: Vec<u8>,
    /// The elements in decimal.
    pub values: Vec<&'static str>,
}

/// Every row of `tests/data/packed.tsv`.
pub fn packed_rows() -> Vec<PackedRow> {
    tsv_rows(include_str!("../data/packed.tsv"), 3)
        .into_iter()
        .map(|(line, f)| PackedRow {
            line,
            field: f[0],
            payload: unhex(f[1]),
            values: if f[2].is_empty() {
                vec![]
            } else {
                f[2].split(',').collect()
            },
        })
        .collect()
}

/// Every row of `tests/data/encode.tsv`: line, type, decimal value, bytes.
pub fn encode_rows() -> Vec<(usize, &'static str, &'static str, Vec<u8>)> {
    tsv_rows(include_str!("../data/encode.tsv"), 3)
        .into_iter()
        .map(|(line, f)| (line, f[0], f[1], unhex(f[2])))
        .collect()
}

/// How many bytes a read of one varint into a type of `max_len` bytes
/// looks at: through its last byte, or `max_len` bytes, or to the end.
pub fn examined(input: &[u8], max_len: usize) -> usize {
    let through_last = input
        .iter()
        .position(|&byte| byte < 0x80)
        .map_or(input.len(), |end| end + 1);
    through_last.min(max_len)
}

/// `input` copied into a 16-byte buffer filled with `fill` (as
/// `decode_unchecked` needs); inputs longer than 16 bytes are cut.
pub fn padded(input: &[u8], fill: u8) -> [u8; 16] {
    let mut buf = [fill; 16];
    let n = input.len().min(16);
    buf[..n].copy_from_slice(&input[..n]);
    buf
}

// ---------------------------------------------------------------------------
// Checks against the reference (panic with the input on the first mismatch)
// ---------------------------------------------------------------------------

/// `decode::<T>` and `decode_len::<T>` of every backend equal the reference.
pub fn check_decode<T: TestInt>(backends: &[Backend], input: &[u8]) {
    let expected = reference_decode::<T>(input);
    check_decode_expecting::<T>(backends, input, expected);
    check_decode_wrapping::<T>(input);
}

/// The API's `decode_wrapping::<T>` equals [`reference_decode_wrapping`]
/// (it exists only in the top-level API, on the compile-time backend).
pub fn check_decode_wrapping<T: TestInt>(input: &[u8]) {
    let expected = reference_decode_wrapping::<T>(input);
    let got = varint_turbo::decode_wrapping::<T>(input);
    if got != expected {
        panic!(
            "api: decode_wrapping::<{}>({}) = {got:?}, expected {expected:?}",
            T::NAME,
            hex(input)
        );
    }
}

/// `decode::<T>` of every backend, and the API's `decode_len::<T>`, equal
/// `expected`. (`decode_len` exists only in the top-level API; for the
/// per-backend types [`Backend::decode_len`] is the test's own wrapper
/// around `decode`, so calling it would test nothing.)
pub fn check_decode_expecting<T: TestInt>(
    backends: &[Backend],
    input: &[u8],
    expected: Result<(T, usize), DecodeError>,
) {
    for &backend in backends {
        let got = backend.decode::<T>(input);
        if got != expected {
            panic!(
                "{}: decode::<{}>({}) = {got:?}, expected {expected:?}",
                backend.name(),
                T::NAME,
                hex(input)
            );
        }
        if !matches!(backend, Backend::Api) {
            continue;
        }
        let got_len = backend.decode_len::<T>(input);
        if got_len != expected.map(|(_, len)| len) {
            panic!(
                "{}: decode_len::<{}>({}) = {got_len:?}, expected {:?}",
                backend.name(),
                T::NAME,
                hex(input),
                expected.map(|(_, len)| len)
            );
        }
    }
}

/// `decode_zigzag::<S>` of every backend equals the reference.
pub fn check_decode_zigzag<S: TestSigned>(backends: &[Backend], input: &[u8]) {
    let expected_wrapping = reference_decode_zigzag_wrapping::<S>(input);
    let got = varint_turbo::decode_zigzag_wrapping::<S>(input);
    if got != expected_wrapping {
        panic!(
            "api: decode_zigzag_wrapping::<{}>({}) = {got:?}, expected {expected_wrapping:?}",
            S::NAME,
            hex(input)
        );
    }
    let expected = reference_decode_zigzag::<S>(input);
    for &backend in backends {
        let got = backend.decode_zigzag::<S>(input);
        if got != expected {
            panic!(
                "{}: decode_zigzag::<{}>({}) = {got:?}, expected {expected:?}",
                backend.name(),
                S::NAME,
                hex(input)
            );
        }
    }
}

/// `decode_unchecked::<T>` on the 16 bytes of `buf`: equal to `decode` if
/// the buffer holds a valid varint for `T`, else a length in `1..=MAX_LEN`.
pub fn check_decode_unchecked<T: TestInt>(backends: &[Backend], buf: &[u8; 16]) {
    let expected = reference_decode::<T>(buf);
    for &backend in backends {
        let got = backend.decode_unchecked_buf::<T>(buf);
        match expected {
            Ok(exp) => {
                if got != exp {
                    panic!(
                        "{}: decode_unchecked::<{}>({}) = {got:?}, expected {exp:?} (valid input)",
                        backend.name(),
                        T::NAME,
                        hex(buf)
                    );
                }
            }
            Err(err) => {
                if !(1..=T::REF_MAX_LEN).contains(&got.1) {
                    panic!(
                        "{}: decode_unchecked::<{}>({}) = {got:?}: length outside 1..={} \
                         for a malformed input ({err:?})",
                        backend.name(),
                        T::NAME,
                        hex(buf),
                        T::REF_MAX_LEN
                    );
                }
            }
        }
    }
}

/// Every decoding check for `T` on `input`: decode, decode_len, and
/// decode_unchecked on the input padded with zeros and with 0xff.
pub fn check_all_decodes<T: TestInt>(backends: &[Backend], input: &[u8]) {
    check_decode::<T>(backends, input);
    check_decode_unchecked::<T>(backends, &padded(input, 0x00));
    check_decode_unchecked::<T>(backends, &padded(input, 0xff));
}

/// `encode`, `encode_to_slice` (into a 16-byte buffer, an exact-size buffer
/// and a 10-byte buffer) and `encoded_len` of `value` on every backend, and
/// `encode_to_vec`, `encode_unchecked` and `encode_to_uninit`, equal the
/// reference encoding, and the encoding decodes back to `value`.
pub fn check_encode<T: TestInt>(backends: &[Backend], value: T) {
    let expected = reference_encode(value.as_u64());
    let n = expected.len();
    assert_eq!(
        varint_turbo::encoded_len(value),
        n,
        "encoded_len::<{}>({value:?})",
        T::NAME
    );
    assert_eq!(varint_turbo::encoded_len_u64(value.as_u64()), n);
    if let Ok(narrow) = u32::try_from(value.as_u64()) {
        assert_eq!(varint_turbo::encoded_len_u32(narrow), n);
    }

    // The appending writer: after existing bytes, into a `Vec` with no
    // spare capacity, with exactly the varint's spare capacity and with
    // plenty.
    for (prefix, spare) in [(0, 0), (3, 0), (5, n), (1, 64)] {
        let mut out = Vec::with_capacity(prefix + spare);
        out.extend((0..prefix).map(|i| 0xa0 | i as u8));
        let before = out.clone();
        assert_eq!(
            varint_turbo::encode_to_vec(value, &mut out),
            n,
            "encode_to_vec::<{}>({value:?}) after {prefix} bytes",
            T::NAME
        );
        assert_eq!(
            (&out[..prefix], &out[prefix..]),
            (&before[..], &expected[..]),
            "encode_to_vec::<{}>({value:?}) after {prefix} bytes",
            T::NAME
        );
    }

    // The in-place writer: the varint, then bytes that are untouched or
    // zero, and nothing written from index 10 on.
    let mut spare = [0xa5u8; 32];
    // SAFETY: `spare` has 32 writable bytes from its start.
    let written = unsafe { varint_turbo::encode_unchecked(value, spare.as_mut_ptr()) };
    assert_eq!(
        (written, &spare[..n]),
        (n, &expected[..]),
        "encode_unchecked::<{}>({value:?})",
        T::NAME
    );
    assert!(
        spare[n..10].iter().all(|&b| b == 0xa5 || b == 0) && spare[10..].iter().all(|&b| b == 0xa5),
        "encode_unchecked::<{}>({value:?}) wrote past the varint: {}",
        T::NAME,
        hex(&spare)
    );

    // The writer into uninitialized room: an exact window, the 10 bytes of
    // rust-protobuf's windows and a large one; the varint, then untouched
    // or zero bytes, nothing written past `stored_bytes` (10).
    for room in [n, 10, 32] {
        let mut window = [core::mem::MaybeUninit::new(0xa5u8); 32];
        let written = varint_turbo::encode_to_uninit(value, &mut window[..room]);
        // SAFETY: every byte of `window` is initialized (the marker or the
        // encoder's writes).
        let seen: Vec<u8> = window.iter().map(|b| unsafe { b.assume_init() }).collect();
        assert_eq!(
            (written, &seen[..n]),
            (n, &expected[..]),
            "encode_to_uninit::<{}>({value:?}) in {room}",
            T::NAME
        );
        assert!(
            seen[n..room.max(n).min(10)]
                .iter()
                .all(|&b| b == 0xa5 || b == 0)
                && seen[room.min(10).max(n)..].iter().all(|&b| b == 0xa5),
            "encode_to_uninit::<{}>({value:?}) in {room} wrote past the varint: {}",
            T::NAME,
            hex(&seen)
        );
    }

    for &backend in backends {
        let name = backend.name();
        let (bytes, len) = backend.encode(value);
        assert_eq!(
            (
                &bytes[..usize::from(len)],
                &bytes[usize::from(len).min(16)..]
            ),
            (&expected[..], &[0u8; 16][n..]),
            "{name}: encode::<{}>({value:?}): varint then zero padding",
            T::NAME
        );

        // A large buffer (the direct 16-byte path): the varint, then bytes
        // that are untouched or zero, and nothing written from index 10 on.
        let mut big = [0xa5u8; 32];
        let written = backend.encode_to_slice(value, &mut big);
        assert_eq!(
            written,
            n,
            "{name}: encode_to_slice::<{}>({value:?}) length",
            T::NAME
        );
        assert_eq!(
            &big[..n],
            &expected[..],
            "{name}: encode_to_slice::<{}>({value:?})",
            T::NAME
        );
        assert!(
            big[n..10].iter().all(|&b| b == 0xa5 || b == 0),
            "{name}: encode_to_slice::<{}>({value:?}) wrote non-zero data after the varint: {}",
            T::NAME,
            hex(&big)
        );
        assert!(
            big[10..].iter().all(|&b| b == 0xa5),
            "{name}: encode_to_slice::<{}>({value:?}) wrote at index 10 or later: {}",
            T::NAME,
            hex(&big)
        );

        // Exact-size and 10-byte buffers (the short path), inside sentinels.
        for size in [n, 10] {
            let mut buf = [0x5au8; 40];
            let written = backend.encode_to_slice(value, &mut buf[8..8 + size]);
            assert_eq!(
                written,
                n,
                "{name}: encode_to_slice::<{}>({value:?}) into {size} bytes",
                T::NAME
            );
            assert_eq!(
                &buf[8..8 + n],
                &expected[..],
                "{name}: encode_to_slice into {size} bytes"
            );
            assert!(
                buf[..8].iter().chain(&buf[8 + size..]).all(|&b| b == 0x5a),
                "{name}: encode_to_slice::<{}>({value:?}) wrote outside its {size}-byte slice",
                T::NAME
            );
            assert!(
                buf[8 + n..8 + size].iter().all(|&b| b == 0x5a || b == 0),
                "{name}: encode_to_slice::<{}>({value:?}) wrote non-zero data after the varint",
                T::NAME
            );
        }

        // And back.
        assert_eq!(
            backend.decode::<T>(&expected),
            Ok((value, n)),
            "{name}: decode::<{}> of the encoding of {value:?}",
            T::NAME
        );
    }
}

/// `encode_zigzag`/`encode_zigzag_to_slice`/`decode_zigzag` of `value` on
/// every backend agree with the reference.
pub fn check_encode_zigzag<S: TestSigned>(backends: &[Backend], value: S) {
    let unsigned = reference_zigzag_encode(value);
    assert_eq!(
        varint_turbo::zigzag_encode(value),
        unsigned,
        "zigzag_encode::<{}>({value:?})",
        S::NAME
    );
    assert_eq!(
        varint_turbo::zigzag_decode::<S>(unsigned),
        value,
        "zigzag_decode::<{}>",
        S::NAME
    );
    let expected = reference_encode(unsigned.as_u64());
    let n = expected.len();
    let mut out = vec![0xee];
    assert_eq!(
        varint_turbo::encode_zigzag_to_vec(value, &mut out),
        n,
        "encode_zigzag_to_vec::<{}>({value:?})",
        S::NAME
    );
    assert_eq!(
        (out[0], &out[1..]),
        (0xee, &expected[..]),
        "encode_zigzag_to_vec::<{}>({value:?})",
        S::NAME
    );
    for &backend in backends {
        let name = backend.name();
        let (bytes, len) = backend.encode_zigzag(value);
        assert_eq!(
            &bytes[..usize::from(len)],
            &expected[..],
            "{name}: encode_zigzag::<{}>({value:?})",
            S::NAME
        );
        assert!(
            bytes[n..].iter().all(|&b| b == 0),
            "{name}: encode_zigzag padding"
        );
        let mut buf = [0x5au8; 24];
        let written = backend.encode_zigzag_to_slice(value, &mut buf[4..4 + n]);
        assert_eq!(
            written,
            n,
            "{name}: encode_zigzag_to_slice::<{}>({value:?})",
            S::NAME
        );
        assert_eq!(
            &buf[4..4 + n],
            &expected[..],
            "{name}: encode_zigzag_to_slice::<{}>({value:?})",
            S::NAME
        );
        assert!(buf[..4].iter().chain(&buf[4 + n..]).all(|&b| b == 0x5a));
        let mut big = [0u8; 16];
        assert_eq!(backend.encode_zigzag_to_slice(value, &mut big), n);
        assert_eq!(&big[..n], &expected[..]);
        assert_eq!(
            backend.decode_zigzag::<S>(&expected),
            Ok((value, n)),
            "{name}: decode_zigzag::<{}> of the encoding of {value:?}",
            S::NAME
        );
    }
}

// ---------------------------------------------------------------------------
// The fuzz targets' oracle (after the macros above, which it uses)
// ---------------------------------------------------------------------------

pub mod delta;
pub mod differential;
pub mod ecosystem;
#[macro_use]
pub mod sleb128;

/// A fixed-seed xorshift64 generator (Marsaglia's 13, 7, 17 triple): the
/// random inputs of the tests, the same on every run.
pub fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
