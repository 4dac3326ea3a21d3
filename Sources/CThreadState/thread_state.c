#include "thread_state.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

_Thread_local void *stampede_current_host = 0;
_Thread_local uint64_t stampede_app_entry = 0;
_Thread_local uint32_t stampede_app_user = 0;
_Thread_local uint32_t stampede_app_releasing = 0;

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
    *p++ = '\n';
    ssize_t written = write(breadcrumb_fd, line, (size_t)(p - line));
    (void)written;
    breadcrumb_fd = -1;
  }
  /* The signal takes its course: the handler before this one (or the default action) gets it. A
     fault or an illegal instruction repeats when this handler returns; a raised signal or a trap
     instruction (after which execution would go on) is raised again. */
  if (k < (int)CRASH_SIGNAL_COUNT) sigaction(sig, &previous[k], 0);
  if (sig == SIGABRT || sig == SIGTRAP) raise(sig);
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
