// expect: ok
// why: valid alone; declares component `dup_widget` v1, as dup_b does under another plugin id.
#include <string.h>

#include "graft.h"

static const graft_component_descriptor_t descriptors[] = {
    {.key = "dup_widget", .version = 1, .name = "Dup widget (A)"},
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

/* No instance: the tests only load it and look its names up. */
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
    .id = "test.dup-a",
    .version = "1.0.0",
    .name = "dup_a",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
