/* Child processes and the descriptors that cross to them: what Swift cannot
 * say directly (posix_spawn file actions with closefrom, SCM_RIGHTS control
 * messages, prctl). Used by GraftHost's scanner and runner children. */
#ifndef GRAFT_CHILD_H
#define GRAFT_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/* Starts `path` with `argv` and `envp` (NULL-terminated) through posix_spawn:
 * the child's descriptor 3 is `channel`, its descriptor 4 is `side` (when
 * side >= 0: a pipe the child writes progress bytes to), its stdin is
 * /dev/null, its stdout and stderr are `output` (or /dev/null when
 * output < 0), and every other descriptor is closed. Signal dispositions are reset to their defaults and
 * the signal mask is emptied; the child stays in the caller's process group,
 * so Ctrl-C and a terminal hang-up reach it too. Returns 0 and sets *pid, or
 * an errno value. */
int graft_spawn(const char *path, char *const argv[], char *const envp[], int channel, int side, int output, pid_t *pid);

/* The same, with `extra_count` more descriptors of the caller's as the
 * child's 5, 6, … (its 4 is then unused when `side` < 0). */
int graft_spawn_with(const char *path, char *const argv[], char *const envp[], int channel, int side, int output,
                     const int *extra, int extra_count, pid_t *pid);

/* pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so no
 * fork on another thread inherits them. Returns 0, or -1 with errno set. */
int graft_pipe_cloexec(int fds[2]);

/* Sends `length` bytes of `data` on the stream socket `socket`, with `fd`
 * attached as SCM_RIGHTS to the first byte (fd < 0: none). Writes everything
 * or fails. Returns 0, or an errno value. */
int graft_send_with_fd(int socket, const void *data, size_t length, int fd);

/* Writes all `length` bytes of `data` to `fd` with write(2). Returns 0, or
 * an errno value. A sandboxed child answers its host this way: write passes
 * its seccomp filter without a look at its arguments, where send() is
 * sendto(), whose address and flags the filter checks on every call. */
int graft_write_all(int fd, const void *data, size_t length);

/* Receives up to `capacity` bytes from `socket` with recvmsg. A descriptor
 * that arrives with them is stored in *fd (close-on-exec), else *fd = -1;
 * extra descriptors are closed. Returns the count (0 at end of stream), or
 * -1 with errno set. */
ssize_t graft_receive_with_fd(int socket, void *buffer, size_t capacity, int *fd);

/* The calling process gets SIGKILL when its parent dies; if the parent is
 * already gone (getppid() differs from `expected_parent`), exits at once.
 * Returns 0, or an errno value. */
int graft_die_with_parent(pid_t expected_parent);

/* Makes every process the caller's plugins start die with it, for a child
 * with no seccomp filter to refuse them: the caller (single-threaded, first
 * thing in main) moves into a new user and PID namespace (its ids mapped to
 * themselves) and forks the namespace's first process, which only reaps and
 * forks the process that returns 0 and goes on serving. Everything the
 * plugins start lives in the namespace, which the kernel kills when its
 * first process ends: when the server ends, or when the caller does
 * (PR_SET_PDEATHSIG down the line). The caller never returns: it waits and
 * ends as the server ended (its exit status, or the same signal). Returns
 * an errno value when the kernel refuses the namespaces (unprivileged user
 * namespaces turned off); nothing changed then. */
int graft_contain_descendants(void);

/* A descriptor that becomes readable when process `pid` (a child of the
 * caller) exits, whoever still holds its other descriptors (pidfd_open,
 * close-on-exec). Returns it, or -1 with errno set (kernels before 5.3). */
int graft_pidfd_open(pid_t pid);

/* Limits the calling process's address space to `bytes` (RLIMIT_AS), and
 * keeps malloc to one arena (M_ARENA_MAX), whose per-thread reservations
 * would count against it. Returns 0, or an errno value. */
int graft_limit_address_space(unsigned long long bytes);

/* Before a crash signal (SEGV, BUS, ILL, TRAP, ABRT, FPE) takes the calling
 * process down, writes one line to stderr, "graft-child: peak address space
 * N kB" (VmPeak from /proc/self/status), then lets the signal end the process
 * as it would have. The parent cannot learn a child's own peak otherwise: a
 * child started with posix_spawn inherits the parent's ru_maxrss at exec. The
 * handler runs on its own stack (a stack overflow still reports) and makes
 * only async-signal-safe calls. Returns 0, or an errno value. */
int graft_report_peak_on_crash(void);

#endif
