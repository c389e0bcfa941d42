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
//! gives 63 or 0, and `log2` is the first answer xor the second, on either
//! CPU; the second has a constant input, so the compiler computes it once
//! per loop, not per value. No run-time detection, no branch on the value.

/// Bytes of the varint of `value` (1..=10): `(9 * log2 + 73) / 64` with
/// `log2 = lzcnt(value | 1) ^ lzcnt(1)` (see the module docs: the same on
/// a CPU that runs the encoding as `BSR`).
#[inline(always)]
pub(crate) fn encoded_len(value: u64) -> usize {
    let log2 = leading_zeros_or_bit_index(value | 1) ^ leading_zeros_or_bit_index(1);
    ((log2 * 9 + 73) >> 6) as usize
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
