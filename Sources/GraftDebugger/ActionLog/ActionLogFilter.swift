import GraftHost

/// Which log records to show. Every field that is set must match; a record
/// that lacks the field (a swap has no instance) does not match it.
///
/// `component` is `KEY` (any version) or `KEY@VERSION` (that version only):
/// a tester filtering on `date_picker` wants every date picker.
public struct ActionLogFilter: Sendable, Hashable {
    public var pluginID: String?
    public var component: String?
    public var instance: String?
    public var event: String?

    public init(pluginID: String? = nil, component: String? = nil, instance: String? = nil, event: String? = nil) {
        self.pluginID = pluginID
        self.component = component
        self.instance = instance
        self.event = event
    }

    /// Matches every record.
    public static let all = ActionLogFilter()

    public var isEmpty: Bool { pluginID == nil && component == nil && instance == nil && event == nil }

    public func matches(_ record: ActionLogRecord) -> Bool {
        matches(pluginID: record.pluginID, component: record.component, instance: record.instance, event: record.event)
    }

    func matches(pluginID recordPlugin: String?, component recordComponent: ComponentReference?, instance recordInstance: String?, event recordEvent: String?) -> Bool {
        if let pluginID, recordPlugin != pluginID { return false }
        if let instance, recordInstance != instance { return false }
        if let event, recordEvent != event { return false }
        if let component {
            guard let reference = recordComponent else { return false }
            if component.contains("@") {
                if reference.description != component { return false }
            } else if reference.key != component {
                return false
            }
        }
        return true
    }

    /// `{"plugin", "component", "instance", "event"}`, only the fields set.
    public var json: GraftValue {
        var object: [String: GraftValue] = [:]
        if let pluginID { object["plugin"] = .string(pluginID) }
        if let component { object["component"] = .string(component) }
        if let instance { object["instance"] = .string(instance) }
        if let event { object["event"] = .string(event) }
        return .object(object)
    }

    /// Reads the form `json` writes; a missing or null filter matches all.
    public init(json: GraftValue?) throws(GraftError) {
        guard let json, json != .null else {
            self.init()
            return
        }
        let fields = try JSONFields(json, context: "the filter")
        let known: Set<String> = ["plugin", "component", "instance", "event"]
        if let unknown = fields.object.keys.sorted().first(where: { !known.contains($0) }) {
            throw GraftError(.invalidJSON, "the filter has an unknown field \"\(unknown)\"; filters are plugin, component, instance and event.")
        }
        self.init(
            pluginID: try fields.optionalString("plugin"), component: try fields.optionalString("component"),
            instance: try fields.optionalString("instance"), event: try fields.optionalString("event"))
    }
}
