import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftFlows
import GraftHost

/// A flow document as a dry run uses it: for each placed instance, its
/// component, its input bindings, and the actions wired to its events, so
/// the dry run can show what an event would run.
///
///     let wiring = try FlowWiring(contentsOf: URL(fileURLWithPath: "checkout.json"))
///     let dryRun = DryRun(host: host, flow: wiring)
///     let result = try dryRun.run(DryRunRequest(
///         component: ComponentReference(key: "paywall"), instance: "offer",
///         steps: [.emit(event: "purchase", payload: ["title": "Pro", "price": 9.99])]))
public struct FlowWiring: Sendable {
    /// The document, read and checked by GraftFlows.
    public let document: FlowDocument
    private let placements: [String: WiredPlacement]
    /// The ids of the placed instances, in document order.
    public let instanceIDs: [String]

    /// Reads a flow document. Errors are GraftFlows' (`invalid_json`,
    /// `invalid_flow`, with the JSON path).
    public init(json text: String) throws(GraftError) {
        self.init(document: try FlowDocument(json: text))
    }

    /// Reads a flow document from a file; errors name the file.
    public init(contentsOf url: URL) throws(GraftError) {
        self.init(document: try FlowDocument(contentsOf: url))
    }

    public init(document: FlowDocument) {
        self.document = document
        var placements: [String: WiredPlacement] = [:]
        var ids: [String] = []
        for screen in document.screens {
            for instance in screen.instances {
                ids.append(instance.id)
                placements[instance.id] = WiredPlacement(
                    id: instance.id, screen: screen.id, component: instance.component, inputs: instance.inputs,
                    on: instance.on)
            }
        }
        self.placements = placements
        self.instanceIDs = ids
    }

    /// The placed instance `id`; throws `unknown_instance` listing the ids there are.
    func placement(_ id: String) throws(GraftError) -> WiredPlacement {
        guard let placement = placements[id] else {
            throw GraftError(
                .unknownInstance,
                "the flow places no instance '\(id)' (instances: \(instanceIDs.isEmpty ? "none" : instanceIDs.joined(separator: ", "))).",
                key: id)
        }
        return placement
    }
}
