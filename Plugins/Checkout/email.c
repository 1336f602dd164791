/*
 * email.c — the `email` generic validator.
 *
 * A practical check, not RFC 5322: it accepts what mail providers accept in
 * sign-up forms (dot-atom local part, host-name domain) and rejects the
 * quoted, commented and IP-literal forms nobody types. ASCII only:
 * internationalised addresses must arrive in punycode ("xn--...").
 *
 * Thread-safety: pure function; [thread-safe].
 */
#include "checkout.h"

#include <string.h>

#define EMAIL_MAX 254       /* RFC 5321 path limit minus the angle brackets */
#define EMAIL_LOCAL_MAX 64  /* RFC 5321 */
#define EMAIL_LABEL_MAX 63  /* RFC 1035 */

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_alnum(char c) { return is_alpha(c) || (c >= '0' && c <= '9'); }

/* RFC 5322 "atext": letters, digits and these symbols. */
static bool is_local_char(char c) {
    return is_alnum(c) || (c && strchr("!#$%&'*+/=?^_`{|}~-", c) != NULL);
}

/* Describes a byte for a message: 'x' when printable, else its code. */
static void describe_char(char c, char out[16]) {
    if (c > 0x20 && c < 0x7F)
        out[0] = '\'', out[1] = c, out[2] = '\'', out[3] = '\0';
    else
        strcpy(out, c == ' ' ? "a space" : "a control character");
}

static bool check_local(const char *s, size_t n, const graft_writer_t *message) {
    size_t i;
    char what[16];
    if (n == 0) return checkout_invalid(message, "has nothing before the @");
    if (n > EMAIL_LOCAL_MAX)
        return checkout_invalid(message, "has more than %d characters before the @",
                                EMAIL_LOCAL_MAX);
    if (s[0] == '.') return checkout_invalid(message, "starts with a dot");
    if (s[n - 1] == '.') return checkout_invalid(message, "has a dot right before the @");
    for (i = 0; i < n; i++) {
        if (s[i] == '.') {
            if (s[i + 1] == '.') return checkout_invalid(message, "has two dots in a row");
            continue;
        }
        if (!is_local_char(s[i])) {
            describe_char(s[i], what);
            return checkout_invalid(message, "has %s before the @, which is not allowed", what);
        }
    }
    return true;
}

/* A top-level domain is letters, or punycode ("xn--...") for a non-ASCII one;
 * the label checks have already run. */
static bool check_tld(const char *label, size_t length, const graft_writer_t *message) {
    size_t i;
    if (length > 4 && memcmp(label, "xn--", 4) == 0) return true;
    if (length < 2) return checkout_invalid(message, "top-level domain is shorter than 2 letters");
    for (i = 0; i < length; i++)
        if (!is_alpha(label[i]))
            return checkout_invalid(message, "top-level domain has characters other than letters");
    return true;
}

static bool check_domain(const char *s, size_t n, const graft_writer_t *message) {
    size_t start = 0, i;
    char what[16];

    if (n == 0) return checkout_invalid(message, "has nothing after the @");
    if (!memchr(s, '.', n)) return checkout_invalid(message, "domain has no dot");
    while (start <= n) {
        const char *label = s + start;
        const char *dot = memchr(label, '.', n - start);
        size_t length = dot ? (size_t)(dot - label) : n - start;
        bool last = dot == NULL;

        if (length == 0)
            return checkout_invalid(message, "domain has an empty label "
                                             "(two dots in a row, or a dot at an end)");
        if (length > EMAIL_LABEL_MAX)
            return checkout_invalid(message, "domain has a label longer than %d characters",
                                    EMAIL_LABEL_MAX);
        for (i = 0; i < length; i++) {
            if (!is_alnum(label[i]) && label[i] != '-') {
                describe_char(label[i], what);
                return checkout_invalid(message, "domain has %s, which is not allowed", what);
            }
        }
        if (label[0] == '-' || label[length - 1] == '-')
            return checkout_invalid(message,
                                    "domain has a label that starts or ends with a hyphen");
        if (last) return check_tld(label, length, message);
        start += length + 1;
    }
    return false; /* not reached: the last label returns above */
}

bool checkout_validate_email(const graft_validator_descriptor_t *self, const graft_value_t *value,
                             const char *const *params, uint32_t param_count,
                             const graft_writer_t *message) {
    const char *s, *at;
    size_t n, i;

    (void)self;
    (void)params; /* email takes no params; extra ones are harmless */
    (void)param_count;

    if (!value || value->type == GRAFT_TYPE_NULL) return checkout_invalid(message, "is missing");
    if (value->type != GRAFT_TYPE_STRING)
        return checkout_invalid(message, "must be text, not %s", checkout_type_phrase(value->type));
    s = value->data.string.data;
    n = value->data.string.length;
    if (n == 0) return checkout_invalid(message, "is empty");
    if (!s) return checkout_invalid(message, "is not valid text");
    if (memchr(s, '\0', n)) return checkout_invalid(message, "contains a NUL byte");
    for (i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return checkout_invalid(message, "has a non-ASCII character "
                                             "(internationalised addresses are not supported)");
    if (n > EMAIL_MAX)
        return checkout_invalid(message, "is longer than %d characters", EMAIL_MAX);

    at = memchr(s, '@', n);
    if (!at) return checkout_invalid(message, "has no @");
    if (memchr(at + 1, '@', n - (size_t)(at - s) - 1))
        return checkout_invalid(message, "has more than one @");
    return check_local(s, (size_t)(at - s), message) &&
           check_domain(at + 1, n - (size_t)(at - s) - 1, message);
}
