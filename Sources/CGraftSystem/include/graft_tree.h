/* Removing a tree that a plugin had to itself: a child's private folder left
 * on disk, a data folder, a sweep's leftovers. A plugin chooses what is in
 * it (a tree deeper than PATH_MAX, folders it made 000 or 0555, links to
 * anything), so the walk goes relative to folder descriptors, never follows
 * a link, gives each folder back to its owner (0700) before emptying it, and
 * keeps at most a few dozen folders open whatever the depth (deeper ones are
 * moved up to the top first). */
#ifndef GRAFT_TREE_H
#define GRAFT_TREE_H

#include <stdint.h>

/* Removes `name` in the folder `parent` (a descriptor) and everything under
 * it, never crossing into another mount (what is mounted there stays, and so
 * does the folder it is mounted on). Returns 0 when it is gone (or never
 * was), else -1 with errno set, and what could be removed is gone. */
int graft_remove_tree(int parent, const char *name);

/* The same for an absolute or relative `path` (its last component is the tree). */
int graft_remove_path(const char *path);

/* What the tree `name` in `parent` holds: *bytes, its entries' blocks (each
 * at least 4 KiB), and *entries, files and folders; links are counted, never
 * followed, and no mount point is crossed. The walk stops once *bytes passes
 * `limit`. A tree deeper than the walk goes counts as at least 64 MiB.
 * Returns 0 (a missing tree holds nothing), or -1 with errno set. */
int graft_tree_usage(int parent, const char *name, uint64_t limit, uint64_t *bytes, uint64_t *entries);

#endif
