/* Host-side helpers of the CGraft target. Plugins do not need this file. */
#pragma once
#include <stddef.h>

#include "graft.h"

/* The size of the 1.0 entry (through get_factory): the smallest a host
 * accepts, whatever graft_plugin_entry_t grows to (graft.h's Versioning).
 * A field appended later is read only from an entry whose struct_size
 * covers it (GRAFT_ENTRY_HAS). */
#define GRAFT_ENTRY_SIZE_1_0 ((uint32_t)(offsetof(graft_plugin_entry_t, get_factory) + sizeof(void *)))
#define GRAFT_ENTRY_HAS(entry, field) \
    ((entry)->struct_size >= offsetof(graft_plugin_entry_t, field) + sizeof((entry)->field))
_Static_assert(GRAFT_ENTRY_SIZE_1_0 == 80 || sizeof(void *) != 8, "the 1.0 entry is 80 bytes on 64-bit machines");
_Static_assert(sizeof(graft_plugin_entry_t) >= GRAFT_ENTRY_SIZE_1_0, "the entry only grows");

/* GRAFT_ENTRY_SIZE_1_0, for Swift (which imports no function-like macro). */
__attribute__((visibility("hidden"))) uint32_t graft_entry_size_1_0(void);

/* The ABI version graft.h declares, as compiled into the host. */
__attribute__((visibility("hidden"))) graft_abi_version_t graft_header_abi_version(void);
