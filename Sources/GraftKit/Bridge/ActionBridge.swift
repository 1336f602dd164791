import CGraft

/// Runs the Swift action behind descriptor `index` for its C thunk.
enum ActionBridge {
    /// On success, sets the variables (sorted by name) and the result through
    /// the context; on failure, sets the error. Values are copied by the host.
    static func invoke(index: Int, _ params: UnsafePointer<graft_value_t>?,
                       _ payload: UnsafePointer<graft_value_t>?,
                       _ context: UnsafePointer<graft_action_context_t>?) -> Bool {
        guard let registry = PluginImage.current?.registry,
              index < registry.actions.count, let context else { return false }
        let invocation = ActionInvocation(
            params: Value.copyingObject(params) ?? [:], payload: Value.copyingObject(payload),
            context: context)
        let result = registry.actions[index].perform(invocation)
        if let error = result.error {
            context.pointee.set_error?(context, error)
            return false
        }
        for name in result.variables.keys.sorted() {
            CValueArena.with(result.variables[name]!) { value in
                context.pointee.set_variable?(context, name, value)
            }
        }
        if let value = result.result {
            CValueArena.with(value) { value in context.pointee.set_result?(context, value) }
        }
        return true
    }
}
