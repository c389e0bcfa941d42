//! # varint-turbo
//!
//! Fast, exact protobuf varints (unsigned LEB128) and zigzag integers: one
//! value at a time, whole buffers at SIMD speed, and the conventions of
//! protobuf, Avro, [`bytes`](https://docs.rs/bytes) and `std::io` on top.
//! `no_std` without its default features.
//!
//! ```
//! let mut buf = [0u8; 10];
//! let len = varint_turbo::encode_to_slice(300u32, &mut buf);
//! assert_eq!(&buf[..len], &[0xac, 0x02]);
//! assert_eq!(varint_turbo::decode::<u32>(&buf), Ok((300, 2)));
//!
//! let (bytes, n) = varint_turbo::encode_zigzag(-2i64); // protobuf sint64, Avro long
//! assert_eq!(varint_turbo::decode_zigzag::<i64>(&bytes[..n as usize]), Ok((-2, 1)));
//! assert_eq!(varint_turbo::decode::<u8>(&[0xac, 0x02]), Err(varint_turbo::DecodeError::Overflow));
//!
//! // Whole buffers (a protobuf packed field): one SIMD pass.
//! let values: Vec<u32> = varint_turbo::decode_all(&[0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05]).unwrap();
//! assert_eq!(values, [3, 270, 86942]);
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
//! accepted, as protobuf does. [`decode_wrapping`] and
//! [`decode_zigzag_wrapping`] read with the rule of protobuf C++, Java Avro,
//! apache-avro and quick-protobuf instead: any varint of at most 10 bytes,
//! cut to `T`'s width (a 10th byte of `0x02..=0x7f` included);
//! [`DecodeError::Overflow`] only when the 10th byte continues. The [`protobuf`] module reads narrower
//! protobuf types by truncating a 64-bit varint instead, as protobuf
//! parsers do; the [`avro`] module keeps Avro's 5-byte `int` limit.
//!
//! ## Backends
//!
//! Single-value functions choose their backend at compile time, since an
//! indirect call would cost more than the work. [`decode`],
//! [`encode_to_slice`] and `put_varint` first take a 1-byte varint
//! ([`decode`] also 2- and 3-byte ones) by predicted branches, as protobuf
//! runtimes do: real messages are mostly such varints, with lengths that
//! repeat from field to field. [`decode_unchecked`], [`encode_unchecked`]
//! and [`encode`] are the kernel alone, the same cost for every length,
//! for data whose lengths are random:
//!
//! | build | backend |
//! |---|---|
//! | default (x86-64 baseline, any other target) | scalar: 8-byte loads, bit tricks, branch-free up to 8 bytes |
//! | `-C target-cpu=native` on Intel since Haswell, AMD since Zen 3 | BMI2 `PEXT`/`PDEP` |
//! | `-C target-cpu=native` on AMD Zen 1/2, `-C target-cpu=znver1`/`znver2` | scalar (`PDEP`/`PEXT` are microcoded there) |
//! | BMI2 for an unknown CPU (`-C target-cpu=x86-64-v3`, `+bmi2`, a named CPU) | BMI2 where [`pdep_is_fast`], else scalar: a cached flag and a predicted branch per call |
//! | the row above with feature `native-optimizations` | as for `native`: the build machine's CPUID decides at compile time |
//!
//! Feature `native-optimizations` enables no instruction set: it only lets
//! the build script judge `PDEP`/`PEXT` by the build machine's CPUID (which
//! `-C target-cpu=native` does anyway). Without a flag that enables `bmi2`
//! the build is the default row, scalar ([`single_value_backend`] says
//! which kernel a build has).
//!
//! The bulk API ([`decode_slice`], [`decode_all`], [`encode_slice`],
//! [`count_varints`], ...) moves through the input a fixed SIMD window at a
//! time and picks its backend at run time, once ([`detected_backend`]); with
//! `std` off, from the build's target features:
//!
//! | bulk backend | CPUs | method |
//! |---|---|---|
//! | [`Backend::Avx512Vbmi2`] | Intel Ice Lake and later, AMD Zen 4 and later (built with rustc 1.89 or later) | fixed 64-byte chunks, `vpcompressb`/`vpermb`/`vpermt2b` |
//! | [`Backend::Avx2`], [`Backend::Ssse3`] | Haswell / Zen 1 and later; SSSE3 with POPCNT: Intel Nehalem, AMD Bobcat/Bulldozer and later (not Core 2) | Masked-VByte-style `pshufb` table over a fixed grid of 7-byte chunks |
//! | [`Backend::Scalar`] | everything else | the single-value decoder in a loop |
//!
//! Every backend is callable directly ([`arch`], [`Backend`]) for tests and
//! benchmarks, and tested against the scalar reference.
//!
//! ## Modules for formats and I/O
//!
//! | module | items |
//! |---|---|
//! | [`protobuf`] | one module per varint scalar type (`int32`, `uint64`, `sint32`, `bool`, `enumeration`, ...) with `encode`/`decode`/packed helpers; [`protobuf::FieldKey`], [`protobuf::WireType`]; [`protobuf::decode_length_delimited`] |
//! | [`avro`] | `int`/`long` with Avro's limits; arrays of longs in both block forms |
//! | [`sleb128`] | signed LEB128 (WebAssembly, DWARF): `i32`/`i64` with WebAssembly's limits, single values and bulk on every backend |
//! | [`delta`] | delta-coded sorted `u32`/`u64` lists (varints of the gaps): decode fused with the running sum, encode, select, search |
//! | `bytes_ext` (feature `bytes`) | `BufVarint`/`BufMutVarint`: varints on `bytes::Buf`/`BufMut`, also across chunk seams |
//! | `io` (feature `std`) | `ReadVarint`/`BufReadVarint`/`WriteVarint` on `std::io::Read`/`BufRead`/`Write` |
//!
//! ## Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `std` | yes | run-time CPU detection, the `io` module; implies `alloc` (the error types implement `core::error::Error` with or without it) |
//! | `alloc` | via `std` | the functions that return or fill a `Vec` |
//! | `bytes` | no | the `bytes_ext` module |
//! | `native-optimizations` | no | lets the build script judge `PDEP`/`PEXT` by the build machine's CPUID; selects the BMI2 kernels only in a build that enables `bmi2` (`-C target-cpu=native`, which reads the CPUID anyway, or `x86-64-v3`, `+bmi2`) |
//!
//! ## Minimum supported Rust version
//!
//! 1.85. The AVX-512 backend needs rustc 1.89, where its intrinsics became
//! stable: built with 1.85 to 1.88, the crate leaves it out,
//! [`Backend::Avx512Vbmi2`] is never [supported](Backend::is_supported) and
//! the bulk API runs [`Backend::Avx2`] on AVX-512 CPUs.
//!
//! ## `no_std`
//!
//! With `default-features = false` the crate is `#![no_std]` and needs no
//! allocator: the single-value API, the slice forms of the bulk API
//! ([`decode_slice`], [`encode_slice_into`], [`count_varints`],
//! [`encoded_len_sum`]) and the scalar functions of [`protobuf`] and
//! [`avro`]. Add feature `alloc` for the `Vec` functions.
//!
//! ## Safety
//!
//! The safe API never panics on any input, never reads outside its slices
//! and has no undefined behaviour. The documented panics are about the
//! caller's side, never the data: [`encode_to_slice`] and the `BufMut`
//! writes when the *output* is too small, and the [`Backend`] methods
//! (`decode_slice`, `encode_slice_into`, ...) when called on a backend the
//! CPU does not support (check [`Backend::is_supported`], or use the
//! functions that dispatch themselves).
//!
//! Every `unsafe` block has a `SAFETY` comment saying why it holds. They
//! are in
//! * the SIMD and BMI2 kernels under [`arch`], and the bulk dispatch to
//!   them ([`Backend`], the bulk functions) and the single-value one
//!   (`arch::selected`); the CPU detection (`CPUID`);
//! * the scalar bulk decoder (`arch::scalar::decode_slice`): SSE2
//!   `pmovmskb` on x86-64 (the baseline), 16-byte windows read in place
//!   and length-indexed table reads after its bounds checks, writes into
//!   the output's slots;
//! * [`decode_unchecked`], [`encode_unchecked`] and the word stores of the
//!   single-value encoders;
//! * [`protobuf`]: the packed decoders' writes into a `Vec`'s spare
//!   capacity (and narrow slots viewed as their same-sized wire type), the
//!   packed writers' writes into `BufMut::chunk_mut`;
//! * `bytes_ext`: varint writes into `BufMut::chunk_mut`;
//! * [`SliceReader`]: its unchecked 16-byte window reads, which its
//!   invariant (at least 16 bytes left) keeps inside the input.
//!
//! The scalar single-value reference (`arch::scalar`'s `decode`, `encode`,
//! the bulk encoder, the sizes, the tail decoder) and the `avro` and `io`
//! modules have none.
//!
//! ## Testing
//!
//! `cargo test --all-features` checks every row of vectors produced by Go
//! protowire, Python protobuf (upb) and fastavro (`tests/data/`) through
//! every backend and every helper module; every input up to 2 bytes, and
//! every 3-byte input in release builds (`cargo test --release`, or any
//! build with `VARINT_TURBO_EXHAUSTIVE=full`; a debug build checks a
//! structured subset of them); proptest/quickcheck agreement with an
//! independent reference; inputs and bulk outputs placed against
//! inaccessible pages; a census of every backend against the CPU's raw
//! `CPUID`; `Buf` reads split at every position. `scripts/cpu-matrix.sh` runs the suite under emulated CPUs
//! from SSE2-only to AVX2 and Zen 2.

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
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
pub mod delta;
mod encode;
mod error;
#[cfg(feature = "std")]
pub mod io;
pub mod protobuf;
pub mod sleb128;
mod sleb128_int;
mod slice_reader;
mod varint;
mod zigzag;

pub use arch::single_value_backend;
pub use bulk::{
    count_varints, decode_slice, decode_slice_zigzag, detected_backend, encode_slice_into,
    encode_slice_zigzag_into, encoded_len_sum, Backend,
};
#[cfg(feature = "alloc")]
pub use bulk::{decode_all, decode_all_zigzag, encode_slice, encode_slice_zigzag};
#[cfg(feature = "bytes")]
pub use bytes_ext::{BufMutVarint, BufVarint};
pub use cpu::pdep_is_fast;
pub use decode::{
    decode, decode_len, decode_unchecked, decode_wrapping, decode_zigzag, decode_zigzag_wrapping,
};
pub use encode::{
    encode, encode_to_slice, encode_unchecked, encode_zigzag, encode_zigzag_to_slice, encoded_len,
    encoded_len_u32, encoded_len_u64,
};
#[cfg(feature = "alloc")]
pub use encode::{encode_to_vec, encode_zigzag_to_vec};
pub use error::{BulkDecodeError, DecodeError};
#[cfg(feature = "std")]
pub use io::{BufReadVarint, ReadVarint, WriteVarint};
pub use slice_reader::SliceReader;
pub use varint::VarInt;
pub use zigzag::{
    zigzag_decode, zigzag_decode_i16, zigzag_decode_i32, zigzag_decode_i64, zigzag_decode_i8,
    zigzag_decode_isize, zigzag_encode, zigzag_encode_i16, zigzag_encode_i32, zigzag_encode_i64,
    zigzag_encode_i8, zigzag_encode_isize, ZigZag,
};

/// The README's examples, compiled and run as doc tests (`cargo test
/// --all-features --doc`; its `bytes` example needs that feature).
#[cfg(all(doctest, feature = "bytes"))]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
