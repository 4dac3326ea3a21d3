#ifndef STAMPEDE_THREAD_STATE_H
#define STAMPEDE_THREAD_STATE_H

#include <pthread.h>
#include <stdatomic.h>
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
/* The piece of the current entry running now: 0 for the outermost entry's own code, k for the
   k-th nested entry into a user's code or release of a user's objects since it began. */
extern _Thread_local uint32_t stampede_app_piece;

/* The current host of this thread, or NULL. */
static inline void *stampede_get_current_host(void) { return stampede_current_host; }

/* Makes `host` (or NULL) this thread's current host. */
static inline void stampede_set_current_host(void *host) { stampede_current_host = host; }

/* The hang watch (see stampede_start_hang_watch): whether it runs, and the entry it watches. */
extern int stampede_hang_watch_on;
extern _Atomic uint64_t stampede_watched_entry;
extern _Atomic uint32_t stampede_watched_user;
extern _Atomic int stampede_watched_busy;
extern pthread_t stampede_watched_thread;

/* Records that entry `entry` into `user`'s code starts on this thread. */
static inline void stampede_set_app_entry(uint64_t entry, uint32_t user) {
  stampede_app_entry = entry;
  stampede_app_user = user;
  stampede_app_piece = 0;
  if (stampede_hang_watch_on) {
    stampede_watched_thread = pthread_self();
    atomic_store_explicit(&stampede_watched_user, user, memory_order_relaxed);
    atomic_store_explicit(&stampede_watched_entry, entry, memory_order_relaxed);
    atomic_store_explicit(&stampede_watched_busy, 1, memory_order_release);
  }
}

/* The outermost entry into users' code on this thread returned. */
static inline void stampede_app_entry_returned(void) {
  if (stampede_hang_watch_on) atomic_store_explicit(&stampede_watched_busy, 0, memory_order_release);
}

/* Records that `user`'s code runs now, inside the current entry. */
static inline void stampede_set_app_user(uint32_t user) { stampede_app_user = user; }

/* Records that `user`'s code runs now as piece `piece` of the current entry (a nested entry, a
   release of its objects, or the code such a piece returned to). */
static inline void stampede_set_app_piece(uint32_t user, uint32_t piece) {
  stampede_app_user = user;
  stampede_app_piece = piece;
}

/* Marks that objects of a process that is gone are being let go of (`delta` +1 or -1). */
static inline void stampede_add_app_releasing(int32_t delta) { stampede_app_releasing += (uint32_t)delta; }

/* Crash breadcrumbs: when app code running on a thread traps or faults (SIGILL, SIGTRAP,
   SIGSEGV, SIGBUS, SIGFPE, SIGABRT), one line goes to file descriptor `fd` before the signal takes
   its course (the handlers installed before this one, such as the Swift runtime's backtracer, then
   run as usual):

       crash <entry> <user> <releasing> <signal> <piece>\n

   written with one write(2). A supervising process reads it to run the seed again with that
   user's app process dying at that entry and piece. Signals outside app code write nothing. Returns 0, or
   -1 when a handler could not be installed. */
int stampede_install_crash_breadcrumbs(int fd);

/* The hang watch: a thread that looks once a second at the entry into users' code running now
   (one thread runs users' code in a watched process). When one entry has run for `seconds`
   without returning (an endless loop, a spin on a flag only the same thread could set), it writes

       hang <entry> <user>\n

   to `fd` and sends SIGABRT to the thread running it, whose crash breadcrumb and the runtime's
   backtrace then follow. Returns 0, or -1 when the thread could not be started. */
int stampede_start_hang_watch(int fd, unsigned seconds);

#endif
