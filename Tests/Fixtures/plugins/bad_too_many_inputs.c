// expect: invalid_descriptor
// why: the component declares 65 inputs, one more than GRAFT_MAX_FIELDS (64).
#include <string.h>

#include "graft.h"

/* 65 distinct string inputs "i0" ... "i64"; the array really is that long. */
#define F(n) {"i" #n, GRAFT_TYPE_STRING, NULL}
static const graft_field_t inputs[] = {
    F(0), F(1), F(2), F(3), F(4), F(5), F(6), F(7), F(8), F(9),
    F(10), F(11), F(12), F(13), F(14), F(15), F(16), F(17), F(18), F(19),
    F(20), F(21), F(22), F(23), F(24), F(25), F(26), F(27), F(28), F(29),
    F(30), F(31), F(32), F(33), F(34), F(35), F(36), F(37), F(38), F(39),
    F(40), F(41), F(42), F(43), F(44), F(45), F(46), F(47), F(48), F(49),
    F(50), F(51), F(52), F(53), F(54), F(55), F(56), F(57), F(58), F(59),
    F(60), F(61), F(62), F(63), F(64),
};
#undef F

static const graft_component_descriptor_t descriptors[] = {
    {.key = "crowded", .version = 1, .name = "Crowded", .inputs = inputs, .input_count = 65 /* the fault */},
};

static uint32_t count(const graft_component_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_component_descriptor_t *get_descriptor(const graft_component_factory_t *factory,
                                                          uint32_t index) {
    (void)factory;
    return index < 1 ? &descriptors[index] : NULL;
}

/* Never reached: the host refuses the plugin before creating anything. */
static const graft_component_instance_t *create(const graft_component_factory_t *factory,
                                                const char *key, uint32_t version,
                                                const graft_value_t *inputs,
                                                const graft_component_context_t *context) {
    (void)factory, (void)key, (void)version, (void)inputs, (void)context;
    return NULL;
}

static const graft_component_factory_t factory = {count, get_descriptor, create};

static bool init(const graft_host_t *host) {
    (void)host;
    return true;
}

static const void *get_factory(const char *factory_id) {
    return strcmp(factory_id, GRAFT_COMPONENT_FACTORY_ID) == 0 ? &factory : NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.bad-too-many-inputs",
    .version = "1.0.0",
    .name = "bad_too_many_inputs",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
