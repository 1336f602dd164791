// libsodium for Graft: what minisign's formats need (Ed25519, BLAKE2b, scrypt),
// from the library minisign itself uses.
#pragma once
#include <sodium.h>
