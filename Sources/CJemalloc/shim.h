#ifndef STAMPEDE_CJEMALLOC_SHIM_H
#define STAMPEDE_CJEMALLOC_SHIM_H
#include <stddef.h>
/* jemalloc's control interface. Declared here rather than through <jemalloc/jemalloc.h> so that the
   module does not re-declare malloc and friends with jemalloc's attributes. */
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
#endif
