#ifndef STAMPEDE_RUNTIME_REPORT_H
#define STAMPEDE_RUNTIME_REPORT_H

#include <stdint.h>

/* The Swift runtime's error reports, as app code causes them.

   This library defines `swift_reportError`, which the executable exports in place of the Swift
   runtime's. The concurrency runtime reports through it a `CheckedContinuation` that was dropped
   without being resumed ("SWIFT TASK CONTINUATION MISUSE: ... leaked its continuation"); the
   runtime's own version writes the message to standard error and appends it to one process-wide
   string kept for a crash report, so a run that drops many (the pending completions of every app
   process the phone killed) spends time and memory quadratic in their number. The hook below
   sees each report first: it returns nonzero when it took the report (the runtime's version is
   then not called), zero to let the runtime report it as usual. An executable that links the
   Swift runtime statically keeps the runtime's own `swift_reportError`, and the hook is not
   called. */
typedef int (*stampede_runtime_report_hook_t)(uint32_t flags, const char *message);

/* Sets the hook (NULL: every report goes to the runtime). */
void stampede_set_runtime_report_hook(stampede_runtime_report_hook_t hook);

#endif
