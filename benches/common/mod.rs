//! What the benchmarks share: the clock of the timed loops, the
//! independent reference encoder that builds every workload, and the
//! workloads' value distributions.

use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::Rng;

/// Plain LEB128, one byte per loop turn: independent of the code under test.
pub fn reference_encode(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The protobuf-like mix: 60% < 2^7, 25% in [2^7, 2^14), 10% in
/// [2^14, 2^28), 5% uniform over u64 (mostly 10 bytes, like negative
/// int32/int64 fields). About 2 bytes per varint.
pub fn protobuf_mix(rng: &mut StdRng) -> u64 {
    match rng.gen_range(0..100u32) {
        0..60 => rng.gen_range(0..1 << 7),
        60..85 => rng.gen_range(1 << 7..1 << 14),
        85..95 => rng.gen_range(1 << 14..1 << 28),
        _ => rng.gen(),
    }
}

/// The clock of the timed loops. By default the thread's CPU time
/// (`CLOCK_THREAD_CPUTIME_ID`, Linux): on a shared machine it leaves out
/// the time other processes hold the core, the main noise of wall time
/// there; it still counts cache and TLB misses. `VARINT_BENCH_CLOCK=wall`
/// (or a target without that clock) uses `Instant`.
#[derive(Clone, Copy)]
pub enum Clock {
    Wall,
    #[cfg(target_os = "linux")]
    ThreadCpu,
}

impl Clock {
    /// What the benchmark log says about this clock.
    pub fn describe(self) -> &'static str {
        match self {
            Clock::Wall => "wall (Instant)",
            #[cfg(target_os = "linux")]
            Clock::ThreadCpu => "thread CPU time (set VARINT_BENCH_CLOCK=wall for wall time)",
        }
    }

    pub fn from_env() -> Self {
        match std::env::var("VARINT_BENCH_CLOCK").as_deref() {
            Ok("wall") => Clock::Wall,
            #[cfg(target_os = "linux")]
            Ok("cpu") | Err(_) => Clock::ThreadCpu,
            #[cfg(not(target_os = "linux"))]
            Err(_) => Clock::Wall,
            Ok(other) => panic!("VARINT_BENCH_CLOCK={other}: expected `wall` or `cpu` (Linux)"),
        }
    }

    /// Runs `timed` and returns how long it took on this clock.
    #[inline(always)]
    pub fn time(self, timed: impl FnOnce()) -> Duration {
        match self {
            Clock::Wall => {
                let start = Instant::now();
                timed();
                start.elapsed()
            }
            #[cfg(target_os = "linux")]
            Clock::ThreadCpu => {
                let start = thread_cpu_time();
                timed();
                thread_cpu_time().saturating_sub(start)
            }
        }
    }
}

#[cfg(target_os = "linux")]
fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}
