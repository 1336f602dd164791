/* A WebAssembly plugin for Graft's tests (docs/WasmABI.md): the component
 * `greeting`, the validator `even_length` and the action `shout`. Some names
 * misbehave on purpose, for the hostile tests: a greeting of "loop" loops
 * for ever, "trap" traps, "deep" recurses without end, "grow" allocates
 * until refused, "big" writes until cut, "print" prints to stdout, and
 * "secrets" tries to read a file, a folder, the environment and the clock,
 * "flood" emits events without end, and "wild" passes the host a pointer
 * and a length past its memory.
 * Defines make whole modules misbehave: HELLO_FOREIGN_IMPORT imports a
 * function Graft does not offer, HELLO_NO_BUFFER leaves graft_buffer out,
 * HELLO_ENTRY_TRAPS and HELLO_ENTRY_LOOPS break graft_entry,
 * HELLO_BAD_DESCRIPTION describes a component with an invalid key, and
 * HELLO_NETWORK declares the network, which a WebAssembly plugin cannot have,
 * HELLO_BAD_PERMISSION a permission Graft does not know, HELLO_NO_REASON one
 * without a reason.
 * For the conformance tests: HELLO_HOSTILE_TRAPS traps on a greeting created
 * without a string name, HELLO_MISSPELT_EXPORT exports graft_rendr.
 * HELLO_WORD replaces "Hello" (a new build, for hot swap). */
#include "graft_wasm.h"
#include <dirent.h>
#include <stdio.h>
#include <time.h>

#ifndef HELLO_WORD
#define HELLO_WORD "Hello"
#endif

#ifndef HELLO_NO_BUFFER
GRAFT_WASM_BUFFER()
#endif

#ifdef HELLO_FOREIGN_IMPORT
__attribute__((import_module("env"), import_name("socket"))) int foreign_socket(int domain, int type, int protocol);
#endif

static const char description[] =
    "{\"abi\":\"" GRAFT_WASM_ABI "\",\"id\":\"com.example.wasm-hello\",\"version\":\"1.0.0\",\"name\":\"Hello (wasm)\","
    "\"components\":[{\"key\":\"greeting\",\"version\":1,\"name\":\"Greeting\","
    "\"inputs\":[{\"key\":\"name\",\"type\":\"string\"}],"
    "\"outputs\":[{\"event\":\"said\",\"payload\":[{\"key\":\"text\",\"type\":\"string\"}]}],"
    "\"interactions\":[{\"name\":\"say\",\"description\":\"emits said with the greeting\"}],"
    "\"debugConfig\":{\"name\":\"Ada\"}}],"
    "\"validators\":[{\"name\":\"even_length\",\"version\":1,\"message\":\"has an odd length\"}],"
    "\"actions\":[{\"key\":\"shout\",\"version\":1,\"params\":[{\"key\":\"text\",\"type\":\"string\"}]}]}";

static volatile int sink;

GRAFT_WASM_EXPORT("graft_entry") int graft_entry(void) {
#ifdef HELLO_FOREIGN_IMPORT
    if (foreign_socket(2, 1, 0) < 0) return 0;
#endif
#ifdef HELLO_ENTRY_TRAPS
    __builtin_trap();
#endif
#ifdef HELLO_ENTRY_LOOPS
    for (;;) sink++;
#endif
#ifdef HELLO_BAD_DESCRIPTION
    return graft_write_text("{\"abi\":\"1.0\",\"id\":\"com.example.bad\",\"version\":\"1\",\"name\":\"Bad\",\"components\":[{\"key\":\"Bad Key\"}]}");
#endif
#ifdef HELLO_BAD_PERMISSION
    return graft_write_text("{\"abi\":\"1.0\",\"id\":\"com.example.perm\",\"version\":\"1\",\"name\":\"Perm\","
                            "\"permissions\":[{\"permission\":\"write:/etc\",\"reason\":\"wants it\"}]}");
#endif
#ifdef HELLO_NO_REASON
    return graft_write_text("{\"abi\":\"1.0\",\"id\":\"com.example.perm\",\"version\":\"1\",\"name\":\"Perm\","
                            "\"permissions\":[{\"permission\":\"data\",\"reason\":\"\"}]}");
#endif
#ifdef HELLO_NETWORK
    return graft_write_text("{\"abi\":\"1.0\",\"id\":\"com.example.net\",\"version\":\"1\",\"name\":\"Net\","
                            "\"permissions\":[{\"permission\":\"network:443\",\"reason\":\"calls home\"}]}");
#endif
    return graft_write(description, sizeof description - 1);
}

typedef struct { char name[64]; int renders; } greeting_t;

static unsigned deep(unsigned n) {
    char frame[256];
    frame[n & 255] = (char)n;
    sink = frame[(n * 7) & 255];
    return n == UINT32_MAX ? 0 : deep(n + 1) + 1;
}

GRAFT_WASM_EXPORT("graft_create")
greeting_t *graft_create(uint32_t version, const char *key, size_t key_length, const char *inputs, size_t inputs_length) {
    if (version != 1 || strcmp(key, "greeting") != 0) return NULL;
    greeting_t *g = calloc(1, sizeof *g);
    if (g && graft_json_string(inputs, inputs_length, "name", g->name, sizeof g->name) < 0) {
#ifdef HELLO_HOSTILE_TRAPS
        __builtin_trap();
#endif
        strcpy(g->name, "world");
    }
    return g;
}

#ifdef HELLO_MISSPELT_EXPORT
GRAFT_WASM_EXPORT("graft_rendr") int graft_rendr(void) { return 0; }
#endif

GRAFT_WASM_EXPORT("graft_render") int graft_render(greeting_t *g, const char *type, size_t type_length) {
    g->renders++;
    if (strcmp(g->name, "loop") == 0) for (;;) sink++;
    if (strcmp(g->name, "trap") == 0) __builtin_trap();
    if (strcmp(g->name, "deep") == 0) return deep(0) != 0;
    if (strcmp(g->name, "grow") == 0) {
        size_t got = 0;
        void *volatile kept;
        while ((kept = malloc(1 << 20)) != NULL) got++;
        char line[64];
        snprintf(line, sizeof line, "capped after %zu MiB", got);
        return graft_write_text(line);
    }
    if (strcmp(g->name, "big") == 0) { while (graft_write_text("0123456789abcdef")) {} return 0; }
    if (strcmp(g->name, "print") == 0) { printf("printed by %s\n", g->name); fflush(stdout); }
    if (strcmp(g->name, "flood") == 0) for (;;) graft_emit("said", 4, "{\"text\":\"again\"}", 16);
    if (strcmp(g->name, "wild") == 0) return graft_write((const void *)16, 0xFFFFFFF0u);
    if (strcmp(g->name, "secrets") == 0) {
        FILE *file = fopen("/etc/passwd", "r");
        DIR *folder = opendir("/");
        struct timespec now;
        char line[160];
        snprintf(line, sizeof line, "file: %s, folder: %s, env: %s, clock: %s", file ? "read" : "refused", folder ? "listed" : "refused",
                 getenv("HOME") || getenv("PATH") ? "seen" : "none", clock_gettime(CLOCK_REALTIME, &now) == 0 ? "read" : "refused");
        return graft_write_text(line);
    }
    if (strcmp(type, "text/plain") == 0) return graft_write_text(HELLO_WORD ", ") && graft_write_text(g->name);
    graft_set_media_type("text/html", 9);
    return graft_write_text("<p>" HELLO_WORD ", ") && graft_write_text(g->name) && graft_write_text("!</p>");
}

GRAFT_WASM_EXPORT("graft_interact") int graft_interact(greeting_t *g, const char *action, size_t action_length, const char *data, size_t data_length) {
    if (strcmp(action, "say") != 0) return 0;
    char payload[128];
    int n = snprintf(payload, sizeof payload, "{\"text\":\"" HELLO_WORD ", %s\"}", g->name);
    graft_emit("said", 4, payload, (size_t)n);
    return 1;
}

GRAFT_WASM_EXPORT("graft_update") int graft_update(greeting_t *g, const char *inputs, size_t inputs_length) {
    return graft_json_string(inputs, inputs_length, "name", g->name, sizeof g->name) >= 0;
}

GRAFT_WASM_EXPORT("graft_save") int graft_save(greeting_t *g) {
    char state[32];
    int n = snprintf(state, sizeof state, "%d", g->renders);
    return graft_write(state, (size_t)n);
}

GRAFT_WASM_EXPORT("graft_load") int graft_load(greeting_t *g, const char *state, size_t length) {
    g->renders = atoi(state);
    return 1;
}

GRAFT_WASM_EXPORT("graft_destroy") void graft_destroy(greeting_t *g) { free(g); }

GRAFT_WASM_EXPORT("graft_validate")
int graft_validate(uint32_t version, const char *name, size_t name_length, const char *value, size_t value_length,
                   const char *params, size_t params_length) {
    /* value is JSON: a string's length is its bytes less the two quotes. */
    if (value_length < 2 || value[0] != '"') { graft_write_text("is not a string"); return 0; }
    return (value_length - 2) % 2 == 0;
}

GRAFT_WASM_EXPORT("graft_action")
int graft_action(uint32_t version, const char *key, size_t key_length, const char *params, size_t params_length,
                 const char *payload, size_t payload_length) {
    char text[64], json[80];
    if (graft_json_string(params, params_length, "text", text, sizeof text) < 0) {
        graft_set_error("no text to shout", 16);
        return 0;
    }
    for (char *c = text; *c; c++) if (*c >= 'a' && *c <= 'z') *c -= 32;
    int n = snprintf(json, sizeof json, "\"%s\"", text);
    graft_set_variable("shouted", 7, json, (size_t)n);
    graft_set_result(json, (size_t)n);
    return 1;
}
