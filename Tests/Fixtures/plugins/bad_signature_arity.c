// expect: invalid_signature
// why: the native validator's signature has 17 arguments, more than GRAFT_MAX_NATIVE_ARGS (16); all else matches.
#include <string.h>

#include "graft.h"

/* The value plus 16 params: 17 arguments. */
static bool check(int64_t v, int64_t p1, int64_t p2, int64_t p3, int64_t p4, int64_t p5, int64_t p6,
                  int64_t p7, int64_t p8, int64_t p9, int64_t p10, int64_t p11, int64_t p12, int64_t p13,
                  int64_t p14, int64_t p15, int64_t p16) {
    return v == p1 + p2 + p3 + p4 + p5 + p6 + p7 + p8 + p9 + p10 + p11 + p12 + p13 + p14 + p15 + p16;
}

static const graft_field_t params[] = {
    {"p1", GRAFT_TYPE_NUMBER, NULL},  {"p2", GRAFT_TYPE_NUMBER, NULL},  {"p3", GRAFT_TYPE_NUMBER, NULL},
    {"p4", GRAFT_TYPE_NUMBER, NULL},  {"p5", GRAFT_TYPE_NUMBER, NULL},  {"p6", GRAFT_TYPE_NUMBER, NULL},
    {"p7", GRAFT_TYPE_NUMBER, NULL},  {"p8", GRAFT_TYPE_NUMBER, NULL},  {"p9", GRAFT_TYPE_NUMBER, NULL},
    {"p10", GRAFT_TYPE_NUMBER, NULL}, {"p11", GRAFT_TYPE_NUMBER, NULL}, {"p12", GRAFT_TYPE_NUMBER, NULL},
    {"p13", GRAFT_TYPE_NUMBER, NULL}, {"p14", GRAFT_TYPE_NUMBER, NULL}, {"p15", GRAFT_TYPE_NUMBER, NULL},
    {"p16", GRAFT_TYPE_NUMBER, NULL},
};

static const graft_validator_descriptor_t validator = {
    .name = "check", .version = 1, .kind = GRAFT_VALIDATOR_NATIVE, .params = params, .param_count = 16,
    .signature = "bool(int64,int64,int64,int64,int64,int64,int64,int64,"
                 "int64,int64,int64,int64,int64,int64,int64,int64,int64)" /* the fault: 17 */,
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
    .id = "test.bad-signature-arity",
    .version = "1.0.0",
    .name = "bad_signature_arity",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
