/* A graft.h component with a story, an interaction and an event, written as
 * for a .so and built as a .wasm with graft_wasm_bridge.c: values cross as
 * JSON both ways (inputs, interaction data, the event's payload). */
#include "graft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const graft_field_t inputs[] = { { "label", GRAFT_TYPE_STRING, NULL }, { "count", GRAFT_TYPE_NUMBER, NULL } };
static const graft_field_t tapped[] = { { "label", GRAFT_TYPE_STRING, NULL }, { "count", GRAFT_TYPE_NUMBER, NULL } };
static const graft_output_t outputs[] = { { "tapped", "the badge was tapped", tapped, 2 } };
static const graft_field_t taps[] = { { "times", GRAFT_TYPE_NUMBER, NULL } };
static const graft_interaction_t interactions[] = { { "tap", "adds `times` to the count and emits tapped", taps, 1 } };
static const graft_component_descriptor_t badge = {
    .key = "badge", .version = 1, .name = "Badge", .inputs = inputs, .input_count = 2, .outputs = outputs, .output_count = 1,
    .debug_config = "{\"label\":\"new\",\"count\":1}", .interactions = interactions, .interaction_count = 1 };
static const graft_story_t stories[] = { { "badge", 1, "long", "A long label.", "{\"label\":\"a rather long label\",\"count\":99}" } };

typedef struct { graft_component_instance_t base; const graft_component_context_t *context; char label[128]; double count; } badge_t;

static void take(badge_t *b, const graft_value_t *in) {
    const graft_value_t *label = graft_object_get(in, "label"), *count = graft_object_get(in, "count");
    if (label && label->type == GRAFT_TYPE_STRING && label->data.string.length < sizeof b->label) {
        memcpy(b->label, label->data.string.data, label->data.string.length);
        b->label[label->data.string.length] = 0;
    }
    if (count && count->type == GRAFT_TYPE_NUMBER) b->count = count->data.number;
}

static bool render(const graft_component_instance_t *self, const char *type, const graft_writer_t *w) {
    (void)type;
    const badge_t *b = self->plugin_data;
    char text[160];
    int n = snprintf(text, sizeof text, "[%s: %g]", b->label, b->count);
    return w->write(w, text, (size_t)n);
}

static bool interact(const graft_component_instance_t *self, const char *action, const graft_value_t *data) {
    badge_t *b = self->plugin_data;
    if (strcmp(action, "tap") != 0) return false;
    const graft_value_t *times = graft_object_get(data, "times");
    b->count += times && times->type == GRAFT_TYPE_NUMBER ? times->data.number : 1;
    graft_member_t members[] = { { "label", graft_string(b->label, strlen(b->label)) }, { "count", graft_number(b->count) } };
    graft_value_t payload = graft_object(members, 2);
    b->context->emit(b->context, "tapped", &payload);
    return true;
}

static bool update(const graft_component_instance_t *self, const graft_value_t *in) { take(self->plugin_data, in); return true; }
static void destroy(const graft_component_instance_t *self) { free(self->plugin_data); }

static const graft_component_instance_t *create(const graft_component_factory_t *f, const char *key, uint32_t version,
                                                const graft_value_t *in, const graft_component_context_t *context) {
    (void)f;
    if (strcmp(key, "badge") != 0 || version != 1) return NULL;
    badge_t *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->context = context;
    take(b, in);
    b->base = (graft_component_instance_t){ .plugin_data = b, .render = render, .interact = interact, .update_inputs = update, .destroy = destroy };
    return &b->base;
}

static uint32_t count(const graft_component_factory_t *f) { (void)f; return 1; }
static const graft_component_descriptor_t *get(const graft_component_factory_t *f, uint32_t i) { (void)f; return i ? NULL : &badge; }
static const graft_component_factory_t factory = { count, get, create };
static uint32_t story_count(const graft_stories_t *s) { (void)s; return 1; }
static const graft_story_t *story(const graft_stories_t *s, uint32_t i) { (void)s; return i ? NULL : &stories[0]; }
static const graft_stories_t story_list = { story_count, story };

static bool init(const graft_host_t *host) { (void)host; return true; }
static const void *get_factory(const char *id) {
    if (strcmp(id, GRAFT_COMPONENT_FACTORY_ID) == 0) return &factory;
    if (strcmp(id, GRAFT_STORIES_ID) == 0) return &story_list;
    return NULL;
}
static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT, .struct_size = sizeof(graft_plugin_entry_t), .id = "com.example.bridged", .version = "1.0.0",
    .name = "Bridged widget", .init = init, .get_factory = get_factory };
GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) { return &entry; }
