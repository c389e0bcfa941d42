//! # varint-turbo
//!
//! Fast, exact protobuf varints (unsigned LEB128) and zigzag integers.
//!
//! ```
//! let (bytes, len) = varint_turbo::encode(300u32);
//! assert_eq!(&bytes[..len as usize], &[0xac, 0x02]);
//! assert_eq!(varint_turbo::decode::<u32>(&bytes), Ok((300, 2)));
//! assert_eq!(varint_turbo::decode_zigzag::<i64>(&[0x03]), Ok((-2, 1)));
//! ```
//!
//! ## Semantics
//!
//! Decoding into `T` ([`u8`], [`u16`], [`u32`], [`u64`], [`usize`]) returns
//! the value and the number of bytes consumed; bytes after the varint are
//! ignored. It fails with
//! * [`DecodeError::Truncated`] if the input ends while a continuation bit is
//!   set (including the empty input),
//! * [`DecodeError::Overflow`] if the value does not fit `T`, or if the first
//!   [`T::MAX_LEN`](VarInt::MAX_LEN) bytes all have the continuation bit set
//!   (even when the input ends right there). For `u64` this is exactly Go
//!   protowire's `ConsumeVarint`: a 10th byte of `0x00`/`0x01` is fine,
//!   anything larger overflows.
//!
//! Non-minimal encodings that fit (`80 00`, the 10-byte zero for `u64`) are
//! accepted, as protobuf does.
//!
//! ## Backends
//!
//! Single-value functions choose their backend at compile time, since an
//! indirect call would cost more than the work:
//!
//! | build | backend |
//! |---|---|
//! | default (x86-64 baseline, any other target) | scalar: 8-byte loads, bit tricks, branch-free up to 8 bytes |
//! | `target_feature = "bmi2"` (e.g. `-C target-cpu=native` on Intel since Haswell, AMD since Zen 3) | BMI2 `PEXT`/`PDEP` |
//! | BMI2 on AMD Zen 1/2 (`-C target-cpu=znver2`, or `native` + feature `native-optimizations`) | scalar |
//!
//! Every backend is callable directly through [`arch`] for tests and
//! benchmarks, and tested against the scalar reference.
//!
//! ## Features
//! * `std` (default): `std::error::Error` for [`DecodeError`] and run-time
//!   CPU detection in the per-backend types. Without it the crate is `no_std`.
//! * `native-optimizations`: lets the build script read the build machine's
//!   CPUID (use with `-C target-cpu=native`).

#![no_std]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod arch;
pub mod avro;
mod bulk;
#[cfg(feature = "bytes")]
pub mod bytes_ext;
mod cpu;
mod decode;
mod encode;
mod error;
#[cfg(feature = "std")]
pub mod io;
pub mod protobuf;
mod varint;
mod zigzag;

pub use arch::single_value_backend;
pub use bulk::{
    count_varints, decode_slice, decode_slice_zigzag, detected_backend, encode_slice_into,
    encode_slice_zigzag_into, encoded_len_sum, Backend, BulkDecodeError,
};
#[cfg(feature = "alloc")]
pub use bulk::{decode_all, decode_all_zigzag, encode_slice, encode_slice_zigzag};
#[cfg(feature = "bytes")]
pub use bytes_ext::{BufMutVarint, BufVarint};
pub use cpu::pdep_is_fast;
pub use decode::{decode, decode_len, decode_unchecked, decode_zigzag};
pub use encode::{encode, encode_to_slice, encode_zigzag, encode_zigzag_to_slice, encoded_len};
pub use error::DecodeError;
#[cfg(feature = "std")]
pub use io::{ReadVarint, WriteVarint};
pub use varint::VarInt;
pub use zigzag::{
    zigzag_decode, zigzag_decode_i16, zigzag_decode_i32, zigzag_decode_i64, zigzag_decode_i8,
    zigzag_decode_isize, zigzag_encode, zigzag_encode_i16, zigzag_encode_i32, zigzag_encode_i64,
    zigzag_encode_i8, zigzag_encode_isize, ZigZag,
};
