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
//! Errors are [`io::Error`]s whose inner error is the [`DecodeError`]:
//! [`io::ErrorKind::UnexpectedEof`] for [`DecodeError::Truncated`] (the
//! stream ended inside the varint, or before it) and
//! [`io::ErrorKind::InvalidData`] for [`DecodeError::Overflow`]. Errors of
//! the reader itself are passed on; [`io::ErrorKind::Interrupted`] is
//! retried, as [`Read::read_exact`] does.
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

use crate::varint::VarInt;
use crate::zigzag::ZigZag;
use crate::DecodeError;

/// Varint reads on any [`Read`]; implemented for every `Read`.
pub trait ReadVarint: Read {
    /// Reads one varint into `T`, byte by byte, with the rules of
    /// [`decode`](crate::decode).
    ///
    /// Errors: [`io::ErrorKind::UnexpectedEof`] if the stream ends inside the
    /// varint or before it, [`io::ErrorKind::InvalidData`] if it does not
    /// fit `T` (the inner error is the [`DecodeError`]), or the reader's own
    /// error. The bytes read before an error are consumed: at most
    /// [`T::MAX_LEN`](crate::VarInt::MAX_LEN).
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
        let mut window = [0u8; 16];
        let mut len = 0;
        while len < T::MAX_LEN {
            match self.read(&mut window[len..len + 1]) {
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
        match crate::decode::<T>(&window[..len]) {
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
            .map(crate::zigzag_decode::<T>)
    }
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
        let buffered = match self.fill_buf() {
            Ok(buffered) => buffered,
            // `read_varint` retries interrupted reads.
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {
                return self.read_varint();
            }
            Err(error) => return Err(error),
        };
        match crate::decode::<T>(buffered) {
            Ok((value, len)) => {
                self.consume(len);
                Ok(value)
            }
            // The buffered bytes end inside the varint (or there are none).
            Err(DecodeError::Truncated) => self.read_varint(),
            Err(error) => Err(error.into()),
        }
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
            .map(crate::zigzag_decode::<T>)
    }
}

impl<R: BufRead + ?Sized> BufReadVarint for R {}

/// Varint writes on any [`Write`]; implemented for every `Write`.
pub trait WriteVarint: Write {
    /// Writes the varint of `value` with one [`Write::write_all`]; returns
    /// the number of bytes written (1..=10).
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
    fn write_varint<T: VarInt>(&mut self, value: T) -> io::Result<usize> {
        let (bytes, len) = crate::encode(value);
        let len = usize::from(len);
        self.write_all(&bytes[..len])?;
        Ok(len)
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
    fn write_varint_zigzag<T: ZigZag>(&mut self, value: T) -> io::Result<usize> {
        self.write_varint(crate::zigzag_encode(value))
    }
}

impl<W: Write + ?Sized> WriteVarint for W {}

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
