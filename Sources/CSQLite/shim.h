#ifndef STAMPEDE_CSQLITE_SHIM_H
#define STAMPEDE_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
