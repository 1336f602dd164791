// expect: duplicate_component
// why: one plugin declares component `twice` at version 1 two times.
#include <string.h>

#include "graft.h"

static const graft_field_t inputs[] = {{"label", GRAFT_TYPE_STRING, NULL}};

static const graft_component_descriptor_t descriptors[] = {
    {.key = "twice", .version = 1, .name = "Twice", .inputs = inputs, .input_count = 1},
    {.key = "twice", .version = 1, .name = "Twice again", .inputs = inputs, .input_count = 1}, /* the fault */
};

static uint32_t count(const graft_component_factory_t *factory) {
    (void)factory;
    return 2;
}

static const graft_component_descriptor_t *get_descriptor(const graft_component_factory_t *factory,
                                                          uint32_t index) {
    (void)factory;
    return index < 2 ? &descriptors[index] : NULL;
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
    .id = "test.bad-duplicate-in-plugin",
    .version = "1.0.0",
    .name = "bad_duplicate_in_plugin",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
