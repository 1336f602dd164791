// expect: ok
// why: a plugin built for ABI 1.0, whose component descriptor ends where 1.0's did (at debug_config), with an
//      unreadable page right after it: a host that read the 1.1 fields (interactions) from it would crash. It must
//      load, with no interactions, and work.
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "graft.h"

static const graft_field_t inputs[] = {{"text", GRAFT_TYPE_STRING, NULL}};
static const graft_field_t said[] = {{"text", GRAFT_TYPE_STRING, NULL}};
static const graft_output_t outputs[] = {{"said", NULL, said, 1}};
static const graft_component_descriptor_t layout = {
    .key = "old_echo", .version = 1, .name = "Old echo", .inputs = inputs, .input_count = 1,
    .outputs = outputs, .output_count = 1, .debug_config = "{\"text\": \"hi\"}",
};

/* The 1.0 descriptor, at the end of a readable page; the next page is PROT_NONE. */
static const graft_component_descriptor_t *descriptor;
static void *pages;
static size_t page_size;

typedef struct {
    graft_component_instance_t base;
    const graft_component_context_t *context;
} old_echo_t;

static bool render(const graft_component_instance_t *self, const char *type, const graft_writer_t *out) {
    (void)self, (void)type;
    return graft_write_cstr(out, "old:echo");
}

static bool interact(const graft_component_instance_t *self, const char *action, const graft_value_t *data) {
    (void)data;
    const old_echo_t *echo = self->plugin_data;
    if (strcmp(action, "say") != 0) return false;
    graft_member_t text = {"text", graft_string("old", 3)};
    graft_value_t payload = graft_object(&text, 1);
    echo->context->emit(echo->context, "said", &payload);
    return true;
}

static void destroy(const graft_component_instance_t *self) { free(self->plugin_data); }

static uint32_t count(const graft_component_factory_t *factory) {
    (void)factory;
    return 1;
}

static const graft_component_descriptor_t *get_descriptor(const graft_component_factory_t *factory, uint32_t index) {
    (void)factory;
    return index == 0 ? descriptor : NULL;
}

static const graft_component_instance_t *create(const graft_component_factory_t *factory, const char *key,
                                                uint32_t version, const graft_value_t *inputs_value,
                                                const graft_component_context_t *context) {
    (void)factory, (void)inputs_value;
    if (strcmp(key, "old_echo") != 0 || version != 1) return NULL;
    old_echo_t *echo = calloc(1, sizeof *echo);
    if (!echo) return NULL;
    echo->context = context;
    echo->base = (graft_component_instance_t){.plugin_data = echo, .render = render, .interact = interact, .destroy = destroy};
    return &echo->base;
}

static const graft_component_factory_t factory = {count, get_descriptor, create};

static bool init(const graft_host_t *host) {
    (void)host;
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    pages = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) return false;
    size_t size_1_0 = offsetof(graft_component_descriptor_t, interactions);
    char *start = (char *)pages + page_size - size_1_0;
    memcpy(start, &layout, size_1_0);
    if (mprotect((char *)pages + page_size, page_size, PROT_NONE) != 0) return false;
    descriptor = (const graft_component_descriptor_t *)start;
    return true;
}

static void deinit(void) {
    munmap(pages, 2 * page_size);
    descriptor = NULL;
}

static const void *get_factory(const char *factory_id) {
    return strcmp(factory_id, GRAFT_COMPONENT_FACTORY_ID) == 0 ? &factory : NULL;
}

static const graft_plugin_entry_t entry = {
    .abi = {1, 0}, /* built against graft.h 1.0 */
    .struct_size = sizeof(graft_plugin_entry_t),
    .id = "test.abi-1-0",
    .version = "1.0.0",
    .name = "good_abi10",
    .init = init,
    .deinit = deinit,
    .get_factory = get_factory,
};

GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) { return &entry; }
