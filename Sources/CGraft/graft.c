// The ABI is header-only on purpose: a plugin builds against graft.h with `cc`
// alone and links nothing. SwiftPM needs one source file per C target, and the
// host uses this one to read the version it was compiled against.
#include "graft_host_support.h"

__attribute__((visibility("hidden"))) uint32_t graft_entry_size_1_0(void) {
    return GRAFT_ENTRY_SIZE_1_0;
}

__attribute__((visibility("hidden"))) graft_abi_version_t graft_header_abi_version(void) {
    graft_abi_version_t version = GRAFT_ABI_VERSION_INIT;
    return version;
}
