#include "CJemallocSettings.h"

/* jemalloc reads `malloc_conf` from the program when it starts, before main.
 *
 * thp:always asks the kernel for transparent huge pages (2 MiB) for jemalloc's memory, also where
 * the system leaves them to madvise(2), as Debian and Ubuntu do. A run of a million users reads
 * per-user records spread over hundreds of megabytes, one or two records per table per event: with
 * 4 KiB pages nearly every such read also misses the TLB and walks the page table. Huge pages
 * leave those walks out (capacity-1m about 8% faster), and fewer page faults make small runs start
 * sooner. The heap figures Stampede reports count allocated bytes, which pages do not change.
 * MALLOC_CONF in the environment still overrides this. */
const char *malloc_conf = "thp:always,metadata_thp:auto";

const char *stampede_jemalloc_settings(void) { return malloc_conf; }
