#ifndef STAMPEDE_THREAD_STATE_H
#define STAMPEDE_THREAD_STATE_H

/* The app host that is handing a callback to app code on this thread (NULL outside one).

   A C thread-local: reading or setting it is a few instructions relative to the thread pointer,
   where pthread_getspecific/pthread_setspecific are library calls (about 35 instructions a set).
   The app path sets and resets it around every callback into app code. */
extern _Thread_local void *stampede_current_host;

/* The current host of this thread, or NULL. */
static inline void *stampede_get_current_host(void) { return stampede_current_host; }

/* Makes `host` (or NULL) this thread's current host. */
static inline void stampede_set_current_host(void *host) { stampede_current_host = host; }

#endif
