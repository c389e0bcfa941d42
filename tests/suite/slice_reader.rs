//! `SliceReader` against `decode`, `decode_wrapping`, `decode_zigzag` and
//! `decode_zigzag_wrapping` on the remaining slice after every read
//! (`common::differential::check_slice_reader_walk`, the fuzz target's
//! oracle): random streams of varints of every length, valid and invalid,
//! read by random sequences of every read kind and type; and the same
//! walks on inputs that end right before a guard page or start right after
//! one, at every distance from the end, so that a read outside the slice
//! faults.

use crate::common;

use common::differential::check_slice_reader_walk;
use common::{reference_encode, xorshift};
use varint_turbo::{DecodeError, SliceReader};

/// A stream of `count` varints from `next`: mostly valid ones of every
/// length (1-byte runs, 2-3 bytes, 4-10 bytes), with invalid ones mixed
/// in: 11-byte continuation runs, 10-byte varints with each kind of 10th
/// byte, overlong zeros, and (if `truncate`) a cut-off varint at the end.
fn stream(next: &mut impl FnMut() -> u64, count: usize, truncate: bool) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..count {
        let r = next();
        match r % 16 {
            0..=5 => bytes.push((r >> 8) as u8 & 0x7f),
            6..=8 => bytes.extend(reference_encode((r >> 8) & 0x1f_ffff)),
            9..=11 => bytes.extend(reference_encode(r >> (r >> 58))),
            12 => bytes.extend([0xff; 11]),
            13 => {
                let tenth = [0x00, 0x01, 0x02, 0x7f, 0x80][(r >> 8) as usize % 5];
                bytes.extend([0xff; 9]);
                bytes.push(tenth);
            }
            14 => bytes.extend([0x80, 0x80, 0x00]),
            _ => bytes.extend(reference_encode(u64::from((r >> 8) as u32 | 0x8000_0000))),
        }
    }
    if truncate {
        bytes.extend([0x80, 0xff, 0x80]);
    }
    bytes
}

#[test]
fn reads_equal_decode_on_the_remaining_slice() {
    let mut next = xorshift(0x5eed_0044);
    let mut walks = 0;
    for count in 0..120 {
        for truncate in [false, true] {
            let input = stream(&mut next, count, truncate);
            for seed in 0..6 {
                check_slice_reader_walk(&input, next() ^ seed);
                walks += 1;
            }
        }
    }
    // Long inputs: most reads far from the end.
    for _ in 0..20 {
        let input = stream(&mut next, 3000, true);
        check_slice_reader_walk(&input, next());
        walks += 1;
    }
    assert!(walks > 1400);
}

/// Every prefix and every suffix of every stream (reads at every distance
/// from the end, and from every start), through `read::<u64>` alone: what
/// the benches and most parsers call.
#[test]
fn read_u64_walks_equal_repeated_decode() {
    let mut next = xorshift(0x44);
    for count in [1, 5, 17, 40] {
        let input = stream(&mut next, count, true);
        for start in 0..input.len() {
            for end in start..=input.len() {
                let slice = &input[start..end];
                let mut reader = SliceReader::new(slice);
                let mut pos = 0;
                loop {
                    let want = varint_turbo::decode::<u64>(&slice[pos..]);
                    assert_eq!(
                        reader.read::<u64>(),
                        want.map(|(v, _)| v),
                        "{slice:02x?} at {pos}"
                    );
                    match want {
                        Ok((_, len)) => pos += len,
                        Err(_) => break,
                    }
                    assert_eq!(reader.position(), pos);
                }
                assert_eq!(reader.position(), pos);
            }
        }
    }
}

#[test]
fn empty_input() {
    let mut reader = SliceReader::new(&[]);
    assert!(reader.is_empty());
    assert_eq!(reader.read::<u64>(), Err(DecodeError::Truncated));
    assert_eq!(
        reader.read_zigzag_wrapping::<i32>(),
        Err(DecodeError::Truncated)
    );
    assert_eq!(reader.read_bytes(0), Ok(&[][..]));
    assert_eq!(reader.read_bytes(1), Err(DecodeError::Truncated));
    assert_eq!((reader.position(), reader.remaining()), (0, &[][..]));
    assert_eq!(
        format!("{reader:?}"),
        "SliceReader { position: 0, remaining: 0 }"
    );
}

#[cfg(unix)]
mod page_edges {
    use super::*;
    use common::guarded_page::GuardedPage;

    /// Every suffix of every stream placed so that it ends right before
    /// the guard page (reads at every distance from the end of a buffer
    /// that ends at the guard), and every prefix placed right after the
    /// leading guard page, walked with every read kind.
    #[test]
    fn walks_never_leave_the_slice() {
        let mut next = xorshift(0x9a6e);
        let mut page = GuardedPage::new();
        let (guard, guard_before) = (page.guard(), page.guard_before());
        let mut walks = 0;
        for count in [3, 12, 30, 70] {
            for truncate in [false, true] {
                let input = stream(&mut next, count, truncate);
                for n in 0..=input.len() {
                    let tail = page.tail(n);
                    tail.copy_from_slice(&input[input.len() - n..]);
                    let tail: &[u8] = tail;
                    assert_eq!(tail.as_ptr_range().end, guard);
                    for seed in 0..3 {
                        check_slice_reader_walk(tail, next() ^ seed);
                    }
                    let head = page.head(n);
                    head.copy_from_slice(&input[..n]);
                    let head: &[u8] = head;
                    assert_eq!(head.as_ptr().wrapping_sub(1), guard_before);
                    check_slice_reader_walk(head, next());
                    walks += 4;
                }
            }
        }
        assert!(walks > 1000);
    }

    /// A reader over a whole page-sized buffer ending at the guard, with
    /// 10-byte varints and continuation runs in its last 16 bytes: the
    /// window reads stop exactly where the input's last 16 bytes begin.
    #[test]
    fn a_long_buffer_up_to_the_guard() {
        let mut page = GuardedPage::new();
        for last in [[0xffu8; 16], [0x80; 16], [0x01; 16]] {
            for filler_len in [0, 1, 15, 16, 17, 100, 4000] {
                let mut input = [0x96, 0x01].repeat(filler_len / 2);
                input.extend(last);
                let tail = page.tail(input.len());
                tail.copy_from_slice(&input);
                let tail: &[u8] = tail;
                check_slice_reader_walk(tail, filler_len as u64);
                let mut reader = SliceReader::new(tail);
                while reader.read_wrapping::<u64>().is_ok() {}
                assert_eq!(
                    reader.read_wrapping::<u64>(),
                    varint_turbo::decode_wrapping::<u64>(reader.remaining()).map(|(v, _)| v)
                );
            }
        }
    }
}
