#define _GNU_SOURCE
#include "random_bytes.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* Foundation's `UUID()` reads its 16 random bytes from /dev/urandom, opened with `open`: while app
   code runs (the hook takes the bytes), the opened file is an anonymous one holding bytes of the
   user's stream instead, so a UUID, and a dictionary keyed by UUIDs, is the same in every run of a
   seed. Every other `open` passes through unchanged. */
typedef int (*open_t)(const char *, int, ...);
static open_t real_open = NULL;

int open(const char *path, int flags, ...) {
  unsigned mode = 0;
  if (flags & (O_CREAT | __O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, unsigned);
    va_end(ap);
  }
  if (path && (strcmp(path, "/dev/urandom") == 0 || strcmp(path, "/dev/random") == 0)) {
    stampede_random_hook_t hook = atomic_load_explicit(&random_hook, memory_order_relaxed);
    unsigned char bytes[256];
    if (hook && hook(bytes, sizeof bytes)) {
      int fd = memfd_create("stampede-random", MFD_CLOEXEC);
      if (fd >= 0) {
        if (write(fd, bytes, sizeof bytes) == (ssize_t)sizeof bytes && lseek(fd, 0, SEEK_SET) == 0) return fd;
        close(fd);
      }
    }
  }
  if (!real_open) real_open = (open_t)dlsym(RTLD_NEXT, "open");
  return real_open(path, flags, mode);
}
