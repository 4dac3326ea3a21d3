#define _GNU_SOURCE
#include "wall_clock.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/time.h>
#include <time.h>

typedef int (*clock_gettime_t)(clockid_t, struct timespec *);
typedef int (*gettimeofday_t)(struct timeval *, void *);
typedef time_t (*time_t_fn)(time_t *);

static _Atomic(stampede_wall_clock_hook_t) wall_clock_hook = NULL;
static clock_gettime_t real_clock_gettime = NULL;
static gettimeofday_t real_gettimeofday = NULL;
static time_t_fn real_time = NULL;

/* Resolved before main (and again, harmlessly, by a thread that gets there first). */
__attribute__((constructor)) static void resolve_real_clocks(void) {
  real_clock_gettime = (clock_gettime_t)dlsym(RTLD_NEXT, "clock_gettime");
  real_gettimeofday = (gettimeofday_t)dlsym(RTLD_NEXT, "gettimeofday");
  real_time = (time_t_fn)dlsym(RTLD_NEXT, "time");
}

void stampede_set_wall_clock_hook(stampede_wall_clock_hook_t hook) { atomic_store(&wall_clock_hook, hook); }

/* The simulated wall clock in Unix nanoseconds, or -1 when the caller is not app code. */
static int64_t simulated_ns(void) {
  stampede_wall_clock_hook_t hook = atomic_load_explicit(&wall_clock_hook, memory_order_relaxed);
  return hook ? hook() : -1;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
  if (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE) {
    int64_t ns = simulated_ns();
    if (ns >= 0) {
      ts->tv_sec = (time_t)(ns / 1000000000);
      ts->tv_nsec = (long)(ns % 1000000000);
      return 0;
    }
  }
  if (!real_clock_gettime) resolve_real_clocks();
  return real_clock_gettime(id, ts);
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  int64_t ns = simulated_ns();
  if (ns >= 0) {
    tv->tv_sec = (time_t)(ns / 1000000000);
    tv->tv_usec = (suseconds_t)((ns % 1000000000) / 1000);
    return 0;
  }
  if (!real_gettimeofday) resolve_real_clocks();
  return real_gettimeofday(tv, tz);
}

time_t time(time_t *out) {
  int64_t ns = simulated_ns();
  if (ns >= 0) {
    time_t t = (time_t)(ns / 1000000000);
    if (out) *out = t;
    return t;
  }
  if (!real_time) resolve_real_clocks();
  return real_time(out);
}

int64_t stampede_real_wall_clock_ns(void) {
  struct timespec ts;
  if (!real_clock_gettime) resolve_real_clocks();
  real_clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
