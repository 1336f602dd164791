// expect: invalid_descriptor
// why: its name carries a terminal escape code (clear the screen), which would reach every terminal that lists it.
#include <string.h>

#include "graft.h"

static bool init(const graft_host_t *host) {
    (void)host;
    return true;
}

static const void *get_factory(const char *factory_id) {
    (void)factory_id;
    return NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.bad-entry-control",
    .version = "1.0.0",
    .name = "Evil\x1b[2J name",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
