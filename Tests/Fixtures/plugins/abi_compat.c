// expect: ok
// why: one plugin, compiled against each released graft.h (Tests/Fixtures/abi/graft-1.N.h, as graft.h) by the
//      ABI compatibility test, using what that header offers and nothing newer: a host must load, render, validate
//      and run it whatever the minor it was built for.
//
// Component `compat` v1 renders "compat 1.N: " followed by its `text` input (N: the header's minor).
// Validators: `compat_filled` (generic: a non-empty string) and `compat_positive` (native, "bool(double)").
// Action: `compat_set` (param `text: string`) sets the flow variable `compat` to `text`.
// From 1.1 the component declares the interaction `poke` (which emits `poked`); from 1.2 the plugin
// declares the permission to connect to port 9 (discard); from 1.3 the component has the story `short`.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft.h"

#define STRINGIFY(x) #x
#define TEXT(x) STRINGIFY(x)
#define HEADER "compat " TEXT(GRAFT_ABI_MAJOR) "." TEXT(GRAFT_ABI_MINOR) ": "

static const graft_field_t inputs[] = {{"text", GRAFT_TYPE_STRING, NULL}};
static const graft_field_t poked_payload[] = {{"text", GRAFT_TYPE_STRING, NULL}};
static const graft_output_t outputs[] = {{"poked", "it was poked", poked_payload, 1}};
#if GRAFT_ABI_MINOR >= 1
static const graft_interaction_t interactions[] = {{"poke", "emits poked", NULL, 0}};
#endif

static const graft_component_descriptor_t descriptor = {
    .key = "compat", .version = 1, .name = "Compat", .description = "Renders its text after the header's version.",
    .inputs = inputs, .input_count = 1, .outputs = outputs, .output_count = 1,
    .debug_config = "{\"text\": \"hi\"}",
#if GRAFT_ABI_MINOR >= 1
    .interactions = interactions, .interaction_count = 1,
#endif
};

typedef struct {
    graft_component_instance_t instance;
    const graft_component_context_t *context;
    char text[256];
} compat_t;

static void take_text(compat_t *self, const graft_value_t *values) {
    const graft_value_t *text = graft_object_get(values, "text");
    size_t length = text && text->type == GRAFT_TYPE_STRING ? text->data.string.length : 0;
    if (length >= sizeof self->text) length = sizeof self->text - 1;
    if (length) memcpy(self->text, text->data.string.data, length);
    self->text[length] = '\0';
}

static bool render(const graft_component_instance_t *instance, const char *media_type, const graft_writer_t *writer) {
    compat_t *self = instance->plugin_data;
    (void)media_type;
    return graft_write_cstr(writer, HEADER) && graft_write_cstr(writer, self->text);
}

static bool update_inputs(const graft_component_instance_t *instance, const graft_value_t *values) {
    take_text(instance->plugin_data, values);
    return true;
}

static bool interact(const graft_component_instance_t *instance, const char *action, const graft_value_t *data) {
    compat_t *self = instance->plugin_data;
    (void)data;
    if (strcmp(action, "poke") != 0) return false;
    graft_member_t members[] = {{"text", graft_string(self->text, strlen(self->text))}};
    graft_value_t payload = graft_object(members, 1);
    self->context->emit(self->context, "poked", &payload);
    return true;
}

static void destroy(const graft_component_instance_t *instance) {
    free(instance->plugin_data);
}

static uint32_t component_count(const graft_component_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_component_descriptor_t *component_descriptor(const graft_component_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &descriptor : NULL;
}

static const graft_component_instance_t *create(const graft_component_factory_t *factory, const char *key,
                                                uint32_t version, const graft_value_t *values,
                                                const graft_component_context_t *context) {
    (void)factory;
    if (strcmp(key, "compat") != 0 || version != 1) return NULL;
    compat_t *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->instance = (graft_component_instance_t){
        .plugin_data = self, .render = render, .update_inputs = update_inputs, .interact = interact, .destroy = destroy};
    self->context = context;
    take_text(self, values);
    return &self->instance;
}

static const graft_component_factory_t component_factory = {component_count, component_descriptor, create};

static bool filled(const graft_validator_descriptor_t *self, const graft_value_t *value, const char *const *params,
                   uint32_t param_count, const graft_writer_t *message) {
    (void)self;
    (void)params;
    (void)param_count;
    (void)message;
    return value->type == GRAFT_TYPE_STRING && value->data.string.length > 0;
}

static bool positive(double value) {
    return value > 0;
}

static const graft_validator_descriptor_t validators[] = {
    {.name = "compat_filled", .version = 1, .kind = GRAFT_VALIDATOR_GENERIC, .message = "must not be empty", .validate = filled},
    {.name = "compat_positive", .version = 1, .kind = GRAFT_VALIDATOR_NATIVE, .message = "must be positive",
     .signature = "bool(double)", .function = (graft_native_function_t)positive},
};

static uint32_t validator_count(const graft_validator_factory_t *factory) {
    (void)factory;
    return 2;
}

static const graft_validator_descriptor_t *validator_descriptor(const graft_validator_factory_t *factory, uint32_t index) {
    (void)factory;
    return index < 2 ? &validators[index] : NULL;
}

static const graft_validator_factory_t validator_factory = {validator_count, validator_descriptor};

static const graft_field_t set_params[] = {{"text", GRAFT_TYPE_STRING, NULL}};

static bool set(const graft_action_descriptor_t *self, const graft_value_t *params, const graft_value_t *payload,
                const graft_action_context_t *context) {
    const graft_value_t *text = graft_object_get(params, "text");
    (void)self;
    (void)payload;
    if (!text || text->type != GRAFT_TYPE_STRING) return false;
    context->set_variable(context, "compat", text);
    return true;
}

static const graft_action_descriptor_t set_descriptor = {
    .key = "compat_set", .version = 1, .name = "Set compat", .params = set_params, .param_count = 1, .invoke = set};

static uint32_t action_count(const graft_action_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_action_descriptor_t *action_descriptor(const graft_action_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &set_descriptor : NULL;
}

static const graft_action_factory_t action_factory = {action_count, action_descriptor};

#if GRAFT_ABI_MINOR >= 2
static const uint16_t discard[] = {9};
static const graft_permission_t permission = {
    .kind = GRAFT_PERMISSION_CONNECT, .ports = discard, .port_count = 1, .reason = "It sends nothing anywhere; a test."};

static uint32_t permission_count(const graft_permissions_t *permissions) {
    (void)permissions;
    return 1;
}

static const graft_permission_t *permission_at(const graft_permissions_t *permissions, uint32_t index) {
    (void)permissions;
    return index == 0 ? &permission : NULL;
}

static const graft_permissions_t permissions = {permission_count, permission_at};
#endif

#if GRAFT_ABI_MINOR >= 3
static const graft_story_t story = {
    .component = "compat", .version = 1, .name = "short", .description = "A short text.", .config = "{\"text\": \"s\"}"};

static uint32_t story_count(const graft_stories_t *stories) {
    (void)stories;
    return 1;
}

static const graft_story_t *story_at(const graft_stories_t *stories, uint32_t index) {
    (void)stories;
    return index == 0 ? &story : NULL;
}

static const graft_stories_t stories = {story_count, story_at};
#endif

static bool start(const graft_host_t *host) {
    (void)host;
    return true;
}

static const void *get_factory(const char *id) {
    if (strcmp(id, GRAFT_COMPONENT_FACTORY_ID) == 0) return &component_factory;
    if (strcmp(id, GRAFT_VALIDATOR_FACTORY_ID) == 0) return &validator_factory;
    if (strcmp(id, GRAFT_ACTION_FACTORY_ID) == 0) return &action_factory;
#if GRAFT_ABI_MINOR >= 2
    if (strcmp(id, GRAFT_PERMISSIONS_ID) == 0) return &permissions;
#endif
#if GRAFT_ABI_MINOR >= 3
    if (strcmp(id, GRAFT_STORIES_ID) == 0) return &stories;
#endif
    return NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.compat",
    .version = "1.0.0",
    .name = "ABI compatibility (test fixture)",
    .init = start,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
