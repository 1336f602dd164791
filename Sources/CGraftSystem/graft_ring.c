/* The shared-memory ring between a host and a runner child: see
 * graft_ring.h. Positions only grow (64 bits never wrap); a byte at
 * position p lives at data[p % capacity]. Each side trusts only its own
 * position: what it reads of the other's is checked against the capacity. */
#define _GNU_SOURCE
#include "graft_ring.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_MAGIC 0x31676e6972746667ULL /* "gftring1" */
#define HEADER_SIZE 4096
#define MAX_EMPTY_WAKES 10000

/* One direction's shared state, each side's fields on their own cache line. */
struct graft_ring_control {
    _Alignas(64) uint64_t tail;     /* written by the writer */
    int32_t writer_cpu;             /* where the writer last wrote (a hint for spinning) */
    _Alignas(64) uint64_t head;     /* written by the reader */
    _Alignas(64) uint32_t data_bell; /* futex: bumped when bytes (or an alert) wait */
    uint32_t reader_sleeping;
    _Alignas(64) uint32_t room_bell; /* futex: bumped when bytes are taken */
    uint32_t writer_sleeping;
};

struct ring_header {
    uint64_t magic;
    uint64_t capacity;
    uint32_t closed;
};

_Static_assert(sizeof(struct ring_header) <= 128, "header");
_Static_assert(128 + 2 * sizeof(struct graft_ring_control) <= HEADER_SIZE, "controls");

static long futex(uint32_t *word, int op, uint32_t value, const struct timespec *timeout) {
    /* Not FUTEX_PRIVATE: the word is in memory two processes share. */
    return syscall(SYS_futex, word, op, value, timeout, NULL, 0);
}

static void ring_bell(uint32_t *bell) {
    __atomic_fetch_add(bell, 1, __ATOMIC_SEQ_CST);
    futex(bell, FUTEX_WAKE, INT_MAX, NULL);
}

static int64_t now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static void place(graft_ring *ring, void *base, uint64_t capacity, int host) {
    graft_ring_control *to_child = (graft_ring_control *)((char *)base + 128);
    graft_ring_control *to_host = to_child + 1;
    unsigned char *child_bytes = (unsigned char *)base + HEADER_SIZE;
    unsigned char *host_bytes = child_bytes + capacity;
    ring->send = (graft_ring_end){.control = host ? to_child : to_host, .data = host ? child_bytes : host_bytes, .capacity = capacity};
    ring->receive = (graft_ring_end){.control = host ? to_host : to_child, .data = host ? host_bytes : child_bytes, .capacity = capacity};
}

int graft_ring_create(uint64_t capacity, graft_ring *ring) {
    if (capacity < 4096 || (capacity & (capacity - 1)) != 0 || capacity > (1ULL << 30)) return EINVAL;
    int fd = memfd_create("graft-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return errno;
    size_t size = HEADER_SIZE + 2 * capacity;
    /* Sealed at its size: a child that reached the file (through /proc) and
     * shrank it would make the host's next read of the pages a SIGBUS. */
    if (ftruncate(fd, (off_t)size) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        int error = errno;
        close(fd);
        return error;
    }
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        int error = errno;
        close(fd);
        return error;
    }
    struct ring_header *header = base;
    header->magic = RING_MAGIC;
    header->capacity = capacity;
    *ring = (graft_ring){.base = base, .size = size, .fd = fd};
    place(ring, base, capacity, 1);
    ring->send.control->writer_cpu = -1;
    ring->receive.control->writer_cpu = -1;
    return 0;
}

int graft_ring_attach(int fd, graft_ring *ring) {
    struct stat status;
    if (fstat(fd, &status) != 0) return errno;
    if (status.st_size < HEADER_SIZE + 2 * 4096) return EINVAL;
    struct ring_header header;
    if (pread(fd, &header, sizeof header, 0) != (ssize_t)sizeof header) return EINVAL;
    uint64_t capacity = header.capacity;
    if (header.magic != RING_MAGIC || capacity < 4096 || (capacity & (capacity - 1)) != 0 ||
        (uint64_t)status.st_size != HEADER_SIZE + 2 * capacity)
        return EINVAL;
    void *base = mmap(NULL, (size_t)status.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) return errno;
    *ring = (graft_ring){.base = base, .size = (size_t)status.st_size, .fd = fd};
    place(ring, base, capacity, 0);
    return 0;
}

void graft_ring_unmap(graft_ring *ring) {
    if (ring->base) munmap(ring->base, ring->size);
    if (ring->fd >= 0) close(ring->fd);
    ring->base = NULL;
    ring->fd = -1;
}

long graft_ring_waiting(const graft_ring_end *end) {
    uint64_t tail = __atomic_load_n(&end->control->tail, __ATOMIC_ACQUIRE);
    uint64_t waiting = tail - end->position;
    return waiting > end->capacity ? -1 : (long)waiting;
}

long graft_ring_take(graft_ring_end *end, void *into, size_t max) {
    long waiting = graft_ring_waiting(end);
    if (waiting <= 0) return waiting;
    size_t count = (size_t)waiting < max ? (size_t)waiting : max;
    size_t offset = (size_t)(end->position & (end->capacity - 1));
    size_t first = end->capacity - offset < count ? end->capacity - offset : count;
    memcpy(into, end->data + offset, first);
    memcpy((unsigned char *)into + first, end->data, count - first);
    end->position += count;
    end->empty_wakes = 0;
    __atomic_store_n(&end->control->head, end->position, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&end->control->writer_sleeping, __ATOMIC_SEQ_CST)) ring_bell(&end->control->room_bell);
    return (long)count;
}

/* Spins while bytes and alerts are absent, within the end's budget, unless
 * the other side last ran on this CPU (then spinning only keeps it from
 * running). */
static void spin_for(graft_ring_end *end, const volatile uint32_t *alerts, int64_t started, int32_t other_cpu) {
    if (end->spin_budget < 500) return;
    int here = sched_getcpu();
    if (here >= 0 && here == other_cpu) return;
    int64_t until = started + end->spin_budget;
    for (unsigned turn = 1;; turn++) {
        if (graft_ring_waiting(end) != 0 || __atomic_load_n(alerts, __ATOMIC_ACQUIRE)) return;
        cpu_relax();
        if ((turn & 63) == 0 && now_ns() >= until) return;
    }
}

/* After a wait that found bytes `waited` ns after it began: the budget
 * follows twice the waits a spin could have covered, and halves after each
 * that it could not (a busy machine, or a call that takes longer), so that
 * spins stop where they do not pay. */
static void adapt_spin(graft_ring_end *end, int64_t waited, uint32_t spin_ns) {
    if (spin_ns == 0) {
        end->spin_budget = 0;
    } else if (waited <= (int64_t)spin_ns) {
        uint64_t target = 2 * (uint64_t)waited + 1000;
        uint64_t budget = ((uint64_t)end->spin_budget * 3 + (target < spin_ns ? target : spin_ns)) / 4;
        end->spin_budget = (uint32_t)budget;
    } else {
        end->spin_budget /= 2;
    }
}

int graft_ring_wait(graft_ring_end *end, const volatile uint32_t *alerts, int64_t deadline_ns, uint32_t spin_ns) {
    graft_ring_control *control = end->control;
    int64_t started = now_ns();
    spin_for(end, alerts, started, __atomic_load_n(&control->writer_cpu, __ATOMIC_RELAXED));
    for (;;) {
        long waiting = graft_ring_waiting(end);
        if (waiting < 0) return -1;
        if (waiting > 0) {
            adapt_spin(end, now_ns() - started, spin_ns);
            return 1;
        }
        if (__atomic_load_n(alerts, __ATOMIC_ACQUIRE)) return 2;
        struct timespec timeout, *limit = NULL;
        if (deadline_ns >= 0) {
            int64_t left = deadline_ns - now_ns();
            if (left <= 0) return 0;
            timeout.tv_sec = left / 1000000000;
            timeout.tv_nsec = left % 1000000000;
            limit = &timeout;
        }
        uint32_t seen = __atomic_load_n(&control->data_bell, __ATOMIC_SEQ_CST);
        __atomic_store_n(&control->reader_sleeping, 1, __ATOMIC_SEQ_CST);
        /* Looked at again after saying so: a writer that published before it
         * saw the flag is found here; one after it rings. */
        if (graft_ring_waiting(end) == 0 && !__atomic_load_n(alerts, __ATOMIC_SEQ_CST))
            futex(&control->data_bell, FUTEX_WAIT, seen, limit);
        __atomic_store_n(&control->reader_sleeping, 0, __ATOMIC_SEQ_CST);
        if (graft_ring_waiting(end) == 0 && !__atomic_load_n(alerts, __ATOMIC_ACQUIRE) && ++end->empty_wakes > MAX_EMPTY_WAKES)
            return -2;
    }
}

int graft_ring_put(graft_ring_end *end, const void *data, size_t length, const volatile uint32_t *stop) {
    graft_ring_control *control = end->control;
    const unsigned char *bytes = data;
    int cpu = sched_getcpu();
    if (__atomic_load_n(&control->writer_cpu, __ATOMIC_RELAXED) != cpu) __atomic_store_n(&control->writer_cpu, cpu, __ATOMIC_RELAXED);
    uint32_t empty_wakes = 0;
    while (length > 0) {
        if (__atomic_load_n(stop, __ATOMIC_ACQUIRE)) return -1;
        uint64_t head = __atomic_load_n(&control->head, __ATOMIC_ACQUIRE);
        uint64_t used = end->position - head;
        if (used > end->capacity) return -1;
        uint64_t room = end->capacity - used;
        if (room == 0) {
            uint32_t seen = __atomic_load_n(&control->room_bell, __ATOMIC_SEQ_CST);
            __atomic_store_n(&control->writer_sleeping, 1, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&control->head, __ATOMIC_SEQ_CST) == head && !__atomic_load_n(stop, __ATOMIC_SEQ_CST))
                futex(&control->room_bell, FUTEX_WAIT, seen, NULL);
            __atomic_store_n(&control->writer_sleeping, 0, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&control->head, __ATOMIC_ACQUIRE) == head && ++empty_wakes > MAX_EMPTY_WAKES) return -1;
            continue;
        }
        empty_wakes = 0;
        size_t count = room < length ? (size_t)room : length;
        size_t offset = (size_t)(end->position & (end->capacity - 1));
        size_t first = end->capacity - offset < count ? end->capacity - offset : count;
        memcpy(end->data + offset, bytes, first);
        memcpy(end->data, bytes + first, count - first);
        end->position += count;
        bytes += count;
        length -= count;
        __atomic_store_n(&control->tail, end->position, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&control->reader_sleeping, __ATOMIC_SEQ_CST)) ring_bell(&control->data_bell);
    }
    return 0;
}

uint64_t graft_ring_written(const graft_ring_end *end) { return end->position; }

int graft_ring_taken(const graft_ring_end *end, uint64_t position) {
    uint64_t head = __atomic_load_n(&end->control->head, __ATOMIC_ACQUIRE);
    return (int64_t)(head - position) >= 0;
}

void graft_ring_wake(graft_ring *ring) {
    ring_bell(&ring->receive.control->data_bell);
    ring_bell(&ring->send.control->room_bell);
}

void graft_ring_alert(graft_ring *ring, uint32_t *alerts, uint32_t bits) {
    __atomic_fetch_or(alerts, bits, __ATOMIC_SEQ_CST);
    graft_ring_wake(ring);
}

uint32_t graft_ring_clear_alerts(uint32_t *alerts, uint32_t bits) {
    return __atomic_fetch_and(alerts, ~bits, __ATOMIC_SEQ_CST);
}

const volatile uint32_t *graft_ring_closed_flag(const graft_ring *ring) {
    return &((struct ring_header *)ring->base)->closed;
}

void graft_ring_close(graft_ring *ring) {
    __atomic_store_n(&((struct ring_header *)ring->base)->closed, 1, __ATOMIC_SEQ_CST);
    ring_bell(&ring->send.control->data_bell);
    ring_bell(&ring->receive.control->room_bell);
    ring_bell(&ring->receive.control->data_bell);
    ring_bell(&ring->send.control->room_bell);
}

int graft_watch_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static int watch_control(int watch, int op, int fd, uint64_t token) {
    struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT, .data.u64 = token};
    return epoll_ctl(watch, op, fd, &event);
}

int graft_watch_add(int watch, int fd, uint64_t token) { return watch_control(watch, EPOLL_CTL_ADD, fd, token); }

int graft_watch_rearm(int watch, int fd, uint64_t token) { return watch_control(watch, EPOLL_CTL_MOD, fd, token); }

int graft_watch_next(int watch, uint64_t *token) {
    struct epoll_event event;
    for (;;) {
        int count = epoll_wait(watch, &event, 1, -1);
        if (count == 1) {
            *token = event.data.u64;
            return 1;
        }
        if (count < 0 && errno != EINTR) return -1;
    }
}

int graft_ring_usable_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    return CPU_COUNT(&set);
}
