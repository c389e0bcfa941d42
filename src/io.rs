//! Varints on [`std::io::Read`] and [`std::io::Write`] (feature `std`).
//!
//! A generic `Read` cannot give bytes back, so [`ReadVarint`] reads one
//! byte at a time: reading ahead would swallow whatever follows the varint.
//! It stops after the varint's last byte, after
//! [`T::MAX_LEN`](crate::VarInt::MAX_LEN) bytes, or at the end of the
//! stream, and decodes what it read with [`decode`](crate::decode), so the
//! rules are the same as for slices. On a [`BufReader`](std::io::BufReader)
//! each one-byte read is served from its buffer, and [`BufReadVarint`]
//! does better: it decodes straight from
//! [`fill_buf`](std::io::BufRead::fill_buf) and reads byte by byte only for
//! a varint that runs past the buffered bytes. To decode many varints at
//! SIMD speed, read the bytes into a slice and use the bulk API
//! ([`decode_slice`](crate::decode_slice)).
//!
//! Errors are [`io::Error`]s whose inner error is the [`DecodeError`]
//! ([`io::Error::get_ref`] / [`into_inner`](io::Error::into_inner), then
//! `downcast_ref::<DecodeError>()`): [`io::ErrorKind::UnexpectedEof`] for
//! [`DecodeError::Truncated`] (the stream ended inside the varint, or
//! before it), as [`Read::read_exact`] reports the end of a stream, so
//! code that matches on that kind for the end of a file (apache-avro does)
//! keeps working; [`io::ErrorKind::InvalidData`] for
//! [`DecodeError::Overflow`]. Errors of the reader itself are passed on;
//! [`io::ErrorKind::Interrupted`] is retried, as [`Read::read_exact`] does.
//!
//! What each outcome consumed, read byte by byte ([`ReadVarint`], and
//! [`BufReadVarint`] when the varint runs past the buffered bytes):
//!
//! | outcome | bytes consumed |
//! |---|---|
//! | `Ok` | the varint's bytes, nothing after it |
//! | `UnexpectedEof` | every byte up to the end of the stream (0 if it ended before the varint) |
//! | `InvalidData`, the varint ended but its value does not fit `T` | the varint's bytes |
//! | `InvalidData`, the first [`T::MAX_LEN`](crate::VarInt::MAX_LEN) bytes (10 for the `_wrapping` reads) all continue | exactly those bytes; the rest of the varint is left unread |
//! | the reader's own error | the bytes read before it |
//!
//! [`BufReadVarint`] consumes nothing on an error it finds in the buffered
//! bytes. The `_wrapping` reads ([`ReadVarint::read_varint_wrapping`],
//! [`BufReadVarint::read_varint_wrapping_buffered`], and their zigzag
//! forms) follow [`decode_wrapping`](crate::decode_wrapping), the rule of
//! protobuf C++, Java Avro, apache-avro and quick-protobuf: a varint of at
//! most 10 bytes, cut to `T`'s width, a 10th byte of `0x02..=0x7f`
//! accepted; a caller that reads with that rule never needs a fallback.
//!
//! ```
//! use std::io::Cursor;
//! use varint_turbo::{ReadVarint, WriteVarint};
//!
//! let mut out = Vec::new();
//! out.write_varint(300u32)?;
//! out.write_varint_zigzag(-2i64)?;
//! assert_eq!(out, [0xac, 0x02, 0x03]);
//!
//! let mut input = Cursor::new(out);
//! assert_eq!(input.read_varint::<u32>()?, 300);
//! assert_eq!(input.read_varint_zigzag::<i64>()?, -2);
//! let end = input.read_varint::<u32>().unwrap_err();
//! assert_eq!(end.kind(), std::io::ErrorKind::UnexpectedEof);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, BufRead, Read, Write};

use crate::error::DecodeError;
use crate::varint::VarInt;
use crate::zigzag::ZigZag;

/// Varint reads on any [`Read`]; implemented for every `Read`.
pub trait ReadVarint: Read {
    /// Reads one varint into `T`, byte by byte, with the rules of
    /// [`decode`](crate::decode).
    ///
    /// On success exactly the varint's bytes are consumed. Errors (the
    /// inner error is the [`DecodeError`]; the module docs have the table):
    /// * [`io::ErrorKind::UnexpectedEof`] ([`DecodeError::Truncated`]) if
    ///   the stream ends inside the varint or before it: every byte up to
    ///   the end is consumed;
    /// * [`io::ErrorKind::InvalidData`] ([`DecodeError::Overflow`]) if the
    ///   varint does not fit `T`: its bytes are consumed when it ends
    ///   within [`T::MAX_LEN`](crate::VarInt::MAX_LEN) bytes, else exactly
    ///   `T::MAX_LEN` bytes, all with the continuation bit, and the rest of
    ///   it is left in the stream. A 10-byte `u64` varint whose 10th byte is
    ///   `0x02..=0x7f` is consumed whole (10 bytes) and fails: the
    ///   protobuf C++ and Avro readers accept it, so read such streams with
    ///   [`read_varint_wrapping`](Self::read_varint_wrapping), not with a
    ///   fallback after this error;
    /// * the reader's own error, the bytes read before it consumed.
    ///
    /// ```
    /// use varint_turbo::{DecodeError, ReadVarint};
    ///
    /// let mut input = &[0x96, 0x01, 0xac, 0x02][..];
    /// assert_eq!(input.read_varint::<u64>()?, 150);
    /// let error = input.read_varint::<u8>().unwrap_err();
    /// assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
    /// assert_eq!(
    ///     error.into_inner().unwrap().downcast_ref::<DecodeError>(),
    ///     Some(&DecodeError::Overflow)
    /// );
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn read_varint<T: VarInt>(&mut self) -> io::Result<T> {
        let (window, len) = read_varint_bytes(self, T::MAX_LEN)?;
        match crate::decode::decode::<T>(&window[..len]) {
            Ok((value, _)) => Ok(value),
            Err(error) => Err(error.into()),
        }
    }

    /// Reads one varint of at most 10 bytes, whatever `T`, and keeps its low
    /// `T::BITS` bits, byte by byte, with the rules of
    /// [`decode_wrapping`](crate::decode_wrapping) (protobuf C++'s
    /// `ReadVarint64`/`ReadVarint32`, Java Avro, apache-avro,
    /// quick-protobuf): a 10-byte varint whose last byte is `0x02..=0x7f`
    /// is accepted, and a negative `int32` (10 bytes) reads into `u32`.
    ///
    /// Errors: [`io::ErrorKind::UnexpectedEof`] if the stream ends inside
    /// the varint or before it (every byte up to the end consumed),
    /// [`io::ErrorKind::InvalidData`] with [`DecodeError::Overflow`] inside
    /// if all of the first 10 bytes have the continuation bit (exactly
    /// those 10 consumed), or the reader's own error. On success exactly
    /// the varint's bytes are consumed.
    ///
    /// ```
    /// use varint_turbo::ReadVarint;
    ///
    /// // A 10th byte of 0x7f: its bits above bit 63 are dropped.
    /// let lax = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f, 0x05];
    /// let mut input = &lax[..];
    /// assert_eq!(input.read_varint_wrapping::<u64>()?, 1 << 63);
    /// assert_eq!(input, [0x05]);
    /// // A negative protobuf int32, read into u32.
    /// let mut input = &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01][..];
    /// assert_eq!(input.read_varint_wrapping::<u32>()? as i32, -1);
    /// let end = input.read_varint_wrapping::<u32>().unwrap_err();
    /// assert_eq!(end.kind(), std::io::ErrorKind::UnexpectedEof);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn read_varint_wrapping<T: VarInt>(&mut self) -> io::Result<T> {
        let (window, len) = read_varint_bytes(self, WRAPPING_MAX_LEN)?;
        match crate::decode::decode_wrapping::<T>(&window[..len]) {
            Ok((value, _)) => Ok(value),
            Err(error) => Err(error.into()),
        }
    }

    /// Reads one zigzag varint (protobuf `sint32`/`sint64`, Avro
    /// `int`/`long`) into the signed `T`; otherwise as
    /// [`read_varint`](Self::read_varint).
    ///
    /// ```
    /// use varint_turbo::ReadVarint;
    ///
    /// let mut input = &[0x01, 0x80, 0x01][..];
    /// assert_eq!(input.read_varint_zigzag::<i32>()?, -1);
    /// assert_eq!(input.read_varint_zigzag::<i32>()?, 64);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn read_varint_zigzag<T: ZigZag>(&mut self) -> io::Result<T> {
        self.read_varint::<T::Unsigned>()
            .map(crate::zigzag::zigzag_decode::<T>)
    }

    /// Reads one zigzag varint with the rules of
    /// [`read_varint_wrapping`](Self::read_varint_wrapping): the low
    /// `T::BITS` bits of a varint of at most 10 bytes, then zigzag
    /// (apache-avro's `int`/`long`, protobuf C++'s `sint32`/`sint64`).
    ///
    /// ```
    /// use varint_turbo::ReadVarint;
    ///
    /// // 2^32 + 3 as a varint: the low 32 bits are 3, zigzag -2.
    /// let mut input = &[0x83, 0x80, 0x80, 0x80, 0x10, 0x01][..];
    /// assert_eq!(input.read_varint_zigzag_wrapping::<i32>()?, -2);
    /// assert_eq!(input.read_varint_zigzag_wrapping::<i64>()?, -1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn read_varint_zigzag_wrapping<T: ZigZag>(&mut self) -> io::Result<T> {
        self.read_varint_wrapping::<T::Unsigned>()
            .map(crate::zigzag::zigzag_decode::<T>)
    }
}

/// How many bytes the `_wrapping` reads take at most, whatever the type:
/// the 10 of a 64-bit varint, as protobuf C++ and Avro read them.
const WRAPPING_MAX_LEN: usize = 10;

/// Reads the bytes of one varint into a window, one `read` of one byte at
/// a time (a generic `Read` cannot give back bytes read past the varint):
/// through the first byte without the continuation bit, `max_len` bytes
/// (<= 16), or the end of the stream; returns the window and how many
/// bytes it holds. `Interrupted` is retried; any other error of the
/// reader is returned, the bytes before it consumed.
#[inline]
fn read_varint_bytes<R: Read + ?Sized>(
    reader: &mut R,
    max_len: usize,
) -> io::Result<([u8; 16], usize)> {
    let mut window = [0u8; 16];
    let mut len = 0;
    while len < max_len {
        match reader.read(&mut window[len..len + 1]) {
            Ok(0) => break,
            Ok(_) => {
                len += 1;
                if window[len - 1] < 0x80 {
                    break;
                }
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok((window, len))
}

impl<R: Read + ?Sized> ReadVarint for R {}

/// Varint reads on any [`BufRead`] (a [`BufReader`](std::io::BufReader), a
/// `&[u8]`, a `Cursor`) that decode straight from its buffer; implemented
/// for every `BufRead`.
///
/// The methods have their own names so that they never clash with
/// [`ReadVarint`]'s when both traits are in scope.
pub trait BufReadVarint: BufRead {
    /// [`read_varint`](ReadVarint::read_varint), decoding from
    /// [`fill_buf`](BufRead::fill_buf) and consuming the varint's bytes at
    /// once. Only a varint that runs past the end of the buffered bytes
    /// falls back to reading byte by byte. An error found inside the
    /// buffered bytes consumes nothing.
    ///
    /// ```
    /// use std::io::{BufRead, BufReader};
    /// use varint_turbo::BufReadVarint;
    ///
    /// let mut input = BufReader::new(&[0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01][..]);
    /// assert_eq!(input.read_varint_buffered::<u32>()?, 300);
    /// let error = input.read_varint_buffered::<u32>().unwrap_err();
    /// assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
    /// assert_eq!(input.fill_buf()?.len(), 6); // not consumed
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn read_varint_buffered<T: VarInt>(&mut self) -> io::Result<T> {
        read_buffered(self, crate::decode::decode::<T>, |reader| {
            reader.read_varint()
        })
    }

    /// [`read_varint_wrapping`](ReadVarint::read_varint_wrapping) with the
    /// buffered fast path of [`read_varint_buffered`](Self::read_varint_buffered):
    /// decoded from [`fill_buf`](BufRead::fill_buf) with
    /// [`decode_wrapping`](crate::decode_wrapping), the varint's bytes
    /// consumed at once; a varint that runs past the buffered bytes is read
    /// byte by byte. An error found inside the buffered bytes (10 bytes
    /// that all continue) consumes nothing.
    ///
    /// ```
    /// use varint_turbo::BufReadVarint;
    ///
    /// let mut input = &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0x2a][..];
    /// assert_eq!(input.read_varint_wrapping_buffered::<u64>()?, 0); // bit 64 dropped
    /// assert_eq!(input.read_varint_wrapping_buffered::<u8>()?, 42);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn read_varint_wrapping_buffered<T: VarInt>(&mut self) -> io::Result<T> {
        read_buffered(self, crate::decode::decode_wrapping::<T>, |reader| {
            reader.read_varint_wrapping()
        })
    }

    /// [`read_varint_zigzag`](ReadVarint::read_varint_zigzag) with the
    /// buffered fast path of [`read_varint_buffered`](Self::read_varint_buffered).
    ///
    /// ```
    /// use varint_turbo::BufReadVarint;
    ///
    /// let mut input = &[0x03, 0x80, 0x01][..];
    /// assert_eq!(input.read_varint_zigzag_buffered::<i64>()?, -2);
    /// assert_eq!(input.read_varint_zigzag_buffered::<i16>()?, 64);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn read_varint_zigzag_buffered<T: ZigZag>(&mut self) -> io::Result<T> {
        self.read_varint_buffered::<T::Unsigned>()
            .map(crate::zigzag::zigzag_decode::<T>)
    }

    /// [`read_varint_zigzag_wrapping`](ReadVarint::read_varint_zigzag_wrapping)
    /// with the buffered fast path of
    /// [`read_varint_wrapping_buffered`](Self::read_varint_wrapping_buffered).
    ///
    /// ```
    /// use varint_turbo::BufReadVarint;
    ///
    /// let mut input = std::io::Cursor::new([0x03, 0x83, 0x80, 0x80, 0x80, 0x10]);
    /// assert_eq!(input.read_varint_zigzag_wrapping_buffered::<i64>()?, -2);
    /// assert_eq!(input.read_varint_zigzag_wrapping_buffered::<i32>()?, -2);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn read_varint_zigzag_wrapping_buffered<T: ZigZag>(&mut self) -> io::Result<T> {
        self.read_varint_wrapping_buffered::<T::Unsigned>()
            .map(crate::zigzag::zigzag_decode::<T>)
    }
}

impl<R: BufRead + ?Sized> BufReadVarint for R {}

/// The buffered reads: `decode` on the bytes of [`BufRead::fill_buf`],
/// consuming the varint's bytes; `byte_by_byte` (the [`ReadVarint`] form,
/// which retries interrupted reads) when the buffered bytes end inside the
/// varint, are empty, or `fill_buf` was interrupted. An error `decode`
/// finds in the buffered bytes consumes nothing.
#[inline(always)]
fn read_buffered<R: BufRead + ?Sized, T>(
    reader: &mut R,
    decode: impl FnOnce(&[u8]) -> Result<(T, usize), DecodeError>,
    byte_by_byte: impl FnOnce(&mut R) -> io::Result<T>,
) -> io::Result<T> {
    let buffered = match reader.fill_buf() {
        Ok(buffered) => buffered,
        Err(error) if error.kind() == io::ErrorKind::Interrupted => {
            return byte_by_byte(reader);
        }
        Err(error) => return Err(error),
    };
    match decode(buffered) {
        Ok((value, len)) => {
            reader.consume(len);
            Ok(value)
        }
        Err(DecodeError::Truncated) => byte_by_byte(reader),
        Err(error) => Err(error.into()),
    }
}

/// Varint writes on any [`Write`]; implemented for every `Write`.
pub trait WriteVarint: Write {
    /// Writes the varint of `value` with one [`Write::write_all`]; returns
    /// the number of bytes written (1..=10).
    ///
    /// A 1- or 2-byte varint is written as an array of that length (behind
    /// predicted branches, as in [`encode_to_slice`](crate::encode_to_slice)),
    /// whose `write_all` the compiler turns into a store for writers it
    /// sees through, such as `Vec<u8>` (1-byte values into a `Vec`: about
    /// 4x faster than through the variable-length `write_all` of the
    /// longer varints; BENCHMARKS.md, "Single-value encodes and lengths").
    ///
    /// ```
    /// use varint_turbo::WriteVarint;
    ///
    /// let mut out = Vec::new();
    /// assert_eq!(out.write_varint(u64::MAX)?, 10);
    /// assert_eq!(out.write_varint(1u8)?, 1);
    /// assert_eq!(out.len(), 11);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[inline(always)]
    fn write_varint<T: VarInt>(&mut self, value: T) -> io::Result<usize> {
        let v = value.to_u64();
        if v < 0x80 {
            self.write_all(&[v as u8])?;
            return Ok(1);
        }
        if v < 0x4000 {
            self.write_all(&crate::encode::two_byte_varint(v))?;
            return Ok(2);
        }
        write_longer(self, value)
    }

    /// Writes the zigzag varint of `value` (protobuf `sint32`/`sint64`,
    /// Avro `int`/`long`); returns the number of bytes written.
    ///
    /// ```
    /// use varint_turbo::WriteVarint;
    ///
    /// let mut out = Vec::new();
    /// assert_eq!(out.write_varint_zigzag(-65i32)?, 2);
    /// assert_eq!(out, [0x81, 0x01]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[inline(always)]
    fn write_varint_zigzag<T: ZigZag>(&mut self, value: T) -> io::Result<usize> {
        self.write_varint(crate::zigzag::zigzag_encode(value))
    }
}

impl<W: Write + ?Sized> WriteVarint for W {}

/// [`WriteVarint::write_varint`] past its 1- and 2-byte tests, left to the
/// inliner: the kernel's 16-byte array, `len` bytes of it written.
#[inline]
fn write_longer<W: Write + ?Sized, T: VarInt>(writer: &mut W, value: T) -> io::Result<usize> {
    let (bytes, len) = crate::encode::encode(value);
    let len = usize::from(len);
    writer.write_all(&bytes[..len])?;
    Ok(len)
}

/// [`DecodeError::Truncated`] becomes [`io::ErrorKind::UnexpectedEof`],
/// [`DecodeError::Overflow`] becomes [`io::ErrorKind::InvalidData`]; the
/// `DecodeError` is the inner error.
///
/// ```
/// use varint_turbo::{decode, DecodeError};
///
/// fn first(input: &[u8]) -> std::io::Result<u32> {
///     Ok(decode::<u32>(input)?.0)
/// }
/// assert_eq!(first(&[0x80]).unwrap_err().kind(), std::io::ErrorKind::UnexpectedEof);
/// assert_eq!(first(&[0x2a]).unwrap(), 42);
/// ```
impl From<DecodeError> for io::Error {
    fn from(error: DecodeError) -> Self {
        let kind = match error {
            DecodeError::Truncated => io::ErrorKind::UnexpectedEof,
            DecodeError::Overflow => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, error)
    }
}
