/// The one error type of Graft: a stable code, the file, symbol or key it
/// concerns, and a sentence a plugin author can act on.
public struct GraftError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable, snake_case codes. They appear in `--json` output and in logs;
    /// never rename one, only add.
    public enum Code: String, Sendable, Hashable, CaseIterable, Codable {
        // Loading
        case pluginNotFound = "plugin_not_found"
        case notASharedLibrary = "not_a_shared_library"
        case dlopenFailed = "dlopen_failed"
        case entrySymbolMissing = "entry_symbol_missing"
        case abiIncompatible = "abi_incompatible"
        case invalidDescriptor = "invalid_descriptor"
        case pluginInitFailed = "plugin_init_failed"
        case permissionDenied = "permission_denied"
        case duplicatePlugin = "duplicate_plugin"
        case pluginCrashed = "plugin_crashed"
        case pluginTimeout = "plugin_timeout"
        case pluginTooLarge = "plugin_too_large"
        case pluginChanged = "plugin_changed"
        case invalidFileName = "invalid_file_name"
        case untrustedPlugin = "untrusted_plugin"
        case pluginNotPinned = "plugin_not_pinned"
        case hashMismatch = "hash_mismatch"
        case signatureMissing = "signature_missing"
        case signatureInvalid = "signature_invalid"
        case signatureMismatch = "signature_mismatch"
        case publisherNotTrusted = "publisher_not_trusted"
        case publisherMismatch = "publisher_mismatch"
        case keyRevoked = "key_revoked"
        case versionRollback = "version_rollback"
        case invalidKey = "invalid_key"
        case scannerUnavailable = "scanner_unavailable"
        case pluginMemoryLimit = "plugin_memory_limit"
        case pluginStorageLimit = "plugin_storage_limit"
        case pluginCPUIdle = "plugin_cpu_idle"
        case outputTooLarge = "output_too_large"
        case pluginRestarted = "plugin_restarted"
        /// A `.wasm` file WasmKit cannot parse or validate.
        case wasmInvalid = "wasm_invalid"
        /// A `.wasm` module imports something Graft does not give a guest.
        case wasmImportUnknown = "wasm_import_unknown"
        /// A `.wasm` file, in a host built without the WebAssembly trait.
        case wasmUnsupported = "wasm_unsupported"
        // The sandbox
        /// An act the sandbox refused a plugin (a warning: the plugin goes on without it).
        case sandboxDenied = "sandbox_denied"
        /// The kernel cannot apply the sandbox (no Landlock, seccomp refused).
        case sandboxUnavailable = "sandbox_unavailable"
        /// A grant that means nothing the host app may have meant: it names no
        /// loaded plugin's id, or a permission the plugin does not declare (a warning).
        case grantUnused = "grant_unused"
        // Registry
        case duplicateComponent = "duplicate_component"
        case customComponentNotFound = "custom_component_not_found"
        case componentVersionMismatch = "component_version_mismatch"
        case invalidReference = "invalid_reference"
        /// A bare name more than one plugin declares was used (a warning).
        case ambiguousName = "ambiguous_name"
        // Contract drift (usually warnings, forwarded)
        case inputTypeMismatch = "input_type_mismatch"
        case inputMissing = "input_missing"
        case unknownInput = "unknown_input"
        case undeclaredEvent = "undeclared_event"
        case payloadSchemaMismatch = "payload_schema_mismatch"
        case contractMismatch = "contract_mismatch"
        // Runtime
        case instanceCreateFailed = "instance_create_failed"
        case renderFailed = "render_failed"
        case instanceClosed = "instance_closed"
        /// The task awaiting a call was cancelled: the call was abandoned.
        case callCancelled = "call_cancelled"
        case hostShutDown = "host_shut_down"
        case unknownInteraction = "unknown_interaction"
        case interactionRefused = "interaction_refused"
        case invalidConfig = "invalid_config"
        case invalidJSON = "invalid_json"
        // The debug endpoint
        case endpointUnavailable = "endpoint_unavailable"
        case tooManyClients = "too_many_clients"
        case lineTooLong = "line_too_long"
        case lineTimeout = "line_timeout"
        case idleTimeout = "idle_timeout"
        case outputOverflow = "output_overflow"
        // Flows
        case invalidFlow = "invalid_flow"
        case undeclaredVariable = "undeclared_variable"
        case unreachableScreen = "unreachable_screen"
        case unknownInstance = "unknown_instance"
        // Validators and actions
        case validatorNotFound = "validator_not_found"
        case invalidSignature = "invalid_signature"
        case invalidParam = "invalid_param"
        case actionNotFound = "action_not_found"
        case actionFailed = "action_failed"
        case duplicateValidator = "duplicate_validator"
        case duplicateAction = "duplicate_action"
        // Stories as tests (`graft test`, the workbench's play panel)
        /// A story file that does not read, or says something a story file cannot.
        case invalidStory = "invalid_story"
        /// A story's play step failed, or an expectation did not hold.
        case storyFailed = "story_failed"
        /// A story's render is not its snapshot.
        case snapshotMismatch = "snapshot_mismatch"
        /// axe-core found a serious or critical issue in a story's HTML render (`graft test --a11y`).
        case inaccessibleRender = "inaccessible_render"
        // The conformance checker
        /// `graft check --conformance --only/--skip` named a test that does not exist.
        case unknownTest = "unknown_test"
    }

    public var code: Code
    /// A sentence naming what is wrong and, where it helps, what to do.
    public var message: String
    /// The plugin file concerned, if any.
    public var path: String?
    /// The symbol concerned (for example `graft_entry`), if any.
    public var symbol: String?
    /// The component, validator or action key concerned, if any.
    public var key: String?

    public init(_ code: Code, _ message: String, path: String? = nil, symbol: String? = nil, key: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.symbol = symbol
        self.key = key
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// A contract drift the host forwarded instead of refusing: an undeclared
/// event, a payload off its schema, an unknown or mistyped input.
public struct GraftWarning: Sendable, Hashable, CustomStringConvertible {
    public var code: GraftError.Code
    public var message: String
    /// The instance that caused it, when there is one.
    public var instanceID: String?

    package init(_ code: GraftError.Code, _ message: String, instanceID: String? = nil) {
        self.code = code
        self.message = message
        self.instanceID = instanceID
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension GraftError.Code {
    /// The codes a child process (scanner, runner) may send about the plugin
    /// it runs: how the plugin's file, descriptors or calls failed. The
    /// host's own verdicts (trust, pins, quarantine, the sandbox, crashes and
    /// deadlines) are the host's to give; a child that sends one is killed.
    static let reportableByChild: Set<GraftError.Code> = [
        .pluginNotFound, .notASharedLibrary, .dlopenFailed, .entrySymbolMissing, .abiIncompatible, .invalidDescriptor,
        .pluginInitFailed, .permissionDenied, .pluginTooLarge, .invalidFileName, .outputTooLarge,
        .duplicateComponent, .customComponentNotFound, .componentVersionMismatch, .invalidReference,
        .inputTypeMismatch, .inputMissing, .unknownInput, .undeclaredEvent, .payloadSchemaMismatch, .contractMismatch,
        .instanceCreateFailed, .renderFailed, .instanceClosed, .unknownInteraction, .interactionRefused, .invalidConfig,
        .invalidJSON, .validatorNotFound, .invalidSignature, .invalidParam, .actionNotFound, .actionFailed,
        .duplicateValidator, .duplicateAction,
    ]
}
