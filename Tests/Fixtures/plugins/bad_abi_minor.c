// expect: abi_incompatible
// why: built for ABI 1.99, a minor newer than the host's (1.0).
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
    .abi = {1, 99} /* the fault */,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.bad-abi-minor",
    .version = "1.0.0",
    .name = "bad_abi_minor",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
