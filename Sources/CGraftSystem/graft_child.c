/* posix_spawn_file_actions_addclosefrom_np is a GNU extension (glibc 2.34). */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <spawn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "graft_child.h"

int graft_spawn(const char *path, char *const argv[], char *const envp[], int channel, int side, int output, pid_t *pid) {
    return graft_spawn_with(path, argv, envp, channel, side, output, NULL, 0, pid);
}

int graft_spawn_with(const char *path, char *const argv[], char *const envp[], int channel, int side, int output,
                     const int *extra, int extra_count, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int status = posix_spawn_file_actions_init(&actions);
    if (status != 0) return status;
    status = posix_spawnattr_init(&attributes);
    if (status != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return status;
    }

    /* dup2 onto itself would keep close-on-exec set: move the channel first
     * when it already is 3. */
    if (status == 0) status = posix_spawn_file_actions_adddup2(&actions, channel, 3);
    if (side >= 0 && status == 0) status = posix_spawn_file_actions_adddup2(&actions, side, 4);
    /* Without a progress pipe, 4 is /dev/null where descriptors follow it: the host's own 4 never reaches the child. */
    if (side < 0 && extra_count > 0 && status == 0) status = posix_spawn_file_actions_addopen(&actions, 4, "/dev/null", O_RDONLY, 0);
    if (status == 0) status = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (output >= 0) {
        if (status == 0) status = posix_spawn_file_actions_adddup2(&actions, output, 1);
        if (status == 0) status = posix_spawn_file_actions_adddup2(&actions, output, 2);
    } else {
        if (status == 0) status = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        if (status == 0) status = posix_spawn_file_actions_adddup2(&actions, 1, 2);
    }
    /* A -1 among them keeps its number, as /dev/null: the ones after it stay where the child looks. */
    for (int i = 0; status == 0 && i < extra_count; i++)
        status = extra[i] >= 0 ? posix_spawn_file_actions_adddup2(&actions, extra[i], 5 + i)
                               : posix_spawn_file_actions_addopen(&actions, 5 + i, "/dev/null", O_RDONLY, 0);
    if (status == 0) status = posix_spawn_file_actions_addclosefrom_np(&actions, extra_count > 0 ? 5 + extra_count : side >= 0 ? 5 : 4);

    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    if (status == 0) status = posix_spawnattr_setsigdefault(&attributes, &all);
    if (status == 0) status = posix_spawnattr_setsigmask(&attributes, &none);
    if (status == 0) status = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

    if (status == 0) status = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return status;
}

int graft_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int graft_send_with_fd(int socket, const void *data, size_t length, int fd) {
    const char *bytes = data;
    size_t sent = 0;
    while (sent < length) {
        struct iovec part = {.iov_base = (void *)(bytes + sent), .iov_len = length - sent};
        union {
            struct cmsghdr header;
            char space[CMSG_SPACE(sizeof(int))];
        } control;
        struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1};
        if (sent == 0 && fd >= 0) {
            memset(&control, 0, sizeof control);
            message.msg_control = control.space;
            message.msg_controllen = sizeof control.space;
            struct cmsghdr *header = CMSG_FIRSTHDR(&message);
            header->cmsg_level = SOL_SOCKET;
            header->cmsg_type = SCM_RIGHTS;
            header->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(header), &fd, sizeof(int));
        }
        /* Without a descriptor, send(): no message header to copy in. */
        ssize_t count = message.msg_control ? sendmsg(socket, &message, MSG_NOSIGNAL)
                                            : send(socket, part.iov_base, part.iov_len, MSG_NOSIGNAL);
        if (count < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        sent += (size_t)count;
    }
    return 0;
}

int graft_write_all(int fd, const void *data, size_t length) {
    const char *bytes = data;
    size_t sent = 0;
    while (sent < length) {
        ssize_t count = write(fd, bytes + sent, length - sent);
        if (count < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        sent += (size_t)count;
    }
    return 0;
}

ssize_t graft_receive_with_fd(int socket, void *buffer, size_t capacity, int *fd) {
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int) * 4)];
    } control;
    struct iovec part = {.iov_base = buffer, .iov_len = capacity};
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control.space,
                             .msg_controllen = sizeof control.space};
    *fd = -1;
    ssize_t count;
    do {
        count = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    } while (count < 0 && errno == EINTR);
    if (count < 0) return -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t n = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; i++) {
            int received;
            memcpy(&received, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
            if (*fd < 0) *fd = received; else close(received);
        }
    }
    return count;
}

int graft_die_with_parent(pid_t expected_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return errno;
    /* The parent may have died between our fork and the prctl. */
    if (getppid() != expected_parent) _exit(70);
    return 0;
}

static int write_text(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t length = (ssize_t)strlen(text);
    int ok = write(fd, text, (size_t)length) == length;
    close(fd);
    return ok ? 0 : -1;
}

/* Closes every descriptor but `a` and `b` (a < b). */
static void close_all_but(int a, int b) {
    int failed = (a > 0 && syscall(SYS_close_range, 0, a - 1, 0) != 0) ||
                 (b > a + 1 && syscall(SYS_close_range, a + 1, b - 1, 0) != 0) ||
                 syscall(SYS_close_range, b + 1, ~0U, 0) != 0;
    if (failed)
        for (int fd = 0; fd < 1024; fd++)
            if (fd != a && fd != b) close(fd);
}

/* Ends the calling process as `status` (from waitpid) says its child ended. */
static void end_as(int status) {
    if (WIFSIGNALED(status)) {
        int number = WTERMSIG(status);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none); /* a core of a process that only waited says nothing */
        signal(number, SIG_DFL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, number);
        sigprocmask(SIG_UNBLOCK, &only, NULL);
        raise(number);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 72);
}

/* Exits at once if the process that holds the other end of `alive` has
 * ended; from now on, dies with it (PR_SET_PDEATHSIG). */
static void die_with_holder(int alive[2]) {
    close(alive[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct pollfd gone = {.fd = alive[0], .events = POLLIN};
    if (poll(&gone, 1, 0) != 0) _exit(70);
    close(alive[0]);
}

int graft_contain_descendants(void) {
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) return errno;
    /* The same ids inside as outside: the process stays who it was to
     * every file it opens and every check it makes of an owner. */
    char map[64];
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
    int mapped = write_text("/proc/self/uid_map", map);
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
    if (mapped == 0) mapped = write_text("/proc/self/setgroups", "deny");
    if (mapped == 0) mapped = write_text("/proc/self/gid_map", map);
    if (mapped != 0) return errno ? errno : EPERM;
    /* Three processes: this one (which the host knows), the namespace's
     * first process (which only reaps: the kernel ignores signals a first
     * process does not handle when they come from inside, a crash's own
     * raise() included), and the one that serves, which returns. Each dies
     * with the one before it; the pipes say how the server ended. */
    int alive[2], told[2];
    if (pipe2(alive, O_CLOEXEC) != 0) return errno;
    if (pipe2(told, O_CLOEXEC) != 0) {
        int error = errno;
        close(alive[0]);
        close(alive[1]);
        return error;
    }
    pid_t reaper = fork();
    if (reaper < 0) {
        int error = errno;
        close(alive[0]);
        close(alive[1]);
        close(told[0]);
        close(told[1]);
        return error;
    }
    if (reaper == 0) {
        die_with_holder(alive);
        close(told[0]);
        int inner[2];
        if (pipe2(inner, O_CLOEXEC) != 0) _exit(73);
        pid_t server = fork();
        if (server < 0) _exit(73);
        if (server == 0) {
            close(told[1]);
            die_with_holder(inner);
            return 0;
        }
        /* Reaps whatever the plugins leave to it until the server ends, then
         * says how and ends: the kernel kills the rest of the namespace. It
         * keeps nothing of the host's, so the host hears of the server's end
         * from the server alone. */
        close(inner[0]);
        close_all_but(told[1] < inner[1] ? told[1] : inner[1], told[1] < inner[1] ? inner[1] : told[1]);
        for (;;) {
            int status = 0;
            pid_t ended = waitpid(-1, &status, 0);
            if (ended == server) {
                (void)!write(told[1], &status, sizeof status);
                _exit(0);
            }
            if (ended < 0 && errno != EINTR) _exit(74);
        }
    }
    /* This process waits, holding what its forks watch and nothing else. */
    close(alive[0]);
    close(told[1]);
    close_all_but(told[0] < alive[1] ? told[0] : alive[1], told[0] < alive[1] ? alive[1] : told[0]);
    int status = 0;
    ssize_t got;
    do {
        got = read(told[0], &status, sizeof status);
    } while (got < 0 && errno == EINTR);
    int reaped = 0;
    while (waitpid(reaper, &reaped, 0) < 0 && errno == EINTR) {
    }
    end_as(got == (ssize_t)sizeof status ? status : reaped);
    return 0;
}

int graft_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int graft_limit_address_space(unsigned long long bytes) {
    /* One malloc arena: glibc reserves 64 MiB of address space for each
     * thread's own, which would count against the limit (and the peak that
     * tells a memory limit from a crash) for every worker thread. */
    mallopt(M_ARENA_MAX, 1);
    struct rlimit limit = {.rlim_cur = bytes, .rlim_max = bytes};
    return setrlimit(RLIMIT_AS, &limit) == 0 ? 0 : errno;
}

static void graft_write_peak(int signal_number) {
    char status[8192], line[96];
    size_t length = 0, digits = 0;
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t count;
        while (length < sizeof status - 1 &&
               (count = read(fd, status + length, sizeof status - 1 - length)) > 0)
            length += (size_t)count;
        close(fd);
    }
    status[length] = '\0';
    const char *peak = strstr(status, "VmPeak:");
    if (peak) {
        const char *prefix = "\ngraft-child: peak address space ";
        size_t used = strlen(prefix);
        memcpy(line, prefix, used);
        peak += 7;
        while (*peak == ' ' || *peak == '\t') peak++;
        while (*peak >= '0' && *peak <= '9' && digits < 20) line[used + digits++] = *peak++;
        if (digits > 0) {
            memcpy(line + used + digits, " kB\n", 4);
            ssize_t ignored = write(2, line, used + digits + 4);
            (void)ignored;
        }
    }
    /* SA_RESETHAND restored the default action: the signal now ends the process. */
    raise(signal_number);
}

int graft_report_peak_on_crash(void) {
    static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE};
    stack_t stack = {.ss_sp = malloc(64 * 1024), .ss_size = 64 * 1024, .ss_flags = 0};
    if (!stack.ss_sp) return ENOMEM;
    if (sigaltstack(&stack, NULL) != 0) return errno;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = graft_write_peak;
    action.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        if (sigaction(signals[i], &action, NULL) != 0) return errno;
    return 0;
}
