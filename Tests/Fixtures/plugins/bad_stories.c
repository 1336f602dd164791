// expect: invalid_descriptor
// why: its stories (graft.stories/1, ABI 1.3) break graft.h's rules: one names a component the plugin does not declare,
// one has a name that is not a key, one name comes twice, one config sets an input that is not declared, one gives an
// input a value of another type, and one config is not a JSON object.
#include <string.h>

#include "graft.h"

static const graft_field_t inputs[] = {{"title", GRAFT_TYPE_STRING, NULL}};

static const graft_component_descriptor_t descriptors[] = {
    {.key = "widget", .version = 1, .name = "Widget", .inputs = inputs, .input_count = 1,
     .debug_config = "{\"title\": \"hello\"}"},
};

static uint32_t count(const graft_component_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_component_descriptor_t *get_descriptor(const graft_component_factory_t *factory, uint32_t index) {
    (void)factory;
    return index < 1 ? &descriptors[index] : NULL;
}

/* Never reached: the host refuses the plugin before creating anything. */
static const graft_component_instance_t *create(const graft_component_factory_t *factory, const char *key,
                                                uint32_t version, const graft_value_t *values,
                                                const graft_component_context_t *context) {
    (void)factory; (void)key; (void)version; (void)values; (void)context;
    return NULL;
}

static const graft_component_factory_t components = {count, get_descriptor, create};

static const graft_story_t story_list[] = {
    {"gadget", 1, "lost", NULL, "{}"},
    {"widget", 1, "Long Title", NULL, "{\"title\": \"a long one\"}"},
    {"widget", 1, "twice", "the first", "{}"},
    {"widget", 1, "twice", "the second", "{}"},
    {"widget", 1, "colour", NULL, "{\"colour\": \"red\"}"},
    {"widget", 1, "numbered", NULL, "{\"title\": 3}"},
    {"widget", 1, "listed", NULL, "[1, 2]"},
};

static uint32_t story_count(const graft_stories_t *stories) {
    (void)stories;
    return 7;
}

static const graft_story_t *story_at(const graft_stories_t *stories, uint32_t index) {
    (void)stories;
    return index < 7 ? &story_list[index] : NULL;
}

static const graft_stories_t stories = {story_count, story_at};

static bool init(const graft_host_t *host) {
    (void)host;
    return true;
}

static const void *get_factory(const char *factory_id) {
    if (strcmp(factory_id, GRAFT_COMPONENT_FACTORY_ID) == 0) return &components;
    if (strcmp(factory_id, GRAFT_STORIES_ID) == 0) return &stories;
    return NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.bad-stories",
    .version = "1.0.0",
    .name = "bad_stories",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
