// expect: plugin_timeout
// stage: init
// why: init never returns.
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "graft.h"

static bool init(const graft_host_t *host) {
    (void)host;
    for (;;) pause(); /* the fault */
    return true;
}

static const void *get_factory(const char *factory_id) {
    (void)factory_id;
    return NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.bad_hang_init",
    .version = "1.0.0",
    .name = "bad_hang_init",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
