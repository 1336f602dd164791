// expect: invalid_signature
// why: the native validator's signature "bool(string" has no closing parenthesis.
#include <string.h>

#include "graft.h"

static bool check(const char *value) {
    return value[0] != '\0';
}

static const graft_validator_descriptor_t validator = {
    .name = "check", .version = 1, .kind = GRAFT_VALIDATOR_NATIVE,
    .signature = "bool(string" /* the fault */,
    .function = (graft_native_function_t)check,
};

static uint32_t count(const graft_validator_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_validator_descriptor_t *get_descriptor(const graft_validator_factory_t *factory,
                                                          uint32_t index) {
    (void)factory;
    return index == 0 ? &validator : NULL;
}

static const graft_validator_factory_t factory = {count, get_descriptor};

static bool init(const graft_host_t *host) {
    (void)host;
    return true;
}

static const void *get_factory(const char *factory_id) {
    return strcmp(factory_id, GRAFT_VALIDATOR_FACTORY_ID) == 0 ? &factory : NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.bad-signature-parens",
    .version = "1.0.0",
    .name = "bad_signature_parens",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
