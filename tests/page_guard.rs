//! The safe API never touches memory outside its slice: inputs and output
//! buffers are placed at the very end of a readable page followed by a
//! `PROT_NONE` page, so a read or write past the slice's end is a SIGSEGV
//! and kills the test; inputs are also placed at the very start of a
//! readable page that follows a `PROT_NONE` page, so a read before the
//! slice's start is one too. Single-value decoding goes through every
//! backend type, bulk decoding and encoding (outputs of 0..70 values
//! ending at the guard) through every bulk backend and the auto functions.
#![cfg(unix)]

#[macro_use]
mod common;

use common::*;

use common::differential;
use common::guarded_page::GuardedPage;
use varint_turbo::Backend as BulkBackend;

/// Reading `address` kills a forked child with SIGSEGV (or SIGBUS).
fn assert_faults(address: *const u8, what: &str) {
    // SAFETY: the child only makes async-signal-safe calls (setrlimit, a
    // volatile read, _exit) before it exits or dies.
    unsafe {
        let pid = libc::fork();
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let no_core = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &no_core);
            let _ = std::ptr::read_volatile(address);
            libc::_exit(0);
        }
        let mut status = 0;
        assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
        assert!(
            libc::WIFSIGNALED(status),
            "reading {what} did not fault (status {status:#x})"
        );
        let signal = libc::WTERMSIG(status);
        assert!(
            signal == libc::SIGSEGV || signal == libc::SIGBUS,
            "{what}: unexpected signal {signal}"
        );
    }
}

/// Both guards really fault, and the bytes next to them do not. Without
/// this the other tests could pass for the wrong reason.
#[test]
fn guard_page_really_faults() {
    let mut page = GuardedPage::new();
    page.tail(1)[0] = 0x42; // the last readable byte is fine
    page.head(1)[0] = 0x43; // and the first one
    assert_eq!(page.tail(1)[0], 0x42);
    assert_eq!(page.head(1)[0], 0x43);
    assert_eq!(page.tail(1).as_ptr_range().end, page.guard());
    assert_eq!(page.head(1).as_ptr().wrapping_sub(1), page.guard_before());
    assert_eq!(
        page.tail_of::<u64>(3).as_ptr_range().end.cast(),
        page.guard()
    );
    assert_faults(page.guard(), "the guard page after the slice");
    assert_faults(page.guard_before(), "the guard page before the slice");
}

/// Inputs whose prefixes are decoded at the end of the page: valid varints
/// of every length, non-minimal and over-long ones, truncated ones,
/// continuation runs, and 10th-byte variants; each up to 20 bytes long.
fn inputs() -> Vec<Vec<u8>> {
    let mut inputs = Vec::new();
    for len in 1..=10u32 {
        let min = if len == 1 { 0 } else { 1u64 << (7 * (len - 1)) };
        let max = if len == 10 {
            u64::MAX
        } else {
            (1u64 << (7 * len)) - 1
        };
        for value in [min, max, min | (max >> 3)] {
            // Alone, and followed by garbage so that longer prefixes exist.
            inputs.push(reference_encode(value));
            inputs.push([reference_encode(value), vec![0xff; 20]].concat());
        }
    }
    for fill in [0x80u8, 0xff, 0xc3] {
        inputs.push(vec![fill; 20]);
        for len in 1..=12 {
            inputs.push([vec![fill; len], vec![0x00], vec![0x80; 8]].concat());
        }
    }
    for tenth in [0x00u8, 0x01, 0x02, 0x7f, 0x80, 0xff] {
        inputs.push([vec![0xff; 9], vec![tenth], vec![0x01; 10]].concat());
    }
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..40 {
        let bytes = (0..20)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                (rng as u8) | if rng & 0x300 != 0 { 0x80 } else { 0 }
            })
            .collect();
        inputs.push(bytes);
    }
    inputs
}

#[test]
fn decode_never_reads_past_the_slice() {
    fn unsigned<T: TestInt>(backends: &[Backend], input: &[u8]) {
        check_decode::<T>(backends, input);
        // decode_len is also validated (API): check_decode covers it; call
        // it once more directly for clarity.
        let _ = varint_turbo::decode_len::<T>(input);
    }
    fn signed<S: TestSigned>(backends: &[Backend], input: &[u8]) {
        check_decode_zigzag::<S>(backends, input);
    }
    let backends = backends();
    let mut page = GuardedPage::new();
    let mut checked = 0;
    for input in inputs() {
        for n in 0..=input.len().min(20) {
            let tail = page.tail(n);
            tail.copy_from_slice(&input[..n]);
            let tail: &[u8] = tail;
            for_each_unsigned!(unsigned(&backends, tail));
            for_each_signed!(signed(&backends, tail));
            checked += 1;
        }
    }
    assert!(checked > 500);
}

#[test]
fn encode_to_slice_never_writes_past_the_slice() {
    fn unsigned<T: TestInt>(backends: &[Backend], page: &mut GuardedPage, value: u64) {
        let Some(v) = T::from_u64(value) else { return };
        let expected = reference_encode(value);
        let len = expected.len();
        for &backend in backends {
            // Exactly sized, and every size up to 17 (16 and more take the
            // direct path that stores whole words into the slice).
            for size in len..=17 {
                let out = page.tail(size);
                out.fill(0xee);
                assert_eq!(
                    backend.encode_to_slice(v, out),
                    len,
                    "{}: {value} into {size}",
                    backend.name()
                );
                assert_eq!(
                    &out[..len],
                    &expected[..],
                    "{}: {value} into {size}",
                    backend.name()
                );
            }
        }
    }
    fn signed<S: TestSigned>(backends: &[Backend], page: &mut GuardedPage, value: i64) {
        let Some(v) = S::from_i64(value) else { return };
        let expected = reference_encode(reference_zigzag_encode(v).as_u64());
        let len = expected.len();
        for &backend in backends {
            for size in [len, 16] {
                let size = size.max(len);
                let out = page.tail(size);
                assert_eq!(
                    backend.encode_zigzag_to_slice(v, out),
                    len,
                    "{}: zigzag {value}",
                    backend.name()
                );
                assert_eq!(
                    &out[..len],
                    &expected[..],
                    "{}: zigzag {value}",
                    backend.name()
                );
            }
        }
    }
    let backends = backends();
    let mut page = GuardedPage::new();
    let mut values: Vec<u64> = vec![0, u64::MAX];
    for k in 1..=9 {
        let p = 1u64 << (7 * k);
        values.extend([p - 1, p, p + 1]);
    }
    values.extend((0..64).map(|i| 1u64 << i));
    for &value in &values {
        for_each_unsigned!(unsigned(&backends, &mut page, value));
        for v in [value as i64, (value as i64).wrapping_neg(), !(value as i64)] {
            for_each_signed!(signed(&backends, &mut page, v));
        }
    }
}

/// `decode_unchecked` reads exactly 16 bytes: 16 bytes that end at the guard
/// page are enough.
#[test]
fn decode_unchecked_reads_only_16_bytes() {
    fn one<T: TestInt>(backends: &[Backend], window: &[u8; 16]) {
        check_decode_unchecked::<T>(backends, window);
    }
    let backends = backends();
    let mut page = GuardedPage::new();
    let guard = page.guard();
    for input in inputs() {
        for pad in [0x00u8, 0xff] {
            let tail = page.tail(16);
            tail.copy_from_slice(&padded(&input, pad));
            let window: &[u8; 16] = (&*tail).try_into().unwrap();
            assert_eq!(window.as_ptr_range().end, guard);
            for_each_unsigned!(one(&backends, window));
        }
    }
}

/// The decoders never read before the input's start: every prefix of every
/// input of `inputs()` placed right after the leading guard page, through
/// every single-value backend (`decode`, `decode_len`, `decode_zigzag`), and
/// `decode_unchecked` on 16 bytes that start there.
#[test]
fn decode_never_reads_before_the_slice() {
    fn unsigned<T: TestInt>(backends: &[Backend], input: &[u8]) {
        check_decode::<T>(backends, input);
    }
    fn signed<S: TestSigned>(backends: &[Backend], input: &[u8]) {
        check_decode_zigzag::<S>(backends, input);
    }
    fn unchecked<T: TestInt>(backends: &[Backend], window: &[u8; 16]) {
        check_decode_unchecked::<T>(backends, window);
    }
    let backends = backends();
    let mut page = GuardedPage::new();
    let guard_before = page.guard_before();
    let mut checked = 0;
    for input in inputs() {
        for n in 0..=input.len().min(20) {
            let head = page.head(n);
            head.copy_from_slice(&input[..n]);
            let head: &[u8] = head;
            for_each_unsigned!(unsigned(&backends, head));
            for_each_signed!(signed(&backends, head));
            checked += 1;
        }
        for pad in [0x00u8, 0xff] {
            let head = page.head(16);
            head.copy_from_slice(&padded(&input, pad));
            let window: &[u8; 16] = (&*head).try_into().unwrap();
            assert_eq!(window.as_ptr().wrapping_sub(1), guard_before);
            for_each_unsigned!(unchecked(&backends, window));
        }
    }
    assert!(checked > 500);
}

/// A deterministic stream of varints of mixed lengths (1 to 10 bytes, runs
/// of 1-byte ones), `count` values, as `u64`s and their encoding.
fn mixed_values(count: usize, mut seed: u64) -> Vec<u64> {
    (0..count)
        .map(|i| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            if i % 5 < 2 {
                seed & 0x7f
            } else {
                seed >> (seed % 64)
            }
        })
        .collect()
}

fn encode_all(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|&v| reference_encode(v)).collect()
}

/// The bulk decoders never read before the input's start: streams of mixed
/// varints (valid, with an overflowing one, and truncated) of every length
/// up to 130 bytes placed right after the leading guard page, through every
/// bulk backend and the auto functions, every type, zigzag too.
#[test]
fn bulk_decode_never_reads_before_the_input() {
    fn unsigned<T: TestInt>(backends: &[BulkBackend], input: &[u8]) {
        differential::check_decode_slice::<T>(backends, input, input.len());
        differential::check_decode_slice::<T>(backends, input, input.len() / 3);
    }
    fn signed<S: TestSigned>(input: &[u8]) {
        differential::check_decode_slice_zigzag::<S>(input, input.len());
    }
    let backends = differential::bulk_backends();
    let mut page = GuardedPage::new();
    let mut streams = Vec::new();
    for seed in 1..=4u64 {
        streams.push(encode_all(&mixed_values(60, seed)));
    }
    // An 11-byte run (overflow for every type) in the middle, and a
    // truncated varint at the end.
    let mut bad = encode_all(&mixed_values(20, 9));
    bad.extend([0xff; 11]);
    bad.extend(encode_all(&mixed_values(20, 10)));
    bad.push(0x80);
    streams.push(bad);
    streams.push(vec![0x01; 130]);
    for stream in &streams {
        for n in 0..=stream.len().min(130) {
            let head = page.head(n);
            head.copy_from_slice(&stream[stream.len() - n..]);
            let head: &[u8] = head;
            for_each_unsigned!(unsigned(&backends, head));
            for_each_signed!(signed(head));
            for &backend in &backends {
                assert_eq!(
                    backend.count_varints(head),
                    head.iter().filter(|&&b| b < 0x80).count(),
                    "{backend}"
                );
            }
            assert_eq!(
                varint_turbo::count_varints(head),
                head.iter().filter(|&&b| b < 0x80).count()
            );
        }
    }
}

/// `decode_slice::<T>` of `input` into `out_len` slots that end right
/// before the guard page, through every bulk backend and the auto
/// function, against repeated reference decodes.
fn decode_into_guarded_output<T: TestInt + Default>(
    backends: &[BulkBackend],
    page: &mut GuardedPage,
    input: &[u8],
    out_len: usize,
) {
    let expected = differential::repeated_decode(input, out_len, reference_decode::<T>);
    for &backend in backends {
        let out = page.tail_of::<T>(out_len);
        let got = backend.decode_slice(input, out);
        let what = format!("{backend}: decode_slice::<{}>", T::NAME);
        differential::check_bulk_outcome(&what, input, out_len, &expected, got, out);
    }
    let out = page.tail_of::<T>(out_len);
    let got = varint_turbo::decode_slice(input, out);
    let what = format!("decode_slice::<{}>", T::NAME);
    differential::check_bulk_outcome(&what, input, out_len, &expected, got, out);
}

/// The bulk decoders never write past the output slice: outputs of 0..70
/// values of every type ending right before the guard page, from inputs
/// with more values than that (and with an error after some of them),
/// through every bulk backend and `decode_slice`; `decode_slice_zigzag`
/// likewise for every signed type.
#[test]
fn bulk_decode_never_writes_past_the_output() {
    fn unsigned<T: TestInt + Default>(backends: &[BulkBackend], page: &mut GuardedPage) {
        for (round, seed) in (1..=3u64).enumerate() {
            let values: Vec<u64> = mixed_values(90, seed)
                .into_iter()
                .map(|v| T::from_u64_wrapping(v).as_u64())
                .collect();
            let mut input = encode_all(&values);
            if round == 2 {
                // An error after 40 values: overflow for every type.
                let at = encode_all(&values[..40]).len();
                input.splice(at..at, [0xff; 11]);
            }
            for out_len in 0..70 {
                decode_into_guarded_output::<T>(backends, page, &input, out_len);
            }
        }
    }
    fn signed<S: TestSigned + Default>(page: &mut GuardedPage) {
        for seed in 4..=5u64 {
            let values: Vec<u64> = mixed_values(90, seed)
                .into_iter()
                .map(|v| S::Unsigned::from_u64_wrapping(v).as_u64())
                .collect();
            let input = encode_all(&values);
            for out_len in 0..70 {
                let expected =
                    differential::repeated_decode(&input, out_len, reference_decode_zigzag::<S>);
                let out = page.tail_of::<S>(out_len);
                let got = varint_turbo::decode_slice_zigzag(&input, out);
                let what = format!("decode_slice_zigzag::<{}>", S::NAME);
                differential::check_bulk_outcome(&what, &input, out_len, &expected, got, out);
            }
        }
    }
    let backends = differential::bulk_backends();
    let mut page = GuardedPage::new();
    for_each_unsigned!(unsigned(&backends, &mut page));
    for_each_signed!(signed(&mut page));
}

/// Short inputs (17 to 127 bytes: the AVX-512 backend's masked last chunk,
/// the SSSE3/AVX2 blocks over a padded copy, the scalar blocks) of every
/// field shape, into outputs of every length
/// from 0 to one past the values ending right before the guard page:
/// 1-byte runs, 1- and 2-byte varints, up to 4 and up to 5 bytes, long
/// varints, a truncated last one; through every bulk backend and
/// `decode_slice`, every type.
#[test]
fn short_bulk_decodes_never_write_past_the_output() {
    fn unsigned<T: TestInt + Default>(backends: &[BulkBackend], page: &mut GuardedPage) {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..240 {
            // Bits per value: up to 7, 14, 28, 35 or 64 (by round).
            let max_bits = [7, 14, 28, 35, 64][round % 5];
            let mut input = Vec::new();
            let target = 17 + round % 111;
            while input.len() < target {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let bits = 1 + seed % max_bits;
                let value = T::from_u64_wrapping(seed >> (64 - bits)).as_u64();
                input.extend(reference_encode(value));
            }
            input.truncate(127);
            if round % 7 == 3 {
                input.push(0x80); // a truncated last varint
            }
            let values = input.iter().filter(|&&byte| byte < 0x80).count();
            for out_len in 0..=values + 1 {
                decode_into_guarded_output::<T>(backends, page, &input, out_len);
            }
        }
    }
    let backends = differential::bulk_backends();
    let mut page = GuardedPage::new();
    for_each_unsigned!(unsigned(&backends, &mut page));
}

/// How many of the encodings fit whole into `room` bytes, and their bytes.
fn fitting(encodings: &[Vec<u8>], room: usize) -> (usize, usize) {
    let mut bytes = 0;
    for (i, encoding) in encodings.iter().enumerate() {
        if bytes + encoding.len() > room {
            return (i, bytes);
        }
        bytes += encoding.len();
    }
    (encodings.len(), bytes)
}

/// The rooms an encode of `total` bytes is tried with: exact, one short,
/// about half, and none.
fn rooms(total: usize) -> Vec<usize> {
    let mut rooms = vec![total, total.saturating_sub(1), total / 2, 0];
    rooms.dedup();
    rooms
}

/// The bulk encoders never write past the output slice: 0..70 values of
/// every type, encoded into an output that ends right before the guard
/// page (exactly the encoding's size, a byte short, half of it, nothing),
/// through every bulk backend's and the auto `encode_slice_into`, and
/// `encode_slice_zigzag_into` for every signed type.
#[test]
fn bulk_encode_never_writes_past_the_output() {
    fn unsigned<T: TestInt>(backends: &[BulkBackend], page: &mut GuardedPage) {
        let all: Vec<T> = mixed_values(70, 11)
            .into_iter()
            .map(T::from_u64_wrapping)
            .collect();
        for count in 0..70 {
            let values = &all[..count];
            let encodings: Vec<Vec<u8>> = values
                .iter()
                .map(|v| reference_encode(v.as_u64()))
                .collect();
            let expected: Vec<u8> = encodings.concat();
            for room in rooms(expected.len()) {
                let want = fitting(&encodings, room);
                for &backend in backends {
                    let out = page.tail(room);
                    assert_eq!(
                        backend.encode_slice_into(values, out),
                        want,
                        "{backend}: encode_slice_into::<{}> of {count} values into {room} bytes",
                        T::NAME
                    );
                    assert_eq!(out[..want.1], expected[..want.1], "{backend}");
                }
                let out = page.tail(room);
                assert_eq!(
                    varint_turbo::encode_slice_into(values, out),
                    want,
                    "encode_slice_into::<{}> of {count} values into {room} bytes",
                    T::NAME
                );
                assert_eq!(out[..want.1], expected[..want.1]);
            }
        }
    }
    fn signed<S: TestSigned>(page: &mut GuardedPage) {
        let all: Vec<S> = mixed_values(70, 12)
            .into_iter()
            .map(|v| S::from_i64_wrapping(v as i64))
            .collect();
        for count in 0..70 {
            let values = &all[..count];
            let encodings: Vec<Vec<u8>> = values
                .iter()
                .map(|&v| reference_encode(reference_zigzag_encode(v).as_u64()))
                .collect();
            let expected: Vec<u8> = encodings.concat();
            for room in rooms(expected.len()) {
                let want = fitting(&encodings, room);
                let out = page.tail(room);
                assert_eq!(
                    varint_turbo::encode_slice_zigzag_into(values, out),
                    want,
                    "encode_slice_zigzag_into::<{}> of {count} values into {room} bytes",
                    S::NAME
                );
                assert_eq!(out[..want.1], expected[..want.1]);
            }
        }
    }
    let backends = differential::bulk_backends();
    let mut page = GuardedPage::new();
    for_each_unsigned!(unsigned(&backends, &mut page));
    for_each_signed!(signed(&mut page));
}

/// The `delta` functions never read outside the input nor write past the
/// output: streams of mixed gaps (valid, with an overflowing one,
/// truncated, all 1-byte) of every length up to 130 bytes and some longer,
/// placed right after the leading guard page and right before the trailing
/// one, decoded (`decode_slice` into outputs that end right before a guard
/// page, `select`, `search`) and re-encoded (`encode_slice_into` into
/// every room up to the encoding's, ending right before a guard page),
/// through every bulk backend and the API, `u32` and `u64`.
#[test]
fn delta_never_touches_memory_outside_its_slices() {
    use common::delta::{check_delta_decodes, reference_decode_delta, TestDelta};
    fn one<T: TestDelta + Default>(
        backends: &[BulkBackend],
        input: &[u8],
        outputs: &mut GuardedPage,
    ) {
        let previous = T::from_u64_wrapping(u64::MAX - 1000);
        let count = input.iter().filter(|&&b| b < 0x80).count();
        let (values, _) = reference_decode_delta(input, usize::MAX, previous);
        let key = values.get(count / 2).copied().unwrap_or(previous);
        check_delta_decodes::<T>(backends, input, count, previous, count / 2, key);
        for out_len in [0, 1, count / 2, count.saturating_sub(1), count, count + 1] {
            let expected = reference_decode_delta(input, out_len, previous);
            for &backend in backends {
                let out = outputs.tail_of::<T>(out_len);
                let got = backend.decode_slice_delta(input, out, previous);
                let what = format!("{backend}: decode_slice_delta::<{}>", T::NAME);
                differential::check_bulk_outcome(&what, input, out_len, &expected, got, out);
            }
            let out = outputs.tail_of::<T>(out_len);
            let got = varint_turbo::delta::decode_slice(input, out, previous);
            let what = format!("delta::decode_slice::<{}>", T::NAME);
            differential::check_bulk_outcome(&what, input, out_len, &expected, got, out);
        }
        let mut encoding = Vec::new();
        varint_turbo::delta::encode_slice(&values, &mut encoding, previous);
        for room in (0..=encoding.len()).step_by(1 + encoding.len() / 40) {
            let want = varint_turbo::Backend::Scalar.encode_slice_delta_into(
                &values,
                &mut vec![0; room],
                previous,
            );
            for &backend in backends {
                let out = outputs.tail(room);
                let got = backend.encode_slice_delta_into(&values, out, previous);
                assert_eq!(got, want, "{backend}: encode_slice_delta_into, room {room}");
                assert_eq!(&out[..got.1], &encoding[..got.1], "{backend}, room {room}");
            }
            let out = outputs.tail(room);
            let got = varint_turbo::delta::encode_slice_into(&values, out, previous);
            assert_eq!(got, want, "delta::encode_slice_into, room {room}");
        }
    }
    let backends = differential::bulk_backends();
    let mut inputs = GuardedPage::new();
    let mut outputs = GuardedPage::new();
    let mut streams = Vec::new();
    for seed in 1..=3u64 {
        streams.push(encode_all(&mixed_values(150, seed)));
    }
    let mut bad = encode_all(&mixed_values(30, 9));
    bad.extend([0xff; 11]);
    bad.extend(encode_all(&mixed_values(30, 10)));
    bad.push(0x80);
    streams.push(bad);
    streams.push(vec![0x01; 300]);
    for stream in &streams {
        let lengths = (0..=stream.len().min(130)).chain((131..=stream.len()).step_by(17));
        for n in lengths {
            let head = inputs.head(n);
            head.copy_from_slice(&stream[stream.len() - n..]);
            one::<u32>(&backends, head, &mut outputs);
            one::<u64>(&backends, head, &mut outputs);
            let tail = inputs.tail(n);
            tail.copy_from_slice(&stream[..n]);
            one::<u32>(&backends, tail, &mut outputs);
            one::<u64>(&backends, tail, &mut outputs);
        }
    }
}
