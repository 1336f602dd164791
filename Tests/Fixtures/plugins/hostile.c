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
// child that waits), daemon (double fork with setsid, the grandchild sleeping for 30 s, named `target`), chmod (make `target`
// mode 0777), data (write `target` inside $GRAFT_DATA_DIR), flood_stderr (write empty lines to stderr forever),
// escape_output (write a terminal escape code and a NUL to stderr), crash_later (start a thread that crashes
// the process `target` milliseconds later), stop_later (likewise, but stop the whole process with SIGSTOP), sleep (sleep `target` milliseconds), meet (wait up to 5 s, or the milliseconds after a slash in `target`, for `target` calls in all, of any plugin in the process, to be in this act at once: 'met' or 'alone'), and, in a render only,
// render_escape (render terminal escape codes and a NUL), emit_flood (emit `target` events of 64 KiB each) and
// log_lines (log `target` lines through its context, and write as many to stderr).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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
        pid_t pid = fork();
        if (pid < 0) return refused(out, capacity, act);
        if (pid == 0) {
            if (strcmp(act, "daemon") == 0) {
                setsid();
                if (fork() != 0) _exit(0);
                if (*target) prctl(PR_SET_NAME, target); /* found by that name */
            }
            sleep(30);
            _exit(0);
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
        snprintf(out, capacity, "%s: unknown act", act);
        return -1;
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
