//! The probe of scripts/check-target-features.sh: one binary that calls
//! every kernel of every backend for every type it is instantiated for (the
//! generic kernels are compiled only where they are called), through the
//! public API. It is built, never run for a result: each call takes
//! `black_box`ed inputs so that nothing folds away, and the backends the
//! build host lacks are behind `is_supported()` checks.

use std::hint::black_box;

use varint_turbo::protobuf::{
    bool as pbool, enumeration, int32, int64, sint32, sint64, uint32, uint64,
};
use varint_turbo::Backend;

fn unsigned<T: varint_turbo::VarInt + Default>(input: &[u8]) {
    let values = vec![T::default(); input.len()];
    let mut out = vec![T::default(); input.len()];
    let mut bytes = vec![0u8; 10 * input.len()];
    for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
        black_box(backend.decode_slice(black_box(input), &mut out)).ok();
        black_box(backend.encoded_len_sum(black_box(&values)));
        black_box(backend.encode_slice_into(black_box(&values), &mut bytes));
    }
    black_box(varint_turbo::decode_slice(black_box(input), &mut out)).ok();
    black_box(varint_turbo::decode_all::<T>(black_box(input))).ok();
    black_box(varint_turbo::encoded_len_sum(black_box(&values)));
    black_box(varint_turbo::encode_slice_into(
        black_box(&values),
        &mut bytes,
    ));
    let mut vec = Vec::new();
    black_box(varint_turbo::encode_slice(black_box(&values), &mut vec));
    black_box(varint_turbo::decode::<T>(black_box(input))).ok();
    let mut window = [0u8; 16];
    black_box(varint_turbo::encode_to_slice(
        black_box(T::default()),
        &mut window,
    ));
    if let Some(ssse3) = varint_turbo::arch::x86_64::Ssse3::new() {
        black_box(ssse3.decode::<T>(black_box(input))).ok();
        black_box(ssse3.encode(black_box(T::default())));
    }
    if let Some(bmi2) = varint_turbo::arch::x86_64::Bmi2::new() {
        black_box(bmi2.decode::<T>(black_box(input))).ok();
        black_box(bmi2.encode(black_box(T::default())));
    }
}

fn signed<S: varint_turbo::ZigZag + Default>(input: &[u8]) {
    let values = vec![S::default(); input.len()];
    let mut out = vec![S::default(); input.len()];
    let mut bytes = vec![0u8; 10 * input.len()];
    black_box(varint_turbo::decode_slice_zigzag(
        black_box(input),
        &mut out,
    ))
    .ok();
    black_box(varint_turbo::decode_all_zigzag::<S>(black_box(input))).ok();
    black_box(varint_turbo::encode_slice_zigzag_into(
        black_box(&values),
        &mut bytes,
    ));
    let mut vec = Vec::new();
    black_box(varint_turbo::encode_slice_zigzag(
        black_box(&values),
        &mut vec,
    ));
}

fn leb128_signed<S: varint_turbo::sleb128::SignedLeb128>(input: &[u8]) {
    let values = vec![S::default(); input.len()];
    let mut out = vec![S::default(); input.len()];
    for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
        black_box(varint_turbo::sleb128::decode_slice_on(
            backend,
            black_box(input),
            &mut out,
        ))
        .ok();
    }
    black_box(varint_turbo::sleb128::decode_slice(
        black_box(input),
        &mut out,
    ))
    .ok();
    black_box(varint_turbo::sleb128::decode_all::<S>(black_box(input))).ok();
    let mut vec = Vec::new();
    black_box(varint_turbo::sleb128::encode_slice(
        black_box(&values),
        &mut vec,
    ));
}

fn delta<T: varint_turbo::delta::DeltaInt + Default>(input: &[u8]) {
    let values = vec![T::default(); input.len()];
    let mut out = vec![T::default(); input.len()];
    let mut bytes = vec![0u8; 10 * input.len()];
    for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
        let input = black_box(input);
        black_box(backend.decode_slice_delta(input, &mut out, T::default())).ok();
        black_box(backend.select_delta(input, input.len() / 2, T::default())).ok();
        black_box(backend.search_delta(input, T::default(), T::default())).ok();
        black_box(backend.encode_slice_delta_into(black_box(&values), &mut bytes, T::default()));
    }
    black_box(varint_turbo::delta::decode_slice(
        black_box(input),
        &mut out,
        T::default(),
    ))
    .ok();
}

macro_rules! packed {
    ($input:expr, $($module:ident: $ty:ty),*) => {$({
        let mut out: Vec<$ty> = Vec::new();
        black_box($module::decode_packed(black_box($input), &mut out)).ok();
        black_box($module::count_packed(black_box($input)));
        black_box($module::encoded_len_packed(black_box(&out)));
        let mut bytes = Vec::new();
        black_box($module::encode_packed(black_box(&out), &mut bytes));
    })*};
}

fn main() {
    let input: Vec<u8> = std::env::args().flat_map(String::into_bytes).collect();
    let input = black_box(&input[..]);
    unsigned::<u8>(input);
    unsigned::<u16>(input);
    unsigned::<u32>(input);
    unsigned::<u64>(input);
    unsigned::<usize>(input);
    signed::<i8>(input);
    signed::<i16>(input);
    signed::<i32>(input);
    signed::<i64>(input);
    signed::<isize>(input);
    leb128_signed::<i32>(input);
    leb128_signed::<i64>(input);
    delta::<u32>(input);
    delta::<u64>(input);
    for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
        black_box(backend.count_varints(black_box(input)));
    }
    black_box(varint_turbo::count_varints(black_box(input)));
    packed!(input, pbool: bool, enumeration: i32, int32: i32, int64: i64, sint32: i32, sint64: i64, uint32: u32, uint64: u64);
}
