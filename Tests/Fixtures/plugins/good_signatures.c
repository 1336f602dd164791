// expect: ok
// why: native validators whose signatures have no fast path, so every call goes through libffi's general
// marshalling: several strings, strings after scalars, int32 and bool arguments, an int32 return.
#include <stdint.h>
#include <string.h>

#include "graft.h"

/* "int32(string,string)": the value starts with the prefix param. */
static int32_t sig_prefix(const char *value, const char *prefix) {
    return strncmp(value, prefix, strlen(prefix)) == 0;
}

/* "bool(string,string,string)": the value is the two params joined. */
static bool sig_concat(const char *value, const char *first, const char *second) {
    size_t length = strlen(first);
    return strncmp(value, first, length) == 0 && strcmp(value + length, second) == 0;
}

/* "bool(int32,string,bool,double)": the value is the length of the string
 * param and, when the flag is set, at most the limit. */
static bool sig_mixed(int32_t value, const char *text, bool capped, double limit) {
    return (size_t)value == strlen(text) && (!capped || value <= limit);
}

static const graft_validator_descriptor_t validators[] = {
    {.name = "sig_prefix", .version = 1, .kind = GRAFT_VALIDATOR_NATIVE, .message = "has the wrong prefix",
     .signature = "int32(string,string)", .function = (graft_native_function_t)sig_prefix},
    {.name = "sig_concat", .version = 1, .kind = GRAFT_VALIDATOR_NATIVE,
     .signature = "bool(string, string, string)", .function = (graft_native_function_t)sig_concat},
    {.name = "sig_mixed", .version = 1, .kind = GRAFT_VALIDATOR_NATIVE,
     .signature = "bool(int32,string,bool,double)", .function = (graft_native_function_t)sig_mixed},
};

static uint32_t count(const graft_validator_factory_t *factory) {
    (void)factory;
    return 3;
}

static const graft_validator_descriptor_t *get_descriptor(const graft_validator_factory_t *factory,
                                                          uint32_t index) {
    (void)factory;
    return index < 3 ? &validators[index] : NULL;
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
    .id = "test.signatures",
    .version = "1.0.0",
    .name = "good_signatures",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
