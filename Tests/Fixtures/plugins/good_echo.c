// expect: ok
// why: a valid plugin that uses every part of the ABI: component `echo` v1, a generic and a native validator, and an action.
//
// Component `echo` v1 renders ECHO_PREFIX followed by its `text` input, for every media type.
//   interact "say"         emits `said` {"text": <text>}
//   interact "drift"       emits `shout` {"volume": 11}  (an event the descriptor does not declare)
//   interact "bad_payload" emits `said` {"text": 42}     (breaks the declared payload schema)
//   save_state writes "renders=N" (renders so far); load_state reads it back.
// Validators: `nonempty` (generic: a non-empty string) and `is_even` (native, "bool(int64)").
// Action: `echo_action` (param `text: string`) sets the flow variable `echoed` to `text`.
// Rebuild with -DECHO_PREFIX='"v2:"' and/or -DECHO_PLUGIN_VERSION='"2.0.0"' for a different build,
// and with -DECHO_CRASH_IN_CREATE for one that crashes whenever it creates an instance,
// -DECHO_PRINTS for one that writes a line to stdout and one to stderr at every render,
// -DECHO_NO_COMPONENT for a build that has dropped the component (validators and action stay),
// -DECHO_LOGS_IN_INIT for one that writes a warning through the host's log callback in init.
// Any build refuses to create an instance whose `text` is "no".
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft.h"

#ifndef ECHO_PREFIX
#define ECHO_PREFIX "echo:"
#endif
#ifndef ECHO_PLUGIN_VERSION
#define ECHO_PLUGIN_VERSION "1.0.0"
#endif
/* Another plugin declaring the same names: ECHO_PLUGIN_ID, and ECHO_NATIVE_NAME for one of its own. */
#ifndef ECHO_PLUGIN_ID
#define ECHO_PLUGIN_ID "test.echo"
#endif
#ifndef ECHO_NATIVE_NAME
#define ECHO_NATIVE_NAME "is_even"
#endif

/* ---- component `echo` v1 ------------------------------------------------ */

static const graft_field_t echo_inputs[] = {
    {"text", GRAFT_TYPE_STRING, "the text to echo"},
    {"count", GRAFT_TYPE_NUMBER, NULL},
    {"on", GRAFT_TYPE_BOOLEAN, NULL},
    {"tags", GRAFT_TYPE_LIST, NULL},
};
static const graft_field_t said_payload[] = {{"text", GRAFT_TYPE_STRING, NULL}};
static const graft_output_t echo_outputs[] = {{"said", "the text was said", said_payload, 1}};

static const graft_component_descriptor_t echo_descriptor = {
    .key = "echo", .version = 1, .name = "Echo", .description = "Renders its text input.",
    .inputs = echo_inputs, .input_count = 4,
    .outputs = echo_outputs, .output_count = 1,
    .debug_config = "{\"text\": \"hello\", \"count\": 3, \"on\": true, \"tags\": [\"a\", \"b\"]}",
};

typedef struct echo {
    graft_component_instance_t instance;       /* what the host sees */
    const graft_component_context_t *context;  /* the only host pointer kept */
    char *text;                                /* a copy of the `text` input */
    size_t length;
    unsigned long renders;
} echo_t;

static echo_t *echo_of(const graft_component_instance_t *instance) {
    return instance->plugin_data;
}

/* Copies the `text` input; a missing or non-string `text` counts as "". */
static bool echo_take_inputs(echo_t *echo, const graft_value_t *inputs) {
    const graft_value_t *text = graft_object_get(inputs, "text");
    size_t length = (text && text->type == GRAFT_TYPE_STRING) ? text->data.string.length : 0;
    char *copy = malloc(length + 1);
    if (!copy) return false;
    if (length) memcpy(copy, text->data.string.data, length);
    copy[length] = '\0';
    free(echo->text);
    echo->text = copy;
    echo->length = length;
    return true;
}

static bool echo_render(const graft_component_instance_t *instance, const char *media_type,
                        const graft_writer_t *writer) {
    echo_t *echo = echo_of(instance);
    (void)media_type;
    echo->renders++;
#ifdef ECHO_PRINTS
    printf("echo printed %s\n", echo->text);
    fflush(stdout);
    fprintf(stderr, "echo complained %s\n", echo->text);
#endif
    return graft_write_cstr(writer, ECHO_PREFIX) && writer->write(writer, echo->text, echo->length);
}

static bool echo_update_inputs(const graft_component_instance_t *instance, const graft_value_t *inputs) {
    return echo_take_inputs(echo_of(instance), inputs);
}

static bool echo_interact(const graft_component_instance_t *instance, const char *action,
                          const graft_value_t *data) {
    echo_t *echo = echo_of(instance);
    const graft_component_context_t *context = echo->context;
    (void)data;
    if (strcmp(action, "say") == 0) {
        graft_member_t members[] = {{"text", graft_string(echo->text, echo->length)}};
        graft_value_t payload = graft_object(members, 1);
        context->emit(context, "said", &payload);
    } else if (strcmp(action, "drift") == 0) {
        graft_member_t members[] = {{"volume", graft_number(11)}};
        graft_value_t payload = graft_object(members, 1);
        context->emit(context, "shout", &payload);
    } else if (strcmp(action, "bad_payload") == 0) {
        graft_member_t members[] = {{"text", graft_number(42)}};
        graft_value_t payload = graft_object(members, 1);
        context->emit(context, "said", &payload);
    } else {
        return false;
    }
    return true;
}

static bool echo_save_state(const graft_component_instance_t *instance, const graft_writer_t *writer) {
    char state[32];
    int n = snprintf(state, sizeof state, "renders=%lu", echo_of(instance)->renders);
    return n > 0 && writer->write(writer, state, (size_t)n);
}

static bool echo_load_state(const graft_component_instance_t *instance, const char *data, size_t length) {
    char state[32];
    char *end;
    unsigned long renders;
    if (length <= 8 || length >= sizeof state || memcmp(data, "renders=", 8) != 0) return false;
    memcpy(state, data, length);
    state[length] = '\0';
    renders = strtoul(state + 8, &end, 10);
    if (*end != '\0') return false;
    echo_of(instance)->renders = renders;
    return true;
}

static void echo_destroy(const graft_component_instance_t *instance) {
    echo_t *echo = echo_of(instance);
    free(echo->text);
    free(echo);
}

static uint32_t component_count(const graft_component_factory_t *factory) {
    (void)factory;
#ifdef ECHO_NO_COMPONENT
    return 0;
#else
    return 1;
#endif
}

static const graft_component_descriptor_t *component_descriptor(const graft_component_factory_t *factory,
                                                                uint32_t index) {
    (void)factory;
    return index == 0 ? &echo_descriptor : NULL;
}

static const graft_component_instance_t *component_create(const graft_component_factory_t *factory,
                                                          const char *key, uint32_t version,
                                                          const graft_value_t *inputs,
                                                          const graft_component_context_t *context) {
    echo_t *echo;
    (void)factory;
#ifdef ECHO_CRASH_IN_CREATE
    *(volatile int *)NULL = 1; /* a build that crashes whenever it creates (hot-swap tests) */
#endif
    if (strcmp(key, "echo") != 0 || version != 1) return NULL;
    {
        /* Refuses to create an instance whose text is "no" (create returns NULL). */
        const graft_value_t *text = graft_object_get(inputs, "text");
        if (text && text->type == GRAFT_TYPE_STRING && text->data.string.length == 2 && memcmp(text->data.string.data, "no", 2) == 0)
            return NULL;
    }
    echo = calloc(1, sizeof *echo);
    if (!echo) return NULL;
    echo->instance = (graft_component_instance_t){
        .plugin_data = echo,
        .render = echo_render,
        .update_inputs = echo_update_inputs,
        .interact = echo_interact,
        .save_state = echo_save_state,
        .load_state = echo_load_state,
        .destroy = echo_destroy,
    };
    echo->context = context;
    if (!echo_take_inputs(echo, inputs)) {
        free(echo);
        return NULL;
    }
    return &echo->instance;
}

static const graft_component_factory_t component_factory = {
    component_count, component_descriptor, component_create,
};

/* ---- validators ---------------------------------------------------------- */

/* Generic: valid when the value is a non-empty string. For an empty string it
 * writes nothing, so the host reports the descriptor's message. */
static bool nonempty(const graft_validator_descriptor_t *self, const graft_value_t *value,
                     const char *const *params, uint32_t param_count, const graft_writer_t *message) {
    (void)self;
    (void)params;
    (void)param_count;
    if (value->type != GRAFT_TYPE_STRING) {
        graft_write_cstr(message, "expected a string");
        return false;
    }
    return value->data.string.length > 0;
}

/* Native: "bool(int64)". */
static bool is_even(int64_t value) {
    return value % 2 == 0;
}

static const graft_validator_descriptor_t validators[] = {
    {
        .name = "nonempty", .version = 1, .description = "A non-empty string.",
        .kind = GRAFT_VALIDATOR_GENERIC, .message = "must not be empty", .validate = nonempty,
    },
    {
        .name = ECHO_NATIVE_NAME, .version = 1, .description = "An even integer.",
        .kind = GRAFT_VALIDATOR_NATIVE, .message = "must be even",
        .signature = "bool(int64)", .function = (graft_native_function_t)is_even,
    },
};

static uint32_t validator_count(const graft_validator_factory_t *factory) {
    (void)factory;
    return 2;
}

static const graft_validator_descriptor_t *validator_descriptor(const graft_validator_factory_t *factory,
                                                                uint32_t index) {
    (void)factory;
    return index < 2 ? &validators[index] : NULL;
}

static const graft_validator_factory_t validator_factory = {validator_count, validator_descriptor};

/* ---- action `echo_action` -------------------------------------------------- */

static const graft_field_t echo_action_params[] = {{"text", GRAFT_TYPE_STRING, NULL}};

static bool echo_action(const graft_action_descriptor_t *self, const graft_value_t *params,
                        const graft_value_t *payload, const graft_action_context_t *context) {
    (void)self;
    const graft_value_t *text = graft_object_get(params, "text");
    (void)payload;
    if (!text || text->type != GRAFT_TYPE_STRING) {
        context->set_error(context, "param `text` must be a string");
        return false;
    }
    context->set_variable(context, "echoed", text);
    return true;
}

static const graft_action_descriptor_t echo_action_descriptor = {
    .key = "echo_action", .version = 1, .name = "Echo action",
    .description = "Sets the variable `echoed` to its `text` param.",
    .params = echo_action_params, .param_count = 1, .invoke = echo_action,
};

static uint32_t action_count(const graft_action_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_action_descriptor_t *action_descriptor(const graft_action_factory_t *factory,
                                                          uint32_t index) {
    (void)factory;
    return index == 0 ? &echo_action_descriptor : NULL;
}

static const graft_action_factory_t action_factory = {action_count, action_descriptor};

/* ---- entry ------------------------------------------------------------------ */

static bool echo_init(const graft_host_t *host) {
#ifdef ECHO_LOGS_IN_INIT
    host->log(host, GRAFT_LOG_WARNING, "echo starting");
#else
    (void)host;
#endif
    return true;
}

static const void *echo_get_factory(const char *factory_id) {
    if (strcmp(factory_id, GRAFT_COMPONENT_FACTORY_ID) == 0) return &component_factory;
    if (strcmp(factory_id, GRAFT_VALIDATOR_FACTORY_ID) == 0) return &validator_factory;
    if (strcmp(factory_id, GRAFT_ACTION_FACTORY_ID) == 0) return &action_factory;
    return NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = ECHO_PLUGIN_ID,
    .version = ECHO_PLUGIN_VERSION,
    .name = "Echo (test fixture)",
    .vendor = "Graft tests",
    .description = "Echoes its input; used by the host's tests.",
    .init = echo_init,
    .deinit = NULL,
    .get_factory = echo_get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
