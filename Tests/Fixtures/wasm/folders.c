/* A graft.h plugin that declares a data folder and a folder to read, built as
 * a .wasm with graft_wasm_bridge.c: its one component, "files", does the act
 * its "act" input names when it renders and writes what happened, so that a
 * test can see what the host gave the guest and what it refused.
 * FOLDERS_READ is the folder it declares to read (a test's scratch folder). */
#include "graft.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wasi/api.h>

#ifndef FOLDERS_READ
#define FOLDERS_READ "/srv/graft-folders"
#endif

static const graft_field_t inputs[] = { { "act", GRAFT_TYPE_STRING, NULL } };
static const graft_component_descriptor_t files = {
    .key = "files", .version = 1, .name = "Files", .inputs = inputs, .input_count = 1, .debug_config = "{\"act\":\"env\"}" };

typedef struct { graft_component_instance_t base; char act[32]; } files_t;

static const char *error_name(int error) {
    switch (error) {
    case EROFS: return "EROFS";
    case EDQUOT: return "EDQUOT";
    case EMFILE: return "EMFILE";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case ENOTCAPABLE: return "ENOTCAPABLE";
    case EBADF: return "EBADF";
    case ENOSYS: return "ENOSYS";
    default: return "another error";
    }
}

static char answer[256];

static const char *refused(const char *what) {
    snprintf(answer, sizeof answer, "%s refused: %s", what, error_name(errno));
    return answer;
}

static const char *data_path(const char *name) {
    static char path[256];
    const char *folder = getenv("GRAFT_DATA_DIR");
    snprintf(path, sizeof path, "%s/%s", folder ? folder : "/data", name);
    return path;
}

static const char *read_file(const char *path) {
    FILE *file = fopen(path, "r");
    if (!file) return refused("read");
    size_t n = fread(answer, 1, sizeof answer - 1, file);
    answer[n] = 0;
    fclose(file);
    return answer;
}

static const char *write_file(const char *path, const char *text) {
    FILE *file = fopen(path, "w");
    if (!file) return refused("write");
    fputs(text, file);
    return fclose(file) == 0 ? "wrote" : refused("write");
}

static const char *act(const char *name) {
    if (strcmp(name, "env") == 0) return getenv("GRAFT_DATA_DIR") ? getenv("GRAFT_DATA_DIR") : "none";
    if (strcmp(name, "write") == 0) return write_file(data_path("note.txt"), "kept");
    if (strcmp(name, "read-data") == 0) return read_file(data_path("note.txt"));
    if (strcmp(name, "read") == 0) return read_file(FOLDERS_READ "/secret.txt");
    if (strcmp(name, "write-read") == 0) return write_file(FOLDERS_READ "/new.txt", "planted");
    if (strcmp(name, "append-read") == 0) {
        int fd = open(FOLDERS_READ "/secret.txt", O_WRONLY | O_APPEND);
        if (fd < 0) return refused("append");
        close(fd);
        return "appended";
    }
    if (strcmp(name, "remove-read") == 0) return unlink(FOLDERS_READ "/secret.txt") == 0 ? "removed" : refused("remove");
    if (strcmp(name, "mkdir-read") == 0) return mkdir(FOLDERS_READ "/made", 0755) == 0 ? "made" : refused("mkdir");
    if (strcmp(name, "rename-out") == 0) return rename(FOLDERS_READ "/secret.txt", data_path("stolen.txt")) == 0 ? "renamed" : refused("rename");
    if (strcmp(name, "link-in") == 0) return link(FOLDERS_READ "/secret.txt", data_path("linked.txt")) == 0 ? "linked" : refused("link");
    if (strcmp(name, "escape") == 0) return read_file(data_path("../outside.txt"));
    if (strcmp(name, "escape-link") == 0) {
        unlink(data_path("root"));
        if (symlink("/", data_path("root")) != 0) return refused("symlink");
        return read_file(data_path("root/etc/hostname"));
    }
    if (strcmp(name, "read-pipe") == 0) return read_file(FOLDERS_READ "/pipe");
    if (strcmp(name, "elsewhere") == 0) return read_file("/etc/hostname");
    if (strcmp(name, "fill") == 0) {
        FILE *file = fopen(data_path("fill.bin"), "w");
        if (!file) return refused("fill");
        static char block[4096];
        size_t total = 0;
        int error = 0;
        for (int i = 0; i < 1024; i++) {
            if (fwrite(block, 1, sizeof block, file) != sizeof block || fflush(file) != 0) { error = errno; break; }
            total += sizeof block;
        }
        fclose(file);
        snprintf(answer, sizeof answer, "filled %zu KiB: %s", total / 1024, error ? error_name(error) : "no error");
        return answer;
    }
    if (strcmp(name, "many") == 0) {
        int opened = 0;
        while (opened < 1000 && open(data_path("note.txt"), O_RDONLY) >= 0) opened++;
        snprintf(answer, sizeof answer, "opened %d: %s", opened, error_name(errno));
        return answer;
    }
    if (strcmp(name, "wild") == 0) {
        /* A pointer past the guest's memory for the new descriptor: the call fails, the host lives. */
        __wasi_errno_t error = __wasi_path_open(3, 0, "note.txt", 0, __WASI_RIGHTS_FD_READ, 0, 0, (__wasi_fd_t *)0xFFFFFFF0u);
        snprintf(answer, sizeof answer, "survived: %d", (int)error);
        return answer;
    }
    return "unknown act";
}

static bool render(const graft_component_instance_t *self, const char *type, const graft_writer_t *w) {
    (void)type;
    const char *text = act(((files_t *)self->plugin_data)->act);
    return w->write(w, text, strlen(text));
}

static void take(files_t *f, const graft_value_t *in) {
    const graft_value_t *value = graft_object_get(in, "act");
    if (value && value->type == GRAFT_TYPE_STRING && value->data.string.length < sizeof f->act) {
        memcpy(f->act, value->data.string.data, value->data.string.length);
        f->act[value->data.string.length] = 0;
    }
}

static bool update(const graft_component_instance_t *self, const graft_value_t *in) { take(self->plugin_data, in); return true; }
static void destroy(const graft_component_instance_t *self) { free(self->plugin_data); }

static const graft_component_instance_t *create(const graft_component_factory_t *f, const char *key, uint32_t version,
                                                const graft_value_t *in, const graft_component_context_t *context) {
    (void)f;
    (void)context;
    if (strcmp(key, "files") != 0 || version != 1) return NULL;
    files_t *made = calloc(1, sizeof *made);
    if (!made) return NULL;
    take(made, in);
    made->base = (graft_component_instance_t){ .plugin_data = made, .render = render, .update_inputs = update, .destroy = destroy };
    return &made->base;
}

static uint32_t count(const graft_component_factory_t *f) { (void)f; return 1; }
static const graft_component_descriptor_t *get(const graft_component_factory_t *f, uint32_t i) { (void)f; return i ? NULL : &files; }
static const graft_component_factory_t factory = { count, get, create };

static const graft_permission_t permission_list[] = {
    { GRAFT_PERMISSION_DATA, NULL, 0, NULL, "keeps notes between runs" },
    { GRAFT_PERMISSION_READ, NULL, 0, FOLDERS_READ, "reads the shared settings" },
};
static uint32_t permission_count(const graft_permissions_t *p) { (void)p; return 2; }
static const graft_permission_t *permission(const graft_permissions_t *p, uint32_t i) { (void)p; return i < 2 ? &permission_list[i] : NULL; }
static const graft_permissions_t permissions = { permission_count, permission };

static bool init(const graft_host_t *host) { (void)host; return true; }
static const void *get_factory(const char *id) {
    if (strcmp(id, GRAFT_COMPONENT_FACTORY_ID) == 0) return &factory;
    if (strcmp(id, GRAFT_PERMISSIONS_ID) == 0) return &permissions;
    return NULL;
}
static const graft_plugin_entry_t entry = {
    .abi = GRAFT_ABI_VERSION_INIT, .struct_size = sizeof(graft_plugin_entry_t), .id = "com.example.folders", .version = "1.0.0",
    .name = "Folders", .init = init, .get_factory = get_factory };
GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) { return &entry; }
