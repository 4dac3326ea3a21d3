#ifndef STAMPEDE_CPREFETCH_H
#define STAMPEDE_CPREFETCH_H
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/* A hint that the cache line holding `address` will be read and written soon: the processor
   starts loading it and goes on. It never faults and changes no value, so a simulation that
   hints the records of its next event computes exactly what it computes without the hints. */
static inline __attribute__((always_inline)) void stampede_prefetch(const void *address) {
  __builtin_prefetch(address, 1, 3);
}

/* Asks the kernel to back the whole 2 MiB pages inside [start, start + bytes) with transparent
   huge pages (where the system leaves them to madvise(2), as Debian does). A hint: it changes no
   value, and fails harmlessly where huge pages are off. */
static inline void stampede_advise_huge_pages(void *start, size_t bytes) {
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t from = ((uintptr_t)start + huge - 1) & ~(huge - 1);
  uintptr_t to = ((uintptr_t)start + bytes) & ~(huge - 1);
  if (to > from) (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
}

/* The pointer in `*cell`, read so that everything written before it was published (by
   stampede_store_release) is seen: for tables that concurrent runs share and one of them may
   replace. */
static inline void *stampede_load_acquire(void *const *cell) { return __atomic_load_n(cell, __ATOMIC_ACQUIRE); }

/* Publishes `value` in `*cell` after everything written before it. */
static inline void stampede_store_release(void **cell, void *value) { __atomic_store_n(cell, value, __ATOMIC_RELEASE); }
#endif
