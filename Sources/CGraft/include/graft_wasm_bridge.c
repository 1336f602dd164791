/*
 * graft_wasm_bridge.c: builds a graft.h plugin as a WebAssembly plugin, from
 * the same source. Compile it beside the plugin's own files:
 *
 *   clang-14 --target=wasm32-wasi -mexec-model=reactor -O2 $(graft sdk --cflags) \
 *       plugin.c "$(dirname "$(graft sdk --header)")/graft_wasm_bridge.c" -o plugin.wasm
 *
 * It implements the exports of docs/WasmABI.md on top of the plugin's
 * graft_entry(): the description is written from its descriptors (and
 * stories), and each call crosses into its factories with values read from
 * and written as JSON. Generic validators, components, actions and the data
 * and read permissions cross; a plugin that declares native validators or
 * the network does not start (graft_entry logs why and answers 0): a
 * WebAssembly guest has neither.
 * Everything here exists only when compiling for wasm.
 */
#if defined(__wasm__)
#include "graft.h"
#include "graft_wasm.h"

#include <stdio.h>

GRAFT_WASM_BUFFER()

/* ---- Memory for one call's values, freed when the call returns ---------- */

typedef struct gwb_block { struct gwb_block *next; } gwb_block;
static gwb_block *gwb_blocks;

static void *gwb_alloc(size_t size) {
    gwb_block *block = malloc(sizeof(gwb_block) + size + 8);
    if (!block) return NULL;
    block->next = gwb_blocks;
    gwb_blocks = block;
    return (char *)(block + 1);
}

static void gwb_release(void) {
    while (gwb_blocks) { gwb_block *next = gwb_blocks->next; free(gwb_blocks); gwb_blocks = next; }
}

/* ---- JSON out ------------------------------------------------------------ */

/* Text being written: grown with realloc, or (`streams`) a fixed buffer that
 * goes to graft_write each time it fills. The description streams: every
 * function a module runs is translated by the host when first called, and
 * describing the plugin without malloc keeps a load from translating it. */
typedef struct { char *data; size_t length, capacity; bool failed, streams; } gwb_text;

static void gwb_put(gwb_text *t, const char *s, size_t n) {
    if (t->failed) return;
    while (t->streams && n > 0) {
        if (t->length == t->capacity) {
            if (!graft_write(t->data, t->length)) { t->failed = true; return; }
            t->length = 0;
        }
        size_t room = t->capacity - t->length, k = n < room ? n : room;
        for (size_t i = 0; i < k; i++) t->data[t->length + i] = s[i];
        t->length += k;
        s += k;
        n -= k;
    }
    if (t->streams) return;
    if (t->length + n + 1 > t->capacity) {
        size_t capacity = (t->length + n + 1) * 2;
        char *grown = realloc(t->data, capacity);
        if (!grown) { t->failed = true; return; }
        t->data = grown;
        t->capacity = capacity;
    }
    memcpy(t->data + t->length, s, n);
    t->length += n;
    t->data[t->length] = 0;
}

static void gwb_puts(gwb_text *t, const char *s) { gwb_put(t, s, strlen(s)); }

static void gwb_string(gwb_text *t, const char *s, size_t n) {
    gwb_puts(t, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { char pair[2] = { '\\', (char)c }; gwb_put(t, pair, 2); }
        else if (c < 0x20) {
            static const char hex[] = "0123456789abcdef";
            char escape[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
            gwb_put(t, escape, 6);
        }
        else gwb_put(t, (const char *)&c, 1);
    }
    gwb_puts(t, "\"");
}

static void gwb_cstring(gwb_text *t, const char *s) { gwb_string(t, s, strlen(s)); }

/* A whole number in decimal. Not snprintf: every function a module runs is
 * translated by the host when first called, and printf's core is large. */
static void gwb_uint(gwb_text *t, uint32_t n) {
    char digits[10];
    int at = 10;
    do { digits[--at] = (char)('0' + n % 10); n /= 10; } while (n);
    gwb_put(t, digits + at, (size_t)(10 - at));
}

static void gwb_value(gwb_text *t, const graft_value_t *v) {
    if (!v) { gwb_puts(t, "null"); return; }
    switch (v->type) {
    case GRAFT_TYPE_BOOLEAN: gwb_puts(t, v->data.boolean ? "true" : "false"); break;
    case GRAFT_TYPE_NUMBER: {
        double n = v->data.number;
        if (n != n || n > 1.7976931348623157e308 || n < -1.7976931348623157e308) { gwb_puts(t, "null"); break; }
        char number[32];
        snprintf(number, sizeof number, "%.17g", n);
        gwb_puts(t, number);
        break;
    }
    case GRAFT_TYPE_STRING: gwb_string(t, v->data.string.data ? v->data.string.data : "", v->data.string.length); break;
    case GRAFT_TYPE_LIST:
        gwb_puts(t, "[");
        for (uint32_t i = 0; i < v->data.list.count; i++) { if (i) gwb_puts(t, ","); gwb_value(t, &v->data.list.items[i]); }
        gwb_puts(t, "]");
        break;
    case GRAFT_TYPE_OBJECT:
        gwb_puts(t, "{");
        for (uint32_t i = 0; i < v->data.object.count; i++) {
            if (i) gwb_puts(t, ",");
            gwb_cstring(t, v->data.object.members[i].key);
            gwb_puts(t, ":");
            gwb_value(t, &v->data.object.members[i].value);
        }
        gwb_puts(t, "}");
        break;
    default: gwb_puts(t, "null");
    }
}

/* ---- JSON in: the host wrote it, so it is valid JSON; depth is bounded -- */

typedef struct { const char *p, *end; int depth; } gwb_reader;

static void gwb_space(gwb_reader *r) { while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r')) r->p++; }

/* Whether any of the 8 bytes in `word` is `byte` (the classic zero-byte test on word ^ byte*8). */
static bool gwb_has_byte(uint64_t word, unsigned char byte) {
    uint64_t x = word ^ (0x0101010101010101ull * byte);
    return ((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull) != 0;
}

static bool gwb_read_string(gwb_reader *r, char **out, size_t *length) {
    if (r->p >= r->end || *r->p != '"') return false;
    const char *start = ++r->p;
    bool escaped = false;
    /* Eight bytes at a time past runs with neither quote nor backslash: a
     * call's inputs may hold a string of megabytes, and each operation here
     * costs the call fuel. */
    while (r->p < r->end) {
        uint64_t word;
        if (r->end - r->p >= 8) {
            memcpy(&word, r->p, 8);
            if (!gwb_has_byte(word, '"') && !gwb_has_byte(word, '\\')) { r->p += 8; continue; }
        }
        if (*r->p == '"') break;
        if (*r->p == '\\') { escaped = true; r->p += 2; } else r->p++;
    }
    if (r->p >= r->end) return false;
    char *text = gwb_alloc((size_t)(r->p - start) + 1);
    if (!text) return false;
    size_t n = 0;
    if (!escaped) {
        n = (size_t)(r->p - start);
        memcpy(text, start, n);
    }
    for (const char *c = start; escaped && c < r->p; c++) {
        if (*c != '\\') { text[n++] = *c; continue; }
        c++;
        switch (*c) {
        case 'n': text[n++] = '\n'; break;
        case 't': text[n++] = '\t'; break;
        case 'r': text[n++] = '\r'; break;
        case 'b': text[n++] = '\b'; break;
        case 'f': text[n++] = '\f'; break;
        case 'u': {
            unsigned code = 0;
            for (int i = 1; i <= 4 && c + i < r->p; i++) {
                char h = c[i];
                code = code * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
            }
            c += 4;
            /* UTF-8 of the code unit; a surrogate pair's halves stay apart (the host writes them only for controls). */
            if (code < 0x80) text[n++] = (char)code;
            else if (code < 0x800) { text[n++] = (char)(0xC0 | code >> 6); text[n++] = (char)(0x80 | (code & 0x3F)); }
            else { text[n++] = (char)(0xE0 | code >> 12); text[n++] = (char)(0x80 | ((code >> 6) & 0x3F)); text[n++] = (char)(0x80 | (code & 0x3F)); }
            break;
        }
        default: text[n++] = *c;
        }
    }
    text[n] = 0;
    r->p++;
    *out = text;
    *length = n;
    return true;
}

static bool gwb_read(gwb_reader *r, graft_value_t *v) {
    gwb_space(r);
    if (r->p >= r->end || ++r->depth > 64) return false;
    char c = *r->p;
    bool ok = true;
    if (c == '"') {
        char *text; size_t length;
        ok = gwb_read_string(r, &text, &length);
        if (ok) *v = graft_string(text, length);
    } else if (c == '{' || c == '[') {
        bool object = c == '{';
        r->p++;
        uint32_t count = 0, capacity = 4;
        graft_member_t *members = object ? gwb_alloc(capacity * sizeof *members) : NULL;
        graft_value_t *items = object ? NULL : gwb_alloc(capacity * sizeof *items);
        if (!members && !items) return false;
        gwb_space(r);
        while (ok && r->p < r->end && *r->p != (object ? '}' : ']')) {
            if (count == capacity) {
                capacity *= 2;
                void *grown = gwb_alloc(capacity * (object ? sizeof *members : sizeof *items));
                if (!grown) return false;
                memcpy(grown, object ? (void *)members : (void *)items, count * (object ? sizeof *members : sizeof *items));
                if (object) members = grown; else items = grown;
            }
            if (object) {
                char *key; size_t length;
                gwb_space(r);
                ok = gwb_read_string(r, &key, &length);
                gwb_space(r);
                if (ok && r->p < r->end && *r->p == ':') r->p++; else ok = false;
                if (ok) { members[count].key = key; ok = gwb_read(r, &members[count].value); }
            } else {
                ok = gwb_read(r, &items[count]);
            }
            count++;
            gwb_space(r);
            if (r->p < r->end && *r->p == ',') { r->p++; gwb_space(r); }
        }
        if (r->p >= r->end) return false;
        r->p++;
        *v = object ? graft_object(members, count) : graft_list(items, count);
    } else if (c == 't' || c == 'f') {
        *v = graft_bool(c == 't');
        r->p += c == 't' ? 4 : 5;
    } else if (c == 'n') {
        *v = graft_null();
        r->p += 4;
    } else {
        char *end;
        double n = strtod(r->p, &end);
        ok = end > r->p;
        r->p = end;
        *v = graft_number(n);
    }
    r->depth--;
    return ok;
}

/* The JSON at `json` as a value (in the call's memory); NULL for no bytes or bad JSON. */
static const graft_value_t *gwb_parse(const char *json, size_t length) {
    if (!length) return NULL;
    graft_value_t *v = gwb_alloc(sizeof *v);
    gwb_reader r = { json, json + length, 0 };
    return v && gwb_read(&r, v) ? v : NULL;
}

/* ---- The plugin's entry and factories ------------------------------------ */

static const graft_plugin_entry_t *gwb_entry;
static const graft_component_factory_t *gwb_components;
static const graft_validator_factory_t *gwb_validators;
static const graft_action_factory_t *gwb_actions;
static const graft_stories_t *gwb_stories;

static void gwb_log(uint32_t level, const char *message) { graft_log(level, message, strlen(message)); }
static void gwb_host_log(const graft_host_t *host, uint32_t level, const char *message) { (void)host; gwb_log(level, message); }
static const void *gwb_no_extension(const graft_host_t *host, const char *id) { (void)host; (void)id; return NULL; }

static bool gwb_write(const graft_writer_t *writer, const char *data, size_t length) { (void)writer; return graft_write(data, length) != 0; }
static void gwb_media(const graft_writer_t *writer, const char *type) { (void)writer; graft_set_media_type(type, strlen(type)); }
static const graft_writer_t gwb_writer = { NULL, gwb_write, gwb_media };

static const char *gwb_type(uint32_t type) {
    switch (type) {
    case GRAFT_TYPE_BOOLEAN: return "boolean";
    case GRAFT_TYPE_NUMBER: return "number";
    case GRAFT_TYPE_STRING: return "string";
    case GRAFT_TYPE_LIST: return "list";
    case GRAFT_TYPE_OBJECT: return "object";
    default: return "null";
    }
}

static void gwb_optional(gwb_text *t, const char *name, const char *value) {
    if (!value) return;
    gwb_puts(t, ",");
    gwb_cstring(t, name);
    gwb_puts(t, ":");
    gwb_cstring(t, value);
}

static void gwb_fields(gwb_text *t, const char *name, const graft_field_t *fields, uint32_t count) {
    gwb_puts(t, ",");
    gwb_cstring(t, name);
    gwb_puts(t, ":[");
    for (uint32_t i = 0; i < count; i++) {
        if (i) gwb_puts(t, ",");
        gwb_puts(t, "{\"key\":");
        gwb_cstring(t, fields[i].key ? fields[i].key : "");
        gwb_puts(t, ",\"type\":");
        gwb_cstring(t, gwb_type(fields[i].type));
        gwb_optional(t, "description", fields[i].description);
        gwb_puts(t, "}");
    }
    gwb_puts(t, "]");
}

static void gwb_component(gwb_text *t, const graft_component_descriptor_t *d) {
    gwb_puts(t, "{\"key\":");
    gwb_cstring(t, d->key ? d->key : "");
    gwb_puts(t, ",\"version\":");
    gwb_uint(t, d->version);
    gwb_optional(t, "name", d->name);
    gwb_optional(t, "description", d->description);
    gwb_fields(t, "inputs", d->inputs, d->input_count);
    gwb_puts(t, ",\"outputs\":[");
    for (uint32_t i = 0; i < d->output_count; i++) {
        if (i) gwb_puts(t, ",");
        gwb_puts(t, "{\"event\":");
        gwb_cstring(t, d->outputs[i].event ? d->outputs[i].event : "");
        gwb_optional(t, "description", d->outputs[i].description);
        gwb_fields(t, "payload", d->outputs[i].payload, d->outputs[i].payload_count);
        gwb_puts(t, "}");
    }
    gwb_puts(t, "]");
    if (gwb_entry->abi.minor >= 1) {
        gwb_puts(t, ",\"interactions\":[");
        for (uint32_t i = 0; i < d->interaction_count; i++) {
            if (i) gwb_puts(t, ",");
            gwb_puts(t, "{\"name\":");
            gwb_cstring(t, d->interactions[i].name ? d->interactions[i].name : "");
            gwb_optional(t, "description", d->interactions[i].description);
            gwb_fields(t, "data", d->interactions[i].data, d->interactions[i].data_count);
            gwb_puts(t, "}");
        }
        gwb_puts(t, "]");
    }
    if (d->debug_config) { gwb_puts(t, ",\"debugConfig\":"); gwb_puts(t, d->debug_config); }
    uint32_t stories = gwb_stories ? gwb_stories->count(gwb_stories) : 0;
    bool first = true;
    gwb_puts(t, ",\"stories\":[");
    for (uint32_t i = 0; i < stories; i++) {
        const graft_story_t *story = gwb_stories->get(gwb_stories, i);
        if (!story || !story->component || strcmp(story->component, d->key) != 0 || story->version != d->version) continue;
        if (!first) gwb_puts(t, ",");
        first = false;
        gwb_puts(t, "{\"name\":");
        gwb_cstring(t, story->name ? story->name : "");
        gwb_optional(t, "description", story->description);
        gwb_puts(t, ",\"config\":");
        gwb_puts(t, story->config ? story->config : "{}");
        gwb_puts(t, "}");
    }
    gwb_puts(t, "]}");
}

/* Its permissions in their text form ("data", "read:/srv/maps"); 0 for one a
 * WebAssembly plugin cannot have (the network: WASI preview 1 cannot connect). */
static int gwb_permissions(gwb_text *t, const graft_permissions_t *permissions) {
    gwb_puts(t, ",\"permissions\":[");
    uint32_t count = permissions->count && permissions->get ? permissions->count(permissions) : 0, written = 0;
    for (uint32_t i = 0; i < count; i++) {
        const graft_permission_t *p = permissions->get(permissions, i);
        if (!p) continue;
        if (p->kind != GRAFT_PERMISSION_DATA && p->kind != GRAFT_PERMISSION_READ) {
            gwb_log(GRAFT_LOG_ERROR, "the plugin declares a network permission; a WebAssembly plugin has no network (docs/WasmABI.md)");
            return 0;
        }
        if (written++) gwb_puts(t, ",");
        gwb_puts(t, "{\"permission\":");
        if (p->kind == GRAFT_PERMISSION_DATA) {
            gwb_cstring(t, "data");
        } else {
            gwb_text folder = { 0 };
            gwb_puts(&folder, "read:");
            gwb_puts(&folder, p->path ? p->path : "");
            if (!folder.failed) gwb_string(t, folder.data, folder.length);
            free(folder.data);
            if (folder.failed) return 0;
        }
        gwb_optional(t, "reason", p->reason ? p->reason : "");
        gwb_puts(t, "}");
    }
    gwb_puts(t, "]");
    return 1;
}

/* Starts the plugin and writes its description; 0 when it cannot be a WebAssembly plugin. */
GRAFT_WASM_EXPORT("graft_entry") int graft_wasm_entry(void) {
    static const graft_host_t host = {
        sizeof(graft_host_t), GRAFT_ABI_VERSION_INIT, "graft (WebAssembly)", "", NULL, "", gwb_host_log, gwb_no_extension };
    gwb_entry = graft_entry();
    /* The rules a host applies to a .so's entry, so that one source loads both ways or neither. */
    if (!gwb_entry || gwb_entry->abi.major != GRAFT_ABI_MAJOR || !gwb_entry->init || !gwb_entry->get_factory) {
        gwb_log(GRAFT_LOG_ERROR, "graft_entry() gave no entry of ABI 1 with init and get_factory");
        return 0;
    }
    if (!gwb_entry->init(&host)) return 0;
    const graft_permissions_t *permissions = gwb_entry->abi.minor >= 2 ? gwb_entry->get_factory(GRAFT_PERMISSIONS_ID) : NULL;
    gwb_components = gwb_entry->get_factory(GRAFT_COMPONENT_FACTORY_ID);
    gwb_validators = gwb_entry->get_factory(GRAFT_VALIDATOR_FACTORY_ID);
    gwb_actions = gwb_entry->get_factory(GRAFT_ACTION_FACTORY_ID);
    gwb_stories = gwb_entry->abi.minor >= 3 ? gwb_entry->get_factory(GRAFT_STORIES_ID) : NULL;

    static char buffer[2048];
    gwb_text t = { buffer, 0, sizeof buffer, false, true };
    gwb_puts(&t, "{\"abi\":\"" GRAFT_WASM_ABI "\",\"id\":");
    gwb_cstring(&t, gwb_entry->id ? gwb_entry->id : "");
    gwb_puts(&t, ",\"version\":");
    gwb_cstring(&t, gwb_entry->version ? gwb_entry->version : "");
    gwb_puts(&t, ",\"name\":");
    gwb_cstring(&t, gwb_entry->name ? gwb_entry->name : "");
    gwb_optional(&t, "vendor", gwb_entry->vendor);
    gwb_optional(&t, "description", gwb_entry->description);
    gwb_puts(&t, ",\"components\":[");
    uint32_t count = gwb_components ? gwb_components->count(gwb_components) : 0;
    for (uint32_t i = 0; i < count; i++) {
        if (i) gwb_puts(&t, ",");
        gwb_component(&t, gwb_components->get_descriptor(gwb_components, i));
    }
    gwb_puts(&t, "],\"validators\":[");
    count = gwb_validators ? gwb_validators->count(gwb_validators) : 0;
    for (uint32_t i = 0; i < count; i++) {
        const graft_validator_descriptor_t *d = gwb_validators->get_descriptor(gwb_validators, i);
        if (d->kind != GRAFT_VALIDATOR_GENERIC) {
            char line[192];
            snprintf(line, sizeof line, "validator '%s' is native (a C function called through libffi); a WebAssembly plugin declares generic validators", d->name ? d->name : "?");
            gwb_log(GRAFT_LOG_ERROR, line);
            return 0;
        }
        if (i) gwb_puts(&t, ",");
        gwb_puts(&t, "{\"name\":");
        gwb_cstring(&t, d->name ? d->name : "");
        gwb_puts(&t, ",\"version\":");
        gwb_uint(&t, d->version);
        gwb_optional(&t, "description", d->description);
        gwb_fields(&t, "params", d->params, d->param_count);
        gwb_optional(&t, "message", d->message);
        gwb_puts(&t, "}");
    }
    gwb_puts(&t, "],\"actions\":[");
    count = gwb_actions ? gwb_actions->count(gwb_actions) : 0;
    for (uint32_t i = 0; i < count; i++) {
        const graft_action_descriptor_t *d = gwb_actions->get_descriptor(gwb_actions, i);
        if (i) gwb_puts(&t, ",");
        gwb_puts(&t, "{\"key\":");
        gwb_cstring(&t, d->key ? d->key : "");
        gwb_puts(&t, ",\"version\":");
        gwb_uint(&t, d->version);
        gwb_optional(&t, "name", d->name);
        gwb_optional(&t, "description", d->description);
        gwb_fields(&t, "params", d->params, d->param_count);
        gwb_puts(&t, "}");
    }
    gwb_puts(&t, "]");
    if (permissions && !gwb_permissions(&t, permissions)) return 0;
    gwb_puts(&t, "}");
    return !t.failed && graft_write(t.data, t.length);
}

/* ---- Components ---------------------------------------------------------- */

typedef struct {
    graft_component_context_t context; /* first: the plugin is handed its address */
    const graft_component_instance_t *instance;
} gwb_instance;

static void gwb_emit(const graft_component_context_t *context, const char *event, const graft_value_t *payload) {
    (void)context;
    gwb_text t = { 0 };
    if (payload) gwb_value(&t, payload);
    if (!t.failed) graft_emit(event, strlen(event), t.data ? t.data : "", t.length);
    free(t.data);
}
static void gwb_instance_log(const graft_component_context_t *context, uint32_t level, const char *message) { (void)context; gwb_log(level, message); }
static void gwb_warn(const graft_component_context_t *context, const char *code, const char *message) {
    (void)context;
    char line[512];
    snprintf(line, sizeof line, "%s: %s", code, message);
    gwb_log(GRAFT_LOG_WARNING, line);
}
static graft_size_t gwb_size(const graft_component_context_t *context) { (void)context; graft_size_t none = { 0, 0 }; return none; }

GRAFT_WASM_EXPORT("graft_create")
gwb_instance *graft_wasm_create(uint32_t version, const char *key, size_t key_length, const char *inputs, size_t inputs_length) {
    (void)key_length;
    if (!gwb_components || !gwb_components->create) return NULL;
    gwb_instance *made = calloc(1, sizeof *made);
    if (!made) return NULL;
    made->context.emit = gwb_emit;
    made->context.log = gwb_instance_log;
    made->context.warn = gwb_warn;
    made->context.get_container_size = gwb_size;
    graft_value_t none = graft_object(NULL, 0);
    const graft_value_t *values = gwb_parse(inputs, inputs_length);
    made->instance = gwb_components->create(gwb_components, key, version, values ? values : &none, &made->context);
    gwb_release();
    if (!made->instance) { free(made); return NULL; }
    return made;
}

GRAFT_WASM_EXPORT("graft_render") int graft_wasm_render(gwb_instance *made, const char *type, size_t length) {
    (void)length;
    return made->instance->render(made->instance, type, &gwb_writer);
}

GRAFT_WASM_EXPORT("graft_interact") int graft_wasm_interact(gwb_instance *made, const char *action, size_t action_length, const char *data, size_t data_length) {
    (void)action_length;
    if (!made->instance->interact) return 0;
    bool answered = made->instance->interact(made->instance, action, gwb_parse(data, data_length));
    gwb_release();
    return answered;
}

GRAFT_WASM_EXPORT("graft_update") int graft_wasm_update(gwb_instance *made, const char *inputs, size_t length) {
    const graft_value_t *values = gwb_parse(inputs, length);
    bool ok = values && made->instance->update_inputs && made->instance->update_inputs(made->instance, values);
    gwb_release();
    return ok;
}

GRAFT_WASM_EXPORT("graft_save") int graft_wasm_save(gwb_instance *made) {
    return made->instance->save_state && made->instance->save_state(made->instance, &gwb_writer);
}

GRAFT_WASM_EXPORT("graft_load") int graft_wasm_load(gwb_instance *made, const char *state, size_t length) {
    return made->instance->load_state && made->instance->load_state(made->instance, state, length);
}

GRAFT_WASM_EXPORT("graft_destroy") void graft_wasm_destroy(gwb_instance *made) {
    made->instance->destroy(made->instance);
    free(made);
}

/* ---- Validators and actions ---------------------------------------------- */

GRAFT_WASM_EXPORT("graft_validate")
int graft_wasm_validate(uint32_t version, const char *name, size_t name_length, const char *value, size_t value_length,
                        const char *params, size_t params_length) {
    (void)name_length;
    uint32_t count = gwb_validators ? gwb_validators->count(gwb_validators) : 0;
    for (uint32_t i = 0; i < count; i++) {
        const graft_validator_descriptor_t *d = gwb_validators->get_descriptor(gwb_validators, i);
        if (!d || d->version != version || strcmp(d->name, name) != 0 || !d->validate) continue;
        const graft_value_t *list = gwb_parse(params, params_length);
        uint32_t param_count = list && list->type == GRAFT_TYPE_LIST ? list->data.list.count : 0;
        const char **texts = gwb_alloc((param_count + 1) * sizeof *texts);
        for (uint32_t p = 0; texts && p < param_count; p++) {
            const graft_value_t *item = &list->data.list.items[p];
            texts[p] = item->type == GRAFT_TYPE_STRING ? item->data.string.data : "";
        }
        graft_value_t null = graft_null();
        const graft_value_t *parsed = gwb_parse(value, value_length);
        bool valid = texts && d->validate(d, parsed ? parsed : &null, texts, param_count, &gwb_writer);
        gwb_release();
        return valid;
    }
    return 0;
}

static void gwb_set_variable(const graft_action_context_t *context, const char *name, const graft_value_t *value) {
    (void)context;
    gwb_text t = { 0 };
    gwb_value(&t, value);
    if (!t.failed) graft_set_variable(name, strlen(name), t.data, t.length);
    free(t.data);
}
static void gwb_set_result(const graft_action_context_t *context, const graft_value_t *value) {
    (void)context;
    gwb_text t = { 0 };
    gwb_value(&t, value);
    if (!t.failed) graft_set_result(t.data, t.length);
    free(t.data);
}
static void gwb_set_error(const graft_action_context_t *context, const char *message) { (void)context; graft_set_error(message, strlen(message)); }
static void gwb_action_log(const graft_action_context_t *context, uint32_t level, const char *message) { (void)context; gwb_log(level, message); }

GRAFT_WASM_EXPORT("graft_action")
int graft_wasm_action(uint32_t version, const char *key, size_t key_length, const char *params, size_t params_length,
                      const char *payload, size_t payload_length) {
    (void)key_length;
    static const graft_action_context_t context = { NULL, gwb_set_variable, gwb_set_result, gwb_set_error, gwb_action_log };
    uint32_t count = gwb_actions ? gwb_actions->count(gwb_actions) : 0;
    for (uint32_t i = 0; i < count; i++) {
        const graft_action_descriptor_t *d = gwb_actions->get_descriptor(gwb_actions, i);
        if (!d || d->version != version || strcmp(d->key, key) != 0 || !d->invoke) continue;
        graft_value_t none = graft_object(NULL, 0);
        const graft_value_t *parsed = gwb_parse(params, params_length);
        bool ok = d->invoke(d, parsed ? parsed : &none, gwb_parse(payload, payload_length), &context);
        gwb_release();
        return ok;
    }
    return 0;
}

#endif /* __wasm__ */
