#ifndef STAMPEDE_THREAD_STATE_H
#define STAMPEDE_THREAD_STATE_H

#include <stdint.h>

/* The app host that is handing a callback to app code on this thread (NULL outside one).

   A C thread-local: reading or setting it is a few instructions relative to the thread pointer,
   where pthread_getspecific/pthread_setspecific are library calls (about 35 instructions a set).
   The app path sets and resets it around every callback into app code. */
extern _Thread_local void *stampede_current_host;

/* The number of the piece of app code running on this thread (the host counts the outermost
   entries into its users' code, from 1), and whose code it is. Read by the crash breadcrumb. */
extern _Thread_local uint64_t stampede_app_entry;
extern _Thread_local uint32_t stampede_app_user;
/* Nonzero while the host lets go of objects of an app process that is gone. */
extern _Thread_local uint32_t stampede_app_releasing;

/* The current host of this thread, or NULL. */
static inline void *stampede_get_current_host(void) { return stampede_current_host; }

/* Makes `host` (or NULL) this thread's current host. */
static inline void stampede_set_current_host(void *host) { stampede_current_host = host; }

/* Records that entry `entry` into `user`'s code starts on this thread. */
static inline void stampede_set_app_entry(uint64_t entry, uint32_t user) {
  stampede_app_entry = entry;
  stampede_app_user = user;
}

/* Records that `user`'s code runs now, inside the current entry. */
static inline void stampede_set_app_user(uint32_t user) { stampede_app_user = user; }

/* Marks that objects of a process that is gone are being let go of (`delta` +1 or -1). */
static inline void stampede_add_app_releasing(int32_t delta) { stampede_app_releasing += (uint32_t)delta; }

/* Crash breadcrumbs: when app code running on a thread traps or faults (SIGILL, SIGTRAP,
   SIGSEGV, SIGBUS, SIGFPE, SIGABRT), one line goes to file descriptor `fd` before the signal takes
   its course (the handlers installed before this one, such as the Swift runtime's backtracer, then
   run as usual):

       crash <entry> <user> <releasing> <signal>\n

   written with one write(2). A supervising process reads it to run the seed again with that
   user's app process dying at that entry. Signals outside app code write nothing. Returns 0, or
   -1 when a handler could not be installed. */
int stampede_install_crash_breadcrumbs(int fd);

#endif
