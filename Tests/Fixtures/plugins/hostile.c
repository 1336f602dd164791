// expect: ok
// why: a plugin that tries, on purpose, what the sandbox must refuse: read a secret, write a file, reach the
// network or a Unix socket, signal or trace its host, read the host's memory or environment, run a program,
// leave a process behind. Everything else about it is valid.
//
// Component `probe` v1: its render does the act named by its `act` input on its `target` input and renders
// "<act>: ok <detail>" or "<act>: refused <errno name>". Validator `probe` (generic): the value is the act, the
// first param the target; valid when the act succeeded, else invalid with the same words. Action `probe`
// (params `act`, `target`): sets the variable `outcome` to the same words.
// Built with -DHOSTILE_PORT=N it declares (graft.permissions/1) TCP connections to port N, reading the folder
// HOSTILE_READ when that is defined too, and a data folder.
// Built with -DHOSTILE_SHIFTY it declares its component only in a process whose first argument is `scan` (the
// scanner), and none elsewhere (a runner): a plugin that tells the scan one thing and its runner another.
// Built with -DHOSTILE_CONSTRUCTOR_ACT='"kill_parent"' (and -DHOSTILE_CONSTRUCTOR_TARGET='"…"'), the act runs in a
// constructor, while the plugin is being loaded; -DHOSTILE_INIT_ACT likewise in `init`. Those outcomes go to stderr.
//
// Acts: read (open and read the file `target`), write (create the file `target`), connect (TCP to 127.0.0.1,
// port `target`), udp (send a datagram to 127.0.0.1, port `target`), unix (connect to the Unix socket at path
// `target`), kill_parent (SIGKILL to the parent), kill_group (SIGKILL to the process group), ptrace_parent,
// parent_environ (read /proc/PPID/environ), parent_memory (read the parent's memory with process_vm_readv),
// environ (render the value of the environment variable `target`), exec (run /bin/sh -c true), fork (fork a
// child that waits), daemon (double fork with setsid, the grandchild sleeping for 30 s; when `target` is a path, holding
// an exclusive flock on that file from before the act answers), chmod (make `target`
// mode 0777), data (write `target` inside $GRAFT_DATA_DIR), flood_stderr (write empty lines to stderr forever),
// escape_output (write a terminal escape code and a NUL to stderr), crash_later (start a thread that crashes
// the process `target` milliseconds later), stop_later (likewise, but stop the whole process with SIGSTOP), sleep (sleep `target` milliseconds), meet (wait up to 5 s, or the milliseconds after a slash in `target`, for `target` calls in all, of any plugin in the process, to be in this act at once: 'met' or 'alone'), and, in a render only,
// render_escape (render terminal escape codes and a NUL), emit_flood (emit `target` events of 64 KiB each) and
// log_lines (log `target` lines through its context, and write as many to stderr).
//
// The hostile corpus, by category (perform_<category> below; $TMPDIR is the child's own folder). Every act answers
// "<act>: ok <detail>" only when its system call got through, else "<act>: refused <ERRNO NAME>", followed, for the
// acts that get part of the way (meta_race, own_*, res_*), by how far they got.
// 1. Metadata outside its own files; `target` is a file the test made (mode 0600), outside anything granted.
//    Through the link $TMPDIR/link to `target`: meta_symlink_chmod, meta_symlink_fchmodat, meta_symlink_chown,
//    meta_symlink_setxattr, meta_futimesat. Through an O_PATH descriptor of `target`: meta_opath_fchmodat2,
//    meta_opath_utimensat, meta_opath_fchownat, meta_proc_fd_chmod. By its folder and its name: meta_dirfd_fchmodat,
//    meta_setxattrat_dirfd (a descriptor of the folder), meta_cwd_chmod (chdir into it). meta_dotdot_chmod
//    ("$TMPDIR/../..<target>"). By path: meta_setxattr, meta_lsetxattr, meta_removexattr, meta_setxattrat, meta_acl,
//    meta_file_setattr, meta_chown, meta_lchown (to its own uid and gid), meta_utimes, meta_truncate (to its size).
//    Through a descriptor opened read-only (grant reading the folder): meta_fsetxattr_readonly, meta_fchmod_readonly,
//    meta_futimens_readonly. meta_hardlink ($TMPDIR/hl, then chmod). meta_race (chmod of a buffer flipped between
//    $TMPDIR/own and `target`; ok when `target` became 0777). Must keep working (no target, $TMPDIR/own-file):
//    own_fchmod, own_futimens, own_chmod.
// 2. Unix sockets and IPC. A datagram socket bound at the path `target`: unix_dgram_send, unix_dgram_connect,
//    unix_socketpair_send (with a descriptor). A seqpacket socket at the path `target`: unix_seqpacket. The abstract
//    name `target` (without its NUL): unix_abstract (stream), unix_abstract_dgram, unix_bind_abstract (binds it).
//    No target, left behind: ipc_msgget, ipc_shmget, ipc_semget, and ipc_mq_open, ipc_shm_open ("/graft-corpus", or
//    `target` when it starts with "/"). A System V id: ipc_msgsnd (a queue), ipc_shmat (a segment); a key:
//    ipc_shmget_key.
// 3. The network; `target` is a TCP port the test listens on (127.0.0.1, and ::1): net_fastopen, net_fastopen_mptcp,
//    net_mptcp, net_sendmsg_fastopen, net_fastopen_connect_option, net_ipv6, net_ipv4_mapped, net_udp_connect,
//    net_proc_net ("port-seen" when the port is in /proc/self/net/tcp*). No target: net_raw, net_ping, net_netlink,
//    net_packet, net_vsock, net_sctp, net_xdp, net_alg, net_bind.
// 4. Foreign ABIs and the newest calls (x86_64; ENOSYS elsewhere). No target: abi_int80, abi_int80_kill_parent,
//    abi_x32, abi_unknown, new_listmount, new_statmount, new_lsm_list_modules, new_lsm_get_self_attr, new_mseal,
//    new_setxattrat, new_getxattrat, new_listxattrat, new_removexattrat, new_open_tree_attr, new_file_getattr,
//    new_file_setattr, new_fchmodat2, new_cachestat, new_futex_waitv, new_futex_wake, new_map_shadow_stack,
//    new_memfd_secret, new_process_mrelease, new_landlock. A file to read: abi_int80_open.
// 5. Seeing the machine. A process id: see_proc_pid, see_proc_cmdline. A path: see_inotify, see_fanotify_fid.
//    No target: see_proc_listing, see_mountinfo, see_inotify_own (must keep working), see_fanotify, see_dmesg, see_uid.
//    A folder: see_dnotify (fcntl F_NOTIFY). A file: see_xattr (listxattr by path).
// 6. Processes and the kernel. No target: proc_pidfd, proc_signal0_parent, proc_tgkill_parent, proc_renice_parent,
//    proc_renice_group, proc_ioprio_user, proc_setpgid, proc_unshare_user, proc_clone_newuser, proc_clone_process, proc_clone3, proc_vfork, proc_io_uring,
//    proc_bpf, proc_perf, proc_userfaultfd, proc_userfaultfd_user, proc_userfaultfd_dev, proc_add_key,
//    proc_keyctl_session, proc_personality, proc_prctl_dumpable, proc_seccomp, proc_seccomp_listener, proc_setuid,
//    proc_chroot, proc_mount. The parent's descriptor number (0 when empty): proc_pidfd_getfd.
// 7. Resources, in $TMPDIR. res_deep_tree, res_deep_mkdirat ("data…" for $GRAFT_DATA_DIR); res_fill (MiB: "8192",
//    or "data:8192" for $GRAFT_DATA_DIR); res_many_files, res_fds, res_threads (a count); res_spin (CPU ms);
//    res_alloc, res_memfd (MiB); res_hold_open ("data:N": N files opened 400 ms apart, held, then filled).
//    No target: res_modes, res_fifo, res_immutable, res_spin_after.
// 8. The runner's shared-memory ring (found by its name in /proc/self/maps; the layout of graft_ring.c):
//    ring_tail (a position past the ring's end), ring_bell (the host's bell rung with nothing behind it),
//    ring_garbage (bytes that are no frame), ring_socket (a byte on the socket the ring replaced), ring_truncate (the
//    memory file, reopened through /proc/self/map_files, shrunk to nothing: the host's next read would be a SIGBUS).
//    No target.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <pthread.h>
#include <dirent.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
/* for the corpus by category, below */
#include <limits.h>
#include <mqueue.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/if_alg.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>

#ifndef HOSTILE_KEY
#define HOSTILE_KEY "probe" /* its component's key, and its validator's and action's names */
#endif

#include "graft.h"

static int refused(char *out, size_t capacity, const char *act) {
    snprintf(out, capacity, "%s: refused %s", act, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
    return -1;
}

static void *crash_after(void *milliseconds) {
    struct timespec delay = {(long)(intptr_t)milliseconds / 1000, ((long)(intptr_t)milliseconds % 1000) * 1000000L};
    nanosleep(&delay, NULL);
    *(volatile int *)0 = 1;
    return NULL;
}

static void *stop_after(void *milliseconds) {
    struct timespec delay = {(long)(intptr_t)milliseconds / 1000, ((long)(intptr_t)milliseconds % 1000) * 1000000L};
    nanosleep(&delay, NULL);
    raise(SIGSTOP);
    return NULL;
}

/* ==== The hostile corpus, by category =======================================================================
 * Each perform_<category> below does `act` when the act is one of its own, and answers 0 (the act got through:
 * `detail` says what happened), -1 (it did not: errno says why, and `detail`, when one was written, follows the
 * errno name), or NOT_MINE. Paths a plugin makes for itself are in $TMPDIR (/tmp when unset). */

#define NOT_MINE 1
#define IS(name) (strcmp(act, name) == 0)

/* A system call by number; ENOSYS where this build does not know the number (-1). */
#define RAW(number, ...) ((number) < 0 ? (errno = ENOSYS, -1L) : syscall((number), __VA_ARGS__))

/* From 424 on, every architecture but alpha and mips gives a new call the same number. */
#if defined(__alpha__) || defined(__mips__)
#define UNIFIED(number) (-1)
#else
#define UNIFIED(number) (number)
#endif
/* Numbers older C libraries may not name. */
#define NR_FCHMODAT2 UNIFIED(452)
#define NR_SETXATTRAT UNIFIED(463)
#define NR_FILE_GETATTR UNIFIED(468)
#define NR_FILE_SETATTR UNIFIED(469)
#ifdef SYS_futimesat
#define NR_FUTIMESAT SYS_futimesat
#else
#define NR_FUTIMESAT (-1) /* arm64 and the newer architectures never had it */
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open UNIFIED(434)
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd UNIFIED(438)
#endif
#ifndef SYS_clone3
#define SYS_clone3 UNIFIED(435)
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup UNIFIED(425)
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease UNIFIED(448)
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW _IO(0xAA, 0x00)
#endif
#ifndef FS_IOC_GETFLAGS
#define FS_IOC_GETFLAGS _IOR('f', 1, long)
#define FS_IOC_SETFLAGS _IOW('f', 2, long)
#endif
#ifndef FS_IMMUTABLE_FL
#define FS_IMMUTABLE_FL 0x00000010
#endif
#ifndef ETH_P_ALL
#define ETH_P_ALL 0x0003
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef AF_XDP
#define AF_XDP 44
#endif

/* The argument blocks of the newest calls, as the kernel's uapi headers define them. */
struct hostile_xattr_args {
    uint64_t value;
    uint32_t size;
    uint32_t flags;
};

struct hostile_file_attr {
    uint64_t fa_xflags;
    uint32_t fa_extsize, fa_nextents, fa_projid, fa_cowextsize;
};

/* A time that is no file's by chance: 2001-09-09. */
#define FIXED_TIME 1000000000L

/* Closes `fd` (when it is one) without touching errno. */
static void quietly_close(int fd) {
    int saved = errno;
    if (fd >= 0) close(fd);
    errno = saved;
}

static const char *temporary_folder(void) {
    const char *folder = getenv("TMPDIR");
    return folder && *folder ? folder : "/tmp";
}

/* The folder a resource act fills: $GRAFT_DATA_DIR when `target` starts with "data", else $TMPDIR. */
static const char *chosen_folder(const char *target) {
    if (strncmp(target, "data", 4) != 0) return temporary_folder();
    const char *data = getenv("GRAFT_DATA_DIR");
    if (!data) errno = ENOENT;
    return data;
}

/* "<folder>/<name>" into `path`; ENAMETOOLONG when it does not fit. */
static int join(char *path, size_t size, const char *folder, const char *name) {
    int length = snprintf(path, size, "%s/%s", folder, name);
    if (length < 0 || (size_t)length >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* The folder part of `path` into `folder` ("." when it has none); returns its last name. */
static const char *split(const char *path, char *folder, size_t size) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(folder, size, ".");
        return path;
    }
    snprintf(folder, size, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    return slash + 1;
}

/* On a connected socket: says `say` (when not NULL), then reads what the other end says within 2 s into
 * `detail` (its first line). poll, not SO_RCVTIMEO: a sandbox that refuses the option must not make it hang. */
static void hear(int fd, const char *say, char *detail, size_t size) {
    struct pollfd ready = {.fd = fd, .events = POLLIN};
    ssize_t n = say ? write(fd, say, strlen(say)) : 0;
    n = poll(&ready, 1, 2000) > 0 ? read(fd, detail, size - 1) : 0;
    detail[n > 0 ? n : 0] = '\0';
    detail[strcspn(detail, "\r\n")] = '\0';
}

static struct sockaddr_in loopback4(const char *port) {
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

/* "$TMPDIR/link", a fresh symbolic link to `target`: a path inside the plugin's own folder that the kernel follows
 * out of it. A sandbox that checks the string of a path sees only $TMPDIR. */
static int link_to(const char *target, char *link, size_t size) {
    if (join(link, size, temporary_folder(), "link") != 0) return -1;
    unlink(link);
    return symlink(target, link);
}

/* "$TMPDIR/<name>", created afresh (mode `mode`) and opened for writing: a file of the plugin's own. */
static int own_file(const char *name, mode_t mode, char *path, size_t size) {
    if (join(path, size, temporary_folder(), name) != 0) return -1;
    unlink(path);
    return open(path, O_WRONLY | O_CREAT | O_CLOEXEC, mode);
}

/* ---- 1. metadata outside the plugin's own files -------------------------------------------------------------
 * `target` is a file the test made, outside anything granted. Landlock has no right for a file's mode, owner,
 * times or attributes: only the filter stands between a plugin and them, so every spelling of the same change
 * must meet it. */

/* meta_race: the buffer chmod reads, flipped under it by a second thread between a path of the plugin's own and
 * the target, so that a check that reads the path from the plugin's memory may see the first and the kernel the
 * second. */
struct flipper {
    char path[PATH_MAX];
    char own[PATH_MAX], other[PATH_MAX];
    atomic_int stop;
};

static void *flip(void *argument) {
    struct flipper *flipper = argument;
    size_t own = strlen(flipper->own) + 1, other = strlen(flipper->other) + 1;
    while (!atomic_load_explicit(&flipper->stop, memory_order_relaxed)) {
        memcpy(flipper->path, flipper->own, own);
        atomic_signal_fence(memory_order_seq_cst); /* both writes happen, in this order */
        memcpy(flipper->path, flipper->other, other);
        atomic_signal_fence(memory_order_seq_cst);
    }
    return NULL;
}

static int race_chmod(const char *target, char *detail, size_t size) {
    struct flipper *flipper = calloc(1, sizeof *flipper);
    if (!flipper) return -1;
    atomic_init(&flipper->stop, 0);
    int fd = own_file("own", 0600, flipper->own, sizeof flipper->own);
    if (fd < 0) {
        free(flipper);
        return -1;
    }
    close(fd);
    snprintf(flipper->other, sizeof flipper->other, "%s", target);
    memcpy(flipper->path, flipper->own, sizeof flipper->path);
    pthread_t thread;
    int failure = pthread_create(&thread, NULL, flip, flipper);
    if (failure) {
        free(flipper);
        errno = failure;
        return -1;
    }
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int tries = 0, last = 0, won = 0;
    struct stat information;
    for (; tries < 20000 && !won; tries++) {
        if (chmod(flipper->path, 0777) == 0)
            won = stat(target, &information) == 0 && (information.st_mode & 0777) == 0777;
        else
            last = errno;
        if (tries % 256 == 255) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >= 2000) break;
        }
    }
    atomic_store(&flipper->stop, 1);
    pthread_join(thread, NULL);
    free(flipper);
    if (!won) {
        snprintf(detail, size, "after %d tries", tries);
        errno = last ? last : EAGAIN;
        return -1;
    }
    snprintf(detail, size, "after %d tries", tries);
    return 0;
}

/* meta_acl: the ACL that says what the target's mode says (so nothing changes), written as an attribute: an ACL
 * can grant others what the mode refuses them, and the kernel maps this one onto the mode. */
static int set_acl_like_mode(const char *target) {
    struct stat information;
    if (stat(target, &information) != 0) return -1;
    struct {
        uint32_t version;
        struct {
            uint16_t tag, permissions;
            uint32_t id;
        } entries[3];
    } acl = {2, {{0x01, (information.st_mode >> 6) & 7, UINT32_MAX}, /* the owner */
                 {0x04, (information.st_mode >> 3) & 7, UINT32_MAX}, /* the group */
                 {0x20, information.st_mode & 7, UINT32_MAX}}};      /* others */
    return setxattr(target, "system.posix_acl_access", &acl, sizeof acl, 0);
}

static int perform_metadata(const char *act, const char *target, char *detail, size_t size) {
    char symbolic[PATH_MAX], path[PATH_MAX], folder[PATH_MAX];
    const struct timespec times[2] = {{FIXED_TIME, 0}, {FIXED_TIME, 0}};
    const struct timeval old_times[2] = {{FIXED_TIME, 0}, {FIXED_TIME, 0}};
    struct hostile_xattr_args value = {.value = (uint64_t)(uintptr_t)"corpus", .size = 6};
    int fd, result;
    if (IS("meta_symlink_chmod")) {
        /* chmod through a link in its own folder. */
        if (link_to(target, symbolic, sizeof symbolic) != 0) return -1;
        return chmod(symbolic, 0777);
    } else if (IS("meta_symlink_fchmodat")) {
        /* The same through fchmodat: another call number for a filter to forget. */
        if (link_to(target, symbolic, sizeof symbolic) != 0) return -1;
        return fchmodat(AT_FDCWD, symbolic, 0777, 0);
    } else if (IS("meta_symlink_chown")) {
        /* chown (to itself: no change, still a change of owner) through the link. */
        if (link_to(target, symbolic, sizeof symbolic) != 0) return -1;
        return chown(symbolic, getuid(), getgid());
    } else if (IS("meta_symlink_setxattr")) {
        /* An extended attribute set through the link (setxattr follows it). */
        if (link_to(target, symbolic, sizeof symbolic) != 0) return -1;
        return setxattr(symbolic, "user.graft", "corpus", 6, 0);
    } else if (IS("meta_futimesat")) {
        /* futimesat, the obsolete call the C library no longer uses: a filter written from libc's calls misses it. */
        if (link_to(target, symbolic, sizeof symbolic) != 0) return -1;
        return (int)RAW(NR_FUTIMESAT, AT_FDCWD, symbolic, old_times);
    } else if (IS("meta_opath_fchmodat2")) {
        /* fchmodat2 (Linux 6.6) on an O_PATH descriptor with an empty path: no path at all to check. */
        if ((fd = open(target, O_PATH | O_CLOEXEC)) < 0) return -1;
        result = (int)RAW(NR_FCHMODAT2, fd, "", 0777, AT_EMPTY_PATH);
        quietly_close(fd);
        return result;
    } else if (IS("meta_opath_utimensat")) {
        /* utimensat on an O_PATH descriptor with an empty path. */
        if ((fd = open(target, O_PATH | O_CLOEXEC)) < 0) return -1;
        result = utimensat(fd, "", times, AT_EMPTY_PATH);
        quietly_close(fd);
        return result;
    } else if (IS("meta_opath_fchownat")) {
        /* fchownat on an O_PATH descriptor with an empty path. */
        if ((fd = open(target, O_PATH | O_CLOEXEC)) < 0) return -1;
        result = fchownat(fd, "", getuid(), getgid(), AT_EMPTY_PATH);
        quietly_close(fd);
        return result;
    } else if (IS("meta_proc_fd_chmod")) {
        /* chmod of /proc/self/fd/N, a magic link to an O_PATH descriptor: a path that names no folder of the target. */
        if ((fd = open(target, O_PATH | O_CLOEXEC)) < 0) return -1;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        result = chmod(path, 0777);
        quietly_close(fd);
        return result;
    } else if (IS("meta_dirfd_fchmodat")) {
        /* fchmodat relative to a descriptor of the target's folder: the path alone is a bare name. */
        const char *name = split(target, folder, sizeof folder);
        if ((fd = open(folder, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) return -1;
        result = fchmodat(fd, name, 0777, 0);
        quietly_close(fd);
        return result;
    } else if (IS("meta_cwd_chmod")) {
        /* chmod of a bare name after chdir into the target's folder (and back): relative to the working folder. */
        const char *name = split(target, folder, sizeof folder);
        int here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (here < 0 || chdir(folder) != 0) {
            quietly_close(here);
            return -1;
        }
        result = chmod(name, 0777);
        int saved = errno, back = fchdir(here);
        (void)back;
        close(here);
        errno = saved;
        return result;
    } else if (IS("meta_dotdot_chmod")) {
        /* chmod of "$TMPDIR/../../…<target>": a path that starts in its own folder and climbs out by name. */
        const char *tmp = temporary_folder();
        int used = snprintf(path, sizeof path, "%s", tmp);
        for (const char *c = tmp; *c && used > 0 && (size_t)used < sizeof path; c++)
            if (*c == '/') used += snprintf(path + used, sizeof path - (size_t)used, "/..");
        if (used < 0 || (size_t)used >= sizeof path || join(symbolic, sizeof symbolic, path, target) != 0) {
            errno = ENAMETOOLONG;
            return -1;
        }
        return chmod(symbolic, 0777);
    } else if (IS("meta_setxattr")) {
        /* An extended attribute on the target: data beside the file, for a later reader to trust. */
        return setxattr(target, "user.graft", "corpus", 6, 0);
    } else if (IS("meta_lsetxattr")) {
        /* The same through lsetxattr (the target is no link, so it lands on the file). */
        return lsetxattr(target, "user.graft", "corpus", 6, 0);
    } else if (IS("meta_fsetxattr_readonly")) {
        /* fsetxattr on a descriptor opened only for reading. */
        if ((fd = open(target, O_RDONLY | O_CLOEXEC)) < 0) return -1;
        result = fsetxattr(fd, "user.graft", "corpus", 6, 0);
        quietly_close(fd);
        return result;
    } else if (IS("meta_removexattr")) {
        /* Removes user.graft from the target (setting it first when it is not there, so that there is something to
         * remove; a test that set it itself sees only the removal). */
        if (getxattr(target, "user.graft", NULL, 0) < 0 && errno == ENODATA) {
            int set = setxattr(target, "user.graft", "corpus", 6, 0); /* the removal answers */
            (void)set;
        }
        return removexattr(target, "user.graft");
    } else if (IS("meta_setxattrat")) {
        /* setxattrat (Linux 6.13): the attribute calls' new spelling. */
        return (int)RAW(NR_SETXATTRAT, AT_FDCWD, target, 0, "user.graft", &value, sizeof value);
    } else if (IS("meta_setxattrat_dirfd")) {
        /* setxattrat relative to a descriptor of the target's folder. */
        const char *name = split(target, folder, sizeof folder);
        if ((fd = open(folder, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) return -1;
        result = (int)RAW(NR_SETXATTRAT, fd, name, 0, "user.graft", &value, sizeof value);
        quietly_close(fd);
        return result;
    } else if (IS("meta_acl")) {
        return set_acl_like_mode(target);
    } else if (IS("meta_file_setattr")) {
        /* file_setattr (Linux 6.17): the file's flags (immutable, append-only, …) and project, by path. Writes back
         * what file_getattr read (zeros when it could not), less the flag only the kernel sets. */
        struct hostile_file_attr attributes = {0};
        if (RAW(NR_FILE_GETATTR, AT_FDCWD, target, &attributes, sizeof attributes, 0) != 0)
            memset(&attributes, 0, sizeof attributes);
        attributes.fa_xflags &= ~(uint64_t)0x80000000; /* FS_XFLAG_HASATTR */
        attributes.fa_nextents = 0;
        return (int)RAW(NR_FILE_SETATTR, AT_FDCWD, target, &attributes, sizeof attributes, 0);
    } else if (IS("meta_chown")) {
        /* chown to its own user and group: no change, but a filter must not tell "no change" from "change". */
        return chown(target, getuid(), getgid());
    } else if (IS("meta_lchown")) {
        return lchown(target, getuid(), getgid());
    } else if (IS("meta_utimes")) {
        /* utimes: set the times back, to hide that it touched the file. */
        return utimes(target, old_times);
    } else if (IS("meta_truncate")) {
        /* truncate to its own size: the content stays, the times change. */
        struct stat information;
        if (stat(target, &information) != 0) return -1;
        return truncate(target, information.st_size);
    } else if (IS("meta_hardlink")) {
        /* A hard link in its own folder ($TMPDIR/hl), then chmod of the link: the same inode under its own name. */
        if (join(path, sizeof path, temporary_folder(), "hl") != 0) return -1;
        unlink(path);
        if (link(target, path) != 0) return -1;
        result = chmod(path, 0777);
        int saved = errno;
        unlink(path);
        errno = saved;
        return result;
    } else if (IS("meta_race")) {
        return race_chmod(target, detail, size);
    } else if (IS("meta_fchmod_readonly")) {
        /* fchmod of a descriptor the plugin may hold, opened only to read (the test grants reading its folder). */
        if ((fd = open(target, O_RDONLY | O_CLOEXEC)) < 0) return -1;
        result = fchmod(fd, 0777);
        quietly_close(fd);
        return result;
    } else if (IS("meta_futimens_readonly")) {
        if ((fd = open(target, O_RDONLY | O_CLOEXEC)) < 0) return -1;
        result = futimens(fd, times);
        quietly_close(fd);
        return result;
    } else if (IS("own_fchmod") || IS("own_futimens") || IS("own_chmod")) {
        /* Must keep working: a plugin changing its own file ($TMPDIR/own-file, made 0644), checked with fstat. */
        struct stat information;
        if ((fd = own_file("own-file", 0644, path, sizeof path)) < 0) return -1;
        result = IS("own_fchmod") ? fchmod(fd, 0600) : IS("own_chmod") ? chmod(path, 0600) : futimens(fd, times);
        if (result == 0 && fstat(fd, &information) != 0) result = -1;
        quietly_close(fd);
        if (result != 0) return -1;
        if (IS("own_futimens") ? information.st_mtim.tv_sec != FIXED_TIME : (information.st_mode & 07777) != 0600) {
            /* The call said yes and nothing changed: a sandbox that fakes success. */
            snprintf(detail, size, "unchanged: mode %04o, mtime %lld", (unsigned)(information.st_mode & 07777),
                     (long long)information.st_mtim.tv_sec);
            errno = EIO;
            return -1;
        }
        if (IS("own_futimens"))
            snprintf(detail, size, "mtime %lld", (long long)information.st_mtim.tv_sec);
        else
            snprintf(detail, size, "mode %04o", (unsigned)(information.st_mode & 07777));
        return 0;
    }
    return NOT_MINE;
}

/* ---- 2. Unix sockets and IPC outside the child ---------------------------------------------------------------
 * `target` is the path of a Unix socket the test binds (an abstract name, for unix_abstract*), or a System V id or
 * key the test made. What Landlock scopes (abstract names, ABI 6) must hold for every spelling; named sockets and
 * System V and POSIX IPC need the filter, or namespaces of their own. */

static socklen_t unix_address(struct sockaddr_un *address, const char *target, bool abstract) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    size_t length = strlen(target), room = sizeof address->sun_path - (abstract ? 1 : 0);
    if (length >= room) length = room - 1;
    memcpy(address->sun_path + (abstract ? 1 : 0), target, length);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length + 1); /* with the NUL in front, or after */
}

/* A socket of `type` connected to `target` (abstract or not) that says hi and hears the answer. */
static int unix_connect(int type, const char *target, bool abstract, char *detail, size_t size) {
    struct sockaddr_un address;
    socklen_t length = unix_address(&address, target, abstract);
    int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&address, length) != 0) {
        quietly_close(fd);
        return -1;
    }
    hear(fd, "hi\n", detail, size);
    close(fd);
    return 0;
}

static int unix_send(const char *target, bool abstract, bool connected, char *detail, size_t size) {
    struct sockaddr_un address;
    socklen_t length = unix_address(&address, target, abstract);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    ssize_t sent = connected ? (connect(fd, (struct sockaddr *)&address, length) == 0 ? send(fd, "hi\n", 3, 0) : -1)
                             : sendto(fd, "hi\n", 3, 0, (struct sockaddr *)&address, length);
    quietly_close(fd);
    if (sent < 0) return -1;
    snprintf(detail, size, "sent %zd bytes", sent);
    return 0;
}

static int perform_ipc(const char *act, const char *target, char *detail, size_t size) {
    const char *name = target[0] == '/' ? target : "/graft-corpus";
    int id, fd;
    if (IS("unix_dgram_send")) {
        /* A datagram to a named socket: no connect for a filter to watch. */
        return unix_send(target, false, false, detail, size);
    } else if (IS("unix_dgram_connect")) {
        /* The same, connecting the datagram socket first. */
        return unix_send(target, false, true, detail, size);
    } else if (IS("unix_abstract_dgram")) {
        /* A datagram to an abstract name (no file at all, so no file rule can stop it). */
        return unix_send(target, true, false, detail, size);
    } else if (IS("unix_socketpair_send")) {
        /* sendmsg from one end of its own socketpair, addressed to the target and carrying a descriptor (the other
         * end): a socket it made itself, that no socket() or connect() ever pointed outside. */
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair) != 0) return -1;
        struct sockaddr_un address;
        socklen_t length = unix_address(&address, target, false);
        char words[] = "hi\n";
        struct iovec part = {words, 3};
        union {
            char bytes[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } control;
        memset(&control, 0, sizeof control);
        struct msghdr message = {.msg_name = &address, .msg_namelen = length, .msg_iov = &part, .msg_iovlen = 1,
                                 .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &pair[1], sizeof(int));
        ssize_t sent = sendmsg(pair[0], &message, 0);
        quietly_close(pair[0]);
        quietly_close(pair[1]);
        if (sent < 0) return -1;
        snprintf(detail, size, "sent %zd bytes and a descriptor", sent);
        return 0;
    } else if (IS("unix_abstract")) {
        /* connect to an abstract name (target, without its leading NUL): a session bus, an X server, … */
        return unix_connect(SOCK_STREAM, target, true, detail, size);
    } else if (IS("unix_seqpacket")) {
        /* connect with SOCK_SEQPACKET: a rule written for SOCK_STREAM misses it. */
        return unix_connect(SOCK_SEQPACKET, target, false, detail, size);
    } else if (IS("unix_bind_abstract")) {
        /* bind and listen on the abstract name `target`: be the server others reach by that name. */
        struct sockaddr_un address;
        socklen_t length = unix_address(&address, target, true);
        if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) return -1;
        int result = bind(fd, (struct sockaddr *)&address, length) == 0 ? listen(fd, 1) : -1;
        quietly_close(fd);
        if (result == 0) snprintf(detail, size, "listened on @%s", target);
        return result;
    } else if (IS("ipc_msgget")) {
        /* A System V message queue, left behind: it outlives the process, in the IPC namespace it runs in. */
        struct {
            long type;
            char text[8];
        } message = {1, "corpus"};
        if ((id = msgget(IPC_PRIVATE, IPC_CREAT | 0600)) < 0) return -1;
        if (msgsnd(id, &message, sizeof message.text, IPC_NOWAIT) != 0) return -1;
        snprintf(detail, size, "id %d", id);
        return 0;
    } else if (IS("ipc_msgsnd")) {
        /* A message to the queue whose id is `target`, one the test made. */
        struct {
            long type;
            char text[8];
        } message = {1, "corpus"};
        if (msgsnd(atoi(target), &message, sizeof message.text, IPC_NOWAIT) != 0) return -1;
        snprintf(detail, size, "sent to %d", atoi(target));
        return 0;
    } else if (IS("ipc_shmget")) {
        /* A System V shared memory segment of 4 KiB, left behind. */
        if ((id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600)) < 0) return -1;
        snprintf(detail, size, "id %d", id);
        return 0;
    } else if (IS("ipc_shmget_key")) {
        /* Looks up the segment with the key `target` (decimal or 0x…): how one finds another's segment. */
        if ((id = shmget((key_t)strtol(target, NULL, 0), 0, 0)) < 0) return -1;
        snprintf(detail, size, "id %d", id);
        return 0;
    } else if (IS("ipc_semget")) {
        /* A System V semaphore set, left behind. */
        if ((id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600)) < 0) return -1;
        snprintf(detail, size, "id %d", id);
        return 0;
    } else if (IS("ipc_shmat")) {
        /* Attaches the segment whose id is `target` (one the test made) and reads its first bytes. */
        const char *memory = shmat(atoi(target), NULL, SHM_RDONLY);
        if (memory == (const char *)-1) return -1;
        size_t length = 0;
        while (length < 64 && length < size - 1 && memory[length] >= ' ' && memory[length] <= '~') length++;
        memcpy(detail, memory, length);
        detail[length] = '\0';
        shmdt(memory);
        return 0;
    } else if (IS("ipc_mq_open")) {
        /* A POSIX message queue (/graft-corpus, or `target` when it starts with a slash), left behind. */
        mqd_t queue = mq_open(name, O_CREAT | O_RDWR | O_CLOEXEC, 0600, NULL);
        if (queue == (mqd_t)-1) return -1;
        mq_close(queue);
        snprintf(detail, size, "%s", name);
        return 0;
    } else if (IS("ipc_shm_open")) {
        /* A POSIX shared memory object (/dev/shm/graft-corpus, or `target`), left behind. */
        if ((fd = shm_open(name, O_CREAT | O_RDWR | O_CLOEXEC, 0600)) < 0) return -1;
        close(fd);
        snprintf(detail, size, "%s", name);
        return 0;
    }
    return NOT_MINE;
}

/* ---- 3. the network around a grant ---------------------------------------------------------------------------
 * `target` is a TCP port on 127.0.0.1 (and ::1) that the test listens on; the plugin may be granted another. A
 * grant of "connect to port N" must not be widened by another way to connect, another protocol or family. */

/* A TCP socket (with `protocol`: 0, or MPTCP) that reaches 127.0.0.1:`port` by `how`, then hears the server. */
enum reach { BY_SENDTO_FASTOPEN, BY_SENDMSG_FASTOPEN, BY_FASTOPEN_OPTION };

static int tcp_reach(int protocol, enum reach how, const char *port, char *detail, size_t size) {
    struct sockaddr_in address = loopback4(port);
    char words[] = "hi\n";
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, protocol), one = 1;
    if (fd < 0) return -1;
    ssize_t result;
    if (how == BY_SENDTO_FASTOPEN) {
        /* sendto with MSG_FASTOPEN connects and sends in one call: no connect() at all. */
        result = sendto(fd, words, 3, MSG_FASTOPEN, (struct sockaddr *)&address, sizeof address);
    } else if (how == BY_SENDMSG_FASTOPEN) {
        struct iovec part = {words, 3};
        struct msghdr message = {.msg_name = &address, .msg_namelen = sizeof address, .msg_iov = &part, .msg_iovlen = 1};
        result = sendmsg(fd, &message, MSG_FASTOPEN);
    } else {
        /* TCP_FASTOPEN_CONNECT: connect() returns at once and the handshake waits for the first write. */
        result = setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof one);
        if (result == 0) result = connect(fd, (struct sockaddr *)&address, sizeof address);
        if (result == 0) result = write(fd, words, 3);
    }
    if (result < 0) {
        quietly_close(fd);
        return -1;
    }
    hear(fd, NULL, detail, size);
    close(fd);
    return 0;
}

/* An ICMP echo request to 127.0.0.1 on `fd` (a raw socket must carry its own checksum; a ping socket's kernel
 * writes it). */
static int echo_request(int fd) {
    struct icmphdr echo = {.type = ICMP_ECHO};
    echo.un.echo.id = htons((uint16_t)getpid());
    echo.un.echo.sequence = htons(1);
    uint16_t words[sizeof echo / 2];
    uint32_t sum = 0;
    memcpy(words, &echo, sizeof echo);
    for (size_t i = 0; i < sizeof echo / 2; i++) sum += words[i];
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    echo.checksum = (uint16_t)~sum;
    struct sockaddr_in to = loopback4("0");
    return sendto(fd, &echo, sizeof echo, 0, (struct sockaddr *)&to, sizeof to) < 0 ? -1 : 0;
}

/* Counts the sockets listed in /proc/self/net/<name>; sets *seen when `port` (":115C" for 4444) is a local or remote
 * port there. -1 when the file cannot be read. */
static int count_sockets(const char *name, const char *port, bool *seen) {
    char path[64], line[512], local[128], remote[128];
    snprintf(path, sizeof path, "/proc/self/net/%s", name);
    FILE *file = fopen(path, "re");
    if (!file) return -1;
    int count = -1; /* the first line names the columns */
    while (fgets(line, sizeof line, file)) {
        count++;
        if (count > 0 && port && sscanf(line, "%*s %127s %127s", local, remote) == 2) {
            const char *mine = strrchr(local, ':'), *theirs = strrchr(remote, ':');
            if ((mine && strcmp(mine, port) == 0) || (theirs && strcmp(theirs, port) == 0)) *seen = true;
        }
    }
    fclose(file);
    return count < 0 ? 0 : count;
}

static int perform_network(const char *act, const char *target, char *detail, size_t size) {
    int fd, result;
    if (IS("net_fastopen")) {
        return tcp_reach(0, BY_SENDTO_FASTOPEN, target, detail, size);
    } else if (IS("net_fastopen_mptcp")) {
        /* Multipath TCP: IPPROTO_MPTCP, a protocol a rule for TCP (Landlock's included) may not know. */
        return tcp_reach(IPPROTO_MPTCP, BY_SENDTO_FASTOPEN, target, detail, size);
    } else if (IS("net_mptcp")) {
        /* Multipath TCP with a plain connect. */
        struct sockaddr_in address = loopback4(target);
        if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP)) < 0) return -1;
        if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
            quietly_close(fd);
            return -1;
        }
        hear(fd, "hi\n", detail, size);
        close(fd);
        return 0;
    } else if (IS("net_sendmsg_fastopen")) {
        return tcp_reach(0, BY_SENDMSG_FASTOPEN, target, detail, size);
    } else if (IS("net_fastopen_connect_option")) {
        return tcp_reach(0, BY_FASTOPEN_OPTION, target, detail, size);
    } else if (IS("net_ipv6") || IS("net_ipv4_mapped")) {
        /* The same port over IPv6: [::1], or 127.0.0.1 spelled as the IPv6 address ::ffff:127.0.0.1. */
        struct sockaddr_in6 address = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)atoi(target))};
        if (IS("net_ipv6"))
            address.sin6_addr = in6addr_loopback;
        else
            inet_pton(AF_INET6, "::ffff:127.0.0.1", &address.sin6_addr);
        if ((fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) return -1;
        if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
            quietly_close(fd);
            return -1;
        }
        hear(fd, "hi\n", detail, size);
        close(fd);
        return 0;
    } else if (IS("net_udp_connect")) {
        /* UDP connect, then send: the address is given to connect, not to sendto. */
        struct sockaddr_in address = loopback4(target);
        if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) return -1;
        result = connect(fd, (struct sockaddr *)&address, sizeof address) == 0 && send(fd, "hi\n", 3, 0) == 3 ? 0 : -1;
        if (result == 0) hear(fd, NULL, detail, size);
        quietly_close(fd);
        return result;
    } else if (IS("net_raw") || IS("net_ping")) {
        /* An ICMP echo to 127.0.0.1: from a raw socket (craft any packet), or from a ping socket (unprivileged). */
        if ((fd = socket(AF_INET, (IS("net_raw") ? SOCK_RAW : SOCK_DGRAM) | SOCK_CLOEXEC, IPPROTO_ICMP)) < 0) return -1;
        result = echo_request(fd);
        quietly_close(fd);
        if (result == 0) snprintf(detail, size, "echo sent");
        return result;
    } else if (IS("net_netlink")) {
        /* A route netlink socket asking for every network interface: the machine's network, and the way to change
         * it. */
        struct {
            struct nlmsghdr header;
            struct rtgenmsg body;
        } request = {{.nlmsg_len = sizeof request, .nlmsg_type = RTM_GETLINK, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
                      .nlmsg_seq = 1},
                     {.rtgen_family = AF_UNSPEC}};
        char answer[8192];
        if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) < 0) return -1;
        struct pollfd ready = {.fd = fd, .events = POLLIN};
        ssize_t n = send(fd, &request, sizeof request, 0);
        if (n >= 0) n = poll(&ready, 1, 2000) > 0 ? recv(fd, answer, sizeof answer, 0) : (errno = ETIMEDOUT, -1);
        quietly_close(fd);
        if (n < 0) return -1;
        snprintf(detail, size, "%zd bytes about its interfaces", n);
        return 0;
    } else if (IS("net_packet") || IS("net_vsock") || IS("net_sctp") || IS("net_xdp")) {
        /* Sockets only (nothing is sent): every frame on every interface (AF_PACKET); the hypervisor (AF_VSOCK: a
         * virtual machine's way to its host); SCTP, which Landlock's TCP rules do not cover; AF_XDP. */
        int family = IS("net_packet") ? AF_PACKET : IS("net_vsock") ? AF_VSOCK : IS("net_sctp") ? AF_INET : AF_XDP;
        int type = IS("net_packet") || IS("net_xdp") ? SOCK_RAW : SOCK_STREAM;
        int protocol = IS("net_packet") ? htons(ETH_P_ALL) : IS("net_sctp") ? IPPROTO_SCTP : 0;
        if ((fd = socket(family, type | SOCK_CLOEXEC, protocol)) < 0) return -1;
        close(fd);
        snprintf(detail, size, "socket");
        return 0;
    } else if (IS("net_alg")) {
        /* The kernel's crypto API as a socket (AF_ALG), bound to sha256: a favourite of kernel exploits. */
        struct sockaddr_alg address = {.salg_family = AF_ALG, .salg_type = "hash", .salg_name = "sha256"};
        if ((fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) < 0) return -1;
        result = bind(fd, (struct sockaddr *)&address, sizeof address);
        quietly_close(fd);
        if (result == 0) snprintf(detail, size, "bound to sha256");
        return result;
    } else if (IS("net_bind")) {
        /* bind 127.0.0.1:0 and listen: a server of its own, for whoever finds the port. */
        struct sockaddr_in address = loopback4("0");
        socklen_t length = sizeof address;
        if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) return -1;
        result = bind(fd, (struct sockaddr *)&address, sizeof address) == 0 && listen(fd, 1) == 0 ? 0 : -1;
        if (result == 0) result = getsockname(fd, (struct sockaddr *)&address, &length);
        quietly_close(fd);
        if (result == 0) snprintf(detail, size, "listened on port %d", ntohs(address.sin_port));
        return result;
    } else if (IS("net_proc_net")) {
        /* /proc/self/net/{tcp,tcp6,unix}: every socket of the network namespace, and who talks to whom. */
        char port[16];
        bool seen = false;
        snprintf(port, sizeof port, ":%04X", (unsigned)atoi(target) & 0xffff);
        int tcp = count_sockets("tcp", port, &seen), saved = errno;
        int tcp6 = count_sockets("tcp6", port, &seen);
        if (tcp6 < 0) saved = errno;
        int unix_sockets = count_sockets("unix", NULL, &seen);
        if (unix_sockets < 0) saved = errno;
        if (tcp < 0 && tcp6 < 0 && unix_sockets < 0) {
            errno = saved;
            return -1;
        }
        snprintf(detail, size, "%d sockets (tcp %d, tcp6 %d, unix %d)%s",
                 (tcp > 0 ? tcp : 0) + (tcp6 > 0 ? tcp6 : 0) + (unix_sockets > 0 ? unix_sockets : 0), tcp, tcp6,
                 unix_sockets, seen ? " port-seen" : "");
        return 0;
    }
    return NOT_MINE;
}

/* ---- 4. foreign ABIs and the kernel's newest calls -----------------------------------------------------------
 * A filter that lists allowed numbers must also check the ABI (an i386 or x32 number means another call) and refuse
 * every number it does not know, the newest included. x86_64 only: elsewhere each of these answers ENOSYS. Each
 * new_<name> act makes its call by number with harmless arguments, on things of its own. */

#ifdef __x86_64__
/* A system call through the i386 gate (int $0x80): the number and arguments are i386's, whatever the process is. */
static long int80(long number, long first, long second) {
    long result = number;
    __asm__ __volatile__("int $0x80" : "+a"(result) : "b"(first), "c"(second) : "r8", "r9", "r10", "r11", "memory", "cc");
    return (int)result; /* the i386 answer is eax */
}

static int from_int80(long result) {
    if (result < 0) {
        errno = (int)-result;
        return -1;
    }
    return 0;
}

/* A file of its own in $TMPDIR, holding a few bytes, for the calls that need one. */
static int scratch_file(char *path, size_t size) {
    int fd = own_file("own-new", 0600, path, size);
    if (fd < 0) return -1;
    ssize_t n = write(fd, "corpus\n", 7);
    close(fd);
    return n == 7 ? 0 : -1;
}

static int perform_abi(const char *act, const char *target, char *detail, size_t size) {
    char path[PATH_MAX];
    struct hostile_xattr_args value = {.value = (uint64_t)(uintptr_t)"corpus", .size = 6};
    long result;
    int fd;
    if (IS("abi_int80")) {
        /* getpid as i386 number 20 (x86_64's 20 is writev). */
        if (from_int80(result = int80(20, 0, 0)) != 0) return -1;
        snprintf(detail, size, "pid %ld", result);
        return 0;
    } else if (IS("abi_int80_kill_parent")) {
        /* kill(parent, 0) as i386 number 37 (x86_64's 37 is alarm): a filter that reads numbers without the ABI
         * allows it. */
        return from_int80(int80(37, getppid(), 0));
    } else if (IS("abi_int80_open")) {
        /* open(target) as i386 number 5 (x86_64's 5 is fstat), the path in memory below 4 GiB, then read it. */
        char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        if (low == MAP_FAILED) return -1;
        snprintf(low, 4096, "%s", target);
        result = int80(5, (long)(uintptr_t)low, O_RDONLY);
        munmap(low, 4096);
        if (from_int80(result) != 0) return -1;
        ssize_t n = read((int)result, detail, size > 64 ? 64 : size - 1);
        close((int)result);
        detail[n > 0 ? n : 0] = '\0';
        detail[strcspn(detail, "\n")] = '\0';
        return 0;
    } else if (IS("abi_x32")) {
        /* getpid through the x32 ABI (bit 30 set). */
        if ((result = syscall(0x40000000 | 39)) < 0) return -1;
        snprintf(detail, size, "pid %ld", result);
        return 0;
    } else if (IS("abi_unknown")) {
        /* A number no kernel has given out yet. */
        return syscall(1000) < 0 ? -1 : 0;
    } else if (IS("new_listmount")) {
        /* listmount (6.8): the ids of every mount under the root. */
        struct {
            uint32_t size, spare;
            uint64_t mnt_id, param;
        } request = {24, 0, UINT64_MAX /* LSMT_ROOT */, 0};
        uint64_t ids[256];
        if ((result = syscall(458, &request, ids, 256, 0)) < 0) return -1;
        snprintf(detail, size, "%ld mounts", result);
        return 0;
    } else if (IS("new_statmount")) {
        /* statmount (6.8) of the root's mount, named by its unique id (statx's STATX_MNT_ID_UNIQUE, read from the
         * kernel's struct statx: the C library's has no field for it yet). */
        uint64_t information[32] = {0}, answer[64];
        if (syscall(SYS_statx, AT_FDCWD, "/", 0, 0x4000U, information) != 0) return -1;
        struct {
            uint32_t size, spare;
            uint64_t mnt_id, param;
        } request = {24, 0, information[0x90 / 8], 0x1 | 0x2 /* STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC */};
        if (syscall(457, &request, answer, sizeof answer, 0) != 0) return -1;
        snprintf(detail, size, "mount %llu", (unsigned long long)information[0x90 / 8]);
        return 0;
    } else if (IS("new_lsm_list_modules")) {
        /* lsm_list_modules (6.8): which security modules run. */
        uint64_t ids[32];
        uint32_t length = sizeof ids;
        if ((result = syscall(461, ids, &length, 0)) < 0) return -1;
        snprintf(detail, size, "%ld modules", result);
        return 0;
    } else if (IS("new_lsm_get_self_attr")) {
        /* lsm_get_self_attr (6.8): its own security context (LSM_ATTR_CURRENT). */
        uint64_t context[128];
        uint32_t length = sizeof context;
        if ((result = syscall(459, 100, context, &length, 0)) < 0) return -1;
        snprintf(detail, size, "%ld attributes", result);
        return 0;
    } else if (IS("new_mseal")) {
        /* mseal (6.10) of a page it maps itself: sealed, it can never be unmapped or changed. */
        void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED) return -1;
        if (syscall(462, page, 4096, 0) != 0) {
            int saved = errno;
            munmap(page, 4096);
            errno = saved;
            return -1;
        }
        return 0;
    } else if (IS("new_setxattrat") || IS("new_getxattrat") || IS("new_listxattrat") || IS("new_removexattrat")) {
        /* The *xattrat calls (6.13) on a file of its own; the attribute is set first for those that read it. */
        char buffer[64] = "";
        struct hostile_xattr_args into = {.value = (uint64_t)(uintptr_t)buffer, .size = sizeof buffer - 1};
        if (scratch_file(path, sizeof path) != 0) return -1;
        if (!IS("new_setxattrat") && setxattr(path, "user.graft", "corpus", 6, 0) != 0) return -1;
        if (IS("new_setxattrat")) result = syscall(463, AT_FDCWD, path, 0, "user.graft", &value, sizeof value);
        else if (IS("new_getxattrat")) result = syscall(464, AT_FDCWD, path, 0, "user.graft", &into, sizeof into);
        else if (IS("new_listxattrat")) result = syscall(465, AT_FDCWD, path, 0, buffer, sizeof buffer - 1);
        else result = syscall(466, AT_FDCWD, path, 0, "user.graft");
        if (result < 0) return -1;
        snprintf(detail, size, "%s", IS("new_getxattrat") || IS("new_listxattrat") ? buffer : "");
        return 0;
    } else if (IS("new_open_tree_attr")) {
        /* open_tree_attr (6.15) of $TMPDIR, without cloning: a descriptor for the mount API. */
        if ((fd = (int)syscall(467, AT_FDCWD, temporary_folder(), O_CLOEXEC, NULL, 0)) < 0) return -1;
        close(fd);
        return 0;
    } else if (IS("new_file_getattr") || IS("new_file_setattr")) {
        /* file_getattr and file_setattr (6.17) on a file of its own: its flags, written back unchanged. */
        struct hostile_file_attr attributes = {0};
        if (scratch_file(path, sizeof path) != 0) return -1;
        if (syscall(468, AT_FDCWD, path, &attributes, sizeof attributes, 0) != 0) return -1;
        attributes.fa_xflags &= ~(uint64_t)0x80000000; /* FS_XFLAG_HASATTR, which only the kernel sets */
        attributes.fa_nextents = 0;
        if (IS("new_file_setattr") && syscall(469, AT_FDCWD, path, &attributes, sizeof attributes, 0) != 0) return -1;
        snprintf(detail, size, "xflags 0x%llx", (unsigned long long)attributes.fa_xflags);
        return 0;
    } else if (IS("new_fchmodat2")) {
        /* fchmodat2 (6.6) on a file of its own. */
        if (scratch_file(path, sizeof path) != 0) return -1;
        return syscall(452, AT_FDCWD, path, 0600, 0) != 0 ? -1 : 0;
    } else if (IS("new_cachestat")) {
        /* cachestat (6.5): how much of a file of its own is in the page cache (a side channel on others' files). */
        struct {
            uint64_t offset, length;
        } range = {0, 0};
        uint64_t counts[5];
        if (scratch_file(path, sizeof path) != 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) return -1;
        result = syscall(451, fd, &range, counts, 0);
        quietly_close(fd);
        if (result != 0) return -1;
        snprintf(detail, size, "%llu pages cached", (unsigned long long)counts[0]);
        return 0;
    } else if (IS("new_futex_waitv")) {
        /* futex_waitv (5.16) on a word of its own, with a deadline already past: ETIMEDOUT is the call working. */
        uint32_t word = 0;
        struct {
            uint64_t value, address;
            uint32_t flags, reserved;
        } waiter = {0, (uint64_t)(uintptr_t)&word, 0x02 | 0x80 /* FUTEX2_SIZE_U32 | FUTEX2_PRIVATE */, 0};
        struct timespec deadline;
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        if (syscall(449, &waiter, 1, 0, &deadline, CLOCK_MONOTONIC) < 0 && errno != ETIMEDOUT) return -1;
        snprintf(detail, size, "timed out");
        return 0;
    } else if (IS("new_futex_wake")) {
        /* futex_wake (6.7) on a word of its own that nobody waits on. */
        uint32_t word = 0;
        if ((result = syscall(454, &word, UINT32_MAX /* the mask, as wide as the word */, 1, 0x02 | 0x80)) < 0) return -1;
        snprintf(detail, size, "woke %ld", result);
        return 0;
    } else if (IS("new_map_shadow_stack")) {
        /* map_shadow_stack (6.6): a page of shadow stack (EOPNOTSUPP without CET user shadow stacks). */
        void *stack = (void *)syscall(453, 0, 4096, 0);
        if (stack == (void *)-1) return -1;
        munmap(stack, 4096);
        return 0;
    } else if (IS("new_memfd_secret")) {
        /* memfd_secret (5.14): memory even the kernel's direct map does not show. */
        if ((fd = (int)syscall(447, 0)) < 0) return -1;
        close(fd);
        return 0;
    } else if (IS("new_process_mrelease")) {
        /* process_mrelease (5.15) of a child of its own, just sent SIGKILL: dying, its memory is freed at once.
         * A child that finished dying first answers ESRCH, so up to 20 children are tried. Where it cannot start a
         * child, of itself (which answers EINVAL: not dying). */
        result = -1;
        for (int attempt = 0; attempt < 20 && result != 0; attempt++) {
            pid_t child = fork();
            if (child == 0)
                for (;;) pause();
            int pidfd = (int)syscall(SYS_pidfd_open, child > 0 ? child : getpid(), 0);
            if (child > 0) kill(child, SIGKILL);
            result = pidfd < 0 ? -1 : syscall(SYS_process_mrelease, pidfd, 0);
            int saved = errno;
            quietly_close(pidfd);
            if (child > 0) waitpid(child, NULL, 0);
            errno = saved;
            if (child < 0 || (result != 0 && errno != ESRCH)) break;
        }
        if (result != 0) return -1;
        snprintf(detail, size, "of a child killed");
        return 0;
    } else if (IS("new_landlock")) {
        /* landlock_create_ruleset (5.13): a ruleset of its own (handling execution), and the ABI version. */
        uint64_t handled = 1; /* LANDLOCK_ACCESS_FS_EXECUTE */
        long version = syscall(444, NULL, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */);
        if ((fd = (int)syscall(444, &handled, sizeof handled, 0)) < 0) return -1;
        close(fd);
        snprintf(detail, size, "abi %ld", version);
        return 0;
    }
    return NOT_MINE;
}
#else
static int perform_abi(const char *act, const char *target, char *detail, size_t size) {
    (void)target, (void)detail, (void)size;
    if (strncmp(act, "abi_", 4) != 0 && strncmp(act, "new_", 4) != 0) return NOT_MINE;
    errno = ENOSYS;
    return -1;
}
#endif

/* ---- 5. seeing the machine -----------------------------------------------------------------------------------
 * `target` is a process id or a path the test gives. What a plugin sees of other processes, files and users is
 * what it can aim at, or sell. */

/* Reads the start of a small file into `buffer` (NUL-terminated); its length, or -1. */
static ssize_t read_start(const char *path, char *buffer, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buffer, size - 1);
    quietly_close(fd);
    buffer[n > 0 ? n : 0] = '\0';
    return n;
}

static int perform_seeing(const char *act, const char *target, char *detail, size_t size) {
    char path[PATH_MAX], text[4096];
    int fd;
    if (IS("see_proc_pid")) {
        /* Whether process `target` exists, and whose it is, from /proc. */
        struct stat information;
        snprintf(path, sizeof path, "/proc/%s", target);
        if (stat(path, &information) != 0) return -1;
        snprintf(detail, size, "uid %u", (unsigned)information.st_uid);
        return 0;
    } else if (IS("see_proc_cmdline")) {
        /* What process `target` runs, with its arguments (a password given on a command line, say). */
        snprintf(path, sizeof path, "/proc/%s/cmdline", target);
        ssize_t n = read_start(path, text, size < sizeof text ? size : sizeof text);
        if (n < 0) return -1;
        for (ssize_t i = 0; i < n; i++)
            if (text[i] == '\0') text[i] = ' ';
        snprintf(detail, size, "%s", text);
        return 0;
    } else if (IS("see_proc_listing")) {
        /* Every process of the machine, from the listing of /proc. */
        DIR *listing = opendir("/proc");
        if (!listing) return -1;
        int count = 0;
        for (struct dirent *entry; (entry = readdir(listing));) count += entry->d_name[0] >= '0' && entry->d_name[0] <= '9';
        closedir(listing);
        snprintf(detail, size, "%d processes", count);
        return 0;
    } else if (IS("see_mountinfo")) {
        /* Every mount it sees, with the host's paths behind them. */
        FILE *file = fopen("/proc/self/mountinfo", "re");
        if (!file) return -1;
        int count = 0;
        while (fgets(text, sizeof text, file)) count++;
        fclose(file);
        snprintf(detail, size, "%d mounts", count);
        return 0;
    } else if (IS("see_inotify") || IS("see_inotify_own")) {
        /* A watch on `target` (or, as it must keep being able to, on its own $TMPDIR): who opens, reads and writes
         * it, and when. */
        if ((fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0) return -1;
        int watch = inotify_add_watch(fd, IS("see_inotify") ? target : temporary_folder(), IN_ALL_EVENTS);
        quietly_close(fd);
        if (watch < 0) return -1;
        snprintf(detail, size, "watch %d", watch);
        return 0;
    } else if (IS("see_dnotify")) {
        /* dnotify, the watch older than inotify: fcntl(F_NOTIFY) on a descriptor of the folder `target`. */
        if ((fd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) return -1;
        int watched = fcntl(fd, F_NOTIFY, DN_CREATE | DN_MULTISHOT);
        quietly_close(fd);
        return watched;
    } else if (IS("see_xattr")) {
        /* The extended attributes of a file it may not read, by its path (a download's origin URL, say). */
        char names[256];
        ssize_t listed = listxattr(target, names, sizeof names);
        if (listed < 0) return -1;
        snprintf(detail, size, "%zd bytes of names", listed);
        return 0;
    } else if (IS("see_fanotify")) {
        /* fanotify, the watch on a whole mount or file system (and, for content classes, the power to stall
         * others' opens). */
        if ((fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY)) < 0) return -1;
        close(fd);
        return 0;
    } else if (IS("see_fanotify_fid")) {
        /* The unprivileged fanotify (5.13: FAN_REPORT_FID, marks on inodes), watching `target`. */
        if ((fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_CLOEXEC, O_RDONLY)) < 0) return -1;
        int result = fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN | FAN_ACCESS | FAN_MODIFY | FAN_CLOSE, AT_FDCWD, target);
        quietly_close(fd);
        return result;
    } else if (IS("see_dmesg")) {
        /* The kernel's log (addresses, devices, other programs' crashes). */
        int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, text, sizeof text);
        if (n < 0) return -1;
        snprintf(detail, size, "%d bytes", n);
        return 0;
    } else if (IS("see_uid")) {
        /* Who it runs as: the Uid: and Gid: lines of /proc/self/status, and getuid(). */
        char uid[128] = "Uid: ?", gid[128] = "Gid: ?";
        FILE *file = fopen("/proc/self/status", "re");
        if (!file) return -1;
        while (fgets(text, sizeof text, file)) {
            text[strcspn(text, "\n")] = '\0';
            for (char *c = text; *c; c++)
                if (*c == '\t') *c = ' ';
            if (strncmp(text, "Uid:", 4) == 0) snprintf(uid, sizeof uid, "%.100s", text);
            if (strncmp(text, "Gid:", 4) == 0) snprintf(gid, sizeof gid, "%.100s", text);
        }
        fclose(file);
        snprintf(detail, size, "%s, %s, getuid %u", uid, gid, (unsigned)getuid());
        return 0;
    }
    return NOT_MINE;
}

/* ---- 6. processes and the kernel -----------------------------------------------------------------------------
 * No target unless said. Reaching the host process, making processes the host does not know of, and the kernel's
 * large attack surfaces (io_uring, BPF, perf, userfaultfd, keys, namespaces, mounts). */

/* A raw system call that starts a process, as fork does, whose child exits at once; the parent waits for it. */
static int started_and_waited(long pid, char *detail, size_t size) {
    if (pid == 0) syscall(SYS_exit_group, 0); /* the child: no C library exit, no atexit handlers */
    if (pid < 0) return -1;
    int status = 0;
    waitpid((pid_t)pid, &status, __WALL);
    snprintf(detail, size, "child %ld exited %d", pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}

/* vfork in a function of its own, with nothing live across it. */
static pid_t vforked(void) {
    pid_t pid = vfork();
    if (pid == 0) _exit(0);
    return pid;
}

/* An allow-all seccomp filter: harmless by itself, but a plugin's own filter (or listener) on top of the host's. */
static struct sock_filter allow_all[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
static const struct sock_fprog allow_all_program = {1, allow_all};

static int perform_processes(const char *act, const char *target, char *detail, size_t size) {
    long result;
    int fd;
    if (IS("proc_pidfd")) {
        /* A pidfd of the parent (the host): a handle to signal or wait on it, and to take its descriptors. */
        if ((fd = (int)syscall(SYS_pidfd_open, getppid(), 0)) < 0) return -1;
        close(fd);
        return 0;
    } else if (IS("proc_pidfd_getfd")) {
        /* pidfd_getfd: a copy of the parent's descriptor number `target` (0 when empty): its files and sockets. */
        if ((fd = (int)syscall(SYS_pidfd_open, getppid(), 0)) < 0) return -1;
        int copy = (int)syscall(SYS_pidfd_getfd, fd, atoi(target), 0);
        quietly_close(fd);
        if (copy < 0) return -1;
        close(copy);
        snprintf(detail, size, "took its descriptor %d", atoi(target));
        return 0;
    } else if (IS("proc_signal0_parent")) {
        /* Signal 0 to the parent: no signal, but it tells whether the host could be signalled. */
        return kill(getppid(), 0);
    } else if (IS("proc_tgkill_parent")) {
        /* The same by tgkill: another call number. */
        return (int)syscall(SYS_tgkill, getppid(), getppid(), 0);
    } else if (IS("proc_renice_parent")) {
        /* setpriority of the parent, to the priority it has (no change, but the power to slow the host down). */
        errno = 0;
        int priority = getpriority(PRIO_PROCESS, (id_t)getppid());
        if (priority == -1 && errno) return -1;
        return setpriority(PRIO_PROCESS, (id_t)getppid(), priority);
    } else if (IS("proc_renice_group")) {
        /* setpriority of its whole process group, the host's (no change, the power to slow every process in it). */
        errno = 0;
        int priority = getpriority(PRIO_PGRP, 0);
        if (priority == -1 && errno) return -1;
        return setpriority(PRIO_PGRP, 0, priority);
    } else if (IS("proc_ioprio_user")) {
        /* The I/O priority of every process of its user (ioprio_set, IOPRIO_WHO_USER = 3, to best effort 4). */
        return (int)syscall(SYS_ioprio_set, 3, 0, (2 << 13) | 4);
    } else if (IS("proc_setpgid")) {
        /* A process group of its own: out of the group the host would signal. */
        return setpgid(0, 0);
    } else if (IS("proc_unshare_user")) {
        /* A new user namespace, where it is root: the door to every namespaced privilege. (EINVAL in a process with
         * other threads, whatever the sandbox.) */
        return unshare(CLONE_NEWUSER);
    } else if (IS("proc_clone_newuser")) {
        /* A child in a new user namespace, which works in a threaded process too. */
        return started_and_waited(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, NULL, NULL, 0), detail, size);
    } else if (IS("proc_clone_process")) {
        /* clone without CLONE_THREAD: a process, by the raw call fork() is made of. */
        return started_and_waited(syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0), detail, size);
    } else if (IS("proc_clone3")) {
        /* clone3: its flags are in memory, where a seccomp filter cannot read them. */
        struct {
            uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
        } arguments = {.exit_signal = SIGCHLD};
        return started_and_waited(RAW(SYS_clone3, &arguments, sizeof arguments), detail, size);
    } else if (IS("proc_vfork")) {
        return started_and_waited(vforked(), detail, size);
    } else if (IS("proc_io_uring")) {
        /* io_uring: system calls done by the kernel from a ring, out of a filter's sight. */
        uint32_t parameters[30] = {0}; /* struct io_uring_params, 120 bytes, all zero */
        if ((fd = (int)syscall(SYS_io_uring_setup, 1, parameters)) < 0) return -1;
        close(fd);
        return 0;
    } else if (IS("proc_bpf")) {
        /* BPF_PROG_LOAD of the smallest program ("return 0"; an empty one is refused as invalid even to root). */
        struct bpf_insn program[] = {{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0}, {.code = BPF_JMP | BPF_EXIT}};
        union bpf_attr attributes;
        memset(&attributes, 0, sizeof attributes);
        attributes.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
        attributes.insn_cnt = 2;
        attributes.insns = (uint64_t)(uintptr_t)program;
        attributes.license = (uint64_t)(uintptr_t)"GPL";
        if ((fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &attributes, sizeof attributes)) < 0) return -1;
        close(fd);
        return 0;
    } else if (IS("proc_perf")) {
        /* perf_event_open on itself, user space only (the least perf allows); perf is also a side channel. */
        struct perf_event_attr attributes;
        memset(&attributes, 0, sizeof attributes);
        attributes.type = PERF_TYPE_SOFTWARE;
        attributes.size = sizeof attributes;
        attributes.config = PERF_COUNT_SW_TASK_CLOCK;
        attributes.disabled = 1;
        attributes.exclude_kernel = 1;
        attributes.exclude_hv = 1;
        if ((fd = (int)syscall(SYS_perf_event_open, &attributes, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)) < 0) return -1;
        close(fd);
        return 0;
    } else if (IS("proc_userfaultfd") || IS("proc_userfaultfd_user")) {
        /* userfaultfd: stall the kernel's own page faults at will, to widen a race (only faults from user space
         * with UFFD_USER_MODE_ONLY, which unprivileged users may get). */
        int flags = O_CLOEXEC | O_NONBLOCK | (IS("proc_userfaultfd_user") ? UFFD_USER_MODE_ONLY : 0);
        if ((fd = (int)syscall(SYS_userfaultfd, flags)) < 0) return -1;
        close(fd);
        return 0;
    } else if (IS("proc_userfaultfd_dev")) {
        /* The same through /dev/userfaultfd (6.1). */
        if ((fd = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC)) < 0) return -1;
        int handle = ioctl(fd, USERFAULTFD_IOC_NEW, O_CLOEXEC);
        quietly_close(fd);
        if (handle < 0) return -1;
        close(handle);
        return 0;
    } else if (IS("proc_add_key")) {
        /* A "user" key in its process keyring: the kernel's keyrings are shared by uid, not by sandbox. */
        if ((result = syscall(SYS_add_key, "user", "graft-corpus", "x", 1, -2 /* KEY_SPEC_PROCESS_KEYRING */)) < 0)
            return -1;
        snprintf(detail, size, "key %ld", result);
        return 0;
    } else if (IS("proc_keyctl_session")) {
        /* Lists the keys in its session keyring (the user's, and the host's, unless the sandbox gave it another). */
        int32_t keys[64];
        if ((result = syscall(SYS_keyctl, 11 /* KEYCTL_READ */, -3 /* KEY_SPEC_SESSION_KEYRING */, keys, sizeof keys)) < 0)
            return -1;
        snprintf(detail, size, "%ld keys", result / 4);
        return 0;
    } else if (IS("proc_personality")) {
        /* ADDR_NO_RANDOMIZE: no address randomisation for what it runs next (put back at once). */
        int old = personality(0xffffffff);
        if (personality(0x0040000) < 0) return -1;
        personality((unsigned long)old);
        return 0;
    } else if (IS("proc_prctl_dumpable")) {
        /* Not dumpable: the host can no longer read its /proc files or trace it (put back at once). */
        int old = prctl(PR_GET_DUMPABLE);
        if (prctl(PR_SET_DUMPABLE, 0) != 0) return -1;
        prctl(PR_SET_DUMPABLE, old);
        return 0;
    } else if (IS("proc_seccomp")) {
        /* A filter of its own (needs no_new_privs, which the sandbox sets: unsandboxed, EACCES is expected). */
        return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &allow_all_program);
    } else if (IS("proc_seccomp_listener")) {
        /* A filter with a user-space listener, by the seccomp call: a second supervisor beside the host's. */
        if ((fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &allow_all_program)) < 0)
            return -1;
        close(fd);
        return 0;
    } else if (IS("proc_setuid")) {
        /* Another user (only root may): the first step of changing identity. */
        return setuid(getuid() + 1);
    } else if (IS("proc_chroot")) {
        /* chroot into $TMPDIR: with a folder descriptor kept outside, the way out of its own root. */
        return chroot(temporary_folder());
    } else if (IS("proc_mount")) {
        /* A tmpfs mounted on $TMPDIR (detached again at once): mounts change what every path means. */
        if (mount("graft-corpus", temporary_folder(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=1m") != 0) return -1;
        umount2(temporary_folder(), MNT_DETACH);
        snprintf(detail, size, "mounted and detached");
        return 0;
    }
    return NOT_MINE;
}

/* ---- 7. resources: what a plugin takes, and what it leaves behind ---------------------------------------------
 * In $TMPDIR, or in $GRAFT_DATA_DIR when `target` starts with "data" (res_deep_tree, res_deep_mkdirat, res_fill).
 * What they leave is made to be hard to clean: deeper than PATH_MAX, without permissions, too many, too large. */

#define LONG_NAME_LENGTH 250

/* A chain of `count` folders under `parent`: `top`, then names of 250 'd's. Returns a descriptor of the last. */
static int make_chain(int parent, const char *top, int count) {
    char name[LONG_NAME_LENGTH + 1];
    memset(name, 'd', LONG_NAME_LENGTH);
    name[LONG_NAME_LENGTH] = '\0';
    int fd = dup(parent);
    for (int level = 0; fd >= 0 && level < count; level++) {
        const char *this = level == 0 ? top : name;
        int next = mkdirat(fd, this, 0700) == 0 ? openat(fd, this, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
        quietly_close(fd);
        fd = next;
    }
    return fd;
}

/* A tree deeper than PATH_MAX in a fresh folder "deep-XXXXXX" of `folder`, and a file at its bottom; by renaming
 * (two chains of 9, one moved under the other, again and again) or by mkdirat alone. Every call takes a folder
 * descriptor and a short name: no path is ever longer than PATH_MAX, only the tree. */
static int deep_tree(const char *folder, bool by_renaming, char *detail, size_t size) {
    char base[PATH_MAX], top[LONG_NAME_LENGTH + 1], other[LONG_NAME_LENGTH + 1], name[LONG_NAME_LENGTH + 1];
    memset(top, 'x', LONG_NAME_LENGTH);
    memset(other, 'y', LONG_NAME_LENGTH);
    memset(name, 'd', LONG_NAME_LENGTH);
    top[LONG_NAME_LENGTH] = other[LONG_NAME_LENGTH] = name[LONG_NAME_LENGTH] = '\0';
    if (!folder || join(base, sizeof base, folder, "deep-XXXXXX") != 0 || !mkdtemp(base)) return -1;
    int root = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC), levels = 0, fd;
    if (root < 0) return -1;
    size_t per_level = LONG_NAME_LENGTH + 1, prefix = strlen(base) + strlen("/file");
    if (!by_renaming) {
        levels = (int)((PATH_MAX - prefix) / per_level) + 1;
        fd = make_chain(root, top, levels);
    } else {
        fd = make_chain(root, top, 9);
        levels = 9;
        while (fd >= 0 && prefix + (size_t)levels * per_level <= PATH_MAX) {
            /* Chain y: 9 more. Chain x goes under y's bottom (as "d…"), then y takes x's name. */
            quietly_close(fd);
            int bottom = make_chain(root, other, 9);
            bool moved = bottom >= 0 && renameat(root, top, bottom, name) == 0 && renameat(root, other, root, top) == 0;
            quietly_close(bottom);
            if (!moved) {
                fd = -1;
                break;
            }
            levels += 9;
            fd = openat(root, top, O_PATH | O_DIRECTORY | O_CLOEXEC);
        }
        /* Down to the bottom, a folder at a time. */
        if (fd >= 0) {
            close(fd);
            fd = openat(root, top, O_PATH | O_DIRECTORY | O_CLOEXEC);
            for (int level = 1; fd >= 0 && level < levels; level++) {
                int next = openat(fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
                quietly_close(fd);
                fd = next;
            }
        }
    }
    int file = fd >= 0 ? openat(fd, "file", O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
    quietly_close(fd);
    quietly_close(root);
    if (file < 0) return -1;
    close(file);
    snprintf(detail, size, "%zu chars, %d levels, in %s", prefix + (size_t)levels * per_level, levels, base);
    return 0;
}

/* res_modes: umask 0; "locked" (a folder of mode 000), "ro" (0555, holding "ro-file" of mode 000, made while "ro"
 * was 0700) and "zero-file" (made with mode 0), in a fresh folder "modes-XXXXXX" of $TMPDIR. */
static int odd_modes(char *detail, size_t size) {
    char base[PATH_MAX];
    if (join(base, sizeof base, temporary_folder(), "modes-XXXXXX") != 0 || !mkdtemp(base)) return -1;
    int folder = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (folder < 0) return -1;
    mode_t old = umask(0);
    int file = -1, result = mkdirat(folder, "locked", 0) == 0 && mkdirat(folder, "ro", 0700) == 0 ? 0 : -1;
    if (result == 0 && (file = openat(folder, "ro/ro-file", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0)) < 0) result = -1;
    quietly_close(file);
    if (result == 0) result = fchmodat(folder, "ro", 0555, 0);
    if (result == 0 && (file = openat(folder, "zero-file", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0)) < 0) result = -1;
    quietly_close(file);
    int saved = errno;
    umask(old);
    close(folder);
    errno = saved;
    if (result == 0) snprintf(detail, size, "locked 000, ro 0555 holding ro-file 000, zero-file 000, in %s", base);
    return result;
}

/* res_fill: `megabytes` MiB in files of 64 MiB in a fresh folder "fill-XXXXXX" of `folder`: fallocate (no larger than
 * the file-size limit lets a file be, as a plugin bent on filling the disk would), or 1 MiB writes where the file
 * system cannot. */
static int fill(const char *folder, long megabytes, char *detail, size_t size) {
    char base[PATH_MAX], name[32];
    if (!folder || join(base, sizeof base, folder, "fill-XXXXXX") != 0 || !mkdtemp(base)) return -1;
    int parent = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0) return -1;
    char *chunk = NULL;
    long allocated = 0;
    int result = 0;
    for (int index = 0; result == 0 && allocated < megabytes; index++) {
        long part = megabytes - allocated < 64 ? megabytes - allocated : 64;
        snprintf(name, sizeof name, "fill-%d", index);
        int fd = openat(parent, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) {
            result = -1;
            break;
        }
        struct rlimit largest;
        if (fallocate(fd, 0, 0, (off_t)part << 20) == 0) {
            allocated += part;
        } else if (errno == EFBIG && getrlimit(RLIMIT_FSIZE, &largest) == 0 && largest.rlim_cur < (rlim_t)part << 20 &&
                   fallocate(fd, 0, 0, (off_t)largest.rlim_cur) == 0) {
            /* As large as the file-size limit lets a file be, allocated without a write (at least a MiB counted,
             * so that the loop ends). */
            allocated += largest.rlim_cur >> 20 ? (long)(largest.rlim_cur >> 20) : 1;
        } else if (errno == EOPNOTSUPP || errno == ENOSYS || errno == EFBIG) {
            /* Written instead; a file at its size limit (EFBIG) is left for the next one, as a plugin bent on
             * filling the disk would. */
            if (!chunk && !(chunk = malloc(1 << 20))) result = -1;
            if (chunk) memset(chunk, 'x', 1 << 20);
            for (long written = 0; result == 0 && written < part; written++, allocated++) {
                ssize_t count = write(fd, chunk, 1 << 20);
                if (count == 1 << 20) continue;
                if (count >= 0 || errno == EFBIG) break;
                result = -1;
            }
        } else {
            result = -1;
        }
        quietly_close(fd);
    }
    int saved = errno;
    free(chunk);
    close(parent);
    errno = saved;
    snprintf(detail, size, "%ld MiB in %s", allocated, base);
    return result;
}

static void *spin_forever(void *unused) {
    volatile unsigned long spins = 0;
    (void)unused;
    for (;;) spins++;
    return NULL;
}

static void *sleep_briefly(void *unused) {
    struct timespec pause = {2, 0};
    (void)unused;
    nanosleep(&pause, NULL);
    return NULL;
}


/* The runner's ring, as graft_ring.c lays it out: a 128-byte header, the host's control block (256 bytes), then the
 * child's, whose tail (+0) and data bell (+128) the host reads; the bytes to the host follow the bytes to the child,
 * from 4096 on. Each act breaks one rule the host must hold a child to, and then waits to be killed. */
static int ring_act(const char *act, char *detail, size_t size) {
    if (strcmp(act, "socket") == 0) {
        if (write(3, "x", 1) != 1) return -1;
        usleep(2000000);
        snprintf(detail, size, "not killed");
        return 0;
    }
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return -1;
    char line[512];
    unsigned long start = 0, end = 0;
    while (fgets(line, sizeof line, maps))
        if (strstr(line, "memfd:graft-ring") && sscanf(line, "%lx-%lx", &start, &end) == 2) break;
    fclose(maps);
    if (!start) {
        errno = ENOENT;
        return -1;
    }
    if (strcmp(act, "truncate") == 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/map_files/%lx-%lx", start, end);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) return -1;
        int shrunk = ftruncate(fd, 0);
        int error = errno;
        close(fd);
        if (shrunk != 0) {
            errno = error;
            return -1;
        }
        snprintf(detail, size, "shrunk");
        return 0;
    }
    unsigned char *base = (unsigned char *)start;
    uint64_t capacity = *(uint64_t *)(base + 8);
    _Atomic uint64_t *tail = (_Atomic uint64_t *)(base + 128 + 256);
    _Atomic uint32_t *bell = (_Atomic uint32_t *)(base + 128 + 256 + 128);
    if (strcmp(act, "tail") == 0) {
        atomic_store(tail, atomic_load(tail) + capacity * 4);
    } else if (strcmp(act, "garbage") == 0) {
        uint64_t at = atomic_load(tail);
        unsigned char *bytes = base + 4096 + capacity;
        for (int index = 0; index < 64; index++) bytes[(at + index) & (capacity - 1)] = (unsigned char)(0xA5 ^ index);
        atomic_store(tail, at + 64);
    }
    long rings = strcmp(act, "bell") == 0 ? 2000000 : 1;
    for (long turn = 0; turn < rings; turn++) {
        atomic_fetch_add(bell, 1);
        syscall(SYS_futex, bell, FUTEX_WAKE, 1, NULL, NULL, 0);
    }
    usleep(2000000);
    snprintf(detail, size, "not killed");
    return 0;
}

static int perform_resources(const char *act, const char *target, char *detail, size_t size) {
    char path[PATH_MAX];
    long count = atol(strchr(target, ':') ? strchr(target, ':') + 1 : target);
    int fd;
    if (IS("res_deep_tree") || IS("res_deep_mkdirat")) {
        return deep_tree(chosen_folder(target), IS("res_deep_tree"), detail, size);
    } else if (IS("res_modes")) {
        return odd_modes(detail, size);
    } else if (IS("res_fifo")) {
        /* A named pipe, $TMPDIR/fifo: a cleaner that opens what it finds waits on it for ever. */
        if (join(path, sizeof path, temporary_folder(), "fifo") != 0) return -1;
        unlink(path);
        if (mkfifo(path, 0600) != 0) return -1;
        snprintf(detail, size, "%s", path);
        return 0;
    } else if (IS("res_immutable")) {
        /* $TMPDIR/immutable, made immutable (FS_IMMUTABLE_FL; root only): not even root removes it before
         * `chattr -i`. */
        int flags = 0;
        if (join(path, sizeof path, temporary_folder(), "immutable") != 0) return -1;
        if ((fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0600)) < 0) return -1;
        int result = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 ? 0 : -1;
        flags |= FS_IMMUTABLE_FL;
        if (result == 0) result = ioctl(fd, FS_IOC_SETFLAGS, &flags);
        quietly_close(fd);
        if (result == 0) snprintf(detail, size, "%s", path);
        return result;
    } else if (IS("res_many_files")) {
        /* `target` files of 16 bytes in $TMPDIR/many: inodes, and a long cleanup. */
        char name[32];
        if (join(path, sizeof path, temporary_folder(), "many") != 0) return -1;
        if (mkdir(path, 0700) != 0 && errno != EEXIST) return -1;
        int folder = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC), result = folder < 0 ? -1 : 0;
        long made = 0;
        for (; result == 0 && made < count; made++) {
            snprintf(name, sizeof name, "f%ld", made);
            if ((fd = openat(folder, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) result = -1;
            else if (write(fd, "0123456789abcdef", 16) != 16) result = -1;
            quietly_close(fd);
            if (result != 0) break;
        }
        quietly_close(folder);
        snprintf(detail, size, "%ld files", made);
        return result;
    } else if (IS("res_fill")) {
        return fill(chosen_folder(target), count, detail, size);
    } else if (IS("res_hold_open")) {
        /* `count` empty files opened for writing one every 400 ms (past the host's once-a-second walk), all held,
         * then each filled to the file-size limit at once: a quota that forgets what is open lets them all in. */
        const char *folder = chosen_folder(target);
        int held[64], opened = 0, result = 0;
        char name[32];
        struct timespec pause = {0, 400 * 1000 * 1000};
        for (; folder && opened < count && opened < 64; opened++) {
            if (opened) nanosleep(&pause, NULL);
            snprintf(name, sizeof name, "held-%d", opened);
            if (join(path, sizeof path, folder, name) != 0 || (held[opened] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
                result = -1;
                break;
            }
        }
        int saved = errno;
        static char chunk[64 << 10];
        memset(chunk, 'x', sizeof chunk);
        for (int index = 0; index < opened; index++) {
            while (write(held[index], chunk, sizeof chunk) == (ssize_t)sizeof chunk) {
            }
            close(held[index]);
        }
        errno = saved;
        snprintf(detail, size, "%d files held", opened);
        return result;
    } else if (IS("res_spin_after")) {
        /* A thread that spins on the CPU for ever, left running after the call has answered. */
        pthread_t thread;
        int failure = pthread_create(&thread, NULL, spin_forever, NULL);
        if (failure) {
            errno = failure;
            return -1;
        }
        pthread_detach(thread);
        return 0;
    } else if (IS("res_spin")) {
        /* `target` milliseconds of CPU in the call itself. */
        struct timespec start, now;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
        volatile unsigned long spins = 0;
        do {
            for (int i = 0; i < 100000; i++) spins++;
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        } while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < count);
        snprintf(detail, size, "%ld ms", count);
        return 0;
    } else if (IS("res_alloc")) {
        /* `target` MiB from malloc, every page touched (so that it is really taken), then freed. */
        if (count < 0 || (unsigned long)count > SIZE_MAX >> 20) {
            errno = ENOMEM;
            return -1;
        }
        char *memory = malloc((size_t)count << 20);
        if (!memory && count) {
            errno = ENOMEM;
            return -1;
        }
        for (size_t at = 0; at < (size_t)count << 20; at += 4096) memory[at] = 1;
        free(memory);
        snprintf(detail, size, "%ld MiB", count);
        return 0;
    } else if (strncmp(act, "ring_", 5) == 0) {
        return ring_act(act + 5, detail, size);
    } else if (IS("res_memfd")) {
        /* `target` MiB in a memfd, allocated and kept (the descriptor stays open): memory no address-space limit
         * counts, since it is never mapped. */
        if ((fd = memfd_create("graft-corpus", MFD_CLOEXEC)) < 0) return -1;
        if (count > 0 && fallocate(fd, 0, 0, (off_t)count << 20) != 0) {
            quietly_close(fd);
            return -1;
        }
        snprintf(detail, size, "%ld MiB in descriptor %d", count, fd);
        return 0;
    } else if (IS("res_fds")) {
        /* `target` descriptors (copies of a pipe's end), kept open: the process's descriptor table, full. */
        int pipe_ends[2], failure = 0;
        long made = 1; /* the pipe's end is the first */
        if (pipe2(pipe_ends, O_CLOEXEC) != 0) return -1;
        close(pipe_ends[1]);
        for (; made < count; made++)
            if (fcntl(pipe_ends[0], F_DUPFD_CLOEXEC, 0) < 0) {
                failure = errno;
                break;
            }
        snprintf(detail, size, "%ld descriptors", made);
        errno = failure;
        return failure ? -1 : 0;
    } else if (IS("res_threads")) {
        /* `target` threads that each sleep 2 s: the threads (and tasks) a process may have, all at once. */
        long made = 0;
        int failure = 0;
        pthread_attr_t small;
        pthread_attr_init(&small);
        pthread_attr_setstacksize(&small, 64 * 1024);
        pthread_attr_setdetachstate(&small, PTHREAD_CREATE_DETACHED);
        for (pthread_t thread; made < count && !(failure = pthread_create(&thread, &small, sleep_briefly, NULL));) made++;
        pthread_attr_destroy(&small);
        snprintf(detail, size, "%ld threads", made);
        errno = failure;
        return failure ? -1 : 0;
    }
    return NOT_MINE;
}

static int perform_corpus(const char *act, const char *target, char *detail, size_t size) {
    static int (*const categories[])(const char *, const char *, char *, size_t) = {
        perform_metadata, perform_ipc, perform_network, perform_abi, perform_seeing, perform_processes, perform_resources};
    for (size_t i = 0; i < sizeof categories / sizeof categories[0]; i++) {
        int result = categories[i](act, target, detail, size);
        if (result != NOT_MINE) return result;
    }
    return NOT_MINE;
}

/* Does `act` on `target`; writes what happened into `out`. Returns 0 when the act succeeded. */
static int perform(const char *act, const char *target, char *out, size_t capacity) {
    char detail[512] = "";
    if (strcmp(act, "read") == 0) {
        int fd = open(target, O_RDONLY);
        if (fd < 0) return refused(out, capacity, act);
        ssize_t n = read(fd, detail, sizeof detail - 1);
        close(fd);
        if (n < 0) return refused(out, capacity, act);
        detail[n] = '\0';
        detail[strcspn(detail, "\n")] = '\0';
    } else if (strcmp(act, "write") == 0) {
        int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) return refused(out, capacity, act);
        ssize_t n = write(fd, "pwned\n", 6);
        close(fd);
        if (n != 6) return refused(out, capacity, act);
    } else if (strcmp(act, "data") == 0) {
        const char *folder = getenv("GRAFT_DATA_DIR");
        char path[400];
        if (!folder) {
            errno = ENOENT;
            return refused(out, capacity, act);
        }
        snprintf(path, sizeof path, "%s/%s", folder, target);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) return refused(out, capacity, act);
        ssize_t n = write(fd, "kept\n", 5);
        close(fd);
        if (n != 5) return refused(out, capacity, act);
        snprintf(detail, sizeof detail, "%s", path);
    } else if (strcmp(act, "connect") == 0 || strcmp(act, "udp") == 0) {
        int udp = strcmp(act, "udp") == 0;
        int fd = socket(AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, 0);
        if (fd < 0) return refused(out, capacity, act);
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(target))};
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int result = udp ? (int)sendto(fd, "hi\n", 3, 0, (struct sockaddr *)&address, sizeof address)
                         : connect(fd, (struct sockaddr *)&address, sizeof address);
        if (result >= 0 && !udp) {
            ssize_t n = write(fd, "hi\n", 3);
            n = read(fd, detail, sizeof detail - 1);
            detail[n > 0 ? n : 0] = '\0';
            detail[strcspn(detail, "\n")] = '\0';
        }
        int saved = errno;
        close(fd);
        errno = saved;
        if (result < 0) return refused(out, capacity, act);
    } else if (strcmp(act, "unix") == 0) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0) return refused(out, capacity, act);
        struct sockaddr_un address = {.sun_family = AF_UNIX};
        snprintf(address.sun_path, sizeof address.sun_path, "%s", target);
        int result = connect(fd, (struct sockaddr *)&address, sizeof address);
        int saved = errno;
        close(fd);
        errno = saved;
        if (result < 0) return refused(out, capacity, act);
    } else if (strcmp(act, "kill_parent") == 0) {
        if (kill(getppid(), SIGKILL) != 0) return refused(out, capacity, act);
    } else if (strcmp(act, "kill_group") == 0) {
        if (kill(0, SIGKILL) != 0) return refused(out, capacity, act);
    } else if (strcmp(act, "ptrace_parent") == 0) {
        if (ptrace(PTRACE_ATTACH, getppid(), NULL, NULL) != 0) return refused(out, capacity, act);
        ptrace(PTRACE_DETACH, getppid(), NULL, NULL);
    } else if (strcmp(act, "parent_environ") == 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
        int fd = open(path, O_RDONLY);
        if (fd < 0) return refused(out, capacity, act);
        ssize_t n = read(fd, detail, 32);
        close(fd);
        if (n < 0) return refused(out, capacity, act);
        detail[n > 0 ? n : 0] = '\0';
    } else if (strcmp(act, "parent_memory") == 0) {
        char byte;
        struct iovec local = {&byte, 1}, remote = {(void *)0x400000, 1};
        if (process_vm_readv(getppid(), &local, 1, &remote, 1, 0) < 0) return refused(out, capacity, act);
    } else if (strcmp(act, "environ") == 0) {
        const char *value = getenv(target);
        snprintf(detail, sizeof detail, "%s", value ? value : "(unset)");
    } else if (strcmp(act, "exec") == 0) {
        /* posix_spawn: the C library's own way, through clone and execve. */
        pid_t pid = fork();
        if (pid < 0) return refused(out, capacity, act);
        if (pid == 0) {
            execl("/bin/sh", "sh", "-c", "true", (char *)NULL);
            _exit(127);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            errno = EACCES;
            return refused(out, capacity, act);
        }
    } else if (strcmp(act, "fork") == 0 || strcmp(act, "daemon") == 0) {
        bool daemon = strcmp(act, "daemon") == 0;
        int ready[2] = {-1, -1};
        if (daemon && pipe(ready) != 0) return refused(out, capacity, act);
        pid_t pid = fork();
        if (pid < 0) return refused(out, capacity, act);
        if (pid == 0) {
            if (daemon) {
                setsid();
                if (fork() != 0) _exit(0);
                /* Its lock is how a test sees it live or gone (the kernel drops it with the last process holding the file). */
                int held = target[0] == '/' ? open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0666) : -1;
                if (held >= 0) flock(held, LOCK_EX);
                if (write(ready[1], "r", 1) != 1) _exit(1);
            }
            sleep(30);
            _exit(0);
        }
        if (daemon) {
            /* Answers once the grandchild holds its lock (the read ends when the last writer is gone, at worst). */
            char byte;
            close(ready[1]);
            waitpid(pid, NULL, 0);
            if (read(ready[0], &byte, 1) != 1) {
                close(ready[0]);
                return refused(out, capacity, act);
            }
            close(ready[0]);
        }
        snprintf(detail, sizeof detail, "pid %d", (int)pid);
    } else if (strcmp(act, "flood_stderr") == 0) {
        static const char lines[4096] = {[0 ... 4095] = '\n'};
        for (;;) {
            if (write(2, lines, sizeof lines) < 0 && errno != EAGAIN) break;
        }
    } else if (strcmp(act, "escape_output") == 0) {
        static const char escape[] = "\x1b]0;pwned\x07 and a NUL \0 here\n";
        if (write(2, escape, sizeof escape - 1) < 0) return refused(out, capacity, act);
    } else if (strcmp(act, "crash_later") == 0) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, crash_after, (void *)(intptr_t)atol(target)) != 0) return refused(out, capacity, act);
        pthread_detach(thread);
    } else if (strcmp(act, "stop_later") == 0) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, stop_after, (void *)(intptr_t)atol(target)) != 0) return refused(out, capacity, act);
        pthread_detach(thread);
    } else if (strcmp(act, "sleep") == 0) {
        fprintf(stderr, "sleeping %s ms\n", target); /* the host logs it: a test sees the call is in flight */
        fflush(stderr);
        struct timespec delay = {atol(target) / 1000, (atol(target) % 1000) * 1000000L};
        nanosleep(&delay, NULL);
    } else if (strcmp(act, "meet") == 0) {
        /* Waits up to 5 s (or the milliseconds after a slash: "2/1000") for `target` calls in all, of any plugin in this
         * process, to be inside this act at once: each is a file in a folder
         * of the process's own under $TMPDIR while it waits. */
        char folder[300], mine[400];
        const char *temporary = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(folder, sizeof folder, "%s/graft-meet-%d", temporary, (int)getpid());
        mkdir(folder, 0700);
        snprintf(mine, sizeof mine, "%s/%ld", folder, (long)syscall(SYS_gettid));
        int file = open(mine, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        if (file < 0) return refused(out, capacity, act);
        close(file);
        int wanted = atoi(target), met = 0;
        long patience = strchr(target, '/') ? atol(strchr(target, '/') + 1) : 5000;
        struct timespec step = {0, 1000000L};
        for (long tries = 0; tries < patience && !met; tries++) {
            int inside = 0;
            DIR *listing = opendir(folder);
            for (struct dirent *entry; listing && (entry = readdir(listing));) inside += entry->d_name[0] != '.';
            if (listing) closedir(listing);
            met = inside >= wanted;
            if (!met) nanosleep(&step, NULL);
        }
        /* Met: stay a little longer, so that the others see it too before this one leaves. */
        struct timespec linger = {0, 300000000L};
        if (met) nanosleep(&linger, NULL);
        unlink(mine);
        snprintf(detail, sizeof detail, "%s", met ? "met" : "alone");
    } else if (strcmp(act, "chmod") == 0) {
        if (chmod(target, 0777) != 0) return refused(out, capacity, act);
    } else {
        int result = perform_corpus(act, target, detail, sizeof detail);
        if (result == NOT_MINE) {
            snprintf(out, capacity, "%s: unknown act", act);
            return -1;
        }
        if (result != 0) {
            /* "<act>: refused <ERRNO NAME>", then the detail when the act wrote one (how far it got). */
            refused(out, capacity, act);
            size_t used = strlen(out);
            if (detail[0] && used < capacity) snprintf(out + used, capacity - used, " %s", detail);
            return -1;
        }
    }
    snprintf(out, capacity, "%s: ok %s", act, detail);
    return 0;
}

#ifdef HOSTILE_CONSTRUCTOR_ACT
#ifndef HOSTILE_CONSTRUCTOR_TARGET
#define HOSTILE_CONSTRUCTOR_TARGET ""
#endif
__attribute__((constructor)) static void hostile_constructor(void) {
    char out[1024];
    perform(HOSTILE_CONSTRUCTOR_ACT, HOSTILE_CONSTRUCTOR_TARGET, out, sizeof out);
    fprintf(stderr, "constructor %s\n", out);
}
#endif

/* ---- component `probe` v1 ------------------------------------------------ */

static const graft_field_t probe_inputs[] = {
    {"act", GRAFT_TYPE_STRING, "what to try"},
    {"target", GRAFT_TYPE_STRING, "on what"},
};

static const graft_component_descriptor_t probe_descriptor = {
    .key = HOSTILE_KEY, .version = 1, .name = "Probe", .description = "Tries its act at each render.",
    .inputs = probe_inputs, .input_count = 2,
    .debug_config = "{\"act\": \"environ\", \"target\": \"HOME\"}",
};

typedef struct probe {
    graft_component_instance_t instance;
    const graft_component_context_t *context;
    char act[64];
    char target[400];
} probe_t;

static void copy_input(const graft_value_t *inputs, const char *key, char *into, size_t capacity) {
    const graft_value_t *value = graft_object_get(inputs, key);
    size_t length = value && value->type == GRAFT_TYPE_STRING ? value->data.string.length : 0;
    if (length >= capacity) length = capacity - 1;
    if (length) memcpy(into, value->data.string.data, length);
    into[length] = '\0';
}

static bool probe_render(const graft_component_instance_t *instance, const char *media_type, const graft_writer_t *writer) {
    probe_t *probe = instance->plugin_data;
    char out[1024];
    (void)media_type;
    if (strcmp(probe->act, "render_escape") == 0) {
        static const char text[] = "before \x1b]0;pwned\x07\x1b[2J and a NUL \0 after\nsecond line";
        return writer->write(writer, text, sizeof text - 1);
    }
    if (strcmp(probe->act, "emit_flood") == 0) {
        static char big[64 * 1024];
        memset(big, 'x', sizeof big);
        long count = atol(probe->target);
        for (long i = 0; i < count; i++) {
            graft_member_t members[] = {{"blob", graft_string(big, sizeof big)}};
            graft_value_t payload = graft_object(members, 1);
            probe->context->emit(probe->context, "flood", &payload);
        }
        snprintf(out, sizeof out, "emit_flood: ok %ld", count);
        return graft_write_cstr(writer, out);
    }
    if (strcmp(probe->act, "log_lines") == 0) {
        long count = atol(probe->target);
        for (long i = 0; i < count; i++) {
            char line[64];
            snprintf(line, sizeof line, "logged line %ld", i);
            probe->context->log(probe->context, GRAFT_LOG_INFO, line);
            fprintf(stderr, "written line %ld\n", i);
        }
        fflush(stderr);
        snprintf(out, sizeof out, "log_lines: ok %ld", count);
        return graft_write_cstr(writer, out);
    }
    perform(probe->act, probe->target, out, sizeof out);
    return graft_write_cstr(writer, out);
}

static bool probe_update(const graft_component_instance_t *instance, const graft_value_t *inputs) {
    probe_t *probe = instance->plugin_data;
    copy_input(inputs, "act", probe->act, sizeof probe->act);
    copy_input(inputs, "target", probe->target, sizeof probe->target);
    return true;
}

static void probe_destroy(const graft_component_instance_t *instance) {
    free(instance->plugin_data);
}

static uint32_t component_count(const graft_component_factory_t *factory) {
    (void)factory;
#ifdef HOSTILE_SHIFTY
    /* argv[1] of this process, from /proc/self/cmdline (NUL-separated). */
    char line[256] = "";
    int fd = open("/proc/self/cmdline", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, line, sizeof line - 1) : -1;
    if (fd >= 0) close(fd);
    const char *first = n > 0 ? line + strlen(line) + 1 : "";
    if (first >= line + (n > 0 ? n : 0) || strcmp(first, "scan") != 0) return 0;
#endif
    return 1;
}

static const graft_component_descriptor_t *component_descriptor(const graft_component_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &probe_descriptor : NULL;
}

static const graft_component_instance_t *component_create(const graft_component_factory_t *factory, const char *key,
                                                          uint32_t version, const graft_value_t *inputs,
                                                          const graft_component_context_t *context) {
    (void)factory;
    if (strcmp(key, HOSTILE_KEY) != 0 || version != 1) return NULL;
    probe_t *probe = calloc(1, sizeof *probe);
    if (!probe) return NULL;
    probe->context = context;
    probe->instance = (graft_component_instance_t){
        .plugin_data = probe, .render = probe_render, .update_inputs = probe_update, .destroy = probe_destroy};
    probe_update(&probe->instance, inputs);
    return &probe->instance;
}

static const graft_component_factory_t component_factory = {component_count, component_descriptor, component_create};

/* ---- validator `probe` ----------------------------------------------------- */

static bool probe_validate(const graft_validator_descriptor_t *self, const graft_value_t *value, const char *const *params,
                           uint32_t param_count, const graft_writer_t *message) {
    char act[64] = "", out[1024];
    (void)self;
    if (value->type == GRAFT_TYPE_STRING && value->data.string.length < sizeof act)
        memcpy(act, value->data.string.data, value->data.string.length);
    int result = perform(act, param_count > 0 ? params[0] : "", out, sizeof out);
    if (result != 0) graft_write_cstr(message, out);
    return result == 0;
}

static const graft_validator_descriptor_t validator = {
    .name = HOSTILE_KEY, .version = 1, .description = "Tries the act named by the value.",
    .kind = GRAFT_VALIDATOR_GENERIC, .message = "refused", .validate = probe_validate,
};

static uint32_t validator_count(const graft_validator_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_validator_descriptor_t *validator_descriptor(const graft_validator_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &validator : NULL;
}

static const graft_validator_factory_t validator_factory = {validator_count, validator_descriptor};

/* ---- action `probe` -------------------------------------------------------- */

static const graft_field_t action_params[] = {{"act", GRAFT_TYPE_STRING, NULL}, {"target", GRAFT_TYPE_STRING, NULL}};

static bool probe_action(const graft_action_descriptor_t *self, const graft_value_t *params, const graft_value_t *payload,
                         const graft_action_context_t *context) {
    char act[64], target[300], out[1024];
    (void)self;
    (void)payload;
    copy_input(params, "act", act, sizeof act);
    copy_input(params, "target", target, sizeof target);
    perform(act, target, out, sizeof out);
    graft_value_t outcome = graft_string(out, strlen(out));
    context->set_variable(context, "outcome", &outcome);
    return true;
}

static const graft_action_descriptor_t action = {
    .key = HOSTILE_KEY, .version = 1, .name = "Probe", .description = "Tries the act in its params.",
    .params = action_params, .param_count = 2, .invoke = probe_action,
};

static uint32_t action_count(const graft_action_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_action_descriptor_t *action_descriptor(const graft_action_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? &action : NULL;
}

static const graft_action_factory_t action_factory = {action_count, action_descriptor};

/* ---- entry ------------------------------------------------------------------ */

static bool hostile_init(const graft_host_t *host) {
    (void)host;
#ifdef HOSTILE_INIT_ACT
#ifndef HOSTILE_INIT_TARGET
#define HOSTILE_INIT_TARGET ""
#endif
    char out[1024];
    perform(HOSTILE_INIT_ACT, HOSTILE_INIT_TARGET, out, sizeof out);
    fprintf(stderr, "init %s\n", out);
#endif
    return true;
}

#ifdef HOSTILE_PORT
static const uint16_t permission_ports[] = {HOSTILE_PORT};
static const graft_permission_t permission_list[] = {
    {.kind = GRAFT_PERMISSION_CONNECT, .ports = permission_ports, .port_count = 1, .reason = "Talks to its test server."},
    {.kind = GRAFT_PERMISSION_DATA, .reason = "Keeps what it learns."},
#ifdef HOSTILE_READ
    {.kind = GRAFT_PERMISSION_READ, .path = HOSTILE_READ, .reason = "Reads its assets."},
#endif
};

static uint32_t permission_count(const graft_permissions_t *permissions) {
    (void)permissions;
    return sizeof permission_list / sizeof permission_list[0];
}

static const graft_permission_t *permission_at(const graft_permissions_t *permissions, uint32_t index) {
    (void)permissions;
    return index < permission_count(permissions) ? &permission_list[index] : NULL;
}

static const graft_permissions_t permissions = {permission_count, permission_at};
#endif

static const void *hostile_get_factory(const char *factory_id) {
#ifdef HOSTILE_PORT
    if (strcmp(factory_id, GRAFT_PERMISSIONS_ID) == 0) return &permissions;
#endif
    if (strcmp(factory_id, GRAFT_COMPONENT_FACTORY_ID) == 0) return &component_factory;
    if (strcmp(factory_id, GRAFT_VALIDATOR_FACTORY_ID) == 0) return &validator_factory;
    if (strcmp(factory_id, GRAFT_ACTION_FACTORY_ID) == 0) return &action_factory;
    return NULL;
}

#ifndef HOSTILE_ID
#define HOSTILE_ID "test.hostile"
#endif

static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT,
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = HOSTILE_ID,
    .version = "1.0.0",
    .name = "Hostile (test fixture)",
    .vendor = "Graft tests",
    .description = "Tries what the sandbox must refuse.",
    .init = hostile_init,
    .deinit = NULL,
    .get_factory = hostile_get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) {
    return &entry;
}
