// expect: plugin_crashed
// stage: constructors
// why: a constructor calls exit(0): the loading process ends with success before the plugin is even described.
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "graft.h"

__attribute__((constructor)) static void on_load(void) {
    exit(0); /* the fault */
}

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
    .id = "test.bad_exit_constructor",
    .version = "1.0.0",
    .name = "bad_exit_constructor",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
