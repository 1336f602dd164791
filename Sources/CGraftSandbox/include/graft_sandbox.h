/* The sandbox of Graft's child processes (scanner, runner, conformance):
 * what a child applies to itself before any plugin byte is mapped, and the
 * host's side of the seccomp filter, which answers the acts the filter
 * refuses and so learns of each one without the plugin's help.
 *
 * The order in graft_sandbox_enter is the design: limits, capabilities
 * dropped, no_new_privs, Landlock (files, TCP ports, scopes), then the
 * seccomp filter (libseccomp) whose listener descriptor goes to the host. */
#ifndef GRAFT_SANDBOX_H
#define GRAFT_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a child may touch. Every array is NULL-terminated (ports: counted);
 * a folder that does not exist is skipped. */
struct graft_sandbox_policy {
    /* Read, list and map executable: the system's and the Swift runtime's libraries. */
    const char *const *library_folders;
    /* Read and list (granted folders, a few system files such as /etc/localtime). */
    const char *const *read_paths;
    /* Read, write, create and remove, never execute: the child's private
     * temporary folder, a plugin's data folder. */
    const char *const *write_folders;
    /* TCP ports the child may connect to; `any_network` allows every TCP and
     * UDP connection instead. Binding a port is never allowed. */
    const uint16_t *connect_ports;
    size_t connect_port_count;
    bool any_network;
    /* RLIMIT_NOFILE and RLIMIT_FSIZE (0: unchanged); core files are always off. */
    uint64_t max_open_files;
    uint64_t max_file_size;
    /* The seccomp filter as graft_sandbox_filter built it for this policy, in
     * lowercase hexadecimal (it travels on the child's command line),
     * installed with one system call; NULL: the child builds it with libseccomp. */
    const char *filter;

    /* Namespaces (see graft_sandbox_enter's step 0). `private_folder`: the
     * child's private folder, where a tmpfs of its own is mounted, of at most
     * `private_size` bytes and `private_files` files; NULL: no namespaces. */
    const char *private_folder;
    uint64_t private_size;
    uint64_t private_files;
    /* A plugin's data folder, bound into the private folder as `data` (or
     * reached through a descriptor); NULL: none. */
    const char *data_folder;
    /* An empty network namespace: no route, nothing of the machine's sockets. */
    bool isolate_network;
    /* What a child of a root host runs as (a child of any other user stays that user). */
    uint32_t run_as_user;
    uint32_t run_as_group;
    /* The empty network namespace its host keeps (graft_keep_namespaces),
     * the IPC namespace kept with it, and the user namespace that owns both
     * (-1 for a root host's), as descriptors the child holds; -1: the child
     * makes its own. Closed by graft_sandbox_enter. */
    int network_fd;
    int user_fd;
    int ipc_fd;
};

/* What graft_sandbox_enter managed to apply. */
struct graft_sandbox_status {
    /* The kernel's Landlock ABI version, 0 without Landlock. */
    int landlock_abi;
    bool landlock_files;
    bool landlock_network;
    bool landlock_scopes;
    bool seccomp;
    /* The seccomp listener (user notification) descriptor, or -1. The child
     * sends it to its host and closes its own copy. */
    int listener;
    /* Why a part could not be applied, for the host's sandbox_unavailable
     * warning ("" when everything was). */
    char missing[512];

    /* The namespaces: which parts hold, and why the others do not (a
     * warning: Landlock and seccomp hold either way). */
    bool private_tmpfs;
    bool network_namespace;
    bool ipc_namespace;
    bool own_proc;
    /* The user id the child runs as, as the host's system sees it. */
    uint32_t user;
    /* Where the child reaches its data folder ("" when it has none), and
     * the descriptor it holds on it when that is how (else 0). */
    char data_path[512];
    int data_descriptor;
    char degraded[512];
};

/* Applies `policy` to the calling process, which must be single-threaded
 * (nothing is started before it in a Graft child). Returns 0 when every part
 * was applied, else -1 with `status->missing` saying what was not; the parts
 * that were applied stay applied either way. */
int graft_sandbox_enter(const struct graft_sandbox_policy *policy, struct graft_sandbox_status *status);

/* The keeper of its host's children's empty network: moves into a network
 * namespace of its own (inside a user namespace that maps it to itself,
 * unless it is root), writes one byte to `channel`, then waits until the
 * host closes it (having opened /proc/PID/ns/net, which keeps the namespace)
 * and exits. The host's children join that namespace instead of each making
 * one. Returns an errno value when the kernel refuses. */
int graft_keep_namespaces(int channel);

/* Builds the seccomp filter for `policy` with libseccomp, as the BPF program
 * graft_sandbox_enter installs: what a host does once, so that each child
 * does not build it again. The program names no process: it fits every child
 * with the same network grants. Returns 0 and sets *hex (the program in
 * lowercase hexadecimal, NUL-terminated, malloc'd: the caller frees it), or
 * an errno value (ENOTSUP: this libseccomp or kernel has no user notification). */
int graft_sandbox_filter(const struct graft_sandbox_policy *policy, char **hex);

/* The kernel's Landlock ABI version (0 when it has none or it is disabled). */
int graft_landlock_abi(void);

/* What this kernel (and the seccomp policy this process runs under) would
 * let graft_sandbox_enter apply, asked without applying anything: Landlock's
 * ABI, whether seccomp filters and user notification are there. Fills the
 * same fields, `missing` in the same words; `listener` is -1. */
void graft_sandbox_probe(struct graft_sandbox_status *status);

/* A private copy of `size` bytes of the open file `source` in memory
 * (memfd_create, executable even where vm.memfd_noexec says otherwise when
 * the kernel knows MFD_EXEC; copied in the kernel with sendfile): what a
 * sandboxed child maps, since Landlock refuses to open a file again by any
 * path. Returns the descriptor (close-on-exec), or -1 with errno set. */
int graft_memory_copy(int source, uint64_t size);

/* The same copy, then sealed (F_SEAL_WRITE, SHRINK, GROW and SEAL): nobody,
 * not even a process it is sent to, can change its bytes. What a host that
 * expects its plugin files to be rewritten checks and maps, so that what it
 * checked is what runs. Returns the descriptor, or -1 with errno set. */
int graft_sealed_memory_copy(int source, uint64_t size);

/* The path of the loaded image that defines `symbol` (dladdr), or NULL.
 * Owned by the caller: free(). */
char *graft_library_defining(const char *symbol);

/* ---- The host's side of the filter ------------------------------------- */

/* One refused or questioned system call, as the listener reports it. */
struct graft_sandbox_call {
    uint64_t id;
    pid_t pid;      /* the calling thread */
    int nr;         /* the system call number */
    uint32_t arch;  /* its AUDIT_ARCH_* value: another than the host's is a foreign ABI (i386, x32) */
    uint64_t args[6];
};

/* The AUDIT_ARCH_* value of this process's own system calls. */
uint32_t graft_native_arch(void);

/* Waits for the next notification on `listener`. Returns 0, or an errno
 * value (ENOENT: the call went away, its thread was killed; anything else:
 * the listener is dead, its child gone). */
int graft_sandbox_receive(int listener, struct graft_sandbox_call *call);

/* Answers `id`: `error` 0 with `proceed` lets the call run as the kernel (and
 * Landlock) decide; a positive errno fails it with that error. Returns 0, or
 * an errno value (ENOENT: the call went away). */
int graft_sandbox_answer(int listener, uint64_t id, int error, bool proceed);

/* Answers `id` with `value`, as if the call had returned it: for a call the
 * host did itself on the child's behalf. Returns 0, or an errno value. */
int graft_sandbox_answer_value(int listener, uint64_t id, int64_t value);

/* A copy (close-on-exec) of the descriptor `fd` of the process `pidfd` names
 * (pidfd_getfd): the same open file, which the child can no longer swap for
 * another. Returns it, or -1 with errno set. */
int graft_child_descriptor(int pidfd, int fd);

/* Opens the absolute `path` (O_PATH) as a process whose root is `root`
 * (/proc/PID/root: the child's own mount namespace) would see it, one
 * component at a time, refusing `..` (EXDEV) and every symbolic link
 * (ELOOP): what it opens lies lexically beneath each folder the path names.
 * Returns the descriptor, or -1 with errno set. */
int graft_open_in_root(int root, const char *path);

/* fsetxattr and fremovexattr (which Swift's Glibc module does not export),
 * for the host's own copy of a child's descriptor. 0, or -1 with errno set. */
int graft_set_attribute(int fd, const char *name, const void *value, size_t size, int flags);
int graft_remove_attribute(int fd, const char *name);

/* Whether `id` still waits on `listener`: checked after reading the caller's
 * memory, so that what was read belongs to that call. */
bool graft_sandbox_call_is_valid(int listener, uint64_t id);

/* Reads up to `capacity - 1` bytes of a NUL-terminated string at `address`
 * in process `pid` (process_vm_readv, page by page); returns its length, or
 * -1 with errno set. `buffer` is always NUL-terminated. */
ssize_t graft_read_child_string(pid_t pid, uint64_t address, char *buffer, size_t capacity);

/* Reads `length` bytes at `address` in process `pid`. Returns 0, or -1 with errno set. */
int graft_read_child_memory(pid_t pid, uint64_t address, void *buffer, size_t length);

/* ---- The list of system calls (graft_sandbox_calls.c) ----------------------- */

/* What the filter does with a call. */
#define GRAFT_CALL_UNLISTED 0u    /* on no list: ENOSYS, reported */
#define GRAFT_CALL_ALLOWED 1u     /* allowed in the filter */
#define GRAFT_CALL_CONDITIONAL 2u /* allowed in the filter on conditions; otherwise asked or refused */
#define GRAFT_CALL_ASKED 3u       /* asked of the host */
#define GRAFT_CALL_REFUSED 4u     /* refused (error below), reported */
#define GRAFT_CALL_REDIRECTED 5u  /* ENOSYS in the filter, unreported, so that the C library falls back (clone3) */

struct graft_sandbox_entry {
    uint32_t verdict;
    int error;          /* what a refusal answers */
    const char *group;  /* static strings */
    const char *reason; /* the group's reason, or the call's condition */
};

/* The verdict on the call `name`. Returns 1 when it is on a list, 0 when not
 * (the entry then says unlisted and ENOSYS). */
int graft_sandbox_listing(const char *name, struct graft_sandbox_entry *entry);

/* The number of the system call `name` on this architecture, or -1. */
int graft_syscall_number(const char *name);

/* The number of `name` on the architecture libseccomp calls `arch` ("x86_64", "aarch64"), or -1. */
int graft_syscall_number_on(const char *arch, const char *name);

/* The system call's name (libseccomp's table, and the calls newer than it), or NULL. Owned by the caller: free(). */
char *graft_syscall_name(int nr);

/* For the filter: the calls of group `index` when its verdict is `verdict`, else NULL (NULL-terminated, static). */
int graft_sandbox_group_count(void);
const char *const *graft_sandbox_group_calls(int index, uint32_t verdict);

#endif
