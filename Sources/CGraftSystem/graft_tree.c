/* Removing a folder a plugin had to itself (see graft_tree.h): relative to
 * folder descriptors, never following a link, at any depth, whatever modes
 * it set. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "graft_tree.h"

/* Folders open at once: deeper ones are moved up to the top first. */
#define GRAFT_TREE_DEPTH 24

/* openat for a folder in `parent` that never crosses into another mount (a
 * tmpfs or a bind a child's namespace left behind, say): openat2 with
 * RESOLVE_NO_XDEV, or plain openat where the kernel or a container has no openat2. */
static int open_here(int parent, const char *name, int flags) {
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
    struct {
        uint64_t flags, mode, resolve;
    } how = {.flags = (uint64_t)flags, .mode = 0, .resolve = 0x01 /* RESOLVE_NO_XDEV */ | 0x04 /* RESOLVE_NO_SYMLINKS */};
    int fd = (int)syscall(SYS_openat2, parent, name, &how, sizeof how);
    /* ENOSYS before 5.6; EPERM where a container's seccomp profile predates openat2 (it cannot mean anything else here). */
    if (fd < 0 && (errno == ENOSYS || errno == EPERM)) fd = openat(parent, name, flags);
    return fd;
}

/* Opens the folder `name` in `parent` for listing, without following a link,
 * and makes it the caller's to empty (rwx for its owner): a plugin may have
 * left it 000 or 0555. Returns the descriptor, or -1 (ENOTDIR: not a folder). */
static int open_folder(int parent, const char *name) {
    int folder = open_here(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (folder < 0 && errno == EACCES) {
        /* Unreadable: change its mode through a handle that needs no access to it. */
        int handle = open_here(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (handle < 0) return -1;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", handle);
        int changed = chmod(path, 0700);
        close(handle);
        if (changed != 0) return -1;
        folder = open_here(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (folder < 0) return -1;
    struct stat information;
    if (fstat(folder, &information) == 0 && (information.st_mode & 0700) != 0700) fchmod(folder, 0700);
    return folder;
}

struct level {
    DIR *listing;
    int fd;
    int progress; /* entries removed (or moved) since this level's listing began */
    char name[256]; /* its name in the level above */
};

static int push(struct level *level, int fd, const char *name) {
    int listed = dup(fd);
    level->listing = listed >= 0 ? fdopendir(listed) : NULL;
    if (!level->listing) {
        if (listed >= 0) close(listed);
        close(fd);
        return -1;
    }
    level->fd = fd;
    level->progress = 0;
    snprintf(level->name, sizeof level->name, "%s", name);
    return 0;
}

int graft_remove_tree(int parent, const char *name) {
    /* Most trees are a file, a link or an empty folder. */
    if (unlinkat(parent, name, 0) == 0 || errno == ENOENT) return 0;
    if (errno != EISDIR && errno != EPERM && errno != EACCES) return -1;
    if (unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT) return 0;

    struct level levels[GRAFT_TREE_DEPTH];
    int failed = 0;
    unsigned long moved = 0;
    int top = open_folder(parent, name);
    if (top < 0) return errno == ENOENT ? 0 : -1;
    if (push(&levels[0], top, name) != 0) return -1;
    int depth = 1;
    while (depth > 0) {
        struct level *current = &levels[depth - 1];
        struct dirent *entry = readdir(current->listing);
        if (entry) {
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
            if (unlinkat(current->fd, entry->d_name, 0) == 0 || unlinkat(current->fd, entry->d_name, AT_REMOVEDIR) == 0) {
                current->progress++;
                continue;
            }
            if (errno == ENOENT) continue;
            if (depth == GRAFT_TREE_DEPTH) {
                /* Too deep to keep every folder open: move this one up to the
                 * top, whose listing reaches it again. */
                char flat[64];
                snprintf(flat, sizeof flat, ".graft-flat-%lu", moved++);
                if (renameat(current->fd, entry->d_name, levels[0].fd, flat) == 0) current->progress++;
                continue;
            }
            int child = open_folder(current->fd, entry->d_name);
            if (child < 0 || push(&levels[depth], child, entry->d_name) != 0) continue; /* left: its rmdir below fails */
            depth++;
            continue;
        }
        /* Listed to the end: remove it from the folder above. */
        int above = depth > 1 ? levels[depth - 2].fd : parent;
        if (unlinkat(above, current->name, AT_REMOVEDIR) == 0 || errno == ENOENT) {
            if (depth > 1) levels[depth - 2].progress++;
        } else if (errno == ENOTEMPTY && current->progress > 0) {
            /* Entries added or missed while it was listed (folders moved up
             * to the top): list it again, as long as each pass removes something. */
            current->progress = 0;
            rewinddir(current->listing);
            continue;
        } else {
            failed = 1;
        }
        closedir(current->listing);
        close(current->fd);
        depth--;
    }
    return failed ? -1 : 0;
}

int graft_remove_path(const char *path) {
    char copy[4096];
    if (snprintf(copy, sizeof copy, "%s", path) >= (int)sizeof copy) {
        errno = ENAMETOOLONG;
        return -1;
    }
    char *slash = strrchr(copy, '/');
    const char *name = slash ? slash + 1 : copy;
    const char *folder = slash ? (slash == copy ? "/" : copy) : ".";
    if (slash) *slash = '\0';
    if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        errno = EINVAL;
        return -1;
    }
    int parent = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0) return -1;
    int result = graft_remove_tree(parent, name);
    int saved = errno;
    close(parent);
    errno = saved;
    return result;
}

/* Counts an entry as the blocks it holds, and at least one block: ten
 * thousand empty files take an inode each, and a disk's inodes run out too. */
static uint64_t charge(const struct stat *information) {
    uint64_t bytes = (uint64_t)information->st_blocks * 512;
    return bytes < 4096 ? 4096 : bytes;
}

int graft_tree_usage(int parent, const char *name, uint64_t limit, uint64_t *bytes, uint64_t *entries) {
    *bytes = 0;
    *entries = 0;
    struct stat information;
    if (fstatat(parent, name, &information, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? 0 : -1;
    *bytes += charge(&information);
    *entries += 1;
    if (!S_ISDIR(information.st_mode)) return 0;
    DIR *listings[GRAFT_TREE_DEPTH];
    int depth = 0, deeper = 0;
    int top = open_here(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (top < 0 || !(listings[0] = fdopendir(top))) {
        if (top >= 0) close(top);
        return -1;
    }
    depth = 1;
    while (depth > 0) {
        DIR *current = listings[depth - 1];
        struct dirent *entry = *bytes > limit ? NULL : readdir(current);
        if (!entry) {
            closedir(current);
            depth--;
            continue;
        }
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
        if (fstatat(dirfd(current), entry->d_name, &information, AT_SYMLINK_NOFOLLOW) != 0) continue;
        *bytes += charge(&information);
        *entries += 1;
        if (!S_ISDIR(information.st_mode)) continue;
        if (depth == GRAFT_TREE_DEPTH) {
            /* Deeper than a folder needs: counted as no less than 64 MiB, so that it is over any limit. */
            deeper = 1;
            continue;
        }
        int child = open_here(dirfd(current), entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child < 0) continue;
        if (!(listings[depth] = fdopendir(child))) {
            close(child);
            continue;
        }
        depth++;
    }
    if (deeper && *bytes < (64ULL << 20)) *bytes = 64ULL << 20;
    return 0;
}
