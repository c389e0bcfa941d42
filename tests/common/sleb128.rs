//! The signed LEB128 oracle (the `sleb128` module): a reference decoder and
//! encoder written from WebAssembly's rules as byte loops on `i128`, using
//! nothing from the crate but [`DecodeError`]'s names, and the checks that
//! compare every single-value and bulk path with them (tests/suite/sleb128.rs,
//! tests/page_guard.rs' signed section, the `sleb128` fuzz target).

use super::differential::{
    bulk_backends, check_bulk_outcome, fuzzer_chosen_len, repeated_decode, BulkOutcome,
};
use super::hex;
use std::fmt::Debug;
use varint_turbo::sleb128::{self, SignedLeb128};
use varint_turbo::{Backend as BulkBackend, BulkDecodeError, DecodeError};

/// A type of the `sleb128` module, with test-side conversions.
pub trait TestSleb: SignedLeb128 + Copy + Debug + Default + Eq + Send + Sync + 'static {
    /// The type's name, for messages.
    const NAME: &'static str;
    /// Width in bits.
    const BITS: u32;
    /// Narrows if the value fits.
    fn from_i128(value: i128) -> Option<Self>;
    /// Widens.
    fn as_i64(self) -> i64;
    /// Narrows, truncating.
    fn from_i64_wrapping(value: i64) -> Self;
}

macro_rules! impl_test_sleb {
    ($($ty:ty),*) => {$(
        impl TestSleb for $ty {
            const NAME: &'static str = stringify!($ty);
            const BITS: u32 = <$ty>::BITS;
            fn from_i128(value: i128) -> Option<Self> {
                <$ty>::try_from(value).ok()
            }
            fn as_i64(self) -> i64 {
                self as i64
            }
            fn from_i64_wrapping(value: i64) -> Self {
                value as $ty
            }
        }
    )*};
}
impl_test_sleb!(i32, i64);

/// Calls `$f::<T>(args...)` for `i32` and `i64`.
macro_rules! for_each_sleb {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        $f::<i32>($($arg),*);
        $f::<i64>($($arg),*);
    }};
}

/// Decodes one signed LEB128 varint into `T` by WebAssembly's rules
/// (`s32`/`s64`), one byte at a time:
///
/// * at most `N = ceil(BITS / 7)` bytes; running out of input before a byte
///   without the continuation bit is `Truncated` (also for the empty
///   input), and an `N`th byte with the continuation bit is `Overflow`;
/// * the value is the `7 * len` payload bits as two's complement (the last
///   byte's bit 6 is the sign);
/// * in an `N`th byte, the bits beyond `BITS` (bits `BITS - 7 (N - 1)`..7
///   of the byte) and the sign bit below them must all be equal, else
///   `Overflow`. (The reference also checks that this is the same as "the
///   value fits `T`".)
pub fn reference_sleb128_decode<T: TestSleb>(input: &[u8]) -> Result<(T, usize), DecodeError> {
    let max_len = (T::BITS as usize).div_ceil(7);
    let mut value: i128 = 0;
    for i in 0..max_len {
        let Some(&byte) = input.get(i) else {
            return Err(DecodeError::Truncated);
        };
        value |= i128::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 != 0 {
            continue;
        }
        let bits = 7 * (i + 1);
        if byte & 0x40 != 0 {
            value -= 1i128 << bits;
        }
        let rule_ok = if i + 1 == max_len {
            // The payload bits of the last byte that are inside the type:
            // the highest of them is the sign, the rest must copy it.
            let inside = T::BITS as usize - 7 * i;
            let sign_and_unused = byte >> (inside - 1) & 0x7f;
            let width = 7 - (inside - 1);
            sign_and_unused == 0 || sign_and_unused == (1u8 << width) - 1
        } else {
            true
        };
        let fits = T::from_i128(value);
        assert_eq!(
            rule_ok,
            fits.is_some(),
            "the reference's two readings of the last-byte rule differ on {}",
            hex(input)
        );
        return match fits {
            Some(v) if rule_ok => Ok((v, i + 1)),
            _ => Err(DecodeError::Overflow),
        };
    }
    Err(DecodeError::Overflow)
}

/// The shortest signed LEB128 varint of `value`: 7-bit groups until the
/// rest is all sign and the last group's bit 6 shows that sign.
pub fn reference_sleb128_encode(value: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(10);
    let mut rest = i128::from(value);
    loop {
        let group = (rest & 0x7f) as u8;
        rest >>= 7;
        let done = (rest == 0 && group & 0x40 == 0) || (rest == -1 && group & 0x40 != 0);
        if done {
            out.push(group);
            return out;
        }
        out.push(group | 0x80);
    }
}

/// `sleb128::decode::<T>` against the reference on `input` (a slice that
/// ends where its allocation ends, when called from the fuzzer).
pub fn check_sleb128_decode<T: TestSleb>(input: &[u8]) {
    assert_eq!(
        sleb128::decode::<T>(input),
        reference_sleb128_decode::<T>(input),
        "sleb128::decode::<{}> of {}",
        T::NAME,
        hex(input)
    );
}

/// Encoding `value` (taken to `T`) through every encoder of the module
/// gives the reference's bytes, which decode back to it.
pub fn check_sleb128_encode<T: TestSleb>(value: T) {
    let want = reference_sleb128_encode(value.as_i64());
    let (bytes, len) = sleb128::encode(value);
    assert_eq!(&bytes[..usize::from(len)], &want[..], "encode({value:?})");
    assert!(
        bytes[usize::from(len)..].iter().all(|&b| b == 0),
        "padding of encode({value:?})"
    );
    assert_eq!(
        sleb128::encoded_len(value),
        want.len(),
        "encoded_len({value:?})"
    );
    for room in [want.len(), want.len() + 1, 10, 16, 20] {
        let mut out = vec![0xaau8; room];
        assert_eq!(sleb128::encode_to_slice(value, &mut out), want.len());
        assert_eq!(
            &out[..want.len()],
            &want[..],
            "encode_to_slice({value:?}) into {room}"
        );
        assert!(
            out[10.min(room)..].iter().all(|&b| b == 0xaa),
            "wrote past byte 10"
        );
    }
    assert_eq!(sleb128::decode::<T>(&want), Ok((value, want.len())));
}

/// `sleb128::decode_slice::<T>` into `out_len` slots on every bulk backend
/// (`decode_slice_on`) and through the API, and `decode_all::<T>`, against
/// repeated reference decodes (which must equal repeated
/// `sleb128::decode`).
pub fn check_sleb128_slice<T: TestSleb>(backends: &[BulkBackend], input: &[u8], out_len: usize) {
    let expected = repeated_decode(input, out_len, reference_sleb128_decode::<T>);
    assert_eq!(
        repeated_decode(input, out_len, sleb128::decode::<T>),
        expected,
        "repeated sleb128::decode::<{}> vs the reference on {}",
        T::NAME,
        hex(input)
    );
    for &backend in backends {
        let mut out = vec![T::default(); out_len];
        let got = sleb128::decode_slice_on(backend, input, &mut out);
        let what = format!("{backend}: sleb128::decode_slice::<{}>", T::NAME);
        check_bulk_outcome(&what, input, out_len, &expected, got, &out);
    }
    let mut out = vec![T::default(); out_len];
    let got = sleb128::decode_slice(input, &mut out);
    let what = format!("sleb128::decode_slice::<{}>", T::NAME);
    check_bulk_outcome(&what, input, out_len, &expected, got, &out);

    let (values, outcome): (Vec<T>, BulkOutcome) =
        repeated_decode(input, usize::MAX, reference_sleb128_decode::<T>);
    let want = outcome.map(|_| values);
    let got = sleb128::decode_all::<T>(input)
        .map_err(|error: BulkDecodeError| (error.kind(), error.index(), error.offset()));
    assert_eq!(
        got,
        want,
        "sleb128::decode_all::<{}> of {}",
        T::NAME,
        hex(input)
    );
}

/// The bulk encoders of `values` against the reference's bytes: the `Vec`
/// form whole, the slice form into every room up to the total (it stops
/// after the last value that fits whole), and `encoded_len_sum`.
pub fn check_sleb128_encode_slices<T: TestSleb>(values: &[T]) {
    let encodings: Vec<Vec<u8>> = values
        .iter()
        .map(|v| reference_sleb128_encode(v.as_i64()))
        .collect();
    let all: Vec<u8> = encodings.concat();
    let mut out = vec![0x55];
    assert_eq!(sleb128::encode_slice(values, &mut out), all.len());
    assert_eq!(&out[1..], &all[..], "encode_slice of {values:?}");
    assert_eq!(sleb128::encoded_len_sum(values), all.len());
    let mut rooms: Vec<usize> = (0..all.len().min(40)).collect();
    rooms.extend([all.len().saturating_sub(1), all.len(), all.len() + 7]);
    for room in rooms {
        let mut fit = (0, 0);
        for encoding in &encodings {
            if fit.1 + encoding.len() > room {
                break;
            }
            fit = (fit.0 + 1, fit.1 + encoding.len());
        }
        let mut out = vec![0xaau8; room];
        assert_eq!(
            sleb128::encode_slice_into(values, &mut out),
            fit,
            "room {room}"
        );
        assert_eq!(&out[..fit.1], &all[..fit.1]);
    }
}

/// The values a fuzz input stands for: 8 little-endian bytes each (fewer
/// at the end), narrowed in the middle of the range's lengths by the low
/// bits of the first byte, so that every length is reached.
pub fn sleb128_values_from_bytes(bytes: &[u8]) -> Vec<i64> {
    bytes
        .chunks(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            let value = i64::from_le_bytes(word);
            // Shift right arithmetically by 0..63: small values of both signs.
            value >> (chunk[0] & 0x3f)
        })
        .collect()
}

/// Fuzz target `sleb128`: `data[0]` chooses `out.len()` for the bulk
/// decoders (see [`fuzzer_chosen_len`]), the rest is the input. Checks
/// `sleb128::decode` of every `i32`/`i64` at every start in the first 64
/// bytes (each as an exactly-sized copy, so AddressSanitizer sees a read
/// past its end), `decode_slice` on every backend and through the API and
/// `decode_all`, and the encoders on the values the bytes stand for.
pub fn sleb128_target(data: &[u8]) {
    let Some((&control, input)) = data.split_first() else {
        return;
    };
    for start in 0..input.len().min(64) {
        let case: Box<[u8]> = input[start..input.len().min(start + 12)].into();
        for_each_sleb!(check_sleb128_decode(&case));
    }
    let terminators = input.iter().filter(|&&byte| byte < 0x80).count();
    let out_len = fuzzer_chosen_len(control, terminators);
    let backends = bulk_backends();
    for_each_sleb!(check_sleb128_slice(&backends, input, out_len));
    let values = sleb128_values_from_bytes(input);
    for &value in values.iter().take(16) {
        check_sleb128_encode(value);
        check_sleb128_encode(value as i32);
    }
    check_sleb128_encode_slices(&values);
    let narrow: Vec<i32> = values.iter().map(|&v| v as i32).collect();
    check_sleb128_encode_slices(&narrow);
}
