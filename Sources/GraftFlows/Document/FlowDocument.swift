import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import GraftHost

/// A flow as an editor saves it: the editor's definitions of custom
/// components and actions, the flow's variables, and its screens with the
/// instances placed on them. The format is described in `Examples/flows/README.md`.
///
///     let flow = try FlowDocument(contentsOf: URL(fileURLWithPath: "checkout.json"))
///     let report = FlowChecker(host: host).check(flow)
///
/// Reading a document checks everything that does not need plugins: JSON
/// syntax (`invalid_json`), field types, unknown fields and actions, and the
/// flow graph — `go_to` targets exist, every wired event is declared by the
/// instance's definition, ids are unique (`invalid_flow`). Each error names
/// the JSON path, such as `$.screens[0].instances[1].on.purchase[0].screen`.
public struct FlowDocument: Sendable, Hashable {
    /// The editor's definitions of custom components, in document order.
    public internal(set) var components: [ComponentContract]
    /// The editor's definitions of the custom actions the flow invokes.
    public internal(set) var actions: [FlowActionDefinition]
    /// Variables and their initial values.
    public internal(set) var variables: [String: GraftValue]
    /// The screens; the flow starts at the first.
    public internal(set) var screens: [FlowScreen]
    /// The container size for every screen that does not give its own.
    public internal(set) var size: ContainerSize?
    /// The plugin id a definition names (`"plugin"`), by the definition's
    /// key + version: its instances use that plugin's component, whoever
    /// answers the bare name.
    public internal(set) var componentPlugins: [ComponentReference: String] = [:]

    /// Reads a document from JSON text.
    public init(json text: String) throws(GraftError) {
        let value: GraftValue
        do {
            value = try GraftValue(json: text)
        } catch {
            throw GraftError(.invalidJSON, "the flow is not valid JSON: \(JSONSyntax.describeError(in: text))")
        }
        self = try FlowParser.document(from: value)
    }

    /// Reads a document from a file; errors name the file.
    public init(contentsOf url: URL) throws(GraftError) {
        let text = try BoundedFile.text(at: url.path, what: "the flow", code: .invalidFlow)
        do {
            try self.init(json: text)
        } catch {
            throw GraftError(error.code, "\(url.lastPathComponent): \(error.message)", path: url.path)
        }
    }

    init(
        components: [ComponentContract], actions: [FlowActionDefinition], variables: [String: GraftValue],
        screens: [FlowScreen], size: ContainerSize?
    ) {
        self.components = components
        self.actions = actions
        self.variables = variables
        self.screens = screens
        self.size = size
    }

    /// The screen with `id`, if the flow has one.
    public func screen(_ id: String) -> FlowScreen? { screens.first { $0.id == id } }

    /// The editor's definition of `reference` (bare or qualified), if the flow has one.
    public func definition(of reference: ComponentReference) -> ComponentContract? {
        components.first { $0.reference == reference.bare }
    }

    /// The name the flow uses for `definition`: qualified when it names its plugin.
    public func reference(of definition: ComponentContract) -> ComponentReference {
        componentPlugins[definition.reference].map { definition.reference.qualified(by: $0) } ?? definition.reference
    }

    func actionDefinition(key: String) -> FlowActionDefinition? { actions.first { $0.key == key } }
}
