#define _GNU_SOURCE
#include "runtime_report.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

typedef void (*swift_report_error_t)(uint32_t, const char *);

static _Atomic(stampede_runtime_report_hook_t) runtime_report_hook = NULL;
static swift_report_error_t real_swift_report_error = NULL;

__attribute__((constructor)) static void resolve_real_report(void) {
  real_swift_report_error = (swift_report_error_t)dlsym(RTLD_NEXT, "swift_reportError");
}

void stampede_set_runtime_report_hook(stampede_runtime_report_hook_t hook) {
  atomic_store(&runtime_report_hook, hook);
}

/* Weak: an executable that links the Swift runtime statically (`--static-swift-stdlib`, as `make
   dist` does) keeps the runtime's own, and reports go to it as usual; linked dynamically, this one
   is the executable's, which the dynamic linker binds the runtime's libraries to first. */
__attribute__((weak)) void swift_reportError(uint32_t flags, const char *message) {
  stampede_runtime_report_hook_t hook = atomic_load(&runtime_report_hook);
  if (hook && message && hook(flags, message)) return;
  if (!real_swift_report_error) resolve_real_report();
  if (real_swift_report_error) real_swift_report_error(flags, message);
}
