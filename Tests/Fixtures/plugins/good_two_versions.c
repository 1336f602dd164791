// expect: ok
// why: registers component `multi` at versions 1 and 2 (v2 adds input `extra`) and `only_v2` at version 2 only, so a bare `only_v2` gets component_version_mismatch.
//
// Each instance renders "<key>@<version>" (for example "multi@2"), so a test can see which version resolved.
#include <stdlib.h>
#include <string.h>

#include "graft.h"

static const graft_field_t multi_v1_inputs[] = {
    {"text", GRAFT_TYPE_STRING, NULL},
};
static const graft_field_t multi_v2_inputs[] = {
    {"text", GRAFT_TYPE_STRING, NULL},
    {"extra", GRAFT_TYPE_STRING, "new in version 2"},
};

static const graft_component_descriptor_t descriptors[] = {
    {.key = "multi", .version = 1, .name = "Multi", .inputs = multi_v1_inputs, .input_count = 1,
     .debug_config = "{\"text\": \"one\"}"},
    {.key = "multi", .version = 2, .name = "Multi", .inputs = multi_v2_inputs, .input_count = 2,
     .debug_config = "{\"text\": \"two\", \"extra\": \"more\"}"},
    {.key = "only_v2", .version = 2, .name = "Only v2"},
};
#define DESCRIPTOR_COUNT 3u

/* An instance only remembers which "<key>@<version>" it renders. */
typedef struct multi {
    graft_component_instance_t instance;
    const char *label;
} multi_t;

static bool render(const graft_component_instance_t *instance, const char *media_type,
                   const graft_writer_t *writer) {
    const multi_t *multi = instance->plugin_data;
    (void)media_type;
    return graft_write_cstr(writer, multi->label);
}

static void destroy(const graft_component_instance_t *instance) {
    free(instance->plugin_data);
}

static uint32_t count(const graft_component_factory_t *factory) {
    (void)factory;
    return DESCRIPTOR_COUNT;
}

static const graft_component_descriptor_t *get_descriptor(const graft_component_factory_t *factory,
                                                          uint32_t index) {
    (void)factory;
    return index < DESCRIPTOR_COUNT ? &descriptors[index] : NULL;
}

static const graft_component_instance_t *create(const graft_component_factory_t *factory,
                                                const char *key, uint32_t version,
                                                const graft_value_t *inputs,
                                                const graft_component_context_t *context) {
    const char *label;
    multi_t *multi;
    (void)factory, (void)inputs, (void)context;
    if (strcmp(key, "multi") == 0 && version == 1) label = "multi@1";
    else if (strcmp(key, "multi") == 0 && version == 2) label = "multi@2";
    else if (strcmp(key, "only_v2") == 0 && version == 2) label = "only_v2@2";
    else return NULL;
    multi = malloc(sizeof *multi);
    if (!multi) return NULL;
    *multi = (multi_t){
        .instance = {.plugin_data = multi, .render = render, .destroy = destroy},
        .label = label,
    };
    return &multi->instance;
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
    .id = "test.two-versions",
    .version = "1.0.0",
    .name = "good_two_versions",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
