//! Robustness on hostile input:
//!
//! * every public safe function, called with arbitrary bytes, values and
//!   buffer lengths, returns (`Ok` or an error) instead of panicking; the
//!   only panics are the documented ones, each checked to happen exactly
//!   when documented: `encode_to_slice`/`encode_zigzag_to_slice` (and the
//!   per-backend `encode_to_slice`) when the buffer is shorter than the
//!   varint, and the `Backend` methods on a backend the CPU does not
//!   support;
//! * the modules on top (`bytes_ext`, `io`, `protobuf`, `avro`) and
//!   `encode_slice_zigzag_into` neither panic nor disagree with the
//!   single-value and bulk APIs on arbitrary bytes (the `ecosystem` fuzz
//!   target's oracle, `common::ecosystem`), and their error types format;
//! * `decode_all`/`decode_all_zigzag` allocate at most one `T` per input
//!   byte (one per terminating byte, in fact), whatever the input claims,
//!   and `decode_slice`/`count_varints`/`encoded_len_sum` allocate nothing;
//!   so do protobuf's `decode_packed` (one element per byte) and Avro's
//!   `decode_long_array` (one item per byte, up to `Vec`'s doubling),
//!   whatever count or length prefix the input claims.
//!
//! The allocation limits are measured with a counting global allocator
//! (the whole `suite` binary's: see main.rs), per thread, so tests running
//! in parallel, this module's or the others', do not disturb each other.

use crate::common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use common::*;
use proptest::prelude::*;
use varint_turbo::Backend as BulkBackend;

// ---------------------------------------------------------------------------
// Counting allocator
// ---------------------------------------------------------------------------

/// The system allocator, counting the live bytes of each thread and their
/// peak.
struct CountingAllocator;

thread_local! {
    static LIVE_BYTES: Cell<usize> = const { Cell::new(0) };
    static PEAK_BYTES: Cell<usize> = const { Cell::new(0) };
}

fn count_allocation(size: usize) {
    // `try_with`: a thread being torn down may still allocate.
    let _ = LIVE_BYTES.try_with(|live| {
        let now = live.get() + size;
        live.set(now);
        let _ = PEAK_BYTES.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn count_deallocation(size: usize) {
    let _ = LIVE_BYTES.try_with(|live| live.set(live.get().saturating_sub(size)));
}

// SAFETY: every call is forwarded to `System` unchanged; the counters are
// const-initialized thread locals without destructors, which never
// allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_allocation(layout.size());
        // SAFETY: forwarded from the caller.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_allocation(layout.size());
        // SAFETY: forwarded from the caller.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count_deallocation(layout.size());
        // SAFETY: forwarded from the caller.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_allocation(new_size);
        count_deallocation(layout.size());
        // SAFETY: forwarded from the caller.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Runs `f` and returns its result and the most bytes this thread had
/// allocated at once during the call, beyond what was live before it
/// (the result, if it owns memory, is included).
fn peak_bytes_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = LIVE_BYTES.with(Cell::get);
    PEAK_BYTES.with(|peak| peak.set(before));
    let result = f();
    let peak = PEAK_BYTES.with(Cell::get);
    (result, peak - before)
}

// ---------------------------------------------------------------------------
// No panics
// ---------------------------------------------------------------------------

/// Calls `f`, which must panic exactly when `should_panic`, with a message
/// that contains `message`.
fn panics_exactly_when(what: &str, should_panic: bool, message: &str, f: impl FnOnce()) {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => assert!(!should_panic, "{what}: did not panic"),
        Err(payload) => {
            let text = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            assert!(should_panic, "{what}: panicked: {text}");
            assert!(
                text.contains(message),
                "{what}: panic message {text:?} lacks {message:?}"
            );
        }
    }
}

/// The single-value decoders and encoders of `T` on arbitrary input.
fn single_value_functions<T: TestInt>(input: &[u8], value: u64, room: usize) {
    let _ = varint_turbo::decode::<T>(input);
    let _ = varint_turbo::decode_len::<T>(input);
    let value = T::from_u64_wrapping(value);
    let needed = varint_turbo::encoded_len(value);
    let (_, len) = varint_turbo::encode(value);
    assert_eq!(usize::from(len), needed);
    let mut buf = vec![0u8; room];
    let what = format!("encode_to_slice::<{}>({value:?}, [u8; {room}])", T::NAME);
    panics_exactly_when(&what, room < needed, "encode_to_slice", || {
        assert_eq!(varint_turbo::encode_to_slice(value, &mut buf), needed);
    });
    for backend in available_backends() {
        let _ = backend.decode::<T>(input);
        let _ = backend.encode(value);
        let what = format!("{}: {what}", backend.name());
        panics_exactly_when(&what, room < needed, "encode_to_slice", || {
            assert_eq!(backend.encode_to_slice(value, &mut buf), needed);
        });
    }
}

/// The zigzag functions of `S` on arbitrary input.
fn zigzag_functions<S: TestSigned>(input: &[u8], value: u64, room: usize) {
    let _ = varint_turbo::decode_zigzag::<S>(input);
    let value = S::from_i64_wrapping(value as i64);
    let unsigned = varint_turbo::zigzag_encode(value);
    assert_eq!(varint_turbo::zigzag_decode::<S>(unsigned), value);
    let needed = varint_turbo::encoded_len(unsigned);
    let _ = varint_turbo::encode_zigzag(value);
    let mut buf = vec![0u8; room];
    let what = format!(
        "encode_zigzag_to_slice::<{}>({value:?}, [u8; {room}])",
        S::NAME
    );
    panics_exactly_when(&what, room < needed, "encode_to_slice", || {
        assert_eq!(
            varint_turbo::encode_zigzag_to_slice(value, &mut buf),
            needed
        );
    });
}

/// The bulk functions of `T` on arbitrary input, output length and room.
fn bulk_functions<T: TestInt>(input: &[u8], out_len: usize, values: &[u64], room: usize) {
    let mut out = vec![T::default(); out_len];
    let _ = varint_turbo::decode_slice(input, &mut out);
    let _ = varint_turbo::decode_all::<T>(input);
    let values: Vec<T> = values.iter().map(|&v| T::from_u64_wrapping(v)).collect();
    let mut encoded = Vec::new();
    let _ = varint_turbo::encode_slice(&values, &mut encoded);
    let mut buf = vec![0u8; room];
    let _ = varint_turbo::encode_slice_into(&values, &mut buf);
    let _ = varint_turbo::encoded_len_sum(&values);
    for backend in BulkBackend::ALL {
        let supported = backend.is_supported();
        let what = format!("{backend} (supported: {supported})");
        panics_exactly_when(&what, !supported, "not supported by this CPU", || {
            let _ = backend.decode_slice(input, &mut out);
        });
        panics_exactly_when(&what, !supported, "not supported by this CPU", || {
            let _ = backend.count_varints(input);
        });
        panics_exactly_when(&what, !supported, "not supported by this CPU", || {
            let _ = backend.encoded_len_sum(&values);
        });
        panics_exactly_when(&what, !supported, "not supported by this CPU", || {
            let _ = backend.encode_slice_into(&values, &mut buf);
        });
    }
}

/// The zigzag bulk functions of `S` on arbitrary input.
fn bulk_zigzag_functions<S: TestSigned>(input: &[u8], out_len: usize, values: &[u64]) {
    let mut out = vec![S::default(); out_len];
    let _ = varint_turbo::decode_slice_zigzag(input, &mut out);
    let _ = varint_turbo::decode_all_zigzag::<S>(input);
    let values: Vec<S> = values
        .iter()
        .map(|&v| S::from_i64_wrapping(v as i64))
        .collect();
    let mut encoded = Vec::new();
    let _ = varint_turbo::encode_slice_zigzag(&values, &mut encoded);
}

/// Every public safe function of the crate on one arbitrary input.
fn every_public_function(input: &[u8], value: u64, room: usize, out_len: usize, values: &[u64]) {
    for_each_unsigned!(single_value_functions(input, value, room));
    for_each_signed!(zigzag_functions(input, value, room));
    for_each_unsigned!(bulk_functions(input, out_len, values, room));
    for_each_signed!(bulk_zigzag_functions(input, out_len, values));
    let _ = varint_turbo::count_varints(input);
    let _ = varint_turbo::detected_backend().to_string();
    let _ = varint_turbo::pdep_is_fast();
    let _ = varint_turbo::single_value_backend();
    if let Err(error) = varint_turbo::decode_slice::<u64>(input, &mut [0; 4]) {
        let _ = (error.to_string(), error.kind().to_string());
    }
    let _ = varint_turbo::zigzag_encode_i8(value as i8);
    let _ = varint_turbo::zigzag_decode_i8(value as u8);
    let _ = varint_turbo::zigzag_encode_i16(value as i16);
    let _ = varint_turbo::zigzag_decode_i16(value as u16);
    let _ = varint_turbo::zigzag_encode_i32(value as i32);
    let _ = varint_turbo::zigzag_decode_i32(value as u32);
    let _ = varint_turbo::zigzag_encode_i64(value as i64);
    let _ = varint_turbo::zigzag_decode_i64(value);
    let _ = varint_turbo::zigzag_encode_isize(value as isize);
    let _ = varint_turbo::zigzag_decode_isize(value as usize);
}

/// Mostly continuation bytes, so that long, overlong and cut-off varints
/// are common; lengths past the 64-byte SIMD windows.
fn hostile_bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop_oneof![4 => 0x80u8..=0xff, 2 => any::<u8>(), 1 => Just(0x80), 1 => Just(0xff)],
        0..300,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn no_public_function_panics_on_arbitrary_input(
        input in hostile_bytes(),
        value in any::<u64>(),
        shift in 0u32..64,
        room in 0usize..24,
        out_len in 0usize..400,
        values in proptest::collection::vec(any::<u64>(), 0..100),
    ) {
        // `value >> shift`: every varint length, not only 10-byte ones.
        every_public_function(&input, value >> shift, room, out_len, &values);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn ecosystem_modules_agree_on_arbitrary_input(
        step in any::<u8>(),
        control in any::<u8>(),
        input in hostile_bytes(),
    ) {
        let data = [&[step, control][..], &input].concat();
        common::ecosystem::ecosystem(&data);
        if let Err(error) = varint_turbo::protobuf::FieldKey::decode(&input) {
            let _ = error.to_string();
        }
        if let Err(error) = varint_turbo::avro::decode_long_array(&input, &mut Vec::new()) {
            let _ = (error.to_string(), error.kind(), error.offset());
        }
    }
}

#[test]
fn encode_to_slice_panics_exactly_below_the_encoded_length() {
    // Every length, every buffer size around it (proptest above samples).
    for bits in 0..=64u32 {
        let value = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let needed = reference_encode(value).len();
        for room in 0..=needed + 1 {
            let mut buf = vec![0u8; room];
            let what = format!("encode_to_slice::<u64>({value}, [u8; {room}])");
            panics_exactly_when(&what, room < needed, "encode_to_slice", || {
                assert_eq!(varint_turbo::encode_to_slice(value, &mut buf), needed);
            });
        }
    }
}

// ---------------------------------------------------------------------------
// Allocation bounded by the input
// ---------------------------------------------------------------------------

/// `decode_all::<T>` and (for the signed type of the same width)
/// `decode_all_zigzag` on `input` allocate at most one `T` per byte of
/// input, and at most one per terminating byte.
fn decode_all_allocation_is_bounded<T: TestInt>(input: &[u8]) {
    let terminators = input.iter().filter(|&&byte| byte < 0x80).count();
    let limit = terminators * std::mem::size_of::<T>();
    assert!(limit <= input.len() * std::mem::size_of::<T>());
    let (result, peak) = peak_bytes_during(|| varint_turbo::decode_all::<T>(input));
    assert!(
        peak <= limit,
        "decode_all::<{}> of {} bytes ({terminators} terminators) allocated {peak} bytes, limit {limit}",
        T::NAME,
        input.len()
    );
    drop(result);
    let (_, peak) = peak_bytes_during(|| varint_turbo::count_varints(input));
    assert_eq!(peak, 0, "count_varints allocated");
    let mut out = [T::default(); 64];
    let (_, peak) = peak_bytes_during(|| varint_turbo::decode_slice(input, &mut out));
    assert_eq!(peak, 0, "decode_slice::<{}> allocated", T::NAME);
}

fn decode_all_zigzag_allocation_is_bounded<S: TestSigned>(input: &[u8]) {
    let limit = input.iter().filter(|&&byte| byte < 0x80).count() * std::mem::size_of::<S>();
    let (result, peak) = peak_bytes_during(|| varint_turbo::decode_all_zigzag::<S>(input));
    assert!(
        peak <= limit,
        "decode_all_zigzag::<{}> of {} bytes allocated {peak} bytes, limit {limit}",
        S::NAME,
        input.len()
    );
    drop(result);
}

/// Protobuf's `decode_packed` reserves at most one element per payload
/// byte (exactly `count_varints`, but at least `Vec`'s minimum capacity:
/// 4 elements up to 1 KiB each, 8 of one byte), whatever the payload holds.
fn decode_packed_allocation_is_bounded(input: &[u8]) {
    use varint_turbo::protobuf;
    let (_, peak) = peak_bytes_during(|| protobuf::uint64::decode_packed(input, &mut Vec::new()));
    assert!(
        peak <= input.len().max(4) * 8,
        "uint64::decode_packed: {peak} bytes for {} bytes",
        input.len()
    );
    let (_, peak) = peak_bytes_during(|| protobuf::sint32::decode_packed(input, &mut Vec::new()));
    assert!(
        peak <= input.len().max(4) * 4,
        "sint32::decode_packed: {peak} bytes for {} bytes",
        input.len()
    );
    let (_, peak) = peak_bytes_during(|| protobuf::bool::decode_packed(input, &mut Vec::new()));
    assert!(
        peak <= input.len().max(8),
        "bool::decode_packed: {peak} bytes for {} bytes",
        input.len()
    );
}

/// Avro's `decode_long_array` keeps at most one item per input byte; while
/// blocks come in, `Vec` growth (capacity doubling, the old buffer live
/// during `realloc`) may hold up to 3 slots per byte, plus `Vec`'s minimum
/// of 4 slots.
fn decode_long_array_allocation_is_bounded(input: &[u8]) {
    let limit = (3 * input.len() + 4) * 8;
    let (result, peak) = peak_bytes_during(|| {
        let mut out = Vec::new();
        let result = varint_turbo::avro::decode_long_array(input, &mut out);
        (result, out.len())
    });
    assert!(
        result.1 <= input.len(),
        "{} items from {} bytes",
        result.1,
        input.len()
    );
    assert!(
        peak <= limit,
        "decode_long_array of {} bytes allocated {peak} bytes, limit {limit}",
        input.len()
    );
}

fn allocation_is_bounded(input: &[u8]) {
    for_each_unsigned!(decode_all_allocation_is_bounded(input));
    for_each_signed!(decode_all_zigzag_allocation_is_bounded(input));
    decode_packed_allocation_is_bounded(input);
    decode_long_array_allocation_is_bounded(input);
}

#[test]
fn the_counting_allocator_counts() {
    let (vec, peak) = peak_bytes_during(|| Vec::<u64>::with_capacity(1000));
    assert_eq!(peak, 8000);
    drop(vec);
    let (_, peak) = peak_bytes_during(|| ());
    assert_eq!(peak, 0);
}

#[test]
fn decode_all_on_hostile_inputs_allocates_in_proportion() {
    const LARGE: usize = 256 << 10;
    // What a packed field's length prefix or a count header would claim:
    // the largest u64 (a naive decoder would reserve that many values),
    // followed by a few real values.
    let mut huge_claim = reference_encode(u64::MAX);
    huge_claim.extend([1, 2, 3]);
    let hostile: Vec<Vec<u8>> = vec![
        huge_claim,
        // 256 KiB of continuation bytes: no value at all, so no
        // allocation, and an Overflow at offset 0.
        vec![0xff; LARGE],
        vec![0x80; LARGE],
        // 256 KiB whose last byte ends a varint that is far too long.
        [vec![0x80; LARGE - 1], vec![0x00]].concat(),
        // 256 KiB of one-byte values: the one case where the bound is
        // reached (one value per byte).
        vec![0x01; LARGE],
        // One-byte values, then a cut-off varint at the very end.
        [vec![0x7f; LARGE - 1], vec![0x80]].concat(),
        // Avro: a block claiming i64::MAX items (zigzag 0xfe.. 0x01), then
        // 256 KiB of one-byte items and no end of the array.
        [reference_encode(u64::MAX - 1), vec![0x02; LARGE]].concat(),
        // Avro: a sized block claiming i64::MIN items (zigzag u64::MAX) in
        // a byte size of i64::MAX bytes.
        [
            reference_encode(u64::MAX),
            reference_encode(u64::MAX - 1),
            vec![0x02; LARGE],
        ]
        .concat(),
    ];
    for input in &hostile {
        allocation_is_bounded(input);
    }
    let error = varint_turbo::decode_all::<u64>(&hostile[1]).unwrap_err();
    assert_eq!((error.index(), error.offset()), (0, 0));
    let (values, peak) = peak_bytes_during(|| varint_turbo::decode_all::<u8>(&hostile[4]));
    assert_eq!(values.map(|v| v.len()), Ok(LARGE));
    assert_eq!(peak, LARGE, "one u8 per input byte, allocated once");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn decode_all_allocation_is_bounded_by_the_input(input in hostile_bytes()) {
        allocation_is_bounded(&input);
    }
}
