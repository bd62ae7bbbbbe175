//! Cache hints: ask the CPU to bring in memory a loop will read a few steps later, so the
//! misses of a walk over a big table overlap instead of coming one after another (an event's
//! walk, a segment's dirty sites, the site-name table built at validation).

/// Ask the CPU to bring the cache lines of the `T` at `x` in: a hint that reads nothing, so
/// results never depend on it (no-op off x86-64).
#[inline(always)]
pub(crate) fn prefetch<T>(x: *const T) {
    prefetch_head(x, std::mem::size_of::<T>());
}

/// [`prefetch`] of the lines holding the first `bytes` bytes of the `T` at `x` only.
#[inline(always)]
pub(crate) fn prefetch_head<T>(x: *const T, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = x.cast::<i8>();
        // Every 64 bytes, and the last byte (whose line may be one more when `x` is unaligned).
        for line in (0..bytes).step_by(64) {
            // SAFETY: a prefetch never faults and reads nothing the program sees; the address
            // is only computed (`wrapping_add`), never dereferenced.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(line)) };
        }
        // SAFETY: as above.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(bytes.saturating_sub(1))) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (x, bytes);
}
