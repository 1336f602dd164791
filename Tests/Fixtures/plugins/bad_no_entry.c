// expect: entry_symbol_missing
// why: exports `graftEntry` (camelCase) instead of `graft_entry`, so the host finds no entry symbol.
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
    .id = "test.bad-no-entry",
    .version = "1.0.0",
    .name = "bad_no_entry",
    .init = init,
    .get_factory = get_factory,
};

/* The fault: the host looks up `graft_entry`, and this is not it. */
GRAFT_EXPORT const graft_plugin_entry_t *graftEntry(void) {
    return &entry;
}
