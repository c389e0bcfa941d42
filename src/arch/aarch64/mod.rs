//! aarch64 backends: NEON (Advanced SIMD), part of the aarch64 baseline, so
//! every aarch64 CPU runs it and nothing is detected at run time.
//!
//! * `neon::single`: single-value kernels (one 16-byte vector per varint),
//!   reachable through [`Neon`] and tested against the scalar reference, but
//!   **not** the compile-time selection for single values (see below).
//! * `neon::decode_slice`: the bulk decoder behind [`Backend::Neon`](crate::Backend::Neon),
//!   a Masked-VByte-style `tbl` gather on a fixed grid of 8-byte chunks.
//! * `neon::encode_slice`: the bulk encoder behind [`Backend::Neon`](crate::Backend::Neon),
//!   Stream-VByte-style: four values per step, their varints squeezed
//!   together by one `tbl` with a control from a 256-entry table.
//!
//! # Why the single-value API stays scalar on aarch64
//!
//! No ARM hardware was available to measure, and qemu timings mean nothing,
//! so the choice rests on instruction counts and published latencies (Arm's
//! Cortex-A76 / Neoverse N1 and Neoverse V1 Software Optimization Guides;
//! Dougall Johnson's measured Apple M1 Firestorm tables). The figures below
//! are the load-to-result latency of one decode, the number that bounds a
//! varint-by-varint loop, where each start depends on the previous length.
//!
//! * **Scalar** (what protobuf C++ does on ARM too: one 8-byte load, bit
//!   extraction, count trailing zeros): `ldr` (4 cycles to use on N1/V1,
//!   ~3-4 on M1), `bic` of the continuation mask (`0x8080..80` is a logical
//!   immediate: 1 cycle), `rbit` + `clz` for the trailing-zero count (1 + 1;
//!   aarch64 has no `ctz` before FEAT_CSSC), then the length
//!   (`lsr`, `add`: 2) in parallel with the three shift-and-mask packing
//!   steps (`and`, `and`, `orr` with a shifted operand per step: about 2
//!   cycles each on N1/V1 and 1 on M1). About 10-12 cycles on N1/V1 and 8
//!   on M1, in about 16 one-cycle integer instructions that the 3 (N1) to
//!   6 (M1) integer pipes overlap.
//! * **NEON** (`neon/single.rs`): `ld1` (6 cycles to use for a vector load on N1/V1),
//!   `cmge #0` (2), `shrn #4` (2), `fmov` to a general register (2 on N1/V1,
//!   more on M1), `rbit` + `clz` (2), `dup` back to a vector and the lane
//!   compare (3 + 2), `and` (2), three `ushr` + `sli` pairs (4 each: 12),
//!   and `umov` of the result (2): about 33 cycles, and 3 domain crossings.
//!   NEON has no `pmovmskb` and no `pmaddubsw`, which are what make the SSSE3
//!   single-value kernel competitive on x86-64.
//!
//! So the scalar kernel is selected; the NEON kernels stay available and
//! tested (as the SSSE3 ones are on x86-64). Single-value encode is the same
//! story: the scalar encoder is `clz`, a multiply-free length formula, three
//! shift-and-mask steps and two stores, while the NEON spread adds a `dup`,
//! `tbl`, `ushl`, `and`, `xtn` and `fmov` back (all 2-cycle NEON operations)
//! to the same length and store work.
//!
//! # Why the bulk API uses NEON
//!
//! In the bulk decoder the chunks of the fixed grid do not depend on each
//! other's lengths, so latency does not add up from value to value; what
//! counts is instructions per value, and those can be counted without ARM
//! hardware. A step is 64 instructions (`u64` output) for up to 8 varints
//! of up to 4 bytes, 25 of them NEON (`tbl` with one table register is a
//! 2-cycle instruction on N1/V1/M1, issued on 2 to 4 vector pipes). Executed
//! instructions per value under `qemu-aarch64 -singlestep` (BENCHMARKS.md,
//! "aarch64"), NEON vs the scalar bulk loop: 19.9 vs 36.7 on the
//! protobuf-like mix, 4.5 vs 36.5 on 1-byte values, and equal (the
//! decoder hands over to the scalar loop) on uniform `u32`/`u64`. For
//! single values the same counting gives the NEON kernel no advantage
//! (39.5 vs 35.7 per value on the mix, equal on `u64`), on top of its longer
//! latency chain.
//!
//! Bulk **encode** goes the same way: values are independent, so the
//! encoder spreads four of them at a time into 32-bit lanes and compacts
//! them with one `tbl` and one store (`neon::encode_slice`, which has the
//! instruction counts and the reasons for a table over per-value stores).

pub(crate) mod neon;

crate::arch::backend_type!(
    /// The NEON single-value backend. Available on every aarch64 CPU
    /// (NEON is part of the baseline), so `new()` always returns `Some`.
    ///
    /// ```
    /// if let Some(neon) = varint_turbo::arch::aarch64::Neon::new() {
    ///     assert_eq!(neon.decode::<u32>(&[0xac, 0x02]), Ok((300, 2)));
    /// }
    /// ```
    Neon,
    neon::single,
    enabled: cfg!(not(varint_turbo_force_scalar))
);
