#ifndef STAMPEDE_RANDOM_BYTES_H
#define STAMPEDE_RANDOM_BYTES_H

#include <stddef.h>

/* The random bytes app code draws: `Int.random(in:)`, `Double.random(in:)`, `shuffled()`,
   `randomElement()` and `SystemRandomNumberGenerator` all come from the Swift runtime's
   `swift_stdlib_random`, which reads `syscall(SYS_getrandom, …)`. This library defines `syscall`
   in the executable in place of the C library's: the hook below fills the buffer and returns
   nonzero while a virtual user's code runs (its bytes then come from the run's seed, so a retry's
   jitter is the same in every run of a seed, in a debug or a release build); it returns zero
   elsewhere, and the system answers. Every other system call passes through unchanged. The same
   hook fills the file Foundation's `UUID()` opens as /dev/urandom (this library's `open`). */
typedef int (*stampede_random_hook_t)(void *buffer, size_t count);

/* Sets the hook (NULL: the runtime's randomness always). */
void stampede_set_random_hook(stampede_random_hook_t hook);

#endif
