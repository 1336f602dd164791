/*
 * checkout.h — internal declarations shared by the Checkout plugin's sources.
 *
 * Not part of any ABI: the only exported symbol is `graft_entry` (entry.c).
 * Everything declared here is CHECKOUT_HIDDEN so it stays out of the dynamic
 * symbol table even though it crosses translation units.
 */
#pragma once
#ifndef CHECKOUT_H
#define CHECKOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graft.h"

#if defined(__GNUC__) || defined(__clang__)
#define CHECKOUT_HIDDEN __attribute__((visibility("hidden")))
#else
#define CHECKOUT_HIDDEN
#endif

/* ---- Plugin-wide state (entry.c) -------------------------------------- */

/* The host given to `init`, or NULL outside init..deinit. Written only on the
 * main thread by init/deinit, which the host orders before/after every other
 * call, so readers need no lock. */
CHECKOUT_HIDDEN const graft_host_t *checkout_host(void);

/* ---- Factories ---------------------------------------------------------- */

CHECKOUT_HIDDEN extern const graft_component_factory_t checkout_component_factory;
CHECKOUT_HIDDEN extern const graft_validator_factory_t checkout_validator_factory;
CHECKOUT_HIDDEN extern const graft_action_factory_t checkout_action_factory;
CHECKOUT_HIDDEN extern const graft_stories_t checkout_stories;

/* ---- Validators (one file per non-trivial validator) ------------------- */

CHECKOUT_HIDDEN bool checkout_iban(const char *value);                 /* iban.c */
CHECKOUT_HIDDEN bool checkout_validate_email(const graft_validator_descriptor_t *self,
                                             const graft_value_t *value,
                                             const char *const *params,
                                             uint32_t param_count,
                                             const graft_writer_t *message); /* email.c */
CHECKOUT_HIDDEN bool checkout_validate_regex(const graft_validator_descriptor_t *self,
                                             const graft_value_t *value,
                                             const char *const *params,
                                             uint32_t param_count,
                                             const graft_writer_t *message); /* regex.c */
/* Frees every cached pattern. Only from `deinit`, when no validator runs. */
CHECKOUT_HIDDEN void checkout_regex_cache_clear(void);                  /* regex.c */

/* ---- Text helpers (text.c) --------------------------------------------- */

/* A growable byte buffer. Allocation failure is sticky: after it every append
 * is a no-op and `failed` is true, so callers check once at the end. */
typedef struct checkout_buf {
    char *data;
    size_t length;
    size_t capacity;
    bool failed;
} checkout_buf_t;

CHECKOUT_HIDDEN void checkout_buf_append(checkout_buf_t *buf, const char *data, size_t length);
CHECKOUT_HIDDEN void checkout_buf_puts(checkout_buf_t *buf, const char *s);
CHECKOUT_HIDDEN void checkout_buf_printf(checkout_buf_t *buf, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
CHECKOUT_HIDDEN void checkout_buf_repeat(checkout_buf_t *buf, const char *s, size_t times);
/* Makes `data` NUL-terminated (without counting the NUL in `length`). */
CHECKOUT_HIDDEN bool checkout_buf_terminate(checkout_buf_t *buf);
CHECKOUT_HIDDEN void checkout_buf_free(checkout_buf_t *buf);

/* Decodes one UTF-8 code point at s[*pos] (pos < n), advances *pos, and
 * returns the code point, or U+FFFD for an invalid or truncated sequence
 * (advancing one byte), so any byte string decodes to something printable. */
CHECKOUT_HIDDEN uint32_t checkout_utf8_next(const char *s, size_t n, size_t *pos);
/* Appends code point `cp` as UTF-8. */
CHECKOUT_HIDDEN void checkout_buf_put_cp(checkout_buf_t *buf, uint32_t cp);
/* Appends `s` (n bytes, any content) as valid UTF-8 with control characters
 * and NUL turned into spaces: safe for a terminal line. */
CHECKOUT_HIDDEN void checkout_buf_put_plain(checkout_buf_t *buf, const char *s, size_t n);
/* Appends `s` escaped for HTML text and attribute values (&<>"'), with
 * invalid UTF-8 replaced and control characters turned into spaces. */
CHECKOUT_HIDDEN void checkout_buf_put_html(checkout_buf_t *buf, const char *s, size_t n);
/* Number of code points in valid UTF-8 `s` (counts lead bytes). */
CHECKOUT_HIDDEN size_t checkout_utf8_count(const char *s, size_t n);

/* Writes a printf-formatted message to a validator's message writer (which
 * may be NULL) and returns false, so a validator can `return checkout_invalid(...)`.
 * Messages longer than 511 bytes are cut. */
CHECKOUT_HIDDEN bool checkout_invalid(const graft_writer_t *message, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A GRAFT_TYPE_* tag as a phrase for messages: "a string", "an object",
 * "null", ... */
CHECKOUT_HIDDEN const char *checkout_type_phrase(uint32_t type);

#endif /* CHECKOUT_H */
