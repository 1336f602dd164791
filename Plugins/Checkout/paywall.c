/*
 * paywall.c — the `paywall` component (version 1) and the component factory.
 *
 * A paywall shows a title, a price and a list of features, with "Buy" and
 * "Not now" buttons. Buying emits `purchase` {title, price}; closing emits
 * `dismiss` {reason}.
 *
 * Thread-safety: the factory is stateless and [thread-safe]; an instance owns
 * all of its memory and is touched only by the host's [instance-serialized]
 * calls, so instances need no locks and share nothing.
 */
#include "checkout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Caps that keep one instance's memory and output bounded. */
#define PAYWALL_MAX_FEATURES 64
#define PAYWALL_MIN_WIDTH 20   /* narrowest text card, in columns */
#define PAYWALL_MAX_WIDTH 1000 /* wider containers are treated as this wide */

#define PAYWALL_DEFAULT_TITLE "Upgrade"
#define PAYWALL_DEFAULT_PRICE 0.0

static const graft_field_t paywall_inputs_schema[] = {
    { "title", GRAFT_TYPE_STRING, "Headline of the offer." },
    { "price", GRAFT_TYPE_NUMBER, "Price shown on the card, with two decimals." },
    { "features", GRAFT_TYPE_LIST, "Selling points: a list of strings (the first 64 are shown)." },
};

static const graft_field_t paywall_purchase_payload[] = {
    { "title", GRAFT_TYPE_STRING, "Title of the offer the user bought." },
    { "price", GRAFT_TYPE_NUMBER, "Price shown when the user tapped Buy." },
};

static const graft_field_t paywall_dismiss_payload[] = {
    { "reason", GRAFT_TYPE_STRING,
      "Why the paywall closed: the interaction's reason, or \"user\"." },
};

static const graft_output_t paywall_outputs[] = {
    { "purchase", "The user tapped Buy.", paywall_purchase_payload, 2 },
    { "dismiss", "The user closed the paywall without buying.", paywall_dismiss_payload, 1 },
};

static const graft_field_t dismiss_data[] = {
    { "reason", GRAFT_TYPE_STRING, "Why the user closed it (default \"user\")." },
};

static const graft_interaction_t paywall_interactions[] = {
    { "purchase", "Tap Buy: emits `purchase` with the title and the price.", NULL, 0 },
    { "dismiss", "Tap Not now: emits `dismiss` with the reason.", dismiss_data, 1 },
};

static const graft_component_descriptor_t paywall_descriptor = {
    .key = "paywall",
    .version = 1,
    .name = "Paywall",
    .description = "An offer card with a title, a price, a list of features and "
                   "Buy / Not now buttons.",
    .inputs = paywall_inputs_schema,
    .input_count = 3,
    .outputs = paywall_outputs,
    .output_count = 2,
    .debug_config = "{\"title\":\"Graft Pro\",\"price\":9.99,"
                    "\"features\":[\"Unlimited flows\",\"Priority support\"]}",
    .interactions = paywall_interactions,
    .interaction_count = 2,
};

/* ---- Instance state ------------------------------------------------------ */

/* An owned copy of a host string: NUL-terminated for convenience, but
 * `length` is authoritative (the text may contain NUL bytes). */
typedef struct paywall_text {
    char *data;
    size_t length;
} paywall_text_t;

typedef struct paywall_inputs {
    paywall_text_t title;
    double price;
    paywall_text_t features[PAYWALL_MAX_FEATURES];
    uint32_t feature_count;
} paywall_inputs_t;

typedef struct paywall {
    graft_component_instance_t instance; /* what the host holds */
    const graft_component_context_t *context;
    paywall_inputs_t inputs;
    uint64_t views; /* successful renders; carried across hot swap */
} paywall_t;

static paywall_t *paywall_of(const graft_component_instance_t *instance) {
    return (paywall_t *)instance->plugin_data;
}

static bool text_copy(paywall_text_t *out, const char *data, size_t length) {
    if (length == SIZE_MAX) return false;
    out->data = malloc(length + 1);
    if (!out->data) return false;
    if (length) memcpy(out->data, data, length);
    out->data[length] = '\0';
    out->length = length;
    return true;
}

static void inputs_free(paywall_inputs_t *inputs) {
    uint32_t i;
    free(inputs->title.data);
    for (i = 0; i < inputs->feature_count; i++) free(inputs->features[i].data);
    memset(inputs, 0, sizeof *inputs);
}

static void warn(const graft_component_context_t *context, const char *code,
                 const char *message) {
    if (context->warn) context->warn(context, code, message);
}

/* Reports an input that is absent (or null) or has the wrong type. */
static void warn_input(const graft_component_context_t *context, const char *key,
                       const graft_value_t *value, const char *expected,
                       const char *fallback) {
    char message[256];
    if (!value || value->type == GRAFT_TYPE_NULL) {
        snprintf(message, sizeof message,
                 "The input \"%s\" is missing; the paywall shows %s instead.", key, fallback);
        warn(context, "input_missing", message);
    } else {
        snprintf(message, sizeof message,
                 "The input \"%s\" is %s but should be %s; the paywall shows %s instead.",
                 key, checkout_type_phrase(value->type), expected, fallback);
        warn(context, "input_type_mismatch", message);
    }
}

/* Reads and deep-copies the inputs. Anything absent or mistyped falls back to
 * its default with a warning, so this fails only when memory runs out. */
static bool inputs_read(const graft_component_context_t *context,
                        const graft_value_t *inputs, paywall_inputs_t *out) {
    const graft_value_t *title = graft_object_get(inputs, "title");
    const graft_value_t *price = graft_object_get(inputs, "price");
    const graft_value_t *features = graft_object_get(inputs, "features");
    bool ok;

    memset(out, 0, sizeof *out);

    if (title && title->type == GRAFT_TYPE_STRING) {
        ok = text_copy(&out->title, title->data.string.data, title->data.string.length);
    } else {
        warn_input(context, "title", title, "a string", "\"" PAYWALL_DEFAULT_TITLE "\"");
        ok = text_copy(&out->title, PAYWALL_DEFAULT_TITLE, strlen(PAYWALL_DEFAULT_TITLE));
    }
    if (!ok) goto fail;

    if (price && price->type == GRAFT_TYPE_NUMBER && isfinite(price->data.number)) {
        out->price = price->data.number;
    } else {
        /* A non-finite number breaks the header's contract; treat it as a
         * mismatch rather than print "nan". */
        warn_input(context, "price", price, "a finite number", "0.00");
        out->price = PAYWALL_DEFAULT_PRICE;
    }

    if (features && features->type == GRAFT_TYPE_LIST) {
        uint32_t i, skipped = 0, count = features->data.list.count;
        for (i = 0; i < count; i++) {
            const graft_value_t *item = &features->data.list.items[i];
            if (item->type != GRAFT_TYPE_STRING) {
                skipped++;
                continue;
            }
            if (out->feature_count == PAYWALL_MAX_FEATURES) break; /* logged below */
            if (!text_copy(&out->features[out->feature_count], item->data.string.data,
                           item->data.string.length))
                goto fail;
            out->feature_count++;
        }
        if (skipped) {
            char message[256];
            if (skipped == 1)
                snprintf(message, sizeof message,
                         "The input \"features\" has 1 item that is not a string; "
                         "the paywall skips it.");
            else
                snprintf(message, sizeof message,
                         "The input \"features\" has %u items that are not strings; "
                         "the paywall skips them.", skipped);
            warn(context, "input_type_mismatch", message);
        }
        if (i < count && context->log) {
            char message[160];
            snprintf(message, sizeof message,
                     "paywall: the input \"features\" has %u items; only the first %d are shown.",
                     count, PAYWALL_MAX_FEATURES);
            context->log(context, GRAFT_LOG_WARNING, message);
        }
    } else {
        warn_input(context, "features", features, "a list of strings", "no features");
    }
    return true;

fail:
    inputs_free(out);
    return false;
}

/* ---- Rendering ----------------------------------------------------------- */

/* True when `media_type` is text/html, ignoring case and any parameters
 * ("text/html; charset=utf-8"). */
static bool wants_html(const char *media_type) {
    static const char html[] = "text/html";
    size_t i;
    if (!media_type) return false;
    while (*media_type == ' ') media_type++;
    for (i = 0; html[i]; i++) {
        char c = media_type[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != html[i]) return false;
    }
    return media_type[i] == '\0' || media_type[i] == ';' || media_type[i] == ' ';
}

/* Container width as the host reports it, or 0 when unbounded (or when the
 * host reports something that is not a positive finite number). */
static double container_width(const graft_component_context_t *context) {
    graft_size_t size;
    if (!context->get_container_size) return 0;
    size = context->get_container_size(context);
    return size.width > 0 && isfinite(size.width) ? size.width : 0;
}

/* The same width in text columns: one point per column, at least
 * PAYWALL_MIN_WIDTH so the card stays readable, or 0 when unbounded. */
static size_t text_columns(double width) {
    if (width <= 0) return 0;
    if (width < PAYWALL_MIN_WIDTH) return PAYWALL_MIN_WIDTH;
    if (width > PAYWALL_MAX_WIDTH) return PAYWALL_MAX_WIDTH;
    return (size_t)width;
}

/* A boxed text card being written into `out`, `inner` columns wide. */
typedef struct card {
    checkout_buf_t *out;
    size_t inner;
} card_t;

static void card_rule(card_t *card, const char *left, const char *right) {
    checkout_buf_puts(card->out, left);
    checkout_buf_repeat(card->out, "─", card->inner + 2);
    checkout_buf_puts(card->out, right);
    checkout_buf_puts(card->out, "\n");
}

/* One row: `prefix` then `text` (clean UTF-8), padded to the inner width. */
static void card_row(card_t *card, const char *prefix, const char *text, size_t length) {
    size_t used = checkout_utf8_count(prefix, strlen(prefix)) + checkout_utf8_count(text, length);
    checkout_buf_puts(card->out, "│ ");
    checkout_buf_puts(card->out, prefix);
    checkout_buf_append(card->out, text, length);
    checkout_buf_repeat(card->out, " ", used < card->inner ? card->inner - used : 0);
    checkout_buf_puts(card->out, " │\n");
}

/* Writes `text` (clean UTF-8: no control characters) as rows of at most the
 * inner width, breaking at spaces and, for words longer than a row, inside
 * the word. The first row starts with `first`, the others with `next`; both
 * prefixes have the same width. */
static void card_wrap(card_t *card, const char *first, const char *next,
                      const char *text, size_t n) {
    size_t prefix = checkout_utf8_count(first, strlen(first));
    size_t width = card->inner > prefix ? card->inner - prefix : 1;
    size_t pos = 0;
    const char *lead = first;

    while (pos < n && text[pos] == ' ') pos++;
    if (pos == n) {
        card_row(card, first, "", 0);
        return;
    }
    while (pos < n) {
        size_t i = pos, end, columns = 0, space = 0;
        bool has_space = false;
        while (i < n && columns < width) {
            if (text[i] == ' ') {
                space = i;
                has_space = true;
            }
            checkout_utf8_next(text, n, &i);
            columns++;
        }
        if (i >= n || text[i] == ' ') {
            end = i;            /* the rest fits, or the row ends at a space */
        } else if (has_space && space > pos) {
            end = space;        /* break at the last space */
        } else {
            end = i;            /* one long word: break inside it */
        }
        {
            size_t trimmed = end;
            while (trimmed > pos && text[trimmed - 1] == ' ') trimmed--;
            card_row(card, lead, text + pos, trimmed - pos);
        }
        lead = next;
        pos = end;
        while (pos < n && text[pos] == ' ') pos++;
    }
}

static void render_text(const paywall_t *p, size_t columns, checkout_buf_t *out) {
    static const char buttons[] = "[ Buy ]  [ Not now ]";
    const paywall_inputs_t *in = &p->inputs;
    checkout_buf_t clean = { 0 };
    size_t start[PAYWALL_MAX_FEATURES + 2], length[PAYWALL_MAX_FEATURES + 2];
    size_t natural, i, rows = 0;
    card_t card;

    /* Clean every text once (controls become spaces, bad UTF-8 becomes
     * U+FFFD) so widths are counted on what is actually printed. */
    start[rows] = clean.length;
    checkout_buf_put_plain(&clean, in->title.data, in->title.length);
    length[rows] = clean.length - start[rows];
    rows++;
    start[rows] = clean.length;
    checkout_buf_printf(&clean, "Price: %.2f", in->price);
    length[rows] = clean.length - start[rows];
    rows++;
    for (i = 0; i < in->feature_count; i++, rows++) {
        start[rows] = clean.length;
        checkout_buf_put_plain(&clean, in->features[i].data, in->features[i].length);
        length[rows] = clean.length - start[rows];
    }
    if (clean.failed) {
        out->failed = true;
        checkout_buf_free(&clean);
        return;
    }

    natural = sizeof buttons - 1;
    for (i = 0; i < rows; i++) {
        size_t w = checkout_utf8_count(clean.data + start[i], length[i]) + (i >= 2 ? 2 : 0);
        if (w > natural) natural = w;
    }
    card.out = out;
    card.inner = natural;
    if (columns && natural + 4 > columns) card.inner = columns - 4;

    card_rule(&card, "┌", "┐");
    card_wrap(&card, "", "", clean.data + start[0], length[0]);
    card_wrap(&card, "", "", clean.data + start[1], length[1]);
    if (in->feature_count) {
        card_rule(&card, "├", "┤");
        for (i = 2; i < rows; i++)
            card_wrap(&card, "• ", "  ", clean.data + start[i], length[i]);
    }
    card_rule(&card, "├", "┤");
    if (card.inner >= sizeof buttons - 1) {
        card_row(&card, "", buttons, sizeof buttons - 1);
    } else {
        card_row(&card, "", "[ Buy ]", 7);
        card_row(&card, "", "[ Not now ]", 11);
    }
    card_rule(&card, "└", "┘");
    checkout_buf_free(&clean);
}

static void render_html(const paywall_t *p, double width, checkout_buf_t *out) {
    const paywall_inputs_t *in = &p->inputs;
    uint32_t i;

    checkout_buf_puts(out, "<div class=\"graft-paywall\"");
    if (width > 0) checkout_buf_printf(out, " style=\"max-width:%.0fpx\"", width);
    checkout_buf_puts(out, ">\n  <h2 class=\"graft-paywall-title\">");
    checkout_buf_put_html(out, in->title.data, in->title.length);
    checkout_buf_printf(out, "</h2>\n  <p class=\"graft-paywall-price\">%.2f</p>\n", in->price);
    if (in->feature_count) {
        checkout_buf_puts(out, "  <ul class=\"graft-paywall-features\">\n");
        for (i = 0; i < in->feature_count; i++) {
            checkout_buf_puts(out, "    <li>");
            checkout_buf_put_html(out, in->features[i].data, in->features[i].length);
            checkout_buf_puts(out, "</li>\n");
        }
        checkout_buf_puts(out, "  </ul>\n");
    }
    checkout_buf_puts(out,
                      "  <p class=\"graft-paywall-actions\">"
                      "<button type=\"button\" data-graft-action=\"purchase\">Buy</button> "
                      "<button type=\"button\" data-graft-action=\"dismiss\">Not now</button>"
                      "</p>\n</div>\n");
}

/* ---- Instance functions -------------------------------------------------- */

static bool paywall_render(const graft_component_instance_t *instance,
                           const char *media_type, const graft_writer_t *writer) {
    paywall_t *p = paywall_of(instance);
    double width = container_width(p->context);
    checkout_buf_t out = { 0 };
    bool html = wants_html(media_type), ok;

    /* Build the whole output first: one write, and nothing half-written when
     * memory runs out. */
    if (html) {
        render_html(p, width, &out);
    } else {
        render_text(p, text_columns(width), &out);
        if (writer->set_media_type) writer->set_media_type(writer, "text/plain");
    }
    ok = !out.failed && writer->write(writer, out.data, out.length);
    checkout_buf_free(&out);
    if (ok) p->views++;
    return ok;
}

static bool paywall_update_inputs(const graft_component_instance_t *instance,
                                  const graft_value_t *inputs) {
    paywall_t *p = paywall_of(instance);
    paywall_inputs_t fresh;
    if (!inputs_read(p->context, inputs, &fresh)) return false; /* old inputs stay */
    inputs_free(&p->inputs);
    p->inputs = fresh;
    return true;
}

static bool paywall_interact(const graft_component_instance_t *instance,
                             const char *action, const graft_value_t *data) {
    paywall_t *p = paywall_of(instance);
    const graft_component_context_t *context = p->context;

    if (!action) return false;
    if (strcmp(action, "purchase") == 0) {
        graft_member_t members[2];
        graft_value_t payload;
        members[0].key = "title";
        members[0].value = graft_string(p->inputs.title.data, p->inputs.title.length);
        members[1].key = "price";
        members[1].value = graft_number(p->inputs.price);
        payload = graft_object(members, 2);
        context->emit(context, "purchase", &payload);
        return true;
    }
    if (strcmp(action, "dismiss") == 0) {
        const graft_value_t *reason = graft_object_get(data, "reason");
        graft_member_t member;
        graft_value_t payload;
        member.key = "reason";
        if (reason && reason->type == GRAFT_TYPE_STRING && reason->data.string.length > 0)
            member.value = reason->data.string.data
                               ? graft_string(reason->data.string.data, reason->data.string.length)
                               : graft_string("user", 4);
        else
            member.value = graft_string("user", 4);
        payload = graft_object(&member, 1);
        context->emit(context, "dismiss", &payload);
        return true;
    }
    return false;
}

/* State format: "views=<decimal>" — small, textual, and easy for a later
 * build to extend with more "key=value" lines. */
static bool paywall_save_state(const graft_component_instance_t *instance,
                               const graft_writer_t *writer) {
    char text[32];
    int n = snprintf(text, sizeof text, "views=%llu",
                     (unsigned long long)paywall_of(instance)->views);
    return n > 0 && writer->write(writer, text, (size_t)n);
}

static bool paywall_load_state(const graft_component_instance_t *instance,
                               const char *data, size_t length) {
    static const char key[] = "views=";
    const size_t key_length = sizeof key - 1;
    uint64_t views = 0;
    size_t i;

    if (!data || length <= key_length || memcmp(data, key, key_length) != 0) return false;
    if (data[length - 1] == '\n') length--; /* tolerate a trailing newline */
    if (length <= key_length) return false;
    for (i = key_length; i < length; i++) {
        unsigned digit;
        if (data[i] < '0' || data[i] > '9') return false;
        digit = (unsigned)(data[i] - '0');
        if (views > (UINT64_MAX - digit) / 10) return false;
        views = views * 10 + digit;
    }
    paywall_of(instance)->views = views;
    return true;
}

static void paywall_destroy(const graft_component_instance_t *instance) {
    paywall_t *p = paywall_of(instance);
    inputs_free(&p->inputs);
    free(p);
}

/* ---- Factory ------------------------------------------------------------- */

static uint32_t factory_count(const graft_component_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_component_descriptor_t *factory_get_descriptor(
    const graft_component_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &paywall_descriptor : NULL;
}

static const graft_component_instance_t *factory_create(
    const graft_component_factory_t *factory, const char *key, uint32_t version,
    const graft_value_t *inputs, const graft_component_context_t *context) {
    paywall_t *p;
    (void)factory;

    if (!key || !context || strcmp(key, paywall_descriptor.key) != 0 ||
        version != paywall_descriptor.version)
        return NULL;
    p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->context = context;
    if (!inputs_read(context, inputs, &p->inputs)) {
        free(p);
        return NULL;
    }
    p->instance.plugin_data = p;
    p->instance.render = paywall_render;
    p->instance.update_inputs = paywall_update_inputs;
    p->instance.interact = paywall_interact;
    p->instance.save_state = paywall_save_state;
    p->instance.load_state = paywall_load_state;
    p->instance.destroy = paywall_destroy;
    return &p->instance;
}

const graft_component_factory_t checkout_component_factory = {
    .count = factory_count,
    .get_descriptor = factory_get_descriptor,
    .create = factory_create,
};

/* ---- Stories (ABI 1.3): the paywall in the states a tester looks at ------ */

static const graft_story_t paywall_stories[] = {
    { "paywall", 1, "sale", "A discounted offer with one feature.",
      "{\"title\":\"Graft Pro, 50% off\",\"price\":4.99,\"features\":[\"Unlimited flows\"]}" },
    { "paywall", 1, "many_features", "Ten selling points: does the card still read well?",
      "{\"title\":\"Graft Enterprise\",\"price\":99,\"features\":[\"Unlimited flows\",\"Priority support\","
      "\"Single sign-on\",\"Audit log\",\"Custom roles\",\"Data residency\",\"Uptime SLA\",\"Dedicated manager\","
      "\"Training\",\"Invoicing\"]}" },
    { "paywall", 1, "free", "No price and no features: the smallest card.",
      "{\"title\":\"Graft Free\",\"price\":0,\"features\":[]}" },
};

static uint32_t stories_count(const graft_stories_t *stories) {
    (void)stories;
    return (uint32_t)(sizeof paywall_stories / sizeof paywall_stories[0]);
}

static const graft_story_t *stories_get(const graft_stories_t *stories, uint32_t index) {
    return index < stories_count(stories) ? &paywall_stories[index] : NULL;
}

const graft_stories_t checkout_stories = {
    .count = stories_count,
    .get = stories_get,
};
