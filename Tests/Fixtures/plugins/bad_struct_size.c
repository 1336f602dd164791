// expect: invalid_descriptor
// why: struct_size is smaller than sizeof(graft_plugin_entry_t), as if built from a header without get_factory.
#include <stddef.h>

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
    .struct_size = offsetof(graft_plugin_entry_t, get_factory) /* the fault */,
    .id = "test.bad-struct-size",
    .version = "1.0.0",
    .name = "bad_struct_size",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
