import CGraft
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The answer of a validator.
public struct ValidationResult: Sendable, Hashable {
    public var isValid: Bool
    /// Why the value is invalid (nil when valid). Flow SDKs key it by the
    /// validator's name.
    public var message: String?
    public var validator: String

    public init(isValid: Bool, message: String? = nil, validator: String) {
        self.isValid = isValid
        self.message = message
        self.validator = validator
    }
}

/// A validator the host can call, with the plugin that provides it. A class,
/// so a lookup hands out one reference.
public final class RegisteredValidator: Sendable {
    public let contract: ValidatorContract
    public let pluginID: String
    public let pluginPath: String
    /// Nil for a validator of an isolated plugin: it runs in the plugin's runner child.
    let descriptor: UnsafeDescriptor?
    /// Owns the prepared call of a native validator.
    let native: NativeFunction?
    /// `native`'s call and fast path, plain values kept inline so the hot
    /// path retains nothing.
    let nativeCall: NativeCall?
    let fastPath: NativeFunction.FastPath?
    /// Keeps the image mapped while a lookup's result is in use.
    let plugin: LoadedPlugin

    init(contract: ValidatorContract, plugin: LoadedPlugin, descriptor: UnsafeDescriptor?, native: NativeFunction?) {
        self.contract = contract
        self.plugin = plugin
        self.pluginID = plugin.info.id
        self.pluginPath = plugin.info.path
        self.descriptor = descriptor
        self.native = native
        self.nativeCall = native?.call
        self.fastPath = native?.fastPath
    }

    /// The plugin's descriptor; valid until the plugin is unloaded, which
    /// happens only after it leaves the registry.
    struct UnsafeDescriptor: @unchecked Sendable {
        let pointer: UnsafePointer<graft_validator_descriptor_t>
    }
}

/// How a native validator is called: the typed fast path where the signature
/// has one, libffi otherwise; `.libffi` forces libffi (tests, benchmarks).
public enum NativeCallPath: Sendable {
    case automatic
    case libffi
}

/// Validators by name + version; version 1 also answers the bare name.
final class ValidatorRegistry: Sendable {
    /// An immutable table replaced whole on change. `validate` reads it
    /// inside a read section, without a lock or a reference count.
    final class Table: Sendable {
        let entries: [ComponentReference: RegisteredValidator]
        /// The same entries by the names flows use, `name@2` and, for
        /// version 1, the bare `name`: one cheap hash per call, no parsing.
        let byName: NameTable<RegisteredValidator>

        init(_ entries: [ComponentReference: RegisteredValidator]) {
            self.entries = entries
            var names: [(String, RegisteredValidator)] = []
            for (reference, validator) in entries {
                names.append((reference.description, validator))
                if reference.version == 1 { names.append((reference.key, validator)) }
            }
            byName = NameTable(names)
        }
    }

    private let table = ReadMostly(Table([:]))

    /// Validators of plugins registered from their description whose image
    /// is not mapped yet: a lookup that misses the table maps the plugin and
    /// publishes them (`mapPending`).
    private let pending = Locked<[ComponentReference: LoadedPlugin]>([:])

    /// The libffi call interfaces of one plugin's native validators, prepared
    /// before anything is published so that publishing cannot fail. Empty for
    /// a plugin not mapped yet: its validators are prepared when first used.
    struct Prepared {
        var entries: [ComponentReference: (contract: ValidatorContract, descriptor: UnsafePointer<graft_validator_descriptor_t>)]
        var functions: [ComponentReference: NativeFunction]
        var isPending: Bool
    }

    /// Throws when `plugin` cannot be registered: a name taken by another
    /// plugin (other than `replacing`), or a native signature libffi cannot
    /// prepare.
    func prepare(_ plugin: LoadedPlugin, replacing: LoadedPlugin? = nil) throws(GraftError) -> Prepared {
        let current = table.value.entries
        let waiting = pending.withLock { $0 }
        for contract in plugin.info.validators {
            let reference = ComponentReference(key: contract.name, version: contract.version)
            let holder = current[reference]?.plugin ?? waiting[reference]
            if let holder, holder !== replacing, holder !== plugin {
                throw GraftError(
                    .duplicateValidator,
                    "validator '\(reference)' from \(plugin.info.path) is already registered by \(holder.info.path); the first stays.",
                    path: plugin.info.path, key: reference.key)
            }
        }
        if plugin.runner != nil { return Prepared(entries: [:], functions: [:], isPending: false) }
        guard plugin.isMapped else { return Prepared(entries: [:], functions: [:], isPending: true) }
        let entries = try plugin.mapped().validators
        var functions: [ComponentReference: NativeFunction] = [:]
        for (reference, entry) in entries {
            if case .native(let text) = entry.contract.kind, let function = entry.descriptor.pointee.function {
                functions[reference] = try NativeFunction(
                    signature: NativeSignature(parsing: text), function: function, name: entry.contract.name)
            }
        }
        return Prepared(entries: entries, functions: functions, isPending: false)
    }

    /// Publishes `plugin`'s validators in one step, removing those of
    /// `replacing` (the build it replaces), if any.
    func register(_ plugin: LoadedPlugin, prepared: Prepared, replacing: LoadedPlugin? = nil) {
        pending.withLock { pending in
            pending = pending.filter { $0.value !== replacing && $0.value !== plugin }
            if prepared.isPending {
                for contract in plugin.info.validators {
                    pending[ComponentReference(key: contract.name, version: contract.version)] = plugin
                }
            }
        }
        let functions = prepared.functions
        // A plugin waiting to map adds nothing to the table yet.
        if prepared.entries.isEmpty && replacing == nil && plugin.runner == nil { return }
        table.update { table in
            var entries = table.entries
            if let replacing { entries = entries.filter { $0.value.plugin !== replacing } }
            for (reference, entry) in prepared.entries {
                entries[reference] = RegisteredValidator(
                    contract: entry.contract, plugin: plugin, descriptor: .init(pointer: entry.descriptor),
                    native: functions[reference])
            }
            // An isolated plugin's validators answer from its runner child.
            if plugin.runner != nil {
                for contract in plugin.info.validators {
                    entries[ComponentReference(key: contract.name, version: contract.version)] = RegisteredValidator(
                        contract: contract, plugin: plugin, descriptor: nil, native: nil)
                }
            }
            return (Table(entries), ())
        }
    }

    /// Every validator name taken, published or waiting for its plugin.
    var references: Set<ComponentReference> {
        Set(table.value.entries.keys).union(pending.withLock { Set($0.keys) })
    }

    /// Registers the validators of plugins known from their description, in
    /// one step: waiting for their plugin to map, or answering from its
    /// runner child. The caller has checked the names are free.
    func registerDescribed(_ plugins: [LoadedPlugin]) {
        let remote = plugins.filter { $0.runner != nil }
        pending.withLock { pending in
            for plugin in plugins where plugin.runner == nil {
                for contract in plugin.info.validators {
                    pending[ComponentReference(key: contract.name, version: contract.version)] = plugin
                }
            }
        }
        guard remote.contains(where: { !$0.info.validators.isEmpty }) else { return }
        table.update { table in
            var entries = table.entries
            for plugin in remote {
                for contract in plugin.info.validators {
                    entries[ComponentReference(key: contract.name, version: contract.version)] = RegisteredValidator(
                        contract: contract, plugin: plugin, descriptor: nil, native: nil)
                }
            }
            return (Table(entries), ())
        }
    }

    /// Maps the plugin that declares `reference`, if it is waiting, and
    /// publishes its validators. False when no plugin waits with it.
    private func mapPending(_ reference: ComponentReference) throws(GraftError) -> Bool {
        guard let plugin = pending.withLock({ $0[reference] }) else { return false }
        _ = try plugin.mapped()
        let prepared = try prepare(plugin)
        register(plugin, prepared: prepared)
        return true
    }

    func removeAll(providedBy plugin: LoadedPlugin) {
        pending.withLock { pending in pending = pending.filter { $0.value !== plugin } }
        table.update { table in (Table(table.entries.filter { $0.value.plugin !== plugin }), ()) }
    }

    /// Every validator, mapping the plugins still waiting.
    var all: [RegisteredValidator] {
        for reference in pending.withLock({ Array($0.keys) }) { _ = try? mapPending(reference) }
        return table.value.entries.values.sorted { ($0.contract.name, $0.contract.version) < ($1.contract.name, $1.contract.version) }
    }

    func resolve(_ reference: ComponentReference) throws(GraftError) -> RegisteredValidator {
        var found = table.value.entries[reference]
        if found == nil, try mapPending(reference) { found = table.value.entries[reference] }
        guard let found else {
            let names = table.value.entries.keys.map(\.key) + pending.withLock { $0.keys.map(\.key) }
            throw GraftError(
                .validatorNotFound, "no plugin registers validator '\(reference)'.\(NearMiss.hint(for: reference.key, among: names))",
                key: reference.key)
        }
        return found
    }

    /// The validator flows call `name` (`luhn` or `luhn@2`).
    func resolve(name: String) throws(GraftError) -> RegisteredValidator {
        if let found = table.withCurrent({ $0.byName[name] }) { return found }
        // Parse only on a miss: a spelling the table does not list
        // (`luhn@01`), or the precise error.
        return try resolve(ComponentReference(parsing: name))
    }

    /// Validates with the validator `name` without a lock or a reference
    /// count on the way: the table and the validator are borrowed inside one
    /// read section, so a swap that replaces them waits for this call.
    func validate(
        name: String, value: GraftValue, params: [String], path: NativeCallPath
    ) throws(GraftError) -> ValidationResult {
        let outcome = table.withCurrent { table, reader in
            table.byName.withValue(named: name, reader: reader) { validator in
                Result { () throws(GraftError) in try validator.validate(value, params: params, path: path) }
            }
        }
        if let outcome { return try outcome.get() }
        return try validateAfterMiss(name: name, value: value, params: params, path: path)
    }

    /// A name the table does not list: parse it, and hold the validator by
    /// reference. Kept out of line, so the hot path above stays small.
    @inline(never)
    private func validateAfterMiss(
        name: String, value: GraftValue, params: [String], path: NativeCallPath
    ) throws(GraftError) -> ValidationResult {
        try resolve(name: name).validate(value, params: params, path: path)
    }
}

extension GraftHost {
    /// Every registered validator, sorted by name then version.
    public var validators: [RegisteredValidator] { validatorRegistry.all }

    /// Validates `value` with the validator `name` (`luhn` or `luhn@2`) and
    /// the editor's string `params`.
    ///
    /// A value the validator cannot read (text where it takes a number) is
    /// invalid, not an error. Errors: `validator_not_found`; `invalid_param`
    /// for params of the wrong count or that do not convert (naming the
    /// position and the text).
    public func validate(
        _ name: String, value: GraftValue, params: [String] = [], path: NativeCallPath = .automatic
    ) throws(GraftError) -> ValidationResult {
        try validatorRegistry.validate(name: name, value: value, params: params, path: path)
    }

    /// The validator flows call `name` (`luhn` or `luhn@2`), to call many
    /// times without a lookup each time. Throws `validator_not_found`.
    public func validator(_ name: String) throws(GraftError) -> RegisteredValidator {
        try validatorRegistry.resolve(name: name)
    }
}

extension RegisteredValidator {
    /// Validates `value` with the editor's string `params`; see `GraftHost.validate`.
    public func validate(
        _ value: GraftValue, params: [String] = [], path: NativeCallPath = .automatic
    ) throws(GraftError) -> ValidationResult {
        guard let nativeCall else { return try validateGeneric(value, params: params) }
        // The hot path first: a common native signature whose arguments convert.
        if path == .automatic, let fastPath, let valid = fastPath.call(value: value, params: params) {
            return answer(valid)
        }
        guard params.count == nativeCall.count - 1 else { throw paramCountMismatch(params.count) }
        let outcome = nativeCall.callThroughFFI(value: value, params: params)
        if case .answered(let valid) = outcome { return answer(valid) }
        return try explain(outcome, value: value, params: params)
    }

    private func answer(_ valid: Bool) -> ValidationResult {
        ValidationResult(isValid: valid, message: valid ? nil : (contract.message ?? "is not valid"), validator: contract.name)
    }

    private func paramCountMismatch(_ count: Int) -> GraftError {
        let signature = native?.signature.description ?? ""
        let takes = (nativeCall?.count ?? 1) - 1
        return GraftError(
            .invalidParam,
            "validator '\(contract.name)' takes \(takes) param\(takes == 1 ? "" : "s") (\(signature)) but got \(count).",
            key: contract.name)
    }

    /// Why a native call did not answer: the value is invalid (it does not
    /// convert), or a param is an error.
    private func explain(_ outcome: NativeCall.Outcome, value: GraftValue, params: [String]) throws(GraftError) -> ValidationResult {
        let arguments = native?.signature.arguments ?? []
        switch outcome {
        case .answered(let valid):
            return answer(valid)
        case .valueUnreadable:
            if case .string(let text) = value, text.containsByte(0) {
                return ValidationResult(
                    isValid: false, message: "contains a NUL byte, which a C string cannot carry", validator: contract.name)
            }
            return ValidationResult(
                isValid: false, message: contract.message ?? "is not a valid \(arguments.first?.rawValue ?? "value")",
                validator: contract.name)
        case .paramUnreadable(let index):
            throw GraftError(
                .invalidParam,
                "validator '\(contract.name)' param \(index + 1) ('\(contract.params[safe: index]?.key ?? "param")') is '\(params[index])', which is not a valid \(arguments[safe: index + 1]?.rawValue ?? "param").",
                key: contract.name)
        }
    }

    /// A validator of an isolated plugin, called in its runner child (where
    /// the native ones take the same fast path or libffi).
    private func validateRemotely(_ runner: PluginRunner, _ value: GraftValue, params: [String]) throws(GraftError) -> ValidationResult {
        let name = ComponentReference(key: contract.name, version: contract.version).description
        var (answer, _, _) = try runner.call(.validate, plugin: plugin, what: "validator '\(name)'", deadline: runner.limits.validator) { writer, slot in
            writer.u32(slot)
            writer.string(name)
            writer.value(value)
            writer.list(params) { $0.string($1) }
        }
        do throws(Wire.Violation) {
            guard answer.kind == .validated else { throw Wire.Violation(description: "\(answer.kind)") }
            let valid = try answer.reader.bool()
            return ValidationResult(isValid: valid, message: try answer.reader.optional(), validator: contract.name)
        } catch {
            throw GraftError(
                .validatorNotFound, "the runner of \(pluginPath) answered validator '\(name)' with \(error.description).",
                key: contract.name)
        }
    }

    /// A generic validator: the plugin's function, on graft values.
    private func validateGeneric(_ value: GraftValue, params: [String]) throws(GraftError) -> ValidationResult {
        if let runner = plugin.runner { return try validateRemotely(runner, value, params: params) }
        guard let descriptor = self.descriptor?.pointer, let validate = descriptor.pointee.validate else {
            throw GraftError(.validatorNotFound, "validator '\(contract.name)' has no function to call.", key: contract.name)
        }
        guard contract.params.isEmpty || params.count == contract.params.count else {
            throw GraftError(
                .invalidParam,
                "validator '\(contract.name)' takes \(contract.params.count) param\(contract.params.count == 1 ? "" : "s") (\(contract.params.map(\.key).joined(separator: ", "))) but got \(params.count).",
                key: contract.name)
        }
        let arena = CArena()
        let cParams = arena.allocate(UnsafePointer<CChar>?.self, count: params.count)
        for (index, param) in params.enumerated() { (cParams + index).initialize(to: arena.cString(param).pointer) }
        let output = OutputWriter(limit: 64 << 10)
        let valid = output.withWriter { writer in
            validate(descriptor, arena.cValuePointer(value), UnsafePointer(cParams), UInt32(params.count), writer)
        }
        if valid { return ValidationResult(isValid: true, validator: contract.name) }
        return ValidationResult(
            isValid: false, message: output.bytes.isEmpty ? (contract.message ?? "is not valid") : output.text,
            validator: contract.name)
    }
}

/// Converts flow values and param text to native argument types. Text is
/// trimmed of spaces before it is read as a number or a boolean.
enum NativeCoercion {
    static func text(_ value: GraftValue) -> String? {
        switch value {
        case .string(let s): s
        case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .bool(let b): b ? "true" : "false"
        default: nil
        }
    }

    static func integer(_ value: GraftValue) -> Int64? {
        switch value {
        case .number(let n): n == n.rounded() ? Int64(exactly: n) : nil
        case .string(let s): Int64(s.trimmingSpaces)
        default: nil
        }
    }

    static func double(_ value: GraftValue) -> Double? {
        switch value {
        case .number(let n): n
        case .string(let s): Double(s.trimmingSpaces)
        default: nil
        }
    }

    static func bool(_ value: GraftValue) -> Bool? {
        switch value {
        case .bool(let b): b
        case .string(let s):
            switch s.trimmingSpaces.lowercased() {
            case "true", "1", "yes": true
            case "false", "0", "no": false
            default: nil
            }
        default: nil
        }
    }
}

extension String {
    /// Whether the UTF-8 holds `byte`: memchr on contiguous storage.
    func containsByte(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { bytes in
            bytes.baseAddress.map { memchr($0, Int32(byte), bytes.count) != nil } ?? false
        } ?? utf8.contains(byte)
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension GraftHost {
    /// The C function behind a native validator, so a benchmark can call it
    /// directly as the baseline for `validate`.
    @_spi(Benchmarks)
    public func nativeFunctionAddress(ofValidator name: String) -> UnsafeRawPointer? {
        guard let validator = try? validatorRegistry.resolve(ComponentReference(parsing: name)),
            let function = validator.descriptor?.pointer.pointee.function
        else { return nil }
        return unsafeBitCast(function, to: UnsafeRawPointer.self)
    }
}

extension RegisteredValidator {
    /// Calls a `bool(string)` native validator through its prepared libffi
    /// interface and nothing else: the floor under the libffi path, so a
    /// benchmark can show what `ffi_call` itself costs. Nil for other kinds.
    @_spi(Benchmarks)
    public func callPreparedInterface(_ argument: UnsafePointer<CChar>) -> Bool? {
        guard let native, native.signature.returnType == .bool, native.signature.arguments.count == 1,
            native.signature.arguments[0] == .string
        else { return nil }
        return native.call.callPreparedInterface(argument)
    }
}
