// expect: ok
// why: the workbench's component: typed inputs of every kind, HTML for pages and text otherwise, an interaction that emits.
//
// Component WIDGET_KEY (default `widget`) v1, in plugin WIDGET_ID (default `test.widget`), so one source gives
// many distinct plugins (-DWIDGET_ID='"test.widget.p7"' -DWIDGET_KEY='"widget_p7"').
//   inputs  title: string, count: number, on: boolean, tags: list (of strings; other items are skipped)
//   render  text/html: <div class="widget"><h1>PREFIX title</h1><p class="count">count=N on=yes</p><ul><li>tag</li>…</ul></div>
//           (text escaped); any other type: "PREFIX title count=N on=yes tags=a,b"
//   interact "tap" emits `tapped` {"title": title, "count": count}
// Rebuild with -DWIDGET_PREFIX='"v2:"' for a different build (hot-swap tests), -DWIDGET_REFUSES_TAP for one whose
// declared interaction `tap` answers false, -DWIDGET_ANSWERS_ANY for one that also answers (true, emitting nothing)
// interaction names it does not declare, -DWIDGET_INACCESSIBLE for one whose HTML axe finds inaccessible (an image
// without a text alternative, a button without a name).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graft.h"

#ifndef WIDGET_ID
#define WIDGET_ID "test.widget"
#endif
#ifndef WIDGET_KEY
#define WIDGET_KEY "widget"
#endif
#ifndef WIDGET_PREFIX
#define WIDGET_PREFIX "widget:"
#endif
#define MAX_TAGS 16

static const graft_field_t inputs[] = {
    {"title", GRAFT_TYPE_STRING, "the heading"},
    {"count", GRAFT_TYPE_NUMBER, "how many"},
    {"on", GRAFT_TYPE_BOOLEAN, "switched on"},
    {"tags", GRAFT_TYPE_LIST, "labels shown as a list"},
};
static const graft_field_t tapped_payload[] = {{"title", GRAFT_TYPE_STRING, NULL}, {"count", GRAFT_TYPE_NUMBER, NULL}};
static const graft_output_t outputs[] = {{"tapped", "the user tapped the widget", tapped_payload, 2}};

static const graft_interaction_t interactions[] = {{"tap", "tap the widget: emits `tapped`", NULL, 0}};

static const graft_component_descriptor_t descriptor = {
    .key = WIDGET_KEY, .version = 1, .name = "Widget", .description = "A heading, a count, a switch and tags.",
    .inputs = inputs, .input_count = 4, .outputs = outputs, .output_count = 1,
    .interactions = interactions, .interaction_count = 1,
    .debug_config = "{\"title\": \"Hello\", \"count\": 3, \"on\": true, \"tags\": [\"a\", \"b\"]}",
};

typedef struct {
    graft_component_instance_t base;
    const graft_component_context_t *context; /* owned by the host, valid until destroy */
    char *title;
    double count;
    bool on;
    char *tags[MAX_TAGS];
    uint32_t tag_count;
} widget_t;

static char *copy_text(const char *data, size_t length) {
    char *out = malloc(length + 1);
    if (!out) return NULL;
    if (length) memcpy(out, data, length);
    out[length] = '\0';
    return out;
}

static void clear_tags(widget_t *w) {
    for (uint32_t i = 0; i < w->tag_count; i++) free(w->tags[i]);
    w->tag_count = 0;
}

/* Copies what it keeps: the host owns `in` only for the call. */
static bool take_inputs(widget_t *w, const graft_value_t *in) {
    const graft_value_t *title = graft_object_get(in, "title");
    const graft_value_t *count = graft_object_get(in, "count");
    const graft_value_t *on = graft_object_get(in, "on");
    const graft_value_t *tags = graft_object_get(in, "tags");
    char *text = title && title->type == GRAFT_TYPE_STRING ? copy_text(title->data.string.data, title->data.string.length)
                                                            : copy_text("", 0);
    if (!text) return false;
    free(w->title);
    w->title = text;
    w->count = count && count->type == GRAFT_TYPE_NUMBER ? count->data.number : 0;
    w->on = on && on->type == GRAFT_TYPE_BOOLEAN && on->data.boolean;
    clear_tags(w);
    if (tags && tags->type == GRAFT_TYPE_LIST) {
        for (uint32_t i = 0; i < tags->data.list.count && w->tag_count < MAX_TAGS; i++) {
            const graft_value_t *item = &tags->data.list.items[i];
            if (item->type != GRAFT_TYPE_STRING) continue;
            char *tag = copy_text(item->data.string.data, item->data.string.length);
            if (tag) w->tags[w->tag_count++] = tag;
        }
    }
    return true;
}

/* Writes `text` with <, >, & and " escaped, so inputs show as text. */
static bool write_escaped(const graft_writer_t *out, const char *text) {
    for (const char *p = text; *p; p++) {
        const char *entity = *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : *p == '&' ? "&amp;" : *p == '"' ? "&quot;" : NULL;
        if (entity ? !graft_write_cstr(out, entity) : !out->write(out, p, 1)) return false;
    }
    return true;
}

static bool render(const graft_component_instance_t *self, const char *media_type, const graft_writer_t *out) {
    const widget_t *w = self->plugin_data;
    char numbers[64];
    snprintf(numbers, sizeof numbers, "count=%g on=%s", w->count, w->on ? "yes" : "no");
    if (media_type && strcmp(media_type, "text/html") == 0) {
        if (!graft_write_cstr(out, "<div class=\"widget\"><h1>" WIDGET_PREFIX " ") || !write_escaped(out, w->title) ||
            !graft_write_cstr(out, "</h1><p class=\"count\">") || !graft_write_cstr(out, numbers) ||
            !graft_write_cstr(out, "</p><ul>"))
            return false;
        for (uint32_t i = 0; i < w->tag_count; i++) {
            if (!graft_write_cstr(out, "<li>") || !write_escaped(out, w->tags[i]) || !graft_write_cstr(out, "</li>")) return false;
        }
#ifdef WIDGET_INACCESSIBLE
        /* An image with no text alternative and a button with no name: axe's image-alt and button-name. */
        return graft_write_cstr(out, "</ul><img src=\"data:,\"><button></button></div>");
#endif
        return graft_write_cstr(out, "</ul></div>");
    }
    if (!graft_write_cstr(out, WIDGET_PREFIX " ") || !graft_write_cstr(out, w->title) || !graft_write_cstr(out, " ") ||
        !graft_write_cstr(out, numbers) || !graft_write_cstr(out, " tags="))
        return false;
    for (uint32_t i = 0; i < w->tag_count; i++) {
        if ((i && !graft_write_cstr(out, ",")) || !graft_write_cstr(out, w->tags[i])) return false;
    }
    return true;
}

static bool update_inputs(const graft_component_instance_t *self, const graft_value_t *in) {
    return take_inputs(self->plugin_data, in);
}

static bool interact(const graft_component_instance_t *self, const char *action, const graft_value_t *data) {
    (void)data;
    const widget_t *w = self->plugin_data;
#ifdef WIDGET_ANSWERS_ANY
    if (strcmp(action, "tap") != 0) return true; /* undeclared, answered: the host's unknown_interaction warning */
#endif
    if (strcmp(action, "tap") != 0) return false;
#ifdef WIDGET_REFUSES_TAP
    return false; /* declared, but refused: the host's interaction_refused warning */
#endif
    graft_member_t fields[] = {
        {"title", graft_string(w->title, strlen(w->title))},
        {"count", graft_number(w->count)},
    };
    graft_value_t payload = graft_object(fields, 2);
    w->context->emit(w->context, "tapped", &payload);
    return true;
}

static void destroy(const graft_component_instance_t *self) {
    widget_t *w = self->plugin_data;
    clear_tags(w);
    free(w->title);
    free(w);
}

static const graft_component_instance_t *create(const graft_component_factory_t *factory, const char *key,
                                                uint32_t version, const graft_value_t *in,
                                                const graft_component_context_t *context) {
    (void)factory;
    if (strcmp(key, WIDGET_KEY) != 0 || version != 1) return NULL;
    widget_t *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->context = context;
    if (!take_inputs(w, in)) {
        free(w);
        return NULL;
    }
    w->base = (graft_component_instance_t){
        .plugin_data = w, .render = render, .update_inputs = update_inputs, .interact = interact, .destroy = destroy,
    };
    return &w->base;
}

static uint32_t count(const graft_component_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_component_descriptor_t *get(const graft_component_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &descriptor : NULL;
}

static const graft_component_factory_t component_factory = {count, get, create};

static bool init(const graft_host_t *host) {
    (void)host;
    return true;
}

static const void *get_factory(const char *id) {
    return strcmp(id, GRAFT_COMPONENT_FACTORY_ID) == 0 ? &component_factory : NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = WIDGET_ID,
    .version = "1.0.0",
    .name = "Widget (workbench fixture)",
    .vendor = "Graft tests",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
