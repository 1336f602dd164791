/// The conformance tests `graft check --conformance` runs, each in a child
/// process of its own (see `ConformanceSupervisor`). Names are stable and
/// kebab-case: scripts pass them to `--only` and `--skip`.
package enum ConformanceTest: String, CaseIterable, Sendable, Hashable {
    case entryAndABI = "entry-and-abi"
    case descriptorConsistency = "descriptor-consistency"
    case createFromDebugConfig = "create-from-debug-config"
    case renderTextAndHTML = "render-text-and-html"
    case interactions = "interactions"
    case createDestroy1000 = "create-destroy-1000"
    case hostileInputs = "hostile-inputs"
    case validatorEdgeValues = "validator-edge-values"
    case actionMissingParams = "action-missing-params"
    case concurrentCalls = "concurrent-calls"
    case initDeinitInit = "init-deinit-init"
    case scanTime = "scan-time"
    case exportedSymbols = "exported-symbols"

    package var name: String { rawValue }

    /// One sentence for `--list-tests`: what the test does and what it expects.
    package var summary: String {
        switch self {
        case .entryAndABI:
            "graft_entry is exported as a function and returns an entry with struct_size = sizeof(graft_plugin_entry_t), an ABI this host loads, a reverse-DNS id, a version and a name, init and get_factory; init returns true; get_factory returns NULL for an id it does not know."
        case .descriptorConsistency:
            "Every descriptor follows graft.h (keys, versions, types, at most 64 fields, unique keys, a debugConfig that is a JSON object of declared inputs with their declared types, native signatures); count() is constant, get_descriptor(count) is NULL and a second read gives the same descriptors."
        case .createFromDebugConfig:
            "Every component is created from its debugConfig (unbounded and 40×10 containers) with render and destroy set; create refuses a key or version the factory does not list."
        case .renderTextAndHTML:
            "Every component renders when asked for text/plain and text/html: render returns true, the declared media type is type/subtype, text is UTF-8 and at most 4 MiB; warns on HTML for a terminal, markup declared text/plain, or an empty render."
        case .interactions:
            "Every declared interaction returns true and each event it emits is declared, with a payload that matches its schema; an unknown interaction returns false and emits nothing. Components of ABI 1.0 declare no interactions: then only the unknown one is tried."
        case .createDestroy1000:
            "Each component is created from its debugConfig and destroyed 1,000 times; the process's resident memory may grow by at most 1 MiB."
        case .hostileInputs:
            "Each component is created (and rendered) with no inputs, each input of a wrong type, an undeclared input, each string input 16 MiB long and each string input not UTF-8: no crash, no hang (NULL from create is allowed)."
        case .validatorEdgeValues:
            "Each validator is called with an empty value, a 16 MiB value and a value that is not UTF-8 (params from their declared types): no crash, no hang, a message that is UTF-8."
        case .actionMissingParams:
            "Each action is invoked with no params and with each param missing in turn: no crash, no hang; an action that fails says why (set_error)."
        case .concurrentCalls:
            "Four threads at once call what graft.h marks [thread-safe] — graft_entry, get_factory, count, get_descriptor, create (each thread its own instances), validators, actions — and get what one thread alone gets."
        case .initDeinitInit:
            "In one process: init, deinit, init again; the second init returns true, the descriptors are the same, every component is created from its debugConfig and renders; then deinit again."
        case .scanTime:
            "Loading the plugin as the scanner does (dlopen with constructors, graft_entry, init, every descriptor, native signatures) takes under 100 ms."
        case .exportedSymbols:
            "The image exports no symbol but graft_entry (a warning: other exports can clash with the host's or other plugins' symbols)."
        }
    }

    /// How long the test's child may run before it is killed (`plugin_timeout`).
    package var deadline: Duration {
        switch self {
        case .createDestroy1000, .hostileInputs: .seconds(60)
        case .validatorEdgeValues, .concurrentCalls: .seconds(30)
        default: .seconds(10)
        }
    }
}
