//! A readable page followed by an inaccessible one, for tests that prove
//! nothing reads or writes past a slice.

/// Two pages from `mmap`; the second is `PROT_NONE`.
pub struct GuardedPage {
    base: *mut u8,
    page: usize,
}

impl GuardedPage {
    pub fn new() -> Self {
        // SAFETY: plain libc calls; every result is checked.
        unsafe {
            let page = usize::try_from(libc::sysconf(libc::_SC_PAGESIZE)).expect("page size");
            assert!(page >= 4096);
            let base = libc::mmap(
                std::ptr::null_mut(),
                2 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(base, libc::MAP_FAILED, "mmap failed");
            let base = base.cast::<u8>();
            assert_eq!(
                libc::mprotect(base.add(page).cast(), page, libc::PROT_NONE),
                0,
                "mprotect failed"
            );
            GuardedPage { base, page }
        }
    }

    /// The last `n` bytes of the readable page: one more byte would be in
    /// the guard page.
    pub fn tail(&mut self, n: usize) -> &mut [u8] {
        assert!(n <= self.page);
        // SAFETY: the first page is mapped read-write and `n <= page`; the
        // borrow of `self` keeps the mapping alive and unaliased.
        unsafe { std::slice::from_raw_parts_mut(self.base.add(self.page - n), n) }
    }

    /// The first byte of the guard page.
    pub fn guard(&self) -> *const u8 {
        // SAFETY: in bounds of the two-page mapping.
        unsafe { self.base.add(self.page) }
    }
}

impl Drop for GuardedPage {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `new` mapped.
        unsafe {
            libc::munmap(self.base.cast(), 2 * self.page);
        }
    }
}
