/// One `registerCustomComponent` call.
struct RegisteredComponent: Sendable {
    var key: String
    var version: Int
    var definition: CustomComponentDefinition
}
