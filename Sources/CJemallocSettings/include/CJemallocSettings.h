#ifndef STAMPEDE_CJEMALLOC_SETTINGS_H
#define STAMPEDE_CJEMALLOC_SETTINGS_H
/* The options this program sets for jemalloc, as jemalloc reads them (see settings.c). */
const char *stampede_jemalloc_settings(void);
#endif
