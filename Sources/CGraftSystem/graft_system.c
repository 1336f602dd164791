/* accept4 is a GNU extension: ask for it before any header. */
#define _GNU_SOURCE
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "graft_system.h"

__thread void *graft_thread_reader = NULL;

/* The kernel makes a registration for private expedited membarrier wait for
 * an RCU grace period once the process has a second thread (5-25 ms on these
 * machines), and takes about 4 us before. ReadMostly registers on first use,
 * which in a plugin's child came after its reader thread had started: every
 * isolated load paid it. Registered here, as the image loads, while the
 * process is still single-threaded; ReadMostly's registration is then a
 * no-op. GRAFT_MEMBARRIER=0 leaves it out, as it leaves out ReadMostly's. */
__attribute__((constructor)) static void graft_membarrier_register_early(void) {
    const char *setting = getenv("GRAFT_MEMBARRIER");
    if (setting != NULL && strcmp(setting, "0") == 0) return;
    (void)graft_membarrier_register();
}

int graft_accept_cloexec_nonblocking(int listener) {
    return accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

int graft_pin_to_current_cpu(graft_cpu_mask_t *saved) {
    _Static_assert(sizeof(graft_cpu_mask_t) >= sizeof(cpu_set_t), "graft_cpu_mask_t holds a cpu_set_t");
    cpu_set_t previous, only;
    int cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof previous, &previous) != 0) return -1;
    CPU_ZERO(&only);
    CPU_SET(cpu, &only);
    if (sched_setaffinity(0, sizeof only, &only) != 0) return -1;
    memcpy(saved->bytes, &previous, sizeof previous);
    return cpu;
}

void graft_restore_cpu_mask(const graft_cpu_mask_t *saved) {
    cpu_set_t previous;
    memcpy(&previous, saved->bytes, sizeof previous);
    sched_setaffinity(0, sizeof previous, &previous);
}

int graft_pin_to_cpu(int pid, int cpu) {
    cpu_set_t only;
    CPU_ZERO(&only);
    CPU_SET(cpu, &only);
    /* sched_setaffinity moves one thread: every thread the process has now
     * moves (those it starts later inherit their creator's mask). */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    if (!tasks) return sched_setaffinity(pid, sizeof only, &only);
    int result = 0;
    for (struct dirent *entry; (entry = readdir(tasks));) {
        if (entry->d_name[0] == '.') continue;
        if (sched_setaffinity(atoi(entry->d_name), sizeof only, &only) != 0) result = -1;
    }
    closedir(tasks);
    return result;
}

graft_heap_t graft_heap(void) {
    struct mallinfo2 info = mallinfo2();
    graft_heap_t heap = {.in_use = info.uordblks, .heap = info.arena, .mapped = info.hblkhd};
    return heap;
}

void graft_set_thread_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = '\0';
    prctl(PR_SET_NAME, truncated, 0, 0, 0);
}

const char *graft_signal_abbreviation(int signal) { return sigabbrev_np(signal); }
