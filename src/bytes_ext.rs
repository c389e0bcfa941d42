//! Varints on [`bytes::Buf`] and [`bytes::BufMut`] (feature `bytes`): the
//! buffers of prost, tonic, tokio-util codecs and most network code.
//!
//! A `Buf` may be non-contiguous (a [`Chain`](bytes::buf::Chain), a
//! `VecDeque`, a rope of received segments): [`chunk()`](bytes::Buf::chunk)
//! shows only the bytes up to the next seam. Reading one varint therefore
//! takes one of two paths:
//!
//! * **fast path**: decode from `chunk()`, with the result of
//!   [`decode`](crate::decode) (1- to 3-byte varints by tests of its own,
//!   longer ones by `decode`'s kernel) and one `advance`. This is every
//!   read on a contiguous buffer (`&[u8]`, `Bytes`, `BytesMut`) and, in a
//!   chained buffer, every varint that ends before the seam, whatever the
//!   chunk's length;
//! * **seam path**: the varint starts in one chunk and continues in the
//!   next. Its bytes (at most [`T::MAX_LEN`](crate::VarInt::MAX_LEN)) are
//!   copied chunk by chunk into a 16-byte window, which then goes through
//!   the same [`decode`](crate::decode). The result is the same as if the
//!   buffer were contiguous.
//!
//! [`get_varints`](BufVarint::get_varints) runs the bulk decoder
//! ([`decode_slice`](crate::decode_slice)) on each chunk and the seam path
//! on the one varint that straddles each seam.
//!
//! ## What an error leaves behind
//! A failed read does not advance the buffer when the failing varint lies
//! inside the current chunk, which is always the case for contiguous
//! buffers. On the seam path the bytes have to be consumed to be seen
//! (`Buf` cannot look past its current chunk without advancing), so there
//! an error leaves the buffer advanced past the bytes examined: the whole
//! varint, or its first `T::MAX_LEN` bytes, or everything that remained,
//! whichever is shortest. Either way the data is corrupt at that point.
//!
//! ```
//! use bytes::{Buf, BufMut};
//! use varint_turbo::{BufMutVarint, BufVarint};
//!
//! let mut out = bytes::BytesMut::new();
//! out.put_varint(300u32);
//! out.put_varint_zigzag(-2i64);
//! assert_eq!(&out[..], &[0xac, 0x02, 0x03]);
//!
//! // Split the bytes across two chunks, in the middle of the first varint.
//! let mut input = (&out[..1]).chain(&out[1..]);
//! assert_eq!(input.get_varint::<u32>(), Ok(300));
//! assert_eq!(input.get_varint_zigzag::<i64>(), Ok(-2));
//! assert!(!input.has_remaining());
//! ```

use bytes::{Buf, BufMut};

use crate::error::{BulkDecodeError, DecodeError};
use crate::varint::VarInt;
use crate::zigzag::ZigZag;

/// The bytes [`BufMutVarint::put_varints`] encodes per step before copying
/// them into the `BufMut`: room for 102 varints of the longest kind.
const PUT_STAGING_BYTES: usize = 1024;

/// Varint reads on any [`bytes::Buf`]; implemented for every `Buf`.
///
/// See the [module documentation](self) for the fast path and for where an
/// error leaves the buffer.
pub trait BufVarint: Buf {
    /// Reads one varint into `T` with the rules of [`decode`](crate::decode)
    /// and advances past it.
    ///
    /// Fails with [`DecodeError::Truncated`] if the buffer runs out inside
    /// the varint (or is empty) and [`DecodeError::Overflow`] if it does not
    /// fit `T`. On error the buffer is not advanced, unless the varint
    /// straddles two chunks (see the [module documentation](self)).
    ///
    /// ```
    /// use bytes::Buf;
    /// use varint_turbo::{BufVarint, DecodeError};
    ///
    /// let mut buf = &[0x96, 0x01, 0x80][..];
    /// assert_eq!(buf.get_varint::<u64>(), Ok(150));
    /// assert_eq!(buf.get_varint::<u64>(), Err(DecodeError::Truncated));
    /// assert_eq!(buf.remaining(), 1); // not consumed
    /// ```
    #[inline(always)]
    fn get_varint<T: VarInt>(&mut self) -> Result<T, DecodeError> {
        // Every path that goes on reading is inline: 1-, 2- and 3-byte
        // tests of its own (lengths, counts, deltas), then the kernel on the
        // chunk's first 16 bytes or, in its last 15, the word path
        // (`decode` without its own 1- to 3-byte tests: one copy of the
        // kernel, not two). Only an error leaves (out of line, cold, and it
        // ends a parser's loop), so in a loop that reads a message to its
        // end the compiler keeps the buffer's fields in registers; a call
        // on a path that continues the loop (the short chunk's, until
        // f909f37) kept them in memory, a store and a reload per value:
        // 200-byte messages of mostly 1-byte varints read 2.7x faster
        // without it (BENCHMARKS.md, "`get_varint` on small messages").
        // `inline(always)`: with `inline`, prost's field parsers called it
        // out of line, and decoding messages through it took 1.01-1.10 of
        // prost's time rather than 0.81-0.96 (BENCHMARKS.md, "The readers
        // in the patch").
        //
        // Every path yields its value and length to one `advance`. Where a
        // caller keeps the buffer in memory between reads (a reader out of
        // line, as in the prost harness's Kafka walk), the next read then
        // always loads the pointer and length from the same two stores;
        // with a store pair per path (an `advance` on the 1-byte path and
        // another after `decode`, as prost has), the walk ran at 32 ns per
        // record rather than 25-27 in 6 code layouts of 10, with one pair
        // at the faster speed in 10 of 10 (BENCHMARKS.md, "The Kafka walk:
        // one store pair"). `decode` never returns more than the chunk's
        // length; testing that against a fresh `chunk()` lets the compiler
        // drop `advance`'s own check (in `Bytes`, with an inline panic
        // message).
        let chunk = self.chunk();
        let (value, len) = 'read: {
            if let Some(&byte) = chunk.first() {
                if byte < 0x80 {
                    break 'read (u64::from(byte), 1);
                }
            }
            if let Some(&[low, high, top]) = chunk.first_chunk::<3>() {
                if high < 0x80 && (T::MAX_LEN > 2 || high < 2) {
                    break 'read (u64::from(low & 0x7f) | u64::from(high) << 7, 2);
                }
                if top < 0x80 && T::MAX_LEN > 3 {
                    break 'read (
                        u64::from(low & 0x7f) | u64::from(high & 0x7f) << 7 | u64::from(top) << 14,
                        3,
                    );
                }
            }
            match crate::arch::window::decode_with::<T>(chunk, crate::arch::selected::decode) {
                Ok((value, len)) => (value.to_u64(), len),
                Err(_) => return get_slow::<T, _>(self).into_value(),
            }
        };
        if len <= self.chunk().len() {
            self.advance(len);
            Ok(T::from_u64_unchecked(value))
        } else {
            get_slow::<T, _>(self).into_value()
        }
    }

    /// Reads one zigzag varint (protobuf `sint32`/`sint64`, Avro
    /// `int`/`long`) into the signed `T`; otherwise as
    /// [`get_varint`](Self::get_varint).
    ///
    /// ```
    /// use varint_turbo::BufVarint;
    ///
    /// let mut buf = &[0x03, 0x04][..];
    /// assert_eq!(buf.get_varint_zigzag::<i32>(), Ok(-2));
    /// assert_eq!(buf.get_varint_zigzag::<i8>(), Ok(2));
    /// ```
    #[inline(always)]
    fn get_varint_zigzag<T: ZigZag>(&mut self) -> Result<T, DecodeError> {
        self.get_varint::<T::Unsigned>()
            .map(crate::zigzag::zigzag_decode::<T>)
    }

    /// Reads consecutive varints into `out` until it is full or the buffer
    /// is exhausted, with the bulk decoder; returns the number of values
    /// read and advances past them.
    ///
    /// On error, `out[..error.index()]` holds the values before the failing
    /// one, the buffer is advanced past them, and
    /// [`error.offset()`](BulkDecodeError::offset) counts bytes from where
    /// the buffer was when the call started. The failing varint itself is
    /// not consumed unless it straddles two chunks (see the
    /// [module documentation](self)). Slots of `out` past the values
    /// written may be overwritten, as with [`decode_slice`](crate::decode_slice).
    ///
    /// ```
    /// use bytes::Buf;
    /// use varint_turbo::BufVarint;
    ///
    /// let mut buf = (&[0x01, 0xac][..]).chain(&[0x02, 0x03][..]);
    /// let mut out = [0u16; 8];
    /// assert_eq!(buf.get_varints(&mut out), Ok(3));
    /// assert_eq!(out[..3], [1, 300, 3]);
    /// ```
    fn get_varints<T: VarInt>(&mut self, out: &mut [T]) -> Result<usize, BulkDecodeError> {
        let (mut written, mut offset) = (0, 0);
        while written < out.len() {
            let chunk = self.chunk();
            if chunk.is_empty() {
                break;
            }
            let more_chunks_follow = chunk.len() < self.remaining();
            let error = match crate::bulk::decode_slice(chunk, &mut out[written..]) {
                Ok((values, bytes)) => {
                    self.advance(bytes);
                    written += values;
                    offset += bytes;
                    continue;
                }
                Err(error) => error,
            };
            // Keep the values before the failing one.
            self.advance(error.offset());
            written += error.index();
            offset += error.offset();
            if !(error.kind() == DecodeError::Truncated && more_chunks_follow) {
                return Err(BulkDecodeError::new(error.kind(), written, offset));
            }
            // The varint runs on into the next chunk.
            match get_across_seam(self) {
                Ok((value, len)) => {
                    out[written] = value;
                    written += 1;
                    offset += len;
                }
                Err(kind) => return Err(BulkDecodeError::new(kind, written, offset)),
            }
        }
        Ok(written)
    }
}

impl<B: Buf + ?Sized> BufVarint for B {}

/// What [`BufVarint::get_varint`]'s out-of-line error path returns: the
/// value (widened to `u64`) and its length, a length of 0 marking an error
/// whose kind is then the first word. Two words come back in two registers;
/// `Result<u64, DecodeError>` is three scalars (tag, error, value) and
/// comes back through memory, and merging it with the inline path made
/// that path store its value and load it back, and keep a stack frame
/// (BENCHMARKS.md, "`get_varint` on small messages").
#[derive(Clone, Copy)]
struct Decoded {
    value: u64,
    len: usize,
}

impl Decoded {
    #[inline(always)]
    fn ok<T: VarInt>(value: T, len: usize) -> Self {
        debug_assert!(len != 0);
        Self {
            value: value.to_u64(),
            len,
        }
    }

    #[inline(always)]
    fn err(error: DecodeError) -> Self {
        let code = match error {
            DecodeError::Truncated => 0,
            DecodeError::Overflow => 1,
        };
        Self {
            value: code,
            len: 0,
        }
    }

    /// The value, narrowed back to `T` (it came from a `T`), or the error.
    #[inline(always)]
    fn into_value<T: VarInt>(self) -> Result<T, DecodeError> {
        if self.len != 0 {
            Ok(T::from_u64_unchecked(self.value))
        } else if self.value == 0 {
            Err(DecodeError::Truncated)
        } else {
            Err(DecodeError::Overflow)
        }
    }
}

/// [`BufVarint::get_varint`] where `decode` failed on the current chunk:
/// the seam path if the chunk ended inside the varint but more chunks
/// follow, else the error. (Decodes the chunk again: the inline path's
/// guard on the length is never false, so this runs only on an error.)
#[cold]
#[inline(never)]
fn get_slow<T: VarInt, B: Buf + ?Sized>(buf: &mut B) -> Decoded {
    let error = match crate::decode::decode::<T>(buf.chunk()) {
        Ok((value, len)) => {
            buf.advance(len);
            return Decoded::ok(value, len);
        }
        Err(error) => error,
    };
    if error == DecodeError::Truncated && buf.chunk().len() < buf.remaining() {
        match get_across_seam::<T, B>(buf) {
            Ok((value, len)) => Decoded::ok(value, len),
            Err(error) => Decoded::err(error),
        }
    } else {
        Decoded::err(error)
    }
}

/// The seam path: copies the varint's bytes, chunk by chunk, into a window
/// (stopping after its last byte, after `T::MAX_LEN` bytes, or when the
/// buffer runs out) and decodes the window. Returns the value and its length.
fn get_across_seam<T: VarInt, B: Buf + ?Sized>(buf: &mut B) -> Result<(T, usize), DecodeError> {
    let mut window = [0u8; 16];
    let mut len = 0;
    while len < T::MAX_LEN {
        let chunk = buf.chunk();
        let wanted = &chunk[..chunk.len().min(T::MAX_LEN - len)];
        if wanted.is_empty() {
            break; // the buffer ran out
        }
        let (take, ends_here) = match wanted.iter().position(|&byte| byte < 0x80) {
            Some(end) => (end + 1, true),
            None => (wanted.len(), false),
        };
        window[len..len + take].copy_from_slice(&wanted[..take]);
        len += take;
        buf.advance(take);
        if ends_here {
            break;
        }
    }
    crate::decode::decode::<T>(&window[..len])
}

/// Varint writes on any [`bytes::BufMut`]; implemented for every `BufMut`.
///
/// Like `BufMut::put_u32` and friends, these panic if the buffer has no room
/// ([`remaining_mut()`](BufMut::remaining_mut) too small); growable buffers
/// (`Vec<u8>`, `BytesMut`) always have room.
pub trait BufMutVarint: BufMut {
    /// Writes the varint of `value`; returns its length (1..=10).
    ///
    /// # Panics
    /// If `remaining_mut()` is less than [`encoded_len(value)`](crate::encoded_len);
    /// nothing is written then.
    ///
    /// ```
    /// use varint_turbo::BufMutVarint;
    ///
    /// let mut out = Vec::new();
    /// assert_eq!(out.put_varint(150u64), 2);
    /// assert_eq!(out, [0x96, 0x01]);
    /// ```
    #[inline(always)]
    fn put_varint<T: VarInt>(&mut self, value: T) -> usize {
        // Most varints of real messages are 1 byte (tags, bools, enums) or
        // 2 (lengths, small ids): predicted branches and `put_u8` (which
        // `Vec` and `BytesMut` implement as a push) or a 2-byte
        // `put_slice`, as `encode_to_slice` does. Always inlined; the rest
        // is left to the inliner.
        let v = value.to_u64();
        if v < 0x80 {
            // `put_u8` panics without writing if there is no room.
            self.put_u8(v as u8);
            return 1;
        }
        if v < 0x4000 {
            // So does `put_slice`.
            self.put_slice(&crate::encode::two_byte_varint(v));
            return 2;
        }
        put_longer(self, value)
    }

    /// Writes the zigzag varint of `value` (protobuf `sint32`/`sint64`,
    /// Avro `int`/`long`); returns its length.
    ///
    /// # Panics
    /// As [`put_varint`](Self::put_varint).
    ///
    /// ```
    /// use varint_turbo::BufMutVarint;
    ///
    /// let mut out = bytes::BytesMut::new();
    /// assert_eq!(out.put_varint_zigzag(-64i32), 1);
    /// assert_eq!(&out[..], &[0x7f]);
    /// ```
    #[inline(always)]
    fn put_varint_zigzag<T: ZigZag>(&mut self, value: T) -> usize {
        self.put_varint(crate::zigzag::zigzag_encode(value))
    }

    /// Writes the varints of all `values`, encoded with the bulk encoder a
    /// kilobyte at a time; returns the bytes written
    /// ([`encoded_len_sum(values)`](crate::encoded_len_sum)).
    ///
    /// # Panics
    /// If `remaining_mut()` is less than the total; nothing is written then.
    ///
    /// ```
    /// use varint_turbo::BufMutVarint;
    ///
    /// let mut out = Vec::new();
    /// assert_eq!(out.put_varints(&[1u32, 300, 3]), 4);
    /// assert_eq!(out, [0x01, 0xac, 0x02, 0x03]);
    /// ```
    fn put_varints<T: VarInt>(&mut self, values: &[T]) -> usize {
        let total = crate::bulk::encoded_len_sum(values);
        ensure_room(self, total);
        let mut rest = values;
        let mut written = 0;
        while !rest.is_empty() {
            let chunk = self.chunk_mut();
            let (at, room) = (chunk.as_mut_ptr(), chunk.len());
            if room >= PUT_STAGING_BYTES {
                // A long chunk (a `Vec`'s or `BytesMut`'s spare capacity):
                // in place, as many as fit.
                // The chunk's `room` bytes are writable; the encoder writes
                // only initialized bytes, as `UninitSlice` requires.
                // SAFETY: so they can be lent to it as `MaybeUninit<u8>`.
                let chunk = unsafe { core::slice::from_raw_parts_mut(at.cast(), room) };
                let (encoded, len) = crate::bulk::encode_slice_to_uninit(rest, chunk);
                // The encoder writes inside its slice (checked: the advance
                // relies on it).
                assert!(len <= room, "the bulk encoder wrote past its room");
                // SAFETY: it initialized the first `len` bytes of the chunk.
                unsafe { self.advance_mut(len) };
                written += len;
                rest = &rest[encoded..];
                if encoded > 0 {
                    continue;
                }
            }
            // A short chunk: through the stack and `put_slice`.
            let mut staging = [core::mem::MaybeUninit::<u8>::uninit(); PUT_STAGING_BYTES];
            let (encoded, len) = crate::bulk::encode_slice_to_uninit(rest, &mut staging);
            // SAFETY: the encoder initialized the first `len` (<= its slice's
            // length, checked by `min`) bytes of `staging`.
            let bytes = unsafe {
                core::slice::from_raw_parts(staging.as_ptr().cast::<u8>(), len.min(staging.len()))
            };
            self.put_slice(bytes);
            written += len;
            rest = &rest[encoded..];
        }
        written
    }
}

impl<B: BufMut + ?Sized> BufMutVarint for B {}

/// [`BufMutVarint::put_varint`] past its 1-byte test: in place when the
/// current chunk has room for the kernel's stores (a `Vec` or `BytesMut`
/// with spare capacity, a long enough `&mut [u8]`), with no copy of a
/// 16-byte array through `put_slice`; in place with stores of exactly the
/// varint's bytes when the chunk has room for the varint but not for the
/// kernel's stores (the end of a `Vec` sized by `encoded_len`, as prost's
/// `encode_to_vec` makes it); else through `put_slice`.
///
/// The kernel's stores are 10 bytes (8 for types of at most 32 bits), not
/// the 16 that [`encode_unchecked`](crate::encode_unchecked) asks of its
/// callers: in an exactly sized `Vec` the varints of its last 9 (7) bytes
/// take the byte loop, not those of its last 15.
#[inline]
fn put_longer<T: VarInt, B: BufMut + ?Sized>(buf: &mut B, value: T) -> usize {
    let chunk = buf.chunk_mut();
    if chunk.len() >= crate::encode::stored_bytes::<T>() {
        // SAFETY: `chunk` is valid for writes of `chunk.len()` bytes, at
        // least the `stored_bytes::<T>()` that `store_unchecked` requires.
        let len = unsafe { crate::encode::store_unchecked(value, chunk.as_mut_ptr()) };
        // SAFETY: `store_unchecked` initialized the first `len` (<= 10)
        // bytes of the current chunk.
        unsafe { buf.advance_mut(len) };
        return len;
    }
    put_near_the_end(buf, value)
}

/// [`put_longer`] where the current chunk has no room for the kernel's
/// stores (the last varints of a `Vec` sized by `encoded_len`, as prost's
/// `encode_to_vec` makes it, come here): a byte loop in place when the
/// chunk has room for the varint, else [`put_across`].
///
/// A `memcpy` of the varint's bytes from the array `encode` returns, as
/// before, cost `encode_to_vec` of 8 `int32`s with 10% negatives 1.27x
/// unpatched prost's time (the prost harness, 2026-11-26). Two overlapping
/// stores from the encoder's words, out of line, cost a call and the
/// encoder on every varint there: telemetry messages' `encode_to_vec`
/// went from 0.65 to 0.78 of prost's time; inlined, they made the 16-byte
/// path of prost's packed loop slower (`int32` with 10% negatives at
/// 1,000 values: 0.86 -> 1.04). The byte loop is small enough to inline
/// everywhere.
#[inline]
fn put_near_the_end<T: VarInt, B: BufMut + ?Sized>(buf: &mut B, value: T) -> usize {
    let mut rest = value.to_u64();
    let len = crate::encode::encoded_len(rest);
    let chunk = buf.chunk_mut();
    if chunk.len() < len {
        return put_across(buf, value);
    }
    let at = chunk.as_mut_ptr();
    for i in 0..len - 1 {
        // SAFETY: `i < len <= chunk.len()`: inside the current chunk.
        unsafe { at.add(i).write(rest as u8 | 0x80) };
        rest >>= 7;
    }
    // SAFETY: `len - 1 < chunk.len()`; the loop wrote bytes `0..len - 1`.
    unsafe { at.add(len - 1).write(rest as u8) };
    // SAFETY: bytes `0..len` of the current chunk are written.
    unsafe { buf.advance_mut(len) };
    len
}

/// [`put_near_the_end`] where the varint crosses into the next chunk of a
/// chained buffer, or the buffer must grow first: through `put_slice`.
#[inline(never)]
fn put_across<T: VarInt, B: BufMut + ?Sized>(buf: &mut B, value: T) -> usize {
    let (bytes, len) = crate::encode::encode(value);
    let len = usize::from(len);
    ensure_room(buf, len);
    buf.put_slice(&bytes[..len]);
    len
}

/// Panics, before anything is written, if `buf` cannot take `len` bytes.
#[inline]
#[track_caller]
fn ensure_room<B: BufMut + ?Sized>(buf: &B, len: usize) {
    if buf.remaining_mut() < len {
        no_room(len, buf.remaining_mut());
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn no_room(needed: usize, room: usize) -> ! {
    panic!("put_varint: {needed} bytes needed but the BufMut has room for {room}")
}
