/*
 * checkout_plugin.h — intentionally empty.
 *
 * The Checkout plugin has no public C API: the host reaches it only through
 * the `graft_entry` symbol declared by graft.h. SwiftPM C targets expect an
 * include/ directory, so this header exists to satisfy it.
 */
#pragma once
