#ifndef STAMPEDE_CPREFETCH_H
#define STAMPEDE_CPREFETCH_H
/* A hint that the cache line holding `address` will be read and written soon: the processor
   starts loading it and goes on. It never faults and changes no value, so a simulation that
   hints the records of its next event computes exactly what it computes without the hints. */
static inline __attribute__((always_inline)) void stampede_prefetch(const void *address) {
  __builtin_prefetch(address, 1, 3);
}
#endif
