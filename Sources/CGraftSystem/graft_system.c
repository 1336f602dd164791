#include "graft_system.h"

__thread void *graft_thread_reader = NULL;
