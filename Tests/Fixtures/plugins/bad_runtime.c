// expect: ok
// why: loads cleanly, then misbehaves at run time where told: -DFAULT_IN='"render"' (create, render, interact, destroy, validate, action) and -DFAULT='"segv"' (segv, abort, exit, hang, alloc); isolated hosts must survive each. Without defines it behaves.
// Component `fragile` v1 renders "fragile:" and its `text` input; interact "poke" emits `poked` {}.
// Validator `fragile_check` (generic) is valid for any value; action `fragile_action` sets `done` to true.
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graft.h"

#ifndef FAULT_IN
#define FAULT_IN ""
#endif
#ifndef FAULT
#define FAULT "segv"
#endif

static void misbehave(const char *where) {
    if (strcmp(FAULT_IN, where) != 0) return;
    if (strcmp(FAULT, "segv") == 0) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    } else if (strcmp(FAULT, "abort") == 0) {
        abort();
    } else if (strcmp(FAULT, "exit") == 0) {
        exit(3);
    } else if (strcmp(FAULT, "hang") == 0) {
        for (;;) pause();
    } else if (strcmp(FAULT, "alloc") == 0) {
        for (;;) {
            char *block = malloc(1 << 20);
            if (!block) { volatile int *nowhere = NULL; *nowhere = 1; }
            memset(block, 1, 1 << 20);
        }
    }
}

static const graft_field_t inputs[] = {{"text", GRAFT_TYPE_STRING, NULL}};
static const graft_output_t outputs[] = {{"poked", NULL, NULL, 0}};
static const graft_component_descriptor_t fragile = {
    .key = "fragile", .version = 1, .inputs = inputs, .input_count = 1, .outputs = outputs, .output_count = 1,
    .debug_config = "{\"text\": \"hi\"}",
};

typedef struct {
    graft_component_instance_t base;
    const graft_component_context_t *context;
    char text[64];
} fragile_t;

static bool render(const graft_component_instance_t *self, const char *media_type, const graft_writer_t *writer) {
    (void)media_type;
    misbehave("render");
    const fragile_t *f = self->plugin_data;
    return graft_write_cstr(writer, "fragile:") && graft_write_cstr(writer, f->text);
}

static bool interact(const graft_component_instance_t *self, const char *action, const graft_value_t *data) {
    (void)data;
    misbehave("interact");
    const fragile_t *f = self->plugin_data;
    if (strcmp(action, "poke") != 0) return false;
    graft_value_t payload = graft_object(NULL, 0);
    f->context->emit(f->context, "poked", &payload);
    return true;
}

static void destroy(const graft_component_instance_t *self) {
    misbehave("destroy");
    free(self->plugin_data);
}

static const graft_component_instance_t *create(const graft_component_factory_t *factory, const char *key,
                                                uint32_t version, const graft_value_t *values,
                                                const graft_component_context_t *context) {
    (void)factory;
    (void)version;
    misbehave("create");
    if (strcmp(key, "fragile") != 0) return NULL;
    fragile_t *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    const graft_value_t *text = graft_object_get(values, "text");
    if (text && text->type == GRAFT_TYPE_STRING) {
        size_t n = text->data.string.length < 63 ? text->data.string.length : 63;
        memcpy(f->text, text->data.string.data, n);
    }
    f->context = context;
    f->base.plugin_data = f;
    f->base.render = render;
    f->base.interact = interact;
    f->base.destroy = destroy;
    return &f->base;
}

static uint32_t count(const graft_component_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_component_descriptor_t *descriptor(const graft_component_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &fragile : NULL;
}

static const graft_component_factory_t component_factory = {
    .count = count, .get_descriptor = descriptor, .create = create,
};

static bool check(const graft_validator_descriptor_t *self, const graft_value_t *value, const char *const *params,
                  uint32_t param_count, const graft_writer_t *message) {
    (void)self;
    (void)value;
    (void)params;
    (void)param_count;
    (void)message;
    misbehave("validate");
    return true;
}

static const graft_validator_descriptor_t validator = {
    .name = "fragile_check", .version = 1, .kind = GRAFT_VALIDATOR_GENERIC, .validate = check,
};

static uint32_t validator_count(const graft_validator_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_validator_descriptor_t *validator_descriptor(const graft_validator_factory_t *factory,
                                                                uint32_t index) {
    (void)factory;
    return index == 0 ? &validator : NULL;
}

static const graft_validator_factory_t validator_factory = {validator_count, validator_descriptor};

static bool act(const graft_action_descriptor_t *self, const graft_value_t *params, const graft_value_t *payload,
                const graft_action_context_t *context) {
    (void)self;
    (void)params;
    (void)payload;
    misbehave("action");
    graft_value_t yes = graft_bool(true);
    context->set_variable(context, "done", &yes);
    return true;
}

static const graft_action_descriptor_t action = {.key = "fragile_action", .version = 1, .invoke = act};

static uint32_t action_count(const graft_action_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_action_descriptor_t *action_descriptor(const graft_action_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &action : NULL;
}

static const graft_action_factory_t action_factory = {action_count, action_descriptor};

static bool init(const graft_host_t *host) {
    (void)host;
    return true;
}

static const void *get_factory(const char *factory_id) {
    if (strcmp(factory_id, GRAFT_COMPONENT_FACTORY_ID) == 0) return &component_factory;
    if (strcmp(factory_id, GRAFT_VALIDATOR_FACTORY_ID) == 0) return &validator_factory;
    if (strcmp(factory_id, GRAFT_ACTION_FACTORY_ID) == 0) return &action_factory;
    return NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.fragile",
    .version = "1.0.0",
    .name = "bad_runtime",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
