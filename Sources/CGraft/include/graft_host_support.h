/* Host-side helpers of the CGraft target. Plugins do not need this file. */
#pragma once
#include "graft.h"

/* The ABI version graft.h declares, as compiled into the host. */
__attribute__((visibility("hidden"))) graft_abi_version_t graft_header_abi_version(void);
