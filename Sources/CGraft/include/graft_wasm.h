/*
 * graft_wasm.h: Graft's WebAssembly plugin ABI, version 1.0, for C compiled
 * with clang's wasm32-wasi target (docs/WasmABI.md says it all; this header
 * only declares it). Everything here exists only when compiling for wasm.
 *
 * A plugin exports `graft_entry`, which writes its description as JSON with
 * graft_write (the host calls it once in every instance, and reads the
 * first), `graft_buffer` (GRAFT_WASM_BUFFER() defines it) and the calls it
 * implements. Every string and JSON value the host passes is a pointer into
 * the guest's memory and a length, and is followed by a zero byte that the
 * length does not count, so C may read it as a string.
 *
 * Files: a plugin granted its data folder finds it at /data (getenv
 * "GRAFT_DATA_DIR"), one granted a `read:` folder at that folder's own path,
 * read-only, through wasi-libc's ordinary calls (fopen, opendir). A plugin
 * granted nothing has no file at all.
 */
#ifndef GRAFT_WASM_H
#define GRAFT_WASM_H
#if defined(__wasm__)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The ABI a plugin names in its description's "abi" field. */
#define GRAFT_WASM_ABI "1.0"

#define GRAFT_WASM_IMPORT(name) __attribute__((import_module("graft"), import_name(name)))
#define GRAFT_WASM_EXPORT(name) __attribute__((export_name(name)))

/* Appends bytes to the call's output: a render's text, graft_entry's
 * description, a validator's message, saved state. Returns 0 once the
 * output limit is reached (the rest is cut); stop writing then. */
GRAFT_WASM_IMPORT("write") int32_t graft_write(const void *data, size_t length);
/* The media type of this render, when it is not the one asked for. */
GRAFT_WASM_IMPORT("set_media_type") void graft_set_media_type(const char *type, size_t length);
/* Emits an output event during a call on an instance; payload: JSON, or
 * length 0 for none. Delivered once the call returns. */
GRAFT_WASM_IMPORT("emit") void graft_emit(const char *event, size_t event_length, const char *payload, size_t payload_length);
/* A log line at graft.h's GRAFT_LOG_* level; rationed like any plugin's. */
GRAFT_WASM_IMPORT("log") void graft_log(uint32_t level, const char *message, size_t length);
/* During graft_action only: a variable to set (JSON), the result (JSON),
 * and why the action failed. */
GRAFT_WASM_IMPORT("set_variable") void graft_set_variable(const char *name, size_t name_length, const char *value, size_t value_length);
GRAFT_WASM_IMPORT("set_result") void graft_set_result(const char *value, size_t length);
GRAFT_WASM_IMPORT("set_error") void graft_set_error(const char *message, size_t length);

static inline bool graft_write_text(const char *text) { return graft_write(text, strlen(text)) != 0; }

/* Defines the graft_buffer export with malloc: one buffer, grown as needed,
 * into which the host copies each call's strings and JSON. The host reuses
 * it until it asks for a larger one: the plugin must not free or write it. */
#define GRAFT_WASM_BUFFER()                                                     \
    GRAFT_WASM_EXPORT("graft_buffer") void *graft_buffer(size_t size) {         \
        static void *graft_buffer_memory;                                       \
        static size_t graft_buffer_capacity;                                    \
        if (size > graft_buffer_capacity || !graft_buffer_memory) {             \
            void *grown = realloc(graft_buffer_memory, size ? size : 1);        \
            if (!grown) return NULL;                                            \
            graft_buffer_memory = grown;                                        \
            graft_buffer_capacity = size;                                       \
        }                                                                       \
        return graft_buffer_memory;                                             \
    }

/* The string member `key` of the JSON object `json` (top level only),
 * unescaped into `out` (at most `capacity` bytes, then a zero byte).
 * Returns its length, or -1 when there is no such string member or it does
 * not fit. Enough for flat inputs and params; a plugin with nested inputs
 * brings a JSON library. */
static inline long graft_json_string(const char *json, size_t length, const char *key, char *out, size_t capacity) {
    size_t key_length = strlen(key), i = 0;
    int depth = 0;
    while (i < length) {
        char c = json[i];
        if (c == '{' || c == '[') { depth++; i++; continue; }
        if (c == '}' || c == ']') { depth--; i++; continue; }
        if (c != '"') { i++; continue; }
        size_t start = ++i;
        while (i < length && json[i] != '"') i += json[i] == '\\' ? 2 : 1;
        size_t end = i++;
        while (i < length && (json[i] == ' ' || json[i] == '\n' || json[i] == '\t' || json[i] == '\r')) i++;
        bool is_key = depth == 1 && i < length && json[i] == ':';
        if (!is_key || end - start != key_length || memcmp(json + start, key, key_length) != 0) continue;
        i++;
        while (i < length && (json[i] == ' ' || json[i] == '\n' || json[i] == '\t' || json[i] == '\r')) i++;
        if (i >= length || json[i] != '"') return -1;
        size_t n = 0;
        for (i++; i < length && json[i] != '"'; i++) {
            char ch = json[i];
            if (ch == '\\' && i + 1 < length) {
                ch = json[++i];
                if (ch == 'n') ch = '\n'; else if (ch == 't') ch = '\t'; else if (ch == 'u') return -1;
            }
            if (n + 1 >= capacity) return -1;
            out[n++] = ch;
        }
        out[n] = 0;
        return (long)n;
    }
    return -1;
}

#endif /* __wasm__ */
#endif /* GRAFT_WASM_H */
