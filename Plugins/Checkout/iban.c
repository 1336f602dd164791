/*
 * iban.c — the `iban` native validator (ISO 13616 / ISO 7064 MOD 97-10).
 *
 * Thread-safety: pure function over a constant table; [thread-safe].
 */
#include "checkout.h"

/* IBAN lengths by country, from the SWIFT IBAN registry. Sorted by code so
 * a reader can check it against the registry; small enough for a linear
 * search. Territories that use another country's IBAN (Åland → FI, Jersey →
 * GB, the French overseas departments → FR, ...) are not separate entries. */
static const struct {
    char code[3];
    unsigned char length;
} iban_lengths[] = {
    { "AD", 24 }, { "AE", 23 }, { "AL", 28 }, { "AT", 20 }, { "AZ", 28 },
    { "BA", 20 }, { "BE", 16 }, { "BG", 22 }, { "BH", 22 }, { "BI", 27 },
    { "BR", 29 }, { "BY", 28 }, { "CH", 21 }, { "CR", 22 }, { "CY", 28 },
    { "CZ", 24 }, { "DE", 22 }, { "DJ", 27 }, { "DK", 18 }, { "DO", 28 },
    { "EE", 20 }, { "EG", 29 }, { "ES", 24 }, { "FI", 18 }, { "FK", 18 },
    { "FO", 18 }, { "FR", 27 }, { "GB", 22 }, { "GE", 22 }, { "GI", 23 },
    { "GL", 18 }, { "GR", 27 }, { "GT", 28 }, { "HN", 28 }, { "HR", 21 },
    { "HU", 28 }, { "IE", 22 }, { "IL", 23 }, { "IQ", 23 }, { "IS", 26 },
    { "IT", 27 }, { "JO", 30 }, { "KW", 30 }, { "KZ", 20 }, { "LB", 28 },
    { "LC", 32 }, { "LI", 21 }, { "LT", 20 }, { "LU", 20 }, { "LV", 21 },
    { "LY", 25 }, { "MC", 27 }, { "MD", 24 }, { "ME", 22 }, { "MK", 19 },
    { "MN", 20 }, { "MR", 27 }, { "MT", 31 }, { "MU", 30 }, { "NI", 28 },
    { "NL", 18 }, { "NO", 15 }, { "OM", 23 }, { "PK", 24 }, { "PL", 28 },
    { "PS", 29 }, { "PT", 25 }, { "QA", 29 }, { "RO", 24 }, { "RS", 22 },
    { "RU", 33 }, { "SA", 24 }, { "SC", 31 }, { "SD", 18 }, { "SE", 24 },
    { "SI", 19 }, { "SK", 24 }, { "SM", 27 }, { "SO", 23 }, { "ST", 25 },
    { "SV", 28 }, { "TL", 23 }, { "TN", 24 }, { "TR", 26 }, { "UA", 29 },
    { "VA", 22 }, { "VG", 24 }, { "XK", 20 }, { "YE", 30 },
};

#define IBAN_MAX 34 /* ISO 13616: at most 34 characters */

static unsigned iban_country_length(char a, char b) {
    size_t i;
    for (i = 0; i < sizeof iban_lengths / sizeof iban_lengths[0]; i++)
        if (iban_lengths[i].code[0] == a && iban_lengths[i].code[1] == b)
            return iban_lengths[i].length;
    return 0;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

bool checkout_iban(const char *value) {
    char iban[IBAN_MAX];
    size_t n = 0, i;
    unsigned remainder = 0, check;

    if (!value) return false;
    /* Normalise: drop the spaces of the printed form, uppercase letters. */
    for (; *value; value++) {
        char c = *value;
        if (c == ' ') continue;
        if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        if (!is_digit(c) && !is_upper(c)) return false;
        if (n == IBAN_MAX) return false;
        iban[n++] = c;
    }
    if (n < 5 || !is_upper(iban[0]) || !is_upper(iban[1]) || !is_digit(iban[2]) ||
        !is_digit(iban[3]))
        return false;
    if (iban_country_length(iban[0], iban[1]) != n) return false;

    /* ISO 7064 computes check digits 02..98; 00, 01 and 99 never occur, even
     * though 00 and 01 can pass the mod-97 test (they equal 97 and 98). */
    check = (unsigned)(iban[2] - '0') * 10 + (unsigned)(iban[3] - '0');
    if (check < 2 || check > 98) return false;

    /* Move the first four characters to the end, read letters as 10..35 and
     * take the number mod 97, one digit (or letter pair) at a time so no
     * intermediate value exceeds 96 * 100 + 35. */
    for (i = 0; i < n; i++) {
        char c = iban[(i + 4) % n];
        if (is_digit(c))
            remainder = (remainder * 10 + (unsigned)(c - '0')) % 97;
        else
            remainder = (remainder * 100 + (unsigned)(c - 'A' + 10)) % 97;
    }
    return remainder == 1;
}
