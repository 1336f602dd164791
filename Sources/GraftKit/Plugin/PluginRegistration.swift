/// Collects what a plugin registers. GraftKit hands one to
/// ``GraftPlugin/register(in:)``, checks the result against graft.h's rules
/// and, if anything is wrong, refuses `init` and logs every problem.
public final class PluginRegistration {
    private(set) var components: [RegisteredComponent] = []
    private(set) var validators: [RegisteredValidator] = []
    private(set) var actions: [RegisteredAction] = []

    init() {}

    /// Registers component `key` at `version` (>= 1; version 1 also answers the bare key).
    public func registerCustomComponent(key: String, version: Int,
                                        definition: CustomComponentDefinition) {
        components.append(RegisteredComponent(key: key, version: version, definition: definition))
    }

    /// Registers a generic validator. `params` names the editor-configured
    /// string params, in the order `validate` receives them. `message` is
    /// what the host reports when `validate` returns `.invalid(nil)`.
    public func registerValidator(
        name: String, version: Int = 1, description: String? = nil, params: [String] = [],
        message: String? = nil,
        validate: @escaping @Sendable (Value, [String]) -> ValidationResult
    ) {
        validators.append(RegisteredValidator(
            name: name, version: version, description: description, params: params,
            message: message, validate: validate))
    }

    /// Registers custom action `key` at `version` with its params schema.
    public func registerAction(
        key: String, version: Int = 1, name: String? = nil, description: String? = nil,
        params: [String: InputType] = [:],
        perform: @escaping @Sendable (ActionInvocation) -> ActionResult
    ) {
        actions.append(RegisteredAction(
            key: key, version: version, name: name, description: description, params: params,
            perform: perform))
    }
}
