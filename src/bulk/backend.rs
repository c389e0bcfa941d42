//! [`Backend`]: the bulk backends, their run-time detection (cached once,
//! [`detected_backend`]) and the one dispatch point from each bulk function
//! to its kernel under `arch`.

use core::fmt;
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicU8, Ordering};

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
use crate::arch::aarch64;
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64;
use crate::arch::{as_uninit, scalar};
use crate::error::BulkDecodeError;
use crate::varint::VarInt;
use crate::zigzag::ZigZag;

/// A bulk backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Portable code: a terminator bitmap per 64-byte block (SSE2
    /// `pmovmskb` on x86-64), then an 8-byte-word step per value.
    Scalar,
    /// SSSE3: the table-driven fixed-grid decoder on 16-byte vectors; a
    /// Stream-VByte-style encoder (four values per `pshufb` step).
    Ssse3,
    /// AVX2 (with BMI1/BMI2/LZCNT): the same decoder with 256-bit merges;
    /// the same encoder, with `PDEP` for values of 2^28 and more where
    /// [`pdep_is_fast`](crate::pdep_is_fast).
    Avx2,
    /// AVX-512 F/BW/VL/CD/VBMI/VBMI2: fixed 64-byte chunks, `vpcompressb`
    /// and `vpermb`/`vpermt2b` instead of tables.
    ///
    /// Compiled only by rustc 1.89 and later (the AVX-512 intrinsics are
    /// stable since 1.89); built with an older compiler (the MSRV is 1.85),
    /// the crate leaves it out, [`is_supported`](Self::is_supported) is
    /// false and the bulk API uses [`Avx2`](Self::Avx2) on AVX-512 CPUs.
    Avx512Vbmi2,
    /// aarch64 NEON: the table-driven fixed-grid decoder with `tbl` on
    /// 8-byte chunks, and a Stream-VByte-style encoder (four values per
    /// step, compacted by one `tbl`). NEON is part of the aarch64 baseline.
    Neon,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Scalar => "scalar",
            Backend::Ssse3 => "ssse3",
            Backend::Avx2 => "avx2",
            Backend::Avx512Vbmi2 => "avx512-vbmi2",
            Backend::Neon => "neon",
        })
    }
}

impl Backend {
    /// Every bulk backend, slowest first (among those of one architecture).
    pub const ALL: [Backend; 5] = [
        Backend::Scalar,
        Backend::Ssse3,
        Backend::Avx2,
        Backend::Avx512Vbmi2,
        Backend::Neon,
    ];

    /// Whether the running CPU can run this backend (and this build has it:
    /// [`Avx512Vbmi2`](Self::Avx512Vbmi2) is never supported when the
    /// crate was compiled by rustc older than 1.89).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// assert!(Backend::Scalar.is_supported());
    /// assert!(varint_turbo::detected_backend().is_supported());
    /// for backend in Backend::ALL {
    ///     println!("{backend}: {}", backend.is_supported());
    /// }
    /// ```
    #[must_use]
    pub fn is_supported(self) -> bool {
        match self {
            Backend::Scalar => true,
            Backend::Ssse3 => cpu_has!("ssse3", "popcnt"),
            Backend::Avx2 => cpu_has!("avx2", "bmi1", "bmi2", "lzcnt", "popcnt"),
            Backend::Avx512Vbmi2 => {
                cfg!(varint_turbo_avx512)
                    && cpu_has!(
                        "avx2",
                        "avx512f",
                        "avx512bw",
                        "avx512vl",
                        "avx512cd",
                        "avx512vbmi",
                        "avx512vbmi2",
                        "bmi1",
                        "bmi2",
                        "lzcnt",
                        "popcnt"
                    )
            }
            Backend::Neon => cfg!(all(
                target_arch = "aarch64",
                target_endian = "little",
                not(varint_turbo_force_scalar)
            )),
        }
    }

    /// [`decode_slice`](crate::decode_slice) on this backend.
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     let mut out = [0u32; 4];
    ///     assert_eq!(backend.decode_slice(&[0x03, 0x8e, 0x02], &mut out), Ok((2, 3)));
    ///     assert_eq!(out[..2], [3, 270]);
    /// }
    /// ```
    pub fn decode_slice<T: VarInt>(
        self,
        input: &[u8],
        out: &mut [T],
    ) -> Result<(usize, usize), BulkDecodeError> {
        self.decode_uninit(input, as_uninit(out))
    }

    /// [`Backend::decode_uninit`] of `input[start..]` as one batch of a
    /// longer decode: the SSSE3 and AVX2 decoders may stop early (before
    /// their scalar tail, which the next call's blocks then take) and read
    /// the bytes before `start`; the others decode the batch to the end.
    /// Returns (values, position of the next varint in `input`); errors
    /// count their offset from `input`'s start. Every call with input and
    /// room left decodes at least one value or fails.
    pub(crate) fn decode_run_uninit<T: VarInt>(
        self,
        input: &[u8],
        start: usize,
        out: &mut [MaybeUninit<T>],
    ) -> Result<(usize, usize), BulkDecodeError> {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        if start >= input.len() {
            // Nothing left (the kernels compute `input.len() - start`).
            return Ok((0, input.len()));
        }
        let (values, next) = match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Ssse3 => unsafe {
                x86_64::ssse3::decode_slice::decode_run(input, start, out)?
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx2 => unsafe { x86_64::avx2::decode_slice::decode_run(input, start, out)? },
            _ => (0, start),
        };
        if next > start || input.len() <= start || out.is_empty() {
            return Ok((values, next));
        }
        // The other backends, or (never expected) a batch that made no
        // progress: the whole-rest decoder, which always does.
        let (values, consumed) = self
            .decode_uninit(&input[start..], out)
            .map_err(|e| BulkDecodeError::new(e.kind(), e.index(), start + e.offset()))?;
        Ok((values, start + consumed))
    }

    /// The output slots beyond the values wanted that let
    /// [`Backend::decode_run_uninit`] run whole blocks up to them and stop
    /// there: the SSSE3 and AVX2 block loops need a block's 63 free slots
    /// and return after their blocks; 0 for the other backends, which fill
    /// the room they are given (so they should be given no more than the
    /// values wanted).
    pub(crate) fn run_slack(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Ssse3 | Backend::Avx2 => x86_64::grid_decode::RUN_BLOCK_SLOTS,
            _ => 0,
        }
    }

    /// [`Backend::decode_uninit`] of delta-coded gaps (`delta`): each
    /// value written is `*sum` plus the gaps up to it, wrapping in `T`;
    /// `*sum` becomes the last value written (with an error, the last one
    /// before its index). The SSSE3 and AVX2 decoders sum their one- and
    /// two-byte runs as they widen them and the rest of their output a few
    /// blocks at a time (`decode_slice_delta`); the others decode, then sum
    /// in a second pass (the scalar backend with the portable sum).
    pub(crate) fn decode_delta_uninit<T: VarInt>(
        self,
        input: &[u8],
        out: &mut [MaybeUninit<T>],
        sum: &mut T,
    ) -> Result<(usize, usize), BulkDecodeError> {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Ssse3 => unsafe {
                x86_64::ssse3::decode_slice::decode_slice_delta(input, out, sum)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx2 => unsafe {
                x86_64::avx2::decode_slice::decode_slice_delta(input, out, sum)
            },
            _ => {
                // SAFETY: checked above.
                let result = unsafe { self.decode_uninit_supported(input, out) };
                self.sum_after(&result, out, sum);
                result
            }
        }
    }

    /// Signed LEB128 (`sleb128::decode_slice`) where this backend decodes
    /// it in one pass: the SSSE3 and AVX2 grid decoders and the AVX-512
    /// chunk decoder with the sign extension and the signed rules in their
    /// steps (`decode_slice_signed`), into the bits of `i32` (`T` = `u32`)
    /// or `i64` (`u64`). `None` for the others (NEON), which decode
    /// unsigned and sign-extend in a second pass (the `sleb128` module).
    pub(crate) fn decode_signed_uninit<T: VarInt>(
        self,
        input: &[u8],
        out: &mut [MaybeUninit<T>],
    ) -> Option<Result<(usize, usize), BulkDecodeError>> {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Ssse3 => {
                Some(unsafe { x86_64::ssse3::decode_slice::decode_slice_signed(input, out) })
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx2 => {
                Some(unsafe { x86_64::avx2::decode_slice::decode_slice_signed(input, out) })
            }
            #[cfg(all(target_arch = "x86_64", varint_turbo_avx512))]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx512Vbmi2 => Some(unsafe {
                // Under one chunk: its masked chunk, as `decode_uninit`.
                if input.len() < 64 {
                    x86_64::avx512::decode_slice::decode_short_input_signed(input, out)
                } else {
                    x86_64::avx512::decode_slice::decode_slice_signed(input, out)
                }
            }),
            _ => {
                // Used by the x86-64 arms only.
                let _ = (input, out);
                None
            }
        }
    }

    /// Whether [`Backend::decode_low_halves_uninit`] has a decoder here.
    #[cfg(feature = "alloc")]
    pub(crate) fn has_low_halves_decoder(self) -> bool {
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        if self == Backend::Neon {
            return false;
        }
        let _ = self;
        true
    }

    /// Whether this backend's bulk encoder takes a sign-extended `int32`
    /// ([`SignExtended32`](crate::varint::SignExtended32)) at the speed of
    /// `u32` when no value is negative (AVX-512: it sign-extends as it
    /// widens its lanes). The others spend 2-36% more on such a field than
    /// on its `u32`s (the word encoder's 10-byte case, Zen 4), so the
    /// packed encoders check for a negative value first there.
    #[cfg(any(feature = "alloc", feature = "bytes"))]
    pub(crate) fn encodes_sign_extended_as_fast(self) -> bool {
        #[cfg(all(target_arch = "x86_64", varint_turbo_avx512))]
        if self == Backend::Avx512Vbmi2 {
            return true;
        }
        let _ = self;
        false
    }

    /// Unsigned varints under `u64`'s rules into `u32` slots that keep
    /// their low 32 bits (protobuf `int32`/`enum` packed fields, whose
    /// negative values are 10-byte varints), in one pass where this
    /// backend has such a decoder (AVX-512: its 64-bit lanes narrowed as
    /// they are stored; SSSE3, AVX2 and scalar: their decoders on
    /// [`LowHalf32`](crate::varint::LowHalf32) slots); `None` for NEON,
    /// whose callers decode `u64`s and narrow them. Errors are those of
    /// `decode_slice::<u64>`.
    #[cfg(feature = "alloc")]
    pub(crate) fn decode_low_halves_uninit(
        self,
        input: &[u8],
        out: &mut [MaybeUninit<u32>],
    ) -> Option<Result<(usize, usize), BulkDecodeError>> {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        match self {
            #[cfg(all(target_arch = "x86_64", varint_turbo_avx512))]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx512Vbmi2 => Some(unsafe {
                trace_route!(LowHalves(self));
                // Under one chunk: its masked chunk, as `decode_uninit`.
                if input.len() < 64 {
                    x86_64::avx512::decode_slice::decode_short_input_low_halves(input, out)
                } else {
                    x86_64::avx512::decode_slice::decode_slice_low_halves(input, out)
                }
            }),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon => {
                let _ = (input, out);
                None
            }
            _ => {
                trace_route!(LowHalves(self));
                let len = out.len();
                // `LowHalf32` is a `repr(transparent)` `u32`.
                // SAFETY: so the slots are as many `LowHalf32` slots, and
                // what the decoder stores into them is `u32`s.
                let slots = unsafe {
                    core::slice::from_raw_parts_mut(
                        out.as_mut_ptr()
                            .cast::<MaybeUninit<crate::varint::LowHalf32>>(),
                        len,
                    )
                };
                // SAFETY: the CPU supports the backend (checked above).
                Some(unsafe { self.decode_uninit_supported(input, slots) })
            }
        }
    }

    /// [`Backend::decode_run_uninit`] of delta-coded gaps, summed as
    /// [`Backend::decode_delta_uninit`] sums them.
    pub(crate) fn decode_run_delta_uninit<T: VarInt>(
        self,
        input: &[u8],
        start: usize,
        out: &mut [MaybeUninit<T>],
        sum: &mut T,
    ) -> Result<(usize, usize), BulkDecodeError> {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above); the
            // kernels compute `input.len() - start`.
            Backend::Ssse3 if start < input.len() => unsafe {
                x86_64::ssse3::decode_slice::decode_run_delta(input, start, out, sum)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as for SSSE3.
            Backend::Avx2 if start < input.len() => unsafe {
                x86_64::avx2::decode_slice::decode_run_delta(input, start, out, sum)
            },
            _ => {
                let result = self.decode_run_uninit(input, start, out);
                self.sum_after(&result, out, sum);
                result
            }
        }
    }

    /// The second pass of a delta decode on the backends without a fused
    /// one: sums the values `result` says the decoder wrote.
    fn sum_after<T: VarInt>(
        self,
        result: &Result<(usize, usize), BulkDecodeError>,
        out: &mut [MaybeUninit<T>],
        sum: &mut T,
    ) {
        let end = match result {
            Ok((n, _)) => *n,
            Err(error) => error.index(),
        };
        let values = &mut out[..end];
        // The decoder initialized the slots before `end` (its count, or
        // its error's index).
        // SAFETY: so they hold `T`s (`MaybeUninit<T>` has `T`'s layout).
        let values =
            unsafe { core::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<T>(), end) };
        *sum = if self == Backend::Scalar {
            scalar::prefix_sum::prefix_sum(values, *sum)
        } else {
            crate::arch::selected::prefix_sum(values, *sum)
        };
    }

    /// [`decode_slice`](Self::decode_slice) into slots that need not be
    /// initialized: it writes initialized values only, the first
    /// `written` slots (or up to the error's index) and possibly slots
    /// after them.
    pub(crate) fn decode_uninit<T: VarInt>(
        self,
        input: &[u8],
        out: &mut [MaybeUninit<T>],
    ) -> Result<(usize, usize), BulkDecodeError> {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        // SAFETY: checked just above.
        unsafe { self.decode_uninit_supported(input, out) }
    }

    /// [`Backend::decode_uninit`] without its support check, for the
    /// dispatch, which only picks supported backends (a dozen instructions
    /// less per call, which shows on inputs of a few dozen bytes).
    ///
    /// # Safety
    /// The CPU must support the backend ([`is_supported`](Self::is_supported)).
    #[inline]
    pub(crate) unsafe fn decode_uninit_supported<T: VarInt>(
        self,
        input: &[u8],
        out: &mut [MaybeUninit<T>],
    ) -> Result<(usize, usize), BulkDecodeError> {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (caller).
            Backend::Ssse3 => unsafe {
                // Under two blocks: the blocks over a padded copy.
                if input.len() < x86_64::grid_decode::SHORT_INPUT_BYTES {
                    x86_64::ssse3::decode_slice::decode_short_input(input, out)
                } else {
                    x86_64::ssse3::decode_slice::decode_slice(input, out)
                }
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (caller).
            Backend::Avx2 => unsafe {
                if input.len() < x86_64::grid_decode::SHORT_INPUT_BYTES {
                    x86_64::avx2::decode_slice::decode_short_input(input, out)
                } else {
                    x86_64::avx2::decode_slice::decode_slice(input, out)
                }
            },
            #[cfg(all(target_arch = "x86_64", varint_turbo_avx512))]
            // SAFETY: the CPU supports the backend (caller).
            Backend::Avx512Vbmi2 => unsafe {
                // Under one chunk: its masked chunk without the chunk
                // loop's entry (Zen 5: 1-1.5 ns of 9-11 on 17-63 bytes).
                if input.len() < 64 {
                    x86_64::avx512::decode_slice::decode_short_input(input, out)
                } else {
                    x86_64::avx512::decode_slice::decode_slice(input, out)
                }
            },
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon => aarch64::neon::decode_slice::decode_slice(input, out),
            _ => scalar::decode_slice::decode_slice_scalar(input, out),
        }
    }

    /// Zigzag-decodes `values` in place (each holds the bits of a zigzag
    /// varint's unsigned value) in this backend's vector lanes: the step
    /// after the unsigned decode of [`decode_slice_zigzag`](crate::decode_slice_zigzag).
    ///
    /// # Safety
    /// The CPU must support the backend ([`is_supported`](Self::is_supported)).
    #[inline]
    pub(crate) unsafe fn zigzag_decode_in_place_supported<T: ZigZag>(self, values: &mut [T]) {
        match self {
            // SAFETY: the CPU supports the backend (caller), so AVX2.
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => unsafe { x86_64::avx2::zigzag::zigzag_decode_in_place(values) },
            // SAFETY: the CPU supports the backend (caller), so AVX-512 F/BW/VL.
            #[cfg(all(target_arch = "x86_64", varint_turbo_avx512))]
            Backend::Avx512Vbmi2 => unsafe {
                x86_64::avx512::zigzag::zigzag_decode_in_place(values)
            },
            _ => scalar::zigzag::zigzag_decode_in_place(values),
        }
    }

    /// [`count_varints`](crate::count_varints) on this backend.
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     assert_eq!(backend.count_varints(&[0x03, 0x8e, 0x02]), 2);
    /// }
    /// ```
    #[must_use]
    pub fn count_varints(self, input: &[u8]) -> usize {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx2 => unsafe { x86_64::avx2::sizes::count_varints(input) },
            #[cfg(all(target_arch = "x86_64", varint_turbo_avx512))]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx512Vbmi2 => unsafe { x86_64::avx512::sizes::count_varints(input) },
            _ => scalar::sizes::count_varints_portable(input),
        }
    }

    /// [`encoded_len_sum`](crate::encoded_len_sum) on this backend.
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     assert_eq!(backend.encoded_len_sum(&[1u32, 300]), 3);
    /// }
    /// ```
    #[must_use]
    pub fn encoded_len_sum<T: VarInt>(self, values: &[T]) -> usize {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU supports the backend (checked above), which
            // includes LZCNT.
            Backend::Avx2 => unsafe { x86_64::avx2::sizes::encoded_len_sum(values) },
            #[cfg(all(target_arch = "x86_64", varint_turbo_avx512))]
            // SAFETY: the CPU supports the backend (checked above).
            Backend::Avx512Vbmi2 => unsafe { x86_64::avx512::sizes::encoded_len_sum(values) },
            _ => scalar::sizes::encoded_len_sum_portable(values),
        }
    }

    /// [`encode_slice_into`](crate::encode_slice_into) on this backend
    /// (same results; bytes of `out` after the bytes written may be
    /// overwritten).
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    ///
    /// ```
    /// use varint_turbo::Backend;
    /// for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
    ///     let mut out = [0u8; 3];
    ///     assert_eq!(backend.encode_slice_into(&[1u32, 300], &mut out), (2, 3));
    ///     assert_eq!(out, [0x01, 0xac, 0x02]);
    /// }
    /// ```
    pub fn encode_slice_into<T: VarInt>(self, values: &[T], out: &mut [u8]) -> (usize, usize) {
        self.encode_slice_to_uninit(values, crate::arch::as_uninit(out))
    }

    /// [`encode_slice_to_uninit`](crate::encode_slice_to_uninit) on this
    /// backend: [`encode_slice_into`](Self::encode_slice_into) into bytes
    /// that may be uninitialized.
    ///
    /// # Panics
    /// If the CPU does not support the backend ([`is_supported`](Self::is_supported)).
    pub fn encode_slice_to_uninit<T: VarInt>(
        self,
        values: &[T],
        out: &mut [MaybeUninit<u8>],
    ) -> (usize, usize) {
        assert!(
            self.is_supported(),
            "the {self} backend is not supported by this CPU"
        );
        // SAFETY: the CPU supports the backend (checked above).
        unsafe { self.encode_slice_to_uninit_supported(values, out) }
    }

    /// [`encode_slice_to_uninit`](Self::encode_slice_to_uninit) without
    /// the CPU check, for the detected backend (which costs the auto path
    /// about 34 instructions per call, 8% of a 16-value encode).
    ///
    /// # Safety
    /// The CPU must support the backend ([`is_supported`](Self::is_supported)).
    #[inline]
    pub(crate) unsafe fn encode_slice_to_uninit_supported<T: VarInt>(
        self,
        values: &[T],
        out: &mut [MaybeUninit<u8>],
    ) -> (usize, usize) {
        match self {
            // Any room: the kernel's vector steps stop while `out` still
            // has room for their longest encoding, and the scalar encoder
            // finishes, so it stops exactly where that one would.
            #[cfg(all(target_arch = "x86_64", varint_turbo_avx512))]
            Backend::Avx512Vbmi2 => {
                // SAFETY: the CPU supports the backend (caller).
                unsafe { x86_64::avx512::encode_slice::encode_slice_into(values, out) }
            }
            // Four values per `pshufb` step, the word encoder (with `PDEP`
            // where it is fast) for values of 2^28 and more. Any room: it
            // stops exactly where the scalar encoder would.
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => {
                // SAFETY: the backend requires AVX2, BMI1, BMI2, LZCNT and
                // POPCNT, and the CPU supports it (caller).
                unsafe {
                    x86_64::avx2::encode_slice::encode_slice_into(
                        values,
                        out,
                        crate::cpu::pdep_is_fast(),
                    )
                }
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Ssse3 => {
                // SAFETY: the backend requires SSSE3 and POPCNT, and the
                // CPU supports it (caller).
                unsafe { x86_64::ssse3::encode_slice::encode_slice_into(values, out) }
            }
            // Any room: the NEON kernel hands the last values to the
            // scalar encoder, so it stops exactly where that one would.
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon => aarch64::neon::encode_slice::encode_slice_into(values, out),
            _ => scalar::encode_slice::encode_slice_into_scalar(values, out),
        }
    }
}

/// True if the running CPU has every listed feature: detected at run time
/// with `std`, otherwise known only from the build's target features; never
/// on other architectures or with `--cfg varint_turbo_force_scalar`.
macro_rules! cpu_has {
    ($($feature:tt),+) => {{
        #[cfg(all(target_arch = "x86_64", feature = "std", not(varint_turbo_force_scalar)))]
        {
            true $(&& std::is_x86_feature_detected!($feature))+
        }
        #[cfg(all(target_arch = "x86_64", not(feature = "std"), not(varint_turbo_force_scalar)))]
        {
            true $(&& cfg!(target_feature = $feature))+
        }
        #[cfg(any(not(target_arch = "x86_64"), varint_turbo_force_scalar))]
        {
            false
        }
    }};
}
use cpu_has;

/// Detected once, then cached: 0 = not yet, else `Backend as u8 + 1`.
static DETECTED: AtomicU8 = AtomicU8::new(0);

/// The backend the bulk functions use on this CPU: the fastest one it
/// supports, detected on first use and cached.
///
/// ```
/// let backend = varint_turbo::detected_backend();
/// assert!(backend.is_supported());
/// println!("bulk backend: {backend}");
/// ```
#[must_use]
#[inline]
pub fn detected_backend() -> Backend {
    // The crate's own unit tests can stand in another supported backend on
    // their thread (`forced`); no other build has this check.
    #[cfg(all(test, feature = "std"))]
    if let Some(backend) = forced::get() {
        return backend;
    }
    // The compile-time shortcut: a build for CPUs with every feature of
    // the best backend (`-C target-cpu=native` on an AVX-512 VBMI2 CPU)
    // needs no detection, and the dispatch folds away (Zen 5, native
    // build, 17-63-byte inputs: 0.5-1 ns of 8-11 per call).
    if cfg!(all(
        target_arch = "x86_64",
        varint_turbo_avx512,
        not(varint_turbo_force_scalar),
        target_feature = "avx2",
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vl",
        target_feature = "avx512cd",
        target_feature = "avx512vbmi",
        target_feature = "avx512vbmi2",
        target_feature = "bmi1",
        target_feature = "bmi2",
        target_feature = "lzcnt",
        target_feature = "popcnt"
    )) {
        return Backend::Avx512Vbmi2;
    }
    match DETECTED.load(Ordering::Relaxed) {
        1 => Backend::Scalar,
        2 => Backend::Ssse3,
        3 => Backend::Avx2,
        4 => Backend::Avx512Vbmi2,
        5 => Backend::Neon,
        _ => detect_backend(),
    }
}

/// The first call of [`detected_backend`]: detects and caches.
#[cold]
#[inline(never)]
fn detect_backend() -> Backend {
    let backend = Backend::ALL
        .into_iter()
        .rev()
        .find(|backend| backend.is_supported());
    let backend = backend.unwrap_or(Backend::Scalar);
    DETECTED.store(backend as u8 + 1, Ordering::Relaxed);
    backend
}

/// Test-only (the crate's unit tests, `cfg(test)`: integration tests and
/// users link a build without it): [`detected_backend`] returns a chosen
/// supported backend on the calling thread, so that the unit tests drive
/// the public API through every supported backend's dispatch on any CPU
/// (`bulk::test_dispatch`). Per thread, so that the tests running in
/// parallel keep the real one.
#[cfg(all(test, feature = "std"))]
pub(crate) mod forced {
    use super::Backend;
    use core::cell::Cell;

    std::thread_local! {
        static FORCED: Cell<Option<Backend>> = const { Cell::new(None) };
    }

    /// The backend forced on this thread, if any.
    pub(crate) fn get() -> Option<Backend> {
        FORCED.with(Cell::get)
    }

    /// Runs `f` with [`detected_backend`](super::detected_backend) giving
    /// `backend` on this thread (restored after `f`, even if it panics).
    ///
    /// # Panics
    /// If the CPU does not support `backend`.
    pub(crate) fn with_backend<R>(backend: Backend, f: impl FnOnce() -> R) -> R {
        assert!(backend.is_supported(), "{backend} is not supported here");
        struct Restore(Option<Backend>);
        impl Drop for Restore {
            fn drop(&mut self) {
                FORCED.with(|forced| forced.set(self.0));
            }
        }
        let _restore = Restore(FORCED.with(|forced| forced.replace(Some(backend))));
        f()
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// Decoding batch by batch with `decode_run_uninit` (each from where
    /// the last stopped, into a 256-slot batch) gives every backend the
    /// scalar backend's values, and its error's kind, index and offset.
    #[test]
    fn runs_of_batches_agree_with_the_scalar_decoder() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..300 {
            let mut input = Vec::new();
            for _ in 0..(next() % 2000) {
                let r = next();
                let value = match case % 4 {
                    0 => r % 128,
                    1 if r % 100 < 95 => r % 128,
                    1 => 128 + r % 16_000,
                    2 => r >> (r % 64),
                    _ => r % (1 << 14),
                };
                let (bytes, len) = crate::encode::encode(value);
                input.extend_from_slice(&bytes[..usize::from(len)]);
            }
            if !input.is_empty() && next() % 2 == 0 {
                let at = next() as usize % input.len();
                input[at] = 0xff;
                input.splice(at..at, [0xff; 10]).for_each(drop);
            }
            let mut expected = alloc::vec![MaybeUninit::<u64>::uninit(); input.len()];
            let expected = Backend::Scalar
                .decode_uninit(&input, &mut expected)
                .map(|(n, _)| {
                    // SAFETY: the decoder initialized the first n slots.
                    unsafe { core::slice::from_raw_parts(expected.as_ptr().cast::<u64>(), n) }
                        .to_vec()
                });
            for backend in Backend::ALL.into_iter().filter(|b| b.is_supported()) {
                let mut got = Vec::new();
                let mut pos = 0;
                let mut batch = [MaybeUninit::<u64>::uninit(); 256];
                let outcome = loop {
                    if pos == input.len() {
                        break Ok(got.clone());
                    }
                    match backend.decode_run_uninit(&input, pos, &mut batch) {
                        Ok((n, next_pos)) => {
                            assert!(next_pos > pos, "{backend}: no progress at {pos}");
                            // SAFETY: the decoder initialized the first n slots.
                            got.extend_from_slice(unsafe {
                                core::slice::from_raw_parts(batch.as_ptr().cast::<u64>(), n)
                            });
                            pos = next_pos;
                        }
                        Err(e) => {
                            break Err(BulkDecodeError::new(
                                e.kind(),
                                got.len() + e.index(),
                                e.offset(),
                            ))
                        }
                    }
                };
                assert_eq!(outcome, expected, "{backend}, case {case}");
            }
        }
    }
}
