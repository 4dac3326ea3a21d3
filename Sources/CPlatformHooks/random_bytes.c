#define _GNU_SOURCE
#include "random_bytes.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/syscall.h>

typedef long (*syscall_t)(long, ...);

static _Atomic(stampede_random_hook_t) random_hook = NULL;
static syscall_t real_syscall = NULL;

__attribute__((constructor)) static void resolve_real_syscall(void) {
  real_syscall = (syscall_t)dlsym(RTLD_NEXT, "syscall");
}

void stampede_set_random_hook(stampede_random_hook_t hook) { atomic_store(&random_hook, hook); }

/* The Swift runtime's `swift_stdlib_random` reads the system's randomness with
   `syscall(SYS_getrandom, buffer, count, 0)`: while app code runs, the hook answers instead. Every
   other system call is passed on unchanged, with the six argument words the kernel takes (words a
   caller did not pass are ignored by the call it makes). */
long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long);
  long a4 = va_arg(ap, long), a5 = va_arg(ap, long), a6 = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_getrandom && a2 >= 0) {
    stampede_random_hook_t hook = atomic_load_explicit(&random_hook, memory_order_relaxed);
    if (hook && hook((void *)a1, (size_t)a2)) return a2;
  }
  if (!real_syscall) resolve_real_syscall();
  return real_syscall(number, a1, a2, a3, a4, a5, a6);
}
