//! `encoded_len` on the `LZCNT` encoding in builds whose target features do
//! not include `lzcnt` (baseline x86-64, the build users get), correct on
//! every x86-64 CPU without asking which one it is.
//!
//! The portable formula (`scalar::encoded_len`, protobuf's `VarintSize64`)
//! needs a bit scan; without `lzcnt` in the build LLVM emits `BSR`, which
//! bounds a summing loop at about 1.6-2.3 ns per value on Zen 3 (AMD
//! microcodes it). A predicted branch on small values avoided it but
//! mispredicted on mixed lengths (5-7 ns per value on zigzag deltas of 1-5
//! bytes; BENCHMARKS.md, "Single-value encodes and lengths"). `LZCNT`
//! takes one cycle. Its encoding is `BSR` with an `F3` prefix, and CPUs
//! without `LZCNT` (Intel before Haswell; every AMD CPU since K10 has it)
//! run it as `BSR` (Intel SDM vol. 2A, LZCNT; AMD APM vol. 3, LZCNT), the
//! prefix ignored, as compilers rely on when they emit `TZCNT` (`rep bsf`)
//! for generic x86-64.
//! On a nonzero input the two answers mirror each other: `LZCNT` gives
//! `63 - log2`, `BSR` gives `log2`. The same instruction on the input 1
//! gives 63 or 0, so the sum of the two answers is `126 - log2` on the one
//! CPU and `log2` on the other, and one 127-entry table indexed by it holds
//! both readings; the second answer has a constant input, so the compiler
//! computes it once per loop, not per value. No run-time detection, no
//! branch on the value.

/// `LEN_BY_SCAN[scan(value | 1) + scan(1)]` is the varint length of
/// `value`, where `scan` is the `LZCNT` encoding: on a CPU with `LZCNT`
/// the index is `lz + 63` (63..=126), on one that runs it as `BSR` it is
/// `log2` (0..=63). Entry `i` is `VarintSize64`'s `(9 * log2 + 73) / 64`
/// for `log2 = i` up to 63 and `log2 = 126 - i` from 63 (both readings
/// agree there: `lz` 0 is `log2` 63). 128 entries, so an index masked to
/// 7 bits needs no bounds check.
static LEN_BY_SCAN: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut i = 0;
    while i < 127 {
        let log2 = if i <= 63 { i } else { 126 - i };
        table[i] = ((9 * log2 + 73) / 64) as u8;
        i += 1;
    }
    table
};

/// Bytes of the varint of `value` (1..=10): [`LEN_BY_SCAN`] at
/// `lzcnt(value | 1) + lzcnt(1)` (see the module docs: the same on a CPU
/// that runs the encoding as `BSR`). Per value an `or`, the scan, an `and`
/// and a load (the scan of 1 and the table's address are loop-invariant):
/// the formula on the `LZCNT` reading (`log2` from an `xor`, a multiply, an
/// add and a shift) took 1.02-1.33x the time of prost's `BSR` formula on
/// Zen 4, whose `BSR` is fast (the prost harness's `encoded_len` rows;
/// 1.06x in a summing loop); this form 0.85-0.94x in summing loops
/// (`VARINT_BENCH_TABLES=len`, W = 256 and 4,096).
#[inline(always)]
pub(crate) fn encoded_len(value: u64) -> usize {
    // Each scan is at most 63 on a nonzero input; the mask only keeps the
    // compiler from a bounds check it cannot prove unneeded.
    let index = (leading_zeros_or_bit_index(value | 1) + leading_zeros_or_bit_index(1)) & 127;
    usize::from(LEN_BY_SCAN[index as usize])
}

/// The `LZCNT` encoding on `value` (nonzero): `63 - log2(value)` on a CPU
/// with `LZCNT`, `log2(value)` on one that runs it as `BSR`.
#[inline(always)]
fn leading_zeros_or_bit_index(value: u64) -> u64 {
    debug_assert_ne!(value, 0);
    let count: u64;
    // `lzcnt`/`bsr` set flags, which `asm!` assumes clobbered unless told
    // otherwise. `pure` + `nomem`: the same input gives the same output,
    // so the compiler may hoist the call on a constant out of loops. Every
    // x86-64 CPU runs the instruction, as `LZCNT` or as `BSR`; `BSR` leaves
    // its output undefined only for 0, and `value` is nonzero (its callers
    // pass `x | 1` or 1).
    // SAFETY: register to register only (no memory, no stack), on any CPU.
    unsafe {
        core::arch::asm!(
            "lzcnt {count}, {value}",
            count = lateout(reg) count,
            value = in(reg) value,
            options(pure, nomem, nostack),
        );
    }
    count
}

#[cfg(test)]
mod tests {
    use crate::arch::scalar;

    /// Against the portable formula at every bit length (each power of two
    /// and its neighbours), 0, `u64::MAX` and pseudo-random values of every
    /// bit length. The CI hosts have `LZCNT`; scripts/cpu-matrix.sh runs
    /// the same test as qemu64, which has not (the `BSR` reading).
    #[test]
    fn agrees_with_the_formula() {
        let check = |value: u64| {
            assert_eq!(
                super::encoded_len(value),
                scalar::encoded_len(value),
                "{value:#x}"
            );
        };
        check(0);
        check(u64::MAX);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for bits in 0..64 {
            let power = 1u64 << bits;
            for value in [power - 1, power, power + 1, power | (power - 1)] {
                check(value);
            }
            for _ in 0..64 {
                // xorshift64, shifted down to at most `bits + 1` bits.
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                check(seed >> (63 - bits));
            }
        }
    }
}
