import FoundationEssentials
import GraftCommandLine

#if canImport(Glibc)
import Glibc
#endif

/// A small C plugin the benchmarks compile with `cc`: one component, `echo`,
/// whose render is a prefix and an input and whose `say` interaction emits
/// (`BENCH_ID`, `BENCH_KEY` and `BENCH_PREFIX` make distinct builds;
/// `BENCH_TROUBLE` makes a render of the text "hang" hang and of "crash" crash;
/// `BENCH_STATELESS` drops save/load state, whose state is the text, so that
/// new inputs show: the workbench part changes them; `BENCH_FLOOD` makes each
/// create start four threads that make a system call the sandbox refuses, for
/// ever, and a render say how many they made: the sandbox part's flood).
/// Its Swift twin is `SwiftEcho` (GraftKit, registered in process); its
/// floor, `ComponentFloor` (a minimal C host).
enum BenchPlugin {
    static let source = #"""
        #define _GNU_SOURCE
        #include "graft.h"
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>
        #ifndef BENCH_ID
        #define BENCH_ID "bench.echo"
        #endif
        #ifndef BENCH_KEY
        #define BENCH_KEY "echo"
        #endif
        #ifndef BENCH_PREFIX
        #define BENCH_PREFIX "echo:"
        #endif
        #ifdef BENCH_FLOOD
        #include <pthread.h>
        #include <stdatomic.h>
        #include <stdio.h>
        #include <sys/syscall.h>
        static atomic_long flooded;
        static void *flood(void *unused) {
            (void)unused;
            for (;;) { syscall(SYS_getpgid, 1); atomic_fetch_add(&flooded, 1); }
            return NULL;
        }
        #endif
        static const graft_field_t inputs[] = { { "text", GRAFT_TYPE_STRING, NULL } };
        static const graft_field_t said[] = { { "text", GRAFT_TYPE_STRING, NULL } };
        static const graft_output_t outputs[] = { { "said", NULL, said, 1 } };
        static const graft_interaction_t interactions[] = { { "say", "emits `said` with the text", NULL, 0 } };
        static const graft_component_descriptor_t echo = {
            .key = BENCH_KEY, .version = 1, .inputs = inputs, .input_count = 1,
            .outputs = outputs, .output_count = 1, .debug_config = "{\"text\":\"hi\"}",
            .interactions = interactions, .interaction_count = 1 };
        typedef struct { graft_component_instance_t base; const graft_component_context_t *ctx; char *text; size_t n; } echo_t;
        static bool render(const graft_component_instance_t *self, const char *type, const graft_writer_t *w) {
            (void)type; const echo_t *e = self->plugin_data;
        #ifdef BENCH_FLOOD
            char said[32]; int n = snprintf(said, sizeof said, "%ld", atomic_load(&flooded));
            return w->write(w, said, (size_t)n);
        #endif
        #ifdef BENCH_TROUBLE
            if (strcmp(e->text, "hang") == 0) for (;;) sleep(3600);
            if (strcmp(e->text, "crash") == 0) *(volatile int *)0 = 1;
        #endif
            return w->write(w, BENCH_PREFIX, sizeof BENCH_PREFIX - 1) && w->write(w, e->text, e->n);
        }
        static bool interact(const graft_component_instance_t *self, const char *action, const graft_value_t *data) {
            (void)data; const echo_t *e = self->plugin_data;
        #ifdef BENCH_CRASH
            if (strcmp(action, "crash") == 0) *(volatile int *)0 = 1;
        #endif
            if (strcmp(action, "say") != 0) return false;
            graft_member_t m = { "text", graft_string(e->text, e->n) };
            graft_value_t payload = graft_object(&m, 1);
            e->ctx->emit(e->ctx, "said", &payload);
            return true;
        }
        static bool save(const graft_component_instance_t *self, const graft_writer_t *w) {
            const echo_t *e = self->plugin_data; return w->write(w, e->text, e->n);
        }
        static bool load(const graft_component_instance_t *self, const char *data, size_t n) {
            echo_t *e = self->plugin_data; char *t = malloc(n + 1); if (!t) return false;
            if (n) memcpy(t, data, n); t[n] = 0; free(e->text); e->text = t; e->n = n; return true;
        }
        static void destroy(const graft_component_instance_t *self) {
            echo_t *e = self->plugin_data; free(e->text); free(e);
        }
        static const graft_component_instance_t *create(const graft_component_factory_t *f, const char *key, uint32_t v,
                                                        const graft_value_t *in, const graft_component_context_t *ctx) {
            (void)f; if (strcmp(key, BENCH_KEY) != 0 || v != 1) return NULL;
            echo_t *e = calloc(1, sizeof *e); if (!e) return NULL;
            const graft_value_t *t = graft_object_get(in, "text");
            e->n = t && t->type == GRAFT_TYPE_STRING ? t->data.string.length : 0;
            e->text = malloc(e->n + 1); if (!e->text) { free(e); return NULL; }
            if (e->n) memcpy(e->text, t->data.string.data, e->n); e->text[e->n] = 0;
            e->ctx = ctx;
        #ifdef BENCH_FLOOD
            for (int i = 0; i < 4; i++) { pthread_t t; if (pthread_create(&t, NULL, flood, NULL) == 0) pthread_detach(t); }
        #endif
            e->base = (graft_component_instance_t){ .plugin_data = e, .render = render, .interact = interact,
        #ifndef BENCH_STATELESS
                                                    .save_state = save, .load_state = load,
        #endif
                                                    .destroy = destroy };
            return &e->base;
        }
        static uint32_t count(const graft_component_factory_t *f) { (void)f; return 1; }
        static const graft_component_descriptor_t *get(const graft_component_factory_t *f, uint32_t i) { (void)f; return i ? NULL : &echo; }
        static const graft_component_factory_t factory = { count, get, create };
        static bool init(const graft_host_t *h) { (void)h; return true; }
        static const void *get_factory(const char *id) { return strcmp(id, GRAFT_COMPONENT_FACTORY_ID) ? NULL : &factory; }
        static const graft_plugin_entry_t entry = { .abi = GRAFT_ABI_VERSION_INIT, .struct_size = sizeof(graft_plugin_entry_t),
            .id = BENCH_ID, .version = "1.0.0", .name = "Bench echo", .init = init, .get_factory = get_factory };
        GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) { return &entry; }
        """#

    struct CompileError: Error, CustomStringConvertible {
        var description: String
    }

    /// Compiles the plugin into `folder` as `name`, with extra `-D` defines.
    static func build(into folder: URL, name: String = "libbench_echo.so", defines: [String] = []) throws -> URL {
        guard let include = GraftHeader.includeFolder() else { throw CompileError(description: "graft.h not found") }
        let source = folder.appendingPathComponent("bench_echo.c")
        if !FileManager.default.fileExists(atPath: source.path) {
            try Data(Self.source.utf8).write(to: source)
        }
        let output = folder.appendingPathComponent(name)
        let arguments = ["-shared", "-fPIC", "-O2", "-std=c11", "-I", include] + defines.map { "-D\($0)" } + [source.path, "-o", output.path]
        guard BenchProcess.compileC(arguments) else {
            throw CompileError(description: "cc failed to build the benchmark plugin (is a C compiler installed?)")
        }
        return output
    }
}
