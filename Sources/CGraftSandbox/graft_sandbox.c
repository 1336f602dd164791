/* See graft_sandbox.h. Landlock's constants are spelled here for the kernel
 * ABI (7) this code knows, so that the build does not depend on how new the
 * installed kernel headers are; the kernel tells at run time which it has. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "graft_sandbox.h"

/* ---- Landlock, as the kernel's uapi defines it ------------------------- */

#define GRAFT_LL_CREATE_RULESET_VERSION (1U << 0)
#define GRAFT_LL_RULE_PATH_BENEATH 1
#define GRAFT_LL_RULE_NET_PORT 2

#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)    /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)               /* ABI 6 */

/* Rights that apply to a file itself (a rule on a non-directory may hold only these). */
#define LL_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

struct graft_ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};

struct graft_ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

struct graft_ll_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

int graft_landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, GRAFT_LL_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

static void note_missing(struct graft_sandbox_status *status, const char *what, int error) {
    size_t used = strlen(status->missing);
    if (used >= sizeof status->missing - 1) return;
    snprintf(status->missing + used, sizeof status->missing - used, "%s%s%s%s", used ? "; " : "", what,
             error ? ": " : "", error ? strerror(error) : "");
}

static uint64_t handled_files(int abi) {
    uint64_t rights = (1ULL << 13) - 1;
    if (abi >= 2) rights |= LL_FS_REFER;
    if (abi >= 3) rights |= LL_FS_TRUNCATE;
    if (abi >= 5) rights |= LL_FS_IOCTL_DEV;
    return rights;
}

/* Allows `rights` (narrowed to what the ruleset handles, and to file rights
 * for a file) beneath `path`. A path that does not exist is skipped. */
static int allow_path(int ruleset, const char *path, uint64_t rights, uint64_t handled) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -1;
    struct stat info;
    if (fstat(fd, &info) != 0) {
        close(fd);
        return -1;
    }
    if (!S_ISDIR(info.st_mode)) rights &= LL_FILE_RIGHTS;
    struct graft_ll_path_beneath_attr rule = {.allowed_access = rights & handled, .parent_fd = fd};
    int result = rule.allowed_access ? (int)syscall(SYS_landlock_add_rule, ruleset, GRAFT_LL_RULE_PATH_BENEATH, &rule, 0) : 0;
    int saved = errno;
    close(fd);
    errno = saved;
    return result;
}

static int allow_paths(int ruleset, const char *const *paths, uint64_t rights, uint64_t handled) {
    for (; paths && *paths; paths++)
        if (allow_path(ruleset, *paths, rights, handled) != 0) return -1;
    return 0;
}

/* Files, TCP ports and scopes, for what the kernel's ABI handles. */
static void enter_landlock(const struct graft_sandbox_policy *policy, struct graft_sandbox_status *status) {
    int abi = graft_landlock_abi();
    status->landlock_abi = abi;
    if (abi < 1) {
        note_missing(status, "Landlock (this kernel has none, or it is not enabled: boot with lsm=...,landlock)", 0);
        return;
    }
    struct graft_ll_ruleset_attr attributes = {.handled_access_fs = handled_files(abi)};
    size_t size = sizeof attributes.handled_access_fs;
    if (abi >= 4) {
        attributes.handled_access_net = LL_NET_BIND_TCP | (policy->any_network ? 0 : LL_NET_CONNECT_TCP);
        size = offsetof(struct graft_ll_ruleset_attr, scoped);
    }
    if (abi >= 6) {
        attributes.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
        size = sizeof attributes;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attributes, size, 0);
    if (ruleset < 0) {
        note_missing(status, "Landlock (creating a ruleset failed)", errno);
        return;
    }
    uint64_t handled = attributes.handled_access_fs;
    uint64_t read = LL_FS_READ_FILE | LL_FS_READ_DIR;
    uint64_t write = read | LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR | LL_FS_MAKE_REG |
                     LL_FS_MAKE_FIFO | LL_FS_MAKE_SYM | LL_FS_REFER | LL_FS_TRUNCATE;
    char self[64];
    snprintf(self, sizeof self, "/proc/%d", (int)getpid());
    const char *const own_process[] = {self, NULL};
    const char *const devices_read[] = {"/dev/zero", "/dev/urandom", "/dev/random", NULL};
    const char *const devices_write[] = {"/dev/null", NULL};
    int failed = allow_paths(ruleset, policy->library_folders, LL_FS_EXECUTE | read, handled) ||
                 allow_paths(ruleset, policy->read_paths, read, handled) ||
                 allow_paths(ruleset, policy->write_folders, write, handled) ||
                 allow_paths(ruleset, own_process, read, handled) ||
                 allow_paths(ruleset, devices_read, LL_FS_READ_FILE, handled) ||
                 allow_paths(ruleset, devices_write, LL_FS_READ_FILE | LL_FS_WRITE_FILE, handled);
    /* A data folder the child reaches through a descriptor (a root host's, without a mount namespace). */
    if (!failed && status->data_descriptor > 0) {
        struct graft_ll_path_beneath_attr rule = {.allowed_access = write & handled, .parent_fd = status->data_descriptor};
        failed = syscall(SYS_landlock_add_rule, ruleset, GRAFT_LL_RULE_PATH_BENEATH, &rule, 0) != 0;
    }
    if (failed) {
        note_missing(status, "Landlock (a folder rule was refused)", errno);
        close(ruleset);
        return;
    }
    if (abi >= 4 && !policy->any_network) {
        for (size_t i = 0; i < policy->connect_port_count; i++) {
            struct graft_ll_net_port_attr rule = {.allowed_access = LL_NET_CONNECT_TCP, .port = policy->connect_ports[i]};
            if (syscall(SYS_landlock_add_rule, ruleset, GRAFT_LL_RULE_NET_PORT, &rule, 0) != 0) {
                note_missing(status, "Landlock (a port rule was refused)", errno);
                close(ruleset);
                return;
            }
        }
    }
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
        note_missing(status, "Landlock (restricting this process failed)", errno);
        close(ruleset);
        return;
    }
    close(ruleset);
    status->landlock_files = true;
    status->landlock_network = abi >= 4;
    status->landlock_scopes = abi >= 6;
    if (abi < 4) note_missing(status, "Landlock TCP rules (the kernel's Landlock is older than ABI 4)", 0);
    if (abi < 6) note_missing(status, "Landlock scopes for signals and abstract sockets (older than ABI 6)", 0);
}

/* ---- The seccomp filter -------------------------------------------------- */

/* Adds `action` for the call `name` when `count` conditions (ANDed) hold; a
 * name this architecture or libseccomp does not know is skipped. */
static int rule(scmp_filter_ctx filter, uint32_t action, const char *name, unsigned count, const struct scmp_arg_cmp *conditions) {
    int nr = graft_syscall_number(name);
    if (nr < 0) return 0;
    int result = seccomp_rule_add_array(filter, action, nr, count, conditions);
    /* A number libseccomp has no name for on this architecture: nothing to allow. */
    return result == -EINVAL || result == -EDOM ? 0 : result;
}

static int allow_if(scmp_filter_ctx filter, const char *name, struct scmp_arg_cmp condition) {
    return rule(filter, SCMP_ACT_ALLOW, name, 1, &condition);
}

static int add_group_rules(scmp_filter_ctx filter, uint32_t verdict, uint32_t action) {
    for (int index = 0; index < graft_sandbox_group_count(); index++) {
        const char *const *calls = graft_sandbox_group_calls(index, verdict);
        for (; calls && *calls; calls++) {
            int result = rule(filter, action, *calls, 0, NULL);
            if (result != 0) return result;
        }
    }
    return 0;
}

#define GRAFT_MSG_FASTOPEN 0x20000000
#define GRAFT_IPPROTO_MPTCP 262
/* Every flag that makes a clone more than a thread of this process. */
#define GRAFT_CLONE_NOT_A_THREAD \
    (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | 0x80 /* CLONE_NEWTIME */)
/* What a thread shares with its process: memory, descriptors, working folder
 * (the host reads a call's descriptors and folder as the process's). */
#define GRAFT_CLONE_A_THREAD (CLONE_THREAD | CLONE_VM | CLONE_FILES | CLONE_FS | CLONE_SIGHAND)

/* The socket()s a grant allows: Internet sockets only; TCP for granted ports, TCP and UDP (and MPTCP) for any. */
static int allow_sockets(scmp_filter_ctx filter, const struct graft_sandbox_policy *policy) {
    if (!policy->any_network && policy->connect_port_count == 0) return 0;
    static const int families[] = {AF_INET, AF_INET6};
    int types[2] = {SOCK_STREAM, SOCK_DGRAM};
    int protocols[4] = {0, IPPROTO_TCP, IPPROTO_UDP, GRAFT_IPPROTO_MPTCP};
    size_t type_count = policy->any_network ? 2 : 1, protocol_count = policy->any_network ? 4 : 2;
    int result = 0;
    for (size_t f = 0; f < 2; f++)
        for (size_t t = 0; t < type_count; t++)
            for (size_t p = 0; result == 0 && p < protocol_count; p++) {
                /* The type's low four bits; SOCK_NONBLOCK and SOCK_CLOEXEC may be set above them. */
                struct scmp_arg_cmp conditions[] = {
                    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)families[f]), SCMP_A1(SCMP_CMP_MASKED_EQ, 0xF, (scmp_datum_t)types[t]),
                    SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)protocols[p])};
                result = rule(filter, SCMP_ACT_ALLOW, "socket", 3, conditions);
            }
    return result;
}

/* The rules: the groups allowed whole, the calls allowed on conditions
 * (graft_sandbox_calls.c says each condition in words), and, without user
 * notification, the asked calls allowed (Landlock decides them alone) and
 * the refused ones answered here. `self` is the child's process id, whose
 * own signals pass in the filter; 0 when the host builds a filter for any
 * child (they are asked). */
static int build_filter(scmp_filter_ctx filter, bool notify, const struct graft_sandbox_policy *policy, pid_t self) {
    /* A foreign ABI (a 32-bit int 0x80 call, an x32 call) is refused like an unlisted call. */
    int result = seccomp_attr_set(filter, SCMP_FLTATR_ACT_BADARCH, notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(ENOSYS));
    /* No speculative-store-bypass mitigation forced on the child: it guards
     * a process's memory against code running inside it, and here all of the
     * child is the plugin's already; it would slow every call by a fifth. */
    if (result == 0) result = seccomp_attr_set(filter, SCMP_FLTATR_CTL_SSB, 1);
    /* A binary tree of system call numbers rather than a list: the kernel
     * runs the filter once per system call number when it installs it (to
     * learn which always pass), so a list cost each child's start more. */
    if (result == 0) result = seccomp_attr_set(filter, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    if (result == 0) result = add_group_rules(filter, GRAFT_CALL_ALLOWED, SCMP_ACT_ALLOW);
    if (result == 0 && !notify) {
        /* Without the host to ask: Landlock alone decides calls on paths; what the host would do itself is refused. */
        for (int index = 0; result == 0 && index < graft_sandbox_group_count(); index++) {
            const char *const *calls = graft_sandbox_group_calls(index, GRAFT_CALL_ASKED);
            struct graft_sandbox_entry entry;
            for (; result == 0 && calls && *calls; calls++) {
                graft_sandbox_listing(*calls, &entry);
                bool by_host = strcmp(entry.group, "done-by-host") == 0;
                result = rule(filter, by_host ? SCMP_ACT_ERRNO(EPERM) : SCMP_ACT_ALLOW, *calls, 0, NULL);
            }
        }
        for (int index = 0; result == 0 && index < graft_sandbox_group_count(); index++) {
            const char *const *calls = graft_sandbox_group_calls(index, GRAFT_CALL_REFUSED);
            struct graft_sandbox_entry entry;
            for (; result == 0 && calls && *calls; calls++) {
                graft_sandbox_listing(*calls, &entry);
                result = rule(filter, SCMP_ACT_ERRNO((uint32_t)entry.error), *calls, 0, NULL);
            }
        }
    }

    /* Threads, not processes; clone3's flags are in memory the filter cannot
     * read, so ENOSYS sends the C library to clone. */
    if (result == 0)
        result = allow_if(filter, "clone", SCMP_A0(SCMP_CMP_MASKED_EQ, GRAFT_CLONE_A_THREAD | GRAFT_CLONE_NOT_A_THREAD, GRAFT_CLONE_A_THREAD));

    /* fcntl: descriptors, status flags, locks, seals, pipe sizes; not
     * F_NOTIFY (a watch on any folder it may read), F_SETLEASE (holding
     * other processes' opens), nor F_SETOWN and F_SETSIG (signals sent for it). */
    static const int commands[] = {
        0 /* F_DUPFD */, 1 /* F_GETFD */, 2 /* F_SETFD */, 3 /* F_GETFL */, 4 /* F_SETFL */, 5 /* F_GETLK */,
        6 /* F_SETLK */, 7 /* F_SETLKW */, 9 /* F_GETOWN */, 11 /* F_GETSIG */, 16 /* F_GETOWN_EX */, 36 /* F_OFD_GETLK */,
        37 /* F_OFD_SETLK */, 38 /* F_OFD_SETLKW */, 1025 /* F_GETLEASE */, 1030 /* F_DUPFD_CLOEXEC */, 1031 /* F_SETPIPE_SZ */,
        1032 /* F_GETPIPE_SZ */, 1033 /* F_ADD_SEALS */, 1034 /* F_GET_SEALS */};
    for (size_t i = 0; result == 0 && i < sizeof commands / sizeof commands[0]; i++)
        result = allow_if(filter, "fcntl", SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, (scmp_datum_t)commands[i]));
    if (result == 0) result = rule(filter, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL);

    /* The network, as granted: sockets, connects, and no implicit connect (MSG_FASTOPEN) unless any. */
    if (result == 0) result = allow_sockets(filter, policy);
    if (policy->any_network) {
        static const char *const sending[] = {"connect", "sendto", "sendmsg", "sendmmsg"};
        for (size_t i = 0; result == 0 && i < sizeof sending / sizeof sending[0]; i++)
            result = rule(filter, SCMP_ACT_ALLOW, sending[i], 0, NULL);
    } else {
        struct scmp_arg_cmp to_nobody[] = {SCMP_A3(SCMP_CMP_MASKED_EQ, GRAFT_MSG_FASTOPEN, 0), SCMP_A4(SCMP_CMP_EQ, 0)};
        if (result == 0) result = rule(filter, SCMP_ACT_ALLOW, "sendto", 2, to_nobody);
        if (result == 0) result = allow_if(filter, "sendmsg", SCMP_A2(SCMP_CMP_MASKED_EQ, GRAFT_MSG_FASTOPEN, 0));
        if (result == 0) result = allow_if(filter, "sendmmsg", SCMP_A3(SCMP_CMP_MASKED_EQ, GRAFT_MSG_FASTOPEN, 0));
    }

    /* ioctl: what asks about a descriptor's state, nothing that reaches a device. */
    static const unsigned long requests[] = {FIONREAD, FIONBIO, FIOCLEX, FIONCLEX, TCGETS, TIOCGWINSZ};
    for (size_t i = 0; result == 0 && i < sizeof requests / sizeof requests[0]; i++)
        result = allow_if(filter, "ioctl", SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, (scmp_datum_t)requests[i]));

    /* prctl: what concerns the process alone. Not PR_SET_DUMPABLE (it would
     * hide its memory from the host, which reads the paths it is asked
     * about), PR_SET_SECCOMP, PR_SET_MM, PR_SET_PTRACER, subreapers, the
     * system-call user dispatch. */
    static const int options[] = {
        PR_SET_PDEATHSIG, PR_GET_PDEATHSIG, PR_GET_DUMPABLE, PR_GET_KEEPCAPS, PR_SET_NAME, PR_GET_NAME, PR_GET_SECCOMP,
        PR_CAPBSET_READ, PR_GET_TIMERSLACK, PR_SET_TIMERSLACK, PR_MCE_KILL_GET, PR_GET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS,
        PR_GET_NO_NEW_PRIVS, PR_GET_TID_ADDRESS, PR_SET_THP_DISABLE, PR_GET_THP_DISABLE, PR_GET_SPECULATION_CTRL,
        47 /* PR_CAP_AMBIENT (IS_SET reads) */, 50 /* PR_SVE_SET_VL */, 51 /* PR_SVE_GET_VL */,
        55 /* PR_SET_TAGGED_ADDR_CTRL */, 56 /* PR_GET_TAGGED_ADDR_CTRL */, 65 /* PR_SET_MDWE */, 66 /* PR_GET_MDWE */,
        0x53564d41 /* PR_SET_VMA: naming its own anonymous memory */, 0x41555856 /* PR_GET_AUXV */};
    for (size_t i = 0; result == 0 && i < sizeof options / sizeof options[0]; i++)
        result = allow_if(filter, "prctl", SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)options[i]));

    if (result == 0) result = allow_if(filter, "personality", SCMP_A0(SCMP_CMP_EQ, 0xffffffffu));
    /* fallocate is asked, whatever its mode: what mode 0 allocates counts against the child's folder limits (it writes
     * blocks no write(2) counts), and FALLOC_FL_KEEP_SIZE would allocate past a file's end, unbounded. */

    /* Signals to itself pass (raise(), abort()); to another process, asked. */
    if (self) {
        static const char *const own[] = {"kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"};
        for (size_t i = 0; result == 0 && i < sizeof own / sizeof own[0]; i++)
            result = allow_if(filter, own[i], SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    }
    /* Calls that name a process or thread, where 0 is the caller. */
    static const char *const zero_is_self[] = {
        "prlimit64", "get_robust_list", "sched_setaffinity", "sched_getaffinity", "sched_setscheduler",
        "sched_getscheduler", "sched_setparam", "sched_getparam", "sched_setattr", "sched_getattr",
        "sched_rr_get_interval", "getpgid", "getsid"};
    for (size_t i = 0; result == 0 && i < sizeof zero_is_self / sizeof zero_is_self[0]; i++)
        result = allow_if(filter, zero_is_self[i], SCMP_A0(SCMP_CMP_EQ, 0));
    static const char *const priorities[] = {"setpriority", "getpriority"};
    for (size_t i = 0; result == 0 && i < 2; i++) {
        struct scmp_arg_cmp caller[] = {SCMP_A0(SCMP_CMP_EQ, PRIO_PROCESS), SCMP_A1(SCMP_CMP_EQ, 0)};
        result = rule(filter, SCMP_ACT_ALLOW, priorities[i], 2, caller);
    }
    static const char *const io_priorities[] = {"ioprio_set", "ioprio_get"};
    for (size_t i = 0; result == 0 && i < 2; i++) {
        struct scmp_arg_cmp caller[] = {SCMP_A0(SCMP_CMP_EQ, 1 /* IOPRIO_WHO_PROCESS */), SCMP_A1(SCMP_CMP_EQ, 0)};
        result = rule(filter, SCMP_ACT_ALLOW, io_priorities[i], 2, caller);
    }
    return result;
}

int graft_sandbox_filter(const struct graft_sandbox_policy *policy, char **hex) {
    *hex = NULL;
    if (seccomp_api_get() < 6) return ENOTSUP;
    /* Start from "refuse": what no rule allows is asked of the host, which refuses what it does not judge. */
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_NOTIFY);
    if (!filter) return ENOMEM;
    int result = build_filter(filter, true, policy, 0);
    int memory = result == 0 ? memfd_create("graft-filter", MFD_CLOEXEC) : -1;
    if (result == 0 && memory < 0) result = -errno;
    if (result == 0) result = seccomp_export_bpf(filter, memory);
    seccomp_release(filter);
    if (result != 0) {
        if (memory >= 0) close(memory);
        return -result;
    }
    off_t size = lseek(memory, 0, SEEK_END);
    uint8_t *bytes = size > 0 ? malloc((size_t)size) : NULL;
    if (!bytes || pread(memory, bytes, (size_t)size, 0) != size) {
        free(bytes);
        close(memory);
        return EIO;
    }
    close(memory);
    char *text = malloc((size_t)size * 2 + 1);
    if (!text) {
        free(bytes);
        return ENOMEM;
    }
    static const char digits[] = "0123456789abcdef";
    for (off_t i = 0; i < size; i++) {
        text[2 * i] = digits[bytes[i] >> 4];
        text[2 * i + 1] = digits[bytes[i] & 0xF];
    }
    text[size * 2] = '\0';
    free(bytes);
    *hex = text;
    return 0;
}

static int hex_digit(char digit) {
    if (digit >= '0' && digit <= '9') return digit - '0';
    if (digit >= 'a' && digit <= 'f') return digit - 'a' + 10;
    return -1;
}

/* Installs a filter the host built (graft_sandbox_filter): one system call,
 * with a listener for the host and without the speculative-store-bypass
 * mitigation (see build_filter). Returns the listener, or -1. */
static int install_filter(const char *hex) {
    size_t digits = strlen(hex), length = digits / 2;
    if (digits % 2 != 0 || length == 0 || length % sizeof(struct sock_filter) != 0 ||
        length / sizeof(struct sock_filter) > 0xFFFF) {
        errno = EINVAL;
        return -1;
    }
    struct sock_filter *instructions = malloc(length);
    if (!instructions) return -1;
    uint8_t *bytes = (uint8_t *)instructions;
    for (size_t i = 0; i < length; i++) {
        int high = hex_digit(hex[2 * i]), low = hex_digit(hex[2 * i + 1]);
        if (high < 0 || low < 0) {
            free(instructions);
            errno = EINVAL;
            return -1;
        }
        bytes[i] = (uint8_t)(high << 4 | low);
    }
    struct sock_fprog filter = {.len = (unsigned short)(length / sizeof(struct sock_filter)), .filter = instructions};
    long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                            SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_SPEC_ALLOW, &filter);
    if (listener < 0 && errno == EINVAL) /* a kernel without SPEC_ALLOW (before 4.17) */
        listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &filter);
    int saved = errno;
    free(instructions);
    errno = saved;
    return (int)listener;
}

static void enter_seccomp(const struct graft_sandbox_policy *policy, struct graft_sandbox_status *status) {
    if (policy->filter) {
        int listener = install_filter(policy->filter);
        if (listener >= 0) {
            status->seccomp = true;
            status->listener = listener;
            return;
        }
        /* Refused (a kernel or policy the host's libseccomp did not expect): build it here. */
    }
    /* User notification (the host answers) needs API level 6 of libseccomp
     * and a 5.0 kernel; without it refused calls fail with EPERM unreported
     * and questioned ones run (Landlock still decides files and ports). */
    bool notify = seccomp_api_get() >= 6;
    scmp_filter_ctx filter = seccomp_init(notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(ENOSYS));
    if (!filter) {
        note_missing(status, "seccomp (libseccomp could not start a filter)", ENOMEM);
        return;
    }
    int result = build_filter(filter, notify, policy, getpid());
    if (result == 0) result = seccomp_load(filter);
    if (result != 0) {
        note_missing(status, "seccomp (the filter could not be loaded)", -result);
        seccomp_release(filter);
        return;
    }
    status->seccomp = true;
    status->listener = notify ? seccomp_notify_fd(filter) : -1;
    if (!notify || status->listener < 0) note_missing(status, "reports of refused acts (seccomp user notification)", 0);
    seccomp_release(filter);
}

void graft_sandbox_probe(struct graft_sandbox_status *status) {
    memset(status, 0, sizeof *status);
    status->listener = -1;
    int abi = graft_landlock_abi();
    status->landlock_abi = abi;
    if (abi < 1) {
        note_missing(status, "Landlock (this kernel has none, or it is not enabled: boot with lsm=...,landlock)", 0);
    } else {
        status->landlock_files = true;
        status->landlock_network = abi >= 4;
        status->landlock_scopes = abi >= 6;
        if (abi < 4) note_missing(status, "Landlock TCP rules (the kernel's Landlock is older than ABI 4)", 0);
        if (abi < 6) note_missing(status, "Landlock scopes for signals and abstract sockets (older than ABI 6)", 0);
    }
    /* The seccomp system call itself, asked whether it has user notification. */
    uint32_t action = SECCOMP_RET_USER_NOTIF;
    if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0) {
        status->seccomp = true;
        if (seccomp_api_get() < 6) note_missing(status, "reports of refused acts (seccomp user notification)", 0);
    } else {
        int error = errno;
        action = SECCOMP_RET_ERRNO;
        if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0) {
            status->seccomp = true;
            note_missing(status, "reports of refused acts (seccomp user notification)", 0);
        } else {
            note_missing(status, "seccomp (the filter could not be loaded)", error);
        }
    }
}

/* The descriptor through which a root host's child without a mount
 * namespace reaches its data folder (SandboxPolicy.dataDescriptor). */
#define GRAFT_DATA_FD 200

/* ---- Namespaces: its own folder, network, IPC and view of processes ------- */

static void note_degraded(struct graft_sandbox_status *status, const char *what, int error) {
    size_t used = strlen(status->degraded);
    if (used >= sizeof status->degraded - 1) return;
    snprintf(status->degraded + used, sizeof status->degraded - used, "%s%s%s%s", used ? "; " : "", what,
             error ? ": " : "", error ? strerror(error) : "");
}

static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    ssize_t length = (ssize_t)strlen(text);
    int error = write(fd, text, (size_t)length) == length ? 0 : (errno ? errno : EIO);
    close(fd);
    return error;
}

/* Maps the caller's own user and group to themselves in the user namespace it just made. */
static int map_self(uid_t uid, gid_t gid) {
    char map[64];
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
    int error = write_file("/proc/self/uid_map", map);
    if (!error) error = write_file("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
    if (!error) error = write_file("/proc/self/gid_map", map);
    return error;
}

#ifndef SYS_open_tree
#define SYS_open_tree 428
#define SYS_move_mount 429
#endif
#define GRAFT_OPEN_TREE_CLONE 1
#define GRAFT_AT_EMPTY_PATH 0x1000
#define GRAFT_MOVE_MOUNT_F_EMPTY_PATH 0x4

/* /proc as a tmpfs that holds the child's own /proc/PID and a `self` link
 * to it: another process's entry cannot even be named. */
static int hide_other_processes(pid_t self) {
    char own[64], name[32];
    snprintf(own, sizeof own, "/proc/%d", (int)self);
    snprintf(name, sizeof name, "%d", (int)self);
    /* A copy of its own entry, taken before /proc is covered. */
    int entry = open(own, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (entry < 0) return errno;
    int tree = (int)syscall(SYS_open_tree, entry, "", GRAFT_OPEN_TREE_CLONE | GRAFT_AT_EMPTY_PATH | O_CLOEXEC);
    int error = tree < 0 ? errno : 0;
    close(entry);
    if (error) return error;
    if (mount("graft-proc", "/proc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=16k,nr_inodes=16,mode=0555") != 0 ||
        mkdir(own, 0555) != 0 ||
        syscall(SYS_move_mount, tree, "", AT_FDCWD, own, GRAFT_MOVE_MOUNT_F_EMPTY_PATH) != 0 || symlink(name, "/proc/self") != 0 ||
        mount(NULL, "/proc", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        error = errno;
    close(tree);
    return error;
}

int graft_keep_namespaces(int channel) {
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (unshare(CLONE_NEWNET | CLONE_NEWIPC | (uid ? CLONE_NEWUSER : 0)) != 0) return errno;
    if (uid && map_self(uid, gid) != 0) return errno ? errno : EPERM;
    if (write(channel, "k", 1) != 1) return errno;
    char byte;
    while (read(channel, &byte, 1) > 0 || errno == EINTR) {
    }
    _exit(0);
}

/* Step 0 of graft_sandbox_enter: mount, IPC and (unless a network grant
 * needs the host's) network namespaces; the private folder a tmpfs of its
 * own, gone with the child, and the data folder bound into it; /proc
 * showing the child alone; a child of a root host becomes an unprivileged
 * user. A root host needs no user namespace for this (it may make the
 * others itself); any other makes one that maps it to itself. What the
 * kernel refuses is said in `degraded`, and the child goes on as before:
 * Landlock and seccomp hold either way. */
static void enter_namespaces(const struct graft_sandbox_policy *policy, struct graft_sandbox_status *status) {
    pid_t self = getpid(), parent = getppid();
    uid_t uid = geteuid();
    gid_t gid = getegid();
    bool root = uid == 0;
    status->user = uid;
    int flags = CLONE_NEWNS | CLONE_NEWIPC | (policy->isolate_network ? CLONE_NEWNET : 0) | (root ? 0 : CLONE_NEWUSER);
    bool mounted = false, joined = false;
    /* The empty network and IPC (and, for a user not root, the user
     * namespace that owns them) its host keeps for all its children
     * (graft_keep_namespaces): joined in microseconds, where a network
     * namespace of its own costs the better part of a millisecond to make,
     * and an IPC one a tenth. Its filter refuses every SysV and POSIX IPC
     * call, so the children share nothing through it: it only keeps them off
     * their host's. */
    if (policy->isolate_network && policy->network_fd >= 0) {
        joined = (root || (policy->user_fd >= 0 && setns(policy->user_fd, CLONE_NEWUSER) == 0)) &&
                 setns(policy->network_fd, CLONE_NEWNET) == 0;
        if (joined) flags &= ~(CLONE_NEWNET | CLONE_NEWUSER);
        if (joined && policy->ipc_fd >= 0 && setns(policy->ipc_fd, CLONE_NEWIPC) == 0) {
            flags &= ~CLONE_NEWIPC;
            status->ipc_namespace = true;
        }
    }
    if (policy->network_fd >= 0) close(policy->network_fd);
    if (policy->user_fd >= 0) close(policy->user_fd);
    if (policy->ipc_fd >= 0) close(policy->ipc_fd);
    /* Joined, the child has no network of the machine's whatever follows. */
    status->network_namespace = joined;
    if (unshare(flags) != 0) {
        note_degraded(status, "namespaces of its own (private folders are kept on disk, with a quota the host checks)", errno);
    } else if (!root && !joined && map_self(uid, gid) != 0) {
        note_degraded(status, "a user namespace that maps the child to itself", errno);
    } else if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0) {
        /* Its mounts must not reach its host's namespace: a root host's new
         * mount namespace keeps the host's shared propagation (one made in a
         * user namespace is a slave already). Without this, mount nothing. */
        note_degraded(status, "a mount namespace whose mounts stay its own", errno);
    } else {
        mounted = true;
        status->network_namespace = policy->isolate_network;
        status->ipc_namespace = true;
    }
    if (mounted) {
        char options[160];
        snprintf(options, sizeof options, "size=%llu,nr_inodes=%llu,mode=0700", (unsigned long long)policy->private_size,
                 (unsigned long long)policy->private_files);
        if (root) snprintf(options + strlen(options), sizeof options - strlen(options), ",uid=%u,gid=%u", policy->run_as_user, policy->run_as_group);
        if (mount("graft-private", policy->private_folder, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options) == 0)
            status->private_tmpfs = true;
        else
            note_degraded(status, "a tmpfs of its own for its private folder", errno);
        int error = hide_other_processes(self);
        if (error == 0)
            status->own_proc = true;
        else
            note_degraded(status, "a /proc that shows only itself", error);
    }
    if (policy->data_folder) {
        char bound[sizeof status->data_path];
        bool fits = (size_t)snprintf(bound, sizeof bound, "%s/data", policy->private_folder) < sizeof bound;
        /* Bound, then made nosuid, nodev and noexec (a bind takes none of those at first). */
        if (fits && status->private_tmpfs && mkdir(bound, 0700) == 0 && (!root || chown(bound, policy->run_as_user, policy->run_as_group) == 0) &&
            mount(policy->data_folder, bound, NULL, MS_BIND, NULL) == 0 &&
            mount(NULL, bound, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0) {
            snprintf(status->data_path, sizeof status->data_path, "%s", bound);
        } else {
            /* Its own path, or for a root host (whose home the child cannot
             * cross) a descriptor opened now, as GRAFT_DATA_FD, named through
             * /proc/self/fd (the host knows that name: SandboxPolicy.dataDescriptor). */
            int data = root ? open(policy->data_folder, O_PATH | O_DIRECTORY) : -1;
            if (data >= 0 && dup2(data, GRAFT_DATA_FD) == GRAFT_DATA_FD) {
                snprintf(status->data_path, sizeof status->data_path, "/proc/self/fd/%d", GRAFT_DATA_FD);
                status->data_descriptor = GRAFT_DATA_FD;
            } else {
                snprintf(status->data_path, sizeof status->data_path, "%s", policy->data_folder);
            }
            if (data >= 0 && data != GRAFT_DATA_FD) close(data);
        }
    }
    if (root && policy->run_as_user != 0) {
        if (setgroups(0, NULL) != 0 || setresgid(policy->run_as_group, policy->run_as_group, policy->run_as_group) != 0 ||
            setresuid(policy->run_as_user, policy->run_as_user, policy->run_as_user) != 0) {
            note_degraded(status, "an unprivileged user for a child of root", errno);
        } else {
            status->user = policy->run_as_user;
            /* A changed user makes the process undumpable: its own /proc
             * entries would become root's, and the host could not read its memory. */
            prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        }
    }
    /* A new user (or namespace) clears the parent-death signal: set it again. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(70);
}

/* ---- The child's one entry ------------------------------------------------ */

static void drop_capabilities(void) {
    struct __user_cap_header_struct query = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct held[2];
    memset(held, 0, sizeof held);
    /* A process that holds none (any user but root) has nothing to drop: the
     * bounding set only matters to programs it could run, and it runs none. */
    if (syscall(SYS_capget, &query, held) == 0 && !(held[0].permitted | held[1].permitted | held[0].effective |
                                                    held[1].effective | held[0].inheritable | held[1].inheritable))
        return;
    /* The bounding set and the ambient set only shape what a program it
     * runs would hold, and it can run none (execve is refused, and
     * no_new_privs stands): clearing the sets it holds is enough. */
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    syscall(SYS_capset, &header, data);
}

int graft_sandbox_enter(const struct graft_sandbox_policy *policy, struct graft_sandbox_status *status) {
    memset(status, 0, sizeof *status);
    status->listener = -1;

    /* 0. Namespaces: a folder, a network and IPC of its own, only itself in
     * /proc; an unprivileged user for a child of root. */
    if (policy->private_folder) enter_namespaces(policy, status);

    /* 1. Limits: no core file (it would hold the plugin's memory), bounded
     * files and descriptors; a file grown past its limit fails the write
     * with EFBIG instead of killing the process. */
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    /* No real-time scheduling and no raised priority, whatever the host's user may have. */
    setrlimit(RLIMIT_RTPRIO, &none);
    setrlimit(RLIMIT_NICE, &none);
    if (policy->max_open_files) {
        struct rlimit files = {policy->max_open_files, policy->max_open_files};
        setrlimit(RLIMIT_NOFILE, &files);
    }
    uint64_t file_size = policy->max_file_size;
    /* A private folder on disk, which the host measures: no file of more than a quarter of it (SandboxPolicy.fileLimit). */
    if (policy->private_folder && !status->private_tmpfs && policy->private_size / 4 < file_size)
        file_size = policy->private_size / 4 > 4096 ? policy->private_size / 4 : 4096;
    if (file_size) {
        struct rlimit size = {file_size, file_size};
        setrlimit(RLIMIT_FSIZE, &size);
        signal(SIGXFSZ, SIG_IGN);
    }

    /* 2. No capabilities (a child of a root host has them all), and 3. no
     * way to gain privileges again (set-user-id programs, file capabilities);
     * Landlock and seccomp both require the latter of an unprivileged process. */
    drop_capabilities();
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        note_missing(status, "no_new_privs", errno);
        return -1;
    }

    /* 4. Landlock: files, TCP ports, signals and abstract sockets. */
    enter_landlock(policy, status);

    /* 5. seccomp: the system calls no component needs, refused; the ones
     * that name files, sockets or processes, asked of the host. */
    enter_seccomp(policy, status);

    return status->missing[0] == '\0' ? 0 : -1;
}

/* ---- The host's side -------------------------------------------------------- */

int graft_sandbox_receive(int listener, struct graft_sandbox_call *call) {
    struct seccomp_notif notification;
    memset(&notification, 0, sizeof notification);
    while (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &notification) != 0) {
        if (errno == EINTR) continue;
        return errno;
    }
    call->id = notification.id;
    call->pid = (pid_t)notification.pid;
    call->nr = notification.data.nr;
    call->arch = notification.data.arch;
    for (int i = 0; i < 6; i++) call->args[i] = notification.data.args[i];
    return 0;
}

int graft_sandbox_answer(int listener, uint64_t id, int error, bool proceed) {
    struct seccomp_notif_resp response;
    memset(&response, 0, sizeof response);
    response.id = id;
    if (proceed && error == 0) {
        response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    } else {
        response.error = -error;
    }
    while (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response) != 0) {
        if (errno == EINTR) continue;
        return errno;
    }
    return 0;
}

bool graft_sandbox_call_is_valid(int listener, uint64_t id) {
    return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

int graft_read_child_memory(pid_t pid, uint64_t address, void *buffer, size_t length) {
    struct iovec local = {.iov_base = buffer, .iov_len = length};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)address, .iov_len = length};
    ssize_t count = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (count < 0) return -1;
    if ((size_t)count != length) {
        errno = EFAULT;
        return -1;
    }
    return 0;
}

ssize_t graft_read_child_string(pid_t pid, uint64_t address, char *buffer, size_t capacity) {
    size_t length = 0;
    if (capacity == 0) {
        errno = EINVAL;
        return -1;
    }
    buffer[0] = '\0';
    const size_t page = 4096;
    while (length < capacity - 1) {
        /* Never across a page boundary: the next page may not be mapped. */
        size_t chunk = page - (size_t)((address + length) % page);
        if (chunk > capacity - 1 - length) chunk = capacity - 1 - length;
        struct iovec local = {.iov_base = buffer + length, .iov_len = chunk};
        struct iovec remote = {.iov_base = (void *)(uintptr_t)(address + length), .iov_len = chunk};
        ssize_t count = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (count <= 0) {
            buffer[length] = '\0';
            if (count == 0) errno = EFAULT;
            return -1;
        }
        void *end = memchr(buffer + length, '\0', (size_t)count);
        if (end) return (ssize_t)((char *)end - buffer);
        length += (size_t)count;
    }
    buffer[length] = '\0';
    errno = ENAMETOOLONG;
    return -1;
}

uint32_t graft_native_arch(void) {
    return seccomp_arch_native();
}

static int memory_copy(int source, uint64_t size, unsigned int flags) {
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
    int memory = memfd_create("graft-plugin", MFD_CLOEXEC | MFD_EXEC | flags);
    if (memory < 0 && errno == EINVAL) memory = memfd_create("graft-plugin", MFD_CLOEXEC | flags);
    if (memory < 0) return -1;
    off_t offset = 0;
    while ((uint64_t)offset < size) {
        ssize_t count = sendfile(memory, source, &offset, (size_t)(size - (uint64_t)offset));
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) {
            int saved = count == 0 ? EIO : errno;
            close(memory);
            errno = saved;
            return -1;
        }
    }
    return memory;
}

int graft_memory_copy(int source, uint64_t size) {
    return memory_copy(source, size, 0);
}

int graft_sealed_memory_copy(int source, uint64_t size) {
    int memory = memory_copy(source, size, MFD_ALLOW_SEALING);
    if (memory < 0) return -1;
    if (fcntl(memory, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        int saved = errno;
        close(memory);
        errno = saved;
        return -1;
    }
    return memory;
}

char *graft_library_defining(const char *symbol) {
    void *address = dlsym(RTLD_DEFAULT, symbol);
    Dl_info information;
    if (!address || dladdr(address, &information) == 0 || !information.dli_fname) return NULL;
    return strdup(information.dli_fname);
}

/* ---- What the host does on a child's behalf ---------------------------------- */

int graft_sandbox_answer_value(int listener, uint64_t id, int64_t value) {
    struct seccomp_notif_resp response;
    memset(&response, 0, sizeof response);
    response.id = id;
    response.val = value;
    while (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response) != 0) {
        if (errno == EINTR) continue;
        return errno;
    }
    return 0;
}

int graft_child_descriptor(int pidfd, int fd) {
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
    return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
}

int graft_open_in_root(int root, const char *path) {
    /* Component by component, never following a link: openat2's scoped
     * lookups refuse a root in another mount namespace (EXDEV). */
    if (path[0] != '/') {
        errno = EINVAL;
        return -1;
    }
    char copy[4096];
    if (strlen(path) >= sizeof copy) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(copy, path);
    int current = fcntl(root, F_DUPFD_CLOEXEC, 0);
    char *saved = NULL;
    for (char *part = strtok_r(copy, "/", &saved); current >= 0 && part; part = strtok_r(NULL, "/", &saved)) {
        if (strcmp(part, ".") == 0) continue;
        if (strcmp(part, "..") == 0) {
            close(current);
            errno = EXDEV;
            return -1;
        }
        int next = openat(current, part, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        struct stat information;
        if (next >= 0 && fstat(next, &information) == 0 && S_ISLNK(information.st_mode)) {
            close(next);
            next = -1;
            errno = ELOOP;
        }
        int saved_errno = errno;
        close(current);
        errno = saved_errno;
        current = next;
    }
    return current;
}

int graft_set_attribute(int fd, const char *name, const void *value, size_t size, int flags) {
    return fsetxattr(fd, name, value, size, flags);
}

int graft_remove_attribute(int fd, const char *name) {
    return fremovexattr(fd, name);
}
