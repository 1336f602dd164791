// expect: plugin_init_failed
// why: init returns false; the host must refuse the plugin and must not call deinit (which would write $GRAFT_FIXTURE_MARKER).
#include <stdio.h>
#include <stdlib.h>

#include "graft.h"

static bool init(const graft_host_t *host) {
    (void)host;
    return false; /* the fault */
}

/* Must never run, since init failed. If it does, it leaves a file at
 * $GRAFT_FIXTURE_MARKER for the test to find. */
static void deinit(void) {
    const char *path = getenv("GRAFT_FIXTURE_MARKER");
    FILE *marker = path ? fopen(path, "w") : NULL;
    if (marker) {
        fputs("deinit was called\n", marker);
        fclose(marker);
    }
}

static const void *get_factory(const char *factory_id) {
    (void)factory_id;
    return NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.bad-init-false",
    .version = "1.0.0",
    .name = "bad_init_false",
    .init = init,
    .deinit = deinit,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
