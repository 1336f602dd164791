import GraftHost

/// One disagreement between a flow and what the plugins provide, or a
/// problem in the flow's own wiring: where it is in the document, what the
/// editor says and what the plugin says.
public struct CheckFinding: Sendable, Hashable {
    /// `custom_component_not_found`, `component_version_mismatch`,
    /// `contract_mismatch`, `action_not_found`, `validator_not_found`, or
    /// `invalid_config` (undeclared variables, unreachable screens).
    public var code: GraftError.Code
    /// What kind of mismatch, for `contract_mismatch` and `invalid_config`.
    public var detail: Detail?
    /// Where in the flow, such as `$.screens[0].instances[1].inputs.label`.
    public var path: String
    /// What the editor (the flow document) says, when it says something.
    public var editor: String?
    /// What the plugin says, when it says something.
    public var plugin: String?
    /// A sentence naming both sides.
    public var message: String

    /// `{"code", "detail", "path", "editor", "plugin", "message"}`; absent sides are null.
    public var json: GraftValue {
        .object([
            "code": .string(code.rawValue), "detail": detail.map { .string($0.rawValue) } ?? .null, "path": .string(path),
            "editor": editor.map(GraftValue.string) ?? .null, "plugin": plugin.map(GraftValue.string) ?? .null,
            "message": .string(message),
        ])
    }
}
