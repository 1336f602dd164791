/// One `registerAction` call.
struct RegisteredAction: Sendable {
    var key: String
    var version: Int
    var name: String?
    var description: String?
    var params: [String: InputType]
    var perform: @Sendable (ActionInvocation) -> ActionResult
}
