/* A byte stream each way between a host and one runner child, in a memory
 * file both map: the shared-memory path of the runner's calls. Each
 * direction has one writer and one reader; a reader that finds nothing
 * spins a little (only while the other side runs on another CPU) and then
 * sleeps on a futex, which the writer wakes only when the reader sleeps.
 *
 * The other process can write anything into the shared pages at any time.
 * So each side keeps its own position privately, checks every position it
 * reads from the other side before using it, and copies bytes out before
 * anyone looks at them (the caller parses its private copy). */
#ifndef GRAFT_RING_H
#define GRAFT_RING_H

#include <stddef.h>
#include <stdint.h>

typedef struct graft_ring_control graft_ring_control;

/* One direction as one side sees it: the shared control block and bytes,
 * and this side's own position (a reader's head, a writer's tail). */
typedef struct {
    graft_ring_control *control;
    unsigned char *data;
    uint64_t capacity;
    uint64_t position;
    /* Empty wake-ups in a row: a bell rung with nothing behind it. */
    uint32_t empty_wakes;
    /* How long the next wait may spin (ns): see `graft_ring_wait`. */
    uint32_t spin_budget;
} graft_ring_end;

/* Both directions, mapped. `send` is written by this side, `receive` read. */
typedef struct {
    void *base;
    size_t size;
    int fd;
    graft_ring_end send;
    graft_ring_end receive;
} graft_ring;

/* The host: a new memory file of `capacity` bytes each way (a power of two,
 * at least 4096), mapped, and sealed at its size (nobody can shrink it). Returns 0, or an errno value. The file's
 * descriptor (close-on-exec) goes to the child; `graft_ring_unmap` closes it. */
int graft_ring_create(uint64_t capacity, graft_ring *ring);

/* The child: maps the memory file `fd` its host made. Returns 0, or an
 * errno value (EINVAL when the file does not hold a ring). */
int graft_ring_attach(int fd, graft_ring *ring);

/* Unmaps the ring and closes its descriptor. */
void graft_ring_unmap(graft_ring *ring);

/* Reader: copies at most `max` of the bytes waiting into `into`, and frees
 * their room. Returns the count (0: none waits), or -1 when the writer
 * published a position that cannot be. */
long graft_ring_take(graft_ring_end *end, void *into, size_t max);

/* Reader: the bytes waiting (0 when none), or -1 as for `graft_ring_take`. */
long graft_ring_waiting(const graft_ring_end *end);

/* Reader: waits until bytes wait, `*alerts` is not 0, or `deadline_ns`
 * (CLOCK_MONOTONIC; < 0: none) passes. Spins first, while the writer last
 * ran on another CPU than this thread, for the end's budget: it follows
 * twice the recent waits up to `spin_ns` (0: never spin), and halves after
 * each wait longer than that, so that a busy machine or slow calls soon
 * stop paying for spins. Returns 1 (bytes
 * wait), 2 (an alert), 0 (the deadline), -1 (a broken position) or -2 (the
 * bell rang more than 10000 times in a row with nothing to read). */
int graft_ring_wait(graft_ring_end *end, const volatile uint32_t *alerts, int64_t deadline_ns, uint32_t spin_ns);

/* Writer: copies all `length` bytes, waiting for room as the reader takes
 * them, and wakes the reader when it sleeps. Returns 0, or -1 when `*stop`
 * became non-zero or the reader published a position that cannot be. */
int graft_ring_put(graft_ring_end *end, const void *data, size_t length, const volatile uint32_t *stop);

/* Wakes whoever waits on either direction of `ring` (after the caller set
 * the flag they look at). */
void graft_ring_wake(graft_ring *ring);

/* Writer: where this end's bytes end so far (a position only this side
 * moves). */
uint64_t graft_ring_written(const graft_ring_end *end);

/* Writer: whether the reader says it has taken every byte before `position`.
 * The other side writes what this reads: it decides whether a request could
 * have reached a reader that then died, never anything about memory. */
int graft_ring_taken(const graft_ring_end *end, uint64_t position);

/* Sets `bits` in `alerts` (a word of this process's that this side's
 * waits look at), then wakes them. */
void graft_ring_alert(graft_ring *ring, uint32_t *alerts, uint32_t bits);

/* Clears `bits` of `alerts`; returns the word as it was. */
uint32_t graft_ring_clear_alerts(uint32_t *alerts, uint32_t bits);

/* The flag a child's waits look at: the host sets it (`graft_ring_close`)
 * when it lets the child go. */
const volatile uint32_t *graft_ring_closed_flag(const graft_ring *ring);

/* Sets the closed flag and wakes both directions. */
void graft_ring_close(graft_ring *ring);

/* The CPUs this thread may run on. */
int graft_ring_usable_cpus(void);

/* The host's watch over its ring children's descriptors (their socket,
 * output pipe and pidfd), one epoll set for all: each descriptor reports
 * once, then waits to be re-armed. `token` comes back with its event. */
int graft_watch_create(void);
int graft_watch_add(int watch, int fd, uint64_t token);
int graft_watch_rearm(int watch, int fd, uint64_t token);
/* Waits for the next event; returns 1 with *token set, or -1 (errno). */
int graft_watch_next(int watch, uint64_t *token);

#endif
