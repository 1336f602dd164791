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
};

/* Applies `policy` to the calling process, which must be single-threaded
 * (nothing is started before it in a Graft child). Returns 0 when every part
 * was applied, else -1 with `status->missing` saying what was not; the parts
 * that were applied stay applied either way. */
int graft_sandbox_enter(const struct graft_sandbox_policy *policy, struct graft_sandbox_status *status);

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

/* The path of the loaded image that defines `symbol` (dladdr), or NULL.
 * Owned by the caller: free(). */
char *graft_library_defining(const char *symbol);

/* ---- The host's side of the filter ------------------------------------- */

/* One refused or questioned system call, as the listener reports it. */
struct graft_sandbox_call {
    uint64_t id;
    pid_t pid;      /* the calling thread */
    int nr;         /* the system call number */
    uint64_t args[6];
};

/* Waits for the next notification on `listener`. Returns 0, or an errno
 * value (ENOENT: the call went away, its thread was killed; anything else:
 * the listener is dead, its child gone). */
int graft_sandbox_receive(int listener, struct graft_sandbox_call *call);

/* Answers `id`: `error` 0 with `proceed` lets the call run as the kernel (and
 * Landlock) decide; a positive errno fails it with that error. Returns 0, or
 * an errno value (ENOENT: the call went away). */
int graft_sandbox_answer(int listener, uint64_t id, int error, bool proceed);

/* Whether `id` still waits on `listener`: checked after reading the caller's
 * memory, so that what was read belongs to that call. */
bool graft_sandbox_call_is_valid(int listener, uint64_t id);

/* Reads up to `capacity - 1` bytes of a NUL-terminated string at `address`
 * in process `pid` (process_vm_readv, page by page); returns its length, or
 * -1 with errno set. `buffer` is always NUL-terminated. */
ssize_t graft_read_child_string(pid_t pid, uint64_t address, char *buffer, size_t capacity);

/* Reads `length` bytes at `address` in process `pid`. Returns 0, or -1 with errno set. */
int graft_read_child_memory(pid_t pid, uint64_t address, void *buffer, size_t length);

/* The system call's name (libseccomp's table), or NULL. Owned by the caller: free(). */
char *graft_syscall_name(int nr);

#endif
