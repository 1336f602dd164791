/*
 * actions.c — the action factory: `format_currency` and `open_url`.
 *
 * Thread-safety: both actions are pure functions of their params, payload and
 * context, so `invoke` is [thread-safe]; the context is used only inside the
 * invocation that received it.
 */
#include "checkout.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fails an action with a sentence the flow author can act on. */
static bool action_fail(const graft_action_context_t *context, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static bool action_fail(const graft_action_context_t *context, const char *format, ...) {
    char text[512];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    context->set_error(context, text);
    return false;
}

/* A value that is absent or JSON null counts as "not given". */
static bool is_given(const graft_value_t *value) {
    return value && value->type != GRAFT_TYPE_NULL;
}

/* ---- format_currency ------------------------------------------------------ */

/* Largest amount formatted; beyond it a double no longer holds the cents. */
#define CURRENCY_MAX_AMOUNT 1e15

/* Symbols written before the amount; other codes are written as "CHF 12.00". */
static const struct {
    char code[4];
    const char *symbol;
} currency_symbols[] = {
    { "USD", "$" }, { "EUR", "€" }, { "GBP", "£" }, { "JPY", "¥" },
};

/* ISO 4217 minor units other than 2. */
static const char currency_zero_decimals[][4] = {
    "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG",
    "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF",
};
static const char currency_three_decimals[][4] = {
    "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND",
};

static int currency_decimals(const char code[4]) {
    size_t i;
    for (i = 0; i < sizeof currency_zero_decimals / sizeof currency_zero_decimals[0]; i++)
        if (strcmp(code, currency_zero_decimals[i]) == 0) return 0;
    for (i = 0; i < sizeof currency_three_decimals / sizeof currency_three_decimals[0]; i++)
        if (strcmp(code, currency_three_decimals[i]) == 0) return 3;
    return 2;
}

/* Reads a number, or a string holding a plain decimal number (editors often
 * store params as text). Returns false for anything else. */
static bool read_amount(const graft_value_t *value, double *out) {
    if (value->type == GRAFT_TYPE_NUMBER) {
        *out = value->data.number;
        return isfinite(*out);
    }
    if (value->type == GRAFT_TYPE_STRING && value->data.string.data &&
        value->data.string.length > 0 && value->data.string.length < 64) {
        char text[64], *end;
        size_t i, n = value->data.string.length;
        memcpy(text, value->data.string.data, n);
        text[n] = '\0';
        /* Only digits, sign, point and exponent: no hex, "inf" or "nan". */
        for (i = 0; i < n; i++)
            if (!strchr("0123456789+-.eE", text[i]) || text[i] == '\0') return false;
        *out = strtod(text, &end);
        return end == text + n && isfinite(*out);
    }
    return false;
}

/* Writes |amount| rounded to `decimals` places, half away from zero, into
 * `digits` (e.g. "1234.50"); returns its length. printf alone rounds exact
 * ties to even (0.125 -> "0.12"), which reads wrong on a price, so print
 * 30 more digits than needed and round the decimal string by hand. A double
 * that is not exactly a tie lies at least ~1e-23 away from one, so printf's
 * own rounding at the 30th extra digit can never carry into the deciding
 * digit; below 1e15 the result fits in 50 characters. */
static size_t round_decimal(double magnitude, int decimals, char digits[64]) {
    char wide[96];
    size_t point;
    bool up;
    size_t i, keep;

    snprintf(wide, sizeof wide, "%.*f", decimals + 30, magnitude);
    point = (size_t)(strchr(wide, '.') - wide);
    keep = decimals ? point + 1 + (size_t)decimals : point;
    up = wide[point + 1 + (size_t)decimals] >= '5';
    wide[keep] = '\0';
    if (up) {
        /* Add one unit in the last kept place, carrying leftwards. */
        for (i = keep; i-- > 0;) {
            if (wide[i] == '.') continue;
            if (wide[i] == '9') {
                wide[i] = '0';
                continue;
            }
            wide[i]++;
            break;
        }
        if (i == (size_t)-1) { /* carried past the first digit: 99.995 -> 100.00 */
            memmove(wide + 1, wide, keep + 1);
            wide[0] = '1';
            keep++;
        }
    }
    memcpy(digits, wide, keep + 1);
    return keep;
}

/* Writes `amount` as e.g. "-$1,234.50" or "CHF 12.00" into `out`. */
static void format_money(double amount, const char code[4], checkout_buf_t *out) {
    const char *symbol = NULL;
    char digits[64];
    int decimals = currency_decimals(code);
    size_t i, int_len, n;
    bool zero = true;

    for (i = 0; i < sizeof currency_symbols / sizeof currency_symbols[0]; i++)
        if (strcmp(code, currency_symbols[i].code) == 0) symbol = currency_symbols[i].symbol;

    n = round_decimal(amount < 0 ? -amount : amount, decimals, digits);
    for (i = 0; i < n; i++)
        if (digits[i] >= '1' && digits[i] <= '9') zero = false;
    int_len = decimals ? (size_t)(strchr(digits, '.') - digits) : n;

    if (amount < 0 && !zero) checkout_buf_puts(out, "-"); /* no "-$0.00" */
    if (symbol) {
        checkout_buf_puts(out, symbol);
    } else {
        checkout_buf_puts(out, code);
        checkout_buf_puts(out, " ");
    }
    for (i = 0; i < int_len; i++) {
        if (i > 0 && (int_len - i) % 3 == 0) checkout_buf_puts(out, ",");
        checkout_buf_append(out, &digits[i], 1);
    }
    checkout_buf_append(out, digits + int_len, n - int_len); /* ".50" or nothing */
}

static bool format_currency(const graft_action_descriptor_t *self, const graft_value_t *params,
                            const graft_value_t *payload, const graft_action_context_t *context) {
    (void)self;
    const graft_value_t *amount_value = graft_object_get(params, "amount");
    const graft_value_t *currency = graft_object_get(params, "currency");
    const graft_value_t *variable = graft_object_get(params, "variable");
    const char *source = "param \"amount\"";
    char code[4], *name;
    double amount;
    size_t i;
    checkout_buf_t text = { 0 };
    graft_value_t result;

    if (!context) return false;
    /* The amount: the param wins; else the triggering event's price. */
    if (!is_given(amount_value)) {
        if (is_given(graft_object_get(payload, "price"))) {
            amount_value = graft_object_get(payload, "price");
            source = "payload field \"price\"";
        } else if (is_given(graft_object_get(payload, "amount"))) {
            amount_value = graft_object_get(payload, "amount");
            source = "payload field \"amount\"";
        } else {
            return action_fail(context,
                               "No amount to format: set the param \"amount\", or trigger the "
                               "action from an event whose payload has \"price\" or \"amount\".");
        }
    }
    if (!read_amount(amount_value, &amount)) {
        if (amount_value->type == GRAFT_TYPE_STRING)
            return action_fail(context, "The %s must be a number, but its text is not a number.",
                               source);
        return action_fail(context, "The %s must be a number, not %s.", source,
                           checkout_type_phrase(amount_value->type));
    }
    if (amount >= CURRENCY_MAX_AMOUNT || amount <= -CURRENCY_MAX_AMOUNT)
        return action_fail(context, "The amount %g is too large to format; the limit is 10^15.",
                           amount);

    if (!is_given(currency))
        return action_fail(context, "The param \"currency\" is missing; give an ISO 4217 code "
                                    "such as \"USD\" or \"EUR\".");
    if (currency->type != GRAFT_TYPE_STRING || currency->data.string.length != 3 ||
        !currency->data.string.data)
        return action_fail(context, "The param \"currency\" must be a three-letter ISO 4217 "
                                    "code such as \"USD\" or \"EUR\".");
    for (i = 0; i < 3; i++) {
        char c = currency->data.string.data[i];
        if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        if (c < 'A' || c > 'Z')
            return action_fail(context, "The param \"currency\" must be a three-letter ISO "
                                        "4217 code such as \"USD\" or \"EUR\".");
        code[i] = c;
    }
    code[3] = '\0';

    if (!is_given(variable))
        return action_fail(context, "The param \"variable\" is missing; name the flow variable "
                                    "that receives the formatted amount.");
    if (variable->type != GRAFT_TYPE_STRING || variable->data.string.length == 0 ||
        !variable->data.string.data ||
        memchr(variable->data.string.data, '\0', variable->data.string.length))
        return action_fail(context, "The param \"variable\" must be a non-empty variable name.");

    format_money(amount, code, &text);
    name = malloc(variable->data.string.length + 1);
    if (!name || text.failed) {
        free(name);
        checkout_buf_free(&text);
        return action_fail(context, "Out of memory while formatting the amount.");
    }
    memcpy(name, variable->data.string.data, variable->data.string.length);
    name[variable->data.string.length] = '\0';

    result = graft_string(text.data, text.length);
    context->set_variable(context, name, &result);
    context->set_result(context, &result);
    free(name);
    checkout_buf_free(&text);
    return true;
}

/* ---- open_url ------------------------------------------------------------- */

static bool is_host_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~' || c == '%' || c >= 0x80;
}

/* Checks an http(s) URL: scheme, "//", optional user info, a non-empty host
 * (name or [IPv6]) and an optional numeric port. Writes why into `why`. */
static bool check_url(const char *url, size_t n, const char **why) {
    size_t i, scheme, authority_end, host_start, host_end;

    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)url[i];
        if (c <= 0x20 || c == 0x7F) {
            *why = "contains a space or a control character";
            return false;
        }
    }
    for (scheme = 0; scheme < n && url[scheme] != ':'; scheme++) {}
    {
        char lower[6] = { 0 };
        for (i = 0; i < scheme && i < 5; i++)
            lower[i] = (char)(url[i] >= 'A' && url[i] <= 'Z' ? url[i] - 'A' + 'a' : url[i]);
        if (scheme == n || !((scheme == 4 && memcmp(lower, "http", 4) == 0) ||
                             (scheme == 5 && memcmp(lower, "https", 5) == 0))) {
            *why = "must start with http:// or https://";
            return false;
        }
    }
    if (n - scheme < 3 || url[scheme + 1] != '/' || url[scheme + 2] != '/') {
        *why = "must start with http:// or https://";
        return false;
    }
    host_start = scheme + 3;
    for (authority_end = host_start; authority_end < n; authority_end++)
        if (url[authority_end] == '/' || url[authority_end] == '?' || url[authority_end] == '#')
            break;
    for (i = host_start; i < authority_end; i++) /* skip "user:password@" */
        if (url[i] == '@') host_start = i + 1;

    if (host_start < authority_end && url[host_start] == '[') {
        for (host_end = host_start + 1; host_end < authority_end; host_end++) {
            char c = url[host_end];
            if (c == ']') break;
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
                  c == ':' || c == '.')) {
                *why = "has an invalid IPv6 address";
                return false;
            }
        }
        if (host_end == authority_end || host_end == host_start + 1) {
            *why = "has an invalid IPv6 address";
            return false;
        }
        host_end++; /* past ']' */
    } else {
        for (host_end = host_start; host_end < authority_end && url[host_end] != ':'; host_end++) {
            if (!is_host_char((unsigned char)url[host_end])) {
                *why = "has a character that is not allowed in a host name";
                return false;
            }
        }
        if (host_end == host_start) {
            *why = "has no host";
            return false;
        }
    }
    if (host_end < authority_end) {
        unsigned long port = 0;
        if (url[host_end] != ':') {
            *why = "has an invalid host";
            return false;
        }
        for (i = host_end + 1; i < authority_end; i++) {
            if (url[i] < '0' || url[i] > '9') {
                *why = "has an invalid port";
                return false;
            }
            port = port * 10 + (unsigned)(url[i] - '0');
            if (port > 65535) {
                *why = "has an invalid port";
                return false;
            }
        }
    }
    return true;
}

static bool open_url(const graft_action_descriptor_t *self, const graft_value_t *params,
                     const graft_value_t *payload, const graft_action_context_t *context) {
    (void)self;
    const graft_value_t *url = graft_object_get(params, "url");
    const char *why = NULL;
    graft_member_t members[2];
    graft_value_t result;

    (void)payload;
    if (!context) return false;
    if (!is_given(url))
        return action_fail(context, "The param \"url\" is missing; give an http or https URL.");
    if (url->type != GRAFT_TYPE_STRING)
        return action_fail(context, "The param \"url\" must be a string, not %s.",
                           checkout_type_phrase(url->type));
    if (url->data.string.length == 0 || !url->data.string.data)
        return action_fail(context, "The param \"url\" is empty; give an http or https URL.");
    if (!check_url(url->data.string.data, url->data.string.length, &why))
        return action_fail(context, "The URL in the param \"url\" %s.", why);

    /* The host decides whether and how to open it; the action only records
     * the intent, so the debugger can show it without side effects. */
    members[0].key = "intent";
    members[0].value = graft_string("open_url", 8);
    members[1].key = "url";
    members[1].value = graft_string(url->data.string.data, url->data.string.length);
    result = graft_object(members, 2);
    context->set_result(context, &result);
    return true;
}

/* ---- Descriptors ---------------------------------------------------------- */

static const graft_field_t format_currency_params[] = {
    { "amount", GRAFT_TYPE_NUMBER,
      "Amount to format. When absent, the event payload's \"price\" or \"amount\" is used." },
    { "currency", GRAFT_TYPE_STRING, "ISO 4217 code, for example \"USD\", \"EUR\" or \"JPY\"." },
    { "variable", GRAFT_TYPE_STRING, "Flow variable that receives the text, e.g. \"$1,234.50\"." },
};

static const graft_field_t open_url_params[] = {
    { "url", GRAFT_TYPE_STRING, "An http or https URL with a host." },
};

static const graft_action_descriptor_t actions[] = {
    {
        .key = "format_currency",
        .version = 1,
        .name = "Format currency",
        .description = "Formats an amount as money (\"$1,234.50\", \"-€5.00\", \"¥1,200\", "
                       "\"CHF 12.00\") into a flow variable.",
        .params = format_currency_params,
        .param_count = 3,
        .invoke = format_currency,
    },
    {
        .key = "open_url",
        .version = 1,
        .name = "Open URL",
        .description = "Asks the host to open an http or https URL; records the intent "
                       "{\"intent\":\"open_url\",\"url\":...} as the result.",
        .params = open_url_params,
        .param_count = 1,
        .invoke = open_url,
    },
};

#define ACTION_COUNT ((uint32_t)(sizeof actions / sizeof actions[0]))

static uint32_t factory_count(const graft_action_factory_t *factory) {
    (void)factory;
    return ACTION_COUNT;
}

static const graft_action_descriptor_t *factory_get_descriptor(
    const graft_action_factory_t *factory, uint32_t index) {
    (void)factory;
    return index < ACTION_COUNT ? &actions[index] : NULL;
}

const graft_action_factory_t checkout_action_factory = {
    .count = factory_count,
    .get_descriptor = factory_get_descriptor,
};
