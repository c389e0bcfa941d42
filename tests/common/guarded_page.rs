//! A readable page between two inaccessible ones, for tests that prove
//! nothing reads or writes past the end of a slice ([`GuardedPage::tail`],
//! [`GuardedPage::tail_of`]) or before its start ([`GuardedPage::head`]).

/// Three pages from `mmap`: `PROT_NONE`, read-write, `PROT_NONE`.
pub struct GuardedPage {
    /// The start of the mapping (the leading guard page).
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
                3 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(base, libc::MAP_FAILED, "mmap failed");
            let base = base.cast::<u8>();
            for guard in [base, base.add(2 * page)] {
                assert_eq!(
                    libc::mprotect(guard.cast(), page, libc::PROT_NONE),
                    0,
                    "mprotect failed"
                );
            }
            GuardedPage { base, page }
        }
    }

    /// The readable page.
    fn readable(&self) -> *mut u8 {
        // SAFETY: in bounds of the three-page mapping.
        unsafe { self.base.add(self.page) }
    }

    /// The last `n` bytes of the readable page: one more byte would be in
    /// the guard page after it.
    pub fn tail(&mut self, n: usize) -> &mut [u8] {
        assert!(n <= self.page);
        // SAFETY: the middle page is mapped read-write and `n <= page`; the
        // borrow of `self` keeps the mapping alive and unaliased.
        unsafe { std::slice::from_raw_parts_mut(self.readable().add(self.page - n), n) }
    }

    /// The first `n` bytes of the readable page: the byte before them is
    /// in the guard page before it.
    pub fn head(&mut self, n: usize) -> &mut [u8] {
        assert!(n <= self.page);
        // SAFETY: the middle page is mapped read-write and `n <= page`; the
        // borrow of `self` keeps the mapping alive and unaliased.
        unsafe { std::slice::from_raw_parts_mut(self.readable(), n) }
    }

    /// The last `n` elements of type `T` that fit in the readable page,
    /// set to `T::default()`: one more element would be in the guard page
    /// after it.
    pub fn tail_of<T: Copy + Default>(&mut self, n: usize) -> &mut [T] {
        let size = std::mem::size_of::<T>();
        assert!(size > 0 && n.checked_mul(size).is_some_and(|bytes| bytes <= self.page));
        // The page's end is page-aligned, and every `T` used here has a
        // power-of-two size no larger than its alignment needs.
        assert_eq!(self.page % std::mem::align_of::<T>(), 0);
        assert_eq!(self.page % size, 0);
        // SAFETY: the range is inside the read-write page, aligned for `T`
        // (the page end is page-aligned and the size a multiple of the
        // alignment), and every element is initialized by the writes
        // before the slice is made; the borrow of `self` keeps the mapping
        // alive and unaliased.
        unsafe {
            let start = self.readable().add(self.page - n * size).cast::<T>();
            for i in 0..n {
                start.add(i).write(T::default());
            }
            std::slice::from_raw_parts_mut(start, n)
        }
    }

    /// The first byte of the guard page after the readable one.
    pub fn guard(&self) -> *const u8 {
        // SAFETY: in bounds of the three-page mapping.
        unsafe { self.base.add(2 * self.page) }
    }

    /// The last byte of the guard page before the readable one.
    pub fn guard_before(&self) -> *const u8 {
        // SAFETY: in bounds of the three-page mapping.
        unsafe { self.base.add(self.page - 1) }
    }
}

impl Drop for GuardedPage {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `new` mapped.
        unsafe {
            libc::munmap(self.base.cast(), 3 * self.page);
        }
    }
}
