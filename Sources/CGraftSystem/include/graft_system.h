/* What the host needs from Linux that Swift cannot say directly: the
 * membarrier system call (syscall(2) is variadic, so Swift cannot call it),
 * a compiler-only barrier (Swift has no inline assembly), a thread-local
 * slot cheaper than pthread_getspecific (Swift has no thread-local storage),
 * and the GNU extensions Swift's Glibc module does not show (accept4,
 * sched_getcpu and CPU affinity). The first three serve GraftHost's lock-free
 * reads (ReadMostly), accept4 the debug endpoint, affinity `graft bench`. */
#ifndef GRAFT_SYSTEM_H
#define GRAFT_SYSTEM_H

#include <errno.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "graft_child.h"
#include "graft_ring.h"
#include "graft_tree.h"

/* Registers the process for MEMBARRIER_CMD_PRIVATE_EXPEDITED. Returns 0 on
 * success, or errno (ENOSYS on old kernels, EPERM under some seccomp
 * filters, EINVAL when the command is unknown). */
static inline int graft_membarrier_register(void) {
    return syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ? 0 : errno;
}

/* Issues a full memory barrier on every CPU running a thread of this
 * process. Returns 0 on success, or errno. */
static inline int graft_membarrier(void) {
    return syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0 ? 0 : errno;
}

/* Accepts one pending connection on `listener`, close-on-exec and
 * non-blocking from the start (accept4: no window in which a fork on another
 * thread inherits it). Returns the descriptor, or -1 with errno set. */
int graft_accept_cloexec_nonblocking(int listener);

/* A saved CPU affinity mask (a cpu_set_t, which Swift's Glibc module hides). */
typedef struct {
    unsigned char bytes[128];
} graft_cpu_mask_t;

/* Pins the calling thread's process-wide affinity to the CPU it runs on,
 * for benchmarks that compare runs (and child processes) on one CPU. Saves
 * the previous mask in *saved. Returns the CPU, or -1 (nothing changed). */
int graft_pin_to_current_cpu(graft_cpu_mask_t *saved);

/* Pins every thread of process `pid` (0: the calling thread) to CPU `cpu`;
 * threads it starts later inherit the pin. Returns 0, or -1 with errno set. For benchmarks that place a child on
 * the same CPU as the host, or on another. */
int graft_pin_to_cpu(int pid, int cpu);

/* The abbreviation of `signal` ("SEGV" for SIGSEGV), or NULL for a number
 * that names no signal. Static storage: never freed. */
const char *graft_signal_abbreviation(int signal);

/* The malloc heap, for benchmarks that tell a leak (blocks in use grow)
 * from a heap that grew once: bytes in use, the main heap's size, and bytes
 * in mmapped blocks (glibc's mallinfo2). */
typedef struct { unsigned long long in_use, heap, mapped; } graft_heap_t;
graft_heap_t graft_heap(void);

/* Restores a mask saved by graft_pin_to_current_cpu. */
void graft_restore_cpu_mask(const graft_cpu_mask_t *saved);

/* Names the calling thread (its first 15 bytes), as top and gdb show it. */
void graft_set_thread_name(const char *name);

/* Stops the compiler, not the CPU, from moving memory accesses across it. */
static inline void graft_compiler_barrier(void) {
    __asm__ __volatile__("" ::: "memory");
}

/* This thread's ReadMostly record (defined in graft_system.c). */
extern __thread void *graft_thread_reader;

static inline void *graft_thread_reader_get(void) {
    return graft_thread_reader;
}

static inline void graft_thread_reader_set(void *reader) {
    graft_thread_reader = reader;
}

#endif
