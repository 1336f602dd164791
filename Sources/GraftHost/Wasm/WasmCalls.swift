#if WebAssembly
import WasmKit

/// The guest's side of components, validators and actions: graft.h's calls
/// as the exports docs/WasmABI.md names, values as JSON in the guest's buffer.
extension WasmPlugin {
    func makeSide(of component: RegisteredComponent, inputs: [String: GraftValue], context: InstanceContext) throws(GraftError)
        -> any InstanceSide
    {
        let (forwarded, warnings) = DriftCheck.bind(inputs, to: component.contract, instanceID: context.instanceID)
        context.record(warnings)
        let handle = Handle(key: component.contract.key, version: component.contract.version, inputs: Self.json(.object(forwarded)))
        try create(handle, what: "create of \(component.reference)", key: component.contract.key)
        return WasmInstance(plugin: self, handle: handle, component: component, context: context)
    }

    func validate(_ validator: RegisteredValidator, _ value: GraftValue, params: [String]) throws(GraftError) -> ValidationOutcome {
        let contract = validator.contract
        try validator.checkParamCount(params)
        let answer = try run(
            "graft_validate", [.i32(UInt32(contract.version))],
            data: [Array(contract.name.utf8), Self.json(value), Self.json(.list(params.map { .string($0) }))],
            what: "validator '\(contract.name)'", key: contract.name, outputLimit: 64 << 10)
        if answer.flag { return ValidationOutcome(isValid: true, validator: contract.name, pluginNumber: validator.pluginNumber) }
        return ValidationOutcome(
            isValid: false, message: answer.output.isEmpty ? (contract.message ?? "is not valid") : String(decoding: answer.output, as: UTF8.self),
            validator: contract.name, pluginNumber: validator.pluginNumber)
    }

    func invoke(_ action: RegisteredAction, params: [String: GraftValue], payload: GraftValue?) throws(GraftError) -> ActionOutcome {
        let contract = action.contract
        let answer = try run(
            "graft_action", [.i32(UInt32(contract.version))],
            data: [Array(contract.key.utf8), Self.json(.object(params)), payload.map(Self.json) ?? []],
            what: "action '\(contract.key)'", key: contract.key)
        return ActionOutcome(
            ok: answer.flag, error: answer.flag ? nil : (answer.error ?? "action '\(contract.key)' failed without saying why"),
            variables: answer.flag ? answer.variables : [:], result: answer.result)
    }

    static func json(_ value: GraftValue) -> [UInt8] {
        var bytes: [UInt8] = []
        value.appendJSON(to: &bytes)
        return bytes
    }
}

/// A component instance that lives in a WebAssembly guest.
final class WasmInstance: InstanceSide {
    private let plugin: WasmPlugin
    private let handle: WasmPlugin.Handle
    private let component: RegisteredComponent
    private let context: InstanceContext

    init(plugin: WasmPlugin, handle: WasmPlugin.Handle, component: RegisteredComponent, context: InstanceContext) {
        self.plugin = plugin
        self.handle = handle
        self.component = component
        self.context = context
    }

    private var key: String { component.contract.key }

    private func call(_ name: String, _ what: String, data: [[UInt8]] = [], outputLimit: Int? = nil) throws(GraftError) -> WasmPlugin.Answer {
        let answer = try plugin.run(name, [], data: data, what: "\(what) of \(component.reference)", key: key, on: handle, outputLimit: outputLimit)
        if answer.recreated {
            let id = context.instanceID
            context.record([GraftWarning(
                .pluginRestarted,
                "instance '\(id)' of \(component.contract.reference) was re-created from its last inputs: plugin '\(component.pluginID)' trapped, its WebAssembly instance was thrown away, and its state was lost.",
                instanceID: id)])
        }
        for (event, payload) in answer.events { context.emit(event, payload: payload) }
        return answer
    }

    func render(as mediaType: MediaType, outputLimit: Int) throws(GraftError) -> (rendering: Rendering, overflowed: Bool) {
        // The configured limit holds as for a runner child's render: past it the render is refused.
        let limit = plugin.limits.output
        let answer = try call("graft_render", "render", data: [Array(mediaType.rawValue.utf8)], outputLimit: min(outputLimit, limit))
        if answer.overflowed, limit <= outputLimit {
            throw GraftError(
                .outputTooLarge,
                "\(component.contract.reference) from plugin '\(component.pluginID)' wrote more than the \(limit) bytes a render may have; the output was refused.",
                path: component.pluginPath, key: key)
        }
        try context.judgeRender(ok: answer.flag, overflowed: answer.overflowed, limit: outputLimit, of: component)
        let text = String(decoding: answer.output, as: UTF8.self)
        return (Rendering(mediaType: answer.mediaType.map(MediaType.init(rawValue:)) ?? mediaType, text: text), answer.overflowed)
    }

    func interact(_ action: String, data: GraftValue?) throws(GraftError) -> Bool {
        let answered = try call("graft_interact", "interaction '\(action)'", data: [Array(action.utf8), data.map(WasmPlugin.json) ?? []]).flag
        context.explain(action, answered: answered, by: component)
        return answered
    }

    func update(inputs: [String: GraftValue]) throws(GraftError) -> Bool {
        let (forwarded, warnings) = DriftCheck.bind(inputs, to: component.contract, instanceID: context.instanceID)
        context.record(warnings)
        guard plugin.exports("graft_update") else { return false }
        let json = WasmPlugin.json(.object(forwarded))
        guard try call("graft_update", "update", data: [json]).flag else { return false }
        handle.inputs = json
        return true
    }

    func saveState() -> [UInt8]? {
        guard plugin.exports("graft_save"), let answer = try? call("graft_save", "save"), answer.flag, !answer.overflowed else { return nil }
        return answer.output
    }

    func loadState(_ state: [UInt8]) -> Bool {
        guard plugin.exports("graft_load") else { return false }
        return (try? call("graft_load", "load", data: [state]).flag) ?? false
    }

    /// The guest has no way to ask for its size yet (docs/WasmABI.md).
    func resize(to size: ContainerSize) {}

    func destroy(closing: Bool) {
        plugin.destroy(handle, key: key)
    }
}
#endif
