// expect: ok
// why: init starts a thread that runs code of this image forever and never stops it (there is no deinit): a host that unloaded the image while the thread runs would crash, so nothing may be unloaded at process exit.
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

#include "graft.h"

static volatile unsigned long ticks = 0;

static void *spin(void *unused) {
    (void)unused;
    for (;;) {
        ticks++;
        usleep(10000);
    }
    return NULL;
}

static bool init(const graft_host_t *host) {
    (void)host;
    pthread_t thread;
    if (pthread_create(&thread, NULL, spin, NULL) != 0) return false;
    pthread_detach(thread);
    return true;
}

static const void *get_factory(const char *factory_id) {
    (void)factory_id;
    return NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.thread",
    .version = "1.0.0",
    .name = "good_thread",
    .init = init,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
