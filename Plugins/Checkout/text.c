/*
 * text.c — byte buffers and UTF-8 helpers for rendering and messages.
 *
 * Thread-safety: no shared state; every function works on the caller's data.
 */
#include "checkout.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool buf_reserve(checkout_buf_t *buf, size_t extra) {
    size_t need, cap;
    char *grown;
    if (buf->failed) return false;
    if (extra > SIZE_MAX - buf->length - 1) {
        buf->failed = true;
        return false;
    }
    need = buf->length + extra + 1; /* room for a terminating NUL */
    if (need <= buf->capacity) return true;
    cap = buf->capacity ? buf->capacity : 256;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    grown = realloc(buf->data, cap);
    if (!grown) {
        buf->failed = true;
        return false;
    }
    buf->data = grown;
    buf->capacity = cap;
    return true;
}

void checkout_buf_append(checkout_buf_t *buf, const char *data, size_t length) {
    if (length == 0 || !buf_reserve(buf, length)) return;
    memcpy(buf->data + buf->length, data, length);
    buf->length += length;
}

void checkout_buf_puts(checkout_buf_t *buf, const char *s) {
    checkout_buf_append(buf, s, strlen(s));
}

void checkout_buf_printf(checkout_buf_t *buf, const char *format, ...) {
    va_list args;
    int n;
    char small[128];

    va_start(args, format);
    n = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (n < 0) {
        buf->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        checkout_buf_append(buf, small, (size_t)n);
        return;
    }
    /* Long output (for example a huge number printed with %f): format
     * straight into the buffer. */
    if (!buf_reserve(buf, (size_t)n)) return;
    va_start(args, format);
    vsnprintf(buf->data + buf->length, (size_t)n + 1, format, args);
    va_end(args);
    buf->length += (size_t)n;
}

void checkout_buf_repeat(checkout_buf_t *buf, const char *s, size_t times) {
    size_t len = strlen(s), i;
    if (len && times && !buf_reserve(buf, len * times)) return;
    for (i = 0; i < times; i++) checkout_buf_append(buf, s, len);
}

bool checkout_buf_terminate(checkout_buf_t *buf) {
    if (!buf_reserve(buf, 0)) return false;
    buf->data[buf->length] = '\0';
    return true;
}

void checkout_buf_free(checkout_buf_t *buf) {
    free(buf->data);
    buf->data = NULL;
    buf->length = buf->capacity = 0;
    buf->failed = false;
}

uint32_t checkout_utf8_next(const char *s, size_t n, size_t *pos) {
    const unsigned char *p = (const unsigned char *)s + *pos;
    size_t left = n - *pos, len, i;
    uint32_t cp, min;

    if (p[0] < 0x80) {
        *pos += 1;
        return p[0];
    }
    if (p[0] >= 0xC2 && p[0] <= 0xDF) {
        len = 2; cp = p[0] & 0x1Fu; min = 0x80;
    } else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        len = 3; cp = p[0] & 0x0Fu; min = 0x800;
    } else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        len = 4; cp = p[0] & 0x07u; min = 0x10000;
    } else {
        *pos += 1;
        return 0xFFFD;
    }
    if (left < len) {
        *pos += 1;
        return 0xFFFD;
    }
    for (i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            *pos += 1;
            return 0xFFFD;
        }
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    /* Overlong forms, surrogates and values past U+10FFFF are invalid. */
    if (cp < min || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
        *pos += 1;
        return 0xFFFD;
    }
    *pos += len;
    return cp;
}

void checkout_buf_put_cp(checkout_buf_t *buf, uint32_t cp) {
    char out[4];
    if (cp < 0x80) {
        out[0] = (char)cp;
        checkout_buf_append(buf, out, 1);
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        checkout_buf_append(buf, out, 2);
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        checkout_buf_append(buf, out, 3);
    } else {
        out[0] = (char)(0xF0 | (cp >> 18));
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        checkout_buf_append(buf, out, 4);
    }
}

static bool is_control(uint32_t cp) {
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0);
}

void checkout_buf_put_plain(checkout_buf_t *buf, const char *s, size_t n) {
    size_t pos = 0;
    while (pos < n) {
        uint32_t cp = checkout_utf8_next(s, n, &pos);
        checkout_buf_put_cp(buf, is_control(cp) ? ' ' : cp);
    }
}

void checkout_buf_put_html(checkout_buf_t *buf, const char *s, size_t n) {
    size_t pos = 0;
    while (pos < n) {
        uint32_t cp = checkout_utf8_next(s, n, &pos);
        switch (cp) {
        case '&': checkout_buf_puts(buf, "&amp;"); break;
        case '<': checkout_buf_puts(buf, "&lt;"); break;
        case '>': checkout_buf_puts(buf, "&gt;"); break;
        case '"': checkout_buf_puts(buf, "&quot;"); break;
        case '\'': checkout_buf_puts(buf, "&#39;"); break;
        default: checkout_buf_put_cp(buf, is_control(cp) ? ' ' : cp); break;
        }
    }
}

size_t checkout_utf8_count(const char *s, size_t n) {
    size_t count = 0, i;
    for (i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) count++;
    return count;
}

const char *checkout_type_phrase(uint32_t type) {
    switch (type) {
    case GRAFT_TYPE_BOOLEAN: return "a boolean";
    case GRAFT_TYPE_NUMBER: return "a number";
    case GRAFT_TYPE_STRING: return "a string";
    case GRAFT_TYPE_LIST: return "a list";
    case GRAFT_TYPE_OBJECT: return "an object";
    default: return "null";
    }
}

bool checkout_invalid(const graft_writer_t *message, const char *format, ...) {
    char text[512];
    va_list args;
    int n;

    if (!message || !message->write) return false;
    va_start(args, format);
    n = vsnprintf(text, sizeof text, format, args);
    va_end(args);
    if (n < 0) return false;
    if ((size_t)n >= sizeof text) {
        /* Cut, but never inside a UTF-8 sequence. */
        size_t end = sizeof text - 1, lead = end;
        while (lead > 0 && ((unsigned char)text[lead - 1] & 0xC0) == 0x80) lead--;
        if (lead > 0) {
            unsigned char b = (unsigned char)text[lead - 1];
            size_t need = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
            if (end - (lead - 1) < need) end = lead - 1;
        }
        n = (int)end;
    }
    message->write(message, text, (size_t)n);
    return false;
}
