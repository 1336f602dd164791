// expect: invalid_descriptor
// why: graft_entry returns NULL instead of an entry.
#include "graft.h"

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return NULL; /* the fault */
}
