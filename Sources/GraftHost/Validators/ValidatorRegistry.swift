import CGraft
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Validators by name + version; version 1 also answers the bare name.
final class ValidatorRegistry: Sendable {
    /// An immutable table replaced whole on change. `validate` reads it
    /// through `ReadMostly`, without a lock or a reference count.
    final class Table: Sendable {
        let entries: [ComponentReference: RegisteredValidator]
        /// The bare names flows use, `name@2` and, for version 1, `name`:
        /// one cheap hash per call, no parsing.
        let byName: NameTable<RegisteredValidator>

        init(_ entries: [ComponentReference: RegisteredValidator]) {
            self.entries = entries
            var names: [(String, RegisteredValidator)] = []
            // Bare names only: a qualified name (rarer) is parsed on a miss
            // and found in `entries`.
            for (reference, validator) in entries where reference.plugin == nil {
                names.append((reference.description, validator))
                if reference.version == 1 { names.append((reference.key, validator)) }
            }
            byName = NameTable(names)
        }
    }

    private let table = ReadMostly(Table([:]))

    package init() {}

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

    /// Prepares `plugin`'s native validators for libffi; throws for a
    /// signature libffi cannot call. (Whether its names are free is
    /// `PluginTable`'s to check.)
    func prepare(_ plugin: LoadedPlugin) throws(GraftError) -> Prepared {
        if plugin.callsElsewhere { return Prepared(entries: [:], functions: [:], isPending: false) }
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

    /// One published step: the validators of `plugins` under their qualified
    /// names (in the table, or waiting for their plugin to map), every name
    /// of `removing` gone, and each bare name in `owners` answered by its
    /// owner's validator, or by none.
    func publish(
        _ plugins: [(plugin: LoadedPlugin, prepared: Prepared)], removing old: LoadedPlugin? = nil,
        owners: [(ComponentReference, LoadedPlugin?)]
    ) {
        let ready = plugins.filter { !$0.prepared.isPending && !$0.plugin.info.validators.isEmpty }
        let waiting = plugins.filter { $0.prepared.isPending && !$0.plugin.info.validators.isEmpty }.map(\.plugin)
        if ready.isEmpty && waiting.isEmpty && old == nil && owners.isEmpty { return }
        pending.withLock { pending in
            if let old { pending = pending.filter { $0.value !== old } }
            if !ready.isEmpty, !pending.isEmpty {
                let mapped = Set(ready.map { ObjectIdentifier($0.plugin) })
                pending = pending.filter { !mapped.contains(ObjectIdentifier($0.value)) }
            }
            for plugin in waiting {
                for contract in plugin.info.validators {
                    pending[contract.reference.qualified(by: plugin.info.id)] = plugin
                }
            }
            // Bare names whose owner waits to map wait with it.
            for (name, owner) in owners {
                pending[name] = owner.flatMap { $0.isMapped || $0.callsElsewhere ? nil : $0 }
            }
        }
        // Plugins that all wait to map change the table only where a bare
        // name it answers moves to one of them.
        if ready.isEmpty && old == nil {
            let entries = table.value.entries
            if owners.allSatisfy({ entries[$0.0] == nil }) { return }
        }
        table.update { table in
            var entries = table.entries
            if let old { entries = entries.filter { $0.value.plugin !== old } }
            for (plugin, prepared) in ready {
                for (reference, entry) in prepared.entries {
                    entries[reference.qualified(by: plugin.info.id)] = RegisteredValidator(
                        contract: entry.contract, plugin: plugin, descriptor: .init(pointer: entry.descriptor),
                        native: prepared.functions[reference])
                }
                // An isolated plugin's validators answer from its runner child, a guest's from its runtime.
                if plugin.callsElsewhere {
                    for contract in plugin.info.validators {
                        entries[contract.reference.qualified(by: plugin.info.id)] = RegisteredValidator(
                            contract: contract, plugin: plugin, descriptor: nil, native: nil)
                    }
                }
            }
            for (name, owner) in owners {
                entries[name] = owner.flatMap { entries[name.qualified(by: $0.info.id)] }
            }
            return (Table(entries), ())
        }
    }

    /// Maps the plugin that declares `reference`, if it is waiting, and
    /// publishes its validators under every name it holds. False when no
    /// plugin waits with it.
    private func mapPending(_ reference: ComponentReference) throws(GraftError) -> Bool {
        guard let plugin = pending.withLock({ $0[reference] }) else { return false }
        _ = try plugin.mapped()
        let prepared = try prepare(plugin)
        let owned = pending.withLock { pending in pending.filter { $0.key.plugin == nil && $0.value === plugin }.keys }
        publish([(plugin, prepared)], owners: owned.map { ($0, plugin) })
        return true
    }

    /// Every validator, mapping the plugins still waiting.
    var all: [RegisteredValidator] {
        for reference in pending.withLock({ Array($0.keys) }) { _ = try? mapPending(reference) }
        return table.value.entries.filter { $0.key.plugin != nil }.values.sorted {
            ($0.contract.name, $0.contract.version, $0.pluginID) < ($1.contract.name, $1.contract.version, $1.pluginID)
        }
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
        if let found = table.read({ $0.byName[name] }) { return found }
        // Parse only on a miss: a spelling the table does not list
        // (`luhn@01`), or the precise error.
        return try resolve(ComponentReference(parsing: name))
    }

    /// Validates with the validator `name` without a lock or a reference
    /// count on the way: the table and the validator are borrowed inside one
    /// read, so a swap that replaces them releases them only after this call.
    /// Inlined into `GraftHost.validate`: the call and the copy of its
    /// result cost a sixth of a fast validation.
    @inline(__always)
    func validate(
        name: String, value: GraftValue, params: [String], path: NativeCallPath
    ) throws(GraftError) -> ValidationOutcome {
        let outcome = table.read { table, reader in
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
    ) throws(GraftError) -> ValidationOutcome {
        try resolve(name: name).validate(value, params: params, path: path)
    }
}
