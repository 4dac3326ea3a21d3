#include "thread_state.h"

_Thread_local void *stampede_current_host = 0;
