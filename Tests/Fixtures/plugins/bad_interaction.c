// expect: invalid_descriptor
// why: ABI 1.1 interactions that break graft.h's rules: a name with a capital and a space, and a name declared twice.
#include <string.h>

#include "graft.h"

static const graft_field_t inputs[] = {{"label", GRAFT_TYPE_STRING, NULL}};
static const graft_output_t outputs[] = {{"tapped", NULL, NULL, 0}};
static const graft_interaction_t interactions[] = {
    {"Tap Now" /* the fault */, NULL, NULL, 0},
    {"tap", NULL, NULL, 0},
    {"tap" /* the fault: twice */, "again", NULL, 0},
};

static const graft_component_descriptor_t descriptors[] = {
    {
        .key = "widget", .version = 1, .name = "Widget",
        .inputs = inputs, .input_count = 1,
        .outputs = outputs, .output_count = 1,
        .debug_config = "{\"label\": \"hello\"}",
        .interactions = interactions, .interaction_count = 3,
    },
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
    .id = "test.bad-interaction",
    .version = "1.0.0",
    .name = "bad_interaction",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
