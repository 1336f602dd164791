/*
 * graft.h — the Graft plugin ABI, version 1.
 *
 * This header is the only contract between a Graft host and a plugin. A plugin
 * is a shared library (`.so`) that exports one function, `graft_entry`, and
 * behind it up to three factories: components, validators and actions. It can
 * be written in C, in Swift (through GraftKit) or in any language that exports
 * C symbols; it needs this header and nothing else to build:
 *
 *     cc -shared -fPIC -o libacme.so acme.c $(graft sdk --cflags)
 *
 * Rules that hold everywhere in this header
 * -----------------------------------------
 * - Every string is UTF-8. A `const char *` is NUL-terminated unless it is
 *   paired with a length. A `graft_string_t` the host passes in is also
 *   NUL-terminated at `data[length]`; one the plugin passes need not be.
 * - Pointers may not be NULL unless their comment says "may be NULL".
 * - Ownership: what the host passes into a call is owned by the host and valid
 *   only for the duration of that call; the plugin copies what it keeps. What
 *   the plugin returns (descriptors, names, instances) is owned by the plugin
 *   and stays valid for as long as each comment says (usually: until `deinit`).
 *   The host never frees plugin memory and the plugin never frees host memory.
 *   Output of variable size (rendered text, messages, saved state) is written
 *   through a host-provided `graft_writer_t`, never returned as memory.
 * - Counts are `uint32_t`; the host refuses descriptors with more than
 *   GRAFT_MAX_FIELDS inputs, outputs, payload fields or params.
 * - Structs grow only as "Versioning" below says; nothing is ever removed,
 *   renamed or reordered within major version 1.
 * - Thread tags on each function say who may call it and from where:
 *     [thread-safe]         callable from any thread, concurrently.
 *     [instance-serialized] the host never makes two calls into one instance at
 *                           once, but different instances may be called from
 *                           different threads at the same time.
 *     [loading-thread]      called on the thread that is loading the plugin
 *                           (any thread: a host may reload on a worker), never
 *                           while any other call into the plugin runs.
 *     [last-user]           called once, on whichever thread releases the
 *                           plugin last, after every other call has returned.
 *     [during-call]         a host function handed to one call (a writer, an
 *                           action's context): only while that call runs and
 *                           on its thread, never after it returns.
 *   Every function pointer below carries one of these tags.
 *
 * Limits a plugin can hit
 * -----------------------
 * - Keys, event names, interaction names and field keys: non-empty,
 *   [a-z0-9_.-], at most 128 bytes (longer ones are `invalid_descriptor`).
 * - GRAFT_MAX_FIELDS per list in a descriptor; GRAFT_MAX_DESCRIPTORS per
 *   factory; GRAFT_MAX_NATIVE_ARGS per native signature.
 * - Writers: a render or saved state takes at most 16 MiB (an isolated host
 *   takes 4 MiB of render by default and reports more as
 *   `output_too_large`); a validator's message at most 64 KiB. Past the limit
 *   `write` returns false and the rest is dropped.
 * - Log levels are GRAFT_LOG_*; any other value is logged as an error.
 *
 * Compatibility
 * -------------
 * A host loads a plugin whose `abi.major` equals the host's GRAFT_ABI_MAJOR and
 * whose `abi.minor` is less than or equal to the host's GRAFT_ABI_MINOR. Any
 * other plugin is refused with the error code `abi_incompatible`. Build a
 * plugin with the oldest minor whose features it uses.
 *
 * Versioning
 * ----------
 * Within major version 1 a new minor only adds: functions, constants, factory
 * ids, and fields appended at the end of a struct. How a struct grows depends
 * on whether it says its own size:
 * - A struct with `struct_size` (graft_host_t, graft_plugin_entry_t) is read
 *   up to the smaller of its `struct_size` and the reader's own sizeof: a host
 *   refuses an entry smaller than the 1.0 struct and ignores fields past the
 *   ones it knows; a plugin reads no host field past the host's struct_size.
 * - A struct without one (the descriptors) grows with the minor: a host reads
 *   a field added in 1.N only from a plugin whose entry declares
 *   `abi.minor >= N`. A plugin built against an older header lays out the
 *   older struct, and the host never reads past it.
 * GRAFT_ABI_VERSION_INIT stamps the version of the header the plugin was
 * compiled against, so every field that header declares is known to be laid
 * out (fields a plugin leaves unset in a designated initializer are zero,
 * which each field documents as "none"). To load in older hosts, declare the
 * older minor explicitly, for example `.abi = { 1, 0 }`: the host then reads
 * none of the newer fields.
 *
 * How the ABI grows from here: a new capability is a new revisioned id,
 * never a changed struct (CLAP's rule). What a plugin offers comes behind a
 * factory id from get_factory ("graft.permissions/1"); what a host offers,
 * behind an extension id from get_extension. A struct behind an id never
 * changes: a new revision gets a new id ("…/2"), and a host keeps answering
 * the old one. The minor records which ids a header knows: a host asks
 * get_factory for an id added in 1.N only of a plugin whose entry declares
 * `abi.minor >= N`, so a plugin built against an older header is never asked
 * for an id it could not know. The descriptor fields gated by `abi.minor`
 * (1.1 below) are the one exception to "never a changed struct", kept as
 * they shipped. docs/ABI.md has the conventions for ids and their revisions.
 *
 * Added in 1.1: component interactions (graft_interaction_t, the
 * `interactions` and `interaction_count` fields of
 * graft_component_descriptor_t).
 * Added in 1.2: declared permissions (GRAFT_PERMISSIONS_ID).
 * Added in 1.3: stories, named example configurations of components
 * (GRAFT_STORIES_ID).
 */
#pragma once
#ifndef GRAFT_H
#define GRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Versions and limits                                                       */
/* ------------------------------------------------------------------------ */

#define GRAFT_ABI_MAJOR 1
#define GRAFT_ABI_MINOR 3

/* The most inputs, outputs, payload fields, validator params or action params
 * one descriptor may declare. */
#define GRAFT_MAX_FIELDS 64

/* The most descriptors one factory may list; a factory whose count() is
 * larger is refused with `invalid_descriptor`. */
#define GRAFT_MAX_DESCRIPTORS 1024

/* Marks the exported entry function. */
#if defined(__GNUC__) || defined(__clang__)
#define GRAFT_EXPORT __attribute__((visibility("default")))
#else
#define GRAFT_EXPORT
#endif

typedef struct graft_abi_version {
    uint32_t major; /* GRAFT_ABI_MAJOR the plugin was built against */
    uint32_t minor; /* GRAFT_ABI_MINOR the plugin was built against */
} graft_abi_version_t;

#define GRAFT_ABI_VERSION_INIT { GRAFT_ABI_MAJOR, GRAFT_ABI_MINOR }

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/* Type tags. They tag a `graft_value_t` and they declare the type of an input,
 * a payload field or a param. Inputs may be STRING, NUMBER, BOOLEAN or LIST;
 * payload fields and params may also be OBJECT. NULL is only a value. */
#define GRAFT_TYPE_NULL    0u
#define GRAFT_TYPE_BOOLEAN 1u
#define GRAFT_TYPE_NUMBER  2u
#define GRAFT_TYPE_STRING  3u
#define GRAFT_TYPE_LIST    4u
#define GRAFT_TYPE_OBJECT  5u

typedef struct graft_string {
    const char *data; /* UTF-8 bytes; may be NULL only when length is 0 */
    size_t length;    /* in bytes, without any terminating NUL */
} graft_string_t;

typedef struct graft_value graft_value_t;

/* Numbers are finite doubles; a host reads NaN or infinity from a plugin as
 * NULL. Text in a value may contain NUL bytes (use the length), but a native
 * validator's `string` argument cannot: the host treats such a value as
 * invalid rather than cut it. */
typedef struct graft_member graft_member_t;

/* A JSON-like value. Who owns it, and for how long, is said where it crosses
 * the boundary; a value never owns memory the receiver must free. */
struct graft_value {
    uint32_t type; /* one of GRAFT_TYPE_*; unknown tags are treated as NULL */
    union {
        bool boolean;          /* GRAFT_TYPE_BOOLEAN */
        double number;         /* GRAFT_TYPE_NUMBER (finite) */
        graft_string_t string; /* GRAFT_TYPE_STRING */
        struct {
            const graft_value_t *items; /* may be NULL when count is 0 */
            uint32_t count;
        } list;                /* GRAFT_TYPE_LIST */
        struct {
            const graft_member_t *members; /* may be NULL when count is 0 */
            uint32_t count;                /* keys are unique */
        } object;              /* GRAFT_TYPE_OBJECT */
    } data;
};

/* One key/value pair of an object. */
struct graft_member {
    const char *key; /* NUL-terminated */
    graft_value_t value;
};

/* A named, typed slot: a component input, a payload field or a param. */
typedef struct graft_field {
    const char *key;  /* non-empty, [a-z0-9_.-] */
    uint32_t type;    /* GRAFT_TYPE_*, not NULL */
    const char *description; /* may be NULL */
} graft_field_t;

/* ------------------------------------------------------------------------ */
/* Writer: how variable-size output reaches the host                         */
/* ------------------------------------------------------------------------ */

typedef struct graft_writer graft_writer_t;
struct graft_writer {
    void *host_data; /* reserved for the host */

    /* Appends `length` bytes. Returns false if the host refused them (for
     * example because the output passed the host's size limit); the plugin
     * should stop writing and return false from the call that is writing.
     * `data` may be NULL when length is 0. The limits are under "Limits a
     * plugin can hit" above.
     * [during-call] */
    bool (*write)(const graft_writer_t *writer, const char *data, size_t length);

    /* Declares the media type of what is written, for example "text/plain" or
     * "text/html". Never NULL; calling it is optional: without a call the
     * output has the media type the host asked for. The host copies the
     * string; it compares type and subtype case-insensitively and ignores
     * parameters such as "; charset=utf-8".
     * [during-call] */
    void (*set_media_type)(const graft_writer_t *writer, const char *media_type);
};

/* ------------------------------------------------------------------------ */
/* Host                                                                      */
/* ------------------------------------------------------------------------ */

#define GRAFT_LOG_DEBUG   0u
#define GRAFT_LOG_INFO    1u
#define GRAFT_LOG_WARNING 2u
#define GRAFT_LOG_ERROR   3u

typedef struct graft_host graft_host_t;

/* What the host gives the plugin at `init`. Owned by the host; valid until
 * `deinit` returns. */
struct graft_host {
    uint32_t struct_size;    /* sizeof(graft_host_t) in the host's header */
    graft_abi_version_t abi; /* the host's ABI version */
    const char *name;        /* for example "graft" */
    const char *version;     /* the host's own version, for example "0.1.0" */
    void *host_data;         /* reserved for the host */
    const char *plugin_path; /* the file the host loaded this plugin from */

    /* Writes a line to the host's log, tagged with the plugin's id.
     * `message` is copied.
     * [thread-safe] */
    void (*log)(const graft_host_t *host, uint32_t level, const char *message);

    /* Returns a host extension by id, or NULL when this host lacks it. The
     * result is owned by the host and valid until `deinit`. No host
     * extensions are defined yet (ABI 1.2).
     * [thread-safe] */
    const void *(*get_extension)(const graft_host_t *host, const char *extension_id);
};

/* ------------------------------------------------------------------------ */
/* Entry                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct graft_plugin_entry {
    graft_abi_version_t abi; /* use GRAFT_ABI_VERSION_INIT */
    uint32_t struct_size;    /* sizeof(graft_plugin_entry_t); a host refuses one
                                smaller than the 1.0 entry (through get_factory:
                                80 bytes on 64-bit machines), reads no field past
                                it, and accepts a larger one */

    const char *id;          /* reverse DNS, for example "com.acme.widgets" */
    const char *version;     /* the plugin's own version, for example "1.4.0" */
    const char *name;        /* human-readable name */
    const char *vendor;      /* may be NULL */
    const char *description; /* may be NULL */

    /* Called once per load, before any factory is used. Must be fast and must
     * not block. `host` stays valid until `deinit`. Returning false refuses
     * the load (error `plugin_init_failed`) and `deinit` is then not called.
     * An image the host never unloads (any image containing Swift) may see
     * `init` again after `deinit`, when it is loaded a second time.
     * [loading-thread] */
    bool (*init)(const graft_host_t *host);

    /* Called once, after the last use of anything the plugin returned. After
     * it the image may be unloaded (never for images containing Swift).
     * After a hot swap that is when the last instance of the old build
     * closes, possibly on a thread that was rendering. May be NULL.
     * [last-user] */
    void (*deinit)(void);

    /* Returns the factory with the given id (GRAFT_*_FACTORY_ID,
     * GRAFT_PERMISSIONS_ID), or NULL when the plugin has none. The factory is owned by the plugin and valid until
     * `deinit`.
     * [thread-safe] */
    const void *(*get_factory)(const char *factory_id);
} graft_plugin_entry_t;

/* The one symbol a plugin exports. Returns a pointer to an entry valid for
 * the life of the image. Must not call the host or fail; it may allocate the
 * entry once, on its first call (GraftKit does), and may return NULL only to
 * say "not a usable plugin".
 * The prototype lets the compiler check a plugin's definition:
 *     GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void) { return &entry; }
 * [thread-safe] */
GRAFT_EXPORT const graft_plugin_entry_t *graft_entry(void);

/* The type of `graft_entry`, for hosts that look it up with dlsym. */
typedef const graft_plugin_entry_t *(*graft_entry_fn)(void);
#define GRAFT_ENTRY_SYMBOL "graft_entry"

/* ------------------------------------------------------------------------ */
/* Components                                                                */
/* ------------------------------------------------------------------------ */

/* A #define, not a const array, so that Swift and other FFIs import it as a
 * string. Compare ids with strcmp, never by pointer. */
#define GRAFT_COMPONENT_FACTORY_ID "graft.component-factory/1"

/* An output event and the schema of its payload. */
typedef struct graft_output {
    const char *event;            /* non-empty, [a-z0-9_.-] */
    const char *description;      /* may be NULL */
    const graft_field_t *payload; /* may be NULL when payload_count is 0 */
    uint32_t payload_count;
} graft_output_t;

/* An interaction a component answers in `interact` (ABI 1.1): a name a host,
 * a debugger or a conformance checker can offer and call, what it does, and
 * the fields of its `data` object. Owned by the plugin; valid until `deinit`. */
typedef struct graft_interaction {
    const char *name;          /* non-empty, [a-z0-9_.-], at most 128 bytes;
                                  unique within its component */
    const char *description;   /* may be NULL */
    const graft_field_t *data; /* the fields of `data` (an OBJECT value); may be
                                  NULL when data_count is 0 (no data) */
    uint32_t data_count;       /* at most GRAFT_MAX_FIELDS */
} graft_interaction_t;

/* Describes one component. Owned by the plugin; valid until `deinit`. */
typedef struct graft_component_descriptor {
    const char *key;          /* non-empty, [a-z0-9_.-], for example "date_picker" */
    uint32_t version;         /* >= 1; version 1 also answers the bare key */
    const char *name;         /* human-readable; may be NULL */
    const char *description;  /* may be NULL */
    const graft_field_t *inputs;   /* may be NULL when input_count is 0 */
    uint32_t input_count;
    const graft_output_t *outputs; /* may be NULL when output_count is 0 */
    uint32_t output_count;
    /* Sample inputs for the debugger, as a JSON object whose keys are declared
     * inputs with values of the declared types. May be NULL (means {}). */
    const char *debug_config;

    /* ABI 1.1. The interactions `interact` answers, at most GRAFT_MAX_FIELDS,
     * names unique. Read only from a plugin whose entry declares
     * `abi.minor >= 1`. May be NULL when interaction_count is 0: the component
     * declares none (a host then sends any name the caller gives, as in 1.0).
     * When some are declared, a host still forwards any other name, with the
     * warning `unknown_interaction`. */
    const graft_interaction_t *interactions;
    uint32_t interaction_count;
} graft_component_descriptor_t;

/* Container sizes, in points. 0 means "unbounded". In text/plain one point is
 * one column (width) or one line (height). */
typedef struct graft_size {
    double width;
    double height;
} graft_size_t;

typedef struct graft_component_context graft_component_context_t;

/* What the host gives one instance. Owned by the host; valid from `create`
 * until the instance's `destroy` returns. Every function may already be
 * called from inside `create`; none may be called after `destroy` returns. */
struct graft_component_context {
    void *host_data; /* reserved for the host */

    /* Emits an output event. `payload` is an OBJECT value or NULL (no
     * payload); the host copies it during the call. An event the descriptor
     * does not declare, or a payload that breaks its schema, is still
     * forwarded, with a warning (`undeclared_event`, `payload_schema_mismatch`).
     * [thread-safe] while the instance lives; may be called from inside
     * `render`, `update_inputs` and `interact`. */
    void (*emit)(const graft_component_context_t *context, const char *event,
                 const graft_value_t *payload);

    /* Writes a line to the host's log, tagged with the instance.
     * [thread-safe] while the instance lives. */
    void (*log)(const graft_component_context_t *context, uint32_t level,
                const char *message);

    /* Records a contract warning on the instance, for example when the plugin
     * read an input the flow did not bind and fell back to a default. `code`
     * is one of Graft's error codes; those meant for plugins are
     * "input_missing", "input_type_mismatch" and "unknown_input" (an input's
     * value), "invalid_param" (an interaction's data), and "contract_mismatch"
     * (anything else the flow and the plugin disagree on). A code the host
     * does not know is recorded as "contract_mismatch". Both strings are
     * copied; `message` may be NULL.
     * [thread-safe] while the instance lives. */
    void (*warn)(const graft_component_context_t *context, const char *code,
                 const char *message);

    /* Returns the size of the container the instance renders into.
     * [thread-safe] while the instance lives. */
    graft_size_t (*get_container_size)(const graft_component_context_t *context);
};

typedef struct graft_component_instance graft_component_instance_t;

/* One live component. Owned by the plugin from `create` until `destroy`. */
struct graft_component_instance {
    void *plugin_data; /* for the plugin's own use */

    /* Renders into `writer`. `media_type` is what the host prefers
     * ("text/plain" for terminals, "text/html" for pages); a plugin that
     * writes another type says so with `writer->set_media_type`. Returns
     * false on failure (the host shows a placeholder).
     * [instance-serialized] */
    bool (*render)(const graft_component_instance_t *instance,
                   const char *media_type, const graft_writer_t *writer);

    /* Replaces all inputs. `inputs` is an OBJECT value, owned by the host for
     * the call. Returns false when the instance cannot take them (the host
     * then destroys and recreates it). May be NULL: the host recreates.
     * [instance-serialized] */
    bool (*update_inputs)(const graft_component_instance_t *instance,
                          const graft_value_t *inputs);

    /* Simulates a user interaction, such as a tap or a text entry, named by
     * `action` with optional `data` (may be NULL). The component reacts as it
     * would to the user, typically by calling `context->emit`. Returns false
     * for an action it does not know, or data it cannot use (say why with
     * `context->warn`). The interactions it knows are declared in its
     * descriptor (ABI 1.1). May be NULL.
     * [instance-serialized] */
    bool (*interact)(const graft_component_instance_t *instance,
                     const char *action, const graft_value_t *data);

    /* Writes the instance's state, in any format the plugin reads back with
     * `load_state`, so hot swap can carry it to a new build. Returns true when
     * it wrote state, false when it has none to carry (or the writer refused
     * it). May be NULL.
     * [instance-serialized] */
    bool (*save_state)(const graft_component_instance_t *instance,
                       const graft_writer_t *writer);

    /* Restores state written by `save_state` of this or an older build.
     * `data` is owned by the host for the call (NULL when `length` is 0).
     * Returns false when the state is not understood (the instance then
     * starts fresh). May be NULL.
     * [instance-serialized] */
    bool (*load_state)(const graft_component_instance_t *instance,
                       const char *data, size_t length);

    /* Frees the instance. After it returns the host never touches the
     * instance or its context again; the plugin must not call the context
     * either (a thread it started must be stopped first).
     * [instance-serialized]: never while another call into the instance runs. */
    void (*destroy)(const graft_component_instance_t *instance);
};

typedef struct graft_component_factory graft_component_factory_t;

/* Returned by get_factory(GRAFT_COMPONENT_FACTORY_ID). */
struct graft_component_factory {
    /* Number of components. Constant between `init` and `deinit`.
     * [thread-safe] */
    uint32_t (*count)(const graft_component_factory_t *factory);

    /* Descriptor at `index` (0 ..< count), or NULL when out of range.
     * Owned by the plugin; valid until `deinit`.
     * [thread-safe] */
    const graft_component_descriptor_t *(*get_descriptor)(
        const graft_component_factory_t *factory, uint32_t index);

    /* Creates an instance of the component `key` at `version`. `inputs` is an
     * OBJECT value of resolved inputs, owned by the host for the call.
     * `context` is owned by the host and valid until the instance's `destroy`.
     * Returns NULL on failure. The instance is owned by the plugin until
     * `destroy`.
     * [thread-safe] */
    const graft_component_instance_t *(*create)(
        const graft_component_factory_t *factory, const char *key,
        uint32_t version, const graft_value_t *inputs,
        const graft_component_context_t *context);
};

/* ------------------------------------------------------------------------ */
/* Validators                                                                */
/* ------------------------------------------------------------------------ */

#define GRAFT_VALIDATOR_FACTORY_ID "graft.validator-factory/1"

#define GRAFT_VALIDATOR_GENERIC 1u /* `validate` takes graft values */
#define GRAFT_VALIDATOR_NATIVE  2u /* `function` is a plain C function */

/* A plain C function, cast to this type for storage; the host casts it back
 * to what `signature` declares and calls it through libffi. */
typedef void (*graft_native_function_t)(void);

/* Describes one validator. Owned by the plugin; valid until `deinit`.
 *
 * A validator is called as validate(name, value, params) -> valid + message,
 * where params are the strings configured in the editor.
 *
 * Native signatures have the form RETURN(ARG, ARG, ...):
 *   RETURN is `bool` or `int32` (non-zero means valid);
 *   ARG is `string` (const char *, NUL-terminated), `int32`, `int64`,
 *   `double` or `bool`; at least one and at most GRAFT_MAX_NATIVE_ARGS.
 * The first argument receives the value, the others the params in order,
 * converted from their text. For example "bool(string,int64,int64)" is
 *   bool length(const char *value, int64_t min, int64_t max);
 */
#define GRAFT_MAX_NATIVE_ARGS 16

typedef struct graft_validator_descriptor {
    const char *name;        /* non-empty, [a-z0-9_.-], for example "luhn" */
    uint32_t version;        /* >= 1; version 1 also answers the bare name */
    const char *description; /* may be NULL */
    uint32_t kind;           /* GRAFT_VALIDATOR_GENERIC or GRAFT_VALIDATOR_NATIVE */

    /* The params after the value, in order (names for the editor and the
     * debugger). May be NULL when param_count is 0. For a native validator
     * there is one per signature argument after the first, typed STRING for
     * `string`, BOOLEAN for `bool` and NUMBER for the numeric types; with
     * param_count 0 the host names them param1, param2, ... */
    const graft_field_t *params;
    uint32_t param_count;

    /* The message reported when the value is invalid and the validator wrote
     * none of its own. May be NULL (the host then says "is not valid"). */
    const char *message;

    /* GRAFT_VALIDATOR_NATIVE: the signature, as above, and the function.
     * Both NULL for a generic validator. [thread-safe] */
    const char *signature;
    graft_native_function_t function;

    /* GRAFT_VALIDATOR_GENERIC: validates `value` (owned by the host for the
     * call) with `params` (param_count NUL-terminated strings, owned by the
     * host for the call; `params` may be NULL when the count is 0). Params
     * always arrive as text, whatever `params[i].type` says. `self` is this
     * descriptor, so one function can serve several validators. Returns true
     * when valid. When invalid it may write a message to `message`.
     * NULL for a native validator.
     * [thread-safe] */
    bool (*validate)(const struct graft_validator_descriptor *self,
                     const graft_value_t *value, const char *const *params,
                     uint32_t param_count, const graft_writer_t *message);
} graft_validator_descriptor_t;

typedef struct graft_validator_factory graft_validator_factory_t;

/* Returned by get_factory(GRAFT_VALIDATOR_FACTORY_ID). */
struct graft_validator_factory {
    /* Number of validators. Constant between `init` and `deinit`.
     * [thread-safe] */
    uint32_t (*count)(const graft_validator_factory_t *factory);

    /* Descriptor at `index` (0 ..< count), or NULL when out of range.
     * Owned by the plugin; valid until `deinit`.
     * [thread-safe] */
    const graft_validator_descriptor_t *(*get_descriptor)(
        const graft_validator_factory_t *factory, uint32_t index);
};

/* ------------------------------------------------------------------------ */
/* Actions                                                                   */
/* ------------------------------------------------------------------------ */

#define GRAFT_ACTION_FACTORY_ID "graft.action-factory/1"

typedef struct graft_action_context graft_action_context_t;

/* What the host gives one action invocation. Owned by the host; valid only
 * during `invoke`. Every function is [during-call]. */
struct graft_action_context {
    void *host_data; /* reserved for the host */

    /* Sets a flow variable once the action returns successfully. `value` is
     * copied. [during-call] */
    void (*set_variable)(const graft_action_context_t *context,
                         const char *name, const graft_value_t *value);

    /* Records a result value for the log and the debugger (for example an
     * intent such as {"intent": "open_url", "url": "https://…"}). `value` is
     * copied. [during-call] */
    void (*set_result)(const graft_action_context_t *context,
                       const graft_value_t *value);

    /* Explains a failure; call it before returning false. Copied.
     * [during-call] */
    void (*set_error)(const graft_action_context_t *context, const char *message);

    /* Writes a line to the host's log. [during-call] */
    void (*log)(const graft_action_context_t *context, uint32_t level,
                const char *message);
};

/* Describes one custom action. Owned by the plugin; valid until `deinit`. */
typedef struct graft_action_descriptor {
    const char *key;         /* non-empty, [a-z0-9_.-], for example "format_currency" */
    uint32_t version;        /* >= 1; version 1 also answers the bare key */
    const char *name;        /* human-readable; may be NULL */
    const char *description; /* may be NULL */
    const graft_field_t *params; /* the params schema; may be NULL when param_count is 0 */
    uint32_t param_count;

    /* Runs the action. `self` is this descriptor, so one function can serve
     * several actions. `params` is an OBJECT value with the configured params
     * (never NULL; an empty object when none are configured), `payload` the
     * triggering event's payload (an OBJECT value, or NULL when there is
     * none); both owned by the host for the call. Returns true on success;
     * variables set through `context` are applied only then.
     * [thread-safe] */
    bool (*invoke)(const struct graft_action_descriptor *self,
                   const graft_value_t *params, const graft_value_t *payload,
                   const graft_action_context_t *context);
} graft_action_descriptor_t;

typedef struct graft_action_factory graft_action_factory_t;

/* Returned by get_factory(GRAFT_ACTION_FACTORY_ID). */
struct graft_action_factory {
    /* Number of actions. Constant between `init` and `deinit`.
     * [thread-safe] */
    uint32_t (*count)(const graft_action_factory_t *factory);

    /* Descriptor at `index` (0 ..< count), or NULL when out of range.
     * Owned by the plugin; valid until `deinit`.
     * [thread-safe] */
    const graft_action_descriptor_t *(*get_descriptor)(
        const graft_action_factory_t *factory, uint32_t index);
};

/* ------------------------------------------------------------------------ */
/* Permissions (added in 1.2)                                                */
/* ------------------------------------------------------------------------ */

/* A plugin's code runs in a sandboxed child process: it may read the system's
 * libraries and write a private temporary folder (TMPDIR), and nothing else.
 * A plugin that needs more declares it here, each with a reason shown to
 * people; the host grants each permission or not (nothing is granted by
 * default), and the kernel enforces what was granted. A plugin that is not
 * granted what it declares still loads and runs: the refused acts fail with
 * an error code (EACCES, EPERM) and are reported to the host as
 * `sandbox_denied`. Declare only what the plugin cannot work without.
 * A plugin without permissions returns NULL for this id (or lacks the case).
 * Hosts older than 1.2 never ask for it. */
#define GRAFT_PERMISSIONS_ID "graft.permissions/1"

/* What a permission asks for (graft_permission_t.kind). */
#define GRAFT_PERMISSION_CONNECT 1 /* TCP connections to `ports`, on any address */
#define GRAFT_PERMISSION_NETWORK 2 /* every TCP and UDP connection */
#define GRAFT_PERMISSION_READ 3    /* reading the folder `path` and below */
#define GRAFT_PERMISSION_DATA 4    /* a private folder to write, kept between
                                      runs; its path is in the GRAFT_DATA_DIR
                                      environment variable */

/* The most permissions a plugin may declare, and ports one may name. */
#define GRAFT_MAX_PERMISSIONS 32
#define GRAFT_MAX_PORTS 64

typedef struct graft_permission {
    uint32_t kind; /* GRAFT_PERMISSION_*; another value is `invalid_descriptor` */
    /* GRAFT_PERMISSION_CONNECT: 1 ..< GRAFT_MAX_PORTS ports, each 1-65535.
     * NULL and 0 for the other kinds. */
    const uint16_t *ports;
    uint32_t port_count;
    /* GRAFT_PERMISSION_READ: an absolute folder path, at most 4096 bytes.
     * NULL for the other kinds. */
    const char *path;
    /* Why the plugin needs it, in one sentence for the people who grant it:
     * required, at most 512 bytes, no control characters. */
    const char *reason;
} graft_permission_t;

typedef struct graft_permissions graft_permissions_t;

/* Returned by get_factory(GRAFT_PERMISSIONS_ID). Read while the plugin is
 * described (after `init`), never while another call into it runs. */
struct graft_permissions {
    /* Number of permissions (at most GRAFT_MAX_PERMISSIONS). Constant between
     * `init` and `deinit`.
     * [loading-thread] */
    uint32_t (*count)(const graft_permissions_t *permissions);

    /* Permission at `index` (0 ..< count), or NULL when out of range. Owned
     * by the plugin; valid until `deinit`.
     * [loading-thread] */
    const graft_permission_t *(*get)(const graft_permissions_t *permissions, uint32_t index);
};

/* ------------------------------------------------------------------------ */
/* Stories (added in 1.3)                                                    */
/* ------------------------------------------------------------------------ */

/* Named example configurations of a component, beside its debug_config: the
 * states a debugger or a workbench offers to show it in ("empty", "sale",
 * "long_title"), and that `graft try --story NAME` renders. Each names its
 * component by key and version and gives inputs as debug_config does. A
 * story that names no declared component, repeats a name within its
 * component, or whose config is not a JSON object of declared inputs with
 * values of their types is `invalid_descriptor`, and the plugin does not load.
 * A plugin without stories returns NULL for this id (or lacks the case).
 * Hosts older than 1.3 never ask for it. */
#define GRAFT_STORIES_ID "graft.stories/1"

/* The most stories one plugin may declare. */
#define GRAFT_MAX_STORIES 256

typedef struct graft_story {
    const char *component;   /* the component's key; non-empty */
    uint32_t version;        /* the component's version, >= 1 */
    const char *name;        /* non-empty, [a-z0-9_.-], at most 128 bytes;
                                unique within its component */
    const char *description; /* one sentence for people; may be NULL */
    const char *config;      /* inputs as a JSON object, as debug_config;
                                NULL means {} */
} graft_story_t;

typedef struct graft_stories graft_stories_t;

/* Returned by get_factory(GRAFT_STORIES_ID). Read while the plugin is
 * described (after `init`), never while another call into it runs. */
struct graft_stories {
    /* Number of stories (at most GRAFT_MAX_STORIES). Constant between `init`
     * and `deinit`.
     * [loading-thread] */
    uint32_t (*count)(const graft_stories_t *stories);

    /* Story at `index` (0 ..< count), or NULL when out of range. Owned by the
     * plugin; valid until `deinit`.
     * [loading-thread] */
    const graft_story_t *(*get)(const graft_stories_t *stories, uint32_t index);
};

/* ------------------------------------------------------------------------ */
/* Small helpers for C plugins (header-only, no linking needed)              */
/* ------------------------------------------------------------------------ */

static inline graft_value_t graft_null(void) {
    graft_value_t v; v.type = GRAFT_TYPE_NULL; v.data.number = 0; return v;
}
static inline graft_value_t graft_bool(bool b) {
    graft_value_t v; v.type = GRAFT_TYPE_BOOLEAN; v.data.boolean = b; return v;
}
static inline graft_value_t graft_number(double n) {
    graft_value_t v; v.type = GRAFT_TYPE_NUMBER; v.data.number = n; return v;
}
/* `s` must outlive the value; it is not copied. */
static inline graft_value_t graft_string(const char *s, size_t length) {
    graft_value_t v; v.type = GRAFT_TYPE_STRING;
    v.data.string.data = s; v.data.string.length = length; return v;
}
static inline graft_value_t graft_object(const graft_member_t *members, uint32_t count) {
    graft_value_t v; v.type = GRAFT_TYPE_OBJECT;
    v.data.object.members = members; v.data.object.count = count; return v;
}
static inline graft_value_t graft_list(const graft_value_t *items, uint32_t count) {
    graft_value_t v; v.type = GRAFT_TYPE_LIST;
    v.data.list.items = items; v.data.list.count = count; return v;
}

/* Returns the member of an OBJECT value named `key`, or NULL when `object` is
 * NULL, not an object, or has no such member. */
static inline const graft_value_t *graft_object_get(const graft_value_t *object,
                                                    const char *key) {
    uint32_t i;
    if (!object || object->type != GRAFT_TYPE_OBJECT) return NULL;
    for (i = 0; i < object->data.object.count; i++) {
        const char *a = object->data.object.members[i].key, *b = key;
        while (*a && *a == *b) { a++; b++; }
        if (*a == *b) return &object->data.object.members[i].value;
    }
    return NULL;
}

/* Writes a NUL-terminated string through a writer. */
static inline bool graft_write_cstr(const graft_writer_t *writer, const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    return writer->write(writer, s, n);
}

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_H */
