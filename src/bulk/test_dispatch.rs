//! Test-only (`cfg(test)`): the bulk dispatch through the public API on
//! every backend this CPU supports, whatever its own best one, so that a
//! CI host with AVX-512 still runs the SSSE3/AVX2 heuristics
//! (`mostly_one_byte`, `mostly_long`, the short-input branch,
//! `decode_backend`, `simd_decoder`, the packed decoder's batches). Each
//! test forces the detected backend on its thread (`backend::forced`),
//! records the route every decode takes ([`record`], called by the
//! dispatch through `trace_route!`) and compares it with the routing rules
//! restated here independently ([`expected_route`]); the results must be
//! the scalar backend's.

use alloc::vec::Vec;
use core::cell::RefCell;

use super::backend::forced::with_backend;
use super::Backend;
use crate::varint::VarInt;
use crate::zigzag::ZigZag;

/// The way a bulk decode went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// The byte loop (`bytewise_values`).
    ByteLoop,
    /// The SSSE3/AVX2 blocks over a padded copy (inputs under two blocks).
    Short(Backend),
    /// The backend's whole-input decoder (`Scalar`: the scalar blocks).
    Kernel(Backend),
    /// One batch of a longer (packed) decode, `decode_run_uninit`.
    Run(Backend),
    /// The one-pass decoder of `u64` varints into their low 32 bits
    /// (`decode_low_halves_uninit`, packed `int32`s on AVX-512).
    LowHalves(Backend),
}

std::thread_local! {
    /// The routes taken on this thread while [`traced`] runs.
    static ROUTES: RefCell<Option<Vec<Route>>> = const { RefCell::new(None) };
}

/// Called by the dispatch: notes `route` if this thread is [`traced`].
pub(crate) fn record(route: Route) {
    ROUTES.with(|routes| {
        if let Some(routes) = routes.borrow_mut().as_mut() {
            routes.push(route);
        }
    });
}

/// Runs `f` with `backend` forced, and returns the routes it took.
fn traced<R>(backend: Backend, f: impl FnOnce() -> R) -> (R, Vec<Route>) {
    ROUTES.with(|routes| *routes.borrow_mut() = Some(Vec::new()));
    let result = with_backend(backend, f);
    let routes = ROUTES
        .with(|routes| routes.borrow_mut().take())
        .unwrap_or_default();
    (result, routes)
}

fn supported() -> Vec<Backend> {
    Backend::ALL
        .into_iter()
        .filter(|backend| backend.is_supported())
        .collect()
}

/// The SIMD decoder for a CPU whose best backend is `detected`: SSSE3 for
/// AVX2 on 128-bit vector units in builds with AVX.
fn simd_for(detected: Backend) -> Backend {
    let split = cfg!(target_feature = "avx") && crate::cpu::splits_256_bit_ops();
    if detected == Backend::Avx2 && split && Backend::Ssse3.is_supported() {
        Backend::Ssse3
    } else {
        detected
    }
}

/// The route the documented rules give a decode of `input` into `T` on a
/// CPU whose best backend is `detected` (the constants and reasons are in
/// `bulk/mod.rs`), by plain loops over the bytes.
fn expected_route<T: VarInt>(input: &[u8], detected: Backend) -> Route {
    let len = input.len();
    if len <= 16 {
        return Route::ByteLoop;
    }
    if detected == Backend::Avx512Vbmi2 {
        return Route::Kernel(detected);
    }
    // At least 7 of every 8 bytes end a varint, up to 24 bytes.
    let terminators = input.iter().filter(|&&byte| byte < 0x80).count();
    if len <= 24 && 8 * terminators >= 7 * len {
        return Route::ByteLoop;
    }
    // The sample: the first 16 bytes.
    let sample = &input[..16];
    let ends: Vec<usize> = (0..16).filter(|&i| sample[i] < 0x80).collect();
    if len <= 48 && ends.len() <= 2 {
        return Route::ByteLoop;
    }
    let grid = matches!(detected, Backend::Ssse3 | Backend::Avx2);
    if !grid {
        return Route::Kernel(if len < 256 { Backend::Scalar } else { detected });
    }
    if len < 128 {
        return Route::Short(simd_for(detected));
    }
    // The varints that end in the sample, the first from the input's start.
    let mut lens = Vec::new();
    let mut start = 0;
    for &end in &ends {
        lens.push(end + 1 - start);
        start = end + 1;
    }
    let mut longest_run = 0;
    let mut run = 0;
    for &byte in sample {
        run = if byte >= 0x80 { run + 1 } else { 0 };
        longest_run = longest_run.max(run);
    }
    if longest_run <= 1 {
        // Only 1- and 2-byte varints.
        let only_ones = ends.len() == 16;
        return if only_ones && crate::cpu::splits_256_bit_ops() && Backend::Ssse3.is_supported() {
            Route::Kernel(Backend::Ssse3)
        } else {
            Route::Kernel(simd_for(detected))
        };
    }
    if longest_run <= 2 {
        // No varint of 4 bytes or more (the runs of at most 3 bytes).
        return Route::Kernel(simd_for(detected));
    }
    let short_varints = lens.iter().filter(|&&n| n <= 2).count();
    let long = longest_run >= 5;
    let (short, stay_scalar) = if T::MAX_LEN > 5 {
        (false, short_varints == 0 && long)
    } else {
        (
            len < 256,
            short_varints == 0 || (short_varints <= 3 && !long),
        )
    };
    // 32-bit decodes on full-width 256-bit AVX2 units leave the scalar
    // backend from 1,024 bytes.
    let scalar_max = if T::MAX_LEN <= 5
        && simd_for(detected) == Backend::Avx2
        && !crate::cpu::splits_256_bit_ops()
    {
        1024
    } else {
        4096
    };
    if short || (len < scalar_max && stay_scalar) {
        Route::Kernel(Backend::Scalar)
    } else {
        Route::Kernel(simd_for(detected))
    }
}

/// A deterministic generator.
fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// Varints whose lengths `shape` draws, cut to `len` bytes (a cut-off last
/// one is an error for every decode alike).
fn stream(len: usize, next: &mut impl FnMut() -> u64, shape: fn(u64) -> usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    while bytes.len() < len {
        let r = next();
        let n = shape(r);
        for i in 0..n {
            let continues = i + 1 < n;
            // The last byte of a 10-byte varint must be 1 to fit `u64`.
            let payload = if n == 10 && !continues {
                1
            } else {
                (r >> (7 * i)) as u8 & 0x7f
            };
            bytes.push(payload | if continues { 0x80 } else { 0 });
        }
    }
    bytes.truncate(len);
    bytes
}

/// Inputs of every dispatch route: the shapes at lengths around every
/// threshold, and for 17 to 24 bytes every count of 2-byte varints among
/// 1-byte ones (both sides of the byte loop's 7-in-8 rule).
fn inputs() -> Vec<Vec<u8>> {
    let shapes: [fn(u64) -> usize; 8] = [
        |_| 1,
        |r| if r % 20 == 0 { 2 } else { 1 },
        |r| 1 + (r % 2) as usize,
        |r| 2 + (r % 4) as usize,
        |r| 3 + (r % 3) as usize,
        |r| 8 + (r % 3) as usize,
        |r| match r % 100 {
            0..=59 => 1,
            60..=84 => 2,
            85..=94 => 4,
            _ => 10,
        },
        |r| {
            if r % 6 == 0 {
                6 + (r % 5) as usize
            } else {
                1 + (r % 2) as usize
            }
        },
    ];
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let mut inputs = Vec::new();
    let lengths = (1..=50).chain([
        63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 600, 4095, 4096, 4097,
    ]);
    for len in lengths {
        for shape in shapes {
            inputs.push(stream(len, &mut next, shape));
        }
    }
    for len in 17..=24 {
        for twos in 0..=6 {
            let mut input: Vec<u8> = (0..len).map(|i| (i * 37 % 128) as u8).collect();
            for k in 0..twos {
                let at = (k * 7 + 3) % (len - 1);
                input[at] |= 0x80;
            }
            inputs.push(input);
        }
    }
    inputs
}

/// `decode_slice::<T>` of `input` under `backend`: its result (with the
/// values written) against the scalar backend's; its route against the
/// rules (a wrong one is noted in `wrong_routes`).
fn check_decode<T: VarInt + Default + core::fmt::Debug>(
    backend: Backend,
    input: &[u8],
    wrong_routes: &mut Vec<alloc::string::String>,
) {
    let mut out = alloc::vec![T::default(); input.len()];
    let (got, routes) = traced(backend, || crate::bulk::decode_slice(input, &mut out));
    let expected_route = expected_route::<T>(input, backend);
    if routes != [expected_route] {
        wrong_routes.push(alloc::format!(
            "{backend}: decode_slice::<{}> of {} bytes {input:02x?} took {routes:?}, the rules say {expected_route:?}",
            core::any::type_name::<T>(),
            input.len()
        ));
    }
    let mut want_out = alloc::vec![T::default(); input.len()];
    let want = Backend::Scalar.decode_slice(input, &mut want_out);
    assert_eq!(got, want, "{backend}: {input:02x?}");
    let written = match want {
        Ok((n, _)) => n,
        Err(error) => error.index(),
    };
    assert_eq!(
        out[..written],
        want_out[..written],
        "{backend}: {input:02x?}"
    );
}

/// Every supported backend, forced: `decode_slice` of every input into
/// every type takes the route the rules give (so a heuristic that answers
/// wrong, such as `mostly_one_byte`, fails here on any CPU) and gives the
/// scalar backend's results.
#[test]
fn decode_slice_routes_follow_the_rules_on_every_backend() {
    let inputs = inputs();
    let mut wrong_routes = Vec::new();
    let mut wrong_backends = Vec::new();
    for backend in supported() {
        let mut seen = Vec::new();
        let before = wrong_routes.len();
        for input in &inputs {
            check_decode::<u8>(backend, input, &mut wrong_routes);
            check_decode::<u16>(backend, input, &mut wrong_routes);
            check_decode::<u32>(backend, input, &mut wrong_routes);
            check_decode::<u64>(backend, input, &mut wrong_routes);
            check_decode::<usize>(backend, input, &mut wrong_routes);
            let route = expected_route::<u32>(input, backend);
            if !seen.contains(&route) {
                seen.push(route);
            }
        }
        // Every route of this backend ran (the inputs are not vacuous).
        let mut routes = alloc::vec![Route::ByteLoop];
        match backend {
            Backend::Ssse3 | Backend::Avx2 => {
                routes.extend([
                    Route::Short(simd_for(backend)),
                    Route::Kernel(Backend::Scalar),
                    Route::Kernel(simd_for(backend)),
                ]);
            }
            Backend::Avx512Vbmi2 => routes.push(Route::Kernel(backend)),
            _ => routes.push(Route::Kernel(Backend::Scalar)),
        }
        for route in routes {
            assert!(seen.contains(&route), "{backend}: no input took {route:?}");
        }
        if wrong_routes.len() > before {
            wrong_backends.push(alloc::format!("{backend}: {}", wrong_routes.len() - before));
        }
    }
    assert!(
        wrong_routes.is_empty(),
        "decodes that took another route than the rules give, per backend {wrong_backends:?}; the first ones: {:#?}",
        &wrong_routes[..wrong_routes.len().min(5)]
    );
}

/// The routes of `decode_slice` of `out.len()` values from the valid
/// `input` (which holds more): the byte loop up to 8 values, the route of
/// their exact bytes up to 64, beyond that the route of `MAX_LEN` bytes per
/// value, or where that is the SSSE3/AVX2 blocks, a run of blocks that
/// stops before the last block that fits in `out` (where it stops depends
/// on `out`'s address: the one-byte steps align their stores, so the
/// model runs into the caller's own buffer), then the routes of the values
/// left on their own bytes.
fn expected_routes<T: VarInt>(
    input: &[u8],
    out: &mut [core::mem::MaybeUninit<T>],
    backend: Backend,
) -> Vec<Route> {
    let count = out.len();
    let reach = count * T::MAX_LEN;
    if input.len() <= reach || count == 0 {
        return alloc::vec![expected_route::<T>(input, backend)];
    }
    let ends: Vec<usize> = (0..input.len()).filter(|&at| input[at] < 0x80).collect();
    match count {
        1..=8 => alloc::vec![Route::ByteLoop],
        9..=64 => alloc::vec![expected_route::<T>(&input[..ends[count - 1] + 1], backend)],
        _ => match expected_route::<T>(&input[..reach], backend) {
            Route::Kernel(grid @ (Backend::Ssse3 | Backend::Avx2)) => {
                let (n, at) = grid
                    .decode_run_uninit(input, 0, out)
                    .expect("valid varints");
                let mut routes = alloc::vec![Route::Run(grid)];
                if n < count && at < input.len() {
                    routes.extend(expected_routes::<T>(&input[at..], &mut out[n..], backend));
                }
                routes
            }
            other => alloc::vec![other],
        },
    }
}

/// A few values from a long valid input: `decode_slice` routes on the
/// bytes of the values it decodes ([`expected_routes`]) and gives the
/// scalar backend's results.
#[test]
fn short_outputs_route_on_their_own_bytes() {
    fn check<T: VarInt + Default + core::fmt::Debug>(
        backend: Backend,
        input: &[u8],
        wrong_routes: &mut Vec<alloc::string::String>,
    ) {
        let ends: Vec<usize> = (0..input.len()).filter(|&at| input[at] < 0x80).collect();
        for count in [1, 2, 5, 8, 9, 12, 16, 31, 64, 65, 100, 400] {
            let reach = count * T::MAX_LEN;
            if count > ends.len() || input.len() <= reach.max(16) {
                continue;
            }
            let mut out = alloc::vec![T::default(); count];
            let (got, routes) = traced(backend, || crate::bulk::decode_slice(input, &mut out));
            let mut want_out = alloc::vec![T::default(); count];
            let want = Backend::Scalar.decode_slice(input, &mut want_out);
            assert_eq!(got, want, "{backend}: {count} values of {input:02x?}");
            if want.is_err() {
                continue;
            }
            assert_eq!(out, want_out, "{backend}: {count} values of {input:02x?}");
            let expected = expected_routes::<T>(input, crate::bulk::as_uninit(&mut out), backend);
            if routes != expected {
                wrong_routes.push(alloc::format!(
                    "{backend}: {count} {} of {} bytes took {routes:?}, the rules say {expected:?}",
                    core::any::type_name::<T>(),
                    input.len()
                ));
            }
        }
    }
    let inputs: Vec<Vec<u8>> = inputs()
        .into_iter()
        .filter(|input| input.len() > 600)
        .collect();
    let mut wrong_routes = Vec::new();
    for backend in supported() {
        for input in &inputs {
            check::<u8>(backend, input, &mut wrong_routes);
            check::<u16>(backend, input, &mut wrong_routes);
            check::<u32>(backend, input, &mut wrong_routes);
            check::<u64>(backend, input, &mut wrong_routes);
        }
    }
    assert!(
        wrong_routes.is_empty(),
        "{} decodes took another route than the rules give; the first ones: {:#?}",
        wrong_routes.len(),
        &wrong_routes[..wrong_routes.len().min(5)]
    );
}

/// `run` (calls of the API on `input` into `T`) gives the same on
/// `backend` as on the scalar one.
fn agrees_with_scalar<T, R: PartialEq + core::fmt::Debug>(
    backend: Backend,
    input: &[u8],
    run: impl Fn() -> R,
) {
    let got = with_backend(backend, &run);
    let want = with_backend(Backend::Scalar, &run);
    assert_eq!(
        got,
        want,
        "{backend}: {} of {input:02x?}",
        core::any::type_name::<T>()
    );
}

/// `decode_all`, the zigzag decoders, `count_varints`, `encoded_len_sum`,
/// `encode_slice(_into)` and `encode_slice_zigzag` on every forced backend
/// give what they give on the scalar one.
#[test]
fn the_bulk_api_agrees_on_every_backend() {
    fn unsigned<T: VarInt + Default + core::fmt::Debug>(backend: Backend, input: &[u8]) {
        let run = || {
            let values = crate::bulk::decode_all::<T>(input);
            let decoded = values.clone().unwrap_or_default();
            let mut encoded = Vec::new();
            crate::bulk::encode_slice(&decoded, &mut encoded);
            let mut room = alloc::vec![0u8; encoded.len() / 2];
            let into = crate::bulk::encode_slice_into(&decoded, &mut room);
            room.truncate(into.1);
            (
                values,
                crate::bulk::encoded_len_sum(&decoded),
                encoded,
                into,
                room,
            )
        };
        agrees_with_scalar::<T, _>(backend, input, run);
    }
    fn signed<S: ZigZag + Default + core::fmt::Debug>(backend: Backend, input: &[u8]) {
        let run = || {
            let all = crate::bulk::decode_all_zigzag::<S>(input);
            let mut out = alloc::vec![S::default(); input.len()];
            let slice = crate::bulk::decode_slice_zigzag(input, &mut out);
            let written = match slice {
                Ok((n, _)) => n,
                Err(error) => error.index(),
            };
            out.truncate(written);
            let mut encoded = Vec::new();
            crate::bulk::encode_slice_zigzag(&out, &mut encoded);
            (all, slice, out, encoded)
        };
        agrees_with_scalar::<S, _>(backend, input, run);
    }
    // Every third input (the qemu rows of scripts/cpu-matrix.sh run this
    // too): the routes are the other tests' subject.
    let inputs: Vec<Vec<u8>> = inputs().into_iter().step_by(3).collect();
    for backend in supported() {
        for input in &inputs {
            unsigned::<u8>(backend, input);
            unsigned::<u16>(backend, input);
            unsigned::<u32>(backend, input);
            unsigned::<u64>(backend, input);
            signed::<i8>(backend, input);
            signed::<i32>(backend, input);
            signed::<i64>(backend, input);
            let count = with_backend(backend, || crate::bulk::count_varints(input));
            assert_eq!(count, input.iter().filter(|&&byte| byte < 0x80).count());
        }
    }
}

/// `protobuf::*::decode_packed` on every forced backend: a packed `int32`
/// field whose negative value (a 10-byte varint) stops the `u32` decode
/// goes on in 64-bit batches (`decode_run_uninit`, the partial-batch
/// decoder of the SSSE3/AVX2 backends), or on AVX-512 in the decoder that
/// keeps the low halves; the route and the values are checked, and an
/// error's place, against the scalar backend's.
#[test]
fn decode_packed_batches_on_every_backend() {
    use crate::protobuf::{int32, sint64, uint64};
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    for backend in supported() {
        for case in 0..40 {
            let count = 300 + case * 37;
            let values: Vec<i32> = (0..count)
                .map(|i| {
                    let r = next();
                    match (i + case) % 50 {
                        7 => -(r as i32 & 0xffff) - 1,
                        n if n % 3 == 0 => (r % 128) as i32,
                        _ => (r >> (r % 32)) as i32 & 0x7fff_ffff,
                    }
                })
                .collect();
            let mut payload = Vec::new();
            for &value in &values {
                let (bytes, len) = int32::encode(value);
                payload.extend_from_slice(&bytes[..usize::from(len)]);
            }
            if case % 4 == 3 {
                // An error far into the batches: an overlong varint.
                let at = payload.len() - 50;
                payload.splice(at..at, [0xff; 11]);
            }
            let run = || {
                let mut ints = Vec::new();
                let int_result = int32::decode_packed(&payload, &mut ints);
                let mut wide = Vec::new();
                let wide_result = uint64::decode_packed(&payload, &mut wide);
                let mut zig = Vec::new();
                let zig_result = sint64::decode_packed(&payload, &mut zig);
                (int_result, ints, wide_result, wide, zig_result, zig)
            };
            let (got, routes) = traced(backend, run);
            let want = with_backend(Backend::Scalar, run);
            assert_eq!(got, want, "{backend}: case {case}");
            if case % 4 != 3 {
                assert_eq!(got.1, values, "{backend}: case {case}");
            }
            let wide_route = if backend.has_low_halves_decoder() {
                Route::LowHalves(backend)
            } else {
                Route::Run(simd_for(backend))
            };
            assert!(
                routes.contains(&wide_route),
                "{backend}: case {case}: no {wide_route:?} in {routes:?}"
            );
        }
    }
}

/// Every backend's bulk encoder on `SignExtended32` (protobuf `int32`,
/// `enum`) writes what the scalar `u64` encoder writes for the values
/// sign-extended to 64 bits: the same count, bytes and stopping point, for
/// runs with no, some and only negative values and for outputs cut short
/// anywhere; and `int32::encode_packed`/`put_packed` on each backend
/// write the field value by value encoding gives.
#[test]
fn sign_extended_int32_encodes_as_its_u64_on_every_backend() {
    use crate::protobuf::int32;
    use crate::varint::SignExtended32;
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    for case in 0..48usize {
        let count = [0, 1, 7, 8, 31, 32, 33, 64, 100, 257, 1000, 3000][case % 12];
        // Negative in none, 1 in 50, 1 in 10, half and all of the values;
        // the others of every length, or (every third case) all 5 bytes.
        let negative_every = [0u64, 50, 10, 2, 1][case % 5];
        let values: Vec<i32> = (0..count)
            .map(|_| {
                let r = next();
                let positive = if case % 3 == 0 {
                    // 5 bytes each: the longest non-negative varints.
                    (r as i32 | 0x1000_0000) & 0x7fff_ffff
                } else {
                    (r >> (32 + r % 32)) as i32 & 0x7fff_ffff
                };
                if negative_every != 0 && (r >> 8) % negative_every == 0 {
                    !positive
                } else {
                    positive
                }
            })
            .collect();
        let sign_extended: Vec<SignExtended32> =
            values.iter().map(|&v| SignExtended32(v)).collect();
        let wire: Vec<u64> = values.iter().map(|&v| v as i64 as u64).collect();
        let full = wire.len() * 10 + 16;
        let mut exact = alloc::vec![0u8; full];
        let exact = Backend::Scalar.encode_slice_into(&wire, &mut exact).1;
        for room in [full, exact, exact + 3, full / 2, full / 3 + 5, 9, 0] {
            let mut want = alloc::vec![0u8; room];
            let want_counts = Backend::Scalar.encode_slice_into(&wire, &mut want);
            for backend in supported() {
                // Canary bytes after the room: nothing is written there.
                let mut got = alloc::vec![0xa5u8; room + 96];
                let got_counts = backend.encode_slice_into(&sign_extended, &mut got[..room]);
                assert!(
                    got[room..].iter().all(|&b| b == 0xa5),
                    "{backend}: case {case}, room {room}: a write past the room"
                );
                assert_eq!(
                    got_counts, want_counts,
                    "{backend}: case {case}, room {room}"
                );
                assert_eq!(
                    got[..got_counts.1],
                    want[..want_counts.1],
                    "{backend}: case {case}, room {room}"
                );
            }
        }
        let mut one_by_one = Vec::new();
        for &value in &values {
            let (bytes, len) = int32::encode(value);
            one_by_one.extend_from_slice(&bytes[..usize::from(len)]);
        }
        for backend in supported() {
            let mut packed = alloc::vec![0xaa];
            let written = with_backend(backend, || int32::encode_packed(&values, &mut packed));
            let (prefix, prefix_len) = crate::encode::encode(one_by_one.len() as u64);
            assert_eq!(written, packed.len() - 1, "{backend}: case {case}");
            assert_eq!(packed[0], 0xaa, "{backend}: case {case}");
            assert_eq!(
                &packed[1..1 + usize::from(prefix_len)],
                &prefix[..usize::from(prefix_len)]
            );
            assert_eq!(
                &packed[1 + usize::from(prefix_len)..],
                &one_by_one[..],
                "{backend}: case {case}"
            );
            #[cfg(feature = "bytes")]
            {
                let mut buf = bytes::BytesMut::new();
                let put = with_backend(backend, || int32::put_packed(&values, &mut buf));
                assert_eq!(&buf[..], &packed[1..], "{backend}: case {case}");
                assert_eq!(put, buf.len(), "{backend}: case {case}");
            }
        }
    }
}

/// `decode_low_halves_uninit` on every backend that has it: the result of
/// the scalar `decode_slice::<u64>` on the same input and output length
/// (values, bytes consumed, error kind, index and offset), each value
/// narrowed to its low 32 bits; on the dispatch's inputs, negative
/// `int32`s among them, and 10th bytes that overflow.
#[test]
fn low_halves_decode_as_u64_on_every_backend() {
    use core::mem::MaybeUninit;
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    let mut cases: Vec<Vec<u8>> = inputs().into_iter().step_by(2).collect();
    for len in [20, 64, 130, 300, 1000, 5000] {
        for bad in [false, true] {
            // `int32`s, one in 8 negative (10 bytes), and with `bad` one
            // 10th byte of 2 (an overflow) near the end.
            let mut bytes = Vec::new();
            while bytes.len() < len {
                let r = next();
                let value = if r % 8 == 0 {
                    -((r >> 40) as i32) - 1
                } else {
                    (r >> (33 + r % 31)) as i32
                };
                let (varint, n) = crate::encode::encode(value as i64 as u64);
                bytes.extend_from_slice(&varint[..usize::from(n)]);
            }
            if bad {
                let at = bytes.len() - 20;
                bytes.splice(
                    at..at,
                    [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
                );
            }
            cases.push(bytes);
        }
    }
    for backend in supported()
        .into_iter()
        .filter(|b| b.has_low_halves_decoder())
    {
        for input in &cases {
            for slots in [input.len() + 1, input.len() / 3 + 1, 9] {
                let mut halves = alloc::vec![MaybeUninit::<u32>::uninit(); slots];
                let got = backend
                    .decode_low_halves_uninit(input, &mut halves)
                    .expect("a decoder");
                let mut wide = alloc::vec![MaybeUninit::<u64>::uninit(); slots];
                let want = Backend::Scalar.decode_uninit(input, &mut wide);
                assert_eq!(got, want, "{backend}: {} bytes into {slots}", input.len());
                let written = match want {
                    Ok((n, _)) => n,
                    Err(error) => error.index(),
                };
                for i in 0..written {
                    // SAFETY: both decoders initialized their first `written` slots.
                    let (half, value) = unsafe { (halves[i].assume_init(), wide[i].assume_init()) };
                    assert_eq!(
                        half,
                        value as u32,
                        "{backend}: value {i} of {} bytes",
                        input.len()
                    );
                }
            }
        }
    }
}
