/*
 * regex.c — the `regex` generic validator and its compiled-pattern cache.
 *
 * A flow validates the same few patterns over and over, and regcomp costs far
 * more than regexec, so compiled patterns are kept in a small LRU cache.
 *
 * Thread-safety: the validator is [thread-safe]. The cache is the plugin's
 * only shared mutable state; `cache_lock` guards the table and every entry's
 * `refs` and `stamp`. An entry is reference-counted (one reference for its
 * slot, one per running regexec), so evicting it while another thread still
 * matches against it only drops the slot's reference; the last user frees
 * it. regexec itself runs outside the lock: POSIX lets several threads call
 * it on one compiled regex_t (glibc serialises internally where it must).
 */
#include "checkout.h"

#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define REGEX_CACHE_SIZE 32

typedef struct regex_entry {
    char *pattern;
    regex_t compiled;
    unsigned refs;  /* the slot's reference + one per caller using it */
    uint64_t stamp; /* last use, for LRU eviction */
} regex_entry_t;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static regex_entry_t *cache[REGEX_CACHE_SIZE];
static uint64_t cache_clock;

static void entry_free(regex_entry_t *entry) {
    regfree(&entry->compiled);
    free(entry->pattern);
    free(entry);
}

/* Drops one reference; frees the entry when it was the last. */
static void entry_release(regex_entry_t *entry) {
    bool last;
    pthread_mutex_lock(&cache_lock);
    last = --entry->refs == 0;
    pthread_mutex_unlock(&cache_lock);
    if (last) entry_free(entry);
}

/* Returns the cached entry for `pattern` with a reference taken, or NULL. */
static regex_entry_t *cache_find_locked(const char *pattern) {
    size_t i;
    for (i = 0; i < REGEX_CACHE_SIZE; i++) {
        regex_entry_t *entry = cache[i];
        if (entry && strcmp(entry->pattern, pattern) == 0) {
            entry->refs++;
            entry->stamp = ++cache_clock;
            return entry;
        }
    }
    return NULL;
}

/* Returns a compiled `pattern` with a reference the caller must release, or
 * NULL after writing why to `message`. */
static regex_entry_t *regex_acquire(const char *pattern, const graft_writer_t *message) {
    regex_entry_t *entry, *found, *victim = NULL;
    size_t i, slot = 0;
    int status;
    bool drop_victim = false;

    pthread_mutex_lock(&cache_lock);
    entry = cache_find_locked(pattern);
    pthread_mutex_unlock(&cache_lock);
    if (entry) return entry;

    /* Compile outside the lock: regcomp can be slow, and other patterns
     * should not wait for it. */
    entry = calloc(1, sizeof *entry);
    if (!entry) {
        checkout_invalid(message, "could not be checked: out of memory");
        return NULL;
    }
    entry->pattern = malloc(strlen(pattern) + 1);
    if (!entry->pattern) {
        free(entry);
        checkout_invalid(message, "could not be checked: out of memory");
        return NULL;
    }
    strcpy(entry->pattern, pattern);
    status = regcomp(&entry->compiled, pattern, REG_EXTENDED | REG_NOSUB);
    if (status != 0) {
        char reason[256];
        regerror(status, &entry->compiled, reason, sizeof reason);
        /* Invalid patterns are not cached: regfree is only for compiled ones. */
        free(entry->pattern);
        free(entry);
        checkout_invalid(message, "invalid pattern: %s", reason);
        return NULL;
    }

    pthread_mutex_lock(&cache_lock);
    found = cache_find_locked(pattern); /* another thread may have won the race */
    if (!found) {
        /* An empty slot, else the least recently used one. */
        for (i = 0; i < REGEX_CACHE_SIZE; i++) {
            if (!cache[i]) {
                slot = i;
                break;
            }
            if (cache[i]->stamp < cache[slot]->stamp) slot = i;
        }
        victim = cache[slot];
        if (victim) drop_victim = --victim->refs == 0;
        entry->refs = 2; /* the slot and the caller */
        entry->stamp = ++cache_clock;
        cache[slot] = entry;
    }
    pthread_mutex_unlock(&cache_lock);

    if (found) {
        entry_free(entry);
        return found;
    }
    if (drop_victim) entry_free(victim);
    return entry;
}

void checkout_regex_cache_clear(void) {
    size_t i;
    pthread_mutex_lock(&cache_lock);
    for (i = 0; i < REGEX_CACHE_SIZE; i++) {
        regex_entry_t *entry = cache[i];
        cache[i] = NULL;
        /* deinit runs after the last validator call, so the slot holds the
         * only reference; the check keeps a stray user safe regardless. */
        if (entry && --entry->refs == 0) entry_free(entry);
    }
    cache_clock = 0;
    pthread_mutex_unlock(&cache_lock);
}

bool checkout_validate_regex(const graft_validator_descriptor_t *self, const graft_value_t *value,
                             const char *const *params, uint32_t param_count,
                             const graft_writer_t *message) {
    regex_entry_t *entry;
    const char *subject;

    (void)self;    char *copy = NULL;
    size_t length;
    int status;

    if (param_count != 1)
        return checkout_invalid(message, "needs exactly 1 param (pattern), got %u", param_count);
    if (!params || !params[0])
        return checkout_invalid(message, "needs a pattern, but none was given");
    if (!value || value->type == GRAFT_TYPE_NULL) return checkout_invalid(message, "is missing");
    if (value->type != GRAFT_TYPE_STRING)
        return checkout_invalid(message, "must be text, not %s", checkout_type_phrase(value->type));

    subject = value->data.string.data;
    length = value->data.string.length;
    if (!subject || length == 0) {
        subject = "";
        length = 0;
    }
    /* regexec stops at the first NUL, so text after it would go unchecked. */
    if (memchr(subject, '\0', length)) return checkout_invalid(message, "contains a NUL byte");
    if (subject[length] != '\0') {
        /* graft.h promises a NUL at data[length]; copy if a host forgot. */
        copy = malloc(length + 1);
        if (!copy) return checkout_invalid(message, "could not be checked: out of memory");
        memcpy(copy, subject, length);
        copy[length] = '\0';
        subject = copy;
    }

    entry = regex_acquire(params[0], message);
    if (!entry) {
        free(copy);
        return false;
    }
    status = regexec(&entry->compiled, subject, 0, NULL, 0);
    if (status != 0 && status != REG_NOMATCH) {
        char reason[256];
        regerror(status, &entry->compiled, reason, sizeof reason);
        checkout_invalid(message, "could not be matched against the pattern: %s", reason);
    } else if (status == REG_NOMATCH) {
        checkout_invalid(message, "does not match the pattern %s", params[0]);
    }
    entry_release(entry);
    free(copy);
    return status == 0;
}
