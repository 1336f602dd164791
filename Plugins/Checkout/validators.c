/*
 * validators.c — the validator factory and the small native validators
 * (luhn, length, range). IBAN, email and regex live in their own files.
 *
 * Thread-safety: every validator here is a pure function of its arguments,
 * so all of them are [thread-safe] as graft.h requires.
 */
#include "checkout.h"

/* Card numbers: ISO/IEC 7812 allows 12 to 19 digits. Spaces and dashes are
 * how people type them, so they are ignored; anything else is an error. */
static bool checkout_luhn(const char *value) {
    unsigned char digits[19];
    size_t count = 0, i;
    unsigned sum = 0;

    if (!value) return false;
    for (; *value; value++) {
        char c = *value;
        if (c == ' ' || c == '-') continue;
        if (c < '0' || c > '9' || count == sizeof digits) return false;
        digits[count++] = (unsigned char)(c - '0');
    }
    if (count < 12) return false;
    /* Double every second digit from the right. */
    for (i = 0; i < count; i++) {
        unsigned d = digits[count - 1 - i];
        if (i % 2 == 1) {
            d *= 2;
            if (d > 9) d -= 9;
        }
        sum += d;
    }
    return sum % 10 == 0;
}

/* Length in Unicode code points, not bytes: "Zoë" is 3 long. Counting lead
 * bytes is exact for valid UTF-8, which the host guarantees. */
static bool checkout_length(const char *value, int64_t min, int64_t max) {
    int64_t n = 0;
    if (!value) return false;
    for (; *value; value++)
        if (((unsigned char)*value & 0xC0) != 0x80) n++;
    return min <= n && n <= max;
}

/* Every comparison with NaN is false, so NaN in any argument is invalid. */
static bool checkout_range(double value, double min, double max) {
    return min <= value && value <= max;
}

/* ---- Descriptors --------------------------------------------------------- */

static const graft_field_t length_params[] = {
    { "min", GRAFT_TYPE_NUMBER, "Fewest characters (Unicode code points) allowed." },
    { "max", GRAFT_TYPE_NUMBER, "Most characters (Unicode code points) allowed." },
};

static const graft_field_t range_params[] = {
    { "min", GRAFT_TYPE_NUMBER, "Smallest value allowed (inclusive)." },
    { "max", GRAFT_TYPE_NUMBER, "Largest value allowed (inclusive)." },
};

static const graft_field_t regex_params[] = {
    { "pattern", GRAFT_TYPE_STRING,
      "POSIX extended regular expression; matches anywhere unless anchored with ^ and $." },
};

static const graft_validator_descriptor_t validators[] = {
    {
        .name = "luhn",
        .version = 1,
        .description = "Card number: 12 to 19 digits (spaces and dashes ignored) "
                       "passing the Luhn checksum.",
        .kind = GRAFT_VALIDATOR_NATIVE,
        .message = "is not a valid card number",
        .signature = "bool(string)",
        .function = (graft_native_function_t)checkout_luhn,
    },
    {
        .name = "iban",
        .version = 1,
        .description = "International bank account number (ISO 13616): country, "
                       "length and mod-97 check digits. Spaces are ignored.",
        .kind = GRAFT_VALIDATOR_NATIVE,
        .message = "is not a valid IBAN",
        .signature = "bool(string)",
        .function = (graft_native_function_t)checkout_iban,
    },
    {
        .name = "length",
        .version = 1,
        .description = "Text whose length in Unicode code points is between min "
                       "and max (inclusive).",
        .kind = GRAFT_VALIDATOR_NATIVE,
        .params = length_params,
        .param_count = 2,
        .message = "has the wrong length",
        .signature = "bool(string,int64,int64)",
        .function = (graft_native_function_t)checkout_length,
    },
    {
        .name = "range",
        .version = 1,
        .description = "A number between min and max (inclusive); NaN is never valid.",
        .kind = GRAFT_VALIDATOR_NATIVE,
        .params = range_params,
        .param_count = 2,
        .message = "is out of range",
        .signature = "bool(double,double,double)",
        .function = (graft_native_function_t)checkout_range,
    },
    {
        .name = "email",
        .version = 1,
        .description = "A practical email address check (ASCII): one @, a local part "
                       "of at most 64 characters and a domain with a top-level domain.",
        .kind = GRAFT_VALIDATOR_GENERIC,
        .message = "is not a valid email address",
        .validate = checkout_validate_email,
    },
    {
        .name = "regex",
        .version = 1,
        .description = "Text matching a POSIX extended regular expression.",
        .kind = GRAFT_VALIDATOR_GENERIC,
        .params = regex_params,
        .param_count = 1,
        .message = "does not match the pattern",
        .validate = checkout_validate_regex,
    },
};

#define VALIDATOR_COUNT ((uint32_t)(sizeof validators / sizeof validators[0]))

static uint32_t factory_count(const graft_validator_factory_t *factory) {
    (void)factory;
    return VALIDATOR_COUNT;
}

static const graft_validator_descriptor_t *factory_get_descriptor(
    const graft_validator_factory_t *factory, uint32_t index) {
    (void)factory;
    return index < VALIDATOR_COUNT ? &validators[index] : NULL;
}

const graft_validator_factory_t checkout_validator_factory = {
    .count = factory_count,
    .get_descriptor = factory_get_descriptor,
};
