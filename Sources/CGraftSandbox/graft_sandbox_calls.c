/* The sandbox's list of system calls: what a child may make, what it must ask
 * its host about, what is refused and why. One table, read by the filter
 * (graft_sandbox.c builds the seccomp program from it), by the host's judge
 * (graft_sandbox_listing names the group and the error of a call it is asked
 * about) and by the docs (a test prints every call's verdict and checks
 * Security.md's table against it).
 *
 * The filter starts from "refuse": a call on no list here is answered ENOSYS
 * (the C library then falls back to an older call, as on an older kernel),
 * and so is every call the kernel adds after this list was written. Groups
 * follow systemd's SystemCallFilter= sets and Chromium's baseline policy:
 * what the C and Swift runtimes need to run a component (memory, threads,
 * futexes, signals, time, I/O on descriptors the child holds) is allowed;
 * calls that name a file by path are asked of the host, and Landlock decides
 * them too; the rest is refused, each group with its reason. */
#define _GNU_SOURCE
#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "graft_sandbox.h"

/* Each group: its name (as the docs print it), why, its verdict, the error a
 * refusal answers, and its calls. A name this libseccomp or architecture does
 * not know is skipped. */
struct group {
    const char *name;
    const char *reason;
    uint32_t verdict;
    int error;
    const char *const *calls;
};

/* ---- Allowed: what the runtimes and a component need ------------------- */

static const char *const process_calls[] = {
    "exit", "exit_group", "restart_syscall", "rt_sigreturn", "arch_prctl", "set_tid_address", "set_robust_list", "rseq",
    "getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid", "getgroups", "getresuid", "getresgid",
    "getpgrp", "uname", "sysinfo", "getrusage", "times", "getcpu", "umask", "capget", "getrandom", "membarrier",
    "sched_yield", "sched_get_priority_max", "sched_get_priority_min", "getrlimit", "setrlimit", "wait4", "waitid",
    NULL};

static const char *const memory_calls[] = {
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mincore", "msync", "mlock", "mlock2", "munlock",
    "mlockall", "munlockall", "pkey_mprotect", "pkey_alloc", "pkey_free", "map_shadow_stack",
    "get_mempolicy", "set_mempolicy", "mbind", "mseal", NULL};

static const char *const thread_calls[] = {"futex", "futex_waitv", "futex_wake", "futex_wait", "futex_requeue", NULL};

static const char *const signal_calls[] = {
    "rt_sigaction", "rt_sigprocmask", "rt_sigpending", "rt_sigsuspend", "rt_sigtimedwait", "sigaltstack", "signalfd",
    "signalfd4", "pause", "alarm", "getitimer", "setitimer", "timer_create", "timer_settime", "timer_gettime",
    "timer_getoverrun", "timer_delete", NULL};

static const char *const time_calls[] = {
    "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time", "timerfd_create",
    "timerfd_settime", "timerfd_gettime", NULL};

static const char *const descriptor_calls[] = {
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2", "lseek",
    "close", "close_range", "dup", "dup2", "dup3", "flock", "fsync", "fdatasync", "sync_file_range",
    "ftruncate", "fstat", "fstatfs", "fadvise64", "readahead", "sendfile", "copy_file_range", "splice",
    "tee", "pipe", "pipe2", "eventfd", "eventfd2", "poll", "ppoll", "select", "pselect6", "epoll_create",
    "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "getdents", "getdents64", "fgetxattr",
    "flistxattr", "inotify_init", "inotify_init1", "inotify_rm_watch", NULL};

static const char *const lookup_calls[] = {
    "stat", "lstat", "newfstatat", "statx", "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getcwd",
    "chdir", "fchdir", "statfs", NULL};

static const char *const socket_io_calls[] = {
    "recvfrom", "recvmsg", "recvmmsg", "shutdown", "getsockopt", "setsockopt", "getsockname", "getpeername", NULL};

/* ---- Allowed on conditions the filter checks (build_filter), else asked or refused ---- */

/* Each with the condition in words, for the host's reports and the docs. */
static const struct {
    const char *name;
    const char *condition;
} conditional_calls[] = {
    {"clone", "a new thread (CLONE_THREAD with the process's memory, descriptors and folder, no namespace flag); a new "
              "process is refused"},
    {"fcntl", "descriptors, status flags, locks, seals and pipe sizes; not F_NOTIFY (a watch on a folder), F_SETLEASE, "
              "F_SETOWN or F_SETSIG"},
    {"socket", "an Internet socket a grant allows: TCP for granted ports, TCP and UDP (MPTCP too) for network:any; none else"},
    {"connect", "network:any; with granted ports, asked (Landlock decides the port); refused without a grant"},
    {"sendto", "no address and no MSG_FASTOPEN (an implicit connect), unless network:any"},
    {"sendmsg", "no MSG_FASTOPEN, unless network:any"},
    {"sendmmsg", "no MSG_FASTOPEN, unless network:any"},
    {"ioctl", "FIONREAD, FIONBIO, FIOCLEX, FIONCLEX, TCGETS and TIOCGWINSZ only"},
    {"prctl", "names, dumpable and no_new_privs queries, timer slack, transparent huge pages, memory-area names and the "
              "other options that concern the process alone; not PR_SET_DUMPABLE, PR_SET_SECCOMP, PR_SET_MM or PR_SET_PTRACER"},
    {"personality", "the query (0xffffffff) only"},
    {"kill", "its own process; others asked, and refused"},
    {"tgkill", "its own process; others asked, and refused"},
    {"tkill", "asked: allowed for its own threads"},
    {"rt_sigqueueinfo", "its own process; others asked, and refused"},
    {"rt_tgsigqueueinfo", "its own process; others asked, and refused"},
    {"prlimit64", "the calling process (0); others asked: allowed for its own"},
    {"get_robust_list", "the calling thread (0); others asked: allowed for its own"},
    {"sched_setaffinity", "the calling thread (0); others asked: allowed for its own"},
    {"sched_getaffinity", "the calling thread (0); others asked: allowed for its own"},
    {"sched_setscheduler", "the calling thread (0); others asked: allowed for its own"},
    {"sched_getscheduler", "the calling thread (0); others asked: allowed for its own"},
    {"sched_setparam", "the calling thread (0); others asked: allowed for its own"},
    {"sched_getparam", "the calling thread (0); others asked: allowed for its own"},
    {"sched_setattr", "the calling thread (0); others asked: allowed for its own"},
    {"sched_getattr", "the calling thread (0); others asked: allowed for its own"},
    {"sched_rr_get_interval", "the calling thread (0); others asked: allowed for its own"},
    {"getpgid", "the calling process (0); others asked: allowed for its own"},
    {"getsid", "the calling process (0); others asked: allowed for its own"},
    {"setpriority", "the calling process (PRIO_PROCESS, 0); asked for another of its own threads; a group or a user refused"},
    {"getpriority", "the calling process (PRIO_PROCESS, 0); asked for another of its own threads; a group or a user refused"},
    {"ioprio_set", "the calling thread (IOPRIO_WHO_PROCESS, 0); asked for another of its own; a group or a user refused"},
    {"ioprio_get", "the calling thread (IOPRIO_WHO_PROCESS, 0); asked for another of its own; a group or a user refused"},
    {"memfd_create", "asked: at most 8 memory files held at once (their pages count against no address-space limit "
                     "until mapped)"},
    {"fallocate", "asked: mode 0 only, which a file's size limit bounds (what it allocates counts against the child's "
                  "folder limits); keeping the size (blocks past its end), punching or collapsing holes refused"},
    {"utimensat", "asked without a path (a descriptor's own file): done by the host on a file the child opened for "
                  "writing; refused with a path"},
};

/* ---- Asked of the host ------------------------------------------------------ */

static const char *const path_calls[] = {
    "open", "openat", "openat2", "creat", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat",
    "renameat2", "link", "linkat", "symlink", "symlinkat", "truncate", "mknod", "mknodat", NULL};

/* A metadata change or a watch on a descriptor or path: the host checks
 * what it names itself and does it, so no path can change in between. */
static const char *const done_by_host_calls[] = {"fchmod", "fsetxattr", "fremovexattr", "inotify_add_watch", NULL};

/* ---- Refused -------------------------------------------------------------------- */

static const char *const metadata_calls[] = {
    "chmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime", "utimes", "futimesat",
    "setxattr", "lsetxattr", "removexattr", "lremovexattr", "setxattrat", "removexattrat", "file_setattr", "file_getattr",
    NULL};

/* Extended attributes read by path: Landlock does not cover them, so a plugin
 * could read any file's (a download's origin URL, say); fgetxattr and
 * flistxattr on a descriptor it holds stay allowed. */
static const char *const attribute_read_calls[] = {
    "getxattr", "lgetxattr", "listxattr", "llistxattr", "getxattrat", "listxattrat", NULL};

static const char *const new_process_calls[] = {"fork", "vfork", "execve", "execveat", "setsid", "setpgid", NULL};

static const char *const other_process_calls[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_open", "pidfd_getfd", "pidfd_send_signal",
    "process_madvise", "process_mrelease", "migrate_pages", "move_pages", "set_mempolicy_home_node", NULL};

static const char *const ipc_calls[] = {
    "socketpair", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl", "shmget", "shmat",
    "shmdt", "shmctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr", NULL};

static const char *const serving_calls[] = {"bind", "listen", "accept", "accept4", NULL};

static const char *const namespace_calls[] = {
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "mount_setattr", "move_mount", "open_tree",
    "open_tree_attr", "fsopen", "fsconfig", "fsmount", "fspick", "statmount", "listmount", "name_to_handle_at",
    "open_by_handle_at", NULL};

static const char *const identity_calls[] = {
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups", "setfsuid", "setfsgid", "capset",
    NULL};

static const char *const kernel_calls[] = {
    "bpf", "perf_event_open", "add_key", "request_key", "keyctl", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents",
    "userfaultfd", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon",
    "swapoff", "acct", "quotactl", "quotactl_fd", "syslog", "iopl", "ioperm", "modify_ldt", "lookup_dcookie",
    "fanotify_init", "fanotify_mark", "uselib", "vhangup", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "sethostname", "setdomainname", "sync", "syncfs", "sysfs", "ustat", "_sysctl", "cachestat",
    "memfd_secret", "remap_file_pages", NULL};

static const char *const sandbox_calls[] = {
    "seccomp", "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self", "lsm_get_self_attr",
    "lsm_set_self_attr", "lsm_list_modules", NULL};

static const struct group groups[] = {
    {"process", "the process's own bookkeeping: exiting, thread-local storage, restartable sequences, its own ids and limits",
     GRAFT_CALL_ALLOWED, 0, process_calls},
    {"memory", "mapping, protecting and releasing its own memory (the plugin itself is mapped from a memory file)",
     GRAFT_CALL_ALLOWED, 0, memory_calls},
    {"threads", "futexes, the locks every thread library is built on", GRAFT_CALL_ALLOWED, 0, thread_calls},
    {"signals", "its own signal handlers, masks and timers", GRAFT_CALL_ALLOWED, 0, signal_calls},
    {"time", "reading clocks and sleeping", GRAFT_CALL_ALLOWED, 0, time_calls},
    {"descriptors", "I/O on descriptors it holds (only what it was given or could open)", GRAFT_CALL_ALLOWED, 0,
     descriptor_calls},
    {"lookups", "looking up names, sizes and times of paths: they change nothing, and opening is asked", GRAFT_CALL_ALLOWED, 0,
     lookup_calls},
    {"socket-io", "I/O and options on sockets it holds (it can make only those its grants allow)", GRAFT_CALL_ALLOWED, 0,
     socket_io_calls},
    {"paths", "a file by path: the host decides by the policy, and Landlock decides again", GRAFT_CALL_ASKED, EACCES,
     path_calls},
    {"done-by-host", "done by the host on the child's behalf: fchmod and user.* attributes on a regular file the child "
     "opened for writing, a watch on a folder of its own", GRAFT_CALL_ASKED, EPERM, done_by_host_calls},
    {"metadata", "changing a file's mode, owner, times or attributes: Landlock does not cover it", GRAFT_CALL_REFUSED, EPERM,
     metadata_calls},
    {"attributes-by-path", "reading a file's extended attributes by its path: Landlock does not cover it (a descriptor's "
     "own stay readable)", GRAFT_CALL_REFUSED, EPERM, attribute_read_calls},
    {"new-processes", "starting a program or a process, or leaving the host's session or process group", GRAFT_CALL_REFUSED, EPERM,
     new_process_calls},
    {"other-processes", "reaching another process's memory, descriptors or pages", GRAFT_CALL_REFUSED, EPERM,
     other_process_calls},
    {"ipc", "talking to other processes outside the channel: Unix socket pairs, System V and POSIX message IPC",
     GRAFT_CALL_REFUSED, EPERM, ipc_calls},
    {"serving", "accepting connections: a plugin serves nothing", GRAFT_CALL_REFUSED, EACCES, serving_calls},
    {"namespaces", "namespaces, mounts, roots and file handles", GRAFT_CALL_REFUSED, EPERM, namespace_calls},
    {"identity", "changing its user, groups or capabilities", GRAFT_CALL_REFUSED, EPERM, identity_calls},
    {"kernel", "kernel surface no component needs (BPF, perf, keyrings, io_uring, modules, clocks, swap, raw I/O)",
     GRAFT_CALL_REFUSED, EPERM, kernel_calls},
    {"sandbox", "filters and security modules of its own (they could silence the reports)", GRAFT_CALL_REFUSED, EPERM,
     sandbox_calls},
};

/* Calls this libseccomp may not know by name, by their number on every
 * architecture since Linux 6.6 (new calls share one table). */
static const struct {
    int nr;
    const char *name;
} recent_calls[] = {
    {457, "statmount"},        {458, "listmount"},    {459, "lsm_get_self_attr"}, {460, "lsm_set_self_attr"},
    {461, "lsm_list_modules"}, {462, "mseal"},        {463, "setxattrat"},        {464, "getxattrat"},
    {465, "listxattrat"},      {466, "removexattrat"}, {467, "open_tree_attr"},   {468, "file_getattr"},
    {469, "file_setattr"},
};

int graft_syscall_number(const char *name) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr != __NR_SCMP_ERROR) return nr;
    for (size_t i = 0; i < sizeof recent_calls / sizeof recent_calls[0]; i++)
        if (strcmp(recent_calls[i].name, name) == 0) return recent_calls[i].nr;
    return -1;
}

int graft_syscall_number_on(const char *arch, const char *name) {
    uint32_t token = seccomp_arch_resolve_name(arch);
    if (token == 0) return -1;
    int nr = seccomp_syscall_resolve_name_arch(token, name);
    return nr == __NR_SCMP_ERROR ? -1 : nr;
}

char *graft_syscall_name(int nr) {
    char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    if (name) return name;
    for (size_t i = 0; i < sizeof recent_calls / sizeof recent_calls[0]; i++)
        if (recent_calls[i].nr == nr) return strdup(recent_calls[i].name);
    return NULL;
}

int graft_sandbox_listing(const char *name, struct graft_sandbox_entry *entry) {
    memset(entry, 0, sizeof *entry);
    entry->verdict = GRAFT_CALL_UNLISTED;
    entry->error = ENOSYS;
    entry->group = "unlisted";
    entry->reason = "on no list: answered as a kernel without it would answer";
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        for (const char *const *call = groups[g].calls; *call; call++) {
            if (strcmp(*call, name) != 0) continue;
            entry->verdict = groups[g].verdict;
            entry->error = groups[g].error;
            entry->group = groups[g].name;
            entry->reason = groups[g].reason;
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof conditional_calls / sizeof conditional_calls[0]; i++) {
        if (strcmp(conditional_calls[i].name, name) != 0) continue;
        entry->verdict = GRAFT_CALL_CONDITIONAL;
        entry->error = EPERM;
        entry->group = "conditional";
        entry->reason = conditional_calls[i].condition;
        return 1;
    }
    /* clone3 passes its flags in memory the filter cannot read: ENOSYS in
     * the filter, unreported, so that the C library falls back to clone. */
    if (strcmp(name, "clone3") == 0) {
        entry->verdict = GRAFT_CALL_REDIRECTED;
        entry->group = "threads";
        entry->reason = "its flags are in memory the filter cannot read: ENOSYS, and the C library uses clone";
        return 1;
    }
    return 0;
}

int graft_sandbox_group_count(void) {
    return (int)(sizeof groups / sizeof groups[0]);
}

const char *const *graft_sandbox_group_calls(int index, uint32_t verdict) {
    if (index < 0 || index >= graft_sandbox_group_count() || groups[index].verdict != verdict) return NULL;
    return groups[index].calls;
}
