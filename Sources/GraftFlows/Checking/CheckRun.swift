import GraftHost

/// The state of one `FlowChecker.check`: the flow, the registry as it was
/// when the check began, and the findings so far.
struct CheckRun {
    let flow: FlowDocument
    let registry: RegistryView
    var findings: [CheckFinding] = []
    /// `go_to` edges: screen index → target screen ids, collected while the
    /// wiring is walked and used for reachability.
    var transitions: [Int: [String]] = [:]

    init(flow: FlowDocument, registry: RegistryView) {
        self.flow = flow
        self.registry = registry
    }

    mutating func add(
        _ code: GraftError.Code, _ detail: CheckFinding.Detail? = nil, at path: JSONPath, editor: String? = nil,
        plugin: String? = nil, _ message: String
    ) {
        findings.append(CheckFinding(
            code: code, detail: detail, path: path.description, editor: editor, plugin: plugin, message: message))
    }

    /// The finding for a component that does not resolve: missing entirely,
    /// or registered only under other versions. Returns the registration when
    /// it resolves.
    mutating func resolveOrReport(
        _ reference: ComponentReference, componentPath: JSONPath, versionPath: JSONPath, what: String
    ) -> RegisteredComponent? {
        if let registered = registry.components[reference] { return registered }
        let versions = registry.componentVersions(of: reference)
        if versions.isEmpty {
            add(
                .customComponentNotFound, at: componentPath, editor: reference.description,
                "\(what) \(reference), but no plugin registers component '\(reference.key)'.")
        } else {
            let list = versions.map(String.init).joined(separator: ", ")
            add(
                .componentVersionMismatch, at: versionPath, editor: String(reference.version), plugin: list,
                "\(what) \(reference), but '\(reference.key)' is registered only at version\(versions.count == 1 ? "" : "s") \(list).")
        }
        return nil
    }
}
