//! The fixed grid's geometry (7-byte chunks, blocks of 9) and the tables
//! a chunk step reads: one 64-byte [`Entry`] per pattern of 7 continuation
//! bits (the `pshufb` controls and the step's scalar bookkeeping), and the
//! lane-0 controls for varints that enter the chunk from before it. Built at
//! compile time by `const fn`s; see the parent module for the algorithm.

/// Bytes per step: the chunk whose varint ends are decoded.
pub(in crate::arch::x86_64) const CHUNK: usize = 7;
/// Window bytes before the chunk: 9, so that a 10-byte varint ending at the
/// chunk's first byte is inside the 16-byte window.
pub(in crate::arch::x86_64) const BEFORE: usize = 16 - CHUNK;
/// Chunks per block: 9 chunks of 7 bytes take 63 of the 64 continuation
/// bits that one block loads. After each block, the output count decides
/// whether the data is sparse (long varints) enough for the scalar decoder.
pub(in crate::arch::x86_64) const BLOCK_CHUNKS: usize = 9;
/// Bytes per block.
pub(in crate::arch::x86_64) const BLOCK_BYTES: usize = BLOCK_CHUNKS * CHUNK;
/// Bytes whose continuation bits a block loads (one `u64`).
pub(in crate::arch::x86_64) const MASK_BYTES: usize = 64;
/// A `pshufb` control byte that produces a zero byte.
pub(in crate::arch::x86_64) const ZERO: u8 = 0x80;

/// The decoding recipe for one chunk, indexed by its 7 continuation bits.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
pub(in crate::arch::x86_64) struct Entry {
    /// `pshufb` control for varints 1 and 2 (upper half of vector A).
    pub(in crate::arch::x86_64) rest: [u8; 16],
    /// `pshufb` control for varints 3..6 (vector B).
    pub(in crate::arch::x86_64) b: [u8; 32],
    // The scalar fields are `u32` so that the step can add and `and` them
    // straight from memory (one fused micro-op each).
    /// 8 times the number of varints that end in the chunk: the bytes of
    /// their `u64` values.
    pub(in crate::arch::x86_64) n_8: u32,
    /// `144 * first`, `first` the position of the first end in the chunk
    /// (0 if there is none): with `128 * carry` the byte offset of varint
    /// 0's control in `TABLES.lane0`, `128 * (L - 1) + 16 * first`.
    pub(in crate::arch::x86_64) first_offset: u32,
    /// `128 * tail`, `tail` the bytes after the chunk's last end: the next
    /// chunk's `carry` (7 if there is no end, to be added to the current
    /// `carry`).
    pub(in crate::arch::x86_64) tail_128: u32,
    /// `u32::MAX` if no varint ends in the chunk (`carry` grows by 7), else 0.
    pub(in crate::arch::x86_64) keep: u32,
}

/// Length of the longest of varints `1..n` of the chunk with continuation
/// bits `cont` (0 if none): what the narrow types check.
pub(in crate::arch::x86_64) const fn max_rest(cont: usize) -> u8 {
    let mut max = 0;
    let mut start = CHUNK;
    let mut i = 0;
    while i < CHUNK {
        if (cont >> i) & 1 == 0 {
            if start < CHUNK && i + 1 - start > max {
                max = i + 1 - start;
            }
            start = i + 1;
        }
        i += 1;
    }
    max as u8
}

pub(in crate::arch::x86_64) const fn entry(cont: usize) -> Entry {
    let mut e = Entry {
        rest: [ZERO; 16],
        b: [ZERO; 32],
        n_8: 0,
        first_offset: 0,
        tail_128: 128 * CHUNK as u32,
        keep: u32::MAX,
    };
    let mut start = 0;
    let mut lane = 0;
    let mut i = 0;
    while i < CHUNK {
        if (cont >> i) & 1 == 0 {
            if lane == 0 {
                e.first_offset = 144 * i as u32;
            } else {
                let len = i + 1 - start;
                let mut k = 0;
                while k < len {
                    let index = (BEFORE + start + k) as u8;
                    if lane <= 2 {
                        e.rest[(lane - 1) * 8 + k] = index;
                    } else {
                        e.b[(lane - 3) * 8 + k] = index;
                    }
                    k += 1;
                }
            }
            lane += 1;
            start = i + 1;
        }
        i += 1;
    }
    e.n_8 = 8 * lane as u32;
    if lane > 0 {
        e.tail_128 = 128 * (CHUNK - start) as u32;
        e.keep = 0;
    }
    e
}

/// The longest varint 0 a block can see, minus one: 10 bytes carried into
/// the block (a longer carry is clamped: it fails anyway), 7 more for each
/// of the 8 chunks before the last without a varint end, and the last
/// chunk's first end at most at byte 6.
pub(in crate::arch::x86_64) const LANE0_MAX_LEN_MINUS_1: usize =
    10 + CHUNK * (BLOCK_CHUNKS - 1) + CHUNK - 1;
/// Rows of the varint-0 control table: `8 * (L - 1) + first`.
pub(in crate::arch::x86_64) const LANE0_ROWS: usize = 8 * (LANE0_MAX_LEN_MINUS_1 + 1);

/// Which of the types' `MAX_LEN` (10, 5, 3, 2: bits 0..4) a varint of
/// `len` bytes exceeds.
pub(in crate::arch::x86_64) const fn too_long(len: usize) -> u8 {
    (len > 10) as u8 | ((len > 5) as u8) << 1 | ((len > 3) as u8) << 2 | ((len > 2) as u8) << 3
}

/// The bit of [`too_long`] for `T`.
pub(in crate::arch::x86_64) const fn too_long_bit(max_len: usize) -> u8 {
    too_long(max_len + 1) & !too_long(max_len)
}

/// Both tables in one static, so that one register addresses them.
#[repr(C, align(64))]
pub(in crate::arch::x86_64) struct Tables {
    /// Chunk recipes, indexed by the chunk's continuation bits.
    pub(in crate::arch::x86_64) chunks: [Entry; 1 << CHUNK],
    /// `too_long` of [`max_rest`] of each chunk: the narrow types' check of
    /// varints `1..n`.
    pub(in crate::arch::x86_64) rest_too_long: [u8; 1 << CHUNK],
    /// `pshufb` controls for varint 0, indexed by `8 * (L - 1) + e_0`:
    /// window bytes `BEFORE + e_0 - (L - 1) ..= BEFORE + e_0` into bytes
    /// `0..L`, zeros above.
    /// Byte 15 of each row (unused by the 10-byte controls) is
    /// `0x80 | too_long(L)` (still a zero byte for `pshufb`).
    pub(in crate::arch::x86_64) lane0: [[u8; 16]; LANE0_ROWS],
}

/// The tables: 128 x 64 bytes of chunk recipes, 584 x 16 bytes of varint-0
/// controls (of which the 80 of lengths up to 10 are used by valid input),
/// built at compile time.
pub(in crate::arch::x86_64) static TABLES: Tables = {
    let mut chunks = [entry(0); 1 << CHUNK];
    let mut rest_too_long = [0; 1 << CHUNK];
    let mut cont = 0;
    while cont < 1 << CHUNK {
        chunks[cont] = entry(cont);
        rest_too_long[cont] = too_long(max_rest(cont) as usize);
        cont += 1;
    }
    let mut lane0 = [[ZERO; 16]; LANE0_ROWS];
    let mut len_minus_1 = 0;
    while len_minus_1 < LANE0_ROWS / 8 {
        let mut end = 0;
        while end < 8 {
            let row = &mut lane0[len_minus_1 * 8 + end];
            // Rows of more than 10 bytes only flag the length.
            let mut k = 0;
            while k <= len_minus_1 && len_minus_1 < 10 {
                // For end = 7 (not a chunk position) the index may reach
                // 16; pshufb uses only its low 4 bits, and the row is unused.
                row[k] = (BEFORE + end - len_minus_1 + k) as u8 & 15;
                k += 1;
            }
            row[15] = ZERO | too_long(len_minus_1 + 1);
            end += 1;
        }
        len_minus_1 += 1;
    }
    Tables {
        chunks,
        rest_too_long,
        lane0,
    }
};

/// The `pshufb` control of one 8-byte group of a run of varints of at most
/// two bytes (see `twos_run` in the parent module). `index` bit 0: the byte
/// before the group is a continuation byte; bit `i + 1`: group byte `i`
/// is. The control reads a 16-byte window whose bytes 8..16 are the group
/// (byte 7 the one before it) and puts the varint ending at each byte
/// without the continuation bit into the next 16-bit word, low byte
/// first: `(byte before, byte)` when the byte before continues into it,
/// else `(byte, zero)`.
pub(in crate::arch::x86_64) const fn twos_control(index: usize) -> [u8; 16] {
    let mut control = [ZERO; 16];
    let mut word = 0;
    let mut i = 0;
    while i < 8 {
        if (index >> (i + 1)) & 1 == 0 {
            if (index >> i) & 1 == 1 {
                control[2 * word] = (7 + i) as u8;
                control[2 * word + 1] = (8 + i) as u8;
            } else {
                control[2 * word] = (8 + i) as u8;
            }
            word += 1;
        }
        i += 1;
    }
    control
}

/// [`twos_control`] for each of the 2^9 indices (8 KiB), and the number
/// of varints that end in the group (its bytes without the continuation
/// bit): one load instead of a `not`, a `movzx` and a `popcnt`.
#[repr(C, align(64))]
pub(in crate::arch::x86_64) struct TwosTable {
    pub(in crate::arch::x86_64) controls: [[u8; 16]; 1 << 9],
    pub(in crate::arch::x86_64) ends: [u8; 1 << 9],
}

/// The controls of the two-byte runs, built at compile time.
pub(in crate::arch::x86_64) static TWOS: TwosTable = {
    let mut controls = [[ZERO; 16]; 1 << 9];
    let mut ends = [0; 1 << 9];
    let mut index = 0;
    while index < 1 << 9 {
        controls[index] = twos_control(index);
        ends[index] = 8 - (index >> 1).count_ones() as u8;
        index += 1;
    }
    TwosTable { controls, ends }
};

/// The `pshufb` control of one 4-byte group of a run of varints of at most
/// three bytes (see `threes_run` in the parent module). `index` bit 0: the
/// byte two before the group is a continuation byte; bit 1: the byte
/// before it is; bit `i + 2`: group byte `i` is. The control reads an
/// 8-byte window whose bytes 4..8 are the group (bytes 2 and 3 the two
/// before it) and puts the varint ending at each group byte without the
/// continuation bit into the next 32-bit lane, low byte first, zeros
/// above it. The first such varint starts after the last byte before the
/// group without the continuation bit (at most two bytes before it: no
/// varint in a run has more than three bytes). Indices with three
/// continuation bits in a row are never looked up; their rows are built
/// as if the varint started three bytes before its end.
pub(in crate::arch::x86_64) const fn threes_control(index: usize) -> [u8; 16] {
    let mut control = [ZERO; 16];
    // Window byte `p` (2..8) continues: bit `p - 2` of the index.
    let mut start = if (index >> 1) & 1 == 0 {
        4
    } else if index & 1 == 0 {
        3
    } else {
        2
    };
    let mut lane = 0;
    let mut position = 4;
    while position < 8 {
        if (index >> (position - 2)) & 1 == 0 {
            if position - start > 2 {
                start = position - 2;
            }
            let mut k = 0;
            while start + k <= position {
                control[4 * lane + k] = (start + k) as u8;
                k += 1;
            }
            lane += 1;
            start = position + 1;
        }
        position += 1;
    }
    control
}

/// One entry of [`THREES`]: the control of a group in each of the three
/// places it takes in a 16-byte window (window bytes 4..8, 8..12 or 12..16:
/// [`threes_control`]'s positions plus 0, 4 or 8), and the number of
/// varints that end in the group. 64 bytes: the run scales its index by
/// 64 with the shift that extracts it.
#[repr(C, align(64))]
pub(in crate::arch::x86_64) struct ThreesEntry {
    pub(in crate::arch::x86_64) controls: [[u8; 16]; 3],
    pub(in crate::arch::x86_64) ends: u8,
    padding: [u8; 15],
}

/// The entries of the three-byte runs for each of the 2^6 indices (4 KiB),
/// built at compile time.
pub(in crate::arch::x86_64) static THREES: [ThreesEntry; 1 << 6] = {
    const EMPTY: ThreesEntry = ThreesEntry {
        controls: [[ZERO; 16]; 3],
        ends: 0,
        padding: [0; 15],
    };
    let mut entries = [EMPTY; 1 << 6];
    let mut index = 0;
    while index < 1 << 6 {
        let control = threes_control(index);
        let mut place = 0;
        while place < 3 {
            let mut k = 0;
            while k < 16 {
                entries[index].controls[place][k] = if control[k] == ZERO {
                    ZERO
                } else {
                    control[k] + 4 * place as u8
                };
                k += 1;
            }
            place += 1;
        }
        entries[index].ends = 4 - (index >> 2).count_ones() as u8;
        index += 1;
    }
    entries
};
