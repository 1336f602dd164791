import FoundationEssentials
import GraftCommandLine

#if canImport(Glibc)
import Glibc
#endif

/// The floor of `graft bench components`: the bench plugin driven through
/// graft.h by a minimal C host the bench compiles with `cc`. Per cycle it
/// does what a host must: builds the inputs object, `create`, `render` as
/// text/plain into a growing buffer, `interact("say")` with an `emit` that
/// counts, `destroy`. No registry, no contract checks, no copies: the cost
/// of the plugin's own code and the ABI crossings. Times its own loop
/// (CLOCK_MONOTONIC) after a warm-up, and prints nanoseconds per cycle.
enum ComponentFloor {
    static let source = #"""
        #define _POSIX_C_SOURCE 200809L
        #include "graft.h"
        #include <dlfcn.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <time.h>
        typedef struct { char *data; size_t length, capacity; } buffer_t;
        static bool write_bytes(const graft_writer_t *w, const char *data, size_t n) {
            buffer_t *b = w->host_data;
            if (b->length + n > b->capacity) {
                size_t capacity = (b->length + n) * 2;
                char *grown = realloc(b->data, capacity);
                if (!grown) return false;
                b->data = grown; b->capacity = capacity;
            }
            if (n) memcpy(b->data + b->length, data, n);
            b->length += n;
            return true;
        }
        static void set_media_type(const graft_writer_t *w, const char *t) { (void)w; (void)t; }
        static unsigned long emitted;
        static void emit(const graft_component_context_t *c, const char *e, const graft_value_t *p) { (void)c; (void)e; (void)p; emitted++; }
        static void ctx_log(const graft_component_context_t *c, uint32_t l, const char *m) { (void)c; (void)l; (void)m; }
        static void warn(const graft_component_context_t *c, const char *code, const char *m) { (void)c; (void)code; (void)m; }
        static graft_size_t size(const graft_component_context_t *c) { (void)c; return (graft_size_t){ 0, 0 }; }
        static void host_log(const graft_host_t *h, uint32_t level, const char *m) { (void)h; (void)level; (void)m; }
        static const void *host_extension(const graft_host_t *h, const char *id) { (void)h; (void)id; return NULL; }
        int main(int argc, char **argv) {
            if (argc != 3) return 2;
            long iterations = atol(argv[2]);
            void *image = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
            if (!image) { fprintf(stderr, "%s\n", dlerror()); return 1; }
            graft_entry_fn entry_fn;
            *(void **)&entry_fn = dlsym(image, GRAFT_ENTRY_SYMBOL);
            const graft_plugin_entry_t *entry = entry_fn ? entry_fn() : NULL;
            static graft_host_t host = { sizeof host, GRAFT_ABI_VERSION_INIT, "floor", "0", NULL, "", host_log, host_extension };
            if (!entry || !entry->init(&host)) return 1;
            const graft_component_factory_t *factory = entry->get_factory(GRAFT_COMPONENT_FACTORY_ID);
            if (!factory) return 1;
            buffer_t buffer = { 0 };
            graft_writer_t writer = { &buffer, write_bytes, set_media_type };
            graft_component_context_t context = { NULL, emit, ctx_log, warn, size };
            struct timespec start, end;
            for (int timed = 0; timed < 2; timed++) {
                long count = timed ? iterations : iterations / 10 + 1;
                if (timed) clock_gettime(CLOCK_MONOTONIC, &start);
                for (long i = 0; i < count; i++) {
                    graft_member_t text = { "text", graft_string("hello", 5) };
                    graft_value_t inputs = graft_object(&text, 1);
                    const graft_component_instance_t *instance = factory->create(factory, "echo", 1, &inputs, &context);
                    if (!instance) return 1;
                    buffer.length = 0;
                    if (!instance->render(instance, "text/plain", &writer)) return 1;
                    if (!instance->interact(instance, "say", NULL)) return 1;
                    instance->destroy(instance);
                }
            }
            clock_gettime(CLOCK_MONOTONIC, &end);
            double elapsed = (double)(end.tv_sec - start.tv_sec) * 1e9 + (double)(end.tv_nsec - start.tv_nsec);
            printf("%.3f %lu\n", elapsed / (double)iterations, emitted);
            return buffer.length == 10 ? 0 : 1;
        }
        """#

    static func build(into folder: URL) throws -> URL {
        try BenchProcess.compileProgram(source, named: "component-floor", into: folder, what: "the component floor program")
    }

    /// Runs the floor for `iterations` cycles of `plugin`; nanoseconds per cycle.
    static func run(_ program: URL, plugin: String, iterations: Int) throws -> Double {
        let run = try DiscoveryBench.spawn(program.path, [plugin, String(iterations)], capturingOutput: true)
        let fields = String(decoding: run.output, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard run.status == 0, fields.count == 2, let nanoseconds = Double(fields[0]) else {
            throw DiscoveryBench.Failure(
                description: "the component floor program failed (status \(run.status)): \(String(decoding: run.output, as: UTF8.self))")
        }
        return nanoseconds
    }
}
