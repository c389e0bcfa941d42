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
//! ## Which function
//!
//! *Strict* is Go protowire's rule (`ConsumeVarint`), generalised to every
//! width: a varint longer than the type's [`MAX_LEN`](VarInt::MAX_LEN) or a
//! value that does not fit is [`DecodeError::Overflow`]. *Wrapping* is the
//! rule of protobuf C++, Java Avro, apache-avro and quick-protobuf: any
//! varint of at most 10 bytes, cut to the type's width.
//!
//! | to do this | strict | wrapping | notes |
//! |---|---|---|---|
//! | one value from `&[u8]` | [`decode`], [`decode_zigzag`]; [`decode_len`] (its length only) | [`decode_wrapping`], [`decode_zigzag_wrapping`] | the value and the bytes it took |
//! | a parse loop over `&[u8]` | [`SliceReader::read`], [`SliceReader::read_zigzag`] | [`SliceReader::read_wrapping`], [`SliceReader::read_zigzag_wrapping`] | no slice or length to keep; an error leaves the position on the bad varint |
//! | write one value | [`encode_to_slice`], [`encode_to_uninit`], [`encode_to_vec`], [`encode_zigzag_to_vec`], [`encode`] (into a 16-byte array); [`encoded_len`] | | shortest form |
//! | whole buffers (a packed field) | [`decode_slice`], [`decode_all`], [`decode_slice_zigzag`], [`count_varints`]; [`encode_slice`], [`encode_slice_into`], [`encoded_len_sum`] | | SIMD, backend chosen at run time, once |
//! | protobuf fields | [`protobuf::int32::decode`] and the other types' modules (the varint read as `u64`, then truncated to the type as protobuf parsers do), [`protobuf::FieldKey`]; [`protobuf::int32::decode_packed`], [`protobuf::int32::encode_packed`], `put_packed` (feature `bytes`) | | one module per scalar type |
//! | Avro `int`/`long` | [`avro::decode_int`], [`avro::decode_long`], [`avro::encode_long`]; [`avro::decode_long_array`], [`avro::encode_long_array`] | [`decode_zigzag_wrapping::<i64>`](decode_zigzag_wrapping) (apache-avro's `long`) | |
//! | signed LEB128 (WebAssembly, DWARF) | [`sleb128::decode`], [`sleb128::encode`], [`sleb128::decode_slice`], [`sleb128::encode_slice`] | | WebAssembly's `s32`/`s64` rule |
//! | delta-coded sorted lists | [`delta::decode_slice`], [`delta::select`], [`delta::search`], [`delta::encode_slice`] | | the gaps strict, the sums wrapping |
//! | [`bytes`](https://docs.rs/bytes) `Buf`/`BufMut` (feature `bytes`) | `BufVarint::get_varint`, `get_varint_zigzag`, `get_varints`; `BufMutVarint::put_varint`, `put_varint_zigzag`, `put_varints` | | also across chunk seams |
//! | `std::io` (feature `std`) | `ReadVarint::read_varint`, `read_varint_zigzag`; `BufReadVarint::read_varint_buffered`; `WriteVarint::write_varint` | `ReadVarint::read_varint_wrapping`, `read_varint_zigzag_wrapping`; `BufReadVarint::read_varint_wrapping_buffered` | errors are `io::Error`s (module `io`) |
//! | a known-padded buffer, `unsafe` | [`decode_unchecked`] (16 readable bytes, no validation), [`encode_unchecked`] (16 writable bytes) | | the kernel alone, one cost for every length |
//!
//! ## Semantics
//!
//! Every decoder accepts non-minimal encodings within its length limit
//! (`80 00` is 0), as protobuf does, ignores the bytes after the varint and
//! never reads past its input. `T::MAX_LEN` is 2, 3, 5, 10 for `u8`,
//! `u16`, `u32`, `u64`.
//!
//! | family | accepts | [`Truncated`](DecodeError::Truncated) | [`Overflow`](DecodeError::Overflow) | bytes consumed |
//! |---|---|---|---|---|
//! | [`decode::<T>`](decode), [`decode_zigzag`], [`decode_len`] | at most `T::MAX_LEN` bytes, a value that fits `T` (for `u64`, a 10th byte `0x00`/`0x01`) | the input ends while a continuation bit is set, or is empty | the value does not fit `T`, or the first `T::MAX_LEN` bytes all continue (even where the input ends there) | the varint's bytes |
//! | [`decode_wrapping::<T>`](decode_wrapping), [`decode_zigzag_wrapping`] | any varint of at most 10 bytes (a 10th byte of `0x02..=0x7f` too), its low `T::BITS` bits kept | as `decode` | only when the 10th byte continues | the varint's bytes (1..=10) |
//! | `protobuf::<type>::decode` | `decode::<u64>`'s varints, truncated to the type (`bool`: any non-zero is `true`) | as `decode` | as `decode::<u64>` | the varint's bytes |
//! | [`avro::decode_int`], [`avro::decode_long`] | `decode_zigzag::<i32>`/`::<i64>`: at most 5 bytes and the `i32` range; at most 10 bytes, a 10th byte `0x00`/`0x01` | as `decode` | longer, or out of range | the varint's bytes |
//! | [`sleb128::decode::<i32 or i64>`](sleb128::decode) | at most 5 / 10 bytes, the last byte's unused bits equal to its sign bit | as `decode` | longer, or those bits differ from the sign | the varint's bytes |
//! | bulk: [`decode_slice`], [`decode_slice_zigzag`], [`decode_all`], `sleb128::decode_slice`, `delta::decode_slice`, ... | each varint by its single-value rule | a varint cut off by the input's end | as the single-value rule | `Ok((values, bytes))`, stopping when `out` is full or the input ends (`decode_slice` forms); an error is a [`BulkDecodeError`]: the kind, the failing value's index and its byte offset, every value before it written |
//! | [`SliceReader`] reads | `decode`'s (or `decode_wrapping`'s) rule on the remaining bytes | as `decode` | as `decode` | moves past the varint; on an error the position does not move |
//! | `bytes_ext` reads (`get_varint`, ...) | `decode`'s rule, across chunk seams too | as `decode` | as `decode` | the varint's bytes; nothing on an error inside the current chunk; at a seam, the bytes examined |
//! | `io` reads (`read_varint`, ...) | `decode`'s (or `decode_wrapping`'s) rule | an `io::Error` of kind `UnexpectedEof` | kind `InvalidData` | the varint's bytes, nothing after it; on an error, the bytes read: up to the end of the stream, the whole varint, or its first `T::MAX_LEN` bytes (10 for `_wrapping`) when they all continue; `BufReadVarint` nothing on an error inside its buffer (the table in module `io`) |
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
//! allocator: the single-value API, [`SliceReader`], the slice forms of
//! the bulk API ([`decode_slice`], [`encode_slice_into`], [`count_varints`],
//! [`encoded_len_sum`]), the scalar functions of [`protobuf`] and [`avro`],
//! and [`sleb128`] and [`delta`] but for their `Vec` functions. Add feature
//! `alloc` for the `Vec` functions.
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
//! * the SIMD and BMI2 kernels under [`arch`] (the SSSE3, AVX2 and AVX-512
//!   bulk decoders, encoders, length sums, zigzag and signed LEB128 steps,
//!   the x86-64 BMI1/BMI2/SSE2 helpers, the NEON kernels, the shared group
//!   encoder's window writes, the per-backend types' kernel calls), and the
//!   dispatch to them: the single-value one (`arch::selected`), the bulk one
//!   ([`Backend`], the bulk functions, their `Vec` writes into spare
//!   capacity); the CPU detection (`CPUID`);
//! * the scalar bulk decoder (`arch::scalar::decode_slice`): SSE2
//!   `pmovmskb` on x86-64 (the baseline), 16-byte windows read in place
//!   and length-indexed table reads after its bounds checks, writes into
//!   the output's slots;
//! * [`decode_unchecked`], [`encode_unchecked`], the word stores of the
//!   single-value encoders and [`encode_to_vec`]'s write into spare
//!   capacity;
//! * [`protobuf`]: the packed decoders' writes into a `Vec`'s spare
//!   capacity (and narrow slots viewed as their same-sized wire type), the
//!   packed writers' writes into `BufMut::chunk_mut`;
//! * `bytes_ext`: varint writes into `BufMut::chunk_mut`;
//! * [`SliceReader`]: its unchecked 16-byte window reads, which its
//!   invariant (at least 16 bytes left) keeps inside the input;
//! * [`sleb128`]'s bulk decoder: signed output slots viewed as the unsigned
//!   type of the same width for the unsigned kernel, the decoded slots read
//!   back, [`sleb128::decode_all`]'s `Vec` length, the call of the AVX2 sign
//!   step on a CPU that has it;
//! * [`delta`]: the stack slots the gap decoder initialized, read back for
//!   the running sum.
//!
//! The scalar single-value reference (`arch::scalar`'s `decode`, `encode`,
//! the bulk encoder, the sizes, the tail decoder, the signed LEB128
//! decoder) and the `avro`, `io`, zigzag and error modules have none.
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
    encode_slice_to_uninit, encode_slice_zigzag_into, encoded_len_sum, Backend,
};
#[cfg(feature = "alloc")]
pub use bulk::{decode_all, decode_all_zigzag, encode_slice, encode_slice_zigzag};
#[cfg(feature = "bytes")]
pub use bytes_ext::{BufMutVarint, BufVarint};
pub use cpu::pdep_is_fast;
pub use decode::{
    decode, decode_len, decode_short, decode_unchecked, decode_wrapping, decode_zigzag,
    decode_zigzag_wrapping,
};
pub use encode::{
    encode, encode_to_slice, encode_to_uninit, encode_unchecked, encode_with, encode_zigzag,
    encode_zigzag_to_slice, encoded_len, encoded_len_u32, encoded_len_u64,
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
