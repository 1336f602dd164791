// expect: invalid_descriptor
// why: its permissions (graft.permissions/1, ABI 1.2) break graft.h's rules: a kind graft.h does not define, a connect
// permission naming port 0, a folder given as a relative path, and a data folder asked for without a reason.
#include <string.h>

#include "graft.h"

static const uint16_t ports[] = {0};
static const graft_permission_t permission_list[] = {
    {.kind = 9, .reason = "Does something graft.h does not know."},
    {.kind = GRAFT_PERMISSION_CONNECT, .ports = ports, .port_count = 1, .reason = "Connects to port zero."},
    {.kind = GRAFT_PERMISSION_READ, .path = "assets", .reason = "Reads a relative folder."},
    {.kind = GRAFT_PERMISSION_DATA, .reason = NULL},
};

static uint32_t permission_count(const graft_permissions_t *permissions) {
    (void)permissions;
    return 4;
}

static const graft_permission_t *permission_at(const graft_permissions_t *permissions, uint32_t index) {
    (void)permissions;
    return index < 4 ? &permission_list[index] : NULL;
}

static const graft_permissions_t permissions = {permission_count, permission_at};

static bool init(const graft_host_t *host) {
    (void)host;
    return true;
}

static const void *get_factory(const char *factory_id) {
    return strcmp(factory_id, GRAFT_PERMISSIONS_ID) == 0 ? &permissions : NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.bad-permissions",
    .version = "1.0.0",
    .name = "bad_permissions",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
