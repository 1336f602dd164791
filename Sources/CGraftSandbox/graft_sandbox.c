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
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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

/* What no component needs: refused (and reported to the host) whatever the arguments. */
static const char *const refused_calls[] = {
    /* new processes and programs */
    "fork", "vfork", "execve", "execveat",
    /* other processes' memory and state */
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_open", "pidfd_getfd", "pidfd_send_signal",
    "process_madvise", "process_mrelease",
    /* namespaces, mounts, roots */
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "mount_setattr", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick",
    /* kernel surface no component needs */
    "bpf", "perf_event_open", "add_key", "request_key", "keyctl", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "userfaultfd", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "open_by_handle_at",
    "name_to_handle_at", "syslog", "iopl", "ioperm", "lookup_dcookie", "fanotify_init", "uselib", "vhangup",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    /* leaving the host's session, and filters that would silence this one */
    "setsid", "seccomp",
    /* binding and listening: a plugin serves nothing */
    "bind", "listen",
    NULL};

/* Asked of the host, which looks at the arguments: files (by path), sockets,
 * and calls that name a process (allowed for the child's own). */
static const char *const questioned_calls[] = {
    "open", "openat", "openat2", "creat", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat",
    "renameat2", "link", "linkat", "symlink", "symlinkat", "truncate", "mknod", "mknodat", "chmod", "fchmodat",
    "fchmodat2", "chown", "lchown", "fchownat", "setxattr", "lsetxattr", "removexattr", "lremovexattr", "utime",
    "utimes", "futimesat", "utimensat", "fchmod", "fchown", "fsetxattr", "fremovexattr", "socket",
    NULL};

/* Calls that name a process or thread in their first argument: the child's
 * own pid passes in the filter (the common case, raise() and setrlimit());
 * 0 passes where it means "the caller"; any other goes to the host. */
static const char *const own_process_calls[] = {"kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", NULL};
static const char *const zero_is_self_calls[] = {
    "prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr", "migrate_pages",
    "move_pages", "get_robust_list", "setpgid", NULL};

static int add_rules(scmp_filter_ctx filter, uint32_t action, const char *const *names) {
    for (; *names; names++) {
        int nr = seccomp_syscall_resolve_name(*names);
        if (nr == __NR_SCMP_ERROR) continue; /* unknown to this libseccomp: the kernel may lack it too */
        int result = seccomp_rule_add(filter, action, nr, 0);
        if (result != 0) return result;
    }
    return 0;
}

/* The rules. `self` is the child's process id, whose own signals pass in the
 * filter; 0 when the host builds a filter for any child (they are asked). */
static int build_filter(scmp_filter_ctx filter, uint32_t deny, uint32_t ask, const struct graft_sandbox_policy *policy,
                        pid_t self) {
    int result = seccomp_attr_set(filter, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    /* No speculative-store-bypass mitigation forced on the child: it guards
     * a process's memory against code running inside it, and here all of the
     * child is the plugin's already; it would slow every call by a fifth. */
    if (result == 0) result = seccomp_attr_set(filter, SCMP_FLTATR_CTL_SSB, 1);
    /* A binary tree of system call numbers rather than a list: the kernel
     * runs the filter once per system call number when it installs it (to
     * learn which always pass), so a list of 150 instructions cost each
     * child's start about 90 µs more than the tree. */
    if (result == 0) result = seccomp_attr_set(filter, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    if (result == 0) result = add_rules(filter, deny, refused_calls);
    if (result == 0) result = add_rules(filter, ask, questioned_calls);
    for (const char *const *name = own_process_calls; result == 0 && *name; name++) {
        int nr = seccomp_syscall_resolve_name(*name);
        if (nr == __NR_SCMP_ERROR) continue;
        result = self ? seccomp_rule_add(filter, ask, nr, 1, SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)self))
                      : seccomp_rule_add(filter, ask, nr, 0);
    }
    for (const char *const *name = zero_is_self_calls; result == 0 && *name; name++) {
        int nr = seccomp_syscall_resolve_name(*name);
        if (nr != __NR_SCMP_ERROR) result = seccomp_rule_add(filter, ask, nr, 1, SCMP_A0(SCMP_CMP_NE, 0));
    }
    /* tkill names a thread only: the host checks it is one of the child's. */
    if (result == 0) result = seccomp_rule_add(filter, ask, SCMP_SYS(tkill), 0);
    /* A new process is a clone without CLONE_THREAD; threads are what the runtime needs. */
    if (result == 0) result = seccomp_rule_add(filter, deny, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    /* clone3 passes its flags in memory the filter cannot read: ENOSYS, so
     * that the C library falls back to clone, which the rule above sees. */
    if (result == 0) result = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    /* The process's own priority and its own threads' I/O priority only. */
    if (result == 0) result = seccomp_rule_add(filter, deny, SCMP_SYS(setpriority), 1, SCMP_A0(SCMP_CMP_NE, PRIO_PROCESS));
    if (result == 0) result = seccomp_rule_add(filter, ask, SCMP_SYS(setpriority), 1, SCMP_A1(SCMP_CMP_NE, 0));
    if (result == 0) result = seccomp_rule_add(filter, ask, SCMP_SYS(ioprio_set), 1, SCMP_A1(SCMP_CMP_NE, 0));
    /* prctl: no new filter (it could silence this one's reports), no hiding
     * this process's memory from the host (which reads the paths it is asked
     * about), no rewriting of its memory map's description. */
    static const int refused_prctl[] = {PR_SET_SECCOMP, PR_SET_DUMPABLE, PR_SET_MM, PR_SET_PTRACER};
    for (size_t i = 0; result == 0 && i < sizeof refused_prctl / sizeof refused_prctl[0]; i++)
        result = seccomp_rule_add(filter, deny, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)refused_prctl[i]));
    /* With ports granted, each connect is looked at: its port, for the report
     * (Landlock refuses it either way). */
    if (result == 0 && !policy->any_network && policy->connect_port_count > 0)
        result = seccomp_rule_add(filter, ask, SCMP_SYS(connect), 0);
    return result;
}

int graft_sandbox_filter(const struct graft_sandbox_policy *policy, char **hex) {
    *hex = NULL;
    if (seccomp_api_get() < 6) return ENOTSUP;
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (!filter) return ENOMEM;
    int result = build_filter(filter, SCMP_ACT_NOTIFY, SCMP_ACT_NOTIFY, policy, 0);
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
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (!filter) {
        note_missing(status, "seccomp (libseccomp could not start a filter)", ENOMEM);
        return;
    }
    uint32_t deny = notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM);
    uint32_t ask = notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ALLOW;
    int result = build_filter(filter, deny, ask, policy, getpid());
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

    /* 1. Limits: no core file (it would hold the plugin's memory), bounded
     * files and descriptors; a file grown past its limit fails the write
     * with EFBIG instead of killing the process. */
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    if (policy->max_open_files) {
        struct rlimit files = {policy->max_open_files, policy->max_open_files};
        setrlimit(RLIMIT_NOFILE, &files);
    }
    if (policy->max_file_size) {
        struct rlimit size = {policy->max_file_size, policy->max_file_size};
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

char *graft_syscall_name(int nr) {
    return seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
}

int graft_memory_copy(int source, uint64_t size) {
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
    int memory = memfd_create("graft-plugin", MFD_CLOEXEC | MFD_EXEC);
    if (memory < 0 && errno == EINVAL) memory = memfd_create("graft-plugin", MFD_CLOEXEC);
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

char *graft_library_defining(const char *symbol) {
    void *address = dlsym(RTLD_DEFAULT, symbol);
    Dl_info information;
    if (!address || dladdr(address, &information) == 0 || !information.dli_fname) return NULL;
    return strdup(information.dli_fname);
}
