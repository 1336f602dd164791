import CGraft

/// Runs the Swift action behind a descriptor. Every descriptor points at the
/// same C function; graft.h passes the descriptor as `self`, and its position
/// in the table says which action it is.
enum ActionBridge {
    typealias Function = @convention(c) (
        UnsafePointer<graft_action_descriptor_t>?, UnsafePointer<graft_value_t>?,
        UnsafePointer<graft_value_t>?, UnsafePointer<graft_action_context_t>?) -> Bool

    static let function: Function = { invoke($0, $1, $2, $3) }

    /// On success, sets the variables (sorted by name) and the result through
    /// the context; on failure, sets the error. Values are copied by the host.
    static func invoke(_ descriptor: UnsafePointer<graft_action_descriptor_t>?,
                       _ params: UnsafePointer<graft_value_t>?,
                       _ payload: UnsafePointer<graft_value_t>?,
                       _ context: UnsafePointer<graft_action_context_t>?) -> Bool {
        guard let descriptor, let context, let (registry, index) = DescriptorOwners.owner(of: descriptor) else {
            return false
        }
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
