// libffi for Graft. Swift 6 treats libffi's global `ffi_type_*` variables as
// mutable shared state, so the host reaches them through these accessors.
#pragma once
#include <ffi.h>

static inline ffi_type *graft_ffi_type_void(void) { return &ffi_type_void; }
static inline ffi_type *graft_ffi_type_uint8(void) { return &ffi_type_uint8; }
static inline ffi_type *graft_ffi_type_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *graft_ffi_type_sint64(void) { return &ffi_type_sint64; }
static inline ffi_type *graft_ffi_type_double(void) { return &ffi_type_double; }
static inline ffi_type *graft_ffi_type_pointer(void) { return &ffi_type_pointer; }
