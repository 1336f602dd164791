// expect: invalid_descriptor
// why: the component factory's create function is NULL, so nothing it lists can be instantiated.
#include <string.h>

#include "graft.h"

static const graft_component_descriptor_t descriptors[] = {
    {.key = "inert", .version = 1, .name = "Inert"},
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

static const graft_component_factory_t factory = {count, get_descriptor, NULL /* the fault */};

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
    .id = "test.bad-null-create",
    .version = "1.0.0",
    .name = "bad_null_create",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
