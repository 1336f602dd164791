import FoundationEssentials
import GraftCommandLine

#if canImport(Glibc)
import Glibc
#endif

/// The floor of `graft bench discovery`: what any host must do to learn what
/// N plugin files declare, in a minimal C program the bench compiles with
/// `cc`. For each file on its command line: `dlopen(RTLD_NOW | RTLD_LOCAL)`,
/// `dlsym("graft_entry")`, the entry, its ABI major, `init` with a minimal
/// host, then `get_factory` for the component, validator and action factory
/// ids and `count` + `get_descriptor(i)` for every descriptor. The loop is
/// timed inside the program (CLOCK_MONOTONIC), so its start-up is not counted;
/// each run is a new process, so every file is one it has never loaded.
/// `--warm-up FILE` first does the same for FILE outside the clock, so that
/// the first call's one-time costs (lazy binding, the loader's first search)
/// are not counted either.
enum DiscoveryFloor {
    static let source = #"""
        #define _POSIX_C_SOURCE 200809L
        #include "graft.h"
        #include <dlfcn.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <time.h>
        static void host_log(const graft_host_t *h, uint32_t level, const char *m) { (void)h; (void)level; (void)m; }
        static const void *host_extension(const graft_host_t *h, const char *id) { (void)h; (void)id; return NULL; }
        /* Loads `path` and walks its descriptors; 1 when it was described. */
        static int describe(const char *path, unsigned long *descriptors) {
            void *image = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (!image) return 0;
            graft_entry_fn entry_fn;
            *(void **)&entry_fn = dlsym(image, GRAFT_ENTRY_SYMBOL);
            const graft_plugin_entry_t *entry = entry_fn ? entry_fn() : NULL;
            if (!entry || entry->abi.major != GRAFT_ABI_MAJOR || !entry->init || !entry->get_factory) return 0;
            /* Valid until deinit, which never comes: the image stays loaded. */
            graft_host_t *host = calloc(1, sizeof *host);
            if (!host) exit(2);
            *host = (graft_host_t){ sizeof *host, GRAFT_ABI_VERSION_INIT, "floor", "0", NULL, path, host_log, host_extension };
            if (!entry->init(host)) return 0;
            const graft_component_factory_t *components = entry->get_factory(GRAFT_COMPONENT_FACTORY_ID);
            if (components)
                for (uint32_t n = components->count(components), j = 0; j < n; j++)
                    *descriptors += components->get_descriptor(components, j) != NULL;
            const graft_validator_factory_t *validators = entry->get_factory(GRAFT_VALIDATOR_FACTORY_ID);
            if (validators)
                for (uint32_t n = validators->count(validators), j = 0; j < n; j++)
                    *descriptors += validators->get_descriptor(validators, j) != NULL;
            const graft_action_factory_t *actions = entry->get_factory(GRAFT_ACTION_FACTORY_ID);
            if (actions)
                for (uint32_t n = actions->count(actions), j = 0; j < n; j++)
                    *descriptors += actions->get_descriptor(actions, j) != NULL;
            return 1;
        }
        int main(int argc, char **argv) {
            unsigned long descriptors = 0, warm = 0;
            int first = 1, described = 0;
            if (argc > 2 && strcmp(argv[1], "--warm-up") == 0) {
                describe(argv[2], &warm);
                first = 3;
            }
            struct timespec start, end;
            clock_gettime(CLOCK_MONOTONIC, &start);
            for (int i = first; i < argc; i++) described += describe(argv[i], &descriptors);
            clock_gettime(CLOCK_MONOTONIC, &end);
            long long elapsed = (long long)(end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec);
            printf("%lld %d %lu\n", elapsed, described, descriptors);
            return described == argc - first ? 0 : 1;
        }
        """#

    /// Compiles the floor program into `folder`.
    static func build(into folder: URL) throws -> URL {
        try BenchProcess.compileProgram(source, named: "discovery-floor", into: folder, what: "the discovery floor program")
    }

    /// Runs the floor program on `files` (after `warmUp`, untimed, when
    /// given); returns the nanoseconds its loop took, as it measured them.
    /// Throws unless every file was described.
    static func run(_ program: URL, files: [String], warmUp: String? = nil) throws -> Double {
        let run = try DiscoveryBench.spawn(program.path, (warmUp.map { ["--warm-up", $0] } ?? []) + files, capturingOutput: true)
        let fields = String(decoding: run.output, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard run.status == 0, fields.count == 3, let nanoseconds = Double(fields[0]), Int(fields[1]) == files.count else {
            throw DiscoveryBench.Failure(
                description: "the discovery floor program failed (status \(run.status)): \(String(decoding: run.output, as: UTF8.self))")
        }
        return nanoseconds
    }
}
