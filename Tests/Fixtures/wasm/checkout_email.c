/* Checkout's `email` validator on its own, built both ways from the same
 * sources (Plugins/Checkout/email.c and text.c, and this entry): as a .so
 * with cc, and as a .wasm with clang's wasm32-wasi target and
 * graft_wasm_bridge.c. The tests hold the two to the same answers. */
#include "checkout.h"

#include <string.h>

static const graft_validator_descriptor_t email = {
    .name = "email",
    .version = 1,
    .description = "A practical email address check (ASCII), from the Checkout plugin.",
    .kind = GRAFT_VALIDATOR_GENERIC,
    .message = "is not a valid email address",
    .validate = checkout_validate_email,
};

static uint32_t count(const graft_validator_factory_t *factory) { (void)factory; return 1; }
static const graft_validator_descriptor_t *get(const graft_validator_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &email : NULL;
}
static const graft_validator_factory_t validators = { count, get };

static bool init(const graft_host_t *host) { (void)host; return true; }
static const void *get_factory(const char *id) { return strcmp(id, GRAFT_VALIDATOR_FACTORY_ID) == 0 ? &validators : NULL; }

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT, .struct_size = sizeof(graft_plugin_entry_t),
    .id = "dev.graft.checkout-email", .version = "1.0.0", .name = "Checkout's email validator",
    .init = init, .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) { return &entry; }
