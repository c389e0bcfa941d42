//! The single-value decoders' path past the 1-byte test (`crate::decode`,
//! `decode_wrapping` and what is built on them), as a routine in assembly
//! entered by a `call` in an `asm!` block that names the three registers
//! it changes: `r10` and `r11` (input and output) and `r9`.
//!
//! Why: a Rust function call clobbers every caller-saved register. A
//! parser's read function with such a call on its path to the kernel keeps
//! its live values in callee-saved registers and saves them at its entry,
//! on every varint, the 1-byte ones too (quick-protobuf's out-of-line
//! `read_varint64`: five saves, 42 instructions per 1-byte varint against
//! 29 for its own byte loop). Inlining the whole kernel instead made the
//! read functions too big to be inlined into their hosts' loops (apache-
//! avro's `zag_i32` into its serde deserializer, quick-protobuf's
//! `read_varint32` into its packed loop). This call leaves every register
//! but those three as it was, so the caller's values stay where they are,
//! and its call site is a few bytes: one shape fits an out-of-line read
//! function and an inlined loop. (LLVM's `preserve_most` convention does
//! this for C; Rust has no stable form of it.) `r9`, `r10` and `r11` come
//! last among the caller-saved registers in LLVM's allocation order, so a
//! caller is the least likely to hold a value there. BENCHMARKS.md,
//! "Crates not in the repository", has the measurements.
//!
//! The routines decode by the `u64` wrapping rule (at most 10 bytes, the
//! low 64 bits kept, a 10th byte of `0x02..=0x7f` accepted and flagged);
//! the caller applies its type's rules to the value and length. The
//! algorithm is the scalar kernel's (`arch::scalar::single`): 2- and
//! 3-byte varints by predicted branches; from 4 bytes one 8-byte load, the
//! first stop bit for the length (no branch on it: mixed lengths would
//! mispredict it), the 7-bit groups packed by three shift-and-mask steps
//! (one `PEXT` in builds where it is fast), bytes 8 and 9 without a branch
//! between 9 and 10 bytes. An input of fewer than 10 bytes (the last
//! varints of a message or a buffer) takes the 2- and 3-byte branches once
//! its length is compared with 2 and 3, and a byte loop for the rest; both
//! read nothing past its end. The 32-bit types' routine first tests
//! for exactly 5 bytes, as the scalar kernel does for `u32`.
//!
//! Naked functions are stable since Rust 1.88; older compilers (the MSRV
//! is 1.85), other targets (x32 too: its pointers and `usize` are 32-bit,
//! and `asm!` leaves a narrower input's upper register bits undefined) and
//! `--cfg varint_turbo_force_scalar` build the portable path
//! (`varint_turbo_naked`, set by build.rs).

/// What the routine returns in place of a length for a varint whose input
/// ends while its continuation bits are set (fewer than 10 bytes).
pub(crate) const TRUNCATED: usize = 0;
/// What the routine returns in place of a length for ten continuing bytes.
pub(crate) const OVERFLOW: usize = usize::MAX;
/// What the routine returns in place of the length 10 where the 10th byte
/// is above `0x01`: the wrapping rule keeps the varint (its bit 0 is bit 63
/// of the value), Go protowire's rejects it. The length with bit 63 set:
/// like the other codes, beyond any slice's length (at most `isize::MAX`),
/// so that one compare with the input's length rejects all of them.
pub(crate) const LAX_TENTH: usize = 1 << (usize::BITS - 1) | 10;

/// The `asm!` call of `$routine` on `$input`, its results into `$value`
/// and `$len` (the register convention of this module).
macro_rules! call {
    ($routine:ident, $input:ident, $value:ident, $len:ident) => {
        core::arch::asm!(
            "call {routine}",
            routine = sym $routine,
            inout("r10") $input.as_ptr() => $value,
            inout("r11") $input.len() => $len,
            lateout("r9") _,
            options(pure, readonly),
        )
    };
}

/// Decodes the varint at the start of `input` by the `u64` wrapping rule:
/// its value (the low 64 bits) and its length (1..=10), or in place of the
/// length [`TRUNCATED`], [`OVERFLOW`] or [`LAX_TENTH`]. Reads only bytes of
/// `input`. `five_byte_case` (a constant: a 32-bit caller's type) takes the
/// routine with a predicted 5-byte case.
///
/// The length is computed in assembly: a caller that relies on it for
/// memory safety compares it with `input.len()` first.
#[inline(always)]
pub(crate) fn decode_u64_wrapping(input: &[u8], five_byte_case: bool) -> (u64, usize) {
    let value: u64;
    let len: usize;
    // Both routines read only `input.len()` bytes from `input.as_ptr()`
    // (below 10 bytes the 2- and 3-byte branches after a compare of the
    // length, and the byte loop; at least 10 readable for the 8-byte
    // load and bytes 8 and 9), write no memory but the return address and,
    // in the byte loop, the registers they save, below the stack pointer
    // (allowed: no `nostack`), and change only `r9`, `r10`, `r11` and the
    // flags (the `asm!` default). `pure` + `readonly`: the outputs depend
    // only on the inputs and the bytes they point to.
    if five_byte_case {
        // SAFETY: as said above, for `routine_32`.
        unsafe { call!(routine_32, input, value, len) };
    } else {
        // SAFETY: as said above, for `routine_64`.
        unsafe { call!(routine_64, input, value, len) };
    }
    (value, len)
}

/// Packs the 7-bit groups of `$x` (8 bytes, continuation bits included)
/// into its low 56 bits, with `$t` as scratch: `pack_7bit_groups` of the
/// scalar kernel, each step's high half found as `x ^ low` (what is left
/// once the low half is taken out) instead of with a second mask. The masks
/// are read from the constants after the routine (labels 30-33), so that
/// no register holds them.
#[cfg(not(all(varint_turbo_fast_pdep, target_feature = "bmi2")))]
macro_rules! pack {
    ($x:literal, $t:literal) => {
        concat!(
            "and ",
            $x,
            ", qword ptr [rip + 31f]\n",
            // 8 groups of 7 bits in 8-bit slots -> 4 of 14 in 16-bit slots,
            // -> 2 of 28 in 32-bit slots, -> 1 of 56.
            pack_step!($x, $t, "qword ptr [rip + 32f]", "1"),
            pack_step!($x, $t, "qword ptr [rip + 33f]", "2"),
            pack_step!($x, $t, "0x0fffffff", "4"),
        )
    };
}

/// One step of `pack`: `low = x & mask; x = low | (x ^ low) >> shift`.
#[cfg(not(all(varint_turbo_fast_pdep, target_feature = "bmi2")))]
macro_rules! pack_step {
    ($x:literal, $t:literal, $mask:literal, $shift:literal) => {
        concat!(
            "mov ", $t, ", ", $x, "\n", "and ", $t, ", ", $mask, "\n", "xor ", $x, ", ", $t, "\n",
            "shr ", $x, ", ", $shift, "\n", "or ", $x, ", ", $t, "\n",
        )
    };
}

/// `PEXT` of the payload bits, in builds that know it is fast
/// (`arch::selected`).
#[cfg(all(varint_turbo_fast_pdep, target_feature = "bmi2"))]
macro_rules! pack {
    ($x:literal, $t:literal) => {
        concat!("pext ", $x, ", ", $x, ", qword ptr [rip + 31f]\n")
    };
}

/// A DWARF call-frame directive of the routines, on the object formats
/// that take them (ELF, Mach-O): with it a debugger, a profiler or a
/// backtrace unwinds through a routine (the byte loop's pushes included);
/// a naked function gets no such record from the compiler. COFF targets
/// (Windows, UEFI) describe frames otherwise (`.seh_*`) and get none: as
/// before, they cannot unwind from inside a routine.
#[cfg(not(any(windows, target_os = "uefi")))]
macro_rules! cfi {
    ($directive:literal) => {
        $directive
    };
}

/// See the other `cfi`: nothing on COFF targets.
#[cfg(any(windows, target_os = "uefi"))]
macro_rules! cfi {
    ($directive:literal) => {
        ""
    };
}

/// Defines a routine. In: `r10` the input's address, `r11` its length.
/// Out: `r10` the value, `r11` the length or a code ([`TRUNCATED`],
/// [`OVERFLOW`], [`LAX_TENTH`]). Changes `r9` and the flags; every other
/// register is as it was (the byte loop saves what it uses beyond those on
/// the stack). `$five` is inserted where the first 8 bytes are loaded
/// (`r11`): a test that may jump to label 8, the 5-byte varint.
macro_rules! routine {
    ($(#[$doc:meta])* $name:ident, $five:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Not a C function: only `decode_u64_wrapping`'s `asm!` call
        /// may enter it, with the registers this module describes, `r10`
        /// the address of `r11` readable bytes.
        #[unsafe(naked)]
        unsafe extern "C" fn $name() {
            core::arch::naked_asm!(
                cfi!(".cfi_startproc"),
                "cmp r11, 10",
                "jb 20f",
                // At least 10 readable bytes. 1 byte (the callers test it first;
                // here for any input).
                "movzx r11d, byte ptr [r10]",
                "test r11b, r11b",
                "jns 11f",
                // 2 bytes.
                "test byte ptr [r10 + 1], 0x80",
                "jnz 3f",
                // 2 bytes, `r11d` the first (label 12, also for inputs of fewer
                // than 10 bytes).
                "12:",
                "movzx r10d, byte ptr [r10 + 1]",
                "shl r10d, 7",
                "and r11d, 0x7f",
                "or r10d, r11d",
                "mov r11d, 2",
                "ret",
                // 3 bytes.
                "3:",
                "test byte ptr [r10 + 2], 0x80",
                "jnz 4f",
                // 3 bytes, `r11d` the first (label 13, as 12).
                "13:",
                "movzx r9d, byte ptr [r10 + 1]",
                "movzx r10d, byte ptr [r10 + 2]",
                "and r9d, 0x7f",
                "shl r9d, 7",
                "shl r10d, 14",
                "and r11d, 0x7f",
                "or r10d, r9d",
                "or r10d, r11d",
                "mov r11d, 3",
                "ret",
                // 4 to 10 bytes: `r11` the first 8, `r9` their stop bits (0x80
                // where a byte ends the varint).
                "4:",
                "mov r11, qword ptr [r10]",
                $five,
                "mov r9, r11",
                "not r9",
                "and r9, qword ptr [rip + 30f]",
                "jz 5f",
                // 4 to 8: the bytes up to the first stop, packed; the length from
                // the stop's position.
                "lea r10, [r9 - 1]",
                "xor r10, r9",
                "and r11, r10",
                "bsf r9, r9",
                "shr r9d, 3",
                pack!("r11", "r10"),
                "mov r10, r11",
                "lea r11, [r9 + 1]",
                "ret",
                // 8 continuing bytes: byte 8 ends the varint (9 bytes) or byte 9
                // does (10; its bit 0 is bit 63, its other bits are dropped), or
                // the varint is too long. No branch between 9 and 10 bytes: for
                // uniform `u64`s they are a coin toss (as in the scalar kernel).
                // `r9d` = bytes 8 and 9.
                "5:",
                pack!("r11", "r9"),
                "movzx r9d, word ptr [r10 + 8]",
                "mov r10d, r9d",
                "and r10d, 0x7f",
                "shl r10, 56",
                "or r11, r10",
                // `r10` = 1 if byte 8 continues, else 0; byte 9 is kept only then.
                "mov r10d, r9d",
                "shr r10d, 7",
                "and r10d, 1",
                "shr r9d, 8",
                "neg r10",
                "and r9d, r10d",
                "neg r10",
                "test r9b, r9b",
                "js 7f",
                // A 10th byte above 0x01 to label 9: a branch no encoder's output
                // takes, off the length's dependency chain (`LAX_TENTH` computed
                // into the length by `cmp`/`cmc`/`rcr` put three more steps on it:
                // uniform `u64`s in a parse loop ran at 0.88 of their speed
                // without the routine, 1.00 with the branch). The 10th byte's bit
                // 0 is bit 63; the length is 9 + `r10`.
                "cmp r9d, 2",
                "jae 9f",
                "shl r9, 63",
                "or r11, r9",
                "lea r9, [r10 + 9]",
                "mov r10, r11",
                "mov r11, r9",
                "ret",
                "9:",
                "shl r9, 63",
                "or r11, r9",
                "mov r10, r11",
                "movabs r11, {lax_tenth}",
                "ret",
                "7:",
                "mov r11, -1",
                "ret",
                "11:",
                "mov r10, r11",
                "mov r11d, 1",
                "ret",
                // Exactly 5 bytes (where `$five` tests for them).
                "8:",
                "and r11, qword ptr [rip + 36f]",
                pack!("r11", "r10"),
                "mov r10, r11",
                "mov r11d, 5",
                "ret",
                // Fewer than 10 bytes: a varint of 2 or 3 bytes by the branches
                // above, once the input's length is known to hold it (the last
                // varints of a message, a buffer, a sub-message); the rest byte
                // by byte.
                "20:",
                "cmp r11, 2",
                "jb 25f",
                "test byte ptr [r10 + 1], 0x80",
                "jz 26f",
                "cmp r11, 3",
                "jb 25f",
                "test byte ptr [r10 + 2], 0x80",
                "jnz 25f",
                "movzx r11d, byte ptr [r10]",
                "test r11b, r11b",
                "jns 11b",
                "jmp 13b",
                "26:",
                "movzx r11d, byte ptr [r10]",
                "test r11b, r11b",
                "jns 11b",
                "jmp 12b",
                // Byte by byte up to the input's end. `r10` the cursor, `r11` the
                // end, `rdx` the start, `rax` the value, `r9` the shift, `r8` the
                // byte.
                "25:",
                "push rax",
                cfi!(".cfi_adjust_cfa_offset 8"),
                "push rcx",
                cfi!(".cfi_adjust_cfa_offset 8"),
                "push rdx",
                cfi!(".cfi_adjust_cfa_offset 8"),
                "push r8",
                cfi!(".cfi_adjust_cfa_offset 8"),
                "mov rdx, r10",
                "add r11, r10",
                "xor eax, eax",
                "xor ecx, ecx",
                "21:",
                "cmp r10, r11",
                "jae 23f",
                "movzx r8d, byte ptr [r10]",
                "add r10, 1",
                // CF = the continuation bit, which `btr` clears.
                "btr r8d, 7",
                "jnc 22f",
                "shl r8, cl",
                "or rax, r8",
                "add ecx, 7",
                "jmp 21b",
                "22:",
                "shl r8, cl",
                "or rax, r8",
                "mov r11, r10",
                "sub r11, rdx",
                "mov r10, rax",
                "jmp 24f",
                // The input ended inside the varint (at most 9 bytes, all
                // continuing).
                "23:",
                "xor r11d, r11d",
                "24:",
                "pop r8",
                cfi!(".cfi_adjust_cfa_offset -8"),
                "pop rdx",
                cfi!(".cfi_adjust_cfa_offset -8"),
                "pop rcx",
                cfi!(".cfi_adjust_cfa_offset -8"),
                "pop rax",
                cfi!(".cfi_adjust_cfa_offset -8"),
                "ret",
                // The masks, 8-byte aligned, in the routine's own section (read
                // only; no data section name that differs between object formats).
                ".p2align 3",
                "30:",
                ".quad 0x8080808080808080",
                "31:",
                ".quad 0x7f7f7f7f7f7f7f7f",
                "32:",
                ".quad 0x007f007f007f007f",
                "33:",
                ".quad 0x00003fff00003fff",
                "34:",
                ".quad 0x8080808080",
                "35:",
                ".quad 0x0080808080",
                "36:",
                ".quad 0xffffffffff",
                cfi!(".cfi_endproc"),
                lax_tenth = const LAX_TENTH,
            )
        }
    };
}

routine!(
    /// The routine for 64-bit types (and `u8`, `u16`): the length from
    /// the stop bits from 4 bytes on, with no branch on it.
    routine_64,
    ""
);

routine!(
    /// The routine for 32-bit types: as `routine_64` with a test for
    /// exactly 5 bytes before the stop bits, as the scalar kernel has for
    /// `u32`. Full-width `u32`s (random ids, hashes) are 94% 5-byte
    /// varints; the branch is predicted for them, and never taken (so
    /// also predicted) for smaller values: either way the caller's next
    /// read need not wait for this length (1.3-1.7x on uniform `u32`s).
    routine_32,
    concat!(
        "mov r9, r11\n",
        "and r9, qword ptr [rip + 34f]\n",
        "cmp r9, qword ptr [rip + 35f]\n",
        "je 8f\n",
    )
);
