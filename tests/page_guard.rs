//! The safe API never touches memory outside its slice: inputs and output
//! buffers are placed at the very end of a readable page followed by a
//! `PROT_NONE` page, so a read or write past the slice's end is a SIGSEGV
//! and kills the test.
#![cfg(unix)]

#[macro_use]
mod common;

use common::*;

use common::guarded_page::GuardedPage;

/// The guard really faults: a forked child that reads the guard page's
/// first byte dies of SIGSEGV (or SIGBUS). Without this the other tests
/// could pass for the wrong reason.
#[test]
fn guard_page_really_faults() {
    let mut page = GuardedPage::new();
    page.tail(1)[0] = 0x42; // the last readable byte is fine
    let guard = page.guard();
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
            let _ = std::ptr::read_volatile(guard);
            libc::_exit(0);
        }
        let mut status = 0;
        assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
        assert!(
            libc::WIFSIGNALED(status),
            "reading the guard page did not fault (status {status:#x})"
        );
        let signal = libc::WTERMSIG(status);
        assert!(
            signal == libc::SIGSEGV || signal == libc::SIGBUS,
            "unexpected signal {signal}"
        );
    }
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
