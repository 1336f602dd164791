// expect: ok
// why: leaves a trace of every process that maps it: its constructor appends the process id to the file MARKER_PATH (a define), so tests can tell whether a plugin's code ran or the host answered from its cache.
// Native validator `marker_ok` ("bool(int64)") is always valid; action `marker_action` succeeds with no effect.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graft.h"

#ifndef MARKER_PATH
#define MARKER_PATH "/dev/null"
#endif
#ifndef MARKER_ID
#define MARKER_ID "test.marker"
#endif

__attribute__((constructor)) static void on_load(void) {
    /* The id the host knows the process by: a child with the sandbox off
     * runs in a PID namespace of its own, where getpid() says 2; /proc (the
     * host's) names it as the host sees it. */
    char self[32] = "";
    ssize_t length = readlink("/proc/self", self, sizeof self - 1);
    long pid = length > 0 ? atol(self) : (long)getpid();
    FILE *marker = fopen(MARKER_PATH, "a");
    if (marker) {
        fprintf(marker, "%ld\n", pid);
        fclose(marker);
    }
}

static bool marker_ok(int64_t value) {
    (void)value;
    return true;
}

static const graft_validator_descriptor_t validator = {
    .name = "marker_ok", .version = 1, .kind = GRAFT_VALIDATOR_NATIVE, .message = "never",
    .signature = "bool(int64)", .function = (graft_native_function_t)marker_ok,
};

static uint32_t validator_count(const graft_validator_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_validator_descriptor_t *validator_descriptor(const graft_validator_factory_t *factory,
                                                                uint32_t index) {
    (void)factory;
    return index == 0 ? &validator : NULL;
}

static const graft_validator_factory_t validator_factory = {validator_count, validator_descriptor};

static bool marker_action(const graft_action_descriptor_t *self, const graft_value_t *params,
                          const graft_value_t *payload, const graft_action_context_t *context) {
    (void)self;
    (void)params;
    (void)payload;
    (void)context;
    return true;
}

static const graft_action_descriptor_t action = {
    .key = "marker_action", .version = 1, .invoke = marker_action,
};

static uint32_t action_count(const graft_action_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_action_descriptor_t *action_descriptor(const graft_action_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &action : NULL;
}

static const graft_action_factory_t action_factory = {action_count, action_descriptor};

static bool init(const graft_host_t *host) {
    (void)host;
    return true;
}

static const void *get_factory(const char *factory_id) {
    if (strcmp(factory_id, GRAFT_VALIDATOR_FACTORY_ID) == 0) return &validator_factory;
    if (strcmp(factory_id, GRAFT_ACTION_FACTORY_ID) == 0) return &action_factory;
    return NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = MARKER_ID,
    .version = "1.0.0",
    .name = "good_marker",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
