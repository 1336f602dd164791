// expect: plugin_crashed
// stage: init
// why: init writes through a NULL pointer; only an isolated check (graft check runs the load in a child process) can report it, so the in-process corpus skips this file.
#include <stddef.h>

#include "graft.h"

static bool init(const graft_host_t *host) {
    volatile int *nowhere = NULL;
    (void)host;
    *nowhere = 42; /* the fault */
    return true;
}

static const void *get_factory(const char *factory_id) {
    (void)factory_id;
    return NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.bad-crash-init",
    .version = "1.0.0",
    .name = "bad_crash_init",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
