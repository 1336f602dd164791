// expect: abi_incompatible
// why: built for ABI 2.0; the host (ABI 1.x) loads only major 1.
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
    .abi = {2, 0} /* the fault */,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.bad-abi-major",
    .version = "1.0.0",
    .name = "bad_abi_major",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
