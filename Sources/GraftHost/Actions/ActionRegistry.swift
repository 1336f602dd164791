import CGraft

/// What a custom action did, as its host saw it (a Swift plugin's action returns GraftKit's `ActionResult`).
public struct ActionOutcome: Sendable, Hashable {
    public package(set) var ok: Bool
    /// Why it failed, when it did.
    public package(set) var error: String?
    /// Variables to set (applied only when `ok`).
    public package(set) var variables: [String: GraftValue]
    /// A result for the log and the debugger, such as an intent.
    public package(set) var result: GraftValue?
    /// How long the plugin's action took, and the CPU time it used: its
    /// thread's in process, its process's in a runner child (with other
    /// calls in flight on that child, theirs too; a child started for this
    /// call, its start too). Nil for a built-in action.
    public package(set) var wallTime: Duration?
    public package(set) var cpuTime: Duration?
}

/// A custom action the host can invoke, with the plugin that provides it.
public struct RegisteredAction: Sendable {
    public let contract: ActionContract
    public let pluginID: String
    public let pluginPath: String
    /// Keeps the image mapped while a lookup's result is in use (and maps it
    /// on first use, for a plugin known from its description).
    let plugin: LoadedPlugin

    /// The plugin's descriptor, mapping the image if needed; valid until the
    /// plugin is unloaded, which happens only after it leaves the registry.
    func descriptor() throws(GraftError) -> UnsafePointer<graft_action_descriptor_t> {
        guard let entry = try plugin.mapped().actions[contract.reference] else {
            throw GraftError(
                .actionNotFound, "\(pluginPath) no longer declares action '\(contract.reference)'.", path: pluginPath,
                key: contract.key)
        }
        return entry.descriptor
    }
}

/// Custom actions by key + version; version 1 also answers the bare key.
final class ActionRegistry: Sendable {
    private let actions = Locked<[ComponentReference: RegisteredAction]>([:])

    /// Every action by each name that reaches it: qualified, and bare for its owner.
    var byName: [ComponentReference: RegisteredAction] { actions.withLock { $0 } }

    /// One published step: the actions of `plugins` under their qualified
    /// names, every name of `removing` gone, and each bare name in `owners`
    /// answered by its owner's action, or by none.
    func publish(_ plugins: [LoadedPlugin], removing old: LoadedPlugin? = nil, owners: [(ComponentReference, LoadedPlugin?)]) {
        if old == nil && owners.isEmpty && !plugins.contains(where: { !$0.info.actions.isEmpty }) { return }
        actions.withLock { actions in
            if let old { actions = actions.filter { $0.value.plugin !== old } }
            for plugin in plugins {
                for contract in plugin.info.actions {
                    actions[contract.reference.qualified(by: plugin.info.id)] = RegisteredAction(
                        contract: contract, pluginID: plugin.info.id, pluginPath: plugin.info.path, plugin: plugin)
                }
            }
            for (name, owner) in owners {
                actions[name] = owner.flatMap { actions[name.qualified(by: $0.info.id)] }
            }
        }
    }

    /// Every action (each once, whether or not it owns its bare name),
    /// sorted by key, version and plugin id.
    var all: [RegisteredAction] {
        actions.withLock { actions in
            actions.filter { $0.key.plugin != nil }.values.sorted {
                ($0.contract.key, $0.contract.version, $0.pluginID) < ($1.contract.key, $1.contract.version, $1.pluginID)
            }
        }
    }

    func resolve(_ reference: ComponentReference) throws(GraftError) -> RegisteredAction {
        guard let found = actions.withLock({ $0[reference] }) else {
            let names = actions.withLock { $0.keys.map(\.key) }
            throw GraftError(
                .actionNotFound, "no plugin registers action '\(reference)'.\(NearMiss.hint(for: reference.key, among: names))",
                key: reference.key)
        }
        return found
    }
}

/// Collects what one `invoke` reports through its `graft_action_context_t`.
private final class ActionRecorder {
    var variables: [String: GraftValue] = [:]
    var result: GraftValue?
    var error: String?
}

extension GraftHost {
    /// Every registered custom action, sorted by key then version.
    public var actions: [RegisteredAction] { table.actions.all }

    /// The action flows call `name` (`format_currency`, `format_currency@2`
    /// or qualified, `dev.graft.checkout/format_currency`). Throws
    /// `action_not_found` or `invalid_reference`.
    public func action(_ name: String) throws(GraftError) -> RegisteredAction {
        try table.actions.resolve(ComponentReference(parsing: name))
    }

    /// Invokes the custom action `key` (`format_currency` or `format_currency@2`)
    /// with its configured `params` and the triggering event's `payload`.
    /// Param drift (unknown key, wrong type) is forwarded; the action decides.
    public func invokeAction(
        _ key: String, params: [String: GraftValue] = [:], payload: GraftValue? = nil
    ) throws(GraftError) -> ActionOutcome {
        let action = try table.actions.resolve(ComponentReference(parsing: key))
        let plugin = action.plugin
        let (started, cpu) = (ContinuousClock.now, plugin.cpuTime)
        var result =
            if let telemetry = plugin.telemetry {
                try telemetry.measure(.action, cpu: { plugin.cpuTime }) { () throws(GraftError) in try invoke(action, params: params, payload: payload) }
            } else {
                try invoke(action, params: params, payload: payload)
            }
        result.wallTime = ContinuousClock.now - started
        // A child started for this call counts from its start.
        result.cpuTime = plugin.cpuTime.map { now in now - (cpu ?? .zero) }
        return result
    }

    private func invoke(_ action: RegisteredAction, params: [String: GraftValue], payload: GraftValue?) throws(GraftError) -> ActionOutcome {
        if let runner = action.plugin.runner { return try runner.invoke(action, params: params, payload: payload) }
        if let guest = action.plugin.guest { return try guest.invoke(action, params: params, payload: payload) }
        let descriptor = try action.descriptor()
        let recorder = ActionRecorder()
        var context = graft_action_context_t()
        context.host_data = Unmanaged.passUnretained(recorder).toOpaque()
        context.set_variable = { context, name, value in
            guard let recorder = ActionRecorder.from(context), let name else { return }
            recorder.variables[String(cString: name)] = GraftValue(copying: value)
        }
        context.set_result = { context, value in
            ActionRecorder.from(context)?.result = GraftValue(copying: value)
        }
        context.set_error = { context, message in
            ActionRecorder.from(context)?.error = message.map { String(cString: $0) }
        }
        context.log = { _, _, _ in }  // an action's log lines are not kept
        let invoke = descriptor.pointee.invoke!
        let ok = withUnsafePointer(to: &context) { context in
            GraftValue.object(params).withCValue { params in
                guard let payload else { return invoke(descriptor, params, nil, context) }
                return payload.withCValue { invoke(descriptor, params, $0, context) }
            }
        }
        return ActionOutcome(
            ok: ok, error: ok ? nil : (recorder.error ?? "action '\(action.contract.key)' failed without saying why"),
            variables: ok ? recorder.variables : [:], result: recorder.result)
    }
}

extension ActionRecorder {
    static func from(_ context: UnsafePointer<graft_action_context_t>?) -> ActionRecorder? {
        guard let data = context?.pointee.host_data else { return nil }
        return Unmanaged<ActionRecorder>.fromOpaque(data).takeUnretainedValue()
    }
}
