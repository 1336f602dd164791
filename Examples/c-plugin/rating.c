/*
 * rating.c — a third-party Graft plugin in plain C: one component,
 * `star_rating`, that shows "Rate us: ★★★☆☆ (3/5)" and emits `rated` when
 * the user picks a number of stars.
 *
 * It needs graft.h and libc only:
 *     cc -shared -fPIC -std=c11 $(graft sdk --cflags) -o librating.so rating.c
 *
 * Everything is `static` except `graft_entry`, the one symbol a plugin
 * exports. Thread-safety: the factory keeps no state, and each instance is
 * touched only by the host's [instance-serialized] calls, so no locks.
 */
#include "graft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATING_DEFAULT_LABEL "Rating"
#define RATING_DEFAULT_MAX 5
#define RATING_MAX_STARS 20   /* keeps a line short whatever the flow says */
#define RATING_MAX_LABEL 256  /* bytes of the label kept */

/* ---- Descriptor ---------------------------------------------------------- */

static const graft_field_t rating_inputs[] = {
    { "label", GRAFT_TYPE_STRING, "Text before the stars." },
    { "max", GRAFT_TYPE_NUMBER, "Number of stars (1 to 20, default 5)." },
    { "value", GRAFT_TYPE_NUMBER, "Stars filled in (0 to max, default 0)." },
};

static const graft_field_t rated_payload[] = {
    { "stars", GRAFT_TYPE_NUMBER, "Stars the user picked, 0 to max." },
};

static const graft_output_t rating_outputs[] = {
    { "rated", "The user picked a number of stars.", rated_payload, 1 },
};

static const graft_field_t rate_data[] = {
    { "stars", GRAFT_TYPE_NUMBER, "How many stars, 0 to max." },
};

/* ABI 1.1: the interactions `interact` answers, for tools to offer and call. */
static const graft_interaction_t rating_interactions[] = {
    { "rate", "Pick a number of stars: emits `rated`.", rate_data, 1 },
};

static const graft_component_descriptor_t rating_descriptor = {
    .key = "star_rating",
    .version = 1,
    .name = "Star rating",
    .description = "A row of stars the user can rate with.",
    .inputs = rating_inputs,
    .input_count = 3,
    .outputs = rating_outputs,
    .output_count = 1,
    .debug_config = "{\"label\":\"Rate us\",\"max\":5,\"value\":3}",
    .interactions = rating_interactions,
    .interaction_count = 1,
};

/* ---- Instance ------------------------------------------------------------ */

typedef struct rating {
    graft_component_instance_t instance; /* what the host holds */
    const graft_component_context_t *context;
    char label[RATING_MAX_LABEL + 1]; /* our own copy: host strings die with the call */
    size_t label_length;
    int max;
    int value;
} rating_t;

static rating_t *rating_of(const graft_component_instance_t *instance) {
    return (rating_t *)instance->plugin_data;
}

static int clamp_round(double x, int lo, int hi) {
    if (!(x >= lo)) return lo; /* also catches NaN */
    if (x > hi) return hi;
    return (int)(x + 0.5); /* x >= 0 here; no libm needed */
}

/* Reads a number input; on a missing or mistyped one, warns and returns NULL
 * so the caller uses its default (the host's contract rule for inputs). */
static const graft_value_t *number_input(const graft_component_context_t *context,
                                         const graft_value_t *inputs, const char *key) {
    const graft_value_t *v = graft_object_get(inputs, key);
    char message[128];
    if (v && v->type == GRAFT_TYPE_NUMBER) return v;
    if (!v || v->type == GRAFT_TYPE_NULL) {
        snprintf(message, sizeof message, "The input \"%s\" is missing; using its default.", key);
        context->warn(context, "input_missing", message);
    } else {
        snprintf(message, sizeof message,
                 "The input \"%s\" should be a number; using its default.", key);
        context->warn(context, "input_type_mismatch", message);
    }
    return NULL;
}

static void read_inputs(rating_t *r, const graft_value_t *inputs) {
    const graft_value_t *label = graft_object_get(inputs, "label");
    const graft_value_t *max, *value;

    if (label && label->type == GRAFT_TYPE_STRING) {
        size_t n = label->data.string.length;
        if (n > RATING_MAX_LABEL) {
            n = RATING_MAX_LABEL;
            while (n > 0 && ((unsigned char)label->data.string.data[n] & 0xC0) == 0x80) n--;
        }
        if (n) memcpy(r->label, label->data.string.data, n);
        r->label_length = n;
    } else {
        bool missing = !label || label->type == GRAFT_TYPE_NULL;
        r->context->warn(r->context, missing ? "input_missing" : "input_type_mismatch",
                         "The input \"label\" is missing or not a string; using \"Rating\".");
        memcpy(r->label, RATING_DEFAULT_LABEL, sizeof RATING_DEFAULT_LABEL);
        r->label_length = sizeof RATING_DEFAULT_LABEL - 1;
    }
    r->label[r->label_length] = '\0';

    max = number_input(r->context, inputs, "max");
    r->max = max ? clamp_round(max->data.number, 1, RATING_MAX_STARS) : RATING_DEFAULT_MAX;
    value = number_input(r->context, inputs, "value");
    r->value = value ? clamp_round(value->data.number, 0, r->max) : 0;
}

/* Writes the label, replacing characters that would break the markup. */
static bool write_label(const rating_t *r, const graft_writer_t *w, bool html) {
    size_t i, start = 0;
    bool ok = true;
    for (i = 0; i < r->label_length && ok; i++) {
        const char *entity = NULL;
        char c = r->label[i];
        if (html && c == '&') entity = "&amp;";
        else if (html && c == '<') entity = "&lt;";
        else if (html && c == '>') entity = "&gt;";
        else if (html && c == '"') entity = "&quot;";
        else if (html && c == '\'') entity = "&#39;";
        else if ((unsigned char)c < 0x20 || c == 0x7F) entity = " "; /* no newlines in a line */
        if (entity) {
            ok = w->write(w, r->label + start, i - start) && graft_write_cstr(w, entity);
            start = i + 1;
        }
    }
    return ok && w->write(w, r->label + start, r->label_length - start);
}

static bool write_stars(const rating_t *r, const graft_writer_t *w) {
    int i;
    for (i = 0; i < r->max; i++)
        if (!graft_write_cstr(w, i < r->value ? "★" : "☆")) return false;
    return true;
}

static bool rating_render(const graft_component_instance_t *instance, const char *media_type,
                          const graft_writer_t *w) {
    const rating_t *r = rating_of(instance);
    char count[32];
    bool html = media_type && strncmp(media_type, "text/html", 9) == 0;

    snprintf(count, sizeof count, "(%d/%d)", r->value, r->max);
    if (html) {
        char aria[96];
        snprintf(aria, sizeof aria, "%d out of %d stars", r->value, r->max);
        return graft_write_cstr(w, "<div class=\"star-rating\"><span class=\"label\">") &&
               write_label(r, w, true) &&
               graft_write_cstr(w, "</span> <span class=\"stars\" role=\"img\" aria-label=\"") &&
               graft_write_cstr(w, aria) && graft_write_cstr(w, "\">") && write_stars(r, w) &&
               graft_write_cstr(w, "</span></div>\n");
    }
    if (w->set_media_type) w->set_media_type(w, "text/plain");
    /* "Rate us: ★★★☆☆ (3/5)" */
    return write_label(r, w, false) && graft_write_cstr(w, ": ") && write_stars(r, w) &&
           graft_write_cstr(w, " ") && graft_write_cstr(w, count) && graft_write_cstr(w, "\n");
}

static bool rating_update_inputs(const graft_component_instance_t *instance,
                                 const graft_value_t *inputs) {
    read_inputs(rating_of(instance), inputs);
    return true;
}

/* "rate" with data {"stars": n}: remembers the rating and emits `rated`. */
static bool rating_interact(const graft_component_instance_t *instance, const char *action,
                            const graft_value_t *data) {
    rating_t *r = rating_of(instance);
    const graft_value_t *stars = graft_object_get(data, "stars");
    graft_member_t member;
    graft_value_t payload;

    if (!action || strcmp(action, "rate") != 0) return false;
    if (!stars || stars->type != GRAFT_TYPE_NUMBER) {
        r->context->log(r->context, GRAFT_LOG_WARNING,
                        "star_rating: \"rate\" needs data {\"stars\": <number>}");
        return false;
    }
    r->value = clamp_round(stars->data.number, 0, r->max);
    member.key = "stars";
    member.value = graft_number(r->value);
    payload = graft_object(&member, 1);
    r->context->emit(r->context, "rated", &payload);
    return true;
}

/* State is the current rating, as "value=N", so hot swap keeps it. */
static bool rating_save_state(const graft_component_instance_t *instance,
                              const graft_writer_t *w) {
    char text[32];
    snprintf(text, sizeof text, "value=%d", rating_of(instance)->value);
    return graft_write_cstr(w, text);
}

static bool rating_load_state(const graft_component_instance_t *instance, const char *data,
                              size_t length) {
    rating_t *r = rating_of(instance);
    int value = 0;
    size_t i;
    if (!data || length < 7 || length > 12 || memcmp(data, "value=", 6) != 0) return false;
    for (i = 6; i < length; i++) {
        if (data[i] < '0' || data[i] > '9') return false;
        value = value * 10 + (data[i] - '0'); /* at most 6 digits: no overflow */
    }
    r->value = value > r->max ? r->max : value;
    return true;
}

static void rating_destroy(const graft_component_instance_t *instance) {
    free(rating_of(instance));
}

/* ---- Factory and entry --------------------------------------------------- */

static uint32_t factory_count(const graft_component_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_component_descriptor_t *factory_get_descriptor(
    const graft_component_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &rating_descriptor : NULL;
}

static const graft_component_instance_t *factory_create(
    const graft_component_factory_t *factory, const char *key, uint32_t version,
    const graft_value_t *inputs, const graft_component_context_t *context) {
    rating_t *r;
    (void)factory;
    if (!key || strcmp(key, rating_descriptor.key) != 0 || version != 1) return NULL;
    r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->context = context;
    read_inputs(r, inputs);
    r->instance.plugin_data = r;
    r->instance.render = rating_render;
    r->instance.update_inputs = rating_update_inputs;
    r->instance.interact = rating_interact;
    r->instance.save_state = rating_save_state;
    r->instance.load_state = rating_load_state;
    r->instance.destroy = rating_destroy;
    return &r->instance;
}

static const graft_component_factory_t rating_factory = {
    .count = factory_count,
    .get_descriptor = factory_get_descriptor,
    .create = factory_create,
};

static bool rating_init(const graft_host_t *host) {
    (void)host; /* nothing to set up */
    return true;
}

/* Only components: validators and actions answer NULL, as graft.h asks. */
static const void *rating_get_factory(const char *factory_id) {
    if (factory_id && strcmp(factory_id, GRAFT_COMPONENT_FACTORY_ID) == 0) return &rating_factory;
    return NULL;
}

static const graft_plugin_entry_t rating_entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "com.example.rating",
    .version = "0.1.0",
    .name = "Star rating",
    .vendor = "Example Inc.",
    .description = "A star rating component, built with cc and graft.h alone.",
    .init = rating_init,
    .deinit = NULL,
    .get_factory = rating_get_factory,
};

/* graft.h declares the prototype, so the compiler checks this definition. */
GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) { return &rating_entry; }
