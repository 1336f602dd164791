// expect: ok
// why: counts its init and deinit calls, so tests can see that a second path to a loaded file never runs init again.
// Native validator `inits_are` ("bool(int64)") is valid when init has run exactly that many times
// and deinit never; `lives` ("bool(int64)") is valid when init minus deinit equals its value.
#include <string.h>

#include "graft.h"

static int inits = 0;
static int deinits = 0;

static bool inits_are(int64_t expected) {
    return inits == expected && deinits == 0;
}

static bool lives(int64_t expected) {
    return inits - deinits == expected;
}

static const graft_validator_descriptor_t validators[] = {
    {
        .name = "inits_are", .version = 1, .kind = GRAFT_VALIDATOR_NATIVE, .message = "init count differs",
        .signature = "bool(int64)", .function = (graft_native_function_t)inits_are,
    },
    {
        .name = "lives", .version = 1, .kind = GRAFT_VALIDATOR_NATIVE, .message = "live count differs",
        .signature = "bool(int64)", .function = (graft_native_function_t)lives,
    },
};

static uint32_t validator_count(const graft_validator_factory_t *factory) {
    (void)factory;
    return 2;
}

static const graft_validator_descriptor_t *validator_descriptor(const graft_validator_factory_t *factory,
                                                                uint32_t index) {
    (void)factory;
    return index < 2 ? &validators[index] : NULL;
}

static const graft_validator_factory_t validator_factory = {validator_count, validator_descriptor};

static bool init(const graft_host_t *host) {
    (void)host;
    inits++;
    return true;
}

static void deinit(void) {
    deinits++;
}

static const void *get_factory(const char *factory_id) {
    return strcmp(factory_id, GRAFT_VALIDATOR_FACTORY_ID) == 0 ? &validator_factory : NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.counter",
    .version = "1.0.0",
    .name = "good_counter",
    .init = init,
    .deinit = deinit,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
