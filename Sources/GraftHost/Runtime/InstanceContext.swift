import CGraft
import GraftSupport
import Logging

/// The host side of one instance's `graft_component_context_t`: receives
/// emits, logs and warnings from the plugin, from any thread, while the
/// instance lives.
package final class InstanceContext: Sendable {
    let instanceID: String
    /// The host's logger; `logger` tags it with the component when something
    /// is logged (rarely), not for every instance made.
    private let hostLogger: Logger
    private let onEvent: @Sendable (EmittedEvent) -> Void
    private let state: Locked<State>

    struct State {
        var warnings: [GraftWarning] = []
        var containerSize: ContainerSize
        /// Which component the instance currently is; hot swap moves it to a new build.
        var component: RegisteredComponent
        /// The plugin's log lines a second (`graft_component_context_t.log`).
        var logRate = LineRate()
    }

    /// Warnings kept per instance; older ones are dropped first.
    static let warningLimit = 256

    package init(
        instanceID: String, component: RegisteredComponent, containerSize: ContainerSize, logger: Logger,
        onEvent: @escaping @Sendable (EmittedEvent) -> Void
    ) {
        self.instanceID = instanceID
        self.hostLogger = logger
        self.onEvent = onEvent
        self.state = Locked(State(containerSize: containerSize, component: component))
    }

    /// The host's logger with the instance's component as metadata.
    var logger: Logger {
        var logger = hostLogger
        logger[metadataKey: "component"] = "\(component.reference)"
        return logger
    }

    var component: RegisteredComponent {
        get { state.withLock { $0.component } }
        set { state.withLock { $0.component = newValue } }
    }

    var warnings: [GraftWarning] { state.withLock { $0.warnings } }

    var containerSize: ContainerSize {
        get { state.withLock { $0.containerSize } }
        set { state.withLock { $0.containerSize = newValue } }
    }

    func record(_ warnings: [GraftWarning]) {
        guard !warnings.isEmpty else { return }
        let logger = self.logger
        for warning in warnings { logger.warning("\(warning)") }
        state.withLock { state in
            state.warnings.append(contentsOf: warnings)
            if state.warnings.count > Self.warningLimit {
                state.warnings.removeFirst(state.warnings.count - Self.warningLimit)
            }
        }
    }

    package func takeWarnings() -> [GraftWarning] {
        state.withLock { state in
            defer { state.warnings.removeAll() }
            return state.warnings
        }
    }

    func emit(_ event: String, payload: GraftValue?) {
        let component = self.component
        let warnings = DriftCheck.check(
            event: event, payload: payload, declared: component.contract.output(event), of: component.reference, instanceID: instanceID)
        record(warnings)
        deliver(event, payload: payload, warnings: warnings, as: component)
    }

    /// An event the instance emitted in its runner child, already checked
    /// there: handed on as is (its warnings are recorded with the call's answer).
    func deliver(
        _ event: String, payload: GraftValue?, warnings: [GraftWarning], as component: RegisteredComponent? = nil
    ) {
        let component = component ?? self.component
        onEvent(EmittedEvent(
            instanceID: instanceID, component: component.reference, pluginID: component.pluginID, event: event,
            payload: payload, warnings: warnings))
    }

    /// Allocates the C context that points back here. The caller keeps this
    /// object alive and frees the context after the instance's destroy.
    package func makeCContext() -> UnsafeMutablePointer<graft_component_context_t> {
        let context = UnsafeMutablePointer<graft_component_context_t>.allocate(capacity: 1)
        context.initialize(to: graft_component_context_t())
        context.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.emit = { context, event, payload in
            guard let owner = InstanceContext.from(context), let event else { return }
            owner.emit(String(cString: event), payload: payload == nil ? nil : GraftValue(copying: payload))
        }
        context.pointee.log = { context, level, message in
            guard let owner = InstanceContext.from(context), let message else { return }
            let (verdict, note) = owner.state.withLock { state in
                let verdict = state.logRate.admit()
                guard case .write = verdict else { return (verdict, nil as String?) }
                return (verdict, state.logRate.takeNote())
            }
            let logger = owner.logger
            switch verdict {
            case .write:
                if let note { logger.warning("\(owner.instanceID): \(note)") }
                logger.log(level: Logger.Level(graftLevel: level), "\(owner.instanceID): \(String(cString: message))")
            case .dropAndSay(let note): logger.warning("\(owner.instanceID): \(note)")
            case .drop: break
            }
        }
        context.pointee.warn = { context, code, message in
            guard let owner = InstanceContext.from(context) else { return }
            let codeText = code.map { String(cString: $0) } ?? ""
            let text = message.map { String(cString: $0) } ?? "(no message)"
            owner.record([GraftWarning(
                GraftError.Code(rawValue: codeText) ?? .contractMismatch, "instance '\(owner.instanceID)': \(text)",
                instanceID: owner.instanceID)])
        }
        context.pointee.get_container_size = { context in
            guard let owner = InstanceContext.from(context) else { return graft_size_t(width: 0, height: 0) }
            let size = owner.containerSize
            return graft_size_t(width: size.width, height: size.height)
        }
        return context
    }

    private static func from(_ context: UnsafePointer<graft_component_context_t>?) -> InstanceContext? {
        guard let data = context?.pointee.host_data else { return nil }
        return Unmanaged<InstanceContext>.fromOpaque(data).takeUnretainedValue()
    }
}

extension InstanceContext {
    /// One render's answer, judged alike wherever it ran: a failure unless
    /// the write was refused past the limit (a component whose write is
    /// refused usually gives up: the limit's doing, not a failure of its
    /// own), and a warning when the output was cut.
    func judgeRender(ok: Bool, overflowed: Bool, limit: Int, of component: RegisteredComponent) throws(GraftError) {
        guard ok || overflowed else {
            throw GraftError(
                .renderFailed, "\(component.contract.reference) from plugin '\(component.pluginID)' failed to render.",
                path: component.pluginPath, key: component.contract.key)
        }
        if overflowed {
            record([GraftWarning(.renderFailed, "instance '\(instanceID)' wrote more than \(limit) bytes; the output was cut.", instanceID: instanceID)])
        }
    }

    /// The contract's view of one answer. A 1.0 component declares nothing,
    /// so nothing more is known about it.
    func explain(_ action: String, answered: Bool, by component: RegisteredComponent) {
        let interactions = component.contract.interactions
        guard !interactions.isEmpty else { return }
        let id = instanceID
        if !interactions.contains(where: { $0.name == action }) {
            let declared = interactions.map(\.name)
            let outcome = answered ? "the plugin answered it anyway" : "the plugin refused it"
            record([GraftWarning(
                .unknownInteraction,
                "\(component.reference) does not declare the interaction '\(action)'; it declares \(declared.joined(separator: ", ")) (\(outcome)).\(NearMiss.hint(for: action, among: declared))",
                instanceID: id)])
        } else if !answered {
            record([GraftWarning(
                .interactionRefused, "\(component.reference) refused the interaction '\(action)': the plugin answered false (its data or its state did not suit it).",
                instanceID: id)])
        }
    }
}
