/* accept4 is a GNU extension: ask for it before any header. */
#define _GNU_SOURCE
#include <sys/socket.h>

#include "graft_system.h"

__thread void *graft_thread_reader = NULL;

int graft_accept_cloexec_nonblocking(int listener) {
    return accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}
