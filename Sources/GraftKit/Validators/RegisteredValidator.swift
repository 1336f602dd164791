/// One `registerValidator` call.
struct RegisteredValidator: Sendable {
    var name: String
    var version: Int
    var description: String?
    var params: [String]
    var message: String?
    var validate: @Sendable (Value, [String]) -> ValidationResult
}
