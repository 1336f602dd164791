// expect: entry_symbol_missing
// why: `graft_entry` is exported as a data object (the entry struct itself), not as the function that returns it; calling it would jump into data, so the host refuses it from the ELF symbol table before anything runs.
#include "graft.h"

static bool init(const graft_host_t *host) {
    (void)host;
    return true;
}

static const void *get_factory(const char *factory_id) {
    (void)factory_id;
    return NULL;
}

/* The object itself is named graft_entry in the symbol table (graft.h declares the function of that name). */
GRAFT_EXPORT const graft_plugin_entry_t entry_object __asm__("graft_entry") = { /* the fault */
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.bad-entry-data",
    .version = "1.0.0",
    .name = "bad_entry_data",
    .init = init,
    .get_factory = get_factory,
};
