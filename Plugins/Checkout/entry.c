/*
 * entry.c — the Checkout plugin's one exported symbol, `graft_entry`.
 *
 * Checkout ships a `paywall` component, payment validators (luhn, iban,
 * length, range, email, regex) and two actions (format_currency, open_url).
 *
 * Thread-safety: `init` and `deinit` run on the main thread (graft.h), before
 * and after every other call; `get_factory` only reads constants.
 */
#include "checkout.h"

#include <string.h>

/* Written by init/deinit only; see checkout_host() in checkout.h. */
static const graft_host_t *stored_host;

const graft_host_t *checkout_host(void) { return stored_host; }

static bool checkout_init(const graft_host_t *host) {
    /* A host on another ABI major would not have loaded us; a NULL host
     * breaks the contract, and refusing is kinder than crashing later. */
    if (!host) return false;
    stored_host = host;
    return true;
}

static void checkout_deinit(void) {
    /* The image may stay mapped and be initialised again (SwiftPM-built
     * images are never closed), so leave the globals as a fresh load would. */
    checkout_regex_cache_clear();
    stored_host = NULL;
}

static const void *checkout_get_factory(const char *factory_id) {
    if (!factory_id) return NULL;
    if (strcmp(factory_id, GRAFT_COMPONENT_FACTORY_ID) == 0) return &checkout_component_factory;
    if (strcmp(factory_id, GRAFT_VALIDATOR_FACTORY_ID) == 0) return &checkout_validator_factory;
    if (strcmp(factory_id, GRAFT_ACTION_FACTORY_ID) == 0) return &checkout_action_factory;
    if (strcmp(factory_id, GRAFT_STORIES_ID) == 0) return &checkout_stories;
    return NULL;
}

static const graft_plugin_entry_t checkout_entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "dev.graft.checkout",
    .version = "1.0.0",
    .name = "Checkout",
    .vendor = "Graft",
    .description = "A paywall component, payment validators (card number, IBAN, "
                   "length, range, email, regex) and checkout actions "
                   "(format_currency, open_url).",
    .init = checkout_init,
    .deinit = checkout_deinit,
    .get_factory = checkout_get_factory,
};

/* graft.h declares the prototype, so the compiler checks this definition. */
GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) { return &checkout_entry; }
