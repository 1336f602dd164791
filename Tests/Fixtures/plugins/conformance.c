// expect: ok
// why: the conformance checker's plugin: passes every `graft check --conformance` test as it is; each -DBREAK_* define
//      (see Tests/Fixtures/plugins/README.md) breaks exactly one test, -DCRASH_HTML crashes and -DHANG_HTML hangs
//      rendering text/html, so that only render-text-and-html fails.
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "graft.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Component `card` v1: a title with a count, as text or HTML; tapping it emits `tapped`. */
static const graft_field_t card_inputs[] = {
    { "title", GRAFT_TYPE_STRING, "The card's title." },
    { "count", GRAFT_TYPE_NUMBER, NULL },
    { "on", GRAFT_TYPE_BOOLEAN, NULL },
    { "tags", GRAFT_TYPE_LIST, NULL },
};
static const graft_field_t tapped_payload[] = { { "title", GRAFT_TYPE_STRING, NULL } };
static const graft_output_t card_outputs[] = { { "tapped", "The user tapped the card.", tapped_payload, 1 } };
static const graft_interaction_t card_interactions[] = { { "tap", "Tap the card: emits `tapped`.", NULL, 0 } };
static const graft_component_descriptor_t card = {
    .key = "card", .version = 1, .name = "Card", .description = "A title and a count.",
    .inputs = card_inputs, .input_count = 4, .outputs = card_outputs, .output_count = 1,
    .interactions = card_interactions, .interaction_count = 1,
#ifdef BREAK_DEBUG_CONFIG
    /* the fault: `colour` is not a declared input */
    .debug_config = "{\"title\": \"Hello\", \"count\": 3, \"colour\": \"red\"}",
#else
    .debug_config = "{\"title\": \"Hello\", \"count\": 3, \"on\": true, \"tags\": [\"a\"]}",
#endif
};

typedef struct {
    graft_component_instance_t base;
    const graft_component_context_t *context;
    char *title;
    double count;
#ifdef BREAK_LEAK
    void *scratch;
#endif
} card_t;

static char *copy_text(const char *data, size_t length) {
    char *out = malloc(length + 1);
    if (!out) return NULL;
    memcpy(out, data, length);
    out[length] = 0;
    return out;
}

static bool write_escaped(const graft_writer_t *out, const char *text) {
    for (const char *c = text; *c; c++) {
        bool ok = *c == '<' ? graft_write_cstr(out, "&lt;") : *c == '&' ? graft_write_cstr(out, "&amp;")
                                                                        : out->write(out, c, 1);
        if (!ok) return false;
    }
    return true;
}

static bool render(const graft_component_instance_t *self, const char *media_type, const graft_writer_t *out) {
    const card_t *card_instance = self->plugin_data;
    if (strcmp(media_type, "text/html") == 0) {
#ifdef CRASH_HTML
        *(volatile int *)0 = 1; /* the fault: a crash, in this render only */
#endif
#ifdef HANG_HTML
        for (;;) { struct timespec pause = { 1, 0 }; nanosleep(&pause, NULL); } /* the fault: never returns */
#endif
#ifdef BREAK_RENDER_MEDIA_TYPE
        out->set_media_type(out, "html"); /* the fault: not type/subtype */
#else
        out->set_media_type(out, "text/html");
#endif
        return graft_write_cstr(out, "<p>") && write_escaped(out, card_instance->title) && graft_write_cstr(out, "</p>");
    }
    return graft_write_cstr(out, card_instance->title) && graft_write_cstr(out, card_instance->count > 0 ? " (some)" : " (none)");
}

static bool interact(const graft_component_instance_t *self, const char *action, const graft_value_t *data) {
    (void)data;
    const card_t *card_instance = self->plugin_data;
#ifndef BREAK_INTERACT_ANY
    if (strcmp(action, "tap") != 0) return false; /* without it, the fault: every name is answered */
#else
    (void)action;
#endif
#ifdef BREAK_INTERACTION_PAYLOAD
    /* the fault: the declared interaction emits a payload that breaks `tapped`'s schema */
    graft_member_t field = { "title", graft_number(1) };
#else
    graft_member_t field = { "title", graft_string(card_instance->title, strlen(card_instance->title)) };
#endif
    graft_value_t payload = graft_object(&field, 1);
    card_instance->context->emit(card_instance->context, "tapped", &payload);
    return true;
}

static void destroy(const graft_component_instance_t *self) {
    card_t *card_instance = self->plugin_data;
    free(card_instance->title);
    free(card_instance);
}

#ifdef BREAK_THREADS
/* the fault: one static scratch area for every create, as if create were not [thread-safe] */
static int creating;
#endif

static const graft_component_instance_t *create(const graft_component_factory_t *f, const char *key, uint32_t version,
                                                const graft_value_t *in, const graft_component_context_t *context) {
    (void)f;
#ifndef BREAK_CREATE_ANY_KEY
    if (strcmp(key, "card") != 0 || version != 1) return NULL; /* without it, the fault: any key gets a card */
#else
    (void)key; (void)version;
#endif
#ifdef BREAK_THREADS
    if (__atomic_exchange_n(&creating, 1, __ATOMIC_ACQ_REL)) return NULL;
    for (volatile int spin = 0; spin < 200000; spin++) {}
    __atomic_store_n(&creating, 0, __ATOMIC_RELEASE);
#endif
    const graft_value_t *title = graft_object_get(in, "title");
    const graft_value_t *count = graft_object_get(in, "count");
    card_t *card_instance = calloc(1, sizeof *card_instance);
    if (!card_instance) return NULL;
    card_instance->context = context;
#ifdef BREAK_HOSTILE
    /* the fault: trusts that `title` is there and is a string */
    card_instance->title = copy_text(title->data.string.data, strlen(title->data.string.data));
#else
    card_instance->title = title && title->type == GRAFT_TYPE_STRING ? copy_text(title->data.string.data, title->data.string.length)
                                                                      : copy_text("untitled", 8);
#endif
    card_instance->count = count && count->type == GRAFT_TYPE_NUMBER ? count->data.number : 0;
#ifdef BREAK_LEAK
    card_instance->scratch = malloc(16384); /* the fault: never freed */
    if (card_instance->scratch) memset(card_instance->scratch, 1, 16384);
#endif
    card_instance->base = (graft_component_instance_t){
        .plugin_data = card_instance, .render = render, .interact = interact, .destroy = destroy };
    return &card_instance->base;
}

static uint32_t component_count(const graft_component_factory_t *f) { (void)f; return 1; }
static const graft_component_descriptor_t *component_at(const graft_component_factory_t *f, uint32_t i) {
    (void)f;
    return i == 0 ? &card : NULL;
}
static const graft_component_factory_t components = { component_count, component_at, create };

/* Validators: `not_blank` (generic) and `max_len` (native, bool(string,int64)). */
static bool not_blank(const graft_validator_descriptor_t *self, const graft_value_t *value, const char *const *params,
                     uint32_t param_count, const graft_writer_t *message) {
    (void)self; (void)params; (void)param_count;
    if (!value || value->type != GRAFT_TYPE_STRING) return graft_write_cstr(message, "expected text") && false;
#ifdef BREAK_VALIDATOR_UTF8
    for (size_t i = 0; i < value->data.string.length; i++) {
        if ((unsigned char)value->data.string.data[i] >= 0xF5) abort(); /* the fault: dies on bytes UTF-8 never has */
    }
#endif
    return value->data.string.length > 0;
}
static bool max_len(const char *text, int64_t max) { return (int64_t)strlen(text) <= max; }

static const graft_field_t max_len_params[] = { { "max", GRAFT_TYPE_NUMBER, NULL } };
static const graft_validator_descriptor_t validator_list[] = {
    { .name = "not_blank", .version = 1, .kind = GRAFT_VALIDATOR_GENERIC, .message = "must not be empty", .validate = not_blank },
    { .name = "max_len", .version = 1, .kind = GRAFT_VALIDATOR_NATIVE, .params = max_len_params, .param_count = 1,
      .message = "is too long", .signature = "bool(string,int64)", .function = (graft_native_function_t)max_len },
};
static uint32_t validator_count(const graft_validator_factory_t *f) { (void)f; return 2; }
static const graft_validator_descriptor_t *validator_at(const graft_validator_factory_t *f, uint32_t i) {
    (void)f;
    return i < 2 ? &validator_list[i] : NULL;
}
static const graft_validator_factory_t validators = { validator_count, validator_at };

/* Action `remember`: sets `remembered` to `text`, `times` times over. */
static bool remember(const graft_action_descriptor_t *self, const graft_value_t *params, const graft_value_t *payload,
                     const graft_action_context_t *context) {
    (void)self; (void)payload;
    const graft_value_t *text = graft_object_get(params, "text");
#ifdef BREAK_ACTION_PARAMS
    size_t length = strlen(text->data.string.data); /* the fault: trusts that `text` is there */
#else
    if (!text || text->type != GRAFT_TYPE_STRING) {
        context->set_error(context, "remember needs a text param");
        return false;
    }
    size_t length = text->data.string.length;
#endif
    graft_value_t value = graft_string(text->data.string.data, length);
    context->set_variable(context, "remembered", &value);
    return true;
}
static const graft_field_t remember_params[] = { { "text", GRAFT_TYPE_STRING, NULL }, { "times", GRAFT_TYPE_NUMBER, NULL } };
static const graft_action_descriptor_t remember_action = {
    .key = "remember", .version = 1, .name = "Remember", .params = remember_params, .param_count = 2, .invoke = remember };
static uint32_t action_count(const graft_action_factory_t *f) { (void)f; return 1; }
static const graft_action_descriptor_t *action_at(const graft_action_factory_t *f, uint32_t i) {
    (void)f;
    return i == 0 ? &remember_action : NULL;
}
static const graft_action_factory_t actions = { action_count, action_at };

#ifdef BREAK_EXPORTS
/* the fault: a helper with default visibility, exported beside graft_entry */
int conformance_helper(void) { return 1; }
#endif

static int inits;

static bool init(const graft_host_t *host) {
    (void)host;
#ifdef BREAK_SCAN_TIME
    struct timespec pause = { 0, 150 * 1000 * 1000 }; /* the fault: init blocks for 150 ms */
    nanosleep(&pause, NULL);
#endif
    inits++;
#ifdef BREAK_REINIT
    return inits == 1; /* the fault: a second init, after deinit, is refused */
#else
    return true;
#endif
}
static void deinit(void) {}

static const void *get_factory(const char *id) {
    if (strcmp(id, GRAFT_COMPONENT_FACTORY_ID) == 0) return &components;
    if (strcmp(id, GRAFT_VALIDATOR_FACTORY_ID) == 0) return &validators;
    if (strcmp(id, GRAFT_ACTION_FACTORY_ID) == 0) return &actions;
    return NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT, .struct_size = sizeof(graft_plugin_entry_t),
#ifdef BREAK_ENTRY_ID
    .id = "conformance", /* the fault: not reverse DNS */
#else
    .id = "test.conformance",
#endif
    .version = "1.0.0", .name = "Conformance", .init = init, .deinit = deinit, .get_factory = get_factory,
};
GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) { return &entry; }
