#include "thread_state.h"

#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

_Thread_local void *stampede_current_host = 0;
_Thread_local uint64_t stampede_app_entry = 0;
_Thread_local uint32_t stampede_app_user = 0;
_Thread_local uint32_t stampede_app_releasing = 0;
_Thread_local uint32_t stampede_app_piece = 0;

int stampede_hang_watch_on = 0;
_Atomic uint64_t stampede_watched_entry = 0;
_Atomic uint32_t stampede_watched_user = 0;
_Atomic int stampede_watched_busy = 0;
pthread_t stampede_watched_thread;

static int breadcrumb_fd = -1;
static const int crash_signals[] = {SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT};
#define CRASH_SIGNAL_COUNT (sizeof(crash_signals) / sizeof(crash_signals[0]))
static struct sigaction previous[CRASH_SIGNAL_COUNT];

/* Appends the decimal digits of `value` at `out`; returns the new end. */
static char *put_number(char *out, uint64_t value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0) *out++ = digits[--n];
  return out;
}

static void on_crash(int sig) {
  int k = 0;
  while (k < (int)CRASH_SIGNAL_COUNT && crash_signals[k] != sig) k++;
  if (stampede_current_host != 0 && breadcrumb_fd >= 0) {
    char line[128];
    char *p = line;
    memcpy(p, "crash ", 6);
    p += 6;
    p = put_number(p, stampede_app_entry);
    *p++ = ' ';
    p = put_number(p, stampede_app_user);
    *p++ = ' ';
    p = put_number(p, stampede_app_releasing);
    *p++ = ' ';
    p = put_number(p, (uint64_t)sig);
    *p++ = ' ';
    p = put_number(p, stampede_app_piece);
    *p++ = '\n';
    ssize_t written = write(breadcrumb_fd, line, (size_t)(p - line));
    (void)written;
    breadcrumb_fd = -1;
  }
  /* The signal takes its course: the handler before this one (or the default action) gets it. A
     fault or an illegal instruction repeats when this handler returns; a raised signal or a trap
     instruction (after which execution would go on) is raised again. */
  if (k < (int)CRASH_SIGNAL_COUNT) sigaction(sig, &previous[k], 0);
  if (sig == SIGABRT || sig == SIGTRAP) {
    raise(sig);
    /* A handler before this one may expect a fault to repeat and return (the Swift runtime's
       backtracer does); a signal sent to the thread (the hang watch's) does not repeat. */
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

int stampede_install_crash_breadcrumbs(int fd) {
  breadcrumb_fd = fd;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_crash;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_NODEFER;
  for (unsigned k = 0; k < CRASH_SIGNAL_COUNT; k++) {
    if (sigaction(crash_signals[k], &action, &previous[k]) != 0) return -1;
  }
  return 0;
}

static int hang_fd = -1;
static unsigned hang_seconds = 0;

static void *watch_hangs(void *unused) {
  (void)unused;
  uint64_t last = 0;
  unsigned still = 0;
  for (;;) {
    struct timespec second = {1, 0};
    while (nanosleep(&second, &second) != 0) {}
    if (!atomic_load_explicit(&stampede_watched_busy, memory_order_acquire)) {
      still = 0;
      continue;
    }
    uint64_t entry = atomic_load_explicit(&stampede_watched_entry, memory_order_relaxed);
    if (entry != last) {
      last = entry;
      still = 0;
      continue;
    }
    if (++still < hang_seconds) continue;
    char line[96];
    char *p = line;
    memcpy(p, "hang ", 5);
    p += 5;
    p = put_number(p, entry);
    *p++ = ' ';
    p = put_number(p, atomic_load_explicit(&stampede_watched_user, memory_order_relaxed));
    *p++ = '\n';
    ssize_t written = write(hang_fd, line, (size_t)(p - line));
    (void)written;
    pthread_kill(stampede_watched_thread, SIGABRT);
    /* Stay: a thread that ended while the runtime's backtracer lists the process's threads is one
       it fails to suspend, and it says so on standard error. */
    for (;;) pause();
  }
}

int stampede_start_hang_watch(int fd, unsigned seconds) {
  if (seconds == 0) return 0;
  hang_fd = fd;
  hang_seconds = seconds;
  stampede_hang_watch_on = 1;
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&thread, &attr, watch_hangs, 0);
  pthread_attr_destroy(&attr);
  if (rc != 0) stampede_hang_watch_on = 0;
  return rc == 0 ? 0 : -1;
}
