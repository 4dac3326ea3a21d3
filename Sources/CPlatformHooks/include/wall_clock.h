#ifndef STAMPEDE_WALL_CLOCK_H
#define STAMPEDE_WALL_CLOCK_H

#include <stdint.h>

/* The simulated wall clock that app code reads.

   This library defines `clock_gettime`, `gettimeofday` and `time`, which the executable exports in
   place of the C library's: Foundation's `Date()` reads `clock_gettime(CLOCK_REALTIME)`. While a
   virtual user's code runs on the calling thread, the hook below returns the simulated time (Unix
   nanoseconds) and the wall clock reads it; everywhere else (the hook returns a negative number, or
   none is set) the C library's clock answers as usual. Only the wall clock is simulated: the
   monotonic clocks (what the allocator, the concurrency runtime and timing code read) are always
   the C library's. */
typedef int64_t (*stampede_wall_clock_hook_t)(void);

/* Sets the hook (NULL: the wall clock is always the C library's). */
void stampede_set_wall_clock_hook(stampede_wall_clock_hook_t hook);

/* The C library's CLOCK_REALTIME, in Unix nanoseconds, whatever the hook says. */
int64_t stampede_real_wall_clock_ns(void);

#endif
