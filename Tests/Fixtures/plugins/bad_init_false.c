// expect: plugin_init_failed
// why: init returns false; the host must refuse the plugin and must not call deinit (which would write MARKER_PATH).
// Built with -DMARKER_PATH='"…"' the deinit leaves a file there; with -DINIT_RESULT=true it is the
// positive control: a plugin whose init succeeded gets its deinit when the host lets it go.
#include <stdio.h>
#include <stdlib.h>

#include "graft.h"

#ifndef INIT_RESULT
#define INIT_RESULT false /* the fault */
#endif
#ifndef MARKER_PATH
#define MARKER_PATH NULL
#endif

static bool init(const graft_host_t *host) {
    (void)host;
    return INIT_RESULT;
}

/* Must never run when init failed. It leaves a file at MARKER_PATH for
 * the test to find. */
static void deinit(void) {
    const char *path = MARKER_PATH;
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
