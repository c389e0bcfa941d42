//! [`SliceReader`]: a parse cursor over `&[u8]` whose reads far from the
//! end take no bounds check of their own, as protobuf C++'s `VarintParse`
//! reads from a parse context that keeps 16 readable bytes past every
//! read.
//!
//! **The shape.** A read first tests the byte at the position: if it is
//! inside the input (`pos < len`) and ends a varint, that is the value. In
//! a loop `while !reader.is_empty() { reader.read()? }` the first test is
//! the loop's own (`is_empty` is `pos >= len`), which the compiler merges,
//! so a 1-byte varint costs one load, the continuation-bit test and an
//! add: the loop of protobuf C++'s `VarintParse` (BENCHMARKS.md,
//! "SliceReader: parse loops"). Longer varints compare the position with a
//! limit computed once in `new` (`tail_start = len - 16`, a predicted
//! branch off the dependency chain): below it, 16 bytes from the position
//! are in the input, a 2-byte varint is finished on a path of its own (a
//! load and a test, as `VarintParse`'s), and longer ones take `decode`'s
//! portable 3-byte test and kernel on that window with no length checks;
//! at or above it (a
//! buffer's last 16 bytes), the same code runs on the remaining slice, with
//! its length checks (a shorter input is decoded as one zero-padded word).
//! Neither path takes the routine in assembly that `decode` calls on
//! x86-64 (`arch::x86_64::longer_call`): that call suits a host's
//! out-of-line read function, but in the reader's own loop it took the
//! 95x1+5x2 shape from 1.21-1.41 to 0.71-0.80 G values/s, and in the last
//! 16 bytes `int32`s with negatives ran at 0.81 of C++'s rate against 0.91
//! inlined (Zen 3, 2026-11-30).
//!
//! **Exactness.** Both paths are `decode` (or `decode_wrapping`) on the
//! remaining bytes, or on their first 16 when more than 16 remain, which
//! `decode` itself decodes from (by the portable code, which the tests
//! hold to the same reference as the routine): values,
//! lengths and errors are those of `decode` on the remaining slice, and an
//! error returns before the position moves.
//!
//! **Tried.** A padded copy of the last 16 bytes inside the reader, read
//! through a conditional move of the window's address (C++'s patch
//! buffer), so that no read tests the end: the copy's address kept the
//! whole reader in memory (a store of the position per read) and the
//! 1-byte loop ran at half this one's speed (0.81 vs 1.62 G values/s,
//! Zen 3 host, 2026-11-29).

use core::fmt;

use crate::decode::{decode_portable, decode_wrapping_portable};
use crate::error::DecodeError;
use crate::varint::VarInt;
use crate::zigzag::ZigZag;

/// The bytes of the kernels' window (`arch::window`): a read with at least
/// this many bytes after its position decodes from them without checks.
const WINDOW: usize = 16;

/// A cursor over a byte slice that reads varints one after another, as a
/// protobuf runtime or a hand-written parser walks a message.
///
/// Each read returns exactly what [`decode`](crate::decode),
/// [`decode_zigzag`](crate::decode_zigzag) or
/// [`decode_wrapping`](crate::decode_wrapping) returns on the
/// [`remaining`](Self::remaining) bytes, and moves past the varint. **On
/// an error the position does not move**, so [`position`](Self::position)
/// is where the bad varint starts and [`remaining`](Self::remaining)
/// begins with it.
///
/// Reads are faster than `decode(&buf[pos..])` in a loop: there is no
/// slice to make and no `(value, length)` pair to add up; a 1-byte varint
/// is one test of the end (in a `while !reader.is_empty()` loop, the
/// loop's own test) and one of its continuation bit, and a longer one far
/// from the end is decoded from the next 16 bytes with no length checks
/// (the distance to the end is compared with a limit that
/// [`new`](Self::new) computes once). The last 16 bytes of the input are
/// read by the checked `decode`.
///
/// ```
/// use varint_turbo::{DecodeError, SliceReader};
///
/// // A protobuf message: field 1 (varint) = 150, field 2 (bytes) = "hi".
/// let message = [0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i'];
/// let mut reader = SliceReader::new(&message);
/// assert_eq!(reader.read::<u32>(), Ok(0x08)); // tag: field 1, varint
/// assert_eq!(reader.read::<u64>(), Ok(150));
/// assert_eq!(reader.read::<u32>(), Ok(0x12)); // tag: field 2, length-delimited
/// let len = reader.read::<u32>()? as usize;
/// assert_eq!(reader.read_bytes(len), Ok(&b"hi"[..]));
/// assert!(reader.is_empty());
///
/// // Errors leave the position where the bad varint starts.
/// let mut reader = SliceReader::new(&[0x01, 0xff]);
/// assert_eq!(reader.read::<u8>(), Ok(1));
/// assert_eq!(reader.read::<u8>(), Err(DecodeError::Truncated));
/// assert_eq!(reader.position(), 1);
/// assert_eq!(reader.remaining(), &[0xff]);
/// # Ok::<(), DecodeError>(())
/// ```
#[derive(Clone)]
pub struct SliceReader<'a> {
    input: &'a [u8],
    /// Bytes consumed. Invariant: `pos <= input.len()`.
    pos: usize,
    /// `input.len() - 16`, or 0 for inputs of at most 16 bytes: below it,
    /// the 16 bytes from `pos` on are inside the input.
    tail_start: usize,
}

impl<'a> SliceReader<'a> {
    /// A reader at the start of `input`.
    ///
    /// ```
    /// let reader = varint_turbo::SliceReader::new(&[0x96, 0x01]);
    /// assert_eq!((reader.position(), reader.remaining()), (0, &[0x96, 0x01][..]));
    /// ```
    #[inline]
    #[must_use]
    pub const fn new(input: &'a [u8]) -> Self {
        SliceReader {
            input,
            pos: 0,
            tail_start: input.len().saturating_sub(WINDOW),
        }
    }

    /// The 16 bytes from the position on, if they are all in the input and
    /// at least one more follows (`pos < tail_start`); else `None` (the
    /// last 16 bytes).
    #[inline(always)]
    fn window(&self) -> Option<&'a [u8; WINDOW]> {
        if self.pos < self.tail_start {
            // `pos < tail_start`, so `tail_start` is `len - 16` (it is 0
            // otherwise) and `pos + 16 < len`.
            // SAFETY: so the 16 bytes at `input[pos..]` are in bounds,
            // initialized `u8`s (alignment 1), borrowed for `'a`.
            Some(unsafe { &*self.input.as_ptr().add(self.pos).cast::<[u8; WINDOW]>() })
        } else {
            None
        }
    }

    /// The byte at the position if it ends a varint (a 1-byte varint);
    /// moves past it.
    #[inline(always)]
    fn read_byte(&mut self) -> Option<u64> {
        // `get` compares `pos` with the length: in a `while !is_empty()`
        // loop, the same comparison as the loop's, which the compiler
        // merges.
        match self.input.get(self.pos) {
            Some(&byte) if byte < 0x80 => {
                self.pos += 1;
                Some(u64::from(byte))
            }
            _ => None,
        }
    }

    /// Reads the varint at the position, whose first byte continues (the
    /// caller's 1-byte test failed), and moves past it if it succeeds: a
    /// 2-byte varint far from the end through `two_bytes` (its 14 bits),
    /// else `decode` on the window, or on the remaining slice near the end.
    ///
    /// The 2-byte case has its own path, a load, a test and its own
    /// position update, as protobuf C++'s `VarintParse` has it: through
    /// `decode`'s 2- and 3-byte tests, whose exits the compiler merged (a
    /// shift by a length-dependent count and two more jumps), a 2-byte
    /// value took about 23 instructions in the reader's loop (callgrind,
    /// `int32-neg10`, default build).
    #[inline(always)]
    fn read_with<T>(
        &mut self,
        two_bytes: impl Fn(u64) -> Result<T, DecodeError>,
        decode: impl Fn(&[u8]) -> Result<(T, usize), DecodeError>,
    ) -> Result<T, DecodeError> {
        let (value, len) = match self.window() {
            Some(window) => {
                if window[1] < 0x80 {
                    // Byte 0 continues (the caller's test), byte 1 ends.
                    let value = two_bytes(u64::from(window[0] & 0x7f) | u64::from(window[1]) << 7)?;
                    self.pos += 2;
                    return Ok(value);
                }
                decode(window)?
            }
            None => decode(self.remaining())?,
        };
        self.pos += len;
        Ok(value)
    }

    /// Reads one varint into `T` with the rules of [`decode`](crate::decode)
    /// and moves past it.
    ///
    /// Fails with [`DecodeError::Truncated`] at the end of the input or if
    /// it ends inside the varint, and with [`DecodeError::Overflow`] if the
    /// value does not fit `T` or the varint is longer than
    /// [`T::MAX_LEN`](VarInt::MAX_LEN); on an error the position does not
    /// move.
    ///
    /// ```
    /// use varint_turbo::{DecodeError, SliceReader};
    /// let mut reader = SliceReader::new(&[0xac, 0x02, 0x80, 0x02]);
    /// assert_eq!(reader.read::<u16>(), Ok(300));
    /// assert_eq!(reader.read::<u8>(), Err(DecodeError::Overflow));
    /// assert_eq!(reader.read::<u16>(), Ok(256));
    /// assert_eq!(reader.read::<u16>(), Err(DecodeError::Truncated));
    /// ```
    #[inline(always)]
    pub fn read<T: VarInt>(&mut self) -> Result<T, DecodeError> {
        if let Some(byte) = self.read_byte() {
            // Seven bits fit every `VarInt` type.
            return Ok(T::from_u64_unchecked(byte));
        }
        self.read_longer()
    }

    /// [`read`](Self::read) past its 1-byte test, kept apart so that the
    /// test is always inlined into the caller's loop and the rest is left
    /// to the inliner (as `decode` does).
    #[inline]
    fn read_longer<T: VarInt>(&mut self) -> Result<T, DecodeError> {
        self.read_with(
            |value| crate::varint::narrow::<T>(value, 2).map(|(value, _)| value),
            decode_portable::<T>,
        )
    }

    /// Reads one varint with the rules of
    /// [`decode_wrapping`](crate::decode_wrapping) (at most 10 bytes, the
    /// low `T::BITS` bits kept, as protobuf C++ reads `int32`) and moves
    /// past it; on an error the position does not move. On valid input it
    /// runs [`read`](Self::read)'s code.
    ///
    /// ```
    /// use varint_turbo::SliceReader;
    /// // int32 -1 as protobuf writes it: ten bytes.
    /// let bytes = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x07];
    /// let mut reader = SliceReader::new(&bytes);
    /// assert_eq!(reader.read_wrapping::<u32>().map(|v| v as i32), Ok(-1));
    /// assert_eq!(reader.read_wrapping::<u32>(), Ok(7));
    /// ```
    #[inline(always)]
    pub fn read_wrapping<T: VarInt>(&mut self) -> Result<T, DecodeError> {
        if let Some(byte) = self.read_byte() {
            return Ok(T::from_u64_unchecked(byte));
        }
        self.read_wrapping_longer()
    }

    /// [`read_wrapping`](Self::read_wrapping) past its 1-byte test.
    #[inline]
    fn read_wrapping_longer<T: VarInt>(&mut self) -> Result<T, DecodeError> {
        // The low `T::BITS` bits, as `decode_wrapping` keeps them.
        self.read_with(
            |value| Ok(T::from_u64_unchecked(value)),
            decode_wrapping_portable::<T>,
        )
    }

    /// Reads one zigzag varint (protobuf `sint32`/`sint64`, Avro
    /// `int`/`long`) into the signed `T` with the rules of
    /// [`decode_zigzag`](crate::decode_zigzag); otherwise as
    /// [`read`](Self::read).
    ///
    /// ```
    /// let mut reader = varint_turbo::SliceReader::new(&[0x03, 0xfe, 0x01]);
    /// assert_eq!(reader.read_zigzag::<i32>(), Ok(-2));
    /// assert_eq!(reader.read_zigzag::<i64>(), Ok(127));
    /// ```
    #[inline(always)]
    pub fn read_zigzag<T: ZigZag>(&mut self) -> Result<T, DecodeError> {
        self.read::<T::Unsigned>().map(T::zigzag_decode)
    }

    /// Reads one zigzag varint with the rules of
    /// [`decode_zigzag_wrapping`](crate::decode_zigzag_wrapping): the low
    /// `T::BITS` bits of a varint of at most 10 bytes, then zigzag
    /// (protobuf C++'s `sint32`); otherwise as
    /// [`read_wrapping`](Self::read_wrapping).
    ///
    /// ```
    /// // 2^32 + 3: the low 32 bits are 3, zigzag -2.
    /// let mut reader = varint_turbo::SliceReader::new(&[0x83, 0x80, 0x80, 0x80, 0x10]);
    /// assert_eq!(reader.read_zigzag_wrapping::<i32>(), Ok(-2));
    /// ```
    #[inline(always)]
    pub fn read_zigzag_wrapping<T: ZigZag>(&mut self) -> Result<T, DecodeError> {
        self.read_wrapping::<T::Unsigned>().map(T::zigzag_decode)
    }

    /// Returns the next `len` bytes and moves past them (the payload of a
    /// length-delimited field: strings, bytes, sub-messages, packed
    /// fields); fails with [`DecodeError::Truncated`], without moving, if
    /// fewer than `len` bytes remain. `read_bytes(n).map(drop)` skips `n`
    /// bytes.
    ///
    /// ```
    /// use varint_turbo::{DecodeError, SliceReader};
    /// let mut reader = SliceReader::new(&[0x02, b'h', b'i', 0x05]);
    /// let len = reader.read::<u32>()? as usize;
    /// assert_eq!(reader.read_bytes(len), Ok(&b"hi"[..]));
    /// assert_eq!(reader.read_bytes(2), Err(DecodeError::Truncated));
    /// assert_eq!(reader.remaining(), &[0x05]);
    /// # Ok::<(), DecodeError>(())
    /// ```
    #[inline]
    pub fn read_bytes(&mut self, len: usize) -> Result<&'a [u8], DecodeError> {
        let bytes = self.remaining().get(..len).ok_or(DecodeError::Truncated)?;
        self.pos += len;
        Ok(bytes)
    }

    /// The number of bytes read since [`new`](Self::new): the offset in
    /// the input of the next varint.
    ///
    /// ```
    /// let mut reader = varint_turbo::SliceReader::new(&[0x96, 0x01, 0x05]);
    /// reader.read::<u32>().unwrap();
    /// assert_eq!(reader.position(), 2);
    /// ```
    #[inline(always)]
    #[must_use]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The bytes not read yet.
    ///
    /// ```
    /// let mut reader = varint_turbo::SliceReader::new(&[0x96, 0x01, 0x05]);
    /// reader.read::<u32>().unwrap();
    /// assert_eq!(reader.remaining(), &[0x05]);
    /// ```
    #[inline(always)]
    #[must_use]
    pub fn remaining(&self) -> &'a [u8] {
        // `pos <= len`: never panics.
        &self.input[self.pos..]
    }

    /// Whether every byte has been read.
    ///
    /// ```
    /// let mut reader = varint_turbo::SliceReader::new(&[0x05]);
    /// assert!(!reader.is_empty());
    /// reader.read::<u8>().unwrap();
    /// assert!(reader.is_empty());
    /// ```
    #[inline(always)]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pos >= self.input.len()
    }
}

/// Shows the position and how many bytes remain (not the bytes).
impl fmt::Debug for SliceReader<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SliceReader")
            .field("position", &self.pos)
            .field("remaining", &(self.input.len() - self.pos))
            .finish()
    }
}
